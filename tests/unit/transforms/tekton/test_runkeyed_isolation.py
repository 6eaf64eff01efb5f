"""isolationScope (issue 32, deliverable 3): one setting for both strategies, namespace or
cluster; unset, each strategy keeps its own scope (the goldens pin that byte for byte).
Re-render and strategy switches recognise every shape the function has written."""
from __future__ import annotations

from typing import Any

import pytest
import yaml
from golden import function_config  # type: ignore[import-not-found]

from krm_fn.modes import explain
from krm_fn.modes.krm import run_resource_list
from krm_fn.transforms.tekton import names

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"
RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {%s, namespace: ci}
  spec:
    pipelineSpec:
      tasks: [{name: t, taskRef: {name: x}}]
"""
NAMED = RUN % "name: build-1"
NAMELESS = RUN % "generateName: build-"


def _policy(mode: str, scope: str | None = None, strategy: str | None = None) -> str:
    fc = function_config(mode)
    if scope:
        fc += f"    isolationScope: {scope}\n"
    if strategy:
        fc += f"    strategy: {strategy}\n"
    return fc


def _render(items: str, fc: str) -> tuple[str, Any]:
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items + fc
    out, outcome, code = run_resource_list(rl.encode())
    assert code == 0, out
    return out, outcome


def _items(out: str) -> list[dict[str, Any]]:
    return list(yaml.safe_load(out)["items"])


def _sts_anti(out: str) -> dict[str, Any]:
    (sts,) = [i for i in _items(out) if i["kind"] == "StatefulSet"]
    return dict(sts["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"])


def _run_anti(out: str) -> dict[str, Any]:
    (run,) = [i for i in _items(out) if i["kind"] == "PipelineRun"]
    return dict(run["spec"]["taskRunTemplate"]["podTemplate"]["affinity"].get("podAntiAffinity") or {})


def _rerender(out: str, fc: str) -> tuple[str, Any]:
    body = out.split("items:\n", 1)[1].split("functionConfig:\n", 1)[0]
    return _render(body, fc)


@pytest.mark.parametrize(("scope", "selector"), [(None, False), ("namespace", False), ("cluster", True)])
@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
def test_placeholders_follow_the_scope(mode: str, scope: str | None, selector: bool) -> None:
    out, outcome = _render(NAMED, _policy(mode, scope))
    anti = _sts_anti(out)
    term = anti[REQ][0] if mode == "isolate-pipelinerun" else anti[PREF][0]["podAffinityTerm"]
    assert term == names.anti_term(selector)
    assert ("namespaceSelector" in term) is selector
    (plan,) = outcome.plans
    assert plan.scope == (scope or "namespace")


@pytest.mark.parametrize(("scope", "selector"), [(None, True), ("cluster", True), ("namespace", False)])
def test_run_keyed_isolate_follows_the_scope(scope: str | None, selector: bool) -> None:
    out, outcome = _render(NAMELESS, _policy("isolate-pipelinerun", scope))
    terms = _run_anti(out)[REQ]
    assert len(terms) == 2 and all(("namespaceSelector" in t) is selector for t in terms)
    assert terms[1] == names.assistant_repel_term(selector)
    (plan,) = outcome.plans
    assert plan.scope == ("cluster" if scope is None else scope)


@pytest.mark.parametrize(("scope", "selector"), [(None, False), ("namespace", False), ("cluster", True)])
def test_run_keyed_pipelineruns_follows_the_scope(scope: str | None, selector: bool) -> None:
    out, _ = _render(NAMELESS, _policy("pipelineruns", scope))
    (entry,) = _run_anti(out)[PREF]
    assert ("namespaceSelector" in entry["podAffinityTerm"]) is selector


@pytest.mark.parametrize("mode", ["pipelineruns", "isolate-pipelinerun"])
@pytest.mark.parametrize(("first", "then"), [("cluster", "namespace"), ("namespace", "cluster"), ("cluster", None), ("namespace", None)])
def test_a_rerender_with_another_scope_rewrites_the_terms(mode: str, first: str, then: str | None) -> None:
    for items, anti in ((NAMED, _sts_anti), (NAMELESS, _run_anti)):
        out, _ = _render(items, _policy(mode, first))
        again, _ = _rerender(out, _policy(mode, then))
        fresh, _ = _render(items, _policy(mode, then))
        assert anti(again) == anti(fresh)
        same, _ = _rerender(again, _policy(mode, then))
        assert same.split("\nresults:")[0] == again.split("\nresults:")[0]  # idempotent


@pytest.mark.parametrize("scope", ["namespace", "cluster"])
def test_switching_strategy_removes_every_shape_written(scope: str) -> None:
    out, _ = _render(NAMED, _policy("isolate-pipelinerun", scope, strategy="run-keyed"))
    assert len(_run_anti(out)[REQ]) == 2
    back, _ = _rerender(out, _policy("isolate-pipelinerun", scope, strategy="placeholder"))
    assert _run_anti(back) == {}  # neither repel term is left in the run's template
    assert "krm-coschedule.dev/coschedule" not in back


def test_explain_says_which_scope_each_strategy_gives() -> None:
    _, outcome = _render(NAMED + NAMELESS.replace("build-", "other-"), _policy("isolate-pipelinerun"))
    text = explain.table(outcome.plans)
    assert (
        "In isolate-pipelinerun, the anti-affinity of placeholders (required: one run per node) looks for other "
        "runs in the run's own namespace only (Tekton's term, which has no namespace selector: "
        "tektoncd/pipeline#9531); isolationScope: cluster in the policy changes that." in text
    )
    assert "the anti-affinity of run-keyed runs (required: one run per node) looks for other runs in every namespace" in text
    _, outcome = _render(NAMED, _policy("isolate-pipelinerun", "cluster"))
    assert "placeholders (required: one run per node) looks for other runs in every namespace" in explain.table(outcome.plans)
    _, outcome = _render(NAMED, _policy("pipelineruns"))
    assert "placeholders (preferred: runs spread over nodes) looks for other runs in the run's own namespace" in explain.table(outcome.plans)
    _, outcome = _render(NAMELESS, _policy("workspaces"))
    assert explain.scope_notes(outcome.plans) == []  # run-keyed workspaces mode keeps nothing apart


def test_the_configmap_form_takes_isolation_scope() -> None:
    fc = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n    coschedule: pipelineruns\n    isolation-scope: cluster\n"
    out, _ = _render(NAMED, fc)
    assert "namespaceSelector" in str(_sts_anti(out))
    bad = fc.replace("isolation-scope: cluster", "isolation-scope: tenant")
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + NAMED + bad
    _out, outcome, code = run_resource_list(rl.encode())
    assert code == 1 and any(r.field_path == "data.isolation-scope" for r in outcome.results)


# ------------------------------------------- explain: where a run may wait for the flush (issue 32, deliverable 2)


def _k8s(mode: str, version: str, strategy: str | None = None) -> str:
    return _policy(mode, strategy=strategy) + f"    kubernetesVersion: \"{version}\"\n"


def test_explain_says_where_run_keyed_isolate_runs_wait_up_to_1_36() -> None:
    _, outcome = _render(NAMELESS, _k8s("isolate-pipelinerun", "1.36"))
    text = explain.table(outcome.plans)
    assert "May wait for the scheduler's periodic flush" in text
    assert "a run that waits for another run's node starts at the flush" in text and "Kubernetes 1.36" in text
    assert "behind its run's only live pod" in text and "#141354" in text
    _, outcome = _render(NAMELESS, _k8s("isolate-pipelinerun", "1.37"))
    text = explain.table(outcome.plans)
    assert "another run's node" not in text  # fixed in 1.37
    assert "behind its run's only live pod" in text  # not fixed


def test_explain_for_placeholders() -> None:
    _, outcome = _render(NAMED, _k8s("isolate-pipelinerun", "1.36"))
    assert explain.flush_notes(outcome.plans) == []  # no run-keyed run: placeholders never wait
    _, outcome = _render(NAMED + NAMELESS.replace("build-", "gen-"), _k8s("isolate-pipelinerun", "1.36"))
    assert any("a placeholder that waits for a node held by a run-keyed" in n for n in explain.flush_notes(outcome.plans))
    _, outcome = _render(NAMED + NAMELESS.replace("build-", "gen-"), _k8s("isolate-pipelinerun", "1.37"))
    assert not any("a placeholder that waits" in n for n in explain.flush_notes(outcome.plans))


def test_explain_json_and_mermaid_carry_the_tables_notes() -> None:
    # the table's scope and flush notes were text only: CI tools reading the JSON and a
    # reviewer reading the diagram did not get them
    import json

    _, outcome = _render(NAMED + NAMELESS.replace("build-", "gen-"), _k8s("isolate-pipelinerun", "1.36"))
    plans = json.loads(explain.as_json(outcome.plans))
    by_kind = {(p["strategy"], p["isolationScope"]) for p in plans}
    assert by_kind == {("placeholder", "namespace"), ("run-keyed", "cluster")}
    placeholder = next(p for p in plans if p["strategy"] == "placeholder")
    assert any("a placeholder that waits for a node held by a run-keyed" in w for w in placeholder["waits"])
    diagram = explain.mermaid(outcome.plans)
    notes = diagram.split('subgraph notes["notes"]\n', 1)[1]
    for note in (*explain.scope_notes(outcome.plans), *explain.flush_notes(outcome.plans)):
        assert note.strip().replace('"', "#quot;") in notes
    _, outcome = _render(NAMED, _k8s("isolate-pipelinerun", "1.36"))
    [alone] = json.loads(explain.as_json(outcome.plans))
    assert alone["waits"] == [] and alone["isolationScope"] == "namespace"  # a placeholder alone never waits
