"""Kubernetes name validators with apimachinery v0.36 error strings.

Shipwright's controller embeds these strings in its status messages ("Toleration key not
valid: name part must be no more than 63 bytes"), so render-time results quote them exactly.
Go measures lengths in bytes and anchors its regexes with `^...$` (no trailing-newline
match), hence `len(s.encode())` and whole-string checks here. apimachinery 0.36 says "bytes"
where 0.34 (Shipwright v0.19) said "characters" (shipwright-io/build commit 29f8974).
"""
from __future__ import annotations

from krm_fn.policy import hardening
from krm_fn.policy.tolerations import tol_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.policy.config import Policy

    Finding = tuple[str, str, str, dict[str, str] | None]  # severity, field path, message, tags

QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

# the patterns apimachinery names in its messages; matched by set and string operations
# (_is_dns1123_label, _is_qualified_name), which need no pattern compiled at start (#5, #34)
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery's RegexError: note the two spaces before each "or" (", " + " or ")."""
    out = msg
    if examples:
        out += " (e.g. " + " or ".join(f"'{e}', " for e in examples)
    else:
        out += " ("
    return out + "regex used for validation is '" + fmt + "')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} bytes"


def empty_error() -> str:
    return "must be non-empty"


def _blen(s: str) -> int:
    return len(s.encode("utf-8"))


_DNS1123_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def _is_dns1123_label(s: str) -> bool:
    """re.fullmatch(_DNS1123_LABEL_FMT, s), in set and string operations: every run checks
    its names, and the two patterns cost 0.2 ms to compile at every start."""
    return s[:1] not in ("", "-") and s[-1] != "-" and _DNS1123_CHARS.issuperset(s)


_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_QUALIFIED_NAME_CHARS = _ALNUM | frozenset("-_.")


def _is_qualified_name(s: str) -> bool:
    """re.fullmatch(_QUALIFIED_NAME_FMT, s), in set and string operations, as
    _is_dns1123_label: every run checks the label values it writes, and the pattern cost
    0.25 ms to compile at every start (issue 34)."""
    return s[:1] in _ALNUM and s[-1:] in _ALNUM and _QUALIFIED_NAME_CHARS.issuperset(s)


def dns1123_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123Subdomain."""
    errs = []
    if _blen(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not all(_is_dns1123_label(part) for part in value.split(".")):  # _DNS1123_SUBDOMAIN_FMT
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63


def dns1123_label_errors(value: str) -> list[str]:
    """IsDNS1123Label (namespace names)."""
    errs = []
    if _blen(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _is_dns1123_label(value):
        errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def qualified_name_errors(value: str) -> list[str]:
    """IsQualifiedName: `[prefix/]name`, the syntax of label keys, toleration keys and (in
    Shipwright) scheduler names. Errors in apimachinery's order: prefix, name length, name
    regex."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
    else:
        return [
            "a valid label key "
            + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + empty_error())
    elif _blen(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _is_qualified_name(name):  # _QUALIFIED_NAME_FMT
        errs.append(
            "name part "
            + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """IsValidLabelValue: empty, or at most 63 bytes of `[A-Za-z0-9._-]` starting and ending
    with an alphanumeric character."""
    errs = []
    if _blen(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if value and not _is_qualified_name(value):  # _LABEL_VALUE_FMT
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def join(errs: list[str]) -> str:
    """Shipwright joins apimachinery's errors with ", " (strings.Join)."""
    return ", ".join(errs)


# --------------------------------------------------------------------------- Shipwright rules
# SHIP-0039's subset as the Shipwright controller checks it (pkg/validate/tolerations.go,
# nodeselector.go, scheduler_name.go). Reasons and message wording are the controller's, so a
# user who searches the Shipwright docs for them finds the right page.

TOLERATION_NOT_VALID = "TolerationNotValid"
NODE_SELECTOR_NOT_VALID = "NodeSelectorNotValid"
SCHEDULER_NAME_NOT_VALID = "SchedulerNameNotValid"
RUNTIME_CLASS_NAME_NOT_VALID = "RuntimeClassNameNotValid"  # Shipwright v0.19+ (SHIP-0040)
# Build and BuildRun runtimeClassName (SHIP-0040, shipwright-io/build#2079)
SHIPWRIGHT_RUNTIME_CLASS_SINCE = (0, 19, 0)
NODE_SELECTOR_PLATFORM_CONFLICT = "NodeSelectorPlatformConflict"
OVERRIDE_FORBIDDEN = "BuildRunBuildFieldOverrideForbidden"
BUILD_REGISTRATION_FAILED = "BuildRegistrationFailed"
PLATFORM_KEYS = ("kubernetes.io/os", "kubernetes.io/arch")  # os is checked first


def _shown(v: Any) -> str:
    import json  # here: json costs ~1 ms to import, and only a message needs it

    return json.dumps(v) if isinstance(v, (bool, int, float)) or v is None else type(v).__name__


def toleration_problem(tol: Any) -> tuple[str, str] | None:
    """The first failure of one toleration as (sub-field, message), or None.

    Shipwright's order: key, operator, value, effect, tolerationSeconds; the first failure
    stops. Then one check Shipwright lacks: `Exists` with a value passes the controller, but
    Kubernetes rejects the pod ("value must be empty when `operator` is 'Exists'")."""
    if not isinstance(tol, dict):
        return "", "Toleration not valid: must be an object with key, operator, value and effect"
    key = tol.get("key", "")
    if key is None:
        key = ""
    if not isinstance(key, str):
        return "key", f"Toleration key not valid: must be a string, got {_shown(key)}; quote it"
    errs = qualified_name_errors(key)
    if errs:
        return "key", "Toleration key not valid: " + join(errs)
    op = tol.get("operator")
    if op not in ("Exists", "Equal"):
        return "operator", "Toleration operator not valid. Must be one of: 'Exists', 'Equal'"
    value = tol.get("value", "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        return "value", f"Toleration value not valid: must be a string, got {_shown(value)}; quote it"
    errs = label_value_errors(value)
    if errs:
        return "value", "Toleration value not valid: " + join(errs)
    effect = tol.get("effect")
    if effect not in (None, "", "NoSchedule"):
        return "effect", "Only the 'NoSchedule' toleration effect is supported."
    if "tolerationSeconds" in tol and tol.get("tolerationSeconds") is not None:
        return "tolerationSeconds", "Specifying TolerationSeconds is not supported."
    if op == "Exists" and value:
        return (
            "value",
            "Toleration value not valid: value must be empty when `operator` is 'Exists'. "
            "Shipwright accepts it, but Kubernetes rejects the build pod; remove the value or "
            "use operator Equal",
        )
    return None


def with_value(tol: Any, sub: str, message: str) -> str:
    """Shipwright's message for a toleration's operator or effect, with the value it got
    (Shipwright's own text lists the allowed values but not the one it refused)."""
    if sub not in ("operator", "effect") or not isinstance(tol, dict):
        return message
    v = tol.get(sub)
    if v is None:
        return f"{message} ({sub} is not set)"
    if isinstance(v, str):
        import json

        return f"{message} (got {json.dumps(v)})"
    return f"{message} (got {_shown(v)})"


def node_selector_problems(ns: Any) -> list[tuple[str | None, str]]:
    """Every bad entry as (key or None for the whole map, message), keys in sorted order
    (the controller reports only the first one it meets in Go's random map order)."""
    if ns is None:
        return []
    if not isinstance(ns, dict):
        return [(None, "Node selector not valid: must be a map of label keys to label values")]
    out: list[tuple[str | None, str]] = []
    for k in sorted(ns, key=str):
        if not isinstance(k, str):
            out.append((str(k), f"Node selector key not valid: must be a string, got {_shown(k)}; quote it"))
            continue
        errs = qualified_name_errors(k)
        if errs:
            out.append((k, "Node selector key not valid: " + join(errs)))
            continue
        v = ns[k]
        if not isinstance(v, str):
            out.append((k, f"Node selector value not valid: must be a string, got {_shown(v)}; quote it"))
            continue
        errs = label_value_errors(v)
        if errs:
            out.append((k, "Node selector value not valid: " + join(errs)))
    return out


def scheduler_name_problem(name: Any) -> str | None:
    """A present schedulerName must be a qualified name; an explicit "" fails (name part
    empty). None means absent (a nil pointer in Go)."""
    if name is None:
        return None
    if not isinstance(name, str):
        return f"Scheduler name not valid: must be a string, got {_shown(name)}; quote it"
    errs = qualified_name_errors(name)
    if errs:
        return "Scheduler name not valid: " + join(errs)
    return None


def runtime_class_name_problem(name: Any) -> str | None:
    """A present runtimeClassName must be a DNS-1123 subdomain (Shipwright's
    RuntimeClassNameNotValid, and the API server's pod validation). None means absent."""
    if name is None:
        return None
    if not isinstance(name, str):
        return f"RuntimeClassName not valid: must be a string, got {_shown(name)}; quote it"
    errs = dns1123_subdomain_errors(name)
    if errs:
        return "RuntimeClassName not valid: " + join(errs)
    return None


def no_runtime_class(shipwright: tuple[int, int, int]) -> str:
    return (
        "Shipwright v{}.{}.{} (shipwrightVersion) has no runtimeClassName on Build and BuildRun (added in "
        "v0.19.0, SHIP-0040), so builds are left without it; Tekton runs get it".format(*shipwright)
    )


def platform_conflict_message(key: str) -> str:
    return (
        f'nodeSelector must not contain "{key}" when spec.output.platforms is set; the build '
        "controller manages os/arch scheduling"
    )


def override_forbidden_message(field: str) -> str:
    return f"cannot use '{field}' override and 'buildSpec' simultaneously"


# --------------------------------------------------------------------------- the policy itself

def check_policy(p: Policy) -> list[Finding]:
    """The policy's own nodeSelector / tolerations / schedulerName / runtimeClassName, checked once per run with
    the Shipwright rules (the policy lands on build pods too) and the hardening rules. Each
    finding is for a result that points at the functionConfig."""
    out: list[Finding] = []
    base = f"{p.field_prefix}.scheduling"
    for k, msg in node_selector_problems(p.node_selector):
        where = f"{base}.nodeSelector" + (f"[{k}]" if k is not None else "")
        out.append(("error", where, msg, {"reason": NODE_SELECTOR_NOT_VALID}))
    bad: set[int] = set()
    seen: dict[str, int] = {}
    for i, t in enumerate(p.tolerations):
        prob = toleration_problem(t)
        if prob is not None:
            bad.add(i)
            sub, msg = prob
            where = f"{base}.tolerations[{i}]" + (f".{sub}" if sub else "")
            out.append(("error", where, with_value(t, sub, msg), {"reason": TOLERATION_NOT_VALID}))
            continue
        k = tol_key(t)
        if k in seen:
            msg = (
                f'repeats the key "{k}" of tolerations[{seen[k]}]; Shipwright merges tolerations '
                "by key, so Builds and BuildRuns get only the first"
            )
            out.append(("warning", f"{base}.tolerations[{i}]", msg, None))
        else:
            seen[k] = i
    msg_s = scheduler_name_problem(p.scheduler_name)
    if msg_s is not None:
        out.append(("error", f"{base}.schedulerName", msg_s, {"reason": SCHEDULER_NAME_NOT_VALID}))
    msg_r = runtime_class_name_problem(p.runtime_class_name)
    if msg_r is not None:
        out.append(("error", f"{base}.runtimeClassName", msg_r, {"reason": RUNTIME_CLASS_NAME_NOT_VALID}))
    elif p.runtime_class_name and p.shipwright_version < SHIPWRIGHT_RUNTIME_CLASS_SINCE:
        out.append(("warning", f"{base}.runtimeClassName", no_runtime_class(p.shipwright_version), None))
    sev = hardening.severity(p.hardening)
    if sev is None:
        return out
    for f in hardening.check(
        p.node_selector,
        p.tolerations,
        p.hardening_allow_toleration_keys,
        p.hardening_allow_node_selector_keys,
        frozenset(bad),
    ):
        msg = f"the scheduling policy {f.message} ({hardening.advice(f.rule)})"
        out.append((sev, f"{base}.{f.where}", msg, {"hardening": f.rule}))
    return out
