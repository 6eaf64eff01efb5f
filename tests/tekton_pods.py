"""The pods Tekton would create for a (rendered) PipelineRun, as input for scheduler_sim.

Read from tektoncd/pipeline at 3ee1745ae (v1.15.0-49, 2026-08-20); each rule cites where.
The cluster is assumed to run Tekton with ``coschedule: disabled`` (SPEC §4: the function,
not the controller, does coscheduling) and with no ``default-pod-template``.

TaskRun labels (``pkg/reconciler/pipelinerun/pipelinerun.go``, ``combineTaskRunAndTaskSpecLabels``
and ``createChildResourceLabels``), each step adding only keys not already set
(``addMetadataByPrecedence``):

1. ``taskRunSpecs[].metadata.labels`` of the task (so they win, even over Tekton's own keys);
2. the PipelineRun's labels as the reconciler sees them, then ``tekton.dev/pipelineRun`` = run
   name, ``tekton.dev/pipelineRunUID`` = run UID (since v0.63.0, commit 504bdc897 "Add UID label
   to PipelineRun and TaskRun"), ``tekton.dev/pipelineTask``, ``tekton.dev/memberOf``
   (``tasks`` / ``finally``);
3. the embedded ``taskSpec.metadata.labels``.

The PipelineRun's labels as the reconciler sees them: its own ``metadata.labels`` over the
Pipeline's labels (``storePipelineSpecAndMergeMeta``: ``kmap.Union(meta.Labels, pr.Labels)``),
plus ``tekton.dev/pipeline`` = the pipelineRef name, or for an embedded spec the run's name
(``propagatePipelineNameLabelToPipelineRun``; for a generateName run, the generateName cut to a
valid name, v1.13+). The TaskRun reconciler adds ``tekton.dev/task`` = the taskRef name
(``storeTaskSpecAndMergeMeta``, ``pkg/reconciler/taskrun/taskrun.go``).

Pod labels (``pkg/pod/pod.go``, ``makeLabels``): the TaskRun's labels, then, overriding,
``tekton.dev/taskRun`` = TaskRun name, ``tekton.dev/taskRunUID`` (v0.63.0+ as well) and
``app.kubernetes.io/managed-by`` = ``tekton-pipelines`` (config-defaults
``default-managed-by-label-value``). So **``tekton.dev/pipelineRunUID`` is on TaskRun pods
from Tekton v0.63.0**, and ``tekton.dev/pipelineRun`` on all versions.

Pod template (``pkg/apis/pipeline/v1/pipelinerun_types.go``, ``GetTaskRunSpec``, and
``pkg/apis/pipeline/pod/template.go``, ``MergePodTemplateWithDefault``): the task's
``taskRunSpecs`` template (v1 ``podTemplate``, v1beta1 ``taskPodTemplate``) merged over the run's
(v1 ``spec.taskRunTemplate.podTemplate``, v1beta1 ``spec.podTemplate``) field by field: a field
the task's template sets (even to ``{}``) replaces the run's whole. The pod's affinity and
nodeSelector are the result's. Then, if the TaskRun carries the annotation
``pipeline.tekton.dev/affinity-assistant`` (PipelineRun annotations are propagated; with
``coschedule: disabled`` Tekton sets none itself), the pod transformer appends the required
term ``{app.kubernetes.io/instance: <value>, app.kubernetes.io/component: affinity-assistant}``
on ``kubernetes.io/hostname``.

Claims (``getTaskrunWorkspaces``, ``taskWorkspaceByWorkspaceVolumeSource``): a pipeline task's
workspace maps to the pipeline workspace named by its ``workspace`` field, or by its own name
when that is empty. With an embedded ``taskSpec``, a workspace its steps refer to as
``$(workspaces.NAME.path)`` that the task does not map is added as ``{name: NAME}``
(``propagateWorkspaces``; ``FindWorkspacesUsedByTask`` in ``pkg/workspace/apply.go``); a
declared workspace that is neither mapped nor referred to gets nothing (an optional one is
simply absent). A ``persistentVolumeClaim`` binding mounts ``claimName``; a
``volumeClaimTemplate`` binding mounts the claim Tekton creates for the run (with
``coschedule: disabled``: ``<template name or "pvc">-`` + h10(binding name + run UID),
``GeneratePVCNameFromWorkspaceBinding``), one per run per workspace binding, created before the
first TaskRun.

TaskRun names are ``<run>-<pipeline task>`` (``GetTaskRunName``; kmeta.ChildName's shortening of
long names is not modelled); pods ``<taskrun>-pod``.

Not modelled: propagated workspaces referred to anywhere but a step's ``script``, matrix fan-out, ``when`` expressions, retries, custom tasks,
pipelines in pipelines, results, the Task objects' own labels (taskRefs are not resolved),
``default-pod-template``.

The placeholder (a generated StatefulSet) becomes the pod ``<sts>-0`` with the template's labels,
affinity and nodeSelector, mounting its ``persistentVolumeClaim`` volumes and one claim per
``volumeClaimTemplates`` entry, named ``<template>-<statefulset>-0`` (the StatefulSet
controller's naming).
"""
from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

from scheduler_sim import HOSTNAME
from scheduler_sim import Claim
from scheduler_sim import Pod

AA_ANNOTATION = "pipeline.tekton.dev/affinity-assistant"
MANAGED_BY = "tekton-pipelines"


def h10(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()[:10]


def fake_uid(run: dict[str, Any]) -> str:
    """A stand-in for the UID the API server gives the run."""
    return "uid-" + h10(run["metadata"]["name"])


def is_v1beta1(obj: dict[str, Any]) -> bool:
    return obj.get("apiVersion", "").endswith("/v1beta1")


def namespace_of(obj: dict[str, Any]) -> str:
    return obj.get("metadata", {}).get("namespace") or "default"


def pipeline_of(run: dict[str, Any], items: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(pipeline spec, pipeline metadata) for the run: embedded, or the referenced Pipeline."""
    spec = run["spec"]
    if "pipelineSpec" in spec:
        return spec["pipelineSpec"], {}
    name = spec["pipelineRef"]["name"]
    for it in items:
        if it.get("kind") == "Pipeline" and it["metadata"]["name"] == name and namespace_of(it) == namespace_of(run):
            return it["spec"], it["metadata"]
    raise LookupError(f"Pipeline {name} not in the input")


def restrict_length(base: str) -> str:
    """names.SimpleNameGenerator.RestrictLength (pkg/names/generate.go): at most 63 characters,
    then trailing non-alphanumerics dropped."""
    base = base[:63]
    while base and not (base[-1].isascii() and base[-1].isalnum()):
        base = base[:-1]
    return base


def run_labels(run: dict[str, Any], pipeline_meta: dict[str, Any]) -> dict[str, str]:
    """The PipelineRun's labels as the reconciler sees them."""
    labels = {**(pipeline_meta.get("labels") or {}), **(run["metadata"].get("labels") or {})}
    if "tekton.dev/pipeline" not in labels:
        ref = run["spec"].get("pipelineRef") or {}
        generate = run["metadata"].get("generateName")
        if ref.get("name"):
            labels["tekton.dev/pipeline"] = ref["name"]
        elif generate and restrict_length(generate):
            labels["tekton.dev/pipeline"] = restrict_length(generate)  # v1.13+
        else:
            labels["tekton.dev/pipeline"] = run["metadata"]["name"]
    if pipeline_meta.get("name"):
        labels["tekton.dev/pipeline"] = pipeline_meta["name"]
    return labels


def _run_pod_template(run: dict[str, Any]) -> dict[str, Any]:
    spec = run["spec"]
    if is_v1beta1(run):
        return spec.get("podTemplate") or {}
    return (spec.get("taskRunTemplate") or {}).get("podTemplate") or {}


def _task_run_spec(run: dict[str, Any], task: str) -> dict[str, Any]:
    for trs in run["spec"].get("taskRunSpecs") or []:
        if trs.get("pipelineTaskName") == task:
            return trs
    return {}


def merge_pod_template(task_tpl: dict[str, Any] | None, run_tpl: dict[str, Any] | None) -> dict[str, Any]:
    """MergePodTemplateWithDefault for the scheduling fields: a field set in the task's
    template replaces the run's."""
    out = copy.deepcopy(run_tpl or {})
    for k, v in (task_tpl or {}).items():
        if v is not None:
            out[k] = copy.deepcopy(v)
    return out


def effective_pod_template(run: dict[str, Any], task: str) -> dict[str, Any]:
    trs = _task_run_spec(run, task)
    task_tpl = trs.get("taskPodTemplate" if is_v1beta1(run) else "podTemplate")
    return merge_pod_template(task_tpl, _run_pod_template(run))


def _add_missing(into: dict[str, str], extra: dict[str, str]) -> None:
    for k, v in extra.items():
        into.setdefault(k, v)


def taskrun_labels(run: dict[str, Any], pipeline_meta: dict[str, Any], ptask: dict[str, Any], member_of: str, uid: str) -> dict[str, str]:
    name = run["metadata"]["name"]
    labels: dict[str, str] = {}
    _add_missing(labels, ((_task_run_spec(run, ptask["name"]).get("metadata") or {}).get("labels")) or {})
    child = dict(run_labels(run, pipeline_meta))
    child["tekton.dev/pipelineRun"] = name
    child["tekton.dev/pipelineRunUID"] = uid
    child["tekton.dev/pipelineTask"] = ptask["name"]
    child["tekton.dev/memberOf"] = member_of
    _add_missing(labels, child)
    _add_missing(labels, ((ptask.get("taskSpec") or {}).get("metadata") or {}).get("labels") or {})
    ref = ptask.get("taskRef") or {}
    if ref.get("name"):
        labels["tekton.dev/task"] = ref["name"]
    return labels


def vct_claim_name(binding: dict[str, Any], uid: str) -> str:
    prefix = (binding["volumeClaimTemplate"].get("metadata") or {}).get("name") or "pvc"
    return f"{prefix}-{h10(binding['name'] + uid)}"


# `$(workspaces.NAME.FIELD)` in a step's script: the one place the simulation writes them
_STEP_REFERENCE = re.compile(r"\$\(workspaces\.([^.()\s]+)\.(?:path|claim|volume)\)")


def task_workspaces(ptask: dict[str, Any]) -> list[str]:
    """The PipelineRun workspaces a pipeline task's TaskRun binds: its mappings, then what its
    embedded taskSpec's steps refer to in their scripts without a mapping (propagated)."""
    out = [w.get("workspace") or w["name"] for w in ptask.get("workspaces") or []]
    mapped = {w["name"] for w in ptask.get("workspaces") or []}
    for step in (ptask.get("taskSpec") or {}).get("steps") or []:
        for m in _STEP_REFERENCE.finditer(step.get("script") or ""):
            if m.group(1) not in mapped and m.group(1) not in out:
                out.append(m.group(1))
    return out


def task_claims(run: dict[str, Any], ptask: dict[str, Any], uid: str) -> tuple[str, ...]:
    bindings = {b["name"]: b for b in run["spec"].get("workspaces") or []}
    out: list[str] = []
    for ws in task_workspaces(ptask):
        b = bindings.get(ws)
        if b is None:
            continue
        if b.get("persistentVolumeClaim"):
            claim = b["persistentVolumeClaim"]["claimName"]
        elif b.get("volumeClaimTemplate"):
            claim = vct_claim_name(b, uid)
        else:
            continue
        if claim not in out:
            out.append(claim)
    return tuple(out)


def _aa_term(assistant: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": assistant, "app.kubernetes.io/component": "affinity-assistant"}},
        "topologyKey": HOSTNAME,
    }


def taskrun_pods(run: dict[str, Any], items: list[dict[str, Any]], uid: str | None = None) -> dict[str, Pod]:
    """pipeline task name -> the pod of its TaskRun (tasks and finally)."""
    uid = uid or fake_uid(run)
    spec, meta = pipeline_of(run, items)
    name = run["metadata"]["name"]
    ns = namespace_of(run)
    annotations = run["metadata"].get("annotations") or {}
    pods = {}
    for member_of, key in (("tasks", "tasks"), ("finally", "finally")):
        for ptask in spec.get(key) or []:
            tpl = effective_pod_template(run, ptask["name"])
            affinity = copy.deepcopy(tpl.get("affinity"))
            if annotations.get(AA_ANNOTATION):
                affinity = affinity or {}
                pa = affinity.setdefault("podAffinity", {})
                pa.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(_aa_term(annotations[AA_ANNOTATION]))
            tr = f"{name}-{ptask['name']}"
            labels = taskrun_labels(run, meta, ptask, member_of, uid)
            labels["tekton.dev/taskRun"] = tr
            labels["tekton.dev/taskRunUID"] = "uid-" + h10(tr)
            labels["app.kubernetes.io/managed-by"] = MANAGED_BY
            pods[ptask["name"]] = Pod(
                name=f"{tr}-pod",
                namespace=ns,
                labels=labels,
                affinity=affinity,
                node_selector=copy.deepcopy(tpl.get("nodeSelector")),
                claims=task_claims(run, ptask, uid),
                group=run_group("PipelineRun", ns, name),
            )
    return pods


def standalone_taskrun_pod(tr: dict[str, Any], uid: str | None = None) -> Pod:
    """The pod of a TaskRun that no PipelineRun created: its own labels, ``spec.podTemplate``
    (v1 and v1beta1), its workspaces' claims (a volumeClaimTemplate: ``<name or "pvc">-`` +
    h10(binding name + TaskRun UID), ``pkg/reconciler/volumeclaim/pvchandler.go``)."""
    uid = uid or fake_uid(tr)
    name = tr["metadata"]["name"]
    tpl = tr["spec"].get("podTemplate") or {}
    affinity = copy.deepcopy(tpl.get("affinity"))
    annotations = tr["metadata"].get("annotations") or {}
    if annotations.get(AA_ANNOTATION):
        affinity = affinity or {}
        pa = affinity.setdefault("podAffinity", {})
        pa.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(_aa_term(annotations[AA_ANNOTATION]))
    labels = dict(tr["metadata"].get("labels") or {})
    ref = tr["spec"].get("taskRef") or {}
    if ref.get("name"):
        labels["tekton.dev/task"] = ref["name"]
    labels["tekton.dev/taskRun"] = name
    labels["tekton.dev/taskRunUID"] = uid
    labels["app.kubernetes.io/managed-by"] = MANAGED_BY
    claims: list[str] = []
    for b in tr["spec"].get("workspaces") or []:
        if b.get("persistentVolumeClaim"):
            claims.append(b["persistentVolumeClaim"]["claimName"])
        elif b.get("volumeClaimTemplate"):
            claims.append(vct_claim_name(b, uid))
    return Pod(
        name=f"{name}-pod",
        namespace=namespace_of(tr),
        labels=labels,
        affinity=affinity,
        node_selector=copy.deepcopy(tpl.get("nodeSelector")),
        claims=tuple(dict.fromkeys(claims)),
        group=run_group("TaskRun", namespace_of(tr), name),
    )


def _access_modes(spec: dict[str, Any]) -> tuple[str, ...]:
    return tuple(spec.get("accessModes") or ["ReadWriteOnce"])


def tekton_claims(run: dict[str, Any], uid: str | None = None, local: bool = False) -> list[Claim]:
    """The claims Tekton creates for the run's (PipelineRun or TaskRun) volumeClaimTemplate
    workspaces when it starts."""
    uid = uid or fake_uid(run)
    return [
        Claim(vct_claim_name(b, uid), namespace_of(run), _access_modes(b["volumeClaimTemplate"].get("spec") or {}), local)
        for b in run["spec"].get("workspaces") or []
        if b.get("volumeClaimTemplate")
    ]


def is_placeholder(item: dict[str, Any]) -> bool:
    labels = (item.get("metadata") or {}).get("labels") or {}
    return item.get("kind") == "StatefulSet" and labels.get("app.kubernetes.io/component") == "affinity-assistant"


def placeholder_pod(sts: dict[str, Any], local: bool = False) -> tuple[Pod, list[Claim]]:
    """The StatefulSet's one pod and the claims the StatefulSet controller creates for it."""
    name = sts["metadata"]["name"]
    ns = namespace_of(sts)
    tpl = sts["spec"]["template"]
    pod_spec = tpl.get("spec") or {}
    created = [
        Claim(f"{vct['metadata']['name']}-{name}-0", ns, _access_modes(vct.get("spec") or {}), local)
        for vct in sts["spec"].get("volumeClaimTemplates") or []
    ]
    claims = [v["persistentVolumeClaim"]["claimName"] for v in pod_spec.get("volumes") or [] if v.get("persistentVolumeClaim")]
    claims += [c.name for c in created]
    labels = dict((tpl.get("metadata") or {}).get("labels") or {})
    labels["statefulset.kubernetes.io/pod-name"] = f"{name}-0"
    pod = Pod(
        name=f"{name}-0",
        namespace=ns,
        labels=labels,
        affinity=copy.deepcopy(pod_spec.get("affinity")),
        node_selector=copy.deepcopy(pod_spec.get("nodeSelector")),
        claims=tuple(dict.fromkeys(claims)),
        group=_owner_group(sts),
    )
    return pod, created


def run_group(kind: str, namespace: str, name: str) -> str:
    """What a pod's ``group`` says: the run it belongs to."""
    return f"{namespace}/{kind}/{name}"


def _owner_group(sts: dict[str, Any]) -> str | None:
    labels = sts["metadata"].get("labels") or {}
    if labels.get("tekton.dev/pipelineRun"):
        return run_group("PipelineRun", namespace_of(sts), labels["tekton.dev/pipelineRun"])
    if labels.get("tekton.dev/taskRun"):
        return run_group("TaskRun", namespace_of(sts), labels["tekton.dev/taskRun"])
    return None
