"""Record classes stand in for dataclasses (#5: start-up cost): same equality, repr, hashing,
fresh mutable defaults, and frozen records stay frozen."""
from __future__ import annotations

import pytest

from krm_fn.core.results import ResourceRef
from krm_fn.core.results import Result
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.io.items import ResourceList
from krm_fn.orchestration.process import Outcome
from krm_fn.policy.config import Policy
from krm_fn.policy.hardening import Finding


def test_equality_is_field_wise_and_same_class_only() -> None:
    assert Meta("v1", "Pod", "a") == Meta("v1", "Pod", "a")
    assert Meta("v1", "Pod", "a") != Meta("v1", "Pod", "b")
    assert Meta("v1", "Pod", "a", annotations={"x": "1"}) != Meta("v1", "Pod", "a")
    assert ResourceRef("v1", "Pod", "a") != Meta("v1", "Pod", "a")
    assert Policy() == Policy()
    assert Policy(mode="disabled") != Policy()


def test_repr_names_every_field() -> None:
    assert repr(ResourceRef("v1", "Pod", "a")) == (
        "ResourceRef(api_version='v1', kind='Pod', name='a', namespace=None)"
    )
    assert repr(Meta(kind="Pod")) == (
        "Meta(api_version='', kind='Pod', name='', namespace='', generate_name='', annotations={}, "
        "is_mapping=True, duplicates=())"
    )


def test_mutable_records_are_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(Meta())
    with pytest.raises(TypeError):
        hash(Policy())


def test_frozen_records_hash_by_value_and_refuse_changes() -> None:
    a, b = ResourceRef("v1", "Pod", "a", "ns"), ResourceRef("v1", "Pod", "a", "ns")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    r = Result("error", "m", a, tags=(("k", "v"),))
    assert hash(r) == hash(Result("error", "m", b, tags=(("k", "v"),)))
    with pytest.raises(AttributeError):
        r.message = "changed"
    with pytest.raises(AttributeError):
        del r.message
    f = Finding("rule", "tolerations[0]", "msg")
    with pytest.raises(AttributeError):
        f.rule = "other"
    assert f == Finding("rule", "tolerations[0]", "msg")


def test_records_copy_and_pickle() -> None:
    import copy
    import pickle

    r = Result("error", "m", ResourceRef("v1", "Pod", "a"), field_path="spec", tags=(("k", "v"),))
    for clone in (copy.copy(r), copy.deepcopy(r), pickle.loads(pickle.dumps(r))):
        assert clone == r and clone is not r
    p = Policy(mode="disabled", node_selector={"a": "b"})
    q = copy.deepcopy(p)
    assert q == p and q.node_selector is not p.node_selector


def test_records_take_no_new_attributes() -> None:
    with pytest.raises(AttributeError):
        Meta().extra = 1  # type: ignore[attr-defined]


def test_defaults() -> None:
    p = Policy()
    assert (p.mode, p.on_conflict, p.hardening, p.generate_name, p.field_prefix) == (
        "workspaces", "error", "deny", "error", "spec"
    )
    assert p.pvc_retention == {"whenDeleted": "Delete", "whenScaled": "Delete"}
    assert p.scheduler_name is None and p.ref is None
    item = Item(0, None, Meta())
    assert (item.node, item.before, item.doc, item.complex_meta) == (None, None, None, False)
    frame = ResourceList("v1", "ResourceList", [], None, None, [], True)
    assert (frame.items_line, frame.order, frame.extra, frame.full_root) == ("items:\n", [], {}, None)
    assert Result("info", "m").tags == ()


def test_mutable_defaults_are_fresh_per_instance() -> None:
    a, b = Policy(), Policy()
    for field in (
        "assistant_pod_template", "pvc_retention", "topology_spread", "scheduling_gates",
        "default_pod_template", "node_selector", "tolerations", "hardening_allow_toleration_keys",
        "hardening_allow_node_selector_keys",
    ):
        assert getattr(a, field) is not getattr(b, field), field
    a.pvc_retention["whenDeleted"] = "Retain"
    assert Policy().pvc_retention["whenDeleted"] == "Delete"
    m1, m2 = Meta(), Meta()
    m1.annotations["x"] = "1"
    assert m2.annotations == {}
    f1 = ResourceList("v1", "ResourceList", [], None, None, [], True)
    f2 = ResourceList("v1", "ResourceList", [], None, None, [], True)
    assert f1.order is not f2.order and f1.extra is not f2.extra
    o1, o2 = Outcome([], [], [], []), Outcome([], [], [], [])
    assert o1.positions is not o2.positions


def test_frozen_records_replace_named_fields_only() -> None:
    r = Result("warning", "m", ResourceRef("v1", "Pod", "a", "ns"), "spec.x", "a.yaml", 0, (("k", "v"),), 1, 2)
    placed = r.at(3, 5)
    assert (placed.line, placed.column) == (3, 5) and r.line is None
    assert placed.replace(line=None, column=None) == r
    assert r.replace(severity="error").severity == "error" and r.replace(severity="error").tags == r.tags
    with pytest.raises(TypeError, match="no field 'colum'"):
        r.replace(colum=1)
