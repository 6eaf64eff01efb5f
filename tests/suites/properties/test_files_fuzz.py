"""A fuzz target over files mode (hypothesis): random multi-document files (runs, Pipelines,
ConfigMaps, CI workflows, comments, `---` with and without content, `...`, directives,
flow documents, CRLF, BOM) rendered in place. Every file written must read back as the
intended documents, nothing else may change, a second run must change nothing, and the
process never crashes."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import files_util  # type: ignore[import-not-found]
import yaml
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

PIPELINE = {"apiVersion": "tekton.dev/v1", "kind": "Pipeline", "metadata": {"name": "p"},
            "spec": {"workspaces": [{"name": "src"}], "tasks": [{"name": "build", "taskRef": {"name": "t"},
                                                                "workspaces": [{"name": "src", "workspace": "src"}]}]}}


def run_obj(name: str) -> dict[str, Any]:
    return {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "metadata": {"name": name},
            "spec": {"pipelineRef": {"name": "p"}, "workspaces": [
                {"name": "src", "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                                                 "resources": {"requests": {"storage": "1Gi"}}}}}]}}


CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "yes", "b": "0755"}}
WORKFLOW = {"on": "push", "jobs": {"build": {"runs-on": "ubuntu"}}}


@st.composite
def documents(draw: Any, names: Any) -> tuple[str, Any]:
    """(document text, the data it holds)."""
    kind = draw(st.sampled_from(["run", "run", "pipeline", "configmap", "workflow"]))
    obj = {"run": lambda: run_obj(draw(names)), "pipeline": lambda: PIPELINE, "configmap": lambda: CONFIGMAP,
           "workflow": lambda: WORKFLOW}[kind]()
    style = draw(st.sampled_from(["block", "block", "flow", "comments"]))
    if style == "flow":
        return json.dumps(obj) + "\n", obj
    text = yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)
    if style == "comments":
        lines = text.splitlines(keepends=True)
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, "# a comment\n")
        text = "".join(lines)
    return text, obj


@st.composite
def files(draw: Any) -> tuple[str, list[Any]]:
    names = st.sampled_from(["a", "b", "c", "d"])
    docs = draw(st.lists(documents(names), min_size=1, max_size=4))
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["# head\n", "%YAML 1.2\n---\n", "---\n"])))
    for i, (text, _obj) in enumerate(docs):
        if text.startswith("{") and draw(st.booleans()):
            parts.append("--- ")  # a flow document on the marker line
        elif i:
            parts.append(draw(st.sampled_from(["---\n", "--- # next\n", "...\n---\n"])))
        parts.append(text)
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["...\n", "---\n", "# tail\n"])))
    text = "".join(parts)
    if draw(st.integers(0, 5)) == 0:
        text = text.replace("\n", "\r\n")
    return text, [obj for _t, obj in docs]


def cli(cwd: Path, *args: str) -> tuple[int, str]:
    code, _out, err = files_util.cli(cwd, *args)
    return code, err


def load_all(text: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(files(), min_size=1, max_size=3), st.sampled_from(["workspaces", "pipelineruns"]))
def test_files_mode_writes_only_what_reads_back(file_list: list[tuple[str, list[Any]]], mode: str) -> None:
    d = Path(tempfile.mkdtemp())
    try:
        (d / "policy.yaml").write_text(f"apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: {mode}\n")
        (d / "pipeline.yaml").write_text(yaml.safe_dump(PIPELINE, sort_keys=False))
        names = ["pipeline.yaml"]
        before: dict[str, bytes] = {}
        for i, (text, _objs) in enumerate(file_list):
            name = f"f{i}.yaml"
            (d / name).write_bytes(text.encode())
            before[name] = text.encode()
            names.append(name)
        code, err = cli(d, "--config", "policy.yaml", *names)
        assert code in (0, 1)
        assert "Traceback" not in err and "internal error" not in err, err
        for name, (_text, objs) in zip(names[1:], file_list, strict=True):
            after = (d / name).read_bytes()
            if after == before[name]:
                continue
            docs = load_all(after.decode())  # every written file reads back
            kept = [o for o in objs if o.get("kind") != "PipelineRun"]
            assert [x for x in docs if x.get("kind") not in ("PipelineRun", "StatefulSet")] == kept
            runs = [x for x in docs if x.get("kind") == "PipelineRun"]
            assert len(runs) == sum(1 for o in objs if o.get("kind") == "PipelineRun")
        code2, err2 = cli(d, "--check", "--config", "policy.yaml", *names)
        if code == 0 or "0 failed" in err:
            assert code2 == 0, err2  # at rest after one run
    finally:
        shutil.rmtree(d)
