from __future__ import annotations

from typing import Any

import pytest

from krm_fn import config


def typed(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": spec}


def cm(data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "feature-flags"}, "data": data}


def test_no_config_means_defaults() -> None:
    p, res = config.load(None)
    assert p is not None and res == []
    assert p.mode == "workspaces"
    assert p.pvc_retention == {"whenDeleted": "Delete", "whenScaled": "Delete"}
    assert p.assistant_image == config.DEFAULT_NOP_IMAGE
    assert p.default_service_account == "default"  # Tekton's default-service-account
    assert p.hardening == "deny" and p.on_conflict == "error" and p.generate_name == "error"


def test_empty_configmap_means_defaults() -> None:
    p, res = config.load(cm({}))
    assert p is not None and p.mode == "workspaces" and res == []


@pytest.mark.parametrize(
    ("version", "disable", "mode", "expected"),
    [
        # after the migration (v1.0+): only coschedule counts
        ("v1.15.0", None, "workspaces", "workspaces"),
        ("v1.0.0", None, "pipelineruns", "pipelineruns"),
        ("v1.0.0", None, "isolate-pipelinerun", "isolate-pipelinerun"),
        ("v1.0.0", None, "disabled", "disabled"),
        ("v1.0.0", True, "workspaces", "workspaces"),  # the trap row: ignored now
        # during the migration (v0.50 - v0.70)
        ("v0.60.0", False, "workspaces", "workspaces"),
        ("v0.60.0", True, "workspaces", "disabled"),
        ("v0.60.0", True, "disabled", "disabled"),
        ("v0.60.0", True, "pipelineruns", "pipelineruns"),
        ("v0.60.0", True, "isolate-pipelinerun", "isolate-pipelinerun"),
        # before coschedule existed
        ("v0.49.0", True, None, "disabled"),
        ("v0.49.0", False, None, "workspaces"),
    ],
)
def test_migration_table(version: str, disable: bool | None, mode: str | None, expected: str) -> None:
    spec: dict[str, Any] = {"tektonVersion": version}
    if disable is not None:
        spec["disableAffinityAssistant"] = disable
    if mode is not None:
        spec["coschedule"] = mode
    p, res = config.load(typed(spec))
    assert p is not None, [r.message for r in res]
    assert p.mode == expected
    assert all(r.severity != "error" for r in res)


def test_disable_flag_ignored_after_v1_warns() -> None:
    p, res = config.load(typed({"tektonVersion": "v1.2.0", "disableAffinityAssistant": True}))
    assert p is not None
    assert [r.severity for r in res] == ["warning"]
    assert res[0].field_path == "spec.disableAffinityAssistant"
    assert "ignored" in res[0].message


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun", "disabled"])
def test_migration_invalid_rows(mode: str) -> None:
    p, res = config.load(typed({"tektonVersion": "v0.60.0", "disableAffinityAssistant": False, "coschedule": mode}))
    assert p is None
    assert res[0].severity == "error"
    assert f"coschedule value {mode} is incompatible with disable-affinity-assistant setting to false" in res[0].message


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
def test_per_run_modes_before_v051_are_errors(mode: str) -> None:
    p, res = config.load(typed({"tektonVersion": "v0.50.2", "disableAffinityAssistant": True, "coschedule": mode}))
    assert p is None
    assert "not implemented" in res[0].message and res[0].field_path == "spec.coschedule"


def test_schema_errors_are_all_reported_with_paths() -> None:
    p, res = config.load(
        typed({"coschedule": "sometimes", "assistant": {"imagee": "x"}, "scheduling": {"onConflict": "panic"}})
    )
    assert p is None
    paths = sorted(r.field_path or "" for r in res)
    assert paths == ["spec.assistant", "spec.coschedule", "spec.scheduling.onConflict"]
    assert all(r.severity == "error" and r.resource is not None and r.resource.name == "ci" for r in res)
    assert any("imagee" in r.message for r in res)


def test_wrong_kind_lists_accepted_kinds() -> None:
    p, res = config.load({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})
    assert p is None
    assert "CoschedulePolicy.v1alpha1.fn.kpt.dev" in res[0].message and "ConfigMap.v1" in res[0].message


def test_configmap_tekton_keys() -> None:
    p, res = config.load(
        cm(
            {
                "coschedule": "PipelineRuns",  # Tekton lower-cases it
                "set-security-context": "1",  # Go ParseBool
                "default-affinity-assistant-pod-template": "nodeSelector:\n  disktype: ssd\n",
                "default-pod-template": "schedulerName: my-scheduler\n",
                "nop-image": "example.com/nop:1",
                "default-service-account": "pipeline",  # config-defaults
                "enable-api-fields": "beta",  # a real feature-flags key: ignored
            }
        )
    )
    assert p is not None, [r.message for r in res]
    assert p.mode == "pipelineruns"
    assert p.set_security_context is True
    assert p.assistant_pod_template == {"nodeSelector": {"disktype": "ssd"}}
    assert p.default_pod_template == {"schedulerName": "my-scheduler"}
    assert p.assistant_image == "example.com/nop:1"
    assert p.default_service_account == "pipeline"


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        ({"coschedule": "sometimes"}, "data.coschedule", 'invalid value for feature flag "coschedule": "sometimes"'),
        ({"disable-affinity-assistant": "maybe"}, "data.disable-affinity-assistant", "not a boolean"),
        ({"default-pod-template": "a: [unclosed"}, "data.default-pod-template", "not valid YAML"),
        ({"default-affinity-assistant-pod-template": "hostAliases: []\n"}, "data.default-affinity-assistant-pod-template", "hostAliases"),
        ({"tekton-version": "latest"}, "data.tekton-version", "does not match"),
        ({"coschedule": 5}, "data.coschedule", "must be a string"),
    ],
)
def test_configmap_errors_point_at_data_keys(data: dict[str, Any], path: str, fragment: str) -> None:
    p, res = config.load(cm(data))
    assert p is None
    assert res[0].field_path == path
    assert fragment in res[0].message


def test_config_file_annotations_become_result_file() -> None:
    c = typed({"coschedule": "nope"})
    c["metadata"]["annotations"] = {"internal.config.kubernetes.io/path": "policy.yaml", "internal.config.kubernetes.io/index": "0"}
    _p, res = config.load(c)
    assert res[0].file_path == "policy.yaml" and res[0].file_index == 0


def test_default_service_account_typed_and_empty() -> None:
    p, res = config.load(typed({"defaultServiceAccount": "pipeline"}))
    assert p is not None and res == [] and p.default_service_account == "pipeline"
    # Tekton takes an empty value as "no default": the assistant then names no account
    p, res = config.load(cm({"default-service-account": ""}))
    assert p is not None and res == [] and p.default_service_account == ""
    p, res = config.load(typed({"defaultServiceAccount": 5}))
    assert p is None and res[0].field_path == "spec.defaultServiceAccount"
