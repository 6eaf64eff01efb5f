"""Property tests: any run, any mode: the second render changes nothing, and re-rendering
an output under another mode equals rendering the original under that mode."""
from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.modes.krm import run_resource_list

MODES = ["workspaces", "pipelineruns", "isolate-pipelinerun", "disabled"]
WS_NAMES = ["a", "b", "c", "d"]


@st.composite
def pipelineruns(draw: Any) -> dict[str, Any]:
    version = draw(st.sampled_from(["v1", "v1beta1"]))
    names = draw(st.lists(st.sampled_from(WS_NAMES), unique=True, max_size=4))
    workspaces = []
    for n in names:
        kind = draw(st.sampled_from(["pvc", "vct", "emptyDir"]))
        if kind == "pvc":
            b: dict[str, Any] = {"name": n, "persistentVolumeClaim": {"claimName": draw(st.sampled_from(["x", "y"]))}}
        elif kind == "vct":
            b = {"name": n, "volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}}
            if draw(st.booleans()):
                b["volumeClaimTemplate"]["metadata"] = {"name": draw(st.sampled_from(["data", "x" * 60]))}
        else:
            b = {"name": n, "emptyDir": {}}
        if draw(st.booleans()):
            b["subPath"] = "s"
        workspaces.append(b)
    tasks = []
    for i in range(draw(st.integers(0, 3))):
        used = draw(st.lists(st.sampled_from(names), unique=True, max_size=1)) if names else []
        tasks.append({"name": f"t{i}", "taskRef": {"name": "x"}, "workspaces": [{"name": "w", "workspace": u} for u in used]})
    spec: dict[str, Any] = {"pipelineSpec": {"tasks": tasks}} if tasks else {"pipelineSpec": {"tasks": [{"name": "t", "taskRef": {"name": "x"}}]}}
    if workspaces:
        spec["workspaces"] = workspaces
    tpl: dict[str, Any] = {}
    if draw(st.booleans()):
        tpl["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}}
    if draw(st.booleans()):
        tpl["nodeSelector"] = {"pool": "ci"}
    key = "podTemplate" if version == "v1" else "taskPodTemplate"
    if draw(st.booleans()) and tasks:
        # (an affinity that holds nothing but our term is pruned when unpinned: not generated)
        term = {"weight": 2, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}}
        spec["taskRunSpecs"] = [{"pipelineTaskName": tasks[0]["name"], key: {"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}}}]
    if tpl:
        if version == "v1":
            spec["taskRunTemplate"] = {"podTemplate": tpl}
        else:
            spec["podTemplate"] = tpl
    return {"apiVersion": f"tekton.dev/{version}", "kind": "PipelineRun", "metadata": {"name": "pr", "namespace": "ci"}, "spec": spec}


def _render(items: list[Any], mode: str) -> tuple[str, int]:
    doc = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "c"}, "spec": {"coschedule": mode}},
    }
    out, _, code = run_resource_list(yaml.safe_dump(doc, sort_keys=False).encode())
    return out, code


def _items(out: str) -> list[Any]:
    return yaml.safe_load(out)["items"]  # type: ignore[no-any-return]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelineruns(), st.sampled_from(MODES), st.sampled_from(MODES))
def test_render_is_idempotent_and_mode_switches_converge(pr: dict[str, Any], first: str, second: str) -> None:
    out, code = _render([pr], first)
    if code != 0:
        return  # an error result; covered elsewhere
    again, code2 = _render(_items(out), first)
    assert code2 == 0
    assert _items(again) == _items(out)
    direct, code3 = _render([pr], second)
    switched, code4 = _render(_items(out), second)
    if code3 == 0 and second != "disabled":
        assert code4 == 0
        assert _items(switched) == _items(direct)
