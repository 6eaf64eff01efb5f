"""scheduling.runtimeClassName (issue 32, deliverable 5): set on every TaskRun pod template and
on Shipwright Builds and BuildRuns (v0.19+, SHIP-0040), validated (RuntimeClassNameNotValid)
and conflict-handled by onConflict like schedulerName."""
from __future__ import annotations

from typing import Any

import pytest
import yaml
from test_shipwright import build
from test_shipwright import buildrun
from test_shipwright import policy
from test_shipwright import render

from krm_fn.transforms import shipwright

RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: r, namespace: ci}
  spec:
    pipelineRef: {name: p}
    taskRunTemplate:
      podTemplate: %s
    taskRunSpecs:
    - pipelineTaskName: a
      podTemplate: {nodeSelector: {disk: ssd}}
"""


def _run(tpl: dict[str, Any], **scheduling: Any) -> Any:
    return render(RUN % yaml.safe_dump(tpl, default_flow_style=True).strip(), policy(**scheduling))


def test_a_taskrun_pod_template_gets_it() -> None:
    r = _run({}, runtimeClassName="kata")
    assert r.code == 0, r.problems()
    spec = r.obj("PipelineRun", "r")["spec"]
    assert spec["taskRunTemplate"]["podTemplate"]["runtimeClassName"] == "kata"
    assert "runtimeClassName" not in spec["taskRunSpecs"][0]["podTemplate"]  # set fields only


@pytest.mark.parametrize(("action", "code", "value", "severity"), [("error", 1, "gvisor", "error"), ("keep", 0, "gvisor", "warning"), ("override", 0, "kata", "warning")])
def test_another_value_is_a_conflict(action: str, code: int, value: str, severity: str) -> None:
    r = _run({"runtimeClassName": "gvisor"}, runtimeClassName="kata", onConflict=action)
    assert r.code == code
    assert (severity, "PipelineRun r", "spec.taskRunTemplate.podTemplate.runtimeClassName", None) in r.problems()
    if code == 0:
        assert r.obj("PipelineRun", "r")["spec"]["taskRunTemplate"]["podTemplate"]["runtimeClassName"] == value


def test_the_same_value_is_quiet() -> None:
    r = _run({"runtimeClassName": "kata"}, runtimeClassName="kata")
    assert r.code == 0 and r.problems() == []


def test_builds_and_buildruns_get_it_and_a_buildrun_never_overrides_its_build() -> None:
    r = render(build() + buildrun() + buildrun("emb", build_name=None, embedded={}), policy(runtimeClassName="kata"))
    assert r.code == 0, r.problems()
    assert r.obj("Build", "b")["spec"]["runtimeClassName"] == "kata"
    assert "runtimeClassName" not in r.obj("BuildRun", "emb")["spec"]  # no top-level override with an embedded spec
    assert r.obj("BuildRun", "emb")["spec"]["build"]["spec"]["runtimeClassName"] == "kata"
    r = render(build(runtimeClassName="gvisor") + buildrun(), policy(runtimeClassName="kata", onConflict="keep"))
    assert "runtimeClassName" not in r.obj("BuildRun", "br")["spec"]  # the Build's conflict is reported on the Build
    assert ("warning", "Build b", "spec.runtimeClassName", None) in r.problems()


@pytest.mark.parametrize("bad", ["Kata", "kata_containers", ""])
def test_invalid_names_are_errors_with_shipwrights_reason(bad: str) -> None:
    r = render(build(runtimeClassName=bad) + buildrun(runtimeClassName=bad))
    assert ("error", "Build b", "spec.runtimeClassName", "RuntimeClassNameNotValid") in r.problems()
    assert ("error", "BuildRun br", "spec.runtimeClassName", "RuntimeClassNameNotValid") in r.problems()
    r = _run({}, runtimeClassName=bad or "-x")
    assert r.code == 1 and any(p[2] == "spec.scheduling.runtimeClassName" and p[3] == "RuntimeClassNameNotValid" for p in r.problems())


def test_an_embedded_build_forbids_the_override() -> None:
    r = render(buildrun("emb", build_name=None, embedded={}, runtimeClassName="kata"))
    assert ("error", "BuildRun emb", "spec.runtimeClassName", "BuildRunBuildFieldOverrideForbidden") in r.problems()


def test_effective_values_take_the_buildruns_else_the_builds() -> None:
    assert shipwright.effective_values({"runtimeClassName": "a"}, {"runtimeClassName": "b"})["runtimeClassName"] == "b"
    assert shipwright.effective_values({"runtimeClassName": "a"}, {})["runtimeClassName"] == "a"
    assert "runtimeClassName" not in shipwright.effective_values({}, {})


def test_a_shipwright_without_the_field_is_left_alone_with_a_warning() -> None:
    old = policy(runtimeClassName="kata").replace("spec:\n", "spec:\n  shipwrightVersion: v0.18.2\n", 1)
    r = render(build() + buildrun(build_name="elsewhere"), old)
    assert r.code == 0
    assert "runtimeClassName" not in r.obj("Build", "b")["spec"] and "runtimeClassName" not in r.obj("BuildRun", "br")["spec"]
    (w,) = [x for x in r.results if x.field_path == "spec.scheduling.runtimeClassName"]
    assert w.severity == "warning" and "Shipwright v0.18.2" in w.message and "v0.19.0" in w.message
    r = render(RUN % "{}" + build(), old)
    assert r.obj("PipelineRun", "r")["spec"]["taskRunTemplate"]["podTemplate"]["runtimeClassName"] == "kata"
    assert "runtimeClassName" not in r.obj("Build", "b")["spec"]
    new = policy(runtimeClassName="kata").replace("spec:\n", "spec:\n  shipwrightVersion: v0.19.0\n", 1)
    r = render(build(), new)
    assert r.obj("Build", "b")["spec"]["runtimeClassName"] == "kata" and r.problems() == []
