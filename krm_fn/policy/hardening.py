"""SHIP-0039's hardening guideline as policy (`hardening.action`: deny | warn | off).

SHIP-0039 asks operators to block, with admission control, tolerations of the
`node.kubernetes.io/*` taints (nodes not ready for workloads) and of the control-plane taint,
and node selectors on the control-plane node-role label. Shipwright ships neither the check nor
the guide (community#213: website#120/#121 still open), so the function enforces it at render
time. We also catch the legacy `master` role and an empty-key `Exists` toleration, which
tolerates every taint (Shipwright rejects an empty key, Tekton pod templates do not).
The SHIP's risk section notes single-node clusters must schedule on the control plane: the
allow lists (`allowTolerationKeys`, `allowNodeSelectorKeys`) are that escape hatch.
"""
from __future__ import annotations

from _collections_abc import Mapping

from krm_fn.core.record import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

NODE_LIFECYCLE_PREFIX = "node.kubernetes.io/"
CONTROL_PLANE_KEYS = ("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")

RULE_NODE_TAINT = "node-lifecycle-toleration"
RULE_CONTROL_PLANE_TOLERATION = "control-plane-toleration"
RULE_WILDCARD = "wildcard-toleration"
RULE_CONTROL_PLANE_SELECTOR = "control-plane-node-selector"


class Finding(FrozenRecord):
    """One hardening finding. `where` is the path below the checked object
    (`tolerations[2]`, `nodeSelector[node-role.kubernetes.io/control-plane]`)."""

    __slots__ = ("rule", "where", "message")
    rule: str
    where: str
    message: str

    def __init__(self, rule: str, where: str, message: str) -> None:
        self._init(rule, where, message)


def allowed(key: str, allow: Sequence[str]) -> bool:
    """An allow-list entry matches a key exactly, or as a prefix when it ends with `*`."""
    for a in allow:
        if a == key or (a.endswith("*") and key.startswith(a[:-1])):
            return True
    return False


def toleration_finding(tol: Mapping[str, Any], allow: Sequence[str]) -> tuple[str, str] | None:
    """(rule, message) for one toleration, or None."""
    key = tol.get("key")
    key = "" if key is None else str(key)
    op = str(tol.get("operator") or "")
    if not key:
        if op == "Exists" and not allowed("", allow):
            return (
                RULE_WILDCARD,
                "tolerates every taint (an empty key with operator Exists), including those of "
                "not-ready and control-plane nodes",
            )
        return None
    if allowed(key, allow):
        return None
    if key.startswith(NODE_LIFECYCLE_PREFIX):
        return (
            RULE_NODE_TAINT,
            f"tolerates the {key} taint; node.kubernetes.io/* taints mark nodes that are not "
            "ready for workloads",
        )
    if key in CONTROL_PLANE_KEYS:
        return (RULE_CONTROL_PLANE_TOLERATION, f"tolerates the {key} taint, so build and task pods may run on control-plane nodes")
    return None


def node_selector_finding(key: str, allow: Sequence[str]) -> tuple[str, str] | None:
    if key in CONTROL_PLANE_KEYS and not allowed(key, allow):
        return (RULE_CONTROL_PLANE_SELECTOR, f"selects nodes by the {key} label, i.e. schedules onto control-plane nodes")
    return None


def check(
    node_selector: Any,
    tolerations: Any,
    allow_tolerations: Sequence[str],
    allow_node_selector: Sequence[str],
    skip_tolerations: frozenset[int] = frozenset(),
) -> list[Finding]:
    """Findings for one set of scheduling values; map keys in sorted order. Malformed values
    (wrong types) are the validators' business and are skipped here."""
    out: list[Finding] = []
    if isinstance(tolerations, list):
        for i, tol in enumerate(tolerations):
            if i in skip_tolerations or not isinstance(tol, dict):
                continue
            f = toleration_finding(tol, allow_tolerations)
            if f is not None:
                out.append(Finding(f[0], f"tolerations[{i}]", f[1]))
    if isinstance(node_selector, dict):
        for k in sorted(str(k) for k in node_selector):
            f = node_selector_finding(k, allow_node_selector)
            if f is not None:
                out.append(Finding(f[0], f"nodeSelector[{k}]", f[1]))
    return out


def advice(rule: str, config_prefix: str = "spec") -> str:
    """What to do about a finding (the message tail)."""
    if rule == RULE_CONTROL_PLANE_SELECTOR:
        lst = f"{config_prefix}.hardening.allowNodeSelectorKeys"
    else:
        lst = f"{config_prefix}.hardening.allowTolerationKeys"
    what = '"" (the empty key)' if rule == RULE_WILDCARD else "the key"
    return (
        f"SHIP-0039 hardening guideline; remove it, or on a single-node cluster add {what} to {lst}"
    )


def subject(rule: str) -> str:
    """What a finding on a manifest's own values is about, for the start of the message."""
    return "the node selector" if rule == RULE_CONTROL_PLANE_SELECTOR else "the toleration"


def severity(action: str) -> str | None:
    """Result severity for the configured action; None means do not report."""
    return {"deny": "error", "warn": "warning"}.get(action)
