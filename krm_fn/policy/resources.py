"""assistant.resources: the placeholder container's requests and limits, checked as the API
server checks a container's (quantities, resource names, requests not above limits), and the
requests a placeholder pod makes, for the summary's cost line.

Tekton's assistant has fixed requests = limits = 50m CPU / 100Mi memory; a `resources` field
for its template is proposed (tektoncd/pipeline#9287, PR #10325, open), with the precedence
per-run pod template > default-affinity-assistant-pod-template > the fixed values. Until it
ships this setting is a declared departure (docs/guarantees.md).
"""
from __future__ import annotations

from decimal import Decimal
from decimal import InvalidOperation

from krm_fn.core import patterns

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

TEKTON = {"cpu": "50m", "memory": "100Mi"}  # Tekton's fixed requests = limits
# resource.Quantity's text form: a signed decimal number, then a binary or decimal SI suffix or
# a decimal exponent (k8s.io/apimachinery/pkg/api/resource)
_QUANTITY = patterns.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))((?:[KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?")
_SUFFIX = {
    "": Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"),
    "k": Decimal(10) ** 3, "M": Decimal(10) ** 6, "G": Decimal(10) ** 9, "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}
_STANDARD = ("cpu", "memory", "ephemeral-storage")
# a qualified name: an optional DNS prefix and `/`, then a name of at most 63 characters
_NAME = patterns.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_PREFIX = patterns.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def quantity(value: Any) -> Decimal | None:
    """The value of a quantity (a string, or a YAML number), or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    m = _QUANTITY.fullmatch(str(value).strip() if not isinstance(value, str) else value)
    if not m:
        return None
    try:
        number = Decimal(m.group(1))
        suffix = m.group(2) or ""
        if suffix[:1] in ("e", "E"):
            return number * (Decimal(10) ** int(suffix[1:]))
        return number * _SUFFIX[suffix]
    except (InvalidOperation, ValueError):
        return None


def problems(path: str, resources: dict[str, Any]) -> list[tuple[str, str]]:
    """(field path, message) for each thing the API server would refuse in these resources."""
    out: list[tuple[str, str]] = []
    parsed: dict[str, dict[str, Decimal]] = {}
    for part in ("requests", "limits"):
        values = resources.get(part) or {}
        parsed[part] = {}
        for name, value in values.items():
            where = f"{path}.{part}.{name}"
            why = _name_problem(str(name))
            if why:
                out.append((where, why))
                continue
            q = quantity(value)
            if q is None:
                out.append((where, f"{value!r} is not a quantity (e.g. 100m, 0.5, 128Mi, 1Gi)"))
            elif q < 0:
                out.append((where, f"{value} must not be negative"))
            else:
                parsed[part][str(name)] = q
    for name, want in parsed["requests"].items():
        limit = parsed["limits"].get(name)
        if limit is not None and want > limit:
            out.append((f"{path}.requests.{name}", f"{resources['requests'][name]} is more than the limit {resources['limits'][name]}; a request must not exceed its limit"))
        elif _extended(name) and limit is not None and want != limit:
            out.append((f"{path}.requests.{name}", f"{name} is not overcommitable: its request must equal its limit"))
    for name in parsed["requests"]:
        if name.startswith("hugepages-") and name not in parsed["limits"]:
            out.append((f"{path}.limits", f"{name} needs a limit (hugepages requests need limits)"))
    return out


def _extended(name: str) -> bool:
    return "/" in name and not name.startswith("kubernetes.io/")


def _name_problem(name: str) -> str:
    if name in _STANDARD or (name.startswith("hugepages-") and quantity(name[len("hugepages-"):]) is not None):
        return ""
    prefix, slash, rest = name.rpartition("/")
    if not slash:
        return f"{name} is not a standard resource (cpu, memory, ephemeral-storage, hugepages-<size>); an extended resource needs a domain, e.g. example.com/{name}"
    if not (_PREFIX.fullmatch(prefix) and len(prefix) <= 253 and _NAME.fullmatch(rest)):
        return f"{name} is not a valid resource name (a DNS prefix, `/`, and a name of at most 63 characters)"
    return ""


def requests(resources: dict[str, Any] | None) -> dict[str, Decimal]:
    """What a placeholder pod requests (a limit without a request is also its request, as the
    API server defaults it)."""
    r = resources or {"requests": TEKTON, "limits": TEKTON}
    out: dict[str, Decimal] = {}
    for source in (r.get("limits") or {}, r.get("requests") or {}):
        for name, value in source.items():
            q = quantity(value)
            if q is not None:
                out[str(name)] = q
    return out


def cost(requests_each: list[dict[str, Decimal]]) -> str:
    """`100m CPU and 200Mi memory`: the sum of the pods' CPU and memory requests."""
    cpu = sum((r.get("cpu", Decimal(0)) for r in requests_each), Decimal(0))
    mem = sum((r.get("memory", Decimal(0)) for r in requests_each), Decimal(0))
    millis = cpu * 1000
    cpu_text = f"{int(millis)}m" if millis == millis.to_integral_value() else f"{cpu.normalize()}"
    mib = mem / _SUFFIX["Mi"]
    mem_text = f"{int(mib)}Mi" if mib == mib.to_integral_value() else f"{int(mem)} bytes of"
    return f"{cpu_text} CPU and {mem_text} memory"
