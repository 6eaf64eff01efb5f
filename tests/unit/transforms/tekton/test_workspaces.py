"""Which PipelineRun workspaces a pipeline task uses (krm_fn.transforms.tekton.workspaces): Tekton's
propagated workspaces, optional and unbound declarations, pipelines in pipelines. First the
rule on plain data, then whole runs through the KRM entry in coschedule workspaces mode."""
from __future__ import annotations

import re
import textwrap
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.modes.krm import run_resource_list
from krm_fn.orchestration.process import Outcome
from krm_fn.transforms.tekton import names
from krm_fn.transforms.tekton.workspaces import references
from krm_fn.transforms.tekton.workspaces import scanned_strings
from krm_fn.transforms.tekton.workspaces import substituted
from krm_fn.transforms.tekton.workspaces import task_workspaces

# --------------------------------------------------------------------------- references


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cp -r $(workspaces.source.path)/src /tmp", ["source"]),
        ("#!/bin/sh\nset -e\ncd $(workspaces.a.path)\nls $(workspaces.b.path)/x && echo $(workspaces.a.claim)\n", ["a", "b", "a"]),
        ("$(workspaces.w.bound) $(workspaces.w.claim) $(workspaces.w.volume)", ["w", "w", "w"]),
        ("$(workspaces.w)", ["w"]),
        ("$(workspaces.w.path[*])", ["w"]),
        ('$(workspaces["with.dots"])', ["with.dots"]),
        ("$(workspaces['single'])", ["single"]),
        # not references: other prefixes, a param named like a workspace, open or split ones
        ("$(params.source) $(params.workspaces.source.path) $(context.workspaces.x)", []),
        ("$(workspace.source.path) $workspaces.source.path ${workspaces.source.path}", []),
        ("$(workspaces.source.path", []),
        ("$(workspaces.source\n.path)", []),
        ('$(workspaces["source"].path)', []),
    ],
)
def test_references(text: str, expected: list[str]) -> None:
    assert [n for n, _ref in references(text)] == expected


def test_a_reference_tekton_cannot_use() -> None:
    assert references("ls $(workspaces.a.b.c)/") == [(None, "$(workspaces.a.b.c)")]
    # an empty name: Tekton looks for a workspace called "" and stops there
    assert references("$(workspaces.) $(workspaces..path) $(workspaces[''])") == [
        (None, "$(workspaces.)"), (None, "$(workspaces..path)"), (None, "$(workspaces[''])")
    ]
    # a reference runs to the first `)`, another opening inside it included
    assert references("$(workspaces.a $(workspaces.b.path)") == [(None, "$(workspaces.a $(workspaces.b.path)")]
    assert references("$(workspaces.a$(workspaces.b)") == [("a$(workspaces", "$(workspaces.a$(workspaces.b)")]


# Tekton's reading of a reference, written as one regular expression: `$(workspaces` then
# `.VAR`, `["VAR"]` or `['VAR']`, each VAR the shortest text on one line (with an optional
# trailing `[*]`) before the closing `)`. `references` does the same without backtracking.
_REFERENCE = re.compile(r"""\$\(workspaces(?:\.(.*?(?:\[\*\])?)|\["(.*?(?:\[\*\])?)"\]|\['(.*?(?:\[\*\])?)'\])\)""")


def _by_regex(text: str) -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for m in _REFERENCE.finditer(text):
        dot, dq, sq = m.groups()
        if dot is not None and "." in dot:
            parts = dot.split(".")
            out.append((parts[0] if len(parts) == 2 else None, m.group(0)))
        else:
            out.append((dot or dq or sq, m.group(0)))
    return [(name or None, ref) for name, ref in out]


_PIECES = st.sampled_from(["$(workspaces", ".", "a", "b", "(", ")", "[", "]", '"', "'", "*", "\n", " ", "$", "workspaces", ".path", '"])', "'])"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_references_read_as_tekton_reads_them(text: str) -> None:
    assert references(text) == _by_regex(text)


# --------------------------------------------------------------------------- which fields


SCANNED = {
    "steps[0].script": {"steps": [{"script": "X"}]},
    "steps[0].args[1]": {"steps": [{"args": ["-v", "X"]}]},
    "steps[0].command[0]": {"steps": [{"command": ["X"]}]},
    "steps[0].workingDir": {"steps": [{"workingDir": "X"}]},
    "steps[0].env[0].value": {"steps": [{"env": [{"name": "E", "value": "X"}]}]},
    "steps[0].params[0].value": {"steps": [{"ref": {"name": "a"}, "params": [{"name": "p", "value": "X"}]}]},
    "steps[0].params[0].value[1]": {"steps": [{"params": [{"name": "p", "value": ["y", "X"]}]}]},
    "steps[0].params[0].value.k": {"steps": [{"params": [{"name": "p", "value": {"k": "X"}}]}]},
    "sidecars[0].script": {"sidecars": [{"script": "X"}]},
    "sidecars[0].args[0]": {"sidecars": [{"args": ["X"]}]},
    "sidecars[0].command[0]": {"sidecars": [{"command": ["X"]}]},
    "sidecars[0].workingDir": {"sidecars": [{"workingDir": "X"}]},
    "sidecars[0].env[0].value": {"sidecars": [{"env": [{"name": "E", "value": "X"}]}]},
    "stepTemplate.args[0]": {"stepTemplate": {"args": ["X"]}},
    "stepTemplate.command[0]": {"stepTemplate": {"command": ["X"]}},
    "stepTemplate.workingDir": {"stepTemplate": {"workingDir": "X"}},
    "stepTemplate.env[0].value": {"stepTemplate": {"env": [{"name": "E", "value": "X"}]}},
}

NOT_SCANNED = {
    "step image": {"steps": [{"image": "X"}]},
    "step volumeMounts": {"steps": [{"volumeMounts": [{"name": "v", "mountPath": "X"}]}]},
    "step workspaces": {"steps": [{"workspaces": [{"name": "cache", "mountPath": "X"}]}]},
    "step env valueFrom": {"steps": [{"env": [{"name": "E", "valueFrom": {"configMapKeyRef": {"name": "X", "key": "k"}}}]}]},
    "step stdoutConfig": {"steps": [{"stdoutConfig": {"path": "X"}}]},
    "sidecar image": {"sidecars": [{"image": "X"}]},
    "stepTemplate image": {"stepTemplate": {"image": "X"}},
    "stepTemplate script": {"stepTemplate": {"script": "X"}},
    "results": {"results": [{"name": "r", "description": "X"}]},
    "volumes": {"volumes": [{"name": "v", "configMap": {"name": "X"}}]},
    "workspace mountPath": {"workspaces": [{"name": "other", "optional": True, "mountPath": "X"}]},
    "description": {"description": "X"},
}

REF = "cd $(workspaces.cache.path) && make"


def _task(ts: dict[str, Any], **kw: Any) -> dict[str, Any]:
    spec = yaml.safe_load(yaml.safe_dump(ts).replace("X", REF))
    return {"name": "t", "taskSpec": spec, **kw}


@pytest.mark.parametrize("path", sorted(SCANNED))
def test_a_reference_in_a_scanned_field_propagates_the_workspace(path: str) -> None:
    ts = SCANNED[path]
    assert task_workspaces(_task(ts)).names == ["cache"]
    assert [p for p, t in scanned_strings(_task(ts)["taskSpec"]) if "$(workspaces" in t] == [path]


@pytest.mark.parametrize("what", sorted(NOT_SCANNED))
def test_a_reference_elsewhere_propagates_nothing(what: str) -> None:
    assert task_workspaces(_task(NOT_SCANNED[what])).names == []


def test_mapped_workspaces_come_first_and_are_not_propagated_again() -> None:
    task = _task(
        {"steps": [{"script": "ls $(workspaces.src.path) $(workspaces.extra.path) $(workspaces.cache.path)"}]},
        workspaces=[{"name": "src", "workspace": "source"}, {"name": "cache"}],
    )
    # src is the task-side name of a mapping: it binds pipeline workspace source, nothing else
    assert task_workspaces(task).names == ["source", "cache", "extra"]


def test_declared_or_not_by_the_task_or_the_pipeline() -> None:
    declared = _task({"workspaces": [{"name": "cache"}], "steps": [{"script": REF}]})
    undeclared = _task({"steps": [{"script": REF}]})
    assert task_workspaces(declared).names == task_workspaces(undeclared).names == ["cache"]
    assert task_workspaces(declared).unbound == []


def test_bound_alone_propagates_nothing_for_a_workspace_tekton_substitutes() -> None:
    task = _task({"steps": [{"script": 'if [ "$(workspaces.cache.bound)" = true ]; then :; fi'}]})
    # the run binds cache (or the Pipeline declares it): true or false before Tekton looks
    assert task_workspaces(task, substituted=frozenset({"cache"})).names == []
    # a name neither binds nor declares stays a reference, and Tekton propagates it
    assert task_workspaces(task).names == ["cache"]
    both = _task({"steps": [{"script": "$(workspaces.cache.bound) $(workspaces.cache.path)"}]})
    assert task_workspaces(both, substituted=frozenset({"cache"})).names == ["cache"]


def test_substituted_names_are_the_runs_bindings_and_the_pipelines_declarations() -> None:
    run_spec = {"workspaces": [{"name": "a", "emptyDir": {}}, "junk", {"name": 3}]}
    assert substituted(run_spec, {"workspaces": [{"name": "b"}]}) == {"a", "b"}
    assert substituted(None, "junk") == frozenset()


# --------------------------------------------------------------------------- optional, unbound


def test_an_optional_workspace_the_task_does_not_map_is_not_used() -> None:
    task = _task(
        {"workspaces": [{"name": "cache", "optional": True}, {"name": "source"}], "steps": [{"script": "ls $(workspaces.source.path)"}]},
        workspaces=[{"name": "source"}],
    )
    uses = task_workspaces(task)
    assert uses.names == ["source"] and uses.unbound == []


def test_an_optional_workspace_a_step_refers_to_is_propagated() -> None:
    task = _task({"workspaces": [{"name": "cache", "optional": True}], "steps": [{"script": REF}]})
    assert task_workspaces(task).names == ["cache"]


def test_a_required_workspace_nothing_binds_is_reported() -> None:
    task = _task(
        {
            "workspaces": [{"name": "source"}, {"name": "cache", "optional": "true"}],
            "steps": [{"workspaces": [{"name": "source"}], "script": "$(workspaces.source.bound)"}],
        }
    )
    uses = task_workspaces(task, substituted=frozenset({"source"}))
    assert uses.names == []
    # optional must be the boolean true; a string is not Tekton's optional
    assert uses.unbound == [("taskSpec.workspaces[0]", "source"), ("taskSpec.workspaces[1]", "cache")]


def test_unreadable_references_are_reported_with_their_field() -> None:
    uses = task_workspaces(_task({"steps": [{"image": "x"}, {"args": ["ok", "$(workspaces.a.b.c)"]}]}))
    assert uses.unreadable == [("taskSpec.steps[1].args[1]", "$(workspaces.a.b.c)")]


# --------------------------------------------------------------------------- other task kinds


def test_a_referenced_task_gets_only_its_mappings() -> None:
    task = {"name": "t", "taskRef": {"name": "build"}, "workspaces": [{"name": "output", "workspace": "source"}]}
    assert task_workspaces(task).names == ["source"]


@pytest.mark.parametrize("child", [{"pipelineRef": {"name": "inner"}}, {"pipelineSpec": {"tasks": [{"name": "x", "taskSpec": {"steps": [{"script": REF}]}}]}}])
def test_a_child_pipeline_gets_only_its_mappings(child: dict[str, Any]) -> None:
    uses = task_workspaces({"name": "t", **child, "workspaces": [{"name": "src", "workspace": "source"}]})
    assert uses.child and uses.names == ["source"]


@pytest.mark.parametrize(
    "task",
    [None, "t", [], {"name": "t", "workspaces": "x"}, {"name": "t", "workspaces": [None, {"name": 1}, {"name": "a", "workspace": 2}]},
     {"name": "t", "taskSpec": "x"}, {"name": "t", "taskSpec": {"steps": "x", "sidecars": [None], "stepTemplate": []}},
     {"name": "t", "taskSpec": {"steps": [None, {"script": 1, "args": "x", "env": [None, {"value": 2}], "params": ["p", {"value": 3}]}]}},
     {"name": "t", "taskSpec": {"workspaces": [None, "x", {"name": None}], "steps": []}}],
)
def test_wrong_shapes_are_ignored(task: Any) -> None:
    uses = task_workspaces(task)
    assert uses.names in ([], ["a"]) and uses.unbound == [] and uses.unreadable == []


# --------------------------------------------------------------------------- whole runs

HEADER = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def render(items: str, mode: str = "workspaces") -> tuple[str, Outcome, int]:
    config = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "c"}, "spec": {"coschedule": mode}}
    text = HEADER + textwrap.dedent(items) + "functionConfig:\n" + textwrap.indent(yaml.safe_dump(config, sort_keys=False), "  ")
    out, outcome, code = run_resource_list(text.encode())
    assert outcome is not None
    return out, outcome, code


def pins(out: str) -> dict[str, str]:
    """pipelineTaskName -> the assistant its taskRunSpecs entry pins it to."""
    (pr,) = [i for i in yaml.safe_load(out)["items"] if i["kind"] == "PipelineRun"]
    out_: dict[str, str] = {}
    for t in pr["spec"].get("taskRunSpecs") or []:
        tpl = t.get("podTemplate") or t.get("taskPodTemplate") or {}
        for term in ((tpl.get("affinity") or {}).get("podAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []:
            out_[t["pipelineTaskName"]] = term["labelSelector"]["matchLabels"]["app.kubernetes.io/instance"]
    return out_


def results(outcome: Outcome, severity: str) -> list[Any]:
    return [r for r in outcome.results if r.severity == severity]


# The shape of Tekton's propagating-workspaces example: the run binds a claim template, a
# ConfigMap and a Secret, and no task maps or declares any of them.
PROPAGATED = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: bake, namespace: ci}
  spec:
    workspaces:
    - name: scratch
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 16Mi}}
    - name: notes
      configMap: {name: notes}
    - name: token
      secret: {secretName: token}
    pipelineSpec:
      tasks:
      - name: gather
        taskSpec:
          steps:
          - name: copy
            image: busybox
            script: |
              test -s "$(workspaces.token.path)/value"
              cp "$(workspaces.notes.path)/list.txt" "$(workspaces.scratch.path)/"
      - name: show
        runAfter: [gather]
        taskSpec:
          steps:
          - name: show
            image: busybox
            command: [cat]
            args: ["$(workspaces.scratch.path)/list.txt"]
      - name: probe
        taskSpec:
          params: [{name: scratch, default: none}]
          steps:
          - name: probe
            image: busybox
            script: echo "$(params.scratch) $(workspaces.scratch.bound)"
      finally:
      - name: tidy
        taskSpec:
          stepTemplate:
            workingDir: $(workspaces.scratch.path)
          steps:
          - {name: rm, image: busybox, script: rm -f list.txt}
"""


def test_propagated_workspaces_pin_the_tasks_that_refer_to_them() -> None:
    out, outcome, code = render(PROPAGATED)
    assert code == 0 and not results(outcome, "error") and not results(outcome, "warning")
    aa = names.assistant_name("scratch", "bake")
    # probe only asks whether scratch is bound (and has a param of that name): not pinned
    assert pins(out) == {"gather": aa, "show": aa, "tidy": aa}
    assert [a["tasks"] for a in outcome.plans[0].assistants] == [["gather", "show", "tidy"]]
    again, _, code2 = run_resource_list(out.encode())
    assert code2 == 0 and again.split("\nresults:\n")[0] == out.split("\nresults:\n")[0]


# The shape of Tekton's propagating-workspaces-in-pipelines example: a referenced Pipeline
# declares the workspace, its task only refers to it.
PROPAGATED_REF = """\
- apiVersion: tekton.dev/v1
  kind: Pipeline
  metadata: {name: listing, namespace: ci}
  spec:
    workspaces:
    - name: shared
    tasks:
    - name: list
      taskSpec:
        steps:
        - image: busybox
          command: ["ls"]
          args: ["$(workspaces.shared.path)"]
    - name: other
      taskRef: {name: other}
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: listing-run, namespace: ci}
  spec:
    pipelineRef: {name: listing}
    workspaces:
    - name: shared
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 16Mi}}
"""


def test_propagated_workspaces_in_a_referenced_pipeline() -> None:
    out, outcome, code = render(PROPAGATED_REF)
    assert code == 0 and not results(outcome, "error")
    assert pins(out) == {"list": names.assistant_name("shared", "listing-run")}
    # the Pipeline need not declare it: Tekton propagates what the run binds
    out2, _, code2 = render(PROPAGATED_REF.replace("    workspaces:\n    - name: shared\n    tasks:", "    tasks:"))
    assert code2 == 0 and pins(out2) == pins(out)


# The shape of Tekton's optional-workspaces example, with claims: the build task declares an
# optional cache it is not given, on another claim than its source.
OPTIONAL = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: opt, namespace: ci}
  spec:
    workspaces:
    - name: source
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 1Gi}}
    - name: cache
      persistentVolumeClaim: {claimName: shared-cache}
    pipelineSpec:
      workspaces:
      - name: source
      - name: cache
        optional: true
      tasks:
      - name: build
        workspaces:
        - name: source
        taskSpec:
          workspaces:
          - name: source
          - name: cache
            optional: true
          steps:
          - image: busybox
            script: |
              if [ "$(workspaces.cache.bound)" = true ]; then echo cached; fi
              make -C "$(workspaces.source.path)"
      - name: warm
        workspaces:
        - name: cache
        taskRef: {name: warm}
"""


def test_an_optional_workspace_the_task_is_not_given_is_not_used() -> None:
    out, outcome, code = render(OPTIONAL)
    # before: build counted cache as used, a false "uses workspaces backed by different claims"
    assert code == 0 and not results(outcome, "error") and not results(outcome, "warning")
    assert pins(out) == {"build": names.assistant_name("source", "opt"), "warm": names.assistant_name("cache", "opt")}


def test_an_optional_workspace_the_task_refers_to_is_used() -> None:
    items = OPTIONAL.replace('echo cached; fi', 'ls "$(workspaces.cache.path)"; fi')
    _, outcome, code = render(items)
    assert code == 1
    (err,) = results(outcome, "error")
    assert err.field_path == "spec.pipelineSpec.tasks[0].workspaces"
    assert "build" in err.message and "more than one PersistentVolumeClaim is bound" in err.message


def test_a_required_workspace_the_task_is_not_given_is_a_warning() -> None:
    items = OPTIONAL.replace("          - name: cache\n            optional: true\n", "          - name: cache\n")
    out, outcome, code = render(items)
    assert code == 0
    (warn,) = results(outcome, "warning")
    assert warn.field_path == "spec.pipelineSpec.tasks[0].taskSpec.workspaces[1]"
    assert "pipeline task build declares workspace cache" in warn.message
    assert "is required but has not been bound" in warn.message and "optional: true" in warn.message
    # never pinned for it: Tekton gives it no PipelineRun workspace
    assert pins(out)["build"] == names.assistant_name("source", "opt")


def test_a_required_workspace_in_a_referenced_pipeline_names_the_pipeline() -> None:
    items = PROPAGATED_REF.replace("      taskSpec:\n        steps:", "      taskSpec:\n        workspaces: [{name: out}]\n        steps:")
    _, outcome, _ = render(items, "pipelineruns")
    (warn,) = results(outcome, "warning")
    assert warn.field_path == "spec.pipelineRef.tasks[0].taskSpec.workspaces[0]"
    assert warn.message.startswith("Pipeline listing: pipeline task list declares workspace out")


def test_a_reference_tekton_cannot_read_is_an_error() -> None:
    out, outcome, code = render(PROPAGATED.replace("$(workspaces.scratch.path)/list.txt", "$(workspaces.scratch.path.x)"))
    assert code == 1
    (err,) = results(outcome, "error")
    assert err.field_path == "spec.pipelineSpec.tasks[1].taskSpec.steps[0].args[0]"
    assert "$(workspaces.scratch.path.x)" in err.message and "$(workspaces.NAME.path)" in err.message
    assert not [i for i in yaml.safe_load(out)["items"] if i["kind"] == "StatefulSet"]


CHILD = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: outer, namespace: ci}
  spec:
    workspaces:
    - name: source
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 1Gi}}
    pipelineSpec:
      tasks:
      - name: fetch
        taskRef: {name: fetch}
        workspaces: [{name: source}]
      - name: checks
        runAfter: [fetch]
        pipelineRef: {name: checks}
        workspaces: [{name: src, workspace: source}]
"""


def test_a_child_pipeline_with_a_claim_is_a_warning_in_workspaces_mode() -> None:
    out, outcome, code = render(CHILD)
    assert code == 0
    aa = names.assistant_name("source", "outer")
    assert pins(out) == {"fetch": aa}  # a taskRunSpecs entry would not reach the child's pods
    (warn,) = results(outcome, "warning")
    assert warn.field_path == "spec.pipelineSpec.tasks[1].workspaces"
    assert "pipeline task checks runs a child pipeline" in warn.message and aa in warn.message
    assert "coschedule: pipelineruns" in warn.message


def test_a_child_pipeline_follows_the_run_level_pin_in_per_run_modes() -> None:
    out, outcome, code = render(CHILD, "pipelineruns")
    assert code == 0 and not results(outcome, "warning")
    (pr,) = [i for i in yaml.safe_load(out)["items"] if i["kind"] == "PipelineRun"]
    # Tekton copies spec.taskRunTemplate into the child PipelineRun
    term = pr["spec"]["taskRunTemplate"]["podTemplate"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term == [names.pin_term(names.assistant_name("", "outer"))]


def test_a_child_pipeline_without_a_claim_is_fine() -> None:
    items = CHILD.replace("workspaces: [{name: src, workspace: source}]", "params: [{name: x, value: y}]")
    out, outcome, code = render(items)
    assert code == 0 and not results(outcome, "warning")
