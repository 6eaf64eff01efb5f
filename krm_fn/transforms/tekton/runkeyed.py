"""The run-keyed strategy (SPEC §4b): coscheduling written as pod affinity that Kubernetes
resolves per run, for runs that have no name at render time (generateName, TriggerTemplate
templates, Pipelines-as-Code runs) or wherever the policy asks for it.

Nothing is generated. The run gets the label `krm-coschedule.dev/coschedule: <mode>`, which
Tekton propagates to its TaskRuns and pods, and its pod templates get a required podAffinity
term selecting pods that carry that label, with `matchLabelKeys: [<Tekton's run label>]`: at
pod creation the API server adds `<key> in (<the pod's own value>)`, so the term selects the
pods of the same run, whatever name or UID the run gets later (KEP-3633, Kubernetes 1.31+).

- per-run modes: the term goes where the placeholder pin goes (run-level template, and each
  taskRunSpecs template that sets its own affinity); `isolate-pipelinerun` adds a required
  podAntiAffinity term against the pods of every other run-keyed run in any namespace
  (`mismatchLabelKeys`) and one against placeholders (runs of the other strategy),
  `pipelineruns` the same as a preferred term (weight 100, the run's
  namespace only);
- `workspaces` mode: the tasks that use one claim form a group; each of them gets, through
  its taskRunSpecs entry, a term selecting the pods of its group (`tekton.dev/pipelineTask in
  (...)`) of the same run.

The claim template stays in the run (Tekton creates the claim where the first pod lands and
deletes it with the run). `undo` removes all of it again (a strategy or mode switch), never a
user's term or label.
"""
from __future__ import annotations

from krm_fn.transforms.context import Plan
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.transforms.tekton import names
from krm_fn.transforms.tekton.run import REQUIRED
from krm_fn.transforms.tekton.run import Run
from krm_fn.transforms.tekton.run import add_task_entries
from krm_fn.transforms.tekton.run import get_list
from krm_fn.transforms.tekton.run import get_map
from krm_fn.transforms.tekton.run import plain_affinity
from krm_fn.transforms.tekton.run import set_key
from krm_fn.transforms.tekton.run import task_template
from krm_fn.transforms.tekton.run import unpin
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_PER_RUN = ("pipelineruns", "isolate-pipelinerun")
# (affinity section, field) a run-keyed term can be in
_SLOTS = (("podAffinity", REQUIRED), ("podAntiAffinity", REQUIRED), ("podAntiAffinity", PREFERRED))


# --------------------------------------------------------------------------- render


def per_run(run: Run, mode: str) -> None:
    """Per-run modes: every TaskRun pod of the run follows the run's live pods."""
    key = run.ctx.policy.run_key
    wanted: dict[tuple[str, str], list[Any]] = {
        ("podAffinity", REQUIRED): [names.run_keyed_term(key)],
        ("podAntiAffinity", REQUIRED): [],
        ("podAntiAffinity", PREFERRED): [],
    }
    if mode == "isolate-pipelinerun":
        wanted[("podAntiAffinity", REQUIRED)] = [
            names.run_keyed_anti_term(key, all_namespaces=True),
            names.assistant_repel_term(),
        ]
    else:
        wanted[("podAntiAffinity", PREFERRED)] = [{"weight": 100, "podAffinityTerm": names.run_keyed_anti_term(key, all_namespaces=False)}]
    own = _own(run)
    _sync(run, run.template(create=True), run.tpl_path, wanted, own)
    # a task template that only repeats the run-level affinity (a copy workspaces mode made)
    # adds nothing here: dropped, as the placeholder strategy does
    run_aff = plain_affinity(run.template(), own)
    for i, _t in reversed(run.task_run_specs()):
        _drop_copy(run, i, own, run_aff)
    for path, tpl in run.trs_templates():
        if tpl.get("affinity") is not None:
            _sync(run, tpl, path, wanted, own)
    _label(run, mode)


def per_workspace(run: Run, groups: dict[str, list[str]]) -> None:
    """workspaces mode: `groups` maps each pinned task to the tasks that share its claim."""
    key = run.ctx.policy.run_key
    own = _own(run)
    _clear_run_level(run, own, placeholder_too=True)
    run_tpl = run.template()
    run_aff = run_tpl.get("affinity") if isinstance(run_tpl, dict) else None
    seen: set[str] = set()
    for i, trs in reversed(run.task_run_specs()):
        task = trs.get("pipelineTaskName")
        if isinstance(task, str) and task in groups and task not in seen:
            seen.add(task)
            path = f"spec.taskRunSpecs[{i}].{run.trs_key}"
            tpl = task_template(run, trs, path, run_aff, own)
            _sync(run, tpl, path, _group_terms(key, groups[task]), own)
        else:
            _drop_copy(run, i, own, plain_affinity(run_tpl, own))
    add_task_entries(
        run, [t for t in groups if t not in seen], run_aff, own,
        lambda tpl, task: _sync(run, tpl, "", _group_terms(key, groups[task]), own),
    )
    _label(run, "workspaces")


def _group_terms(key: str, tasks: list[str]) -> dict[tuple[str, str], list[Any]]:
    return {
        ("podAffinity", REQUIRED): [names.run_keyed_term(key, tasks)],
        ("podAntiAffinity", REQUIRED): [],
        ("podAntiAffinity", PREFERRED): [],
    }


def _label(run: Run, mode: str) -> None:
    md = get_map(run.node, "metadata", "metadata")
    if md is None:
        md = run.doc.new_map()
        run.doc.add_key(run.node, "metadata", md)
    labels = get_map(md, "labels", "metadata.labels")
    if labels is None:
        set_key(run.doc, md, "labels", run.doc.safe({names.RUN_KEYED_LABEL: mode}))
    elif labels.get(names.RUN_KEYED_LABEL) != mode:
        set_key(run.doc, labels, names.RUN_KEYED_LABEL, mode)


# --------------------------------------------------------------------------- reports


def no_placeholder(run: Run) -> None:
    """strategy placeholder, and the run has no name a placeholder can be named after."""
    mode = run.ctx.policy.mode
    why = run.why_nameless()
    if not run.template_run and not run.pac:
        if run.ctx.policy.generate_name == "skip":
            run.ctx.warning(
                run.item,
                "metadata.generateName",
                f"{why}, so its placeholder name (h10 of the run name) is unknown at render time; "
                f"not coscheduled (coschedule {mode}, strategy placeholder, generateName: skip)",
            )
            return
    run.ctx.error(
        run.item,
        "metadata.generateName" if not run.template_run and not run.pac else "metadata",
        f"{why}, but strategy placeholder gives it a placeholder StatefulSet named after the run "
        "name, which is not known at render time (nothing would apply or find it); set strategy: "
        "auto or run-keyed in the policy (pod affinity resolved per run, Kubernetes 1.31+)"
        + ("" if run.template_run or run.pac else ", or set metadata.name, or generateName: skip to leave such runs uncoscheduled"),
    )


def too_old(run: Run) -> None:
    p = run.ctx.policy
    k8s = "{}.{}".format(*p.kubernetes_version)
    if not run.template_run and not run.pac and p.generate_name == "skip":
        run.ctx.warning(
            run.item,
            "metadata.generateName",
            f"{run.why_nameless()}; it could be coscheduled only with run-keyed affinity, which "
            f"Kubernetes {k8s} does not apply (kubernetesVersion); not coscheduled (generateName: skip)",
        )
        return
    run.ctx.error(
        run.item,
        "metadata",
        f"{run.why_nameless()}, so only run-keyed affinity can coschedule it (a placeholder is named "
        f"after the run), but that needs matchLabelKeys in pod affinity, which Kubernetes {k8s} "
        "(kubernetesVersion in the policy) does not apply: beta and on by default from 1.31. "
        "Set kubernetesVersion if your cluster is newer"
        + ("" if run.template_run or run.pac else ", give the run a metadata.name, or set generateName: skip"),
    )


def record(run: Run, groups: list[tuple[list[str], list[tuple[str, str]]]]) -> None:
    """One info result, and the plan `explain` shows: per group its tasks and its bindings
    (workspace, claimName; "" for a volumeClaimTemplate)."""
    key = run.ctx.policy.run_key
    run.ctx.info(
        run.item,
        run.tpl_path if run.ctx.policy.mode in _PER_RUN else "spec.taskRunSpecs",
        f"run-keyed ({run.ctx.policy.mode}): "
        + ("the TaskRun pods of this run" if run.ctx.policy.mode in _PER_RUN else "the TaskRun pods of the tasks that share a claim")
        + f" that are alive at the same time share a node (pod affinity with matchLabelKeys [{key}], "
        "resolved per run by Kubernetes 1.31+); no placeholder; volumeClaimTemplates stay for Tekton",
    )
    plan = []
    for tasks, bindings in groups:
        plan.append(
            {
                "name": "(run-keyed)",
                "tasks": list(tasks),
                "claims": [{"template": "(volumeClaimTemplate)", "claim": "(made by Tekton per run)", "bindings": [ws]} for ws, claim in bindings if not claim],
                "volumes": [claim for _ws, claim in bindings if claim],
                "volumeBindings": {claim: [ws] for ws, claim in bindings if claim},
            }
        )
    run.ctx.plans.append(Plan(run.ctx.ref(run.item), run.ctx.policy.mode, plan, strategy="run-keyed"))


# --------------------------------------------------------------------------- undo


def undo(run: Run) -> None:
    """Remove every run-keyed term and the label (the run is rendered another way now)."""
    md = run.node.get("metadata")
    labels = md.get("labels") if isinstance(md, dict) else None
    marked = isinstance(labels, dict) and names.RUN_KEYED_LABEL in labels
    own = _own(run)
    changed = _clear_run_level(run, own, placeholder_too=False)
    run_aff = plain_affinity(run.template(), own)
    for i, _t in reversed(run.task_run_specs()):
        changed = _drop_copy(run, i, own, run_aff, placeholder_too=False) or changed
    if marked:
        assert isinstance(md, dict) and isinstance(labels, dict)
        del labels[names.RUN_KEYED_LABEL]
        if not labels:
            del md["labels"]
    if changed or marked:
        run.ctx.info(
            run.item,
            "metadata.labels",
            f"run-keyed affinity removed: coschedule {run.ctx.policy.mode} renders this run "
            + ("with no coscheduling" if run.ctx.policy.mode == "disabled" else "with a placeholder"),
        )


# --------------------------------------------------------------------------- tree edits


def _own(run: Run) -> frozenset[str]:
    return run.own_assistants() if run.name else frozenset()


def _sync(
    run: Run, tpl: Any, path: str, wanted: dict[tuple[str, str], list[Any]], own: frozenset[str], placeholder_too: bool = True
) -> bool:
    """Make our terms in `tpl` exactly `wanted` (slot -> terms): ours that are not wanted
    go, wanted ones that are missing are appended; the user's terms stay where they are.
    `placeholder_too`: this run's placeholder pins go as well. An `affinity` left empty
    stays (the caller decides). True when something changed."""
    changed = bool(placeholder_too and own and unpin(tpl, set(), own, keep_affinity=True))
    aff = get_map(tpl, "affinity", f"{path}.affinity")
    if aff is None:
        if not any(wanted.values()):
            return changed
        aff = run.doc.new_map()
        set_key(run.doc, tpl, "affinity", aff)
    for (section, field), terms in wanted.items():
        where = f"{path}.affinity.{section}"
        sec = get_map(aff, section, where)
        lst = get_list(sec, field, f"{where}.{field}") if sec is not None else None
        present: list[Any] = []
        if lst is not None:
            for i in reversed(range(len(lst))):
                # is_run_keyed_term reads a round-trip tree as its plain data (`==`, `get`):
                # a copy is made only to compare with wanted terms
                if names.is_run_keyed_term(lst[i]) and (not terms or document.plain(lst[i]) not in terms):
                    del lst[i]
                    changed = True
            present = [document.plain(t) for t in lst] if terms else []
        for term in terms:
            if term in present:
                continue
            if sec is None:
                sec = run.doc.new_map()
                set_key(run.doc, aff, section, sec)
            if lst is None:
                lst = run.doc.safe([])
                set_key(run.doc, sec, field, lst)
            run.doc.append(lst, run.doc.safe(term))
            changed = True
        if lst is not None and not lst:
            del sec[field]
        if sec is not None and not sec:
            del aff[section]
    return changed


def _clear_run_level(run: Run, own: frozenset[str], placeholder_too: bool) -> bool:
    """No term of ours at run level; a template that held only them goes too."""
    tpl = run.template()
    if tpl is None:
        return False
    changed = _sync(run, tpl, run.tpl_path, _none(), own, placeholder_too)
    if changed and tpl.get("affinity") == {}:
        del tpl["affinity"]
    if changed:
        _drop_empty_run_template(run)
    return changed


def _drop_copy(run: Run, index: int, own: frozenset[str], run_aff: Any, placeholder_too: bool = True) -> bool:
    """A taskRunSpecs template we wrote: our terms go; an affinity that is then only the copy
    of the run-level one goes (but `affinity: {}` under a run-level affinity stays: it clears
    that for the task); an entry left with only its task name goes."""
    trs = run.spec["taskRunSpecs"]
    entry = trs[index]
    tpl = entry.get(run.trs_key)
    if not isinstance(tpl, dict):
        return False
    if not _sync(run, tpl, f"spec.taskRunSpecs[{index}].{run.trs_key}", _none(), own, placeholder_too):
        return False
    now = tpl.get("affinity")
    if isinstance(now, dict) and assistant_mod.prune_empty(document.plain(now)) == (run_aff or {}) and not (not now and run_aff):
        del tpl["affinity"]
    if not tpl:
        del entry[run.trs_key]
        if set(entry) <= {"pipelineTaskName"}:
            del trs[index]
            if not trs:
                del run.spec["taskRunSpecs"]
    return True


def _none() -> dict[tuple[str, str], list[Any]]:
    return {slot: [] for slot in _SLOTS}


def _drop_empty_run_template(run: Run) -> None:
    tpl = run.template()
    if tpl is not None and not tpl:
        del run.tpl_parent(False)["podTemplate"]
        if run.tpl_parent_key and not run.spec[run.tpl_parent_key]:
            del run.spec[run.tpl_parent_key]
