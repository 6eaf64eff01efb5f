"""The Tekton pod factory (tests/tekton_pods.py): labels, pod-template merge, claims, placeholders."""
from __future__ import annotations

from typing import Any

from scheduler_sim import HOSTNAME
from tekton_pods import AA_ANNOTATION
from tekton_pods import fake_uid
from tekton_pods import h10
from tekton_pods import placeholder_pod
from tekton_pods import restrict_length
from tekton_pods import standalone_taskrun_pod
from tekton_pods import taskrun_pods
from tekton_pods import tekton_claims

PREFERRED = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1, "podAffinityTerm": {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": HOSTNAME}},
]}}


def run_v1(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "pipelineSpec": {
            "workspaces": [{"name": "src"}, {"name": "cache"}],
            "tasks": [
                {"name": "fetch", "taskRef": {"name": "git-clone"}, "workspaces": [{"name": "output", "workspace": "src"}]},
                {"name": "build", "runAfter": ["fetch"], "taskSpec": {"metadata": {"labels": {"kind": "inline", "team": "spec"}}, "steps": []},
                 "workspaces": [{"name": "src"}, {"name": "c", "workspace": "cache"}]},
            ],
            "finally": [{"name": "notify", "taskRef": {"name": "slack"}}],
        },
        "workspaces": [
            {"name": "src", "volumeClaimTemplate": {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}},
            {"name": "cache", "persistentVolumeClaim": {"claimName": "shared"}, "subPath": "x"},
        ],
    }
    base.update(spec)
    return {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
            "metadata": {"name": "pr", "namespace": "ci", "labels": {"team": "a"}}, "spec": base}


def test_labels_tekton_puts_on_taskrun_pods() -> None:
    pods = taskrun_pods(run_v1(), [])
    fetch = pods["fetch"]
    assert fetch.name == "pr-fetch-pod" and fetch.namespace == "ci" and fetch.group == "ci/PipelineRun/pr"
    assert fetch.labels == {
        "team": "a",  # the run's own labels are propagated
        "tekton.dev/pipeline": "pr",  # embedded spec: the run's name
        "tekton.dev/pipelineRun": "pr",
        "tekton.dev/pipelineRunUID": fake_uid(run_v1()),  # v0.63.0+
        "tekton.dev/pipelineTask": "fetch",
        "tekton.dev/memberOf": "tasks",
        "tekton.dev/task": "git-clone",
        "tekton.dev/taskRun": "pr-fetch",
        "tekton.dev/taskRunUID": "uid-" + h10("pr-fetch"),
        "app.kubernetes.io/managed-by": "tekton-pipelines",
    }
    assert pods["notify"].labels["tekton.dev/memberOf"] == "finally"
    # an embedded taskSpec's labels come last: they never override the run's
    assert pods["build"].labels["kind"] == "inline" and pods["build"].labels["team"] == "a"


def test_pipeline_labels_and_name_from_a_referenced_pipeline() -> None:
    pipeline = {"apiVersion": "tekton.dev/v1", "kind": "Pipeline",
                "metadata": {"name": "build", "namespace": "ci", "labels": {"team": "p", "owner": "x"}},
                "spec": {"tasks": [{"name": "t", "taskRef": {"name": "s"}}]}}
    run = run_v1(pipelineRef={"name": "build"})
    del run["spec"]["pipelineSpec"]
    labels = taskrun_pods(run, [pipeline])["t"].labels
    assert labels["tekton.dev/pipeline"] == "build"
    assert labels["team"] == "a" and labels["owner"] == "x"  # the run's labels win over the Pipeline's


def test_generate_name_pipeline_label() -> None:
    run = run_v1()
    run["metadata"]["generateName"] = "nightly-"
    assert taskrun_pods(run, [])["fetch"].labels["tekton.dev/pipeline"] == "nightly"
    assert restrict_length("a" * 70) == "a" * 63 and restrict_length("x-.") == "x"


def test_task_run_spec_labels_win_even_over_tektons_keys() -> None:
    run = run_v1(taskRunSpecs=[{"pipelineTaskName": "fetch", "metadata": {"labels": {"group": "g1", "tekton.dev/pipelineRun": "mine"}}}])
    labels = taskrun_pods(run, [])["fetch"].labels
    assert labels["group"] == "g1"
    assert labels["tekton.dev/pipelineRun"] == "mine"  # addMetadataByPrecedence: first one wins
    assert labels["tekton.dev/taskRun"] == "pr-fetch"  # the pod builder's own keys always win


def test_pod_template_merge_v1() -> None:
    run = run_v1(
        taskRunTemplate={"podTemplate": {"nodeSelector": {"pool": "ci"}, "affinity": PREFERRED}},
        taskRunSpecs=[
            {"pipelineTaskName": "fetch", "podTemplate": {"affinity": {}}},
            {"pipelineTaskName": "build", "podTemplate": {"nodeSelector": {"pool": "big"}}},
        ],
    )
    pods = taskrun_pods(run, [])
    assert pods["fetch"].affinity == {} and pods["fetch"].node_selector == {"pool": "ci"}  # {} replaces
    assert pods["build"].affinity == PREFERRED and pods["build"].node_selector == {"pool": "big"}
    assert pods["notify"].affinity == PREFERRED and pods["notify"].node_selector == {"pool": "ci"}


def test_pod_template_merge_v1beta1() -> None:
    run = run_v1(podTemplate={"affinity": PREFERRED}, taskRunSpecs=[{"pipelineTaskName": "fetch", "taskPodTemplate": {"nodeSelector": {"x": "y"}}}])
    run["apiVersion"] = "tekton.dev/v1beta1"
    pods = taskrun_pods(run, [])
    assert pods["fetch"].affinity == PREFERRED and pods["fetch"].node_selector == {"x": "y"}
    # a v1 field name in a v1beta1 run means nothing
    run["spec"]["taskRunTemplate"] = {"podTemplate": {"nodeSelector": {"no": "no"}}}
    assert taskrun_pods(run, [])["build"].node_selector is None


def test_affinity_assistant_annotation_appends_tektons_term() -> None:
    run = run_v1(taskRunTemplate={"podTemplate": {"affinity": PREFERRED}})
    run["metadata"]["annotations"] = {AA_ANNOTATION: "affinity-assistant-x"}
    aff = taskrun_pods(run, [])["fetch"].affinity
    assert aff["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] == PREFERRED["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert aff["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [{
        "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": "affinity-assistant-x", "app.kubernetes.io/component": "affinity-assistant"}},
        "topologyKey": HOSTNAME,
    }]
    assert PREFERRED["podAffinity"].get("requiredDuringSchedulingIgnoredDuringExecution") is None  # no aliasing


def test_claims_of_each_task() -> None:
    run = run_v1()
    uid = fake_uid(run)
    pods = taskrun_pods(run, [])
    vct = "data-" + h10("src" + uid)
    assert pods["fetch"].claims == (vct,)
    assert pods["build"].claims == (vct, "shared")
    assert pods["notify"].claims == ()
    claims = tekton_claims(run, local=True)
    assert [(c.name, c.access_modes, c.local) for c in claims] == [(vct, ("ReadWriteOnce",), True)]
    # two workspaces on one claim: mounted once
    run["spec"]["workspaces"][0] = {"name": "src", "persistentVolumeClaim": {"claimName": "shared"}}
    assert taskrun_pods(run, [])["build"].claims == ("shared",)


def test_placeholder_pod_from_a_statefulset() -> None:
    sts = {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "affinity-assistant-abc", "namespace": "ci",
                     "labels": {"tekton.dev/pipelineRun": "pr", "app.kubernetes.io/component": "affinity-assistant"}},
        "spec": {
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/instance": "affinity-assistant-abc", "app.kubernetes.io/component": "affinity-assistant"}},
                "spec": {"nodeSelector": {"pool": "ci"}, "affinity": PREFERRED,
                         "volumes": [{"name": "workspace-0", "persistentVolumeClaim": {"claimName": "shared"}}]},
            },
            "volumeClaimTemplates": [{"metadata": {"name": "pvc-1"}, "spec": {"accessModes": ["ReadWriteMany"]}}],
        },
    }
    pod, created = placeholder_pod(sts, local=True)
    assert pod.name == "affinity-assistant-abc-0" and pod.group == "ci/PipelineRun/pr"
    assert pod.labels["app.kubernetes.io/instance"] == "affinity-assistant-abc"
    assert pod.claims == ("shared", "pvc-1-affinity-assistant-abc-0")
    assert pod.node_selector == {"pool": "ci"} and pod.affinity == PREFERRED
    assert [(c.name, c.access_modes, c.local) for c in created] == [("pvc-1-affinity-assistant-abc-0", ("ReadWriteMany",), True)]


def test_standalone_taskrun_pod() -> None:
    tr = {"apiVersion": "tekton.dev/v1beta1", "kind": "TaskRun",
          "metadata": {"name": "merge", "namespace": "ci", "labels": {"app": "m"}},
          "spec": {"taskRef": {"name": "merge-task"}, "podTemplate": {"nodeSelector": {"pool": "ci"}, "affinity": PREFERRED},
                   "workspaces": [{"name": "left", "persistentVolumeClaim": {"claimName": "a"}},
                                  {"name": "right", "volumeClaimTemplate": {"spec": {}}}]}}
    pod = standalone_taskrun_pod(tr)
    uid = fake_uid(tr)
    assert pod.name == "merge-pod" and pod.group == "ci/TaskRun/merge"
    assert pod.labels == {"app": "m", "tekton.dev/task": "merge-task", "tekton.dev/taskRun": "merge",
                          "tekton.dev/taskRunUID": uid, "app.kubernetes.io/managed-by": "tekton-pipelines"}
    assert pod.claims == ("a", "pvc-" + h10("right" + uid))
    assert [c.name for c in tekton_claims(tr)] == ["pvc-" + h10("right" + uid)]
    assert pod.node_selector == {"pool": "ci"} and pod.affinity == PREFERRED
