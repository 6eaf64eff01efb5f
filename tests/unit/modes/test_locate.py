"""Every message locates by file, line and column (issue 33): schema and semantic errors of a
policy point at the key in the policy file, an object's errors at its field, duplicates name
the other file's own line and count every occurrence, whatever files are named."""
from __future__ import annotations

import json
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
