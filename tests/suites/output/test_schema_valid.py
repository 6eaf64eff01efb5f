"""Output that Kubernetes accepts: every golden fixture's output is checked with
tests/schemacheck.py (StatefulSets and Tekton pod templates against the Kubernetes
{K8S_VERSION} OpenAPI schemas, Shipwright objects against the CRDs in shared/crds/, and the
string-typed fields as a YAML 1.1 reader sees them). The negative tests show that each
checker rejects what it should."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import schemacheck as sc  # type: ignore[import-not-found]
from golden import build_resource_list  # type: ignore[import-not-found]
from golden import run_case  # type: ignore[import-not-found]
from shared import ROOT

FIXTURES = ROOT / "fixtures"
CASES = sorted(p for p in FIXTURES.iterdir() if (p / "input.yaml").exists()) if FIXTURES.exists() else []
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module", autouse=True)
def _crds() -> None:
    if sc.crds_dir() is None:
        msg = "shared/crds (the Shipwright CRDs) not found beside the repository"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)


def _checked(case: Path) -> tuple[dict[str, int], list[str]]:
    out, _code = run_case(case)
    doc = sc.load_yaml11(out)
    given = sc.load_yaml11(build_resource_list(case).decode()).get("items") or []
    counts = {"StatefulSet": 0, "pod template": 0, "Shipwright": 0, "strings": 0}
    errors: list[str] = []
    for i, obj in enumerate(doc["items"]):
        if not isinstance(obj, dict):
            continue
        if obj in given:
            # passed through as the user wrote it (unchanged, or an error left it alone):
            # its validity is the user's; what the function writes or changes is checked
            continue
        name = f"items[{i}] {obj.get('kind')} {(obj.get('metadata') or {}).get('name')}"
        errors += [f"{name}: {e}" for e in sc.object_errors(obj)]
        api, kind = obj.get("apiVersion"), obj.get("kind")
        if (api, kind) == ("apps/v1", "StatefulSet"):
            counts["StatefulSet"] += 1
        elif str(api).startswith("tekton.dev/"):
            counts["pod template"] += len(sc.tekton_pod_templates(obj))
        elif str(api).startswith("shipwright.io/"):
            counts["Shipwright"] += 1
        counts["strings"] += 1
        errors += [f"{name}: {e}" for e in sc.string_errors(obj)]
    return counts, errors


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_output_is_schema_valid(case: Path) -> None:
    _counts, errors = _checked(case)
    assert not errors, "\n".join(errors)


def test_fixtures_exercise_every_checker() -> None:
    total = {"StatefulSet": 0, "pod template": 0, "Shipwright": 0}
    for case in CASES:
        counts, _ = _checked(case)
        for k in total:
            total[k] += counts[k]
    assert all(total.values()), f"some checker validated nothing: {total}"


# --------------------------------------------------------------------------- it can fail

GOOD_STS: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "affinity-assistant-0123456789", "labels": {"app.kubernetes.io/component": "affinity-assistant"}},
    "spec": {
        "replicas": 1,
        "serviceName": "affinity-assistant-0123456789",
        "selector": {"matchLabels": {"app.kubernetes.io/instance": "affinity-assistant-0123456789"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/instance": "affinity-assistant-0123456789"}},
            "spec": {"containers": [{"name": "affinity-assistant", "image": "nop", "args": ["tekton_run_indefinitely"]}]},
        },
        "volumeClaimTemplates": [{"metadata": {"name": "pvc-1"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
    },
}


def _broken(**spec: Any) -> dict[str, Any]:
    import copy

    obj = copy.deepcopy(GOOD_STS)
    for k, v in spec.items():
        if v is None:
            del obj["spec"][k]
        else:
            obj["spec"][k] = v
    return obj


def test_good_statefulset_passes() -> None:
    assert sc.k8s_errors(GOOD_STS) == []


@pytest.mark.parametrize(
    ("spec", "expect"),
    [
        ({"serviceName": None}, "'serviceName' is a required property"),
        ({"replicas": "1"}, "spec.replicas: '1' is not of type 'integer'"),
        ({"replica": 1}, "'replica' was unexpected"),
        ({"selector": None}, "'selector' is a required property"),
        ({"template": {"spec": {"containers": "nop"}}}, "spec.template.spec.containers: 'nop' is not of type 'array'"),
        ({"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaledDown": "Delete"}}, "'whenScaledDown' was unexpected"),
    ],
)
def test_checker_rejects_a_broken_statefulset(spec: dict[str, Any], expect: str) -> None:
    errors = sc.k8s_errors(_broken(**spec))
    assert any(expect in e for e in errors), errors
    assert sc.object_errors(_broken(**spec))


def test_checker_agrees_with_kubernetes_validate_api() -> None:
    # the package's own entry point, for the same version, strict
    assert kubernetes_validate.validate(GOOD_STS, sc.K8S_VERSION, strict=True)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(_broken(serviceName=None), sc.K8S_VERSION, strict=True)


def test_pod_template_checker_rejects_bad_fields() -> None:
    errors = sc.pod_template_errors(
        {"nodeSelector": {"pool": 1}, "tolerations": {"key": "a"}, "affinty": {}, "env": [{"name": "A", "valu": "x"}]},
        "spec.taskRunTemplate.podTemplate",
    )
    joined = "\n".join(errors)
    assert "spec.taskRunTemplate.podTemplate.affinty: not a field of Tekton's PodTemplate" in joined
    assert "spec.taskRunTemplate.podTemplate.nodeSelector.pool: 1 is not of type 'string'" in joined
    assert "spec.taskRunTemplate.podTemplate.tolerations" in joined
    assert "spec.taskRunTemplate.podTemplate.env[0]" in joined and "'valu' was unexpected" in joined
    assert sc.pod_template_errors({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}]}}}) == []


def test_pod_templates_are_found_in_every_run_shape() -> None:
    v1 = {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "spec": {
        "taskRunTemplate": {"podTemplate": {}}, "taskRunSpecs": [{"pipelineTaskName": "a", "podTemplate": {}}]}}
    b1 = {"apiVersion": "tekton.dev/v1beta1", "kind": "PipelineRun", "spec": {
        "podTemplate": {}, "taskRunSpecs": [{"pipelineTaskName": "a", "taskPodTemplate": {}}]}}
    tr = {"apiVersion": "tekton.dev/v1", "kind": "TaskRun", "spec": {"podTemplate": {"schedulerName": 3}}}
    assert [p for p, _ in sc.tekton_pod_templates(v1)] == ["spec.taskRunTemplate.podTemplate", "spec.taskRunSpecs[0].podTemplate"]
    assert [p for p, _ in sc.tekton_pod_templates(b1)] == ["spec.podTemplate", "spec.taskRunSpecs[0].taskPodTemplate"]
    assert any("spec.podTemplate.schedulerName" in e for e in sc.object_errors(tr))


BUILD: dict[str, Any] = {
    "apiVersion": "shipwright.io/v1beta1",
    "kind": "Build",
    "metadata": {"name": "b"},
    "spec": {"source": {"type": "Git", "git": {"url": "https://example.com/r.git"}},
             "strategy": {"name": "buildah", "kind": "ClusterBuildStrategy"},
             "output": {"image": "registry.example.com/x"},
             "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}]},
}


def test_shipwright_checker() -> None:
    assert sc.shipwright_errors(BUILD) == []
    broken = {**BUILD, "spec": {**BUILD["spec"], "tolerations": "all", "nodeSelctor": {"a": "b"}}}
    joined = "\n".join(sc.shipwright_errors(broken))
    assert "spec.tolerations: 'all' is not of type 'array'" in joined
    assert "'nodeSelctor' was unexpected" in joined
    no_output = {**BUILD, "spec": {k: v for k, v in BUILD["spec"].items() if k != "output"}}
    assert any("'output' is a required property" in e for e in sc.shipwright_errors(no_output))
    br = {"apiVersion": "shipwright.io/v1beta1", "kind": "BuildRun", "metadata": {"name": "r"},
          "spec": {"build": {"name": "b"}, "schedulerName": ["x"]}}
    assert any("spec.schedulerName" in e for e in sc.shipwright_errors(br))


def test_string_checker_reads_like_yaml_1_1() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: on\n    b: 'on'\n"
        "  annotations:\n    n: 0755\ndata:\n  at: 12:30\n  d: 2024-01-01\n  ok: \"yes\"\n"
    )
    errors = sc.string_errors(sc.load_yaml11(text))
    assert any(e.startswith("metadata.labels.a: read as bool") for e in errors), errors
    assert any(e.startswith("metadata.annotations.n: read as int 493") for e in errors), errors
    assert any(e.startswith("data.at: read as int") for e in errors), errors
    assert any(e.startswith("data.d: read as date") for e in errors), errors
    assert not any("labels.b" in e or "data.ok" in e for e in errors)
    tol = sc.load_yaml11("spec:\n  tolerations:\n  - key: a\n    value: yes\n  env:\n  - name: A\n    value: 1.0\n")
    assert {e.split(":")[0] for e in sc.string_errors(tol)} == {"spec.tolerations[0].value", "spec.env[0].value"}
