"""The placeholder StatefulSet builder (SPEC §4, reference §3-§4)."""
from __future__ import annotations

from typing import Any

from krm_fn.policy.config import Policy
from krm_fn.transforms.tekton import assistant
from krm_fn.transforms.tekton import names

AA = names.assistant_name("", "r")


def spec(**kw: Any) -> assistant.Spec:
    base: dict[str, Any] = dict(
        name=AA,
        namespace="ci",
        owner_kind="PipelineRun",
        owner_name="r",
        run_labels={},
        run_pod_template={},
        run_service_account="",
        own_assistants=frozenset({AA}),
        claim_templates=[],
        claims=[],
        isolate=False,
    )
    base.update(kw)
    return assistant.Spec(**base)


def test_container_security_context_variants() -> None:
    assert assistant.container_security_context(Policy(), windows=False) == {}
    hardened = assistant.container_security_context(Policy(set_security_context=True), windows=False)
    assert hardened == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    ro = assistant.container_security_context(Policy(set_security_context=True, set_security_context_ro_rootfs=True), windows=False)
    assert ro["readOnlyRootFilesystem"] is True
    assert assistant.container_security_context(Policy(set_security_context=True), windows=True) == {"runAsNonRoot": True}


def test_windows_is_detected_from_the_merged_node_selector() -> None:
    p = Policy(set_security_context=True, assistant_pod_template={"nodeSelector": {"kubernetes.io/os": "windows"}})
    pod = assistant.pod_spec(spec(), p)
    assert pod["containers"][0]["securityContext"] == {"runAsNonRoot": True}
    # the run's own (whole) nodeSelector wins over the policy's
    pod = assistant.pod_spec(spec(run_pod_template={"nodeSelector": {"disk": "ssd"}}), p)
    assert pod["nodeSelector"] == {"disk": "ssd"}
    assert pod["containers"][0]["securityContext"]["runAsNonRoot"] is True
    assert "capabilities" in pod["containers"][0]["securityContext"]


def test_only_the_five_fields_are_copied() -> None:
    tpl = {
        "nodeSelector": {"a": "b"},
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "imagePullSecrets": [{"name": "r"}],
        "securityContext": {"fsGroup": 1},
        "priorityClassName": "high",
        "hostAliases": [{"ip": "1.2.3.4", "hostnames": ["x"]}],
        "schedulerName": "other",
        "env": [{"name": "A", "value": "1"}],
    }
    pod = assistant.pod_spec(spec(run_pod_template=tpl), Policy())
    for f in assistant.COPIED_FIELDS:
        assert pod[f] == tpl[f]
    assert not {"hostAliases", "schedulerName", "env"} & set(pod)


def test_service_account_precedence() -> None:
    p = Policy(assistant_pod_template={"serviceAccountName": "aa"})
    assert assistant.pod_spec(spec(run_service_account="run"), p)["serviceAccountName"] == "aa"
    assert assistant.pod_spec(spec(run_service_account="run"), Policy())["serviceAccountName"] == "run"
    # a run that names none has Tekton's default-service-account by then ("default" unless set)
    assert assistant.pod_spec(spec(), Policy())["serviceAccountName"] == "default"
    assert assistant.pod_spec(spec(), Policy(default_service_account="pipeline"))["serviceAccountName"] == "pipeline"
    assert assistant.pod_spec(spec(run_service_account="run"), Policy(default_service_account="pipeline"))["serviceAccountName"] == "run"
    p = Policy(assistant_pod_template={"serviceAccountName": "aa"}, default_service_account="pipeline")
    assert assistant.pod_spec(spec(), p)["serviceAccountName"] == "aa"
    # an empty default-service-account: Tekton sets none, Kubernetes picks the namespace's default
    assert "serviceAccountName" not in assistant.pod_spec(spec(), Policy(default_service_account=""))


def test_affinity_drops_our_pin_and_empty_containers_but_not_user_terms() -> None:
    user = {"labelSelector": {}, "topologyKey": "kubernetes.io/hostname"}  # empty selector: matches all
    other_pin = names.pin_term(names.assistant_name("", "someone-else"))
    run_aff = {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [names.pin_term(AA), user, other_pin]},
        "nodeAffinity": {},
    }
    out = assistant.affinity(run_aff, {AA}, isolate=False)
    assert out["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [user, other_pin]
    assert "nodeAffinity" not in out
    assert run_aff["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0] == names.pin_term(AA)  # not mutated
    only_pin = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [names.pin_term(AA)]}}
    assert assistant.affinity(only_pin, {AA}, isolate=True) == assistant.affinity(None, {AA}, isolate=True)


def test_anti_affinity_term_is_never_added_twice() -> None:
    term = {"weight": 100, "podAffinityTerm": names.anti_term()}
    out = assistant.affinity({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}, set(), isolate=False)
    assert out["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] == [term]


def test_topology_spread_defaults_its_selector_and_gates_pass_through() -> None:
    p = Policy(
        topology_spread=[
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
            {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"x": "y"}}},
        ],
        scheduling_gates=[{"name": "example.com/queue"}],
    )
    pod = assistant.pod_spec(spec(), p)
    tsc = pod["topologySpreadConstraints"]
    assert tsc[0]["labelSelector"] == {"matchLabels": {"app.kubernetes.io/component": "affinity-assistant"}}
    assert tsc[1]["labelSelector"] == {"matchLabels": {"x": "y"}}
    assert "labelSelector" not in p.topology_spread[0]  # the policy is not mutated
    assert pod["schedulingGates"] == [{"name": "example.com/queue"}]


def test_volumes_and_mounts() -> None:
    tpl = {"metadata": {"name": "pvc-x"}, "spec": {}}
    sts = assistant.statefulset(spec(claim_templates=[tpl], claims=["a", "b"]), Policy())
    pod = sts["spec"]["template"]["spec"]
    assert pod["volumes"] == [
        {"name": "workspace-0", "persistentVolumeClaim": {"claimName": "a"}},
        {"name": "workspace-1", "persistentVolumeClaim": {"claimName": "b"}},
    ]
    assert pod["containers"][0]["volumeMounts"] == [{"name": "pvc-x", "mountPath": "pvc-x"}]
    assert sts["spec"]["volumeClaimTemplates"] == [tpl]
    assert list(sts["spec"]) == ["replicas", "selector", "serviceName", "template", "volumeClaimTemplates", "persistentVolumeClaimRetentionPolicy"]


def test_no_namespace_when_the_run_has_none() -> None:
    assert "namespace" not in assistant.statefulset(spec(namespace=""), Policy())["metadata"]


# --------------------------------------------------------------------------- labels (Tekton v1.15.0,
# pkg/reconciler/pipelinerun/pipelinerun.go propagatePipelineNameLabelToPipelineRun and
# storePipelineSpecAndMergeMeta, then affinity_assistant.go getStatefulSetLabels)

REF = {"name": "build"}


def labels(tekton_version: tuple[int, int, int] = (1, 15, 0), **kw: Any) -> dict[str, str]:
    return assistant.reconciled_labels(spec(**kw), tekton_version)


def test_pipeline_labels_go_under_the_run_labels_with_the_pipeline_name() -> None:
    meta = {"name": "build", "labels": {"team": "platform", "app.kubernetes.io/part-of": "ci"}}
    out = labels(run_labels={"team": "a"}, pipeline_ref=REF, pipeline_meta=meta)
    assert out == {"team": "a", "app.kubernetes.io/part-of": "ci", "tekton.dev/pipeline": "build"}


def test_the_pipeline_name_replaces_any_earlier_value() -> None:
    # the run's own label and the Pipeline's own label both give way to the Pipeline's name
    meta = {"name": "build", "labels": {"tekton.dev/pipeline": "other"}}
    out = labels(run_labels={"tekton.dev/pipeline": "mine"}, pipeline_ref=REF, pipeline_meta=meta)
    assert out == {"tekton.dev/pipeline": "build"}
    # a Pipeline outside the input: its name is the one it is fetched by, its labels unknown
    assert labels(pipeline_ref=REF) == {"tekton.dev/pipeline": "build"}


def test_a_generate_name_pipeline_keeps_the_runs_own_label_from_v1_13() -> None:
    meta = {"name": "build", "generateName": "build-"}
    assert labels(run_labels={"tekton.dev/pipeline": "mine"}, pipeline_ref=REF, pipeline_meta=meta) == {"tekton.dev/pipeline": "mine"}
    assert labels((1, 12, 2), run_labels={"tekton.dev/pipeline": "mine"}, pipeline_ref=REF, pipeline_meta=meta) == {
        "tekton.dev/pipeline": "build"
    }
    assert labels(run_labels={"tekton.dev/pipeline": ""}, pipeline_ref=REF, pipeline_meta=meta) == {"tekton.dev/pipeline": "build"}


def test_an_embedded_spec_is_named_after_the_run() -> None:
    assert labels(embedded_pipeline=True) == {"tekton.dev/pipeline": "r"}
    # without generateName the run's own label is replaced too (the run is its own "Pipeline")
    assert labels(embedded_pipeline=True, run_labels={"tekton.dev/pipeline": "mine"}) == {"tekton.dev/pipeline": "r"}


def test_an_embedded_spec_with_generate_name() -> None:
    assert labels(embedded_pipeline=True, generate_name="nightly-") == {"tekton.dev/pipeline": "nightly"}
    assert labels((1, 12, 0), embedded_pipeline=True, generate_name="nightly-") == {"tekton.dev/pipeline": "r"}
    own = {"tekton.dev/pipeline": "mine"}
    assert labels(embedded_pipeline=True, generate_name="nightly-", run_labels=own) == own
    empty = {"tekton.dev/pipeline": ""}
    assert labels(embedded_pipeline=True, generate_name="nightly-", run_labels=empty) == {"tekton.dev/pipeline": "r"}
    # nothing left after cutting: the run's name
    assert labels(embedded_pipeline=True, generate_name="--") == {"tekton.dev/pipeline": "r"}


def test_restrict_length() -> None:
    assert assistant.restrict_length("a" * 62 + "-bcd") == "a" * 62
    assert assistant.restrict_length("build-") == "build"
    assert assistant.restrict_length("x.-_") == "x"
    assert assistant.restrict_length("-") == ""


def test_a_resolver_gives_the_name_param_of_a_pipeline_kind_only() -> None:
    cluster = {"resolver": "cluster", "params": [{"name": "kind", "value": "pipeline"}, {"name": "name", "value": "build"}, {"name": "namespace", "value": "ci"}]}
    assert labels(pipeline_ref=cluster) == {"tekton.dev/pipeline": "build"}
    git = {"resolver": "git", "params": [{"name": "url", "value": "https://example.com/p.git"}, {"name": "pathInRepo", "value": "p.yaml"}]}
    # the resolved Pipeline's name is known only after resolution: nothing is invented
    assert labels(pipeline_ref=git) == {}
    assert labels(pipeline_ref=git, run_labels={"tekton.dev/pipeline": "mine"}) == {"tekton.dev/pipeline": "mine"}
    task = {"resolver": "cluster", "params": [{"name": "kind", "value": "task"}, {"name": "name", "value": "build"}]}
    assert labels(pipeline_ref=task) == {}


def test_a_taskrun_keeps_its_labels() -> None:
    out = labels(owner_kind="TaskRun", run_labels={"team": "a"}, pipeline_ref=REF, pipeline_meta={"labels": {"x": "y"}})
    assert out == {"team": "a"}


def test_run_and_pipeline_labels_reach_the_statefulset_metadata_only() -> None:
    meta = {"name": "build", "labels": {"team": "platform", "tier": "ci", "bad": 5}}
    tpl = {"metadata": {"name": "pvc-x"}, "spec": {}}
    sts = assistant.statefulset(spec(run_labels={"team": "a"}, pipeline_ref=REF, pipeline_meta=meta, claim_templates=[tpl]), Policy())
    fixed = names.fixed_labels("tekton.dev/pipelineRun", "r", AA)
    assert sts["metadata"]["labels"] == {"team": "a", "tier": "ci", "tekton.dev/pipeline": "build", **fixed}
    assert list(sts["metadata"]["labels"])[-3:] == list(fixed)
    assert sts["spec"]["selector"] == {"matchLabels": fixed}
    assert sts["spec"]["template"]["metadata"] == {"labels": fixed}
    assert sts["spec"]["volumeClaimTemplates"] == [tpl]
