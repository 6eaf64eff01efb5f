from __future__ import annotations

from typing import Any

import pytest

from krm_fn.policy import config
from krm_fn.policy import configmap
from krm_fn.policy import nop


def typed(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": spec}


def cm(data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "feature-flags"}, "data": data}


def test_no_config_means_defaults() -> None:
    p, res = config.load(None)
    assert p is not None and res == []
    assert p.mode == "workspaces"
    assert p.pvc_retention == {"whenDeleted": "Delete", "whenScaled": "Delete"}
    assert p.assistant_image == nop.DEFAULT_NOP_IMAGE
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
    assert paths == ["spec.assistant.imagee", "spec.coschedule", "spec.scheduling.onConflict"]
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
        ({"default-affinity-assistant-pod-template": "hostAliases: []\n"}, "data.default-affinity-assistant-pod-template.hostAliases", "hostAliases"),
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


# --------------------------------------------------------------------------- the assistant image


def test_the_release_table() -> None:
    releases = nop.nop_releases()
    assert releases == sorted(set(releases))
    assert releases[0] == (0, 15, 0) and releases[-1] == config.NEWEST_TEKTON
    assert len(releases) == 224
    assert {(0, 44, 1), (0, 67, 0), (1, 8, 0)}.isdisjoint(releases)  # never released
    assert {(0, 44, 0), (0, 44, 5), (0, 47, 9), (1, 9, 6), (1, 14, 1), (1, 16, 0)} <= set(releases)
    assert nop.nop_image(config.NEWEST_TEKTON) == nop.DEFAULT_NOP_IMAGE


@pytest.mark.parametrize(
    ("version", "tag"),
    [
        ("v1.9.4", "v1.9.4"),
        ("1.12", "v1.12.0"),
        ("v1.8.0", "v1.7.0"),  # no such release: the newest before it
        ("v1.15.3", "v1.15.0"),  # between releases
        ("v1.16.0", "v1.16.0"),
        ("v0.15.0", "v0.15.0"),
        ("v0.14.0", "v1.16.0"),  # Tekton ran no nop image then; the placeholder needs one
    ],
)
def test_the_image_follows_the_tekton_version(version: str, tag: str) -> None:
    for fc in (typed({"tektonVersion": version}), cm({"tekton-version": version})):
        p, res = config.load(fc)
        assert p is not None and res == []
        assert p.assistant_image == f"{nop.NOP_REPOSITORY}:{tag}"


def test_an_image_of_another_release_warns() -> None:
    image = f"{nop.NOP_REPOSITORY}:v1.12.0@sha256:" + "0" * 64
    p, res = config.load(typed({"tektonVersion": "v1.15.0", "assistant": {"image": image}}))
    assert p is not None and p.assistant_image == image  # the user's image is used as set
    (w,) = res
    assert w.severity == "warning" and w.field_path == "spec.assistant.image"
    assert "nop image of Tekton v1.12.0" in w.message and "spec.tektonVersion is v1.15.0" in w.message
    assert f"{nop.NOP_REPOSITORY}:v1.15.0" in w.message
    assert w.message.startswith("CoschedulePolicy ")
    p, res = config.load(cm({"tekton-version": "v1.14.1", "nop-image": "mirror.example.com/tekton/nop:v1.12.0"}))
    assert p is not None
    (w,) = res
    assert w.field_path == "data.nop-image" and "data.tekton-version is v1.14.1" in w.message


@pytest.mark.parametrize(
    "spec",
    [
        {"tektonVersion": "v1.12.0", "assistant": {"image": "mirror.example.com/nop:v1.12.0"}},
        {"tektonVersion": "v1.8.0", "assistant": {"image": f"{nop.NOP_REPOSITORY}:v1.7.0"}},  # what v1.8.0 resolves to
        {"tektonVersion": "v1.16.0", "assistant": {"image": f"{nop.NOP_REPOSITORY}:v1.16.0"}},
        {"tektonVersion": "v1.12.0", "assistant": {"image": f"{nop.NOP_REPOSITORY}@sha256:" + "0" * 64}},  # digest only
        {"tektonVersion": "v1.12.0", "assistant": {"image": "registry.k8s.io/pause:3.10"}},  # not the nop image
        {"tektonVersion": "v1.12.0", "assistant": {"image": f"{nop.NOP_REPOSITORY}:latest"}},
        {"tektonVersion": "v0.14.0", "assistant": {"image": f"{nop.NOP_REPOSITORY}:v1.16.0"}},  # no nop release to compare
        {"assistant": {"image": f"{nop.NOP_REPOSITORY}:v1.12.0"}},  # no declared version
    ],
)
def test_images_that_cannot_disagree_do_not_warn(spec: dict[str, Any]) -> None:
    p, res = config.load(typed(spec))
    assert p is not None and res == []
    assert p.assistant_image == spec["assistant"]["image"]


def test_nop_tag() -> None:
    assert nop.nop_tag(f"{nop.NOP_REPOSITORY}:v1.12.0@sha256:abc") == (1, 12, 0)
    assert nop.nop_tag("localhost:5000/nop") is None  # the port is not a tag
    assert nop.nop_tag("localhost:5000/tekton/nop:0.50.1") == (0, 50, 1)
    assert nop.nop_tag("example.com/nop:v1.2") is None
    assert nop.nop_tag("example.com/not-nop:v1.2.3") is None


# ---------------------------------------------------------------- errors that name the fix


def test_an_unknown_configmap_key_near_a_known_one_is_an_error() -> None:
    """`kpt fn eval ... -- coschedul=pipelineruns`: a typo was a warning and the default mode
    was rendered (kpt showed PASS); the same typo in a CoschedulePolicy is an error."""
    p, res = config.load(cm({"coschedul": "pipelineruns"}))
    assert p is None
    (e,) = res
    assert e.severity == "error" and e.field_path == "data.coschedul"
    assert "'coschedul'" in e.message and "did you mean 'coschedule'?" in e.message


def test_a_typed_policy_typo_has_a_did_you_mean_at_the_key() -> None:
    p, res = config.load(typed({"coschedle": "pipelineruns", "scheduling": {"nodeSelectr": {"a": "b"}}}))
    assert p is None
    got = sorted((r.field_path, r.message.split(": ", 1)[1]) for r in res)
    assert [g[0] for g in got] == ["spec.coschedle", "spec.scheduling.nodeSelectr"]
    assert "did you mean 'coschedule'?" in got[0][1] and "did you mean 'nodeSelector'?" in got[1][1]


def test_an_unknown_configmap_key_without_a_near_one_lists_the_keys() -> None:
    (w,) = config.load(cm({"zzz": "1"}))[1]
    assert w.severity == "warning"
    assert all(k in w.message for k in configmap.CONFIGMAP_KEYS)


def test_tektons_other_feature_flags_are_no_typo() -> None:
    """A feature-flags ConfigMap copied from the cluster holds dozens of keys the function
    does not read: none of them is a warning."""
    flags = {"enable-api-fields": "beta", "disable-creds-init": "false", "_example": "x", "enable-step-actions": "true"}
    p, res = config.load(cm({**flags, "coschedule": "pipelineruns"}))
    assert p is not None and p.mode == "pipelineruns" and res == []


def _rt(text: str) -> Any:
    from krm_fn.yaml.roundtrip import loader

    return loader.rt_load(text)


def test_a_version_yaml_reads_as_a_number_says_how_to_quote_it() -> None:
    """`kubernetesVersion: 1.30` is the float 1.3; the message gives the source spelling."""
    fc = _rt("apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata: {name: ci}\nspec:\n  kubernetesVersion: 1.30\n")
    p, (e,) = config.load(fc)
    assert p is None and e.field_path == "spec.kubernetesVersion"
    assert 'YAML read 1.30 as a number; quote it: "1.30"' in e.message


def test_a_configmap_number_says_how_to_quote_it() -> None:
    fc = _rt("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\ndata:\n  tekton-version: 0.60\n")
    p, (e,) = config.load(fc)
    assert p is None and e.field_path == "data.tekton-version"
    assert 'quote it: "0.60"' in e.message


def test_an_enum_violation_in_the_assistant_template_names_the_allowed_values() -> None:
    p, (e,) = config.load(typed({"assistant": {"podTemplate": {"tolerations": [{"key": "a", "operator": "Equals"}]}}}))
    assert p is None
    assert e.field_path == "spec.assistant.podTemplate.tolerations[0].operator"
    assert '"Equals" is not one of "Exists", "Equal", ""' in e.message


def test_the_schema_enumerates_every_closed_toleration_field() -> None:
    import json
    from pathlib import Path

    schema = json.loads((Path(config.__file__).parent.parent / "schemas" / "coschedulepolicy.schema.json").read_text())
    spec = schema["properties"]["spec"]["properties"]
    sched = spec["scheduling"]["properties"]["tolerations"]["items"]["properties"]
    tpl = spec["assistant"]["properties"]["podTemplate"]["properties"]["tolerations"]["items"]["properties"]
    assert sched["operator"]["enum"] == ["Exists", "Equal"] and sched["effect"]["enum"] == ["NoSchedule", ""]
    assert set(tpl["operator"]["enum"]) == {"Exists", "Equal", ""}
    assert set(tpl["effect"]["enum"]) == {"NoSchedule", "PreferNoSchedule", "NoExecute", ""}


CONTROL_PLANE = {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}


@pytest.mark.parametrize(
    ("conf", "path", "rule"),
    [
        (typed({"assistant": {"podTemplate": {"tolerations": [CONTROL_PLANE]}}}), "spec.assistant.podTemplate.tolerations[0]", "control-plane-toleration"),
        (
            typed({"defaultPodTemplate": {"nodeSelector": {"node-role.kubernetes.io/control-plane": ""}}}),
            "spec.defaultPodTemplate.nodeSelector[node-role.kubernetes.io/control-plane]",
            "control-plane-node-selector",
        ),
        (typed({"defaultPodTemplate": {"tolerations": [{"operator": "Exists"}]}}), "spec.defaultPodTemplate.tolerations[0]", "wildcard-toleration"),
        (
            cm({"default-affinity-assistant-pod-template": "tolerations:\n- key: node.kubernetes.io/unreachable\n  operator: Exists\n"}),
            "data.default-affinity-assistant-pod-template.tolerations[0]",
            "node-lifecycle-toleration",
        ),
    ],
)
def test_the_policys_own_pod_templates_are_hardened(conf: dict[str, Any], path: str, rule: str) -> None:
    # SPEC §5: hardening covers the policy's own values; the templates it writes into the
    # placeholder and into runs are its values as much as scheduling.* is
    _p, res = config.load(conf)
    [r] = [r for r in res if r.tags]
    assert (r.severity, r.field_path, r.tags) == ("error", path, (("hardening", rule),))
    assert "SHIP-0039" in r.message and ("assistant's" in r.message or "default pod template" in r.message)


def test_template_hardening_follows_the_action_and_the_allow_list() -> None:
    tpl = {"assistant": {"podTemplate": {"tolerations": [CONTROL_PLANE]}}}
    p, res = config.load(typed({**tpl, "hardening": {"action": "warn"}}))
    assert p is not None and [(r.severity, r.field_path) for r in res] == [("warning", "spec.assistant.podTemplate.tolerations[0]")]
    p, res = config.load(typed({**tpl, "hardening": {"action": "off"}}))
    assert p is not None and res == []
    allow = {"allowTolerationKeys": ["node-role.kubernetes.io/control-plane"]}
    p, res = config.load(typed({**tpl, "hardening": allow}))
    assert p is not None and res == []


@pytest.mark.parametrize(("version", "warned"), [("1.37", False), ("1.36", False), ("1.38", True), ("2.0", True)])
def test_a_kubernetes_version_newer_than_known_warns(version: str, warned: bool) -> None:
    p, res = config.load(typed({"kubernetesVersion": version}))
    assert p is not None
    assert [(r.severity, r.field_path) for r in res] == ([("warning", "spec.kubernetesVersion")] if warned else [])
    if warned:
        assert "newer than the newest Kubernetes release this function knows (1.37)" in res[0].message
    p, res = config.load(cm({"kubernetes-version": version}))
    assert [r.field_path for r in res] == (["data.kubernetes-version"] if warned else [])


@pytest.mark.parametrize(("conf", "wanted"), [
    ({**typed({"coschedule": "pipelineruns"}), "apiVersion": "fn.kpt.dev/v1"}, "fn.kpt.dev/v1alpha1"),
    ({**typed({}), "apiVersion": "fn.kpt.dev/v1beta1"}, "fn.kpt.dev/v1alpha1"),
    ({**cm({"coschedule": "pipelineruns"}), "apiVersion": "core/v1"}, "v1"),
])
def test_the_right_kind_at_the_wrong_version_says_which_version(conf: dict[str, Any], wanted: str) -> None:
    p, [r] = config.load(conf)
    assert p is None and (r.severity, r.field_path) == ("error", "apiVersion")
    assert f"is apiVersion {wanted}, not '{conf['apiVersion']}'; set apiVersion: {wanted}" in r.message
