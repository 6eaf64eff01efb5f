"""Render-time checks of a Tekton run: what Tekton's webhook, its controller or the API
server would refuse later (names, labels, workspace bindings, the shapes of an embedded
pipeline, taskRunSpecs naming tasks the Pipeline lacks, pipeline tasks' workspace references
Tekton cannot use or required workspaces it binds nothing to), caught before anything is
generated for the run."""
from __future__ import annotations

from krm_fn.core.data import type_name
from krm_fn.core.errors import FieldError
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.policy import validation
from krm_fn.transforms.tekton import names
from krm_fn.transforms.tekton import workspaces
from krm_fn.transforms.tekton.run import REQUIRED
from krm_fn.transforms.tekton.run import Run
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from krm_fn.io.items import Item
    from krm_fn.transforms.context import Plan


def valid(run: Run) -> bool:
    """What Tekton or the API server would refuse later, caught at render time."""
    ok = True
    if not run.name and not run.generate_name:
        # the API server refuses to create an object with neither ("name or generateName is
        # required"): rendered, it failed only at apply time
        run.ctx.error(
            run.item,
            "metadata",
            "the run has neither metadata.name nor metadata.generateName; the API server refuses "
            "it (name or generateName is required): add a name, or generateName for a run created "
            "anew each time",
        )
        return False
    if len(run.name) > 63 and not _templated(run, run.name):
        # the run name becomes the tekton.dev/pipelineRun (taskRun) label value of its
        # TaskRuns, pods and assistant, and label values are at most 63 characters
        run.ctx.error(
            run.item,
            "metadata.name",
            f"the name is {len(run.name)} characters long; Tekton requires at most 63 (it becomes "
            "a label value); shorten it",
        )
        ok = False
    ok = _valid_names(run) and ok
    ok = _valid_workspaces(run) and ok
    embedded = run.spec.get("pipelineSpec")
    if isinstance(embedded, dict):
        check_pipeline_shape(embedded, "spec.pipelineSpec")  # FieldError: an error result
    ws = run.spec.get("workspaces")
    if isinstance(ws, list) and run.ctx.policy.mode != "disabled":
        for i, b in enumerate(ws):
            vct = b.get("volumeClaimTemplate") if isinstance(b, dict) else None
            if not isinstance(vct, dict):
                continue
            md = vct.get("metadata")
            for key in ("labels", "annotations"):
                value = md.get(key) if isinstance(md, dict) else None
                if value is not None and not isinstance(value, dict):
                    run.ctx.error(
                        run.item,
                        f"spec.workspaces[{i}].volumeClaimTemplate.metadata.{key}",
                        f"the volumeClaimTemplate's metadata.{key} is a {type_name(value)}; "
                        f"it must be a mapping of strings (the claim made from it carries them)",
                    )
                    ok = False
            if md is not None and not isinstance(md, dict):
                run.ctx.error(
                    run.item,
                    f"spec.workspaces[{i}].volumeClaimTemplate.metadata",
                    f"the volumeClaimTemplate's metadata is a {type_name(md)}; it must be a mapping (name, labels, annotations)",
                )
                ok = False
            spec = vct.get("spec")
            if not isinstance(spec, dict) or not spec:
                run.ctx.error(
                    run.item,
                    f"spec.workspaces[{i}].volumeClaimTemplate.spec",
                    "the volumeClaimTemplate has no spec: the claim made from it would be refused "
                    "by Kubernetes; add spec.accessModes and spec.resources.requests.storage (for "
                    "example accessModes: [ReadWriteOnce] and storage: 1Gi)",
                )
                ok = False
    if run.kind == "PipelineRun":
        ok = _check_task_run_specs(run) and ok
        ok = _check_task_workspaces(run) and ok
    return ok


def _valid_workspaces(run: Run) -> bool:
    """spec.workspaces: a list of bindings, each a mapping with a name (Tekton's webhook
    refuses anything else; the transform reads them by name)."""
    ws = run.spec.get("workspaces")
    if ws is None:
        return True
    if not isinstance(ws, list):
        run.ctx.error(run.item, "spec.workspaces", f"spec.workspaces is a {type_name(ws)}; it must be a list of workspace bindings (- name: ...)")
        return False
    for i, b in enumerate(ws):
        if not isinstance(b, dict):
            run.ctx.error(run.item, f"spec.workspaces[{i}]", f"workspace binding {i} is a {type_name(b)}; it must be a mapping with a name and a volume source")
            return False
        if not isinstance(b.get("name"), str) or not b.get("name"):
            run.ctx.error(run.item, f"spec.workspaces[{i}].name", f"workspace binding {i} has a name that is a {type_name(b.get('name'))}; every binding needs the name of a pipeline workspace (a string)")
            return False
    return True


def _valid_names(run: Run) -> bool:
    """The name, namespace and labels the API server checks (they go into the labels and
    names of the assistant, its claims and the TaskRun pods): a name that is not a DNS
    subdomain, or a label that is not a label, would be refused there, after the generated
    objects were applied."""
    ok = True
    md = run.node.get("metadata") or {}
    checks: list[tuple[str, str, list[str]]] = []
    if run.name and len(run.name) <= 63:
        checks.append(("metadata.name", run.name, validation.dns1123_subdomain_errors(run.name)))
    if run.namespace:
        checks.append(("metadata.namespace", run.namespace, _errors(validation.dns1123_label_errors, run.namespace)))
    labels = md.get("labels") if isinstance(md, dict) else None
    for k, v in (labels or {}).items() if isinstance(labels, dict) else ():
        key_errs = _errors(validation.qualified_name_errors, str(k))
        if key_errs:
            checks.append((f"metadata.labels[{k}]", str(k), ["the key: " + e for e in key_errs]))
        elif not isinstance(v, str):
            checks.append((f"metadata.labels[{k}]", str(v), [f"must be a string, not a {type_name(v)}: quote it"]))
        else:
            checks.append((f"metadata.labels[{k}]", v, _errors(validation.label_value_errors, v)))
    for path, value, errs in checks:
        if errs and not _templated(run, value):
            import json  # here and below: json costs ~1 ms to import, and only messages need it

            run.ctx.error(
                run.item,
                path,
                f"{json.dumps(value)} is not valid here: {validation.join(errs)}; the API server would "
                "refuse the run (and the objects generated for it carry it): fix the manifest",
            )
            ok = False
    return ok


# validation's answers by (check, value): namespaces and labels repeat across runs (cleared at
# 4,096)
_CHECKED: dict[tuple[Callable[[str], list[str]], str], list[str]] = {}


def _errors(check: Callable[[str], list[str]], value: str) -> list[str]:
    """check(value), once per value (the checks are functions of the string; the list is
    only read)."""
    errs = _CHECKED.get((check, value))
    if errs is None:
        errs = check(value)
        if len(_CHECKED) >= 4096:
            _CHECKED.clear()
        _CHECKED[(check, value)] = errs
    return errs


# label values validation.label_value_errors found valid (a set: a run's two placeholders
# carry ~20 label values each, most of them the same from run to run; cleared at 4,096)
_VALID_LABELS: set[str] = set()


def written_labels_valid(run: Run, obj: dict[str, Any], sources: dict[str, tuple[str, str]]) -> bool:
    """Every label value an object generated for `run` carries (its own, its pod template's,
    its claim templates'), checked as the API server checks a label value (63 characters
    at most, `[A-Za-z0-9._-]`, alphanumeric at both ends). The values come from elsewhere (a
    referenced Pipeline's name becomes `tekton.dev/pipeline`, the Pipeline's labels are
    copied): one the server would refuse is an error on the field it comes from (`sources`:
    label key -> (field path of the run, where the value comes from); default the run's own
    metadata.labels[key]), not a StatefulSet that fails at apply time after exit 0."""
    md = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    maps = [md.get("labels"), ((spec.get("template") or {}).get("metadata") or {}).get("labels")]
    maps += [(t.get("metadata") or {}).get("labels") for t in spec.get("volumeClaimTemplates") or [] if isinstance(t, dict)]
    bad: dict[str, str] = {}
    fine = _VALID_LABELS
    for labels in maps:
        for k, v in (labels or {}).items():
            if v.__class__ is str and v in fine:
                continue  # valid before (most values: the run's, the fixed ones)
            if not isinstance(v, str):
                continue
            if not _errors(validation.label_value_errors, v):
                if len(fine) >= 4096:
                    fine.clear()
                fine.add(str(v))
            elif k not in bad and not _templated(run, v):
                bad[k] = v
    for k, v in bad.items():
        import json

        field, origin = sources.get(k, (f"metadata.labels[{k}]", f"metadata.labels[{k}]"))
        message = (
            f"{json.dumps(v)} is not a valid label value: {validation.join(_errors(validation.label_value_errors, v))}; "
            f"the {obj.get('kind')} generated for this run carries it as label {k} (from {origin}), which the API "
            "server would refuse (as it would Tekton's own copy of the label on the run): give it a value of at "
            "most 63 letters, digits, '-', '_' or '.' (a Pipeline name of at most 63 characters)"
        )
        if not any(r.message == message and r.field_path == field for r in run.ctx.results):  # once per run
            run.ctx.error(run.item, field, message)
    return not bad


def _templated(run: Run, value: str) -> bool:
    """A value of a TriggerTemplate or Pipelines-as-Code run that holds a variable the
    creator substitutes (`$(tt.params.x)`, `$(uid)`, `{{ revision }}`): not checkable here."""
    return (run.template_run or run.pac) and ("$(" in value or "{{" in value)


def _check_task_run_specs(run: Run) -> bool:
    """Tekton fails a run whose taskRunSpecs name a task the Pipeline does not have:
    "pipelineRun's taskrunSpecs defined wrong taskName: %q, does not exist in Pipeline"."""
    trs = run.spec.get("taskRunSpecs")
    if not isinstance(trs, list) or not trs:
        return True
    known_pipeline = _known_pipeline(run)
    if known_pipeline is None:
        return True  # unknown here; workspaces mode reports the missing Pipeline itself
    spec = known_pipeline[0]
    known: list[Any] = []
    for key in ("tasks", "finally"):
        tasks = spec.get(key)
        if isinstance(tasks, list):
            known += [t.get("name") for t in tasks if isinstance(t, dict)]
    ok = True
    for i, entry in enumerate(trs):
        name = entry.get("pipelineTaskName") if isinstance(entry, dict) else None
        if name not in known:
            import json

            run.ctx.error(
                run.item,
                f"spec.taskRunSpecs[{i}].pipelineTaskName",
                f"pipelineRun's taskrunSpecs defined wrong taskName: {json.dumps(name)}, does not exist "
                f"in Pipeline (Tekton fails the run with this); use one of: "
                + ", ".join(str(k) for k in known),
            )
            ok = False
    return ok


def _check_task_workspaces(run: Run) -> bool:
    """What Tekton makes of each pipeline task's workspaces (workspaces) that fails
    it: a `$(workspaces...)` reference it cannot use (an error: the run stops there), a
    required workspace the task's taskSpec declares but gets nothing for (a warning: a
    cluster default binding may fill it)."""
    known_pipeline = _known_pipeline(run)
    if known_pipeline is None:
        return True
    spec, prefix, owner = known_pipeline
    who = f"{owner}: " if owner else ""
    substituted = workspaces.substituted(run.spec, spec)
    ok = True
    for key, i, task, uses in task_uses(run, spec, substituted):
        name = task["name"]
        for path, ref in uses.unreadable:
            run.ctx.error(run.item, f"{prefix}.{key}[{i}].{path}", who + workspaces.unreadable_message(name, ref))
            ok = False
        for path, ws in uses.unbound:
            run.ctx.warning(run.item, f"{prefix}.{key}[{i}].{path}", who + workspaces.unbound_message(name, ws))
    return ok


def _known_pipeline(run: Run) -> tuple[dict[str, Any], str, str] | None:
    """(pipeline spec, field path prefix for results, owner to name in messages) when the
    spec is embedded or in the input; None otherwise (no result). A referenced Pipeline's
    spec is plain data, shared by the runs that name it: not to be edited."""
    embedded = run.spec.get("pipelineSpec")
    if isinstance(embedded, dict):
        return embedded, "spec.pipelineSpec", ""
    ref = run.spec.get("pipelineRef")
    name = ref.get("name") if isinstance(ref, dict) and not (ref.get("resolver") or ref.get("bundle")) else None
    if not isinstance(name, str) or not name:
        return None
    spec = referenced_spec(referenced_pipeline(run))
    return (spec, "spec.pipelineRef", f"Pipeline {name}") if spec is not None else None


def referenced_pipeline(run: Run) -> Item | None:
    """The Pipeline the run names by pipelineRef (not a resolver or bundle), when it is in
    the input."""
    ref = run.spec.get("pipelineRef")
    if not isinstance(ref, dict) or ref.get("resolver") or ref.get("bundle"):
        return None
    name = ref.get("name")
    if not isinstance(name, str) or not name:
        return None
    return run.ctx.find("tekton.dev", "Pipeline", run.namespace, name)


def referenced_spec(pipeline: Item | None) -> dict[str, Any] | None:
    """A referenced Pipeline's spec as plain data (None when it is not a mapping), converted
    once per reading of the Pipeline and shared by every run that names it: read only."""
    if pipeline is None or pipeline.doc is None:
        return None
    return pipeline.doc.derived("plain spec", _plain_spec)


def _plain_spec(node: Any) -> dict[str, Any] | None:
    spec = node.get("spec") if isinstance(node, dict) else None
    return document.plain(spec) if isinstance(spec, dict) else None


def task_uses(run: Run, spec: Any, substituted: frozenset[str]) -> list[tuple[str, int, dict[str, Any], workspaces.Uses]]:
    """workspaces.pipeline_uses of the run's pipeline spec: for a referenced Pipeline
    (`spec` its referenced_spec) found once per set of substituted workspaces and shared by
    the runs that name it."""
    pipeline = referenced_pipeline(run) if not isinstance(run.spec.get("pipelineSpec"), dict) else None
    doc = pipeline.doc if pipeline is not None else None
    if doc is None or spec is not referenced_spec(pipeline):
        return workspaces.pipeline_uses(spec, substituted)
    return doc.derived(("uses", substituted), lambda _node: workspaces.pipeline_uses(spec, substituted))


def check_pipeline_shape(spec: Any, prefix: str, owner: str = "") -> None:
    """The fields of a pipeline spec the transform reads, with the types Tekton requires;
    FieldError (path under `prefix`; `owner` names a referenced Pipeline) for the first that
    is wrong: tasks and finally lists of named tasks, their workspaces lists of
    {name, workspace} mappings."""
    who = f"{owner}: " if owner else ""
    for key in ("tasks", "finally"):
        tasks = spec.get(key)
        if tasks is None:
            continue
        if not isinstance(tasks, list):
            raise FieldError(f"{prefix}.{key}", f"{who}{key} is a {type_name(tasks)}; it must be a list of pipeline tasks (- name: ...)")
        for i, task in enumerate(tasks):
            where = f"{prefix}.{key}[{i}]"
            if not isinstance(task, dict):
                raise FieldError(where, f"{who}{key}[{i}] is a {type_name(task)}; every pipeline task must be a mapping with a name")
            if not isinstance(task.get("name"), str):
                raise FieldError(f"{where}.name", f"{who}{key}[{i}].name is a {type_name(task.get('name'))}; every pipeline task needs a name (a string)")
            ws = task.get("workspaces")
            if ws is None:
                continue
            if not isinstance(ws, list):
                raise FieldError(f"{where}.workspaces", f"{who}the workspaces of task {task['name']} are a {type_name(ws)}; they must be a list of {{name, workspace}} mappings")
            for j, w in enumerate(ws):
                wp = f"{where}.workspaces[{j}]"
                if not isinstance(w, dict) or not isinstance(w.get("name"), str):
                    raise FieldError(wp, f"{who}workspace {j} of task {task['name']} must be a mapping with a name (a string) and the pipeline workspace it binds (workspace: ...)")
                if w.get("workspace") is not None and not isinstance(w.get("workspace"), str):
                    raise FieldError(f"{wp}.workspace", f"{who}workspace {w['name']} of task {task['name']} binds a {type_name(w.get('workspace'))}; workspace must name a pipeline workspace (a string)")


# --------------------------------------------------------------------------- while coscheduling


def no_foreign_pins(run: Run) -> bool:
    """A pin to an assistant that is not this run's (the run was copied or renamed from a
    rendered run, or its assistant was generated for another run) is an error: its pods would
    wait for, or follow, another run's placeholder. False after reporting."""
    # a named run's own assistants, whatever strategy it gets now (a Pipelines-as-Code run
    # rendered with a placeholder before is cleaned up, not refused)
    own = run.own_assistants() if run.name else frozenset()
    ok = True
    for path, tpl in [(run.tpl_path, run.template()), *run.trs_templates()]:
        aff = tpl.get("affinity") if isinstance(tpl, dict) else None
        pa = aff.get("podAffinity") if isinstance(aff, dict) else None
        req = pa.get(REQUIRED) if isinstance(pa, dict) else None
        for i, term in enumerate(req if isinstance(req, list) else []):
            aa = names.pinned_assistant(term)
            if aa is None or aa in own:
                continue
            sts = run.ctx.find("apps", "StatefulSet", run.namespace, aa)
            owner = sts.meta.annotations.get(OWNER_ANNOTATION) if sts is not None else None
            if owner == run.owner and run.name:
                continue  # ours under an older workspace name: cleaned up like our other terms
            run.ctx.error(
                run.item,
                f"{path}.affinity.podAffinity.{REQUIRED}[{i}]",
                f"pins the TaskRun pods to assistant {aa}, "
                + (f"which is generated for {owner}" if owner else "which is not generated for this run (nor in the input)")
                + ": this run looks copied or renamed from a rendered run, and its pods would wait "
                "for or follow another run's placeholder. Remove this term (the function writes this "
                "run's own), and bind volumeClaimTemplates instead of that run's claims",
            )
            ok = False
    return ok


def check_placement(run: Run, path: str, tpl: Any, aa: str, task: Any = None) -> None:
    """A task template that selects nodes the assistant may not be on deadlocks: its pods
    must share the assistant's node (Tekton places the assistant by the run-level template
    only and ignores taskRunSpecs). Both forms: nodeSelector and required nodeAffinity."""
    _check_node_affinity(run, path, tpl, aa, task)
    own = tpl.get("nodeSelector")
    if not isinstance(own, dict) or not own:
        return
    run_tpl = run.template()
    placed = run_tpl.get("nodeSelector") if isinstance(run_tpl, dict) else None
    if placed is None:
        placed = run.ctx.policy.assistant_pod_template.get("nodeSelector")
    placed = document.plain(placed) if isinstance(placed, dict) else {}
    missing = {str(k): str(v) for k, v in own.items() if placed.get(str(k)) != v}
    if not missing:
        return
    want = ", ".join(f"{k}={v}" for k, v in sorted(missing.items()))
    where = ", ".join(f"{k}={v}" for k, v in sorted(placed.items())) or "none"
    run.ctx.warning(
        run.item,
        f"{path}.nodeSelector",
        f"the taskRunSpecs template of task {task} selects nodes with {want}, but its pods are "
        f"pinned to assistant {aa}, which is placed by the run-level nodeSelector ({where}); "
        f"unless that node also has {want} these pods stay Pending. Put the selector on "
        f"{run.tpl_path} instead",
    )


def _required_node_terms(tpl: Any) -> Any:
    aff = tpl.get("affinity") if isinstance(tpl, dict) else None
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    return document.plain(req) if isinstance(req, dict) and req else None


def _check_node_affinity(run: Run, path: str, tpl: Any, aa: str, task: Any) -> None:
    own = _required_node_terms(tpl)
    if own is None:
        return
    placed = _required_node_terms(run.template())
    if placed is None:
        placed = _required_node_terms(run.ctx.policy.assistant_pod_template)
    if own == placed:
        return
    import json

    run.ctx.warning(
        run.item,
        f"{path}.affinity.nodeAffinity",
        f"the taskRunSpecs template of task {task} requires nodes through nodeAffinity "
        f"({json.dumps(own, sort_keys=True)}), but its pods are pinned to assistant {aa}, which is "
        "placed by the run-level template (" + (f"nodeAffinity {json.dumps(placed, sort_keys=True)}" if placed else "no required nodeAffinity")
        + "); unless that node also matches, these pods stay Pending. Put the node constraint on "
        f"{run.tpl_path} instead",
    )


def task_of(run: Run, path: str) -> Any:
    for i, trs in run.task_run_specs():
        if path.startswith(f"spec.taskRunSpecs[{i}]."):
            return trs.get("pipelineTaskName")
    return None


# --------------------------------------------------------------------------- after coscheduling

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def warn_unplaceable(run: Run) -> None:
    """Rendered runs the scheduler may never place, found by the scheduling simulation:

    - a pod template that holds our required term (a placeholder pin or a run-keyed term)
      beside a required podAffinity term of the user's: the scheduler admits a pod whose
      required terms no existing pod matches only when no pod in the cluster matches any of
      them (the first-pod rule), so once a pod matching the user's term exists, the first
      TaskRun pod of the run waits for a pod that matches ours, which only it would be (run-
      keyed), or the placeholder lands where the user's pods are not;
    - run-keyed in a per-run mode with several claims: each claim is bound where its first pod
      lands, one at a time, so node-local or zonal volumes first used while none of the run's
      pods was alive can end up on two nodes (or zones), and a task using both never runs."""
    for path, tpl in [(run.tpl_path, run.template()), *run.trs_templates()]:
        terms = _required_pod_affinity(tpl)
        if len(terms) < 2:
            continue  # ours beside one of the user's takes two terms at least
        ours = [t for t in terms if names.is_run_keyed_term(t) or names.pinned_assistant(t) is not None]
        mine = [t for t in terms if t not in ours]
        if ours and mine:
            run.ctx.warning(
                run.item,
                f"{path}.affinity.podAffinity.{_REQUIRED}",
                f"has {len(mine)} required podAffinity term(s) of its own beside the coscheduling "
                "term; the scheduler admits the first pod of a group only when no pod in the cluster "
                "matches any of its required terms, so once a pod matching yours exists the TaskRun "
                "pods can stay Pending for good. Make your term preferred "
                "(preferredDuringSchedulingIgnoredDuringExecution), or coschedule this run with "
                "disabled",
            )


def warn_claims_bound_apart(run: Run, claims: list[str]) -> None:
    if len(claims) < 2:
        return
    run.ctx.warning(
        run.item,
        "spec.workspaces",
        f"binds {len(claims)} claims ({', '.join(claims)}) with run-keyed affinity, which keeps the "
        "run's pods together only while one of them is alive: each claim is bound where its first "
        "pod lands, so node-local or zonal volumes first used while none of the run's pods was "
        "alive may end up on different nodes or zones, and a task that uses both never starts. "
        "With such storage, give the run a metadata.name (a placeholder holds one node for the "
        "whole run) or use one claim; network volumes in one zone are not affected",
    )


# Tekton v1.11.0 (issue #9284): "true" deletes the run's volumeClaimTemplate claims when it
# completes, only when the controller's coschedule is workspaces (reference, "Since v1.15.0")
AUTO_CLEANUP = "tekton.dev/auto-cleanup-pvc"


def warn_auto_cleanup(run: Run, annotations: Any, plans: list[Plan]) -> None:
    """A run asking Tekton to delete its claims at completion: under the coschedule: disabled
    this function needs, Tekton does nothing; say what happens to them instead."""
    if not isinstance(annotations, dict) or annotations.get(AUTO_CLEANUP) != "true":
        return
    p = run.ctx.policy
    if p.tekton_version < (1, 11, 0):
        return  # Tekton did not know the annotation: nobody expects it to act
    held = [
        (a["name"], [c["template"] for c in a.get("claims") or []])
        for plan in plans if plan.strategy == "placeholder" for a in plan.assistants if a.get("claims")
    ]
    ns = f" -n {run.namespace}" if run.namespace else ""
    label = "tekton.dev/pipelineRun" if run.kind == "PipelineRun" else "tekton.dev/taskRun"
    why = (
        'asks Tekton to delete the run\'s volumeClaimTemplate claims when it completes, but Tekton does '
        "that only under coschedule: workspaces; under the coschedule: disabled this function needs, "
        "the annotation does nothing"
    )
    if held:
        where = "; ".join(f"{sts} ({', '.join(t)})" for sts, t in held)
        if p.pvc_retention.get("whenDeleted") == "Retain":
            then = (
                f". Its claims are the claim templates of the placeholder {where} and stay when the "
                "placeholder is deleted (assistant.pvcRetentionPolicy.whenDeleted: Retain): delete them "
                f"with kubectl delete pvc{ns} -l {label}={run.name}"
            )
        else:
            then = (
                f". Its claims are the claim templates of the placeholder {where}: deleted with it when "
                "the run's manifest leaves Git (pvcRetentionPolicy whenDeleted: Delete), not when the run "
                f"completes; to free them earlier: kubectl delete statefulset{ns} -l {label}={run.name}"
            )
    else:
        then = (
            ". Tekton creates its claims owned by the run and deletes them only with the run: delete "
            f"finished runs (kubectl delete {run.kind.lower()}{ns} <name>, tkn {run.kind.lower()} delete "
            "--keep N, or a pruner) to free them"
        )
    run.ctx.warning(run.item, f"metadata.annotations.{AUTO_CLEANUP}", why + then + "; or remove the annotation")


def _required_pod_affinity(tpl: Any) -> list[Any]:
    """The terms as they are (only looked at: the term tests and `==` take a round-trip
    tree's mappings and strings as they take plain ones)."""
    aff = tpl.get("affinity") if isinstance(tpl, dict) else None
    pa = aff.get("podAffinity") if isinstance(aff, dict) else None
    req = pa.get(_REQUIRED) if isinstance(pa, dict) else None
    return list(req) if isinstance(req, list) else []
