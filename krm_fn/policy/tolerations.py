"""Tolerations compared as Tekton and Shipwright compare them (same_toleration: in Tekton's
flavour an empty operator is Equal; in Shipwright's an empty effect is the NoSchedule its
controller forces, and tolerationSeconds counts), a toleration's identity, and its text in
messages.
"""
from __future__ import annotations

from _collections_abc import Mapping

from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

TEKTON = "tekton"  # the flavours: Kubernetes' rules as Tekton applies them, and Shipwright's
SHIPWRIGHT = "shipwright"


def tol_key(t: Any) -> str:
    k = t.get("key") if isinstance(t, dict) else None
    return "" if k is None else str(k)


def same_toleration(a: Mapping[str, Any], b: Mapping[str, Any], flavour: str) -> bool:
    """Tekton: the same when key, operator, value and effect match (an empty operator is
    Kubernetes' Equal). Shipwright: every field matters, and an empty effect is the
    NoSchedule the controller forces onto every toleration."""
    return _tol_norm(a, flavour) == _tol_norm(b, flavour)


def _tol_norm(t: Mapping[str, Any], flavour: str) -> tuple[Any, ...]:
    op = str(t.get("operator") or "")
    val = t.get("value")
    val = "" if val is None else val
    eff = str(t.get("effect") or "")
    if flavour == TEKTON:
        return (tol_key(t), op or "Equal", val, eff)
    return (tol_key(t), op, val, eff or "NoSchedule", t.get("tolerationSeconds"))


def tol_identity(t: Mapping[str, Any], flavour: str) -> str:
    """A hashable form of same_toleration's comparison (values of any type)."""
    import json

    return json.dumps(to_plain(list(_tol_norm(t, flavour))))


def indices_by_key(tols: list[Any] | None) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for j, t in enumerate(tols or []):
        if isinstance(t, dict):
            out.setdefault(tol_key(t), []).append(j)
    return out


def tol_text(t: Mapping[str, Any]) -> str:
    key = tol_key(t) or "<any key>"
    op = t.get("operator") or "Equal"
    s = key if op == "Exists" else f"{key}={t.get('value') or ''}"
    return f"{s}:{t['effect']}" if t.get("effect") else s
