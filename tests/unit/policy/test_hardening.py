"""SHIP-0039 hardening rules (krm_fn/policy/hardening.py)."""
from __future__ import annotations

import pytest

from krm_fn.policy import hardening as h

# values that must never produce a finding
CLEAN_TOLERATIONS = [
    {"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"},
    {"key": "spot", "operator": "Exists"},
    {"key": "example.com/node.kubernetes.io", "operator": "Exists"},  # not the reserved prefix
    {"key": "node-role.kubernetes.io/worker", "operator": "Exists"},
    {"key": "", "operator": "Equal"},  # invalid for Kubernetes, but not a wildcard
    {"operator": "Equal", "value": "x"},
]
CLEAN_SELECTORS = {"pool": "ci", "node-role.kubernetes.io/worker": "", "kubernetes.io/arch": "amd64"}


def test_clean_values_have_no_findings() -> None:
    assert h.check(CLEAN_SELECTORS, CLEAN_TOLERATIONS, [], []) == []
    assert h.check(None, None, [], []) == []
    assert h.check({}, [], [], []) == []


@pytest.mark.parametrize(
    ("tol", "rule"),
    [
        ({"key": "node.kubernetes.io/not-ready", "operator": "Exists"}, h.RULE_NODE_TAINT),
        ({"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}, h.RULE_NODE_TAINT),
        ({"key": "node.kubernetes.io/disk-pressure", "operator": "Equal", "value": "x"}, h.RULE_NODE_TAINT),
        ({"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}, h.RULE_CONTROL_PLANE_TOLERATION),
        ({"key": "node-role.kubernetes.io/master", "operator": "Exists"}, h.RULE_CONTROL_PLANE_TOLERATION),
        ({"operator": "Exists"}, h.RULE_WILDCARD),
        ({"key": "", "operator": "Exists"}, h.RULE_WILDCARD),
        ({"key": None, "operator": "Exists", "effect": "NoSchedule"}, h.RULE_WILDCARD),
    ],
)
def test_toleration_rules(tol: dict, rule: str) -> None:  # type: ignore[type-arg]
    found = h.check(None, [{"key": "fine", "operator": "Exists"}, tol], [], [])
    assert [(f.rule, f.where) for f in found] == [(rule, "tolerations[1]")]


@pytest.mark.parametrize("key", h.CONTROL_PLANE_KEYS)
def test_control_plane_selector(key: str) -> None:
    found = h.check({key: "", "pool": "x"}, None, [], [])
    assert [(f.rule, f.where) for f in found] == [(h.RULE_CONTROL_PLANE_SELECTOR, f"nodeSelector[{key}]")]
    assert key in found[0].message


def test_allow_lists_are_the_single_node_escape_hatch() -> None:
    tols = [
        {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists"},
        {"operator": "Exists"},
    ]
    ns = {"node-role.kubernetes.io/control-plane": ""}
    assert len(h.check(ns, tols, [], [])) == 4
    found = h.check(ns, tols, ["node-role.kubernetes.io/control-plane"], ["node-role.kubernetes.io/control-plane"])
    assert [f.rule for f in found] == [h.RULE_NODE_TAINT, h.RULE_WILDCARD]
    # a trailing * allows a prefix; "" allows the wildcard
    found = h.check(None, tols, ["node.kubernetes.io/*", ""], [])
    assert [f.rule for f in found] == [h.RULE_CONTROL_PLANE_TOLERATION]
    # the selector allow list does not allow tolerations and vice versa
    assert [f.rule for f in h.check(ns, tols[:1], [], ["node-role.kubernetes.io/control-plane"])] == [
        h.RULE_CONTROL_PLANE_TOLERATION
    ]


def test_selector_keys_in_sorted_order_and_skips() -> None:
    ns = {"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": ""}
    assert [f.where for f in h.check(ns, None, [], [])] == [
        "nodeSelector[node-role.kubernetes.io/control-plane]",
        "nodeSelector[node-role.kubernetes.io/master]",
    ]
    tols = [{"operator": "Exists"}, {"key": "node.kubernetes.io/x", "operator": "Exists"}]
    assert [f.where for f in h.check(None, tols, [], [], frozenset({0}))] == ["tolerations[1]"]


def test_malformed_values_are_left_to_the_validators() -> None:
    assert h.check(["x"], "nope", [], []) == []
    assert h.check(None, ["str", 5, None], [], []) == []


def test_severity_and_advice() -> None:
    assert h.severity("deny") == "error"
    assert h.severity("warn") == "warning"
    assert h.severity("off") is None
    assert "spec.hardening.allowNodeSelectorKeys" in h.advice(h.RULE_CONTROL_PLANE_SELECTOR)
    assert "spec.hardening.allowTolerationKeys" in h.advice(h.RULE_NODE_TAINT)
    assert '""' in h.advice(h.RULE_WILDCARD)
