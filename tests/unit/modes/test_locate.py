"""Every message locates by file, line and column (issue 33): schema and semantic errors of a
policy point at the key in the policy file, an object's errors at its field, duplicates name
the other file's own line and count every occurrence, whatever files are named."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from krm_fn.yaml.field_position import field_position

CMD = [sys.executable, "-m", "krm_fn"]
RUN = """apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: build-42
spec:
  pipelineSpec:
    workspaces:
    - name: src
    tasks:
    - name: fetch
      taskRef: {name: git-clone}
      workspaces: [{name: output, workspace: src}]
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n---\n"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=cwd)


def test_field_position_finds_the_deepest_key() -> None:
    text = "a:\n  b.c: 1\n  l:\n  - x: 1\n  - y: {z: 2}\n"
    assert field_position(text, "a.b.c") == (2, 3)  # a key holding a dot
    assert field_position(text, "a.l[1].y.z") == (5, 9)
    assert field_position(text, "a.l[1].nope") == (5, 5)  # the nearest parent that exists
    assert field_position(text, "") == (1, 1)


@pytest.mark.parametrize(
    ("policy", "where", "near"),
    [
        (
            "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n"
            "  scheduling:\n    nodeSelectr: {a: b}\n",
            "pol.yaml:7:5:", "did you mean 'nodeSelector'?",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  tekton-version: v1.0.0\n"
            "  coschedle: pipelineruns\n",
            "pol.yaml:7:3:", "did you mean 'coschedule'?",
        ),
        (
            "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n"
            "  coschedule: sometimes\n",
            "pol.yaml:6:3:", "is not one of",
        ),
    ],
)
def test_policy_errors_point_at_the_key_in_text_and_json(tmp_path: Path, policy: str, where: str, near: str) -> None:
    (tmp_path / "pol.yaml").write_text(policy)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "run.yaml").write_text(RUN)
    p = _cli(tmp_path, "--check", "--config", "pol.yaml", "sub/run.yaml")
    assert p.returncode == 1 and f"{where} [error]" in p.stderr and near in p.stderr, p.stderr
    j = _cli(tmp_path, "--check", "--format", "json", "--config", "pol.yaml", "sub/run.yaml")
    (err,) = [r for r in json.loads(j.stdout)["results"] if r["severity"] == "error"]
    line, col = (int(x) for x in where.split(":")[1:3])
    assert err["file"] == {"path": "pol.yaml", "index": 0, "line": line, "column": col}


def test_an_objects_error_points_at_its_field(tmp_path: Path) -> None:
    (tmp_path / "run.yaml").write_text(CM + RUN.replace("  name: build-42\n", "  labels: {a: b}\n"))
    p = _cli(tmp_path, "--check", "run.yaml")
    assert p.returncode == 1
    assert "run.yaml:7:1: [error] tekton.dev/v1/PipelineRun metadata: the run has neither metadata.name" in p.stderr, p.stderr


def _twins(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(RUN)
    (tmp_path / "b.yaml").write_text(CM + RUN)
    (tmp_path / "c.yaml").write_text(CM + CM + RUN)


@pytest.mark.parametrize("named", [["a.yaml"], ["c.yaml"], ["a.yaml", "b.yaml", "c.yaml"], ["."]])
def test_duplicates_name_the_other_files_own_lines_and_count_all(tmp_path: Path, named: list[str]) -> None:
    """`also items[N] in FILE` numbered the document by its place in the package's combined
    list (changing with the files named), and a name used 3 times was reported as twice."""
    _twins(tmp_path)
    p = _cli(tmp_path, "--check", *named)
    assert p.returncode == 1
    lines = sorted(ln for ln in p.stderr.splitlines() if "[error]" in ln)
    assert [ln.split(" ", 1)[0] for ln in lines] == ["a.yaml:4:3:", "b.yaml:8:3:", "c.yaml:12:3:"], p.stderr
    assert "this PipelineRun 3 times (also b.yaml:8:3, c.yaml:12:3)" in lines[0]
    assert "this PipelineRun 3 times (also a.yaml:4:3, c.yaml:12:3)" in lines[1]
    assert "items[" not in p.stderr


def test_a_kptfile_configmap_error_points_at_the_key_in_the_kptfile(tmp_path: Path) -> None:
    (tmp_path / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n"
        "  - exec: krm-coschedule\n    configMap:\n      coschedle: pipelineruns\n"
    )
    (tmp_path / "run.yaml").write_text(RUN)
    p = _cli(tmp_path, "--check", "run.yaml")
    assert p.returncode == 1
    assert p.stderr.startswith("Kptfile:9:7: [error] v1/ConfigMap/function-input data.coschedle:"), p.stderr
    assert "did you mean 'coschedule'?" in p.stderr


# ---------------------------------------------------------------- KRM mode
# A list piped by the user: its lines are the user's, every error and warning starts
# `<stdin>:line:col:` at its field. From kpt: the file (and document) is named, no line.

PIPED = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: r1
    namespace: ci
  spec:
    pipelineSpec:
      tasks: []
    taskRunTemplate:
      podTemplate:
        nodeSelector: [a]
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: twin
    namespace: ci
  spec:
    pipelineSpec:
      tasks: []
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: twin
    namespace: ci
  spec:
    pipelineSpec:
      tasks: []
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata:
    name: p
  spec:
    coschedle: pipelineruns
"""


def _krm(text: str) -> list[dict]:  # type: ignore[type-arg]
    import yaml

    from krm_fn.modes.krm import run_resource_list

    out, _outcome, _code = run_resource_list(text.encode())
    return [r for r in yaml.safe_load(out)["results"] if r["severity"] != "info"]


def test_krm_mode_locates_a_piped_lists_errors_at_their_fields() -> None:
    """KRM mode's results carried no line at all: the user's own input had none to point at."""
    (policy,) = _krm(PIPED)  # the policy's error stops the run before the objects are read
    assert policy["message"].startswith("<stdin>:37:5: CoschedulePolicy p: unknown key 'coschedle'"), policy
    results = _krm(PIPED.replace("coschedle", "coschedule"))
    by_field = {}
    for r in results:
        by_field.setdefault(r["field"]["path"], []).append(r["message"])
    assert by_field["spec.taskRunTemplate.podTemplate.nodeSelector"] == ["<stdin>:14:9: must be a map of label keys to string values"]
    # the twins: each at its own name, whichever is named as the other
    assert sorted(m.split(": ")[0] for m in by_field["metadata.name"]) == ["<stdin>:18:5", "<stdin>:26:5"]


def test_krm_mode_locates_syntax_errors_the_same_way() -> None:
    (r,) = _krm("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [\n")
    assert r["message"].startswith("<stdin>:5:1: the input is not valid YAML: "), r
    found = _krm(PIPED.replace("coschedle", "coschedule").replace("      tasks: []\n    taskRunTemplate", "      tasks: []\n      tasks: []\n    taskRunTemplate", 1))
    (dup,) = (r for r in found if "duplicate key" in r["message"])
    assert dup["message"].startswith("<stdin>:11:1: the object is not valid YAML: duplicate key 'tasks'") and "(lines 11 and 12)" in dup["message"], dup


def test_krm_mode_from_kpt_names_the_file_and_document_not_a_line() -> None:
    """kpt hands over its own serialization: its line numbers are no file's, so none is
    given; the message names the file, and the document where the file holds several."""

    def ann(path: str, index: int) -> str:
        return (
            "    annotations:\n"
            f"      config.kubernetes.io/path: '{path}'\n      config.kubernetes.io/index: '{index}'\n"
            f"      internal.config.kubernetes.io/path: '{path}'\n      internal.config.kubernetes.io/index: '{index}'\n"
        )

    text = PIPED.replace("coschedle", "coschedule")
    text = text.replace("    name: r1\n    namespace: ci\n", "    name: r1\n    namespace: ci\n" + ann("one.yaml", 0))
    first, second = (i for i in range(len(text)) if text.startswith("    name: twin\n    namespace: ci\n", i))
    twin = "    name: twin\n    namespace: ci\n"
    text = text[:first] + twin + ann("twins.yaml", 0) + text[first + len(twin) : second] + twin + ann("twins.yaml", 1) + text[second + len(twin) :]
    results = _krm(text)
    assert results and all("file" in r and "field" in r for r in results), results
    assert all(not r["message"].startswith("<stdin>") and not re.search(r"line \d|:\d+:\d+:", r["message"]) for r in results), results
    said = sorted((r["file"]["path"], r["file"]["index"], r["field"]["path"], r["message"].split(": ")[0]) for r in results)
    assert said == [
        ("one.yaml", 0, "spec.taskRunTemplate.podTemplate.nodeSelector", "one.yaml"),
        ("twins.yaml", 0, "metadata.name", "twins.yaml (document 1)"),
        ("twins.yaml", 1, "metadata.name", "twins.yaml (document 2)"),
    ]
