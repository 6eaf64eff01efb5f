"""The pod templates of the policy (defaultPodTemplate, assistant.podTemplate): the fields the
function copies into runs and placeholders must have the types the Kubernetes and Tekton APIs
give them, or a wrong type would be written into every run."""
from __future__ import annotations

from krm_fn.core.data import type_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


# The pod template fields the function copies into runs and placeholders, with the types the
# Kubernetes and Tekton APIs give them: a wrong type here would be written into every run.
_TEMPLATE_FIELDS: dict[str, tuple[type, type | None]] = {
    "nodeSelector": (dict, str),
    "tolerations": (list, dict),
    "affinity": (dict, None),
    "securityContext": (dict, None),
    "dnsConfig": (dict, None),
    "imagePullSecrets": (list, dict),
    "env": (list, dict),
    "volumes": (list, dict),
    "hostAliases": (list, dict),
    "topologySpreadConstraints": (list, dict),
    "schedulerName": (str, None),
    "priorityClassName": (str, None),
    "runtimeClassName": (str, None),
    "dnsPolicy": (str, None),
    "serviceAccountName": (str, None),
    "hostNetwork": (bool, None),
    "automountServiceAccountToken": (bool, None),
    "enableServiceLinks": (bool, None),
}
_TYPE_WORDS = {dict: "a mapping", list: "a list", str: "a string", bool: "true or false"}


def pod_template_problems(path: str, tpl: Any) -> list[tuple[str, str]]:
    """(field path, message) of the errors of a pod template of the policy whose known fields
    have the wrong type."""
    if tpl is None:
        return []
    if not isinstance(tpl, dict):
        return [(path, f"the pod template is a {type_name(tpl)}; it must be a mapping of pod template fields")]
    out = []
    for key, (outer, inner) in _TEMPLATE_FIELDS.items():
        if key not in tpl or tpl[key] is None:
            continue
        v = tpl[key]
        if not isinstance(v, outer) or (outer is not bool and isinstance(v, bool)):
            out.append((f"{path}.{key}", f"{key} is a {type_name(v)}; it must be {_TYPE_WORDS[outer]}"))
            continue
        if inner is None:
            continue
        values: list[Any] = list(v.values()) if isinstance(v, dict) else list(v) if isinstance(v, list) else []
        if any(not isinstance(x, inner) for x in values):
            what = "strings" if inner is str else "mappings"
            out.append((f"{path}.{key}", f"{key} must hold {what} only"))
    return out
