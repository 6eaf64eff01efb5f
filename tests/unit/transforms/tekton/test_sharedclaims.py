"""Runs whose placeholders mount one existing claim earn a warning each, naming the runs and
the claim (issue 32, deliverable 6; the simulation's case is in test_coschedule_sim.py)."""
from __future__ import annotations

import pytest

from krm_fn.modes.krm import run_resource_list

RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: %(name)s, namespace: %(ns)s}
  spec:
    pipelineSpec:
      workspaces: [{name: src}, {name: cache}]
      tasks: [{name: a, taskRef: {name: s}, workspaces: [{name: cache}]}]
    workspaces:
    - {name: src, emptyDir: {}}
    - {name: cache, persistentVolumeClaim: {claimName: %(claim)s}}
"""


def _warnings(runs: list[dict[str, str]], mode: str = "pipelineruns", extra: str = "") -> list[tuple[str, str, str]]:
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(RUN % r for r in runs) + extra
    rl += f"functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata: {{name: c}}\n  spec:\n    coschedule: {mode}\n"
    _out, outcome, code = run_resource_list(rl.encode())
    assert code == 0
    return [(r.resource.name if r.resource else "", r.field_path or "", r.message) for r in outcome.results
            if r.severity == "warning" and "binds existing claim" in r.message]


@pytest.mark.parametrize("mode", ["workspaces", "pipelineruns", "isolate-pipelinerun"])
def test_each_run_is_told_with_the_others_named(mode: str) -> None:
    runs = [{"name": f"r{i}", "ns": "ci", "claim": "cache"} for i in range(3)]
    found = _warnings(runs, mode)
    assert [f[0] for f in found] == ["r0", "r1", "r2"]
    for _name, path, message in found:
        assert path == "spec.workspaces[1].persistentVolumeClaim.claimName"
        assert "binds existing claim cache, which the placeholders of 3 runs mount" in message
        assert all(f"PipelineRun ci/r{i}" in message for i in range(3))
        assert ("required" if mode == "isolate-pipelinerun" else "preferred") + " anti-affinity" in message


def test_other_claims_other_namespaces_and_shared_access_are_quiet() -> None:
    assert _warnings([{"name": "a", "ns": "ci", "claim": "one"}, {"name": "b", "ns": "ci", "claim": "two"}]) == []
    assert _warnings([{"name": "a", "ns": "ci", "claim": "c"}, {"name": "b", "ns": "team-b", "claim": "c"}]) == []
    rwx = "- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, namespace: ci}, spec: {accessModes: [ReadWriteMany]}}\n"
    rwo = rwx.replace("ReadWriteMany", "ReadWriteOnce")
    two = [{"name": "a", "ns": "ci", "claim": "c"}, {"name": "b", "ns": "ci", "claim": "c"}]
    assert _warnings(two, extra=rwx) == []
    assert len(_warnings(two, extra=rwo)) == 2
    assert _warnings(two, mode="disabled") == []


def test_both_read_paths_name_the_binding() -> None:
    """Found by test_lite's differential test: on the light path a run its transform left
    unchanged (workspaces mode, no task uses the claim: the placeholder is still made) is
    released, and the warning pointed at spec.workspaces there."""
    run = (
        "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata: {name: %s, namespace: ci}\n"
        "  spec: {workspaces: [{name: a, persistentVolumeClaim: {claimName: x}}], "
        "pipelineSpec: {tasks: [{name: t, taskRef: {name: x}}]}}\n"
    )
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + run % "r0" + run % "r1"
    rl += "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata: {name: c}\n  spec:\n    coschedule: workspaces\n"
    outs = [run_resource_list(rl.encode(), light=light)[0] for light in (True, False)]
    assert outs[0] == outs[1]
    assert outs[0].count('path: "spec.workspaces[0].persistentVolumeClaim.claimName"') == 2
