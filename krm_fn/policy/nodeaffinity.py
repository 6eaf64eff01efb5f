"""A pod's required nodeAffinity read as the kube-scheduler reads it, against the node labels
a nodeSelector fixes: does a policy nodeSelector leave any node the pod may run on?

The scheduler's NodeAffinity filter (k8s.io/component-helpers/scheduling/corev1/nodeaffinity)
ORs the `nodeSelectorTerms` and ANDs the `matchExpressions` of one term; an empty term matches
no node; `matchFields` selects by node name, which no label decides. A nodeSelector is ANDed
with all of it: a node must carry every key with that exact value.
"""
from __future__ import annotations

from _collections_abc import Mapping

from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def required_terms(tpl: Any) -> list[Any] | None:
    """The `nodeSelectorTerms` of a pod template's required nodeAffinity (plain data), or
    None when it sets none or its shape is not Kubernetes' (the API server would refuse it;
    nothing is concluded from it here)."""
    aff = tpl.get("affinity") if isinstance(tpl, dict) else None
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    req = na.get(REQUIRED) if isinstance(na, dict) else None
    terms = req.get("nodeSelectorTerms") if isinstance(req, dict) else None
    if not isinstance(terms, list) or not terms:
        return None
    plain = to_plain(terms)
    ok = all(isinstance(t, dict) and isinstance(t.get("matchExpressions", []), list) for t in plain)
    return plain if ok else None


def expression_allows(expr: Any, value: str) -> bool:
    """Whether a node whose label `expr["key"]` is `value` satisfies the expression. An
    expression whose shape Kubernetes would refuse counts as satisfied (not ours to judge)."""
    if not isinstance(expr, dict):
        return True
    op, values = expr.get("operator"), expr.get("values")
    values = values if isinstance(values, list) else []
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op == "Exists":
        return True
    if op == "DoesNotExist":
        return False
    if op in ("Gt", "Lt"):
        # labels.Requirement: both sides parsed as base-10 int64, no match when the label is not one
        limit = _int(values[0]) if len(values) == 1 else None
        if limit is None:
            return True
        have = _int(value)
        if have is None:
            return False
        return have > limit if op == "Gt" else have < limit
    return True


def term_allows(term: dict[str, Any], fixed: Mapping[str, str]) -> bool:
    """Whether some node carrying the `fixed` labels can match the term (keys it leaves
    open are assumed to be satisfiable)."""
    exprs = term.get("matchExpressions") or []
    if not exprs and not term.get("matchFields"):
        return False  # an empty term matches no node
    for e in exprs:
        key = e.get("key") if isinstance(e, dict) else None
        if isinstance(key, str) and key in fixed and not expression_allows(e, fixed[key]):
            return False
    return True


def contradicts(terms: list[Any], before: Mapping[str, str], after: Mapping[str, str]) -> bool:
    """True when the terms leave a node under the `before` labels and none under `after`:
    the added labels, not the manifest, make the pod unschedulable."""
    return any(term_allows(t, before) for t in terms) and not any(term_allows(t, after) for t in terms)


def conflicting_keys(terms: list[Any], selector: Mapping[str, Any]) -> list[str]:
    """The keys of `selector`, in order, that each leave the terms no node, given the keys
    before them that did not (a nodeSelector that is all policy: nothing of it was written
    by the manifest)."""
    fixed: dict[str, str] = {}
    out: list[str] = []
    for k, v in selector.items():
        if not isinstance(v, str):
            continue
        after = {**fixed, str(k): v}
        if contradicts(terms, fixed, after):
            out.append(str(k))
        else:
            fixed = after
    return out


def on_key(terms: list[Any], key: str) -> list[Any]:
    """The expressions on `key`, term by term (what a conflict message shows)."""
    return [[e for e in t.get("matchExpressions") or [] if isinstance(e, dict) and e.get("key") == key] for t in terms]


def drop_key(tpl: Any, key: str) -> None:
    """onConflict override: the policy's nodeSelector decides `key`, so every expression on it
    leaves the template's required nodeAffinity (in place, round-trip or plain). A term left
    with no constraint admits every node, so then the whole requirement goes (an empty term
    would admit none), and with it any map it leaves empty."""
    aff = tpl["affinity"]
    na = aff["nodeAffinity"]
    terms = na[REQUIRED]["nodeSelectorTerms"]
    unconstrained = False
    for term in terms:
        exprs = term.get("matchExpressions")
        if not isinstance(exprs, list):
            continue
        for i in reversed(range(len(exprs))):
            if isinstance(exprs[i], dict) and exprs[i].get("key") == key:
                del exprs[i]
        if not exprs:
            del term["matchExpressions"]
            unconstrained = unconstrained or not term.get("matchFields")
    if unconstrained:
        del na[REQUIRED]
        if not na:
            del aff["nodeAffinity"]
        if not aff:
            del tpl["affinity"]


def _int(s: Any) -> int | None:
    digits = s[1:] if isinstance(s, str) and s[:1] in ("+", "-") else s
    if not isinstance(digits, str) or not digits.isascii() or not digits.isdigit():
        return None
    n = int(s)
    return n if -(2**63) <= n < 2**63 else None
