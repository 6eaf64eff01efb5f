"""Unit tests of the scheduling model (tests/scheduler_sim.py): one small case per rule, each of
which fails when the rule is broken or left out."""
from __future__ import annotations

import random

import pytest
from scheduler_sim import HOSTNAME
from scheduler_sim import AdmissionError
from scheduler_sim import Claim
from scheduler_sim import Cluster
from scheduler_sim import Node
from scheduler_sim import NotModeled
from scheduler_sim import Pod
from scheduler_sim import merge_label_keys
from scheduler_sim import node_affinity_matches
from scheduler_sim import selector_matches


def nodes(n: int = 3, **labels: str) -> list[Node]:
    return [Node(f"n{i}", dict(labels)) for i in range(n)]


def term(selector: dict | None, key: str = HOSTNAME, **extra: object) -> dict:
    t: dict = {"labelSelector": selector, "topologyKey": key}
    t.update(extra)
    return t


def required_affinity(*terms: dict) -> dict:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def required_anti(*terms: dict) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def preferred(kind: str, weight: int, t: dict) -> dict:
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": weight, "podAffinityTerm": t}]}}


def place(c: Cluster, pod: Pod, node: str | None = None) -> Pod:
    """Create and schedule; with `node`, only that node is open (others get a nodeSelector)."""
    if node is not None:
        pod.node_selector = {**(pod.node_selector or {}), HOSTNAME: node}
    p = c.create_pod(pod)
    c.schedule(p)
    return p


# --- selectors ---------------------------------------------------------------------------


def test_selector_operators() -> None:
    labels = {"a": "1", "b": "2"}
    assert selector_matches({}, labels)
    assert not selector_matches(None, labels)  # a null selector matches nothing
    assert selector_matches({"matchLabels": {"a": "1"}}, labels)
    assert not selector_matches({"matchLabels": {"a": "2"}}, labels)
    ex = lambda k, op, *v: {"matchExpressions": [{"key": k, "operator": op, "values": list(v)}]}  # noqa: E731
    assert selector_matches(ex("a", "In", "1", "3"), labels)
    assert not selector_matches(ex("c", "In", "1"), labels)
    assert selector_matches(ex("a", "NotIn", "3"), labels)
    assert selector_matches(ex("c", "NotIn", "3"), labels)  # absent key: NotIn holds
    assert not selector_matches(ex("a", "NotIn", "1"), labels)
    assert selector_matches(ex("a", "Exists"), labels)
    assert not selector_matches(ex("c", "Exists"), labels)
    assert selector_matches(ex("c", "DoesNotExist"), labels)
    assert not selector_matches(ex("a", "DoesNotExist"), labels)


def test_node_affinity_terms_are_ored_expressions_anded() -> None:
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}, {"key": "gpu", "operator": "Exists"}]},
        {"matchExpressions": [{"key": "size", "operator": "Gt", "values": ["4"]}]},
    ]}}}
    assert node_affinity_matches(aff, {"pool": "a", "gpu": "x"})
    assert not node_affinity_matches(aff, {"pool": "a"})
    assert node_affinity_matches(aff, {"size": "8"})
    assert not node_affinity_matches(aff, {"size": "2"})
    c = Cluster([Node("n0", {"pool": "a"}), Node("n1", {"pool": "a", "gpu": "1"})])
    assert place(c, Pod("p", affinity=aff)).node == "n1"


# --- admission: matchLabelKeys / mismatchLabelKeys ---------------------------------------


def test_match_label_keys_merge_in_at_creation() -> None:
    t = term({"matchLabels": {"app": "ci"}}, matchLabelKeys=["run", "absent"], mismatchLabelKeys=["team"])
    merged = merge_label_keys(t, {"app": "ci", "run": "r1", "team": "a"})
    assert merged == {
        "labelSelector": {"matchLabels": {"app": "ci"}, "matchExpressions": [
            {"key": "run", "operator": "In", "values": ["r1"]},
            {"key": "team", "operator": "NotIn", "values": ["a"]},
        ]},
        "topologyKey": HOSTNAME,
    }
    # the feature off (below 1.29, or the alpha gate off): the fields are dropped
    assert merge_label_keys(t, {"run": "r1"}, enabled=False) == term({"matchLabels": {"app": "ci"}})


def test_match_label_keys_keep_runs_apart_and_pods_of_a_run_together() -> None:
    """One term written once; each run's pods follow their own run's live pods."""
    c = Cluster(nodes(3), choice="any", rng=random.Random(1))
    t = term({"matchLabels": {"app": "ci"}}, matchLabelKeys=["run"])

    def pod(name: str, run: str) -> Pod:
        return Pod(name, labels={"app": "ci", "run": run}, affinity=required_affinity(t))

    a1 = place(c, pod("a1", "a"), node="n0")
    b1 = place(c, pod("b1", "b"), node="n1")  # admitted: no pod of run b exists (first pod)
    assert (a1.node, b1.node) == ("n0", "n1")
    for i in range(5):
        assert place(c, pod(f"a{i + 2}", "a")).node == "n0"
        assert place(c, pod(f"b{i + 2}", "b")).node == "n1"


def test_match_label_keys_missing_key_is_ignored() -> None:
    """A pod without the key gets the bare selector: it follows any pod with app=ci."""
    c = Cluster(nodes(3))
    t = term({"matchLabels": {"app": "ci"}}, matchLabelKeys=["run"])
    place(c, Pod("a1", labels={"app": "ci", "run": "a"}), node="n2")
    lone = place(c, Pod("x", labels={"app": "ci"}, affinity=required_affinity(t)))
    assert lone.node == "n2"


def test_mismatch_label_keys_isolate_runs() -> None:
    c = Cluster(nodes(2))
    t = term({"matchLabels": {"app": "ci"}}, mismatchLabelKeys=["run"])

    def pod(name: str, run: str) -> Pod:
        return Pod(name, labels={"app": "ci", "run": run}, affinity=required_anti(t))

    place(c, pod("a1", "a"), node="n0")
    assert place(c, pod("a2", "a"), node="n0").node == "n0"  # same run: allowed together
    assert place(c, pod("b1", "b")).node == "n1"  # other run: repelled (and repels, symmetric)
    c3 = c.create_pod(pod("c1", "c"))
    assert c.schedule(c3) is None  # two nodes, both hold another run


def test_admission_rejects_conflicting_keys() -> None:
    with pytest.raises(AdmissionError):  # key in both matchLabelKeys and labelSelector
        Cluster(nodes(1)).create_pod(Pod("p", labels={"run": "a"}, affinity=required_affinity(
            term({"matchLabels": {"run": "a"}}, matchLabelKeys=["run"]))))
    with pytest.raises(AdmissionError):  # and in matchExpressions
        Cluster(nodes(1)).create_pod(Pod("p", affinity=required_affinity(
            term({"matchExpressions": [{"key": "run", "operator": "Exists"}]}, matchLabelKeys=["run"]))))
    with pytest.raises(AdmissionError):  # no labelSelector
        Cluster(nodes(1)).create_pod(Pod("p", affinity=required_affinity(term(None, matchLabelKeys=["run"]))))
    with pytest.raises(AdmissionError):  # in both lists
        Cluster(nodes(1)).create_pod(Pod("p", affinity=required_anti(
            term({}, matchLabelKeys=["run"], mismatchLabelKeys=["run"]))))
    with pytest.raises(NotModeled):  # not a pod label selector operator
        selector_matches({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}, {"a": "2"})


def test_feature_off_means_one_group_for_everyone() -> None:
    """Below 1.29 the keys are dropped: run b follows run a's pods."""
    c = Cluster(nodes(3), match_label_keys=False)
    t = term({"matchLabels": {"app": "ci"}}, matchLabelKeys=["run"])
    place(c, Pod("a1", labels={"app": "ci", "run": "a"}, affinity=required_affinity(t)), node="n1")
    assert place(c, Pod("b1", labels={"app": "ci", "run": "b"}, affinity=required_affinity(t))).node == "n1"


# --- required pod affinity and the first-pod rule ----------------------------------------


def test_required_affinity_follows_a_matching_pod() -> None:
    c = Cluster(nodes(3))
    place(c, Pod("holder", labels={"app": "aa"}), node="n2")
    p = place(c, Pod("p", affinity=required_affinity(term({"matchLabels": {"app": "aa"}}))))
    assert p.node == "n2"
    assert c.feasible_nodes(c.create_pod(Pod("q", affinity=required_affinity(term({"matchLabels": {"app": "aa"}}))))) == ["n2"]


def test_required_affinity_without_a_match_waits() -> None:
    """Not self-matching and nothing to follow: pending (a TaskRun pod before its placeholder)."""
    c = Cluster(nodes(3))
    p = c.create_pod(Pod("p", labels={"app": "task"}, affinity=required_affinity(term({"matchLabels": {"app": "aa"}}))))
    assert c.schedule(p) is None
    assert c.unschedulable() == [p]
    place(c, Pod("holder", labels={"app": "aa"}), node="n1")
    assert c.schedule_pending() == [p] and p.node == "n1"


def test_first_pod_rule() -> None:
    """A pod that matches its own required term is admitted when no pod matches it yet."""
    c = Cluster(nodes(3))
    t = term({"matchLabels": {"app": "g"}})
    first = place(c, Pod("first", labels={"app": "g"}, affinity=required_affinity(t)))
    assert first.node is not None
    second = place(c, Pod("second", labels={"app": "g"}, affinity=required_affinity(t)))
    assert second.node == first.node


def test_first_pod_rule_needs_a_self_match_in_namespace_too() -> None:
    c = Cluster(nodes(2))
    t = term({"matchLabels": {"app": "g"}}, namespaces=["other"])
    p = c.create_pod(Pod("p", namespace="ci", labels={"app": "g"}, affinity=required_affinity(t)))
    assert c.schedule(p) is None


def test_first_pod_rule_needs_the_topology_key_on_the_node() -> None:
    c = Cluster([Node("n0", {"zone": "z"}), Node("n1")])
    t = term({"matchLabels": {"app": "g"}}, key="zone")
    assert place(c, Pod("p", labels={"app": "g"}, affinity=required_affinity(t))).node == "n0"


def test_several_required_terms_must_be_matched_by_one_pod() -> None:
    """kubernetes#130784: two terms, two different pods on the node: not enough."""
    c = Cluster(nodes(2))
    place(c, Pod("a", labels={"x": "1"}), node="n0")
    place(c, Pod("b", labels={"y": "1"}), node="n0")
    two = required_affinity(term({"matchLabels": {"x": "1"}}), term({"matchLabels": {"y": "1"}}))
    p = c.create_pod(Pod("p", affinity=two))
    assert c.schedule(p) is None
    place(c, Pod("ab", labels={"x": "1", "y": "1"}), node="n1")
    assert c.schedule(p) == "n1"


def test_namespaces_default_to_the_pods_own() -> None:
    c = Cluster(nodes(2))
    place(c, Pod("holder", namespace="other", labels={"app": "aa"}), node="n1")
    t = term({"matchLabels": {"app": "aa"}})
    p = c.create_pod(Pod("p", namespace="ci", affinity=required_affinity(t)))
    assert c.schedule(p) is None
    q = place(c, Pod("q", namespace="ci", affinity=required_affinity({**t, "namespaces": ["other"]})))
    assert q.node == "n1"


def test_namespace_selector_widens_the_scope() -> None:
    c = Cluster(nodes(2), namespaces={"team-a": {"tenant": "a"}})
    place(c, Pod("aa", namespace="team-a", labels={"component": "aa"}), node="n0")
    own = c.create_pod(Pod("own", namespace="ci", labels={"component": "aa"}, affinity=required_anti(term({"matchLabels": {"component": "aa"}}))))
    assert c.feasible_nodes(own) == ["n0", "n1"]  # another namespace: out of the term's scope
    for ns_sel in ({}, {"matchLabels": {"tenant": "a"}}, {"matchLabels": {"kubernetes.io/metadata.name": "team-a"}}):
        p = c.create_pod(Pod(f"p{len(c.pods)}", namespace="ci", affinity=required_anti(term({"matchLabels": {"component": "aa"}}, namespaceSelector=ns_sel))))
        assert c.feasible_nodes(p) == ["n1"], ns_sel
    q = c.create_pod(Pod("q", namespace="ci", affinity=required_anti(term({"matchLabels": {"component": "aa"}}, namespaceSelector={"matchLabels": {"tenant": "b"}}))))
    assert c.feasible_nodes(q) == ["n0", "n1"]
    # an empty selector and no list: every namespace, not the pod's own only
    r = c.create_pod(Pod("r", namespace="ci", affinity=required_affinity(term({"matchLabels": {"component": "aa"}}, namespaceSelector={}))))
    assert c.feasible_nodes(r) == ["n0"]


# --- terminated pods ---------------------------------------------------------------------


def test_terminated_pods_leave_the_view() -> None:
    c = Cluster(nodes(3))
    holder = place(c, Pod("holder", labels={"app": "aa"}), node="n2")
    c.finish_pod(holder)
    p = c.create_pod(Pod("p", affinity=required_affinity(term({"matchLabels": {"app": "aa"}}))))
    assert c.schedule(p) is None  # a Succeeded pod attracts nothing
    # ... nor repels
    c2 = Cluster(nodes(1))
    anti = place(c2, Pod("anti", labels={"app": "x"}, affinity=required_anti(term({"matchLabels": {"app": "x"}}))))
    blocked = c2.create_pod(Pod("blocked", labels={"app": "x"}))
    assert c2.schedule(blocked) is None  # symmetric anti-affinity of the live pod
    c2.finish_pod(anti)
    assert c2.schedule(blocked) == "n0"


def test_first_pod_rule_after_the_group_finished() -> None:
    """Once a group's pods all terminated, the next one is a 'first pod' again, anywhere."""
    c = Cluster(nodes(3), choice="any", rng=random.Random(3))
    t = term({"matchLabels": {"app": "g"}})
    seen = set()
    for i in range(12):
        p = place(c, Pod(f"p{i}", labels={"app": "g"}, affinity=required_affinity(t)))
        seen.add(p.node)
        c.finish_pod(p)
    assert len(seen) > 1


# --- anti-affinity -----------------------------------------------------------------------


def test_required_anti_affinity_of_the_incoming_pod() -> None:
    c = Cluster(nodes(2))
    place(c, Pod("aa1", labels={"component": "aa"}), node="n0")
    p = place(c, Pod("aa2", labels={"component": "aa"}, affinity=required_anti(term({"matchLabels": {"component": "aa"}}))))
    assert p.node == "n1"


def test_symmetric_required_anti_affinity_of_existing_pods() -> None:
    """An existing pod's required anti-affinity keeps a matching newcomer away, though the
    newcomer says nothing."""
    c = Cluster(nodes(2))
    place(c, Pod("aa1", labels={"component": "aa"}, affinity=required_anti(term({"matchLabels": {"component": "aa"}}))), node="n0")
    plain = c.create_pod(Pod("aa2", labels={"component": "aa"}))
    assert c.feasible_nodes(plain) == ["n1"]
    other = c.create_pod(Pod("other", labels={"component": "x"}))
    assert c.feasible_nodes(other) == ["n0", "n1"]


def test_anti_affinity_ignores_nodes_without_the_topology_key() -> None:
    c = Cluster([Node("n0", {"zone": "a"}), Node("n1")])
    place(c, Pod("x", labels={"app": "x"}), node="n0")
    p = c.create_pod(Pod("p", affinity=required_anti(term({"matchLabels": {"app": "x"}}, key="zone"))))
    assert c.feasible_nodes(p) == ["n1"]
    place(c, Pod("y", labels={"app": "x"}), node="n1")
    assert c.feasible_nodes(p) == ["n1"]


# --- preferred terms ---------------------------------------------------------------------


def test_preferred_is_a_preference_not_a_filter() -> None:
    c = Cluster(nodes(2))
    place(c, Pod("aa1", labels={"component": "aa"}), node="n0")
    spread = preferred("podAntiAffinity", 100, term({"matchLabels": {"component": "aa"}}))
    assert place(c, Pod("aa2", labels={"component": "aa"}, affinity=spread)).node == "n1"
    assert place(c, Pod("aa3", labels={"component": "aa"}, affinity=spread)).node in ("n0", "n1")  # both taken: still placed
    near = preferred("podAffinity", 10, term({"matchLabels": {"component": "aa"}}))
    c2 = Cluster(nodes(3))
    place(c2, Pod("aa", labels={"component": "aa"}), node="n2")
    assert place(c2, Pod("p", affinity=near)).node == "n2"
    assert c2.feasible_nodes(c2.create_pod(Pod("q", affinity=near))) == ["n0", "n1", "n2"]


def test_existing_pods_preferred_terms_count_symmetrically() -> None:
    c = Cluster(nodes(3))
    place(c, Pod("magnet", affinity=preferred("podAffinity", 50, term({"matchLabels": {"app": "x"}}))), node="n2")
    assert place(c, Pod("x", labels={"app": "x"})).node == "n2"
    c2 = Cluster(nodes(2))
    place(c2, Pod("repel", affinity=preferred("podAntiAffinity", 50, term({"matchLabels": {"app": "x"}}))), node="n0")
    assert place(c2, Pod("x", labels={"app": "x"})).node == "n1"


def test_choice_any_ignores_preferences() -> None:
    c = Cluster(nodes(3), choice="any", rng=random.Random(0))
    place(c, Pod("aa", labels={"component": "aa"}), node="n0")
    near = preferred("podAffinity", 100, term({"matchLabels": {"component": "aa"}}))
    assert len({place(c, Pod(f"p{i}", affinity=near)).node for i in range(20)}) > 1


def test_ties_are_broken_by_the_rng_or_by_name() -> None:
    assert {place(Cluster(nodes(3)), Pod("p")).node for _ in range(5)} == {"n0"}
    spread = {place(Cluster(nodes(3), rng=random.Random(s)), Pod("p")).node for s in range(30)}
    assert spread == {"n0", "n1", "n2"}


# --- nodeSelector ------------------------------------------------------------------------


def test_node_selector() -> None:
    c = Cluster([Node("n0", {"pool": "ci"}), Node("n1", {"pool": "web"})])
    assert place(c, Pod("p", node_selector={"pool": "web"})).node == "n1"
    q = c.create_pod(Pod("q", node_selector={"pool": "gpu"}))
    assert c.schedule(q) is None


# --- volumes -----------------------------------------------------------------------------


def test_missing_claim_waits() -> None:
    c = Cluster(nodes(2))
    p = c.create_pod(Pod("p", claims=("data",)))
    assert c.schedule(p) is None
    c.create_claim(Claim("data"))
    assert c.schedule_pending() == [p]


def test_local_volume_binds_where_the_first_pod_lands_and_pins_the_rest() -> None:
    c = Cluster(nodes(3), choice="any", rng=random.Random(5))
    claim = c.create_claim(Claim("data", local=True))
    first = place(c, Pod("first", claims=("data",)))
    assert claim.bound_node == first.node
    c.finish_pod(first)  # even with no live user, the PV's node affinity stays
    for i in range(8):
        p = place(c, Pod(f"p{i}", claims=("data",)))
        assert p.node == first.node
        c.finish_pod(p)
    # and a pod pinned elsewhere cannot run
    other = next(n for n in c.nodes if n != first.node)
    stuck = c.create_pod(Pod("stuck", claims=("data",), node_selector={HOSTNAME: other}))
    assert c.schedule(stuck) is None


def test_network_rwo_volume_moves_between_nodes_one_at_a_time() -> None:
    c = Cluster(nodes(2))
    c.create_claim(Claim("data"))
    a = place(c, Pod("a", claims=("data",)), node="n0")
    c.finish_pod(a)
    place(c, Pod("b", claims=("data",)), node="n1")  # detached from n0, attached to n1: fine
    assert c.violations == [] and c.rwo_violations() == []


def test_network_rwo_volume_on_two_nodes_at_once_is_a_violation() -> None:
    c = Cluster(nodes(2))
    c.create_claim(Claim("data"))
    place(c, Pod("a", claims=("data",)), node="n0")
    place(c, Pod("b", claims=("data",)), node="n1")
    assert [v.kind for v in c.violations] == ["MultiAttach"]
    assert c.rwo_violations() and "data" in c.rwo_violations()[0]


def test_rwx_volume_is_not_an_rwo_violation() -> None:
    c = Cluster(nodes(2))
    c.create_claim(Claim("data", access_modes=("ReadWriteMany",)))
    place(c, Pod("a", claims=("data",)), node="n0")
    place(c, Pod("b", claims=("data",)), node="n1")
    assert c.violations == [] and c.rwo_violations() == []


def test_shared_nodes_reports_groups() -> None:
    c = Cluster(nodes(2))
    place(c, Pod("a", group="run-a"), node="n0")
    place(c, Pod("b", group="run-b"), node="n1")
    assert c.shared_nodes() == []
    c2 = place(c, Pod("c", group="run-b"), node="n0")
    assert c.shared_nodes() == ["n0: run-a, run-b"]
    c.finish_pod(c2)
    assert c.shared_nodes() == []
