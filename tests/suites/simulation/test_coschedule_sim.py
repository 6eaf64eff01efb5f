"""Coscheduling checked on the scheduling model: random pipelines and runs, rendered by the
function, run on 3-4 nodes in random interleavings (tests/coschedule_sim.py).

Properties, for every strategy in STRATEGIES and every coscheduling mode:

* no two live pods that use one ReadWriteOnce claim are ever on different nodes;
* under ``isolate-pipelinerun`` no two runs' live pods (placeholders included) share a node;
* no pod is left unplaceable: every generated scenario is one Tekton's own assistant places
  (at most as many runs as nodes, no constraints that contradict each other).

Then checks that these properties can fail (a rendering without coscheduling, a pin removed,
the isolation term removed), and the places where the simulation found the function (or
Tekton's design itself) wanting, as strict xfails: each turns into a failure once fixed, so
the mark can go.
"""
from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from coschedule_sim import MODES
from coschedule_sim import PLACEHOLDER
from coschedule_sim import RUN_KEYED
from coschedule_sim import STRATEGIES
from coschedule_sim import Strategy
from coschedule_sim import one_run_after_another
from coschedule_sim import render
from coschedule_sim import render_items
from coschedule_sim import run_keyed_by_hand
from coschedule_sim import run_scenario
from coschedule_sim import scenarios
from coschedule_sim import simulate
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import find
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from scheduler_sim import Pod

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@SETTINGS
@given(data=st.data())
def test_coscheduling_holds_in_every_interleaving(strategy: Strategy, mode: str, data: Any) -> None:
    scenario = data.draw(scenarios(mode, generate_name=strategy.generate_name), label="scenario")

    def pick(steps: list[str]) -> int:
        return data.draw(st.integers(0, len(steps) - 1), label=f"step of {len(steps)}")

    rendered, result = run_scenario(scenario, mode, strategy, pick=pick)
    assert not rendered.errors, rendered.errors
    assert result is not None
    trace = result.trace()
    assert not result.rwo, f"ReadWriteOnce claim on two nodes at once: {result.rwo}\n{trace}"
    assert not result.shared, f"isolate-pipelinerun: runs share a node: {result.shared}\n{trace}"
    # run-keyed, per-run modes, several claims: the function warns that node-local claims
    # first used while none of the run's pods was alive can be bound on two nodes
    # (test_run_keyed_claims_bound_apart); only then may a pod be left unplaceable
    warned = any(r.get("severity") == "warning" and "keeps the run's pods together only while" in r.get("message", "")
                 for r in rendered.results)
    assert not result.unschedulable or warned, f"left unplaceable: {result.unschedulable}\n{trace}"


@SETTINGS
@given(data=st.data())
def test_rendered_again_in_another_mode_still_holds(data: Any) -> None:
    """The function run on its own output, in the same or another mode (the regenerated and
    switched placeholders, the claims they already hold), then simulated."""
    first = data.draw(st.sampled_from((*MODES, "disabled")), label="first mode")
    second = data.draw(st.sampled_from(MODES), label="second mode")
    scenario = data.draw(scenarios(second, single_claim=True, isolated=True), label="scenario")
    once = render_items(scenario.items, PLACEHOLDER.policy_spec(first))
    assert not once.errors, once.errors
    twice = render_items(once.items, PLACEHOLDER.policy_spec(second))
    assert not twice.errors, twice.errors

    def pick(steps: list[str]) -> int:
        return data.draw(st.integers(0, len(steps) - 1), label=f"step of {len(steps)}")

    r = simulate(twice.items, nodes=scenario.nodes, local=scenario.local, choice=scenario.choice, seed=scenario.seed,
                 pick=pick, isolate=second == "isolate-pipelinerun")
    assert not r.rwo and not r.shared and not r.unschedulable, (r.rwo, r.shared, r.unschedulable, r.trace())


# --- packages: several runs of one Pipeline, and the Pipeline changed between renders ------


def _one_pipeline(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every PipelineRun refers to the Pipeline `build` of its namespace (embedded specs become
    references), as the runs of one package do."""
    items = copy.deepcopy(items)
    pipelines = {it["metadata"]["namespace"]: it for it in items if it["kind"] == "Pipeline"}
    added = []
    for it in items:
        if it["kind"] != "PipelineRun" or "pipelineSpec" not in it["spec"]:
            continue
        embedded = it["spec"].pop("pipelineSpec")
        it["spec"]["pipelineRef"] = {"name": "build"}
        ns = it["metadata"]["namespace"]
        if ns not in pipelines:
            pipelines[ns] = {"apiVersion": "tekton.dev/v1", "kind": "Pipeline", "metadata": {"name": "build", "namespace": ns}, "spec": embedded}
            added.append(pipelines[ns])
    return added + items


@st.composite
def _pipeline_edits(draw: Any, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The package after an edit of its Pipeline alone (every copy of it, one per namespace):
    a task that maps a workspace is added at the end of the DAG, or a task stops using any."""
    items = copy.deepcopy(items)
    pipelines = [it for it in items if it["kind"] == "Pipeline"]
    spec = pipelines[0]["spec"]
    edit = draw(st.sampled_from(["add", "drop"]), label="pipeline edit")
    if edit == "add":
        ws = draw(st.sampled_from([w["name"] for w in spec["workspaces"]]), label="workspace")
        task = {"name": "late", "runAfter": [spec["tasks"][-1]["name"]], "taskRef": {"name": "step"}, "workspaces": [{"name": ws}]}
        for p in pipelines:
            p["spec"]["tasks"].append(copy.deepcopy(task))
    else:
        i = draw(st.integers(0, len(spec["tasks"]) - 1), label="task")
        for p in pipelines:
            t = p["spec"]["tasks"][i]
            p["spec"]["tasks"][i] = {k: v for k, v in t.items() if k in ("name", "runAfter")} | {"taskRef": {"name": "step"}}
    return items


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_package_whose_pipeline_changed_between_renders(strategy: Strategy, mode: str, data: Any) -> None:
    """Several runs of one Pipeline, rendered; then only the Pipeline changes and the package is
    rendered again (issue 24: Tekton's assistant always works from the current Pipeline). The
    second render holds every property on the model, and a third changes nothing."""
    scenario = data.draw(scenarios(mode, max_taskruns=0, generate_name=strategy.generate_name), label="scenario")
    package = _one_pipeline(scenario.items)
    once = render_items(package, strategy.policy_spec(mode))
    assert not once.errors, once.errors
    edited = data.draw(_pipeline_edits(once.items))
    twice = render_items(edited, strategy.policy_spec(mode))
    assert not twice.errors, twice.errors
    thrice = render_items(twice.items, strategy.policy_spec(mode))
    assert thrice.items == twice.items

    def pick(steps: list[str]) -> int:
        return data.draw(st.integers(0, len(steps) - 1), label=f"step of {len(steps)}")

    r = simulate(twice.items, nodes=scenario.nodes, local=scenario.local, choice=scenario.choice, seed=scenario.seed,
                 pick=pick, strategy=strategy, isolate=mode == "isolate-pipelinerun")
    warned = any(r.get("severity") == "warning" and "keeps the run's pods together only while" in r.get("message", "")
                 for r in twice.results)
    assert not r.rwo and not r.shared, (r.rwo, r.shared, r.trace())
    assert not r.unschedulable or warned, (r.unschedulable, r.trace())


def test_a_pipeline_edit_left_unrendered_breaks_the_package() -> None:
    """Negative control for the test above: in workspaces mode, a task added to the Pipeline
    and not re-rendered is pinned nowhere, and some schedule puts it on another node while
    its claim is in use (what a commit that stages only the Pipeline leaves behind)."""

    def stale_breaks(data: Any) -> bool:
        scenario, choice = data
        once = render_items(_one_pipeline(scenario.items), PLACEHOLDER.policy_spec("workspaces"))
        if once.errors:
            return False
        stale = copy.deepcopy(once.items)
        for p in (it for it in stale if it["kind"] == "Pipeline"):
            p["spec"]["tasks"].append({"name": "late", "taskRef": {"name": "step"}, "workspaces": [{"name": f"ws{choice}"}]})
        if choice >= len(stale[0]["spec"]["workspaces"]):
            return False
        return any(simulate(stale, nodes=scenario.nodes, local=False, choice="any", seed=seed, pick=_parallel_first).rwo for seed in range(3))

    found = find(st.tuples(scenarios("workspaces", max_taskruns=0), st.integers(0, 2)), stale_breaks, settings=FIND)
    scenario, choice = found
    once = render_items(_one_pipeline(scenario.items), PLACEHOLDER.policy_spec("workspaces"))
    for p in (it for it in once.items if it["kind"] == "Pipeline"):
        p["spec"]["tasks"].append({"name": "late", "taskRef": {"name": "step"}, "workspaces": [{"name": f"ws{choice}"}]})
    again = render_items(once.items, PLACEHOLDER.policy_spec("workspaces"))
    assert not again.errors
    assert not any(simulate(again.items, nodes=scenario.nodes, local=False, choice="any", seed=seed, pick=_parallel_first).rwo for seed in range(3))


# --- the oracle on SPEC §4b's run-keyed terms, written by hand -----------------------------
# When the function renders run-keyed terms, RUN_KEYED joins STRATEGIES (coschedule_sim) and
# test_coscheduling_holds_in_every_interleaving covers it; these tests check the simulation
# itself on §4b's terms meanwhile, and pin down what §4b says run-keyed does not give.


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_hand_written_run_keyed_terms_hold_in_every_interleaving(mode: str, data: Any) -> None:
    scenario = data.draw(scenarios(mode, max_taskruns=0, generate_name=True), label="scenario")
    items = run_keyed_by_hand(scenario.items, mode)

    def pick(steps: list[str]) -> int:
        return data.draw(st.integers(0, len(steps) - 1), label=f"step of {len(steps)}")

    r = simulate(items, nodes=scenario.nodes, local=scenario.local, choice=scenario.choice, seed=scenario.seed,
                 pick=pick, isolate=mode == "isolate-pipelinerun")
    # Not asserted: that nothing is left unplaceable. Hypothesis found (in the merged suite)
    # a run whose tasks use two node-local claims at different times, while none of the run's
    # pods was alive: each claim bound where its first pod landed, on two nodes, and a later
    # task that uses both can never be placed. The placeholder holds one node for the whole
    # run and does not have this; run-keyed (issue 12) must refuse or warn for such runs.
    assert not r.rwo and not r.shared, (r.rwo, r.shared, r.unschedulable, r.trace())


@pytest.mark.parametrize(("key", "holds"), [
    ("tekton.dev/pipelineRun", True),
    ("tekton.dev/pipelineRunUID", True),  # on TaskRun pods from Tekton v0.63
    ("tekton.dev/pipelineTask", False),  # a mutation: groups a task across runs, not a run
    ("tekton.dev/taskRun", False),  # a mutation: every pod is a group of its own
])
def test_run_keyed_needs_the_key_of_the_run(key: str, holds: bool) -> None:
    items = run_keyed_by_hand(_runs(2), "pipelineruns", key=key)
    broken = [s for s in range(20) if simulate(items, choice="any", seed=s, pick=_parallel_first).rwo]
    assert not broken if holds else broken


def _one_task_at_a_time(steps: list[str]) -> int:
    for prefix in ("apply", "finish", "start"):
        for i, s in enumerate(steps):
            if s.startswith(prefix):
                return i
    return 0


SEQUENTIAL_RUN = """- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {generateName: seq-, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: src}]
      tasks:
      - {name: a, taskRef: {name: s}, workspaces: [{name: src}]}
      - {name: b, taskRef: {name: s}, runAfter: [a], workspaces: [{name: src}]}
      - {name: c, taskRef: {name: s}, runAfter: [b], workspaces: [{name: src}]}
      - {name: d, taskRef: {name: s}, runAfter: [c], workspaces: [{name: src}]}
    workspaces:
    - name: src
      volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}
"""


def test_run_keyed_holds_at_every_instant_not_for_the_run() -> None:
    """§4b: a task that starts when none of its run's pods is alive is a "first pod" again and
    may go to another node; a network volume follows (detach, attach: never two nodes at once),
    a node-local one keeps the run where it first landed."""
    items = run_keyed_by_hand(yaml.safe_load(SEQUENTIAL_RUN), "pipelineruns")
    moved = []
    for seed in range(10):
        network = simulate(items, choice="any", seed=seed, pick=_one_task_at_a_time)
        assert not network.rwo and not network.unschedulable
        moved.append(len({line.split(" -> ")[1] for line in network.log if " -> " in line}) > 1)
        local = simulate(items, choice="any", seed=seed, local=True, pick=_one_task_at_a_time)
        assert not local.rwo and not local.unschedulable
        assert len({line.split(" -> ")[1] for line in local.log if " -> " in line}) == 1
    assert any(moved)


def test_run_keyed_without_kep_3633_is_one_group_for_all_runs() -> None:
    """Below 1.29 (or with the alpha gate off) the API server drops matchLabelKeys and
    mismatchLabelKeys: in pipelineruns mode every run's pods pile onto one node, in
    isolate-pipelinerun two pods of one run exclude each other, so its parallel tasks run one
    after the other (why run-keyed below 1.31 is an error, SPEC §4b)."""
    off = Strategy("run-keyed, KEP-3633 off", match_label_keys=False)
    items = run_keyed_by_hand(_runs(2), "pipelineruns")
    on_one_node = simulate(items, pick=_parallel_first, strategy=off)
    assert len({line.split(" -> ")[1] for line in on_one_node.log if " -> " in line}) == 1
    assert len({line.split(" -> ")[1] for line in simulate(items, pick=_parallel_first).log if " -> " in line}) == 2
    log = simulate(run_keyed_by_hand(_runs(1), "isolate-pipelinerun"), pick=_parallel_first, strategy=off).log
    bound = [line for line in log if " -> " in line or "succeeded" in line]
    assert bound[:2] == [bound[0], bound[0].split(" -> ")[0] + " succeeded"]  # the second task waited for the first


# --- the properties can fail -------------------------------------------------------------


FIND = settings(max_examples=300, deadline=None, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))


def _rwo_violated(scenario: Any, strategy: Strategy, mode: str) -> bool:
    rendered = render_items(scenario.items, strategy.policy_spec(mode))
    return not rendered.errors and any(
        simulate(rendered.items, nodes=scenario.nodes, local=False, choice="any", seed=seed, pick=_parallel_first).rwo
        for seed in range(3)
    )


def test_without_coscheduling_the_rwo_property_fails() -> None:
    """Negative control: rendered with ``coschedule: disabled`` (no pins), some random run
    uses a ReadWriteOnce claim on two nodes at once; the same run rendered in
    ``pipelineruns`` mode does not."""
    scenario = find(
        scenarios("pipelineruns"),
        lambda s: _rwo_violated(s, PLACEHOLDER, "disabled"),
        settings=FIND,
    )
    assert not _rwo_violated(scenario, PLACEHOLDER, "pipelineruns")


RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: run-%(i)d, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: src}]
      tasks:
      - {name: a, taskRef: {name: s}, workspaces: [{name: src}]}
      - {name: b, taskRef: {name: s}, workspaces: [{name: src}]}
    workspaces:
    - name: src
      volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}
"""


def _runs(n: int) -> list[dict[str, Any]]:
    return yaml.safe_load("".join(RUN % {"i": i} for i in range(n)))


def _parallel_first(steps: list[str]) -> int:
    """Create and apply everything, start every task, and only then finish anything."""
    for prefix in ("create", "apply", "start", "finish"):
        for i, s in enumerate(steps):
            if s.startswith(prefix):
                return i
    return 0


def _strip_pins(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    items = copy.deepcopy(items)
    for it in items:
        if it["kind"] == "PipelineRun":
            del it["spec"]["taskRunTemplate"]["podTemplate"]["affinity"]["podAffinity"]
    return items


def test_a_run_without_its_pin_breaks_the_rwo_property() -> None:
    """Mutation: remove the required podAffinity term from a correctly rendered run; two
    parallel tasks on one claim then land on two nodes for some scheduler choices."""
    rendered = render_items(_runs(1), {"coschedule": "pipelineruns"})
    assert not rendered.errors
    broken = _strip_pins(rendered.items)
    bad = [s for s in range(20) if simulate(broken, choice="any", seed=s, pick=_parallel_first).rwo]
    assert bad, "the simulation never caught the missing pin"
    assert not any(simulate(rendered.items, choice="any", seed=s, pick=_parallel_first).rwo for s in range(20))


def test_isolation_without_its_anti_affinity_breaks() -> None:
    """Mutation: the isolate placeholders' required anti-affinity made preferred; with the
    scheduler free to ignore preferences, two runs end up on one node."""
    rendered = render_items(_runs(3), {"coschedule": "isolate-pipelinerun"})
    assert not rendered.errors
    weak = copy.deepcopy(rendered.items)
    for it in weak:
        if it["kind"] == "StatefulSet":
            anti = it["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]
            terms = anti.pop("requiredDuringSchedulingIgnoredDuringExecution")
            anti["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": 100, "podAffinityTerm": t} for t in terms]
    assert any(simulate(weak, choice="any", seed=s, isolate=True, pick=_parallel_first).shared for s in range(20))
    assert not any(simulate(rendered.items, choice="any", seed=s, isolate=True, pick=_parallel_first).shared for s in range(20))


# --- what the placeholders cost (SPEC §4: they live as long as the manifest is in Git) ----


def test_isolate_with_more_runs_than_nodes_waits_for_a_placeholder_to_go() -> None:
    """Four runs, three nodes: the fourth run's placeholder is placed only when another run's
    placeholder is deleted. Tekton deletes its assistant when the run ends; a rendered
    placeholder stays until its manifest leaves Git (issue 12: "every finished run still in Git
    keeps a node closed")."""
    rendered = render_items(_runs(4), {"coschedule": "isolate-pipelinerun"})
    kept = simulate(rendered.items, nodes=3, isolate=True, pick=one_run_after_another)
    fourth = [it["metadata"]["name"] for it in rendered.items if it["kind"] == "StatefulSet" and it["metadata"]["labels"]["tekton.dev/pipelineRun"] == "run-3"]
    assert len(kept.unschedulable) == 3  # run-3's placeholder and the two pods pinned to it
    assert kept.unschedulable[0].startswith(f"ci/{fourth[0]}-0 ") and all("run-3" in p for p in kept.unschedulable[1:])
    pruned = simulate(rendered.items, nodes=3, isolate=True, pick=one_run_after_another, strategy=Strategy("tekton-lifetime", placeholder_lifetime="run"))
    assert not pruned.unschedulable and not pruned.shared


SHARED_CLAIM_RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: nightly-%(i)d, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: cache}]
      tasks:
      - {name: a, taskRef: {name: s}, workspaces: [{name: cache}]}
    workspaces:
    - {name: cache, persistentVolumeClaim: {claimName: build-cache}}
"""


@pytest.mark.parametrize("mode", MODES)
def test_runs_one_after_another_on_a_shared_claim_with_tektons_lifetime(mode: str) -> None:
    """The same placeholders, deleted when their run ends (Tekton's lifetime): two runs that
    share a user's claim and never overlap are fine on any storage."""
    items = yaml.safe_load("".join(SHARED_CLAIM_RUN % {"i": i} for i in range(2)))
    rendered = render_items(items, {"coschedule": mode})
    for local in (False, True):
        r = simulate(rendered.items, local=local, pick=one_run_after_another, isolate=mode == "isolate-pipelinerun",
                     strategy=Strategy("tekton-lifetime", placeholder_lifetime="run"))
        assert not r.rwo and not r.unschedulable and not r.shared


# --- found by the simulation -------------------------------------------------------------


@pytest.mark.xfail(strict=True, reason=(
    "found by the simulation: two runs binding one persistentVolumeClaim get one placeholder "
    "each, and both placeholders mount the claim for as long as they are in Git; the second is "
    "put on another node (preferred anti-affinity between placeholders), so a network "
    "ReadWriteOnce volume is Multi-Attached (stuck) even when the runs never overlap, and in "
    "isolate-pipelinerun a node-local one leaves the second run unplaceable. Tekton's assistant, "
    "deleted with its run, has neither problem. The function says nothing."))
@pytest.mark.parametrize("mode", MODES)
def test_runs_one_after_another_on_a_shared_claim(mode: str) -> None:
    items = yaml.safe_load("".join(SHARED_CLAIM_RUN % {"i": i} for i in range(2)))
    rendered = render_items(items, {"coschedule": mode})
    warned = any(r.get("severity") in ("warning", "error") and "build-cache" in r.get("message", "") for r in rendered.results)
    failures = []
    for local in (False, True):
        r = simulate(rendered.items, local=local, pick=one_run_after_another, isolate=mode == "isolate-pipelinerun")
        failures += r.rwo + r.unschedulable
    assert warned or not failures, failures


REQUIRED_USER_AFFINITY_RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: near-cache, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: src}]
      tasks:
      - {name: a, taskRef: {name: s}, workspaces: [{name: src}]}
    taskRunTemplate:
      podTemplate:
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {cache: warm}}
              topologyKey: kubernetes.io/hostname
    workspaces:
    - name: src
      volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}
"""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
def test_a_run_with_its_own_required_pod_affinity(strategy: Strategy, mode: str) -> None:
    """Found by the simulation: a run whose pod template has its own required podAffinity term
    gets the coscheduling term appended; the scheduler admits a pod whose required terms no
    existing pod matches only when no pod in the cluster matches any of them, so with a pod
    matching the user's term running, every TaskRun pod stays Pending (Tekton appends its pin
    the same way). Both strategies: the function now warns."""
    rendered = render_items(yaml.safe_load(REQUIRED_USER_AFFINITY_RUN), strategy.policy_spec(mode))
    warned = any(r.get("severity") == "warning" and "required podAffinity term" in r.get("message", "") for r in rendered.results)
    cache = Pod("cache", namespace="ci", labels={"cache": "warm"})
    r = simulate(rendered.items, existing=((cache, "node-1"),), strategy=strategy)
    assert r.unschedulable  # the deadlock is real in the model ...
    assert warned  # ... and the user is told


def test_the_same_run_without_coscheduling_is_placed() -> None:
    """The control for the case above: unpinned, the pod follows the cache pod."""
    rendered = render_items(yaml.safe_load(REQUIRED_USER_AFFINITY_RUN), {"coschedule": "disabled"})
    r = simulate(rendered.items, existing=((Pod("cache", namespace="ci", labels={"cache": "warm"}), "node-1"),))
    assert not r.unschedulable


ALIASED = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {namespace: ci, name: run-0}
  spec:
    pipelineSpec:
      tasks:
      - name: t0
        taskRef: {name: step}
    taskRunTemplate:
      podTemplate:
        affinity: &a
          nodeAffinity: {}
    taskRunSpecs:
    - pipelineTaskName: t0
      podTemplate:
        affinity: *a
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata: {name: sim}
  spec: {coschedule: pipelineruns}
"""


def test_an_aliased_affinity_keeps_the_pin_and_the_task_run_specs() -> None:
    """Found by the simulation: a taskRunSpecs affinity that is a YAML alias of the run-level
    one lost the pin and the whole taskRunSpecs (one node shared by both places)."""
    out = yaml.safe_load(render(ALIASED))
    run = out["items"][0]
    run_level = run["spec"]["taskRunTemplate"]["podTemplate"]["affinity"]
    assert run_level["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert run_level["nodeAffinity"] == {}
    # the task's affinity: its own when its entry sets one (Tekton takes it whole), else the
    # run-level one (an entry that only repeated the run-level affinity may go)
    entries = [t for t in run["spec"].get("taskRunSpecs", []) if t["pipelineTaskName"] == "t0"]
    task = entries[0]["podTemplate"]["affinity"] if entries and "affinity" in entries[0].get("podTemplate", {}) else run_level
    assert task["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]


FEATURES = {
    "parallel branches": lambda runs, text: any(sum("runAfter" not in t for t in r["spec"].get("pipelineSpec", {}).get("tasks", [])) > 1 for r in runs),
    "runAfter": lambda runs, text: "runAfter" in text,
    "finally": lambda runs, text: "finally:" in text,
    "several runs": lambda runs, text: len(runs) > 1,
    "volumeClaimTemplate": lambda runs, text: "volumeClaimTemplate" in text,
    "persistentVolumeClaim": lambda runs, text: "persistentVolumeClaim" in text,
    "v1beta1": lambda runs, text: "tekton.dev/v1beta1" in text,
    "taskRunSpecs": lambda runs, text: "taskRunSpecs" in text,
    "standalone TaskRun": lambda runs, text: "kind: TaskRun" in text,
    "same run name in two namespaces": lambda runs, text: len({r["metadata"].get("name") for r in runs}) < len(runs),
    "two workspaces on one claim": lambda runs, text: any(
        len({b["persistentVolumeClaim"]["claimName"] for b in r["spec"]["workspaces"] if "persistentVolumeClaim" in b})
        < sum("persistentVolumeClaim" in b for b in r["spec"]["workspaces"]) for r in runs),
}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_scenarios_have(feature: str) -> None:
    """The generator's own sanity: it does draw each feature, and the function accepts it."""

    def has(scenario: Any) -> bool:
        runs = [it for it in scenario.items if it["kind"] == "PipelineRun"]
        return bool(FEATURES[feature](runs, yaml.safe_dump(scenario.items)))

    scenario = find(scenarios("pipelineruns"), has, settings=FIND)
    assert not render_items(scenario.items, {"coschedule": "pipelineruns"}).errors


NODE_CONSTRAINED_TASK = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: r, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: src}]
      tasks:
      - {name: a, taskRef: {name: s}, workspaces: [{name: src}]}
      - {name: gpu, taskRef: {name: s}, runAfter: [a], workspaces: [{name: src}]}
    taskRunSpecs:
    - pipelineTaskName: gpu
      podTemplate: %s
    workspaces:
    - name: src
      volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}
"""
GPU_FORMS = {
    "nodeSelector": "{nodeSelector: {pool: gpu}}",
    "nodeAffinity": "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                    "{nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}]}}}}",
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", ["nodeSelector", "nodeAffinity"])
def test_a_task_that_needs_other_nodes_than_its_placeholder_is_warned(form: str, mode: str) -> None:
    rendered = render_items(yaml.safe_load(NODE_CONSTRAINED_TASK % GPU_FORMS[form]), {"coschedule": mode})
    stuck = [r.unschedulable for s in range(10) if (r := simulate(rendered.items, seed=s, node_labels=[{"pool": "ci"}, {"pool": "gpu"}, {"pool": "ci"}])).unschedulable]
    assert stuck and all("r-gpu-pod" in u[0] for u in stuck)  # the placeholder was put on a "ci" node
    assert any(x.get("severity") == "warning" and "gpu" in x.get("message", "") for x in rendered.results)


@pytest.mark.xfail(strict=True, reason=(
    "found by the simulation: isolate-pipelinerun isolates runs of one namespace only. The "
    "placeholders' required anti-affinity term has no namespaces and no namespaceSelector, so it "
    "applies to the placeholder's own namespace; runs in two namespaces can share a node. Tekton's "
    "own term is the same (docs/affinityassistants.md promises 'only one PipelineRun ... on a node at a "
    "time'); `namespaceSelector: {}` on the term would make it cluster-wide (the simulation models it)."))
def test_isolate_pipelinerun_across_namespaces() -> None:
    items = _runs(2)
    items[1]["metadata"]["namespace"] = "other-team"
    rendered = render_items(items, {"coschedule": "isolate-pipelinerun"})
    assert not rendered.errors
    shared = [s for s in range(20) if simulate(rendered.items, choice="any", seed=s, isolate=True, pick=_parallel_first).shared]
    assert not shared


def test_isolate_pipelinerun_across_namespaces_run_keyed() -> None:
    """The run-keyed anti-affinity term has `namespaceSelector: {}`: isolation holds across
    namespaces (the placeholder's, as Tekton's, holds per namespace: the xfail above)."""
    items = _runs(2)
    items[1]["metadata"]["namespace"] = "other-team"
    rendered = render_items(items, RUN_KEYED.policy_spec("isolate-pipelinerun"))
    assert not rendered.errors
    shared = [s for s in range(20) if simulate(rendered.items, choice="any", seed=s, isolate=True, pick=_parallel_first, strategy=RUN_KEYED).shared]
    assert not shared


def test_isolate_pipelinerun_across_strategies() -> None:
    """A named run (placeholder) and a generateName run (run-keyed) under auto: the run-keyed
    pods also repel placeholders, and placeholders them (required anti-affinity is symmetric)."""
    items = _runs(2)
    items[1]["metadata"] = {"generateName": "gen-", "namespace": "ci"}
    rendered = render_items(items, {"coschedule": "isolate-pipelinerun"})
    assert not rendered.errors
    assert sum(it["kind"] == "StatefulSet" for it in rendered.items) == 1
    shared = [s for s in range(20) if simulate(rendered.items, choice="any", seed=s, isolate=True, pick=_parallel_first).shared]
    assert not shared


TWO_LOCAL_CLAIMS_RUN = """- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {generateName: two-, namespace: ci}
  spec:
    pipelineSpec:
      workspaces: [{name: a}, {name: b}]
      tasks:
      - {name: first, taskRef: {name: s}, workspaces: [{name: a}]}
      - {name: second, runAfter: [first], taskRef: {name: s}, workspaces: [{name: b}]}
      - {name: both, runAfter: [second], taskRef: {name: s}, workspaces: [{name: a}, {name: b}]}
    workspaces:
    - {name: a, volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}
    - {name: b, volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}
"""


def _one_at_a_time(steps: list[str]) -> int:
    """Finish a pod before the next starts: no two pods of the run are ever alive together."""
    for prefix in ("create", "apply", "finish", "start"):
        for i, s in enumerate(steps):
            if s.startswith(prefix):
                return i
    return 0


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
def test_run_keyed_claims_bound_apart(mode: str) -> None:
    """What run-keyed does not give (SPEC §4b): one node for the whole run. Two node-local
    claims first used by tasks that never overlap bind where each first pod lands; the task
    that uses both is then unplaceable on some schedules. The function warns; the placeholder
    strategy (the same run with a name) holds one node and places it on every schedule."""
    items = yaml.safe_load(TWO_LOCAL_CLAIMS_RUN)
    rendered = render_items(items, RUN_KEYED.policy_spec(mode))
    assert any(r.get("severity") == "warning" and "keeps the run's pods together only while" in r.get("message", "") for r in rendered.results)
    stuck = [s for s in range(20) if simulate(rendered.items, local=True, choice="any", seed=s, pick=_one_at_a_time, strategy=RUN_KEYED).unschedulable]
    assert stuck
    items[0]["metadata"] = {"name": "two", "namespace": "ci"}
    held = render_items(items, PLACEHOLDER.policy_spec(mode))
    assert not [s for s in range(20) if simulate(held.items, local=True, choice="any", seed=s, pick=_one_at_a_time).unschedulable]


@pytest.mark.parametrize("mode", MODES)
def test_runs_one_after_another_on_a_shared_claim_run_keyed(mode: str) -> None:
    """The shared-claim deadlock of placeholders (the xfail above) does not exist with
    run-keyed terms: nothing holds the claim between runs."""
    items = yaml.safe_load("".join(SHARED_CLAIM_RUN % {"i": i} for i in range(2)))
    rendered = render_items(items, RUN_KEYED.policy_spec(mode))
    assert not rendered.errors and not any(it["kind"] == "StatefulSet" for it in rendered.items)
    for local in (False, True):
        r = simulate(rendered.items, local=local, pick=one_run_after_another, isolate=mode == "isolate-pipelinerun", strategy=RUN_KEYED)
        assert not r.rwo and not r.unschedulable, (r.rwo, r.unschedulable, r.trace())
