"""The scheduling model's queueing hints (issue 32, deliverable 2): a waiting pod is retried
only on the events kube-scheduler's hints act on, else at the unschedulable-pods flush.

- run-keyed isolate-pipelinerun writes two required anti-affinity terms (other runs' pods;
  placeholders); a TaskRun pod matches only the first, so up to Kubernetes 1.36 a run waiting
  for another run's node is retried at the flush after that run's pod ends, from 1.37 at once;
- a pod waiting behind its run's only live pod on a node that cannot take it waits for the
  flush on every version (the delete hint never looks at affinity);
- placeholders (one anti-affinity term) and pinned TaskRun pods are never delayed."""
from __future__ import annotations

from typing import Any

import pytest
from scheduler_sim import Cluster
from scheduler_sim import Node
from scheduler_sim import Pod

from krm_fn.transforms.tekton import names

KEY = names.RUN_UID_KEY
OURS = {names.RUN_KEYED_LABEL: "isolate-pipelinerun"}
REQ = "requiredDuringSchedulingIgnoredDuringExecution"


def run_keyed_isolate_pod(run: str, task: str, **kw: Any) -> Pod:
    """A TaskRun pod of a run-keyed isolate-pipelinerun run, with the terms the function writes."""
    affinity = {
        "podAffinity": {REQ: [names.run_keyed_term(KEY)]},
        "podAntiAffinity": {REQ: [names.run_keyed_anti_term(KEY, all_namespaces=True), names.assistant_repel_term()]},
    }
    return Pod(f"{run}-{task}", "ci", {**OURS, KEY: f"uid-{run}"}, affinity, group=run, **kw)


def placeholder_pod(run: str, isolate: bool = True) -> Pod:
    aa = names.assistant_name("", run)
    anti = {REQ: [names.anti_term()]} if isolate else {}
    return Pod(f"{aa}-0", "ci", names.fixed_labels("tekton.dev/pipelineRun", run, aa), {"podAntiAffinity": anti}, group=run)


def pinned_pod(run: str, task: str) -> Pod:
    aa = names.assistant_name("", run)
    return Pod(f"{run}-{task}", "ci", {"tekton.dev/pipelineRun": run}, {"podAffinity": {REQ: [names.pin_term(aa)]}}, group=run)


def one_node(version: tuple[int, int] | None) -> Cluster:
    return Cluster([Node("n1")], kubernetes_version=version)


@pytest.mark.parametrize(("version", "at_once"), [((1, 33), False), ((1, 36), False), ((1, 37), True), ((1, 38), True)])
def test_run_keyed_isolate_waits_for_the_flush_up_to_1_36(version: tuple[int, int], at_once: bool) -> None:
    c = one_node(version)
    a = c.create_pod(run_keyed_isolate_pod("a", "t"))
    c.schedule_pending()
    b = c.create_pod(run_keyed_isolate_pod("b", "t"))
    assert c.schedule_pending() == [] and b.node is None  # a's node is taken
    assert c.waiting() == [b]
    c.finish_pod(a)
    placed = c.schedule_pending(flush=False)
    assert (placed == [b]) is at_once
    if not at_once:
        assert c.waiting() == [b]  # the deletion of a's pod did not requeue it
        assert c.schedule_pending() == [b]  # the flush does
    assert b.node == "n1"
    assert (c.waited_for_flush == [b]) is not at_once


@pytest.mark.parametrize("version", [(1, 36), (1, 37)])
def test_a_task_behind_its_runs_pod_on_a_node_that_cannot_take_it_waits_on_every_version(version: tuple[int, int]) -> None:
    c = Cluster([Node("n1", {"pool": "a"}), Node("n2", {"pool": "b"})], kubernetes_version=version)
    first = c.create_pod(Pod("r-t1", "ci", {**OURS, KEY: "uid-r"}, {"podAffinity": {REQ: [names.run_keyed_term(KEY)]}},
                             node_selector={"pool": "a"}, group="r"))
    c.schedule_pending()
    second = c.create_pod(Pod("r-t2", "ci", {**OURS, KEY: "uid-r"}, {"podAffinity": {REQ: [names.run_keyed_term(KEY)]}},
                              node_selector={"pool": "b"}, group="r"))
    assert c.schedule_pending() == [] and c.waiting() == [second]
    c.finish_pod(first)
    assert c.schedule_pending(flush=False) == []  # the first-pod rule now admits it: nobody asks
    assert c.schedule_pending() == [second] and second.node == "n2" and c.waited_for_flush == [second]


@pytest.mark.parametrize("version", [(1, 36), (1, 37)])
def test_placeholders_and_pinned_pods_are_never_delayed(version: tuple[int, int]) -> None:
    c = one_node(version)
    pa = c.create_pod(placeholder_pod("a"))
    c.schedule_pending()
    pb = c.create_pod(placeholder_pod("b"))
    tb = c.create_pod(pinned_pod("b", "t"))
    assert c.schedule_pending() == [] and c.waiting() == [pb, tb]
    c.delete_pod(pa)  # run a's manifest left Git: one anti-affinity term, matched
    assert c.schedule_pending(flush=False) == [pb, tb]  # and the placeholder's bind requeues tb
    assert c.waited_for_flush == []


def test_without_a_version_every_pod_is_retried_after_every_step() -> None:
    c = one_node(None)
    a = c.create_pod(run_keyed_isolate_pod("a", "t"))
    c.schedule_pending()
    b = c.create_pod(run_keyed_isolate_pod("b", "t"))
    c.schedule_pending()
    c.finish_pod(a)
    assert c.schedule_pending(flush=False) == [b] and c.waited_for_flush == []


def test_the_hint_also_reads_the_deleted_pods_own_terms() -> None:
    """A placeholder of a named run waits beside a run-keyed isolate run's pod (whose repel
    term keeps placeholders off its node); the pod ends: up to 1.36 the placeholder matches
    one of its two terms only, so it waits for the flush (strategy auto, mixed packages)."""
    for version, at_once in (((1, 36), False), ((1, 37), True)):
        c = one_node(version)
        a = c.create_pod(run_keyed_isolate_pod("a", "t"))
        c.schedule_pending()
        p = c.create_pod(placeholder_pod("b"))
        assert c.schedule_pending() == []
        c.finish_pod(a)
        assert (c.schedule_pending(flush=False) == [p]) is at_once


def test_a_created_claim_and_an_added_node_requeue() -> None:
    from scheduler_sim import Claim

    c = one_node((1, 36))
    p = c.create_pod(Pod("x", "ci", claims=("data",)))
    assert c.schedule_pending(flush=False) == [] and c.waiting() == [p]
    c.create_claim(Claim("data", "ci"))
    assert c.schedule_pending(flush=False) == [p]
    q = c.create_pod(Pod("y", "ci", node_selector={"pool": "big"}))
    assert c.schedule_pending(flush=False) == [] and c.waiting() == [q]
    c.add_node(Node("n2", {"pool": "big"}))
    assert c.schedule_pending(flush=False) == [q] and q.node == "n2"
