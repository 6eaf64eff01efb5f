"""The run-keyed strategy (SPEC §4b): what it writes, where, that Kubernetes 1.33 accepts it,
that it is idempotent, that switching strategy or mode undoes it (and the placeholder's work)
exactly, and the runs it applies to: generateName, TriggerTemplate templates, Pipelines-as-Code.
Whether the terms coschedule is checked by the scheduling simulation (test_coschedule_sim)."""
from __future__ import annotations

import copy
import textwrap
from pathlib import Path
from typing import Any

import pytest
import schemacheck
import yaml
from files_util import cli  # type: ignore[import-not-found]

from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.modes.krm import run_resource_list
from krm_fn.transforms.tekton import names

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"

PIPELINE_SPEC = {
    "workspaces": [{"name": "src"}, {"name": "cache"}],
    "tasks": [
        {"name": "fetch", "taskRef": {"name": "git"}, "workspaces": [{"name": "out", "workspace": "src"}]},
        {"name": "build", "runAfter": ["fetch"], "taskRef": {"name": "b"}, "workspaces": [{"name": "src"}]},
        {"name": "warm", "taskRef": {"name": "w"}, "workspaces": [{"name": "c", "workspace": "cache"}]},
        {"name": "lint", "taskRef": {"name": "l"}},
    ],
}
VCT = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def run(version: str = "v1", meta: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"tekton.dev/{version}",
        "kind": "PipelineRun",
        "metadata": meta if meta is not None else {"generateName": "build-", "namespace": "ci"},
        "spec": {
            "pipelineSpec": copy.deepcopy(PIPELINE_SPEC),
            "workspaces": [
                {"name": "src", "volumeClaimTemplate": copy.deepcopy(VCT)},
                {"name": "cache", "persistentVolumeClaim": {"claimName": "shared-cache"}},
            ],
            **spec,
        },
    }


def policy(mode: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": {"coschedule": mode, **spec}}


def render(items: list[dict[str, Any]], config: dict[str, Any]) -> tuple[dict[str, Any], int, str]:
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}, sort_keys=False)
    text += "functionConfig:\n" + textwrap.indent(yaml.safe_dump(config, sort_keys=False), "  ")
    out, _outcome, code = run_resource_list(text.encode())
    return yaml.safe_load(out), code, out


def messages(rl: dict[str, Any], severity: str = "error") -> list[dict[str, Any]]:
    return [r for r in rl.get("results") or [] if r.get("severity") == severity]


def run_template(item: dict[str, Any]) -> dict[str, Any]:
    spec = item["spec"]
    return spec["taskRunTemplate"]["podTemplate"] if item["apiVersion"].endswith("/v1") else spec["podTemplate"]


def task_templates(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    key = "podTemplate" if item["apiVersion"].endswith("/v1") else "taskPodTemplate"
    return {t["pipelineTaskName"]: t.get(key) or {} for t in item["spec"].get("taskRunSpecs") or []}


# --------------------------------------------------------------------------- what it writes


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
def test_per_run_modes_write_the_run_keyed_terms_and_keep_the_claim(version: str, mode: str) -> None:
    rl, code, _ = render([run(version)], policy(mode))
    assert code == 0, messages(rl)
    (pr,) = rl["items"]  # nothing generated
    assert pr["metadata"]["labels"] == {names.RUN_KEYED_LABEL: mode}
    assert pr["spec"]["workspaces"][0] == {"name": "src", "volumeClaimTemplate": VCT}
    aff = run_template(pr)["affinity"]
    assert aff["podAffinity"][REQ] == [names.run_keyed_term("tekton.dev/pipelineRunUID")]
    anti = aff["podAntiAffinity"]
    if mode == "isolate-pipelinerun":
        assert anti == {REQ: [names.run_keyed_anti_term("tekton.dev/pipelineRunUID", True), names.assistant_repel_term()]}
    else:
        assert anti == {PREF: [{"weight": 100, "podAffinityTerm": names.run_keyed_anti_term("tekton.dev/pipelineRunUID", False)}]}
    assert "taskRunSpecs" not in pr["spec"]


def test_workspaces_mode_keeps_the_tasks_of_each_claim_together() -> None:
    rl, code, _ = render([run()], policy("workspaces"))
    assert code == 0, messages(rl)
    (pr,) = rl["items"]
    tpls = task_templates(pr)
    assert set(tpls) == {"fetch", "build", "warm"}  # lint uses no claim
    key = "tekton.dev/pipelineRunUID"
    for task in ("fetch", "build"):
        assert tpls[task]["affinity"]["podAffinity"][REQ] == [names.run_keyed_term(key, ["fetch", "build"])]
    assert tpls["warm"]["affinity"]["podAffinity"][REQ] == [names.run_keyed_term(key, ["warm"])]
    assert "taskRunTemplate" not in pr["spec"]


def test_the_run_key_follows_the_tekton_version() -> None:
    rl, _, _ = render([run()], policy("pipelineruns", tektonVersion="v0.63.0", disableAffinityAssistant=True))
    assert run_template(rl["items"][0])["affinity"]["podAffinity"][REQ][0]["matchLabelKeys"] == ["tekton.dev/pipelineRunUID"]
    rl, _, _ = render([run()], policy("pipelineruns", tektonVersion="v0.62.3", disableAffinityAssistant=True))
    assert run_template(rl["items"][0])["affinity"]["podAffinity"][REQ][0]["matchLabelKeys"] == ["tekton.dev/pipelineRun"]


@pytest.fixture
def k8s_133() -> Any:
    saved = schemacheck.K8S_VERSION
    schemacheck.K8S_VERSION = "1.33"
    schemacheck._definitions.cache_clear()
    schemacheck._k8s_validator.cache_clear()
    yield
    schemacheck.K8S_VERSION = saved
    schemacheck._definitions.cache_clear()
    schemacheck._k8s_validator.cache_clear()


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun"])
@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_generated_terms_validate_against_kubernetes_1_33(k8s_133: Any, mode: str, version: str) -> None:
    user = {"affinity": {"podAffinity": {PREF: [{"weight": 5, "podAffinityTerm": {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "zone"}}]}}}
    tpl_key = "taskRunTemplate" if version == "v1" else "podTemplate"
    extra = {tpl_key: {"podTemplate": copy.deepcopy(user)}} if version == "v1" else {tpl_key: copy.deepcopy(user)}
    rl, code, _ = render([run(version, **extra)], policy(mode))
    assert code == 0, messages(rl)
    checked = 0
    for path, tpl in schemacheck.tekton_pod_templates(rl["items"][0]):
        assert schemacheck.pod_template_errors(tpl, path) == []
        checked += 1
    assert checked >= 1


def test_a_term_of_the_user_that_only_looks_like_ours_stays() -> None:
    mine = {"labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["tekton.dev/pipelineRunUID"], "topologyKey": names.HOSTNAME}
    rl, _, _ = render([run(taskRunTemplate={"podTemplate": {"affinity": {"podAffinity": {REQ: [mine]}}}})], policy("pipelineruns"))
    terms = run_template(rl["items"][0])["affinity"]["podAffinity"][REQ]
    assert terms == [mine, names.run_keyed_term("tekton.dev/pipelineRunUID")]
    rl2, _, _ = render(rl["items"], policy("disabled"))
    assert run_template(rl2["items"][0])["affinity"] == {"podAffinity": {REQ: [mine]}}
    assert "labels" not in rl2["items"][0]["metadata"]


# --------------------------------------------------------------------------- switching


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun"])
@pytest.mark.parametrize("other", ["workspaces", "pipelineruns", "isolate-pipelinerun", "disabled"])
def test_switching_strategy_ends_where_a_direct_render_does(version: str, mode: str, other: str) -> None:
    named = run(version, meta={"name": "nightly", "namespace": "ci", "labels": {"app": "web"}})
    direct_rk, c1, _ = render([named], policy(mode, strategy="run-keyed"))
    direct_ph, c2, _ = render([named], policy(other, strategy="placeholder"))
    assert c1 == c2 == 0
    # placeholder first, then run-keyed: the claim template comes back from the StatefulSet
    ph_first, _, _ = render([named], policy(other, strategy="placeholder"))
    then_rk, code, _ = render(ph_first["items"], policy(mode, strategy="run-keyed"))
    assert code == 0, messages(then_rk)
    assert then_rk["items"] == direct_rk["items"]
    # run-keyed first, then placeholder (or disabled)
    then_ph, code, _ = render(direct_rk["items"], policy(other, strategy="placeholder"))
    assert code == 0, messages(then_ph)
    assert then_ph["items"] == direct_ph["items"]


def test_rendering_again_changes_nothing() -> None:
    for mode in ("workspaces", "pipelineruns", "isolate-pipelinerun"):
        _, _, once = render([run()], policy(mode))
        items = yaml.safe_load(once)["items"]
        twice, code, _ = render(items, policy(mode))
        assert code == 0 and twice["items"] == items


# --------------------------------------------------------------------------- which runs


def test_auto_gives_named_runs_a_placeholder_and_the_others_run_keyed_terms() -> None:
    named = run(meta={"name": "release", "namespace": "ci"})
    rl, code, _ = render([run(), named], policy("pipelineruns"))
    assert code == 0
    kinds = [i["kind"] for i in rl["items"]]
    assert kinds == ["PipelineRun", "PipelineRun", "StatefulSet"]
    assert rl["items"][2]["metadata"]["annotations"][OWNER_ANNOTATION] == "PipelineRun/release"
    assert names.RUN_KEYED_LABEL in rl["items"][0]["metadata"]["labels"]
    assert "labels" not in rl["items"][1]["metadata"]


def test_strategy_run_keyed_applies_to_named_runs_too() -> None:
    rl, code, _ = render([run(meta={"name": "release", "namespace": "ci"})], policy("pipelineruns", strategy="run-keyed"))
    assert code == 0 and [i["kind"] for i in rl["items"]] == ["PipelineRun"]
    assert rl["items"][0]["metadata"]["labels"] == {names.RUN_KEYED_LABEL: "pipelineruns"}


def test_kubernetes_below_1_31() -> None:
    rl, code, _ = render([run()], policy("pipelineruns", kubernetesVersion="1.30"))
    (err,) = messages(rl)
    assert code == 1 and err["field"]["path"] == "metadata" and "1.30" in err["message"] and "1.31" in err["message"]
    rl, code, _ = render([run()], policy("pipelineruns", strategy="run-keyed", kubernetesVersion="v1.29.4"))
    (err,) = messages(rl)
    assert code == 1 and err["field"]["path"] == "spec.strategy" and "strategy placeholder" in err["message"]
    # a cluster that cannot run it still gets placeholders for named runs
    rl, code, _ = render([run(meta={"name": "n", "namespace": "ci"})], policy("pipelineruns", kubernetesVersion="1.30"))
    assert code == 0 and [i["kind"] for i in rl["items"]] == ["PipelineRun", "StatefulSet"]


def test_configmap_form_keys() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags"},
          "data": {"coschedule": "pipelineruns", "coschedule-strategy": "placeholder", "kubernetes-version": "1.33"}}
    rl, code, _ = render([run()], cm)
    assert code == 1 and "strategy placeholder" in messages(rl)[0]["message"]
    cm["data"]["coschedule-strategy"] = "sometimes"
    rl, code, _ = render([run()], cm)
    assert code == 1 and messages(rl)[0]["field"]["path"] == "data.coschedule-strategy"


def test_trigger_template_runs_are_rendered_in_place_and_variables_kept() -> None:
    tt = {
        "apiVersion": "triggers.tekton.dev/v1beta1", "kind": "TriggerTemplate", "metadata": {"name": "on-push", "namespace": "ci"},
        "spec": {"params": [{"name": "rev"}], "resourcetemplates": [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x-$(uid)"}, "data": {"a": "$(tt.params.rev)"}},
            {**run(meta={"name": "push-$(uid)", "labels": {"rev": "$(tt.params.rev)"}}),
             "spec": {**run()["spec"], "params": [{"name": "rev", "value": "$(tt.params.rev)"}]}},
        ]},
    }
    rl, code, _ = render([tt], policy("pipelineruns"))
    assert code == 0, messages(rl)
    (out,) = rl["items"]
    cm, pr = out["spec"]["resourcetemplates"]
    assert cm == tt["spec"]["resourcetemplates"][0]
    assert pr["metadata"] == {"name": "push-$(uid)", "labels": {"rev": "$(tt.params.rev)", names.RUN_KEYED_LABEL: "pipelineruns"}}
    assert pr["spec"]["params"] == [{"name": "rev", "value": "$(tt.params.rev)"}]
    assert run_template(pr)["affinity"]["podAffinity"][REQ] == [names.run_keyed_term("tekton.dev/pipelineRunUID")]
    infos = [r for r in messages(rl, "info") if r.get("resourceRef", {}).get("kind") == "TriggerTemplate"]
    assert infos and infos[0]["field"]["path"].startswith("spec.resourcetemplates[1].")


def test_trigger_template_errors_name_the_template_and_the_path() -> None:
    bad = run(meta={"generateName": "b-"})
    bad["spec"]["workspaces"] = [{"name": "src", "volumeClaimTemplate": {"metadata": {"name": "x"}}}]
    tt = {"apiVersion": "triggers.tekton.dev/v1beta1", "kind": "TriggerTemplate", "metadata": {"name": "t"},
          "spec": {"resourcetemplates": [bad]}}
    rl, code, _ = render([tt], policy("pipelineruns"))
    (err,) = messages(rl)
    assert code == 1
    assert err["resourceRef"]["kind"] == "TriggerTemplate"
    assert err["field"]["path"] == "spec.resourcetemplates[0].spec.workspaces[0].volumeClaimTemplate.spec"
    rl, code, _ = render([tt | {"spec": {"resourcetemplates": 5}}], policy("pipelineruns"))
    assert code == 1 and messages(rl)[0]["field"]["path"] == "spec.resourcetemplates"


def test_trigger_template_under_strategy_placeholder_is_an_error() -> None:
    tt = {"apiVersion": "triggers.tekton.dev/v1beta1", "kind": "TriggerTemplate", "metadata": {"name": "t"},
          "spec": {"resourcetemplates": [run(meta={"name": "p-$(uid)"})]}}
    rl, code, _ = render([tt], policy("pipelineruns", strategy="placeholder"))
    (err,) = messages(rl)
    assert code == 1 and "TriggerTemplate" in err["message"] and "strategy: auto or run-keyed" in err["message"]
    assert err["field"]["path"] == "spec.resourcetemplates[0].metadata"


def test_pipelines_as_code_runs_by_annotation() -> None:
    pac = run(meta={"name": "web-pr", "annotations": {"pipelinesascode.tekton.dev/on-event": "[pull_request]"}})
    rl, code, _ = render([pac], policy("pipelineruns"))
    assert code == 0 and [i["kind"] for i in rl["items"]] == ["PipelineRun"]
    assert rl["items"][0]["metadata"]["labels"] == {names.RUN_KEYED_LABEL: "pipelineruns"}
    rl, code, _ = render([pac], policy("pipelineruns", strategy="placeholder"))
    assert code == 1 and "Pipelines-as-Code" in messages(rl)[0]["message"]


def _cli(cwd: Path, *args: str) -> tuple[int, str]:
    code, out, err = cli(cwd, *args)
    return code, out + err


def test_pipelines_as_code_runs_by_path_in_files_mode(tmp_path: Path) -> None:
    (tmp_path / ".tekton").mkdir()
    pr = tmp_path / ".tekton" / "pull-request.yaml"
    pr.write_text(yaml.safe_dump(run(meta={"name": "web-on-pr"}), sort_keys=False))
    cfg = tmp_path / "policy.yaml"
    cfg.write_text(yaml.safe_dump(policy("pipelineruns")))
    code, text = _cli(tmp_path, "--config", "policy.yaml", ".tekton/pull-request.yaml")
    assert code == 1, text  # rewritten (pre-commit convention)
    docs = list(yaml.safe_load_all(pr.read_text()))
    assert len(docs) == 1  # no StatefulSet appended: PaC applies no other document
    assert docs[0]["metadata"]["labels"] == {names.RUN_KEYED_LABEL: "pipelineruns"}
    assert _cli(tmp_path, "--config", "policy.yaml", "--check", ".tekton/pull-request.yaml")[0] == 0


def test_a_pipelines_as_code_run_rendered_with_a_placeholder_before_is_repaired(tmp_path: Path) -> None:
    """Earlier versions rewrote `.tekton/` runs with a placeholder PaC never applies; now the
    run is run-keyed: its claim template comes back, its pin and StatefulSet go."""
    (tmp_path / "old").mkdir()
    (tmp_path / ".tekton").mkdir()
    original = yaml.safe_dump(run(meta={"name": "web-pr"}), sort_keys=False)
    (tmp_path / "old" / "pr.yaml").write_text(original)
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(policy("pipelineruns")))
    assert _cli(tmp_path, "--config", "p.yaml", "old/pr.yaml")[0] == 1  # a placeholder, as before
    old = (tmp_path / "old" / "pr.yaml").read_text()
    assert [d["kind"] for d in yaml.safe_load_all(old)] == ["PipelineRun", "StatefulSet"]
    pr = tmp_path / ".tekton" / "pr.yaml"
    pr.write_text(old)
    code, text = _cli(tmp_path, "--config", "p.yaml", ".tekton/pr.yaml")
    assert code == 1 and "holds claim template" in text, text
    docs = list(yaml.safe_load_all(pr.read_text()))
    assert [d["kind"] for d in docs] == ["PipelineRun"]
    direct, _, _ = render([run(meta={"name": "web-pr", "annotations": {"pipelinesascode.tekton.dev/on-event": "x"}})], policy("pipelineruns"))
    want = direct["items"][0]
    del want["metadata"]["annotations"]
    assert docs[0] == want
    assert _cli(tmp_path, "--config", "p.yaml", "--check", ".tekton/pr.yaml")[0] == 0


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun"])
def test_templates_and_pac_runs_render_as_the_generate_name_runs_they_become(mode: str) -> None:
    """What the simulation plays for them: a TriggerTemplate's run template and a PaC run get
    the very spec a generateName run gets."""
    plain, _, _ = render([run()], policy(mode))
    want = plain["items"][0]["spec"]
    tt = {"apiVersion": "triggers.tekton.dev/v1beta1", "kind": "TriggerTemplate", "metadata": {"name": "t", "namespace": "ci"},
          "spec": {"resourcetemplates": [run(meta={"generateName": "build-"})]}}
    pac = run(meta={"name": "build", "namespace": "ci", "annotations": {"pipelinesascode.tekton.dev/on-event": "[push]"}})
    rl, code, _ = render([tt, pac], policy(mode))
    assert code == 0
    assert rl["items"][0]["spec"]["resourcetemplates"][0]["spec"] == want
    assert rl["items"][1]["spec"] == want
