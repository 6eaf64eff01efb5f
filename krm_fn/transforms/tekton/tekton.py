"""Tekton PipelineRun / TaskRun coscheduling (TEP-0135) at render time. SPEC §4.

Per run: defaults (defaultPodTemplate, fill-unset) -> scheduling policy -> assistant.
The assistant step renders what Tekton's controller would do with the same `coschedule`
mode, with names that do not need the run's UID: placeholder StatefulSets, claim templates
moved out of `volumeClaimTemplate` bindings, and the pinning podAffinity term.

Idempotence: after the first render a moved binding is a `persistentVolumeClaim` that
names `<template>-<assistant>-0`, and the claim spec lives only in the generated
StatefulSet; `_bindings` recognises such claims and takes their templates back from it.
"""
from __future__ import annotations

from krm_fn.core import names
from krm_fn.core.errors import FieldError
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.record import Record
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.transforms import scheduling
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Plan
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.transforms.tekton import runkeyed
from krm_fn.transforms.tekton import tekton_checks
from krm_fn.transforms.tekton import tekton_workspaces
from krm_fn.transforms.tekton.tekton_run import Run
from krm_fn.transforms.tekton.tekton_run import add_task_entries
from krm_fn.transforms.tekton.tekton_run import get_list
from krm_fn.transforms.tekton.tekton_run import get_map
from krm_fn.transforms.tekton.tekton_run import pin
from krm_fn.transforms.tekton.tekton_run import plain_affinity
from krm_fn.transforms.tekton.tekton_run import task_template
from krm_fn.transforms.tekton.tekton_run import unpin_run_level
from krm_fn.transforms.tekton.tekton_run import unpin_task
from krm_fn.yaml import yamlio
from krm_fn.yaml.yamlio import copy_data

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

PER_RUN_MODES = ("pipelineruns", "isolate-pipelinerun")
TEKTON_MULTI_PVC = "more than one PersistentVolumeClaim is bound"


class _Binding(Record):
    """One PVC-backed entry of spec.workspaces."""

    __slots__ = ("index", "name", "node", "kind", "claim", "template", "source")

    def __init__(
        self,
        index: int,
        name: str,
        node: Any,
        kind: str,
        claim: str = "",
        template: dict[str, Any] | None = None,
        source: str = "",
    ) -> None:
        self.index = index
        self.name = name
        self.node = node  # the round-trip map of the binding
        self.kind = kind  # "pvc" (a user claim), "vct" (volumeClaimTemplate), "ours" (a claim we made)
        self.claim = claim  # pvc / ours: the claimName
        self.template = template  # vct / ours: plain claim template
        self.source = source  # ours: the assistant whose StatefulSet holds the template

    @property
    def key(self) -> str:
        """Tekton's "distinct claim" key: the claimName, or the binding for a template."""
        return f"claim:{self.claim}" if self.kind == "pvc" else f"template:{self.name}"

    @property
    def path(self) -> str:
        return f"spec.workspaces[{self.index}]"


class _Group(Record):
    """Bindings that share one assistant."""

    __slots__ = ("assistant", "bindings", "tasks")

    def __init__(self, assistant: str, bindings: list[_Binding], tasks: list[str] | None = None) -> None:
        self.assistant = assistant
        self.bindings = bindings
        self.tasks: list[str] = [] if tasks is None else tasks


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
        if not tekton_checks.valid(run):
            return
        mark = len(ctx.results)
        _apply_defaults(run)
        _apply_scheduling(run)
        if any(r.severity == "error" for r in ctx.results[mark:]):
            return  # a pod template the policy could not apply to: the assistant would copy it
        _coschedule(run)
        tekton_checks.warn_unplaceable(run)
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
    if not tekton_checks.no_foreign_pins(run):
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
    bindings = _bindings(run, own)
    if bindings is None:
        return  # an error was reported
    if mode == "disabled":
        _unrender(run, bindings, own)
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
            _multi_claim_error(run, _bindings(run, frozenset()) or [])
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
    bindings = _bindings(run, frozenset(), quiet=True)
    if run.kind == "TaskRun":
        return bindings is not None and len({b.key for b in bindings}) > 1
    return run.ctx.policy.mode in PER_RUN_MODES or bindings is None or bool(bindings)


def _run_keyed(run: Run, mode: str) -> None:
    """Render the run with run-keyed affinity (SPEC §4b); an earlier placeholder render is
    undone first (its claims go back into volumeClaimTemplates)."""
    own = run.own_assistants() if run.name else frozenset()
    bindings = _bindings(run, own)
    if bindings is None:
        return
    if run.kind == "TaskRun":
        if mode == "workspaces" and len({b.key for b in bindings}) > 1:
            _multi_claim_error(run, bindings)
            return
        # one pod: its volumes are bound where it runs; nothing to write (SPEC §4b)
        _unrender(run, bindings, own, "the run-keyed strategy leaves claims to Tekton")
        runkeyed.undo(run)
        return
    _unrender(run, bindings, own, "the run-keyed strategy leaves claims to Tekton")
    if mode in PER_RUN_MODES:
        runkeyed.per_run(run, mode)
        tekton_checks.warn_claims_bound_apart(
            run, sorted({b.claim if b.kind == "pvc" else f"volumeClaimTemplate of {b.name}" for b in bindings})
        )
        runkeyed.record(run, [(["*"], _plain_bindings(bindings))])
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
    runkeyed.record(run, [(g.tasks, _plain_bindings(g.bindings)) for g in groups.values()])


def _plain_bindings(bindings: list[_Binding]) -> list[tuple[str, str]]:
    """(workspace, claimName) per binding; claimName "" for a volumeClaimTemplate."""
    return [(b.name, b.claim if b.kind == "pvc" else "") for b in bindings]


def _taskrun(run: Run, bindings: list[_Binding], own: frozenset[str], mode: str) -> None:
    distinct = {b.key for b in bindings}
    if len(distinct) <= 1:
        _unrender(run, bindings, own)
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


def _per_run(run: Run, bindings: list[_Binding], own: frozenset[str], aa: str, tasks: list[str]) -> None:
    group = _Group(aa, bindings, tasks)
    templates, claims = _assistant_volumes(run, group)
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
        tekton_checks.check_placement(run, path, tpl, aa, tekton_checks.task_of(run, path))
    _emit_assistant(run, group, templates, claims, isolate=run.ctx.policy.mode == "isolate-pipelinerun")
    _record_plan(run, [(group, templates, claims)])


def _per_workspace(run: Run, bindings: list[_Binding], own: frozenset[str]) -> None:
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
        templates, claims = _assistant_volumes(run, g)
        _emit_assistant(run, g, templates, claims, isolate=False, base=base)
        plan.append((g, templates, claims))
    _record_plan(run, plan)


def _task_groups(run: Run, bindings: list[_Binding]) -> tuple[dict[str, _Group], dict[str, str]] | None:
    """workspaces mode: the bindings grouped by claim (each group named by the assistant
    Tekton would give it) and the pipeline tasks that use each; None after an error."""
    groups: dict[str, _Group] = {}
    for b in bindings:
        g = groups.setdefault(b.key, _Group("", []))
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
    substituted = tekton_workspaces.substituted(run.spec, pspec)
    pinned: dict[str, str] = {}
    ok = True
    for section, i, task, uses in tekton_checks.task_uses(run, pspec, substituted):
        used = [(ws, by_ws[ws]) for ws in uses.names if ws in by_ws]
        if not used:
            continue
        if uses.child:
            held = "; ".join(sorted({f"{_describe(g)}, assistant {g.assistant}" for _ws, g in used}))
            msg = tekton_workspaces.child_pipeline_message(task["name"], [ws for ws, _g in used], held)
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
        tekton_checks.check_placement(run, path, tpl, aa, task)
    for i in reversed(unpinned):
        unpin_task(run, i, own)
    add_task_entries(
        run, [t for t in pinned if t not in seen], run_aff, own, lambda tpl, task: pin(run.doc, tpl, pinned[task], own, "")
    )


def _unrender(run: Run, bindings: list[_Binding], own: frozenset[str], why: str = "") -> None:
    """The run is not coscheduled (disabled, or a TaskRun with one claim): undo an earlier
    render, so a mode change leaves no binding to a claim nobody creates."""
    unpin_run_level(run, own)
    for i, _t in reversed(run.task_run_specs()):
        unpin_task(run, i, own)
    fixed_keys = {"tekton.dev/pipelineRun", "tekton.dev/taskRun", names.LABEL_INSTANCE, names.LABEL_COMPONENT}
    for b in bindings:
        if b.kind != "ours" or b.template is None:
            continue
        vct = copy_data(b.template)
        md = vct.get("metadata") or {}
        labels = {k: v for k, v in (md.get("labels") or {}).items() if k not in fixed_keys}
        if labels:
            md["labels"] = labels
        else:
            md.pop("labels", None)
        _restore_template_name(md, b.name, run.name)
        if "metadata" in vct and not md:
            del vct["metadata"]
        run.doc.replace_key(b.node, "persistentVolumeClaim", "volumeClaimTemplate", run.doc.safe(vct))
        run.ctx.info(
            run.item,
            b.path,
            f"workspace {b.name} binds claim {b.claim} of assistant {b.source}, which "
            + (why or f"coschedule {run.ctx.policy.mode} does not render here")
            + "; restored its volumeClaimTemplate",
        )


def _restore_template_name(md: dict[str, Any], binding: str, run_name: str) -> None:
    """The claim template's name back as the user wrote it: `pvc-<h10>` was made from no
    name, `<name>-<h10>` from <name> (a name shortened to 63 characters stays as it is)."""
    tname = md.get("name")
    if not isinstance(tname, str):
        return
    if tname == names.claim_template_name("", binding, run_name):
        del md["name"]
        return
    suffix = "-" + names.h10(binding + run_name)
    if tname.endswith(suffix) and tname != suffix and names.claim_template_name(tname[: -len(suffix)], binding, run_name) == tname:
        md["name"] = tname[: -len(suffix)]


# --------------------------------------------------------------------------- workspaces


def _bindings(run: Run, own: frozenset[str], quiet: bool = False) -> list[_Binding] | None:
    """The PVC-backed workspace bindings, with our own earlier claims recognised (`quiet`:
    only to count them; claims of other runs are not reported)."""
    ws = get_list(run.spec, "workspaces", "spec.workspaces") or []
    out: list[_Binding] = []
    ok = True
    for i, b in enumerate(ws):
        if not isinstance(b, dict):
            continue
        name = b.get("name")
        path = f"spec.workspaces[{i}]"
        if "volumeClaimTemplate" in b and b.get("volumeClaimTemplate") is not None:
            vct = b["volumeClaimTemplate"]
            if not isinstance(vct, dict):
                raise FieldError(f"{path}.volumeClaimTemplate", "volumeClaimTemplate is not a mapping")
            out.append(_Binding(i, str(name), b, "vct", template=yamlio.to_plain(vct)))
            continue
        pvc = get_map(b, "persistentVolumeClaim", f"{path}.persistentVolumeClaim")
        if pvc is None:
            continue
        claim = pvc.get("claimName")
        if not isinstance(claim, str) or not claim:
            raise FieldError(f"{path}.persistentVolumeClaim.claimName", "claimName is missing or not a string")
        found = None if quiet else _our_claim(run, claim, own)
        if found is _MISSING:
            ok = False
        elif found is None:
            out.append(_Binding(i, str(name), b, "pvc", claim=claim))
        else:
            assert isinstance(found, tuple)
            source, template = found
            out.append(_Binding(i, str(name), b, "ours", claim=claim, template=template, source=source))
    return out if ok else None


_MISSING = object()


def _our_claim(run: Run, claim: str, own: frozenset[str]) -> object:
    """(assistant, template) when `claim` is `<template>-<assistant>-0` of one of this run's
    generated StatefulSets; None for a user claim; _MISSING after reporting an error."""
    for aa in sorted(own):
        suffix = f"-{aa}-0"
        if not claim.endswith(suffix) or len(claim) == len(suffix):
            continue
        template_name = claim[: -len(suffix)]
        for t in _existing_templates(run, aa):
            if (t.get("metadata") or {}).get("name") == template_name:
                return aa, t
        run.ctx.error(
            run.item,
            "spec.workspaces",
            f"binds claim {claim}, which the claim template {template_name} of assistant {aa} "
            f"creates, but the generated StatefulSet {aa} with that template is not in the input; "
            "put the StatefulSet back, or bind a volumeClaimTemplate again",
        )
        return _MISSING
    foreign = names.claim_assistant(claim)
    if foreign is not None:
        _foreign_claim(run, claim, foreign)
        return _MISSING
    return None


def _foreign_claim(run: Run, claim: str, aa: str) -> None:
    """A claim of the generated pattern that no assistant of this run creates: the run was
    copied from a rendered run (or renamed), and would share that run's volume."""
    sts = run.ctx.find("apps", "StatefulSet", run.namespace, aa)
    owner = sts.meta.annotations.get(OWNER_ANNOTATION) if sts is not None else None
    template = claim[: -len(f"-{aa}-0")]
    source = (
        f"the claim template {template} of StatefulSet {aa}, generated for {owner}"
        if owner
        else f"assistant {aa} (claim template {template}), which is not generated for this run"
    )
    run.ctx.error(
        run.item,
        "spec.workspaces",
        f"binds claim {claim}, made by {source}: this run looks copied or renamed from a rendered "
        "run, and would share that run's volume. Bind a volumeClaimTemplate again"
        + (f" (its spec is in {aa}'s spec.volumeClaimTemplates)" if owner else "")
        + ", or render the original run's manifest instead of a copy",
    )


def _existing_templates(run: Run, aa: str) -> list[dict[str, Any]]:
    """The claim templates of this run's assistant `aa` as the input has it (rendered
    before), or []."""
    key = ("claim templates", run.namespace, aa, run.owner)
    found = run.ctx.memo.get(key)
    if found is None:  # asked twice per assistant: the claim check, its volumes
        vcts = run.ctx.generated_field("StatefulSet", run.namespace, aa, run.owner, ("spec", "volumeClaimTemplates"))
        found = run.ctx.memo[key] = tuple(t for t in yamlio.to_plain(vcts) if isinstance(t, dict)) if isinstance(vcts, list) else ()
    return list(found)  # the templates are shared: copy one to change it


def _assistant_volumes(run: Run, group: _Group) -> tuple[list[dict[str, Any]], list[str]]:
    """Claim templates (kept from the existing StatefulSet, then new ones) and user claims;
    rewrites each template binding to the claim the StatefulSet creates."""
    aa = group.assistant
    label_key = "tekton.dev/pipelineRun" if run.kind == "PipelineRun" else "tekton.dev/taskRun"
    fixed = names.fixed_labels(label_key, run.name, aa)
    templates = _existing_templates(run, aa)
    have = {t["metadata"].get("name") for t in templates if isinstance(t.get("metadata"), dict)}
    claims: list[str] = []
    for b in group.bindings:
        if b.kind == "pvc":
            if b.claim not in claims:
                claims.append(b.claim)
            continue
        assert b.template is not None
        if b.kind == "vct":
            template = _template_from_vct(b.template, b.name, run.name, fixed)
        else:
            # b.template is shared (_existing_templates): new mappings where this one differs
            md = {**b.template["metadata"]}
            md["labels"] = {**(md.get("labels") or {}), **fixed}
            template = {**b.template, "metadata": md}
        tname = template["metadata"]["name"]
        if tname not in have:
            templates.append(template)
            have.add(tname)
        claim = names.claim_name(tname, aa)
        if b.kind == "vct":
            run.doc.replace_key(b.node, "volumeClaimTemplate", "persistentVolumeClaim", run.doc.safe({"claimName": claim}))
            run.ctx.info(
                run.item,
                f"{b.path}.volumeClaimTemplate",
                f"workspace {b.name}: volumeClaimTemplate moved into StatefulSet {aa} as claim "
                f"template {tname}; the workspace now binds claim {claim}",
            )
        elif b.claim != claim:
            pvc = b.node["persistentVolumeClaim"]
            pvc["claimName"] = claim
        b.claim = claim
    return templates, claims


def _template_from_vct(vct: dict[str, Any], binding: str, run_name: str, fixed: dict[str, str]) -> dict[str, Any]:
    """The user's claim (spec, and the metadata labels and annotations, as Tekton copies
    them) under the sanitised template name, with the three fixed labels on top."""
    raw = vct.get("metadata")
    md: dict[str, Any] = raw if isinstance(raw, dict) else {}
    vname = md["name"] if isinstance(md.get("name"), str) else ""
    out_md: dict[str, Any] = {"name": names.claim_template_name(vname, binding, run_name)}
    out_md["labels"] = {**(md.get("labels") or {}), **fixed}
    if md.get("annotations"):
        out_md["annotations"] = dict(md["annotations"])
    return {"metadata": out_md, "spec": copy_data(vct.get("spec") or {})}  # plain already


def _pipeline_spec(run: Run) -> tuple[dict[str, Any], str] | None:
    """(plain pipeline spec, field path prefix for results), or None after an error."""
    embedded = run.spec.get("pipelineSpec")
    if isinstance(embedded, dict):
        plain = yamlio.to_plain(embedded)
        tekton_checks.check_pipeline_shape(plain, "spec.pipelineSpec")
        return plain, "spec.pipelineSpec"
    ref = run.spec.get("pipelineRef")
    name = ref.get("name") if isinstance(ref, dict) else None
    remote = isinstance(ref, dict) and (ref.get("resolver") or ref.get("bundle"))
    pipeline = tekton_checks.referenced_pipeline(run)
    plain = tekton_checks.referenced_spec(pipeline)
    if pipeline is not None and plain is not None:
        # the Pipeline's plain spec is shared by every run that names it, and checked once
        assert pipeline.doc is not None
        pipeline.doc.derived(("shape", name), lambda _node: tekton_checks.check_pipeline_shape(plain, "spec.pipelineRef", f"Pipeline {name}: spec"))
        return plain, "spec.pipelineRef"
    what = (
        f"Pipeline {name} (namespace {run.namespace or '<none>'}) is not in the input"
        if isinstance(name, str) and name and not remote
        else "its pipelineRef is resolved remotely"
        if remote
        else "it has neither pipelineSpec nor pipelineRef.name"
    )
    run.ctx.error(
        run.item,
        "spec.pipelineRef",
        f"coschedule workspaces pins only the pipeline tasks that use a PVC-backed workspace, so "
        f"it needs the Pipeline, but {what}; add the Pipeline to the package (or embed it as "
        "spec.pipelineSpec), or use coschedule: pipelineruns, which pins every task",
    )
    return None


def _multi_claim_error(run: Run, bindings: list[_Binding]) -> None:
    claims = sorted({b.claim if b.kind == "pvc" else f"volumeClaimTemplate of {b.name}" for b in bindings})
    run.ctx.error(
        run.item,
        "spec.workspaces",
        f"binds {len(claims)} different claims ({', '.join(claims)}) under coschedule workspaces; "
        f'Tekton fails this TaskRun with "{TEKTON_MULTI_PVC}". Use coschedule: pipelineruns (or '
        "isolate-pipelinerun), or bind one claim",
    )


def _task_multi_claim(run: Run, task: str, path: str, used: list[tuple[str, _Group]]) -> None:
    detail = ", ".join(f"{ws} ({_describe(g)})" for ws, g in used)
    run.ctx.error(
        run.item,
        path,
        f"pipeline task {task} uses workspaces backed by different claims: {detail}; under "
        f"coschedule workspaces each claim has its own assistant, so Tekton fails its TaskRun "
        f'with "{TEKTON_MULTI_PVC}". Use coschedule: pipelineruns (one assistant per run), or '
        "give the task one claim",
    )


def _describe(g: _Group) -> str:
    b = g.bindings[0]
    return f"claim {b.claim}" if b.kind == "pvc" else "volumeClaimTemplate"


# --------------------------------------------------------------------------- output


def _emit_assistant(
    run: Run, g: _Group, templates: list[dict[str, Any]], claims: list[str], isolate: bool, base: dict[str, Any] | None = None
) -> None:
    """Generate group g's assistant. `base`: _assistant_base(run), when the caller made it
    for several assistants of the run."""
    spec = assistant_mod.Spec(
        name=g.assistant, claim_templates=templates, claims=claims, isolate=isolate, **(base or _assistant_base(run))
    )
    run.ctx.generate(run.item, assistant_mod.statefulset(spec, run.ctx.policy))


def _assistant_base(run: Run) -> dict[str, Any]:
    """What every assistant of a run takes from the run, as plain data (shared, read only,
    by the assistants of one run: made once per run)."""
    labels = (run.node.get("metadata") or {}).get("labels")
    run_labels = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
    tpl = run.template()
    ref = run.spec.get("pipelineRef") if run.kind == "PipelineRun" else None
    ref_plain = yamlio.to_plain(ref) if isinstance(ref, dict) else None
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
        "run_pod_template": yamlio.to_plain(tpl) if isinstance(tpl, dict) else {},
        "run_service_account": run.service_account(),
        "own_assistants": run.own_assistants(),
        "generate_name": run.item.meta.generate_name,
        "pipeline_ref": ref_plain,
        "embedded_pipeline": run.kind == "PipelineRun" and isinstance(run.spec.get("pipelineSpec"), dict),
        "pipeline_meta": pipeline_meta,
    }


def _plain_metadata(node: Any) -> dict[str, Any] | None:
    md = node.get("metadata") if isinstance(node, dict) else None
    return yamlio.to_plain(md) if isinstance(md, dict) else None


def _record_plan(run: Run, groups: list[tuple[_Group, list[dict[str, Any]], list[str]]]) -> None:
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
    run.ctx.plans.append(Plan(run.ctx.ref(run.item), run.ctx.policy.mode, assistants))


