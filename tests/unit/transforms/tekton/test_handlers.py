"""Tekton coscheduling transform (SPEC §4): rewrite cases, errors, idempotence, and inputs
that must not change."""
from __future__ import annotations

import textwrap
from typing import Any

import pytest
import yaml
from shared import ROOT
from shared import TESTS

from krm_fn.modes.krm import run_resource_list
from krm_fn.orchestration.process import Outcome
from krm_fn.transforms import scheduling
from krm_fn.transforms.tekton import names

HEADER = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _config(mode: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "c"}, "spec": {"coschedule": mode, **spec}}


def render(items: str, config: dict[str, Any] | None = None) -> tuple[str, Outcome, int]:
    text = HEADER + textwrap.dedent(items)
    if config is not None:
        text += "functionConfig:\n" + textwrap.indent(yaml.safe_dump(config, sort_keys=False), "  ")
    out, outcome, code = run_resource_list(text.encode())
    assert outcome is not None
    return out, outcome, code


def items_of(out: str) -> list[dict[str, Any]]:
    return yaml.safe_load(out)["items"]  # type: ignore[no-any-return]


def by_kind(out: str, kind: str) -> list[dict[str, Any]]:
    return [i for i in items_of(out) if i["kind"] == kind]


def errors(outcome: Outcome) -> list[Any]:
    return [r for r in outcome.results if r.severity == "error"]


PR_VCT_PVC = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: my-pipelinerun
    namespace: ci
  spec:
    pipelineSpec:
      workspaces: [{name: source}, {name: cache}]
      tasks:
      - name: build
        taskRef: {name: build}
        workspaces: [{name: source}]
      - name: report
        taskRef: {name: report}
    workspaces:
    - name: source
      volumeClaimTemplate:
        spec:
          resources: {requests: {storage: 1Gi}}
    - name: cache
      persistentVolumeClaim: {claimName: cache}
"""

# --------------------------------------------------------------------------- must not change

UNCHANGED = [
    pytest.param(PR_VCT_PVC, _config("disabled"), id="disabled-without-defaults"),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: PipelineRun
          metadata: {name: p, namespace: ci}
          spec:
            pipelineRef: {name: missing}
            workspaces:
            - {name: a, emptyDir: {}}
            - {name: b, configMap: {name: cm}}
            - {name: c, secret: {secretName: s}}
        """,
        _config("workspaces"),
        id="workspaces-mode-non-pvc-workspaces",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: PipelineRun
          metadata: {name: p, namespace: ci}
          spec: {pipelineRef: {name: missing}}
        """,
        None,
        id="default-mode-no-workspaces",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: PipelineRun
          metadata:
            name: p
            annotations: {config.kubernetes.io/local-config: "true"}
          spec: {pipelineRef: {name: x}}
        """,
        _config("pipelineruns"),
        id="local-config",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: TaskRun
          metadata: {name: t, namespace: ci}
          spec:
            workspaces:
            - {name: a, persistentVolumeClaim: {claimName: one}}
        """,
        _config("workspaces"),
        id="taskrun-one-claim-workspaces",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: TaskRun
          metadata: {name: t, namespace: ci}
          spec:
            workspaces:
            - {name: a, persistentVolumeClaim: {claimName: one}}
            - {name: b, persistentVolumeClaim: {claimName: one}, subPath: b}
            - {name: c, volumeClaimTemplate: null}
        """,
        _config("pipelineruns"),
        id="taskrun-same-claim-twice-per-run",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: TaskRun
          metadata: {name: t, namespace: ci}
          spec:
            workspaces:
            - {name: a, persistentVolumeClaim: {claimName: one}}
            - {name: b, persistentVolumeClaim: {claimName: two}}
        """,
        _config("disabled"),
        id="taskrun-two-claims-disabled",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1
          kind: Pipeline
          metadata: {name: p, namespace: ci}
          spec: {tasks: [{name: a, taskRef: {name: a}}]}
        """,
        _config("pipelineruns"),
        id="pipeline-is-not-a-run",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1alpha1
          kind: PipelineRun
          metadata: {name: old, namespace: ci}
          spec: {pipelineRef: {name: x}}
        """,
        _config("pipelineruns"),
        id="unsupported-version",
    ),
    pytest.param(
        """\
        - apiVersion: tekton.dev/v1beta1
          kind: PipelineRun
          metadata: {generateName: lint-, namespace: ci}
          spec: {pipelineRef: {name: lint}}
        """,
        _config("workspaces"),
        id="generatename-without-claims",
    ),
]


@pytest.mark.parametrize(("items", "config"), UNCHANGED)
def test_inputs_that_must_not_change(items: str, config: dict[str, Any] | None) -> None:
    src = HEADER + textwrap.dedent(items)
    out, outcome, code = render(items, config)
    assert code == 0
    assert not errors(outcome)
    assert out.startswith(src), out
    assert not by_kind(out, "StatefulSet")


# --------------------------------------------------------------------------- per-run modes


def test_pipelineruns_mode_moves_vct_and_pins_every_task() -> None:
    out, outcome, code = render(PR_VCT_PVC, _config("pipelineruns"))
    assert code == 0
    pr = by_kind(out, "PipelineRun")[0]
    (sts,) = by_kind(out, "StatefulSet")
    aa = "affinity-assistant-0b79942a50"
    assert sts["metadata"]["name"] == aa
    template = "pvc-" + names.h10("source" + "my-pipelinerun")
    assert pr["spec"]["workspaces"][0] == {"name": "source", "persistentVolumeClaim": {"claimName": f"{template}-{aa}-0"}}
    assert [t["metadata"]["name"] for t in sts["spec"]["volumeClaimTemplates"]] == [template]
    assert sts["spec"]["template"]["spec"]["volumes"] == [{"name": "workspace-0", "persistentVolumeClaim": {"claimName": "cache"}}]
    req = pr["spec"]["taskRunTemplate"]["podTemplate"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert req == [names.pin_term(aa)]
    (plan,) = outcome.plans
    assert plan.mode == "pipelineruns"
    assert plan.assistants == [
        {
            "name": aa,
            "tasks": ["*"],
            "claims": [{"template": template, "claim": f"{template}-{aa}-0", "bindings": ["source"]}],
            "volumes": ["cache"],
            "volumeBindings": {"cache": ["cache"]},
        }
    ]


def test_statefulset_matches_tekton_shape() -> None:
    out, _, _ = render(PR_VCT_PVC, _config("pipelineruns"))
    (sts,) = by_kind(out, "StatefulSet")
    aa = sts["metadata"]["name"]
    fixed = {"tekton.dev/pipelineRun": "my-pipelinerun", "app.kubernetes.io/instance": aa, "app.kubernetes.io/component": "affinity-assistant"}
    # the run's labels as Tekton's reconciler leaves them: an embedded spec names the pipeline after the run
    assert sts["metadata"]["labels"] == {"tekton.dev/pipeline": "my-pipelinerun", **fixed}
    assert sts["metadata"]["annotations"] == {"krm-coschedule.dev/owner": "PipelineRun/my-pipelinerun"}
    spec = sts["spec"]
    assert spec["replicas"] == 1 and spec["serviceName"] == aa
    assert spec["selector"] == {"matchLabels": fixed}
    assert spec["template"]["metadata"] == {"labels": fixed}
    (c,) = spec["template"]["spec"]["containers"]
    assert c["name"] == "affinity-assistant" and c["args"] == ["tekton_run_indefinitely"]
    assert c["resources"] == {"requests": {"cpu": "50m", "memory": "100Mi"}, "limits": {"cpu": "50m", "memory": "100Mi"}}
    # Tekton v1.16.0's (the default tektonVersion): set-security-context is on by default
    assert c["securityContext"] == {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    t = spec["volumeClaimTemplates"][0]["metadata"]["name"]
    assert c["volumeMounts"] == [{"name": t, "mountPath": t}]
    assert spec["template"]["spec"]["affinity"] == {
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": names.anti_term()}]}
    }
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Delete", "whenScaled": "Delete"}


def test_run_labels_go_on_metadata_only() -> None:
    items = PR_VCT_PVC.replace("    namespace: ci\n", "    namespace: ci\n    labels: {team: a, tekton.dev/pipelineRun: spoofed}\n", 1)
    out, _, _ = render(items, _config("pipelineruns"))
    (sts,) = by_kind(out, "StatefulSet")
    assert sts["metadata"]["labels"]["team"] == "a"
    assert sts["metadata"]["labels"]["tekton.dev/pipelineRun"] == "my-pipelinerun"
    assert "team" not in sts["spec"]["selector"]["matchLabels"]
    assert "team" not in sts["spec"]["template"]["metadata"]["labels"]
    assert "team" not in sts["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"]


USER_AFFINITY = """\
- apiVersion: tekton.dev/v1beta1
  kind: PipelineRun
  metadata: {name: r, namespace: ci}
  spec:
    pipelineRef: {name: p}
    podTemplate:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: cache}}
            topologyKey: kubernetes.io/hostname
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 3
            podAffinityTerm:
              labelSelector: {matchLabels: {app: noisy}}
              topologyKey: kubernetes.io/hostname
    taskRunSpecs:
    - pipelineTaskName: a
      taskPodTemplate:
        affinity:
          nodeAffinity: {}
    - pipelineTaskName: b
      taskPodTemplate:
        nodeSelector: {disk: ssd}
"""


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
def test_user_affinity_is_kept_and_never_leaks(mode: str) -> None:
    out, outcome, code = render(USER_AFFINITY, _config(mode))
    assert code == 0
    pr = by_kind(out, "PipelineRun")[0]
    (sts,) = by_kind(out, "StatefulSet")
    aa = names.assistant_name("", "r")
    aff = pr["spec"]["podTemplate"]["affinity"]
    req = aff["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert req[0]["labelSelector"] == {"matchLabels": {"app": "cache"}}
    assert req[1] == names.pin_term(aa)  # appended after the user's term
    # the run template never gets the assistant's anti-affinity term (operator#2318)
    assert aff["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["weight"] == 3
    assert len(aff["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]) == 1
    # a taskRunSpecs template with its own affinity is pinned too; one without is not touched
    trs = pr["spec"]["taskRunSpecs"]
    assert trs[0]["taskPodTemplate"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [names.pin_term(aa)]
    assert "affinity" not in trs[1]["taskPodTemplate"]
    # the assistant: the user's terms without our pin, plus the anti term
    sa = sts["spec"]["template"]["spec"]["affinity"]
    assert sa["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [req[0]]
    anti = sa["podAntiAffinity"]
    if mode == "isolate-pipelinerun":
        assert anti["requiredDuringSchedulingIgnoredDuringExecution"] == [names.anti_term()]
        assert len(anti["preferredDuringSchedulingIgnoredDuringExecution"]) == 1
    else:
        assert anti["preferredDuringSchedulingIgnoredDuringExecution"][1] == {"weight": 100, "podAffinityTerm": names.anti_term()}
    # rendering the output again changes nothing and adds no second term
    again, _, code2 = run_resource_list(out.encode())
    assert code2 == 0
    assert again.split("\nresults:\n")[0] == out.split("\nresults:\n")[0]
    # the placement warning names the task whose selector the assistant may not satisfy
    warns = [r for r in outcome.results if r.severity == "warning"]
    # the user's own required podAffinity term beside the pin: Pending for good once a
    # matching pod exists (found by the scheduling simulation), so a warning at that term
    pod_affinity = [w for w in warns if "required podAffinity term(s) of its own" in w.message]
    assert [w.field_path for w in pod_affinity] == ["spec.podTemplate.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"]
    warns = [w for w in warns if w not in pod_affinity]
    assert len(warns) == 1 and "task b" in warns[0].message and warns[0].field_path == "spec.taskRunSpecs[1].taskPodTemplate.nodeSelector"


def test_per_run_mode_gives_an_assistant_without_workspaces() -> None:
    out, _, code = render(
        """\
        - apiVersion: tekton.dev/v1
          kind: PipelineRun
          metadata: {name: test-pipelinerun, namespace: ci}
          spec: {pipelineRef: {name: x}}
        """,
        _config("isolate-pipelinerun"),
    )
    assert code == 0
    (sts,) = by_kind(out, "StatefulSet")
    assert sts["metadata"]["name"] == "affinity-assistant-622aca4516"
    assert "volumes" not in sts["spec"]["template"]["spec"]
    assert "volumeClaimTemplates" not in sts["spec"]


# --------------------------------------------------------------------------- workspaces mode


SHARED = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: pr, namespace: ci}
  spec:
    pipelineRef: {name: p}
    workspaces:
    - {name: first, persistentVolumeClaim: {claimName: shared}, subPath: a}
    - {name: second, persistentVolumeClaim: {claimName: shared}, subPath: b}
    - {name: other, volumeClaimTemplate: {spec: {resources: {requests: {storage: 1Gi}}}}}
- apiVersion: tekton.dev/v1
  kind: Pipeline
  metadata: {name: p, namespace: ci}
  spec:
    tasks:
    - name: uses-first
      workspaces: [{name: w, workspace: first}]
    - name: uses-other
      workspaces: [{name: other}]
    - name: no-workspace
    finally:
    - name: fin
      workspaces: [{name: w, workspace: second}]
"""


def test_workspaces_sharing_a_claim_share_the_last_ones_assistant() -> None:
    out, outcome, code = render(SHARED, _config("workspaces"))
    assert code == 0
    names_ = [s["metadata"]["name"] for s in by_kind(out, "StatefulSet")]
    shared_aa = names.assistant_name("second", "pr")  # Tekton names it after the last (#8003)
    other_aa = names.assistant_name("other", "pr")
    assert names_ == [shared_aa, other_aa]
    pr = by_kind(out, "PipelineRun")[0]
    pinned = {
        t["pipelineTaskName"]: t["podTemplate"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
        for t in pr["spec"]["taskRunSpecs"]
    }
    assert pinned == {"uses-first": names.pin_term(shared_aa), "uses-other": names.pin_term(other_aa), "fin": names.pin_term(shared_aa)}
    assert "taskRunTemplate" not in pr["spec"]
    plans = outcome.plans[0].assistants
    assert [a["tasks"] for a in plans] == [["uses-first", "fin"], ["uses-other"]]


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns"])
def test_the_pipelines_labels_and_name_reach_the_assistant_metadata(mode: str) -> None:
    # Tekton's reconciler adds the Pipeline's labels (under the run's) and tekton.dev/pipeline
    # to the run before it copies the run's labels to the assistant
    items = SHARED.replace("metadata: {name: pr, namespace: ci}", "metadata: {name: pr, namespace: ci, labels: {team: a}}").replace(
        "metadata: {name: p, namespace: ci}", "metadata: {name: p, namespace: ci, labels: {team: b, tier: ci}}"
    )
    out, _, code = render(items, _config(mode))
    assert code == 0
    for sts in by_kind(out, "StatefulSet"):
        aa = sts["metadata"]["name"]
        fixed = names.fixed_labels("tekton.dev/pipelineRun", "pr", aa)
        assert sts["metadata"]["labels"] == {"team": "a", "tier": "ci", "tekton.dev/pipeline": "p", **fixed}
        assert sts["spec"]["selector"]["matchLabels"] == fixed
        assert sts["spec"]["template"]["metadata"]["labels"] == fixed
        for t in sts["spec"].get("volumeClaimTemplates") or []:
            assert t["metadata"]["labels"] == fixed
    # the run itself is not relabelled: Tekton does that on the cluster
    assert by_kind(out, "PipelineRun")[0]["metadata"]["labels"] == {"team": "a"}


def test_workspaces_mode_multi_claim_task_is_an_error() -> None:
    items = SHARED.replace("workspaces: [{name: other}]", "workspaces: [{name: other}, {name: w, workspace: first}]")
    out, outcome, code = render(items, _config("workspaces"))
    assert code == 1
    (err,) = errors(outcome)
    assert "uses-other" in err.message and "more than one PersistentVolumeClaim is bound" in err.message
    assert "coschedule: pipelineruns" in err.message
    assert err.field_path == "spec.pipelineRef.tasks[1].workspaces"
    assert not by_kind(out, "StatefulSet")  # all or nothing
    # the same input is fine with one assistant per run
    _, outcome2, code2 = render(items, _config("pipelineruns"))
    assert code2 == 0 and not errors(outcome2)


def test_workspaces_mode_unresolvable_pipeline_ref() -> None:
    _, outcome, code = render(SHARED.split("- apiVersion: tekton.dev/v1\n  kind: Pipeline\n")[0], _config("workspaces"))
    assert code == 1
    (err,) = errors(outcome)
    assert err.field_path == "spec.pipelineRef" and "add the Pipeline to the package" in err.message


def test_workspaces_mode_per_task_affinity_starts_from_the_run_level_one() -> None:
    items = SHARED.replace(
        "    pipelineRef: {name: p}\n",
        "    pipelineRef: {name: p}\n    taskRunTemplate:\n      podTemplate:\n        affinity:\n          nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}\n",
        1,
    )
    out, _, _ = render(items, _config("workspaces"))
    pr = by_kind(out, "PipelineRun")[0]
    run_aff = pr["spec"]["taskRunTemplate"]["podTemplate"]["affinity"]
    assert set(run_aff) == {"nodeAffinity"}  # the run-level template is not pinned
    for t in pr["spec"]["taskRunSpecs"]:
        assert t["podTemplate"]["affinity"]["nodeAffinity"] == run_aff["nodeAffinity"]


# --------------------------------------------------------------------------- TaskRuns


TWO_CLAIM_TASKRUN = """\
- apiVersion: tekton.dev/v1
  kind: TaskRun
  metadata: {name: tr, namespace: ci}
  spec:
    workspaces:
    - {name: a, persistentVolumeClaim: {claimName: one}}
    - {name: b, persistentVolumeClaim: {claimName: two}}
"""


def test_standalone_taskrun_with_two_claims() -> None:
    out, _, code = render(TWO_CLAIM_TASKRUN, _config("pipelineruns"))
    assert code == 0
    (sts,) = by_kind(out, "StatefulSet")
    assert sts["metadata"]["name"] == names.taskrun_assistant_name("tr")
    assert sts["metadata"]["labels"]["tekton.dev/taskRun"] == "tr"
    assert [v["persistentVolumeClaim"]["claimName"] for v in sts["spec"]["template"]["spec"]["volumes"]] == ["one", "two"]
    _, outcome, code = render(TWO_CLAIM_TASKRUN, _config("workspaces"))
    assert code == 1 and "more than one PersistentVolumeClaim is bound" in errors(outcome)[0].message


def test_taskrun_generate_name_with_two_claims() -> None:
    items = TWO_CLAIM_TASKRUN.replace("{name: tr, namespace: ci}", "{generateName: tr-, namespace: ci}")
    _, outcome, code = render(items, _config("pipelineruns", strategy="placeholder"))
    assert code == 1 and errors(outcome)[0].field_path == "metadata.generateName"
    _, outcome, code = render(items, _config("pipelineruns", strategy="placeholder", generateName="skip"))
    assert code == 0 and [r.severity for r in outcome.results if r.field_path == "metadata.generateName"] == ["warning"]
    # run-keyed (the default, auto, for a run without a name): one pod binds its claims where
    # it runs, so nothing is written for a standalone TaskRun (SPEC §4b)
    out, outcome, code = render(items, _config("pipelineruns"))
    assert code == 0 and not outcome.changed_positions if hasattr(outcome, "changed_positions") else code == 0
    assert "affinity" not in out and "StatefulSet" not in out


# --------------------------------------------------------------------------- generateName, shapes


def test_generate_name_error_and_skip() -> None:
    items = PR_VCT_PVC.replace("name: my-pipelinerun", "generateName: my-")
    _, outcome, code = render(items, _config("pipelineruns", strategy="placeholder"))
    assert code == 1
    assert "generateName" in errors(outcome)[0].message and errors(outcome)[0].field_path == "metadata.generateName"
    out, outcome, code = render(items, _config("pipelineruns", strategy="placeholder", generateName="skip"))
    assert code == 0 and not by_kind(out, "StatefulSet")
    assert out.startswith(HEADER + items)


@pytest.mark.parametrize(
    ("items", "path"),
    [
        ("- {apiVersion: tekton.dev/v1, kind: PipelineRun, metadata: {name: p}, spec: {workspaces: {a: 1}}}\n", "spec.workspaces"),
        ("- {apiVersion: tekton.dev/v1, kind: PipelineRun, metadata: {name: p}, spec: {taskRunTemplate: [1]}}\n", "spec.taskRunTemplate"),
        ("- {apiVersion: tekton.dev/v1, kind: PipelineRun, metadata: {name: p}}\n", "spec"),
        (
            "- {apiVersion: tekton.dev/v1, kind: TaskRun, metadata: {name: p}, spec: {podTemplate: {affinity: 3}, workspaces: [{name: a, persistentVolumeClaim: {claimName: x}}, {name: b, persistentVolumeClaim: {claimName: y}}]}}\n",
            "spec.podTemplate.affinity",
        ),
    ],
)
def test_malformed_runs_are_errors_not_tracebacks(items: str, path: str) -> None:
    _, outcome, code = render(items, _config("pipelineruns"))
    assert code == 1
    assert [e.field_path for e in errors(outcome)] == [path]


# --------------------------------------------------------------------------- idempotence


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun"])
def test_second_render_is_identical(mode: str) -> None:
    out, _, code = render(PR_VCT_PVC, _config(mode))
    assert code == 0
    again, outcome, code = run_resource_list(out.encode())
    assert code == 0
    assert again.split("\nresults:\n")[0] == out.split("\nresults:\n")[0]
    assert outcome is not None and outcome.plans[0].assistants  # still planned from the claims


def test_mode_switch_re_homes_claims_and_drops_stale_pins() -> None:
    first, _, _ = render(PR_VCT_PVC, _config("pipelineruns"))
    direct, _, _ = render(PR_VCT_PVC, _config("workspaces"))
    fc = yaml.safe_dump({"functionConfig": _config("workspaces")}, sort_keys=False)
    switched, outcome, code = run_resource_list((first.split("functionConfig:")[0] + fc).encode())
    assert code == 0
    assert switched.split("functionConfig:")[0] == direct.split("functionConfig:")[0]


def test_disabled_restores_the_volume_claim_template() -> None:
    first, _, _ = render(PR_VCT_PVC, _config("pipelineruns"))
    fc = yaml.safe_dump({"functionConfig": _config("disabled")}, sort_keys=False)
    out, _, code = run_resource_list((first.split("functionConfig:")[0] + fc).encode())
    assert code == 0
    assert not by_kind(out, "StatefulSet")
    pr = by_kind(out, "PipelineRun")[0]
    ws = pr["spec"]["workspaces"][0]
    assert ws["volumeClaimTemplate"]["spec"] == {"resources": {"requests": {"storage": "1Gi"}}}
    # the template as it was written: no labels of ours, and no name (`pvc-<h10>` was made
    # from no name)
    assert "metadata" not in ws["volumeClaimTemplate"]
    assert pr["spec"]["workspaces"] == yaml.safe_load(textwrap.dedent(PR_VCT_PVC))[0]["spec"]["workspaces"]
    assert "taskRunTemplate" not in pr["spec"]  # it held only our pinning term


def test_missing_generated_statefulset_on_rerender_is_an_error() -> None:
    first, _, _ = render(PR_VCT_PVC, _config("pipelineruns"))
    without = first.split("- apiVersion: apps/v1")[0] + "functionConfig:" + first.split("functionConfig:")[1].split("results:")[0]
    _, outcome, code = run_resource_list(without.encode())
    assert code == 1
    assert "put the StatefulSet back" in errors(outcome)[0].message


# --------------------------------------------------------------------------- defaults, policy hook


def test_defaults_fill_only_unset_fields() -> None:
    out, _, _ = render(
        """\
        - apiVersion: tekton.dev/v1
          kind: TaskRun
          metadata: {name: t}
          spec:
            podTemplate:
              nodeSelector: {own: "1"}
              schedulerName: ""
        """,
        _config("disabled", defaultPodTemplate={"nodeSelector": {"pool": "ci"}, "schedulerName": "s", "hostNetwork": True}),
    )
    tpl = by_kind(out, "TaskRun")[0]["spec"]["podTemplate"]
    assert tpl == {"nodeSelector": {"own": "1"}, "schedulerName": "s", "hostNetwork": True}


def test_scheduling_policy_hook_gets_every_template(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str, bool]] = []

    def fake(item: Any, ctx: Any, parent: Any, key: str, field_path: str, only_set_fields: bool = False, **_: Any) -> None:
        calls.append((key, field_path, only_set_fields))

    monkeypatch.setattr(scheduling, "constrain_pod_template", fake)
    render(USER_AFFINITY, _config("disabled"))
    render(PR_VCT_PVC, _config("disabled"))
    assert calls == [
        ("podTemplate", "spec.podTemplate", False),
        ("taskPodTemplate", "spec.taskRunSpecs[0].taskPodTemplate", True),
        ("taskPodTemplate", "spec.taskRunSpecs[1].taskPodTemplate", True),
        ("podTemplate", "spec.taskRunTemplate.podTemplate", False),
    ]


def test_assistant_fields_come_from_the_run_after_defaults() -> None:
    out, _, _ = render(
        USER_AFFINITY.replace("    podTemplate:\n", "    serviceAccountName: runner\n    podTemplate:\n      tolerations: []\n", 1),
        _config(
            "pipelineruns",
            defaultPodTemplate={"priorityClassName": "from-defaults"},
            assistant={"podTemplate": {"tolerations": [{"key": "x", "operator": "Exists"}], "nodeSelector": {"pool": "aa"}}},
        ),
    )
    spec = by_kind(out, "StatefulSet")[0]["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == "runner"
    assert spec["priorityClassName"] == "from-defaults"  # run (after defaults) wins
    assert "tolerations" not in spec  # an empty list on the run counts as set
    assert spec["nodeSelector"] == {"pool": "aa"}  # unset on the run: the policy's


def test_generated_statefulsets_pass_kubernetes_schema_validation() -> None:
    import sys

    import kubernetes_validate  # a test extra: missing means a broken environment, not a skip
    sys.path.insert(0, str(TESTS))
    from golden import run_case  # type: ignore[import-not-found]

    fixtures = sorted((ROOT / "fixtures").glob("tekton-*"))
    seen = 0
    for case in fixtures:
        out, _ = run_case(case)
        for item in by_kind(out, "StatefulSet"):
            for version in ("1.30.0", "1.32.0"):
                kubernetes_validate.validate(item, version, strict=True)
            seen += 1
    assert seen >= 10


TRS_PIPELINE = """\
- apiVersion: tekton.dev/v1
  kind: Pipeline
  metadata: {name: p, namespace: ci}
  spec:
    tasks:
    - name: build
      taskRef: {name: make}
    finally:
    - name: notify
      taskRef: {name: slack}
"""


def _trs_run(task: str) -> str:
    return f"""\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {{name: r, namespace: ci}}
  spec:
    pipelineRef: {{name: p}}
    taskRunSpecs:
    - pipelineTaskName: {task}
      podTemplate:
        nodeSelector: {{disktype: ssd}}
"""


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "disabled"])
def test_task_run_specs_must_name_a_pipeline_task(mode: str) -> None:
    # Tekton fails such a run: "pipelineRun's taskrunSpecs defined wrong taskName"
    _out, outcome, code = render(TRS_PIPELINE + _trs_run("deploy"), _config(mode))
    assert code == 1
    [err] = errors(outcome)
    assert err.field_path == "spec.taskRunSpecs[0].pipelineTaskName"
    assert '"deploy", does not exist in Pipeline' in err.message and "build, notify" in err.message


@pytest.mark.parametrize("task", ["build", "notify"])  # tasks and finally both count
def test_task_run_specs_naming_tasks_or_finally_are_fine(task: str) -> None:
    _out, outcome, code = render(TRS_PIPELINE + _trs_run(task), _config("workspaces"))
    assert code == 0, errors(outcome)


def test_task_run_specs_with_an_unknown_pipeline_are_not_checked() -> None:
    # the Pipeline is not in the input: nothing to check against (and no workspaces to pin)
    _out, outcome, code = render(_trs_run("anything"), _config("workspaces"))
    assert code == 0, errors(outcome)


def test_the_same_run_twice_is_an_error_not_a_lost_assistant() -> None:
    """Two PipelineRuns with one namespace and name would get assistants of one name: the
    second one's claims would bind a StatefulSet that never comes. Found by test_json_input."""
    from krm_fn.modes.krm import run_resource_list

    run = (
        "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n    name: x\n    namespace: ci\n"
        "  spec:\n    pipelineRef:\n      name: p\n    workspaces:\n    - name: src\n      volumeClaimTemplate:\n"
        "        spec:\n          resources:\n            requests:\n              storage: {size}\n"
    )
    data = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        + run.format(size="1Gi")
        + run.format(size="2Gi")
        + "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata:\n    name: c\n"
        "  spec:\n    coschedule: isolate-pipelinerun\n"
    ).encode()
    out, _, code = run_resource_list(data)
    assert code == 1
    doc = yaml.safe_load(out)
    errors = [r for r in doc["results"] if r["severity"] == "error"]
    assert len(errors) == 2  # on both twins, each naming the other: the same whichever comes first
    # each at its own object's name in the input (<stdin>:line:col:, issue 33)
    assert sorted(e["message"].split(";")[0].split(": ", 1)[1] for e in errors) == [
        "the input has this PipelineRun twice (also items[0])",
        "the input has this PipelineRun twice (also items[1])",
    ]
    assert len({e["message"].split(": ", 1)[0] for e in errors}) == 2 and all(e["message"].startswith("<stdin>:") for e in errors)
    assert all(e["field"] == {"path": "metadata.name"} for e in errors)
    assert out.startswith(data.decode().split("functionConfig:")[0])  # all or nothing


def test_the_same_run_twice_with_nothing_generated_is_a_warning() -> None:
    """Kubernetes keeps one object per name; where nothing is generated for either run (a
    standalone TaskRun without claims, a run-keyed run) nothing would be wrong: a warning on
    each, and both are rendered (issue 24: 65 of 87 failures over Pipelines-as-Code)."""
    from krm_fn.modes.krm import run_resource_list

    smoke = "- apiVersion: tekton.dev/v1\n  kind: TaskRun\n  metadata:\n    name: smoke\n  spec:\n    taskRef:\n      name: t\n"
    data = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + smoke + smoke
        + "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata:\n    name: c\n"
        "  spec:\n    coschedule: isolate-pipelinerun\n    scheduling:\n      nodeSelector:\n        pool: ci\n"
    ).encode()
    out, _, code = run_resource_list(data)
    assert code == 0, out
    doc = yaml.safe_load(out)
    assert not [r for r in doc["results"] if r["severity"] == "error"]
    warnings = [r for r in doc["results"] if r["severity"] == "warning" and "twice" in r["message"]]
    assert len(warnings) == 2 and "Nothing is generated for either" in warnings[0]["message"]
    assert [it["spec"].get("podTemplate", {}).get("nodeSelector") for it in doc["items"]] == [{"pool": "ci"}] * 2


CLEARS_AFFINITY = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: trs
  spec:
    pipelineSpec:
      workspaces:
      - name: src
      tasks:
      - name: build
        workspaces:
        - name: src
          workspace: src
        taskRef:
          name: t
      - name: lint
        taskRef:
          name: l
    taskRunTemplate:
      podTemplate:
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - key: pool
                  operator: In
                  values: [ci]
    taskRunSpecs:
    - pipelineTaskName: lint
      podTemplate:
        affinity: {}
    workspaces:
    - name: src
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
"""


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun", "disabled"])
def test_a_task_affinity_that_clears_the_run_level_one_survives_rendering_again(mode: str) -> None:
    """`affinity: {}` in a task's template clears the run-level affinity for that task; our
    term added to it must not make the next render take the user's entry for ours."""
    out, _, code = render(CLEARS_AFFINITY, _config(mode))
    assert code == 0
    again = out.split("\nresults:\n")[0] + "\n"
    assert "functionConfig:" in again
    out2, _, code2 = run_resource_list(again.encode())
    assert code2 == 0
    assert out2.split("\nresults:\n")[0] == out.split("\nresults:\n")[0], "rendering again changed the output"
    lint = [t for t in items_of(out)[0]["spec"]["taskRunSpecs"] if t["pipelineTaskName"] == "lint"]
    assert len(lint) == 1
    assert "nodeAffinity" not in lint[0]["podTemplate"]["affinity"]  # the user's clearing is kept


# ---------------------------------------------------------------- policy nodeSelector vs required nodeAffinity

_WINDOWS = "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/os, operator: In, values: [windows]}]}]}}}"


@pytest.mark.parametrize(
    ("trs_template", "path"),
    [
        # the task's own affinity replaces the run-level one, and it gets the run-level nodeSelector
        (f"{{affinity: {_WINDOWS}}}", "spec.taskRunSpecs[0].podTemplate.affinity.nodeAffinity"),
        # the task's own nodeSelector gets the policy key, beside the run-level affinity
        ("{nodeSelector: {disk: ssd}}", "spec.taskRunTemplate.podTemplate.affinity.nodeAffinity"),
    ],
)
def test_node_affinity_conflict_across_taskrunspecs(trs_template: str, path: str) -> None:
    run_level = "{}" if "affinity" in trs_template else f"{{affinity: {_WINDOWS}}}"
    items = f"""\
    - apiVersion: tekton.dev/v1
      kind: PipelineRun
      metadata: {{name: pr, namespace: ci}}
      spec:
        pipelineRef: {{name: p}}
        taskRunTemplate: {{podTemplate: {run_level}}}
        taskRunSpecs:
        - pipelineTaskName: build
          podTemplate: {trs_template}
    """
    _, outcome, code = render(items, _config("disabled", scheduling={"nodeSelector": {"kubernetes.io/os": "linux"}}))
    errs = errors(outcome)
    req = ".requiredDuringSchedulingIgnoredDuringExecution"
    if trs_template.startswith("{nodeSelector"):
        # the run-level pods and those of task build: two conflicts, each naming its nodeSelector
        assert code == 1 and [r.field_path for r in errs] == [path + req] * 2
        assert sorted("spec.taskRunSpecs[0].podTemplate)" in r.message for r in errs) == [False, True]
    else:
        assert code == 1 and [r.field_path for r in errs] == [path + req]
        assert "nodeSelector of spec.taskRunTemplate.podTemplate" in errs[0].message
    assert errs[0].resource is not None and errs[0].resource.name == "pr"


_WINDOWS_RUN = f"""\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {{name: pr, namespace: ci}}
  spec:
    pipelineSpec:
      workspaces: [{{name: src}}]
      tasks:
      - {{name: build, taskRef: {{name: b}}, workspaces: [{{name: src}}]}}
    taskRunTemplate: {{podTemplate: {{affinity: {_WINDOWS}}}}}
    workspaces:
    - {{name: src, volumeClaimTemplate: {{spec: {{accessModes: [ReadWriteOnce]}}}}}}
"""


@pytest.mark.parametrize("mode", ["pipelineruns", "workspaces"])
@pytest.mark.parametrize("on_conflict", ["error", "keep", "override"])
def test_assistant_node_selector_against_the_runs_node_affinity(mode: str, on_conflict: str) -> None:
    """The pin: the placeholder takes assistant.podTemplate's nodeSelector (the run sets none)
    and copies the run's affinity; a key that leaves no node is a conflict like the others."""
    config = _config(mode, scheduling={"onConflict": on_conflict}, assistant={"podTemplate": {"nodeSelector": {"kubernetes.io/os": "linux", "pool": "ci"}}})
    out, outcome, code = render(textwrap.indent(_WINDOWS_RUN, "    "), config)
    path = "spec.taskRunTemplate.podTemplate.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    found = [(r.severity, r.field_path) for r in outcome.results if r.severity != "info"]
    assert found == [("error" if on_conflict == "error" else "warning", path)]
    assert "placeholder would never be scheduled" in outcome.results[0].message
    if on_conflict == "error":
        assert code == 1
        return
    (sts,) = by_kind(out, "StatefulSet")
    pod = sts["spec"]["template"]["spec"]
    (pr,) = by_kind(out, "PipelineRun")
    if on_conflict == "keep":
        # the placeholder goes where the run's nodeAffinity says, as its pods do
        assert pod["nodeSelector"] == {"pool": "ci"}
        assert pod["affinity"]["nodeAffinity"] == yaml.safe_load(_WINDOWS)["nodeAffinity"]
    else:
        assert pod["nodeSelector"] == {"kubernetes.io/os": "linux", "pool": "ci"}
        assert "nodeAffinity" not in pod["affinity"]
        assert "nodeAffinity" not in ((pr["spec"].get("taskRunTemplate") or {}).get("podTemplate") or {}).get("affinity", {})
        for trs in pr["spec"].get("taskRunSpecs") or []:
            assert "nodeAffinity" not in trs["podTemplate"].get("affinity", {})
    # a second render changes nothing and says no more
    again, outcome2, code2 = render(textwrap.indent(yaml.safe_dump(items_of(out), sort_keys=False), "    "), config)
    assert code2 == 0 and items_of(again) == items_of(out)
    assert [r for r in outcome2.results if r.severity != "info"] == ([] if on_conflict == "override" else [r for r in outcome.results if r.severity != "info"])


@pytest.mark.parametrize("kind", ["PipelineRun", "TaskRun"])
def test_a_run_with_neither_name_nor_generate_name_is_an_error(kind: str) -> None:
    """The API server refuses it ("name or generateName is required"); it was rendered
    without a word (issue 33)."""
    ref = "pipelineRef: {name: p}" if kind == "PipelineRun" else "taskRef: {name: t}"
    _out, outcome, code = render(f"""\
        - apiVersion: tekton.dev/v1
          kind: {kind}
          metadata: {{labels: {{a: b}}}}
          spec: {{{ref}}}
        """)
    (e,) = errors(outcome)
    assert code == 1 and e.field_path == "metadata"
    assert "neither metadata.name nor metadata.generateName" in e.message


def test_a_looked_up_pipeline_that_cannot_be_read_is_named_itself() -> None:
    """The run's lookup reads the Pipeline, whose duplicate key is its own error: named on the
    Pipeline, at its lines, and the run says the Pipeline cannot be read (it was named on the
    run, with the Pipeline's lines, and the Pipeline went unnamed)."""
    _out, outcome, code = render(
        """\
        - apiVersion: tekton.dev/v1
          kind: Pipeline
          metadata: {name: p}
          spec:
            tasks: []
            tasks: []
        - apiVersion: tekton.dev/v1
          kind: PipelineRun
          metadata: {name: r}
          spec:
            pipelineRef: {name: p}
            workspaces:
            - name: src
              persistentVolumeClaim: {claimName: c}
        """,
        _config("workspaces"),
    )
    assert code == 1
    dup, run = errors(outcome)
    assert dup.resource is not None and dup.resource.kind == "Pipeline" and dup.resource.name == "p"
    assert "duplicate key 'tasks' at spec.tasks (lines 8 and 9)" in dup.message
    assert run.resource is not None and run.resource.kind == "PipelineRun" and run.field_path == "spec.pipelineRef"
    assert "Pipeline p (namespace <none>) cannot be read (its own error says why); fix it" in run.message
