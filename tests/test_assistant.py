"""The placeholder StatefulSet builder (SPEC §4, reference §3-§4)."""
from __future__ import annotations

from typing import Any

from krm_fn import assistant
from krm_fn import names
from krm_fn.config import Policy

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
    assert "serviceAccountName" not in assistant.pod_spec(spec(), Policy())


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
