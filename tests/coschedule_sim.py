"""Random pipelines, rendered by the function and run on the scheduling model.

* ``render`` is the only place that touches ``krm_fn`` (its layout is being redesigned).
* ``scenarios`` (hypothesis) draws Pipelines and several PipelineRuns of them: tasks with
  ``runAfter`` edges, parallel branches and ``finally`` tasks, that map workspaces, refer to
  them in an embedded ``taskSpec`` (propagated) or declare unused optional ones; workspaces bound to a
  ``volumeClaimTemplate``, a ``persistentVolumeClaim`` (sometimes two workspaces on one claim)
  or an ``emptyDir``; v1 and v1beta1; embedded specs and ``pipelineRef``; run- and task-level
  pod templates that set affinity, nodeSelector or labels; standalone TaskRuns; two
  namespaces (one under ``isolate-pipelinerun``, whose isolation is per namespace).
* ``simulate`` applies the rendered runs and their placeholders to a ``scheduler_sim.Cluster``
  of 3-4 nodes and plays Tekton: a TaskRun pod is created when the tasks it runs after have
  finished (``finally`` tasks when every DAG task has), pods finish in an order the caller
  picks, and after every step the scheduler places what it can and the invariants are checked.
* ``Strategy`` says how a coscheduling strategy is asked for and what it leaves behind; the
  property tests are parametrised over ``STRATEGIES``.
"""
from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import strategies as st
from scheduler_sim import RWO
from scheduler_sim import Claim
from scheduler_sim import Cluster
from scheduler_sim import Node
from scheduler_sim import Pod
from tekton_pods import h10
from tekton_pods import is_placeholder
from tekton_pods import namespace_of
from tekton_pods import pipeline_of
from tekton_pods import placeholder_pod
from tekton_pods import run_group
from tekton_pods import standalone_taskrun_pod
from tekton_pods import taskrun_pods
from tekton_pods import tekton_claims

NAMESPACE = "ci"
OTHER_NAMESPACE = "team-b"
MODES = ("workspaces", "pipelineruns", "isolate-pipelinerun")


# --- the function, behind one adapter ----------------------------------------------------


def render(resource_list_yaml: str) -> str:
    """Run the function on one ResourceList (YAML text); the output ResourceList's text.

    Every use of krm_fn in the simulation goes through here."""
    try:
        from krm_fn.modes.krm import run_resource_list
    except ImportError:  # the layout before the redesign
        from krm_fn.orchestration.process import run_resource_list  # type: ignore[attr-defined,no-redef]
    out, _outcome, _code = run_resource_list(resource_list_yaml.encode())
    return str(out)


@dataclasses.dataclass
class Rendered:
    items: list[dict[str, Any]]
    results: list[dict[str, Any]]

    @property
    def errors(self) -> list[str]:
        return [r.get("message", "") for r in self.results if r.get("severity") == "error"]


class _NoAliases(yaml.SafeDumper):
    """Scenarios share dicts between runs; written as anchors and aliases they would test the
    function's YAML handling (see test_coschedule_sim's alias case), not its coscheduling."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def resource_list(items: list[dict[str, Any]], policy_spec: dict[str, Any]) -> str:
    return yaml.dump({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {
            "apiVersion": "fn.kpt.dev/v1alpha1",
            "kind": "CoschedulePolicy",
            "metadata": {"name": "sim"},
            "spec": policy_spec,
        },
    }, Dumper=_NoAliases, sort_keys=False)


def render_items(items: list[dict[str, Any]], policy_spec: dict[str, Any]) -> Rendered:
    out = yaml.safe_load(render(resource_list(items, policy_spec)))
    return Rendered(out.get("items") or [], out.get("results") or [])


# --- strategies --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Strategy:
    """How to ask the function for a coscheduling strategy, and what the cluster needs.

    ``policy`` is merged into the CoschedulePolicy spec with ``coschedule: <mode>``.
    ``placeholder_lifetime``: "git" (a rendered placeholder stays while its manifest is in Git,
    SPEC §4) or "run" (deleted when its run finishes, as Tekton's own assistant is).
    ``match_label_keys``: the cluster's KEP-3633 support (1.31+: on).
    ``generate_name``: the scenarios may hold runs with ``generateName`` and no name.
    """

    name: str
    policy: tuple[tuple[str, Any], ...] = ()
    placeholder_lifetime: str = "git"
    match_label_keys: bool = True
    generate_name: bool = False

    def policy_spec(self, mode: str) -> dict[str, Any]:
        return {"coschedule": mode, **dict(self.policy)}


PLACEHOLDER = Strategy("placeholder", (("strategy", "placeholder"),))
# The run-keyed strategy (SPEC §4b): the property tests run for it unchanged, generateName runs
# included (``simulate`` names each run when it is applied, as the API server does).
RUN_KEYED = Strategy("run-keyed", (("strategy", "run-keyed"), ("kubernetesVersion", "1.33")), generate_name=True)
STRATEGIES = (PLACEHOLDER, RUN_KEYED)


RUN_KEYED_LABEL = "krm-coschedule.dev/run-keyed"


def run_keyed_by_hand(items: list[dict[str, Any]], mode: str, key: str = "tekton.dev/pipelineRun") -> list[dict[str, Any]]:
    """SPEC §4b's per-run modes written by hand, not by the function: a reference for the
    simulation until the function renders run-keyed terms itself (then compare the two).

    Every PipelineRun gets the label ``RUN_KEYED_LABEL`` (propagated to its pods) and, in its
    run-level pod template and every ``taskRunSpecs`` template that sets its own affinity, one
    required podAffinity term selecting that label with ``matchLabelKeys: [key]``; in
    ``isolate-pipelinerun`` a required podAntiAffinity term with ``mismatchLabelKeys: [key]``,
    in ``pipelineruns`` the same as preferred (weight 100). Claim templates stay in the run.
    Standalone TaskRuns are left alone (§4b)."""
    assert mode in ("pipelineruns", "isolate-pipelinerun"), mode
    selector = {"matchLabels": {RUN_KEYED_LABEL: "true"}}
    together = {"labelSelector": selector, "matchLabelKeys": [key], "topologyKey": "kubernetes.io/hostname"}
    apart = {"labelSelector": selector, "mismatchLabelKeys": [key], "topologyKey": "kubernetes.io/hostname"}

    def add_terms(tpl: dict[str, Any]) -> None:
        aff = tpl.setdefault("affinity", {}) or {}
        tpl["affinity"] = aff
        aff.setdefault("podAffinity", {}).setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(copy.deepcopy(together))
        anti = aff.setdefault("podAntiAffinity", {})
        if mode == "isolate-pipelinerun":
            anti.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(copy.deepcopy(apart))
        else:
            anti.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append({"weight": 100, "podAffinityTerm": copy.deepcopy(apart)})

    out = copy.deepcopy(items)
    for it in out:
        if it.get("kind") != "PipelineRun":
            continue
        it["metadata"].setdefault("labels", {})[RUN_KEYED_LABEL] = "true"
        spec = it["spec"]
        if it["apiVersion"].endswith("/v1beta1"):
            run_tpl = spec.setdefault("podTemplate", {})
            task_key = "taskPodTemplate"
        else:
            run_tpl = spec.setdefault("taskRunTemplate", {}).setdefault("podTemplate", {})
            task_key = "podTemplate"
        add_terms(run_tpl)
        for trs in spec.get("taskRunSpecs") or []:
            if (trs.get(task_key) or {}).get("affinity") is not None:
                add_terms(trs[task_key])
    return out


# --- random scenarios --------------------------------------------------------------------

WS_KINDS = ("vct", "pvc", "emptyDir")
HARMLESS_PREFERRED = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"cache": "warm"}}, "topologyKey": "kubernetes.io/hostname"}},
]}}
HARMLESS_ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"noisy": "neighbour"}}, "topologyKey": "kubernetes.io/hostname"},
]}}
POOL_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["ci"]}]},
]}}}
RUN_TEMPLATES: tuple[dict[str, Any] | None, ...] = (
    None,
    {"nodeSelector": {"pool": "ci"}},
    {"affinity": HARMLESS_PREFERRED},
    {"affinity": HARMLESS_ANTI, "nodeSelector": {"pool": "ci"}},
    {"affinity": POOL_AFFINITY},
)
TASK_TEMPLATES: tuple[dict[str, Any], ...] = (
    {"affinity": {}},
    {"affinity": HARMLESS_PREFERRED},
    {"affinity": HARMLESS_ANTI},
    {"nodeSelector": {"pool": "ci"}},
)


@dataclasses.dataclass
class Scenario:
    items: list[dict[str, Any]]
    nodes: int
    local: bool  # node-local volumes (WaitForFirstConsumer), else network ReadWriteOnce
    choice: str  # scheduler_sim choice: "score" or "any"
    seed: int

    def describe(self) -> str:
        return yaml.safe_dump({"nodes": self.nodes, "local": self.local, "choice": self.choice, "seed": self.seed, "items": self.items}, sort_keys=False)


def _claim_identity(kinds: list[str], shares: list[int | None], j: int) -> str | None:
    if kinds[j] == "vct":
        return f"vct:{j}"
    if kinds[j] == "pvc":
        return f"pvc:{shares[j] if shares[j] is not None else j}"
    return None


@st.composite
def standalone_taskruns(draw: Any, single_claim: bool, name: str, namespace: str = NAMESPACE) -> dict[str, Any]:
    """A TaskRun of its own: one to three workspaces; in ``workspaces`` mode at most one claim
    (Tekton fails a TaskRun with two there)."""
    version = draw(st.sampled_from(["v1", "v1beta1"]))
    kinds = draw(st.lists(st.sampled_from(WS_KINDS), min_size=1, max_size=3))
    if single_claim:
        first = next((j for j, k in enumerate(kinds) if k != "emptyDir"), None)
        kinds = [k for j, k in enumerate(kinds) if k == "emptyDir" or j == first]
    bindings = []
    for j, kind in enumerate(kinds):
        b: dict[str, Any] = {"name": f"w{j}"}
        if kind == "vct":
            b["volumeClaimTemplate"] = {"spec": {"accessModes": [RWO], "resources": {"requests": {"storage": "1Gi"}}}}
        elif kind == "pvc":
            b["persistentVolumeClaim"] = {"claimName": f"{name}-claim-{j}"}
        else:
            b["emptyDir"] = {}
        bindings.append(b)
    spec: dict[str, Any] = {"taskRef": {"name": "step"}, "workspaces": bindings}
    tpl = draw(st.sampled_from(RUN_TEMPLATES))
    if tpl is not None:
        spec["podTemplate"] = tpl
    return {"apiVersion": f"tekton.dev/{version}", "kind": "TaskRun", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


@st.composite
def scenarios(
    draw: Any,
    mode: str,
    max_runs: int = 3,
    max_taskruns: int = 1,
    generate_name: bool = False,
    single_claim: bool | None = None,
    isolated: bool | None = None,
) -> Scenario:
    """Runs the function accepts in ``mode`` and Tekton's assistant could place.
    ``single_claim`` (default: in ``workspaces`` mode): no task binds two claims.
    ``isolated`` (default: in ``isolate-pipelinerun``): no more placeholders than nodes."""
    if single_claim is None:
        single_claim = mode == "workspaces"
    if isolated is None:
        isolated = mode == "isolate-pipelinerun"
    n_ws = draw(st.integers(1, 3))
    kinds = [draw(st.sampled_from(WS_KINDS)) for _ in range(n_ws)]
    # a pvc workspace may bind the claim of an earlier pvc workspace (tektoncd/pipeline#8003)
    shares: list[int | None] = []
    for j in range(n_ws):
        earlier = [i for i in range(j) if kinds[i] == "pvc" and shares[i] is None]
        shares.append(draw(st.sampled_from([None, *earlier])) if kinds[j] == "pvc" and earlier else None)

    def task(name: str, earlier: list[str]) -> dict[str, Any]:
        t: dict[str, Any] = {"name": name, "taskRef": {"name": "step"}}
        after = draw(st.lists(st.sampled_from(earlier), max_size=2, unique=True)) if earlier else []
        if after:
            t["runAfter"] = after
        used = draw(st.lists(st.integers(0, n_ws - 1), max_size=n_ws, unique=True))
        if single_claim:  # Tekton fails a TaskRun with two claims in workspaces mode
            first = next((_claim_identity(kinds, shares, j) for j in used if _claim_identity(kinds, shares, j)), None)
            used = [j for j in used if _claim_identity(kinds, shares, j) in (None, first)]
        # a workspace is mapped (under its own name or another), or, with an embedded taskSpec,
        # only referred to in a step: Tekton propagates it (tekton_pods.task_claims)
        how = {j: draw(st.sampled_from(["renamed", "same", "propagated"])) for j in used}
        mapped = [
            {"name": f"w{j}", "workspace": f"ws{j}"} if how[j] == "renamed" else {"name": f"ws{j}"}
            for j in used if how[j] != "propagated"
        ]
        if mapped:
            t["workspaces"] = mapped
        # a declared optional workspace the task neither maps nor refers to binds nothing
        decoys = draw(st.lists(st.sampled_from([j for j in range(n_ws) if j not in used] or [-1]), max_size=1))
        decoys = [j for j in decoys if j >= 0]
        if "propagated" in how.values() or decoys:
            del t["taskRef"]
            script = "; ".join(f"ls $(workspaces.ws{j}.path)" for j in used if how[j] == "propagated") or "true"
            t["taskSpec"] = {"steps": [{"name": "step", "image": "busybox", "script": script}]}
            if decoys:
                t["taskSpec"]["workspaces"] = [{"name": f"ws{j}", "optional": True} for j in decoys]
        return t

    n_tasks = draw(st.integers(1, 5))
    tasks: list[dict[str, Any]] = []
    for i in range(n_tasks):
        tasks.append(task(f"t{i}", [t["name"] for t in tasks]))
    finally_ = [task(f"f{i}", []) for i in range(draw(st.integers(0, 2)))]
    pipeline_spec: dict[str, Any] = {"workspaces": [{"name": f"ws{j}"} for j in range(n_ws)], "tasks": tasks}
    if finally_:
        pipeline_spec["finally"] = finally_

    items: list[dict[str, Any]] = []
    pipeline_version = draw(st.sampled_from(["v1", "v1beta1"]))
    pipeline_item = {
        "apiVersion": f"tekton.dev/{pipeline_version}", "kind": "Pipeline",
        "metadata": {"name": "build", "namespace": NAMESPACE, "labels": {"app": "build"}},
        "spec": pipeline_spec,
    }
    nodes = draw(st.integers(3, 4))
    n_taskruns = draw(st.integers(0, max_taskruns))
    if isolated:  # a placeholder each, for as long as it is in Git
        max_runs = min(max_runs, nodes - n_taskruns)
    n_runs = draw(st.integers(1, max_runs))
    # isolation is per namespace (see test_isolate_pipelinerun_across_namespaces): one namespace
    # there; elsewhere two, where runs of the same name get the same placeholder name
    namespaces = [NAMESPACE] if isolated else [NAMESPACE, OTHER_NAMESPACE]
    per_namespace: dict[str, int] = {}
    referenced: set[str] = set()
    all_tasks = [t["name"] for t in tasks + finally_]
    for _r in range(n_runs):
        ns = draw(st.sampled_from(namespaces))
        name = f"run-{per_namespace.setdefault(ns, 0)}"
        per_namespace[ns] += 1
        version = draw(st.sampled_from(["v1", "v1beta1"]))
        meta: dict[str, Any] = {"namespace": ns}
        if generate_name and draw(st.booleans()):
            meta["generateName"] = f"{name}-"
        else:
            meta["name"] = name
        if draw(st.booleans()):
            meta["labels"] = {"team": draw(st.sampled_from(["a", "b"]))}
        spec: dict[str, Any] = {}
        if draw(st.booleans()):
            spec["pipelineRef"] = {"name": "build"}
            referenced.add(ns)
        else:
            spec["pipelineSpec"] = pipeline_spec
        run_tpl = draw(st.sampled_from(RUN_TEMPLATES))
        if run_tpl is not None:
            if version == "v1":
                spec["taskRunTemplate"] = {"podTemplate": run_tpl}
            else:
                spec["podTemplate"] = run_tpl
        trs = []
        for t in draw(st.lists(st.sampled_from(all_tasks), max_size=2, unique=True)):
            entry: dict[str, Any] = {"pipelineTaskName": t}
            tpl = draw(st.sampled_from((None, *TASK_TEMPLATES)))
            if tpl is not None:
                entry["podTemplate" if version == "v1" else "taskPodTemplate"] = tpl
            if tpl is None or draw(st.booleans()):
                entry["metadata"] = {"labels": {"stage": t}}
            trs.append(entry)
        if trs:
            spec["taskRunSpecs"] = trs
        bindings = []
        for j in range(n_ws):
            b: dict[str, Any] = {"name": f"ws{j}"}
            if kinds[j] == "vct":
                vct: dict[str, Any] = {"spec": {"accessModes": [RWO], "resources": {"requests": {"storage": "1Gi"}}}}
                if draw(st.booleans()):
                    vct["metadata"] = {"name": f"data{j}"}
                b["volumeClaimTemplate"] = vct
            elif kinds[j] == "pvc":
                b["persistentVolumeClaim"] = {"claimName": f"{name}-claim-{shares[j] if shares[j] is not None else j}"}
                if draw(st.booleans()):
                    b["subPath"] = f"sub{j}"
            else:
                b["emptyDir"] = {}
            bindings.append(b)
        spec["workspaces"] = bindings
        items.append({"apiVersion": f"tekton.dev/{version}", "kind": "PipelineRun", "metadata": meta, "spec": spec})
    for r in range(n_taskruns):
        items.append(draw(standalone_taskruns(single_claim, f"tr-{r}", draw(st.sampled_from(namespaces)))))
    for ns in sorted(referenced, reverse=True):
        items.insert(0, {**copy.deepcopy(pipeline_item), "metadata": {**pipeline_item["metadata"], "namespace": ns}})
    return Scenario(
        items=items,
        nodes=nodes,
        local=draw(st.booleans()),
        choice=draw(st.sampled_from(["score", "any"])),
        seed=draw(st.integers(0, 2**16)),
    )


# --- the simulation ----------------------------------------------------------------------


@dataclasses.dataclass
class SimResult:
    rwo: list[str]  # ReadWriteOnce claims used on two nodes at once (and Multi-Attach binds)
    shared: list[str]  # nodes with live pods of two runs at once
    unschedulable: list[str]  # pods left pending when nothing else could happen
    log: list[str]

    def trace(self, last: int = 60) -> str:
        return "\n".join(self.log[-last:])


@dataclasses.dataclass
class _Run:
    item: dict[str, Any]
    pods: dict[str, Pod]
    after: dict[str, set[str]]
    finally_: set[str]
    applied: bool = False
    created: dict[str, Pod] = dataclasses.field(default_factory=dict)
    done: set[str] = dataclasses.field(default_factory=set)

    @property
    def finished(self) -> bool:
        return self.applied and len(self.done) == len(self.pods)

    def ready(self) -> list[str]:
        if not self.applied:
            return []
        dag_done = all(t in self.done for t in self.after)
        out = []
        for t in self.pods:
            if t in self.created:
                continue
            if t in self.finally_:
                if dag_done:
                    out.append(t)
            elif self.after[t] <= self.done:
                out.append(t)
        return out


def _instantiate(run: dict[str, Any], index: int) -> dict[str, Any]:
    """The run as the API server stores it: a generateName gets its random suffix."""
    meta = run["metadata"]
    if meta.get("name"):
        return run
    run = {**run, "metadata": {**meta, "name": meta["generateName"] + h10(f"{index}")[:5]}}
    return run


def _group_of(item: dict[str, Any]) -> str:
    return run_group(item["kind"], namespace_of(item), item["metadata"]["name"])


Pick = Callable[[list[str]], int]
"""Chooses the next step: given the descriptions of the possible steps ("apply run-0",
"apply ci/PipelineRun/run-0", "create affinity-assistant-x-0 (ci/PipelineRun/run-0)", "start
ci/PipelineRun/run-0:t1", "finish ci/PipelineRun/run-0:t1", "prune affinity-assistant-x-0
(ci/PipelineRun/run-0)"), the index of the one to take."""


def simulate(
    rendered: list[dict[str, Any]],
    *,
    nodes: int = 3,
    local: bool = False,
    choice: str = "score",
    seed: int = 0,
    pick: Pick | None = None,
    strategy: Strategy = PLACEHOLDER,
    isolate: bool = False,
    existing: tuple[tuple[Pod, str], ...] = (),
    node_labels: list[dict[str, str]] | None = None,
    max_steps: int = 400,
) -> SimResult:
    """Play the rendered runs on a cluster; ``pick`` chooses each next step (default: at random
    from ``seed``). ``existing``: other pods already running, each on the node given.
    ``node_labels``: one dict per node (default: ``nodes`` nodes labelled ``pool: ci``)."""
    if pick is None:
        rng = random.Random(seed)
        pick = lambda steps: rng.randrange(len(steps))  # noqa: E731
    cluster = Cluster(
        [Node(f"node-{i}", labels) for i, labels in enumerate(node_labels or [{"pool": "ci"}] * nodes)],
        choice=choice, rng=random.Random(seed), match_label_keys=strategy.match_label_keys,
    )
    runs: list[_Run] = []
    placeholders = [placeholder_pod(it, local) for it in rendered if is_placeholder(it)]
    for i, item in enumerate(it for it in rendered if it.get("kind") in ("PipelineRun", "TaskRun")):
        item = _instantiate(item, i)
        if item["kind"] == "TaskRun":
            pod = standalone_taskrun_pod(item)
            if not any(p.group == pod.group for p, _c in placeholders):
                pod.group = None  # not coscheduled: no isolation either (Tekton: none for TaskRuns)
            runs.append(_Run(item, {"": pod}, {"": set()}, set()))
            continue
        spec, _meta = pipeline_of(item, rendered)
        pods = taskrun_pods(item, rendered)
        after = {t["name"]: set(t.get("runAfter") or []) for t in spec.get("tasks") or []}
        runs.append(_Run(item, pods, after, {t["name"] for t in spec.get("finally") or []}))
    made_by_sts = {(c.namespace, c.name) for _p, created in placeholders for c in created}
    # the users' own claims exist before anything runs
    for run in runs:
        for b in run.item["spec"].get("workspaces") or []:
            claim = (b.get("persistentVolumeClaim") or {}).get("claimName")
            if claim and (namespace_of(run.item), claim) not in made_by_sts:
                cluster.create_claim(Claim(claim, namespace_of(run.item), (RWO,), local))
    for pod, node in existing:
        placed = cluster.create_pod(dataclasses.replace(pod, node_selector={"kubernetes.io/hostname": node}))
        cluster.schedule(placed)
    sts_created: set[int] = set()
    sts_deleted: set[int] = set()
    rwo: list[str] = []
    shared: list[str] = []

    def check() -> None:
        for v in cluster.rwo_violations():
            if v not in rwo:
                rwo.append(v)
        for v in cluster.violations:
            if v.message not in rwo:
                rwo.append(v.message)
        if isolate:
            for v in cluster.shared_nodes():
                if v not in shared:
                    shared.append(v)

    for _step in range(max_steps):
        actions: list[tuple[str, Any, Any]] = []
        actions += [("apply", r, None) for r in runs if not r.applied]
        actions += [("sts", i, None) for i in range(len(placeholders)) if i not in sts_created]
        for r in runs:
            actions += [("start", r, t) for t in r.ready()]
            actions += [("finish", r, t) for t, p in r.created.items() if t not in r.done and p.live]
        if strategy.placeholder_lifetime == "run":
            for i, (p, _c) in enumerate(placeholders):
                if i in sts_created and i not in sts_deleted and all(r.finished for r in runs if _group_of(r.item) == p.group):
                    actions.append(("prune", i, None))
        if not actions:
            break
        kind, a, b = actions[pick([_describe(x, placeholders) for x in actions])]
        if kind == "apply":
            a.applied = True
            cluster.log.append(f"apply PipelineRun {a.item['metadata']['name']}")
            for claim in tekton_claims(a.item, local=local):
                cluster.create_claim(claim)
        elif kind == "sts":
            pod, created = placeholders[a]
            for claim in created:
                cluster.create_claim(claim)
            placeholders[a] = (cluster.create_pod(pod), created)
            sts_created.add(a)
        elif kind == "start":
            a.created[b] = cluster.create_pod(a.pods[b])
        elif kind == "finish":
            cluster.finish_pod(a.created[b])
            a.done.add(b)
        elif kind == "prune":
            pod, created = placeholders[a]
            cluster.delete_pod(pod)
            for claim in created:
                cluster.delete_claim(claim.namespace, claim.name)
            sts_deleted.add(a)
        cluster.schedule_pending()
        check()
    else:
        raise AssertionError(f"no end after {max_steps} steps")

    stuck = []
    for p in cluster.pending():
        reasons = sorted({f"{n}: {cluster.why_not(p, n)}" for n in cluster.nodes})
        stuck.append(f"{p.namespace}/{p.name} ({'; '.join(reasons)})")
    return SimResult(rwo, shared, stuck, cluster.log)


def _describe(action: tuple[str, Any, Any], placeholders: list[tuple[Pod, list[Claim]]]) -> str:
    kind, a, b = action
    if kind in ("sts", "prune"):
        pod = placeholders[a][0]
        return f"{'create' if kind == 'sts' else 'prune'} {pod.name} ({pod.group})"
    group = _group_of(a.item)
    return f"apply {group}" if kind == "apply" else f"{kind} {group}:{b}"


_STEP_ORDER = ("create", "apply", "start", "finish", "prune")


def one_run_after_another(steps: list[str]) -> int:
    """A ``Pick``: run-0 from start to end, then run-1, ...: runs that never overlap."""

    def key(i: int) -> tuple[str, int, int]:
        kind, rest = steps[i].split(" ", 1)
        run = rest[rest.index("(") + 1:-1] if kind in ("create", "prune") else rest.split(":")[0]
        return run, _STEP_ORDER.index(kind), i

    return min(range(len(steps)), key=key)


def run_scenario(scenario: Scenario, mode: str, strategy: Strategy, pick: Pick | None = None) -> tuple[Rendered, SimResult | None]:
    """Render the scenario's items; simulate when the function accepted them."""
    rendered = render_items(scenario.items, strategy.policy_spec(mode))
    if rendered.errors:
        return rendered, None
    return rendered, simulate(
        rendered.items, nodes=scenario.nodes, local=scenario.local, choice=scenario.choice, seed=scenario.seed,
        pick=pick, strategy=strategy, isolate=(mode == "isolate-pipelinerun"),
    )
