"""Tekton PipelineRun / TaskRun coscheduling (TEP-0135) at render time. SPEC §4.

Per run: defaults (defaultPodTemplate, fill-unset) -> scheduling policy -> assistant.
The assistant step renders what Tekton's controller would do with the same `coschedule`
mode, with names that do not need the run's UID: placeholder StatefulSets, claim templates
moved out of `volumeClaimTemplate` bindings, and the pinning podAffinity term.

Idempotence: after the first render a moved binding is a `persistentVolumeClaim` that
names `<template>-<assistant>-0`, and the claim spec lives only in the generated
StatefulSet; `bindings_of` recognises such claims and takes their templates back from it.
"""
from __future__ import annotations

from krm_fn.core.data import copy_data
from krm_fn.core.errors import FieldError
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.policy.scheduler import flush_waits
from krm_fn.transforms import scheduling
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Plan
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.transforms.tekton import checks
from krm_fn.transforms.tekton import names
from krm_fn.transforms.tekton import runkeyed
from krm_fn.transforms.tekton import workspaces
from krm_fn.transforms.tekton.bindings import Binding
from krm_fn.transforms.tekton.bindings import Group
from krm_fn.transforms.tekton.bindings import assistant_volumes
from krm_fn.transforms.tekton.bindings import bindings_of
from krm_fn.transforms.tekton.bindings import plain_bindings
from krm_fn.transforms.tekton.bindings import unrender
from krm_fn.transforms.tekton.run import Run
from krm_fn.transforms.tekton.run import add_task_entries
from krm_fn.transforms.tekton.run import pin
from krm_fn.transforms.tekton.run import plain_affinity
from krm_fn.transforms.tekton.run import task_template
from krm_fn.transforms.tekton.run import unpin_run_level
from krm_fn.transforms.tekton.run import unpin_task
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

PER_RUN_MODES = ("pipelineruns", "isolate-pipelinerun")
TEKTON_MULTI_PVC = "more than one PersistentVolumeClaim is bound"


# --------------------------------------------------------------------------- entry points


def handle_pipelinerun(item: Item, ctx: Context) -> None:
    """Rewrite one PipelineRun in place (item.node) and generate its assistants."""
    _handle(item, ctx)


def handle_taskrun(item: Item, ctx: Context) -> None:
    """Rewrite one standalone TaskRun in place."""
    _handle(item, ctx)


def handle_template(item: Item, ctx: Context, node: Any, meta: Meta) -> None:
    """Rewrite a run template inside another object (a TriggerTemplate's resourcetemplates
    entry) in place; `ctx` is scoped to its path. It has no name yet: run-keyed or an error."""
    _handle(item, ctx, node, meta)


def _handle(item: Item, ctx: Context, node: Any = None, meta: Meta | None = None) -> None:
    try:
        run = Run(item, ctx, node, meta, template=node is not None)
        if not checks.valid(run):
            return
        mark = len(ctx.results)
        _apply_defaults(run)
        _apply_scheduling(run)
        if any(r.severity == "error" for r in ctx.results[mark:]):
            return  # a pod template the policy could not apply to: the assistant would copy it
        plans = len(ctx.plans)
        _coschedule(run)
        checks.warn_unplaceable(run)
        checks.warn_auto_cleanup(run, (meta or item.meta).annotations, ctx.plans[plans:])
        run.drop_empty_parent()
    except FieldError as e:
        ctx.error(item, e.path, f"{e}; fix the manifest (Tekton would reject it too)")


# --------------------------------------------------------------------------- defaults, policy


def _apply_defaults(run: Run) -> None:
    """Tekton's default-pod-template: a field the run's template leaves unset is taken whole."""
    default = run.ctx.policy.default_pod_template
    if not default:
        return
    tpl = run.template(create=True)
    for key, value in default.items():
        if tpl.get(key) in (None, ""):
            if key in tpl:
                tpl[key] = run.doc.safe(copy_data(value))
            else:
                run.doc.add_key(tpl, key, run.doc.safe(copy_data(value)))


def _apply_scheduling(run: Run) -> None:
    # Tekton replaces pod template fields one by one (MergePodTemplateWithDefault): a task
    # whose template sets affinity but not nodeSelector gets the run-level nodeSelector beside
    # its own nodeAffinity, and one that sets nodeSelector but not affinity the other way round
    trs = run.trs_templates()
    parent = run.tpl_parent(create=True)
    scheduling.constrain_pod_template(
        run.item, run.ctx, parent, "podTemplate", run.tpl_path,
        node_affinity_from=[(p, t) for p, t in trs if t.get("affinity") is not None and t.get("nodeSelector") is None],
    )
    run_level = [(run.tpl_path, run.template())]
    for i, entry in run.task_run_specs():
        tpl = entry.get(run.trs_key)
        scheduling.constrain_pod_template(
            run.item, run.ctx, entry, run.trs_key, f"spec.taskRunSpecs[{i}].{run.trs_key}", only_set_fields=True,
            node_affinity_from=run_level if isinstance(tpl, dict) and tpl.get("affinity") is None else [],
        )


# --------------------------------------------------------------------------- coscheduling


def _coschedule(run: Run) -> None:
    mode = run.ctx.policy.mode
    if not checks.no_foreign_pins(run):
        return
    strategy = _strategy(run)
    if strategy != "run-keyed":
        runkeyed.undo(run)
    if strategy is None:
        return
    if strategy == "run-keyed":
        _run_keyed(run, mode)
        return
    own = run.own_assistants()
    bindings = bindings_of(run, own)
    if bindings is None:
        return  # an error was reported
    if mode == "disabled":
        unrender(run, bindings, own)
    elif run.kind == "TaskRun":
        _taskrun(run, bindings, own, mode)
    elif mode in PER_RUN_MODES:
        _per_run(run, bindings, own, names.assistant_name("", run.name), ["*"])
    else:
        _per_workspace(run, bindings, own)


def _strategy(run: Run) -> str | None:
    """placeholder or run-keyed for this run (SPEC §4b); None when it gets neither (a run
    without a name under disabled, or one the policy cannot coschedule: reported here)."""
    p = run.ctx.policy
    if not run.nameless:
        return "run-keyed" if p.strategy == "run-keyed" and p.mode != "disabled" else "placeholder"
    if p.mode == "disabled" or not _needs_coscheduling(run):
        return None
    if p.strategy == "placeholder":
        if run.kind == "TaskRun" and p.mode == "workspaces" and not run.template_run and not run.pac:
            _multi_claim_error(run, bindings_of(run, frozenset()) or [])
        else:
            runkeyed.no_placeholder(run)
        return None
    if not p.run_keyed_ok:
        runkeyed.too_old(run)
        return None
    return "run-keyed"


def _needs_coscheduling(run: Run) -> bool:
    """A run without a name: would coscheduling write anything for it? (Per-run modes: every
    PipelineRun; workspaces mode: one with a PVC-backed workspace; a TaskRun: several claims.)"""
    bindings = bindings_of(run, frozenset(), quiet=True)
    if run.kind == "TaskRun":
        return bindings is not None and len({b.key for b in bindings}) > 1
    return run.ctx.policy.mode in PER_RUN_MODES or bindings is None or bool(bindings)


def _run_keyed(run: Run, mode: str) -> None:
    """Render the run with run-keyed affinity (SPEC §4b); an earlier placeholder render is
    undone first (its claims go back into volumeClaimTemplates)."""
    own = run.own_assistants() if run.name else frozenset()
    bindings = bindings_of(run, own)
    if bindings is None:
        return
    if run.kind == "TaskRun":
        if mode == "workspaces" and len({b.key for b in bindings}) > 1:
            _multi_claim_error(run, bindings)
            return
        # one pod: its volumes are bound where it runs; nothing to write (SPEC §4b)
        unrender(run, bindings, own, "the run-keyed strategy leaves claims to Tekton")
        runkeyed.undo(run)
        return
    unrender(run, bindings, own, "the run-keyed strategy leaves claims to Tekton")
    if mode in PER_RUN_MODES:
        runkeyed.per_run(run, mode)
        checks.warn_claims_bound_apart(
            run, sorted({b.claim if b.kind == "pvc" else f"volumeClaimTemplate of {b.name}" for b in bindings})
        )
        runkeyed.record(run, [(["*"], plain_bindings(bindings))])
        return
    if not bindings:
        runkeyed.undo(run)
        return
    found = _task_groups(run, bindings)
    if found is None:
        return
    groups, pinned = found
    by_assistant = {g.assistant: g for g in groups.values()}
    runkeyed.per_workspace(run, {task: by_assistant[aa].tasks for task, aa in pinned.items()})
    runkeyed.record(run, [(g.tasks, plain_bindings(g.bindings)) for g in groups.values()])


def _taskrun(run: Run, bindings: list[Binding], own: frozenset[str], mode: str) -> None:
    distinct = {b.key for b in bindings}
    if len(distinct) <= 1:
        unrender(run, bindings, own)
        return
    if mode == "workspaces":
        _multi_claim_error(run, bindings)
        return
    # beyond Tekton, which never gives a standalone TaskRun an assistant: with several
    # claims the volumes must land on one node (SPEC §4)
    run.ctx.info(
        run.item,
        "spec.workspaces",
        f"binds {len(distinct)} claims; under coschedule {mode} this standalone TaskRun gets its "
        "own assistant so they land on one node (Tekton gives standalone TaskRuns none)",
    )
    _per_run(run, bindings, own, names.taskrun_assistant_name(run.name), ["*"])


def _per_run(run: Run, bindings: list[Binding], own: frozenset[str], aa: str, tasks: list[str]) -> None:
    group = Group(aa, bindings, tasks)
    templates, claims = assistant_volumes(run, group)
    scheduling.assistant_node_selector(run.ctx, run.item, run.template(), run.tpl_path)
    # pin every TaskRun pod: the run-level template, and each taskRunSpecs template that
    # sets its own affinity (Tekton lets it replace the run-level field)
    pin(run.doc, run.template(create=True), aa, own, f"{run.tpl_path}.affinity")
    # a task affinity that only repeats the run-level one (a copy workspaces mode made) adds
    # nothing here: drop it, so a mode switch ends where a direct render does
    for i, _t in reversed(run.task_run_specs()):
        unpin_task(run, i, own, same_as=plain_affinity(run.template(), own))
    for path, tpl in run.trs_templates():
        if tpl.get("affinity") is not None:
            pin(run.doc, tpl, aa, own, f"{path}.affinity")
        checks.check_placement(run, path, tpl, aa, checks.task_of(run, path))
    _emit_assistant(run, group, templates, claims, isolate=run.ctx.policy.mode == "isolate-pipelinerun")
    _record_plan(run, [(group, templates, claims)])


def _per_workspace(run: Run, bindings: list[Binding], own: frozenset[str]) -> None:
    # the run-level template pins nothing in this mode: only the tasks that use a claim
    unpin_run_level(run, own)
    if not bindings:
        for i, _t in reversed(run.task_run_specs()):
            unpin_task(run, i, own)
        return
    found = _task_groups(run, bindings)
    if found is None:
        return
    groups, pinned = found
    # before the pinned tasks copy the run-level affinity (an override edits it)
    scheduling.assistant_node_selector(run.ctx, run.item, run.template(), run.tpl_path)
    _pin_tasks(run, pinned, own)
    plan = []
    base = _assistant_base(run)  # the claims the assistants take over change nothing it holds
    for g in groups.values():
        templates, claims = assistant_volumes(run, g)
        _emit_assistant(run, g, templates, claims, isolate=False, base=base)
        plan.append((g, templates, claims))
    _record_plan(run, plan)


def _task_groups(run: Run, bindings: list[Binding]) -> tuple[dict[str, Group], dict[str, str]] | None:
    """workspaces mode: the bindings grouped by claim (each group named by the assistant
    Tekton would give it) and the pipeline tasks that use each; None after an error."""
    groups: dict[str, Group] = {}
    for b in bindings:
        g = groups.setdefault(b.key, Group("", []))
        g.bindings.append(b)
    for g in groups.values():
        # workspaces sharing a claim share one assistant named after the last of them,
        # which is the one Tekton creates (#8003: the others would name a missing one)
        g.assistant = names.assistant_name(g.bindings[-1].name, run.name)
    pipeline = _pipeline_spec(run)
    if pipeline is None:
        return None
    pspec, where = pipeline
    by_ws = {b.name: groups[b.key] for b in bindings}
    substituted = workspaces.substituted(run.spec, pspec)
    pinned: dict[str, str] = {}
    ok = True
    for section, i, task, uses in checks.task_uses(run, pspec, substituted):
        used = [(ws, by_ws[ws]) for ws in uses.names if ws in by_ws]
        if not used:
            continue
        if uses.child:
            held = "; ".join(sorted({f"{_describe(g)}, assistant {g.assistant}" for _ws, g in used}))
            msg = workspaces.child_pipeline_message(task["name"], [ws for ws, _g in used], held)
            run.ctx.warning(run.item, f"{where}.{section}[{i}].workspaces", msg)
            continue
        distinct = {id(g): g for _ws, g in used}
        if len(distinct) > 1:
            _task_multi_claim(run, task["name"], f"{where}.{section}[{i}].workspaces", used)
            ok = False
            continue
        g = used[0][1]
        if task["name"] not in pinned:
            pinned[task["name"]] = g.assistant
            g.tasks.append(task["name"])
    return (groups, pinned) if ok else None


def _pin_tasks(run: Run, pinned: dict[str, str], own: frozenset[str]) -> None:
    """workspaces mode: one taskRunSpecs entry per pinned task. Its pod template's affinity
    replaces the run-level one (Tekton merges field by field), so it starts as a copy."""
    run_tpl = run.template()
    run_aff = run_tpl.get("affinity") if isinstance(run_tpl, dict) else None
    seen: set[str] = set()
    unpinned: list[int] = []
    for i, trs in run.task_run_specs():
        task = trs.get("pipelineTaskName")
        path = f"spec.taskRunSpecs[{i}].{run.trs_key}"
        aa = pinned.get(task) if isinstance(task, str) and task not in seen else None
        if isinstance(task, str):
            seen.add(task)
        if aa is None:
            unpinned.append(i)
            continue
        tpl = task_template(run, trs, path, run_aff, own)
        pin(run.doc, tpl, aa, own, f"{path}.affinity")
        checks.check_placement(run, path, tpl, aa, task)
    for i in reversed(unpinned):
        unpin_task(run, i, own)
    add_task_entries(
        run, [t for t in pinned if t not in seen], run_aff, own, lambda tpl, task: pin(run.doc, tpl, pinned[task], own, "")
    )


def _pipeline_spec(run: Run) -> tuple[dict[str, Any], str] | None:
    """(plain pipeline spec, field path prefix for results), or None after an error."""
    embedded = run.spec.get("pipelineSpec")
    if isinstance(embedded, dict):
        plain = document.plain(embedded)
        checks.check_pipeline_shape(plain, "spec.pipelineSpec")
        return plain, "spec.pipelineSpec"
    ref = run.spec.get("pipelineRef")
    name = ref.get("name") if isinstance(ref, dict) else None
    remote = isinstance(ref, dict) and (ref.get("resolver") or ref.get("bundle"))
    pipeline = checks.referenced_pipeline(run)
    plain = checks.referenced_spec(pipeline)
    if pipeline is not None and plain is not None:
        # the Pipeline's plain spec is shared by every run that names it, and checked once
        assert pipeline.doc is not None
        pipeline.doc.derived(("shape", name), lambda _node: checks.check_pipeline_shape(plain, "spec.pipelineRef", f"Pipeline {name}: spec"))
        return plain, "spec.pipelineRef"
    fix = "add the Pipeline to the package"
    if isinstance(name, str) and ("Pipeline", run.namespace, name) in run.ctx.broken:  # found, unreadable: its own error is said
        what, fix = f"Pipeline {name} (namespace {run.namespace or '<none>'}) cannot be read (its own error says why)", "fix it"
    elif isinstance(name, str) and name and not remote:
        what = f"Pipeline {name} (namespace {run.namespace or '<none>'}) is not in the input"
    else:
        what = "its pipelineRef is resolved remotely" if remote else "it has neither pipelineSpec nor pipelineRef.name"
    run.ctx.error(
        run.item,
        "spec.pipelineRef",
        f"coschedule workspaces pins only the pipeline tasks that use a PVC-backed workspace, so "
        f"it needs the Pipeline, but {what}; {fix} (or embed it as spec.pipelineSpec), or use "
        "coschedule: pipelineruns, which pins every task",
    )
    return None


def _multi_claim_error(run: Run, bindings: list[Binding]) -> None:
    claims = sorted({b.claim if b.kind == "pvc" else f"volumeClaimTemplate of {b.name}" for b in bindings})
    run.ctx.error(
        run.item,
        "spec.workspaces",
        f"binds {len(claims)} different claims ({', '.join(claims)}) under coschedule workspaces; "
        f'Tekton fails this TaskRun with "{TEKTON_MULTI_PVC}". Use coschedule: pipelineruns (or '
        "isolate-pipelinerun), or bind one claim",
    )


def _task_multi_claim(run: Run, task: str, path: str, used: list[tuple[str, Group]]) -> None:
    detail = ", ".join(f"{ws} ({_describe(g)})" for ws, g in used)
    run.ctx.error(
        run.item,
        path,
        f"pipeline task {task} uses workspaces backed by different claims: {detail}; under "
        f"coschedule workspaces each claim has its own assistant, so Tekton fails its TaskRun "
        f'with "{TEKTON_MULTI_PVC}". Use coschedule: pipelineruns (one assistant per run), or '
        "give the task one claim",
    )


def _describe(g: Group) -> str:
    b = g.bindings[0]
    return f"claim {b.claim}" if b.kind == "pvc" else "volumeClaimTemplate"


# --------------------------------------------------------------------------- output


def _emit_assistant(
    run: Run, g: Group, templates: list[dict[str, Any]], claims: list[str], isolate: bool, base: dict[str, Any] | None = None
) -> None:
    """Generate group g's assistant. `base`: _assistant_base(run), when the caller made it
    for several assistants of the run."""
    spec = assistant_mod.Spec(
        name=g.assistant, claim_templates=templates, claims=claims, isolate=isolate, **(base or _assistant_base(run))
    )
    obj = assistant_mod.statefulset(spec, run.ctx.policy)
    if checks.written_labels_valid(run, obj, _label_sources(run, spec)):
        run.ctx.generate(run.item, obj)


def _label_sources(run: Run, spec: assistant_mod.Spec) -> dict[str, tuple[str, str]]:
    """(field of the run, origin) of each label of its assistant it does not hold itself."""
    ref = spec.pipeline_ref
    field = "spec.pipelineRef.name" if ref and isinstance(ref.get("name"), str) else "spec.pipelineRef" if ref else "metadata.name"
    out = {}
    pipeline = spec.pipeline_meta or {}
    labels = pipeline.get("labels")
    for k in labels if isinstance(labels, dict) else ():
        out[str(k)] = (field, f"label {k} of Pipeline {pipeline.get('name') or ''}".rstrip())
    out[assistant_mod.PIPELINE_LABEL] = (field, field)
    out["tekton.dev/pipelineRun" if spec.owner_kind == "PipelineRun" else "tekton.dev/taskRun"] = ("metadata.name", "metadata.name")
    for k in spec.run_labels:  # the run's own label wins (Tekton copies the Pipeline's under it)
        if k != assistant_mod.PIPELINE_LABEL or ref is None:
            out.pop(k, None)
    return out


def _assistant_base(run: Run) -> dict[str, Any]:
    """What every assistant of a run takes from the run, as plain data (shared, read only,
    by the assistants of one run: made once per run)."""
    labels = (run.node.get("metadata") or {}).get("labels")
    run_labels = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
    tpl = run.template()
    ref = run.spec.get("pipelineRef") if run.kind == "PipelineRun" else None
    ref_plain = document.plain(ref) if isinstance(ref, dict) else None
    pipeline_meta = None  # the referenced Pipeline's labels and generateName, when in the input
    if ref_plain and isinstance(ref_plain.get("name"), str) and not (ref_plain.get("resolver") or ref_plain.get("bundle")):
        pipeline = run.ctx.find("tekton.dev", "Pipeline", run.namespace, ref_plain["name"])
        if pipeline is not None and pipeline.doc is not None:
            # converted once per Pipeline, shared by the assistants of its runs (read only)
            pipeline_meta = pipeline.doc.derived("plain metadata", _plain_metadata)
    return {
        "namespace": run.namespace,
        "owner_kind": run.kind,
        "owner_name": run.name,
        "run_labels": run_labels,
        "run_pod_template": document.plain(tpl) if isinstance(tpl, dict) else {},
        "run_service_account": run.service_account(),
        "own_assistants": run.own_assistants(),
        "generate_name": run.item.meta.generate_name,
        "pipeline_ref": ref_plain,
        "embedded_pipeline": run.kind == "PipelineRun" and isinstance(run.spec.get("pipelineSpec"), dict),
        "pipeline_meta": pipeline_meta,
    }


def _plain_metadata(node: Any) -> dict[str, Any] | None:
    md = node.get("metadata") if isinstance(node, dict) else None
    return document.plain(md) if isinstance(md, dict) else None


def _record_plan(run: Run, groups: list[tuple[Group, list[dict[str, Any]], list[str]]]) -> None:
    assistants = []
    for g, templates, claims in groups:
        bound: dict[str, list[str]] = {}
        user_bound: dict[str, list[str]] = {}  # existing claims: which workspaces bind them
        for b in g.bindings:
            (user_bound if b.kind == "pvc" else bound).setdefault(b.claim, []).append(b.name)
        assistants.append(
            {
                "name": g.assistant,
                "tasks": list(g.tasks),
                "claims": [
                    {
                        "template": t["metadata"]["name"],
                        "claim": names.claim_name(t["metadata"]["name"], g.assistant),
                        "bindings": bound.get(names.claim_name(t["metadata"]["name"], g.assistant), []),
                    }
                    for t in templates
                ],
                "volumes": list(claims),
                "volumeBindings": {c: user_bound.get(c, []) for c in claims},
            }
        )
    mode = run.ctx.policy.mode
    run.ctx.plans.append(Plan(run.ctx.ref(run.item), mode, assistants, scope=run.ctx.policy.scope("placeholder", mode),
        waits=flush_waits("placeholder", mode, run.ctx.policy.kubernetes_version),
        resources=run.ctx.policy.assistant_resources,
    ))
