"""Which PipelineRun workspaces a pipeline task uses (krm_fn.tekton_workspaces): Tekton's
propagated workspaces, optional and unbound declarations, pipelines in pipelines, on plain
data."""
from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.tekton_workspaces import references
from krm_fn.tekton_workspaces import scanned_strings
from krm_fn.tekton_workspaces import substituted
from krm_fn.tekton_workspaces import task_workspaces

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
        ("$(workspaces.)", []),
    ],
)
def test_references(text: str, expected: list[str]) -> None:
    assert [n for n, _ref in references(text)] == expected


def test_a_reference_tekton_cannot_read() -> None:
    assert references("ls $(workspaces.a.b.c)/") == [(None, "$(workspaces.a.b.c)")]
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
        elif dot or dq or sq:
            out.append((dot or dq or sq, m.group(0)))
    return out


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
