"""Wrong types reach no bug path: every field a transform reads, given a value of another
type, is an error result naming the object, the field path and the fix, or is accepted for
what it is; "internal error" is unreachable from any input. Known cases first, then a
hypothesis fuzz target that puts a wrong-typed value anywhere in real runs and policies."""
from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT

from krm_fn.modes.krm import run_resource_list

H = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
TASKS = "pipelineSpec: {tasks: [{name: a, taskRef: {name: t}}]}"
VCT = "workspaces: [{name: w, volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}]"


def run(spec: str) -> str:
    return "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n    name: r\n  spec:\n" + "".join(
        "    " + line + "\n" for line in spec.splitlines()
    )


def policy(spec: str) -> str:
    return "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata: {name: p}\n  spec:\n" + "".join(
        "    " + line + "\n" for line in spec.splitlines()
    )


CASES = {
    "run nodeSelector a string": (run(TASKS + "\ntaskRunTemplate:\n  podTemplate:\n    nodeSelector: abc") + policy("coschedule: disabled\nscheduling: {nodeSelector: {pool: ci}}"),
                                  "spec.taskRunTemplate.podTemplate.nodeSelector", "map"),
    "policy defaultPodTemplate.nodeSelector a list": (run(TASKS) + policy("defaultPodTemplate: {nodeSelector: [a]}"), "spec.defaultPodTemplate.nodeSelector", "must be a mapping"),
    "policy defaultPodTemplate.affinity a number": (run(TASKS) + policy("defaultPodTemplate: {affinity: 5}"), "spec.defaultPodTemplate.affinity", "must be a mapping"),
    "policy defaultPodTemplate.schedulerName a list": (run(TASKS) + policy("defaultPodTemplate: {schedulerName: [a]}"), "spec.defaultPodTemplate.schedulerName", "must be a string"),
    "a python tag in a ConfigMap pod template": (
        run(TASKS) + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data:\n"
        "    default-pod-template: |\n      nodeSelector: !!python/object/apply:os.system [echo hi]\n",
        "data.default-pod-template.nodeSelector", "must be a mapping"),
    "pipelineSpec.tasks a mapping": (run("pipelineSpec: {tasks: {a: 1}}\n" + VCT), "spec.pipelineSpec.tasks", "must be a list of pipeline tasks"),
    "a null task": (run("pipelineSpec: {tasks: [null]}\n" + VCT), "spec.pipelineSpec.tasks[0]", "must be a mapping with a name"),
    "a task workspace that is a string": (run("pipelineSpec: {tasks: [{name: a, taskRef: {name: t}, workspaces: [ws]}]}\n" + VCT),
                                          "spec.pipelineSpec.tasks[0].workspaces[0]", "must be a mapping with a name"),
    "task workspaces a string": (run("pipelineSpec: {tasks: [{name: a, taskRef: {name: t}, workspaces: ws}]}\n" + VCT),
                                 "spec.pipelineSpec.tasks[0].workspaces", "must be a list"),
    "workspaces[0].workspace a list": (run("pipelineSpec: {tasks: [{name: a, taskRef: {name: t}, workspaces: [{name: s, workspace: [w]}]}]}\n" + VCT),
                                       "spec.pipelineSpec.tasks[0].workspaces[0].workspace", "must name a pipeline workspace"),
    "a binding name null": (run(TASKS + "\nworkspaces: [{name: null, volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}]"),
                            "spec.workspaces[0].name", "needs the name of a pipeline workspace"),
    "BuildRun spec.build.spec a string": (
        "- apiVersion: shipwright.io/v1beta1\n  kind: BuildRun\n  metadata: {name: br}\n  spec:\n    build:\n      spec: str\n"
        + policy("scheduling: {nodeSelector: {pool: ci}}"), "spec.build.spec", "must be a Build spec"),
    # found by the fuzz target with more seeds (session 4)
    "run nodeSelector a string under a per-run mode": (
        run(TASKS + "\ntaskRunTemplate:\n  podTemplate:\n    nodeSelector: abc\n" + VCT) + policy("coschedule: pipelineruns"),
        "spec.taskRunTemplate.podTemplate.nodeSelector", "map"),
    "volumeClaimTemplate metadata.labels a string": (
        run(TASKS + "\nworkspaces: [{name: w, volumeClaimTemplate: {metadata: {labels: text}, spec: {accessModes: [ReadWriteOnce]}}}]") + policy("coschedule: pipelineruns"),
        "spec.workspaces[0].volumeClaimTemplate.metadata.labels", "must be a mapping of strings"),
    "a recursive alias": ("- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata: {name: r}\n  spec: &s\n    params: [*s]\n",
                          None, "refers to itself through a YAML alias"),
    "a lone surrogate escape": ('- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata: {name: r}\n  spec:\n    params: [{name: a, value: "\\ud800"}]\n',
                                None, "half a UTF-16 surrogate pair"),
}


def check(text: str) -> tuple[int, list[dict[str, Any]]]:
    out, _outcome, code = run_resource_list(text.encode())
    assert code in (0, 1)
    doc = yaml.safe_load(out)
    assert isinstance(doc, dict) and doc.get("kind") == "ResourceList"
    given_items = yaml.safe_load(text.split("functionConfig:")[0]) or {}
    assert len(doc["items"]) >= len(given_items.get("items") or [])  # nothing dropped
    results = doc.get("results") or []
    assert not any("internal error" in r["message"] for r in results), results
    errors = [r for r in results if r["severity"] == "error"]
    assert (code == 1) == bool(errors)
    for r in errors:
        assert r.get("resourceRef") or (r.get("field") or {}).get("path") or r["message"].startswith("items["), r
    return code, errors


@pytest.mark.parametrize("name", sorted(CASES))
def test_known_wrong_types_are_errors_with_field_and_fix(name: str) -> None:
    text, field, fix = CASES[name]
    code, errors = check(H + text)
    assert code == 1
    hits = [r for r in errors if fix in r["message"] and (field is None or (r.get("field") or {}).get("path") == field)]
    assert hits, errors


def test_a_resolver_param_name_that_is_a_list_is_not_a_bug() -> None:
    """Found by the fuzz target: the assistant's tekton.dev/pipeline label reads the
    resolver's params; a name that is not a string is no name (the label is left out)."""
    code, _errors = check(H + run("pipelineRef: {resolver: git, params: [{name: [a], value: b}]}\n" + VCT) + policy("coschedule: pipelineruns"))
    assert code == 0


# --------------------------------------------------------------------------- fuzz target


def _objects() -> list[dict[str, Any]]:
    """Tekton, Triggers and Shipwright objects of the fixtures, as plain data."""
    objs: list[dict[str, Any]] = []
    for case in sorted((ROOT / "fixtures").iterdir()):
        try:
            doc = yaml.safe_load((case / "input.yaml").read_text())
        except (OSError, yaml.YAMLError):
            continue
        for it in (doc or {}).get("items") or []:
            if isinstance(it, dict) and str(it.get("apiVersion", "")).startswith(("tekton.dev/", "shipwright.io/", "triggers.tekton.dev/")):
                objs.append(it)
    return objs


OBJECTS = _objects()
POLICIES = [
    {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "p"},
     "spec": {"coschedule": mode, "scheduling": {"nodeSelector": {"pool": "ci"}, "tolerations": [{"key": "ci", "operator": "Exists", "effect": "NoSchedule"}]},
              "defaultPodTemplate": {"schedulerName": "s", "securityContext": {"runAsNonRoot": True}}}}
    for mode in ("workspaces", "pipelineruns", "isolate-pipelinerun", "disabled")
] + [
    {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "p"},
     "spec": {"coschedule": mode, "strategy": "run-keyed"}}
    for mode in ("workspaces", "pipelineruns", "isolate-pipelinerun")
]
WRONG = st.sampled_from(["text", 7, None, True, [], ["x"], {}, {"k": "v"}, [{"a": 1}], 1.5])


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _replace(node: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_wrong_type_anywhere_is_never_a_bug(data: Any) -> None:
    obj = copy.deepcopy(data.draw(st.sampled_from(OBJECTS), label="object"))
    pol = copy.deepcopy(data.draw(st.sampled_from(POLICIES), label="policy"))
    target = data.draw(st.sampled_from(["object", "object", "policy"]), label="where")
    tree = obj if target == "object" else pol
    paths = [p for p in _paths(tree) if p[:1] not in (("apiVersion",), ("kind",))]
    path = data.draw(st.sampled_from(paths), label="path")
    _replace(tree, path, data.draw(WRONG, label="value"))
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [obj], "functionConfig": pol}, sort_keys=False)
    check(text)
