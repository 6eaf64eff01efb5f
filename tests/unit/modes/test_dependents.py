"""Only what depends on the change (issue 33, deliverable 1): which files of a package a
one-file commit brings in, why, and that a problem the change did not cause is a warning."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from shared import ROOT

CMD = [sys.executable, "-m", "krm_fn"]
EXAMPLE = ROOT / "examples" / "pre-commit" / "manifests"
PIPELINE = (EXAMPLE / "pipeline.yaml").read_text()
RUN = (EXAMPLE / "pipelinerun.yaml").read_text()


def _run(name: str, pipeline: str = "build-and-test", extra: str = "") -> str:
    return RUN.replace("name: build-and-test-1", f"name: {name}").replace("name: build-and-test\n", f"name: {pipeline}\n").replace(
        "  labels:\n", f"  labels:{extra}\n"
    )


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=cwd)


def _package(tmp_path: Path) -> Path:
    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n")
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "uses.yaml").write_text(_run("alpha"))
    (tmp_path / "other.yaml").write_text(_run("beta", pipeline="another-pipeline"))
    return tmp_path


def test_a_changed_pipeline_brings_in_only_the_runs_that_use_it(tmp_path: Path) -> None:
    """Naming a Pipeline rendered every file of the package holding anything the function
    handles: a run of another Pipeline was rewritten too."""
    pkg = _package(tmp_path)
    before = (pkg / "other.yaml").read_text()
    p = _cli(pkg, "--files", "pipeline.yaml")
    assert p.returncode == 1, p.stderr
    assert "krm-coschedule: rewrote uses.yaml: re-rendered: runs Pipeline build-and-test, changed in pipeline.yaml" in p.stderr
    assert (pkg / "other.yaml").read_text() == before
    assert "other.yaml" not in p.stderr
    assert "kind: StatefulSet" in (pkg / "uses.yaml").read_text()
    again = _cli(pkg, "--check", "pipeline.yaml")
    assert again.returncode == 0 and "uses.yaml" not in again.stderr, again.stderr  # written only if its render changed


def test_why_a_file_was_brought_in_is_in_json(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    p = _cli(pkg, "--check", "--format", "json", "pipeline.yaml")
    rows = {r["path"]: r for r in json.loads(p.stdout)["files"]}
    assert rows["uses.yaml"]["status"] == "would-rewrite"
    assert rows["uses.yaml"]["why"] == "re-rendered: runs Pipeline build-and-test, changed in pipeline.yaml"
    assert "why" not in rows["pipeline.yaml"] and "other.yaml" not in rows


def test_a_changed_policy_brings_in_the_package(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    (pkg / "policy.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\n  annotations:\n"
        "    config.kubernetes.io/local-config: 'true'\nspec:\n  coschedule: pipelineruns\n"
    )
    p = _cli(pkg, "--check", "policy.yaml")
    assert p.returncode == 1
    assert "would rewrite uses.yaml: re-rendered: the package's policy changed in policy.yaml" in p.stderr
    assert "would rewrite other.yaml: re-rendered: the package's policy changed in policy.yaml" in p.stderr


def test_a_siblings_own_problem_is_a_warning_not_part_of_the_change(tmp_path: Path) -> None:
    """A sibling brought in because its name might collide with the named run's, failing on
    a problem of its own (a label that is no label), failed the one-file commit; naming it, or
    checking the package, still fails."""
    pkg = _package(tmp_path)
    (pkg / "sibling.yaml").write_text(_run("x-alpha", extra="\n    bad key!: v"))
    first = _cli(pkg, "--files", "uses.yaml")
    assert first.returncode == 1  # uses.yaml rendered
    p = _cli(pkg, "--check", "uses.yaml")
    assert p.returncode == 0, p.stderr
    assert "sibling.yaml" in p.stderr and "[warning]" in p.stderr and "sibling.yaml is not part of the change" in p.stderr
    assert "its PipelineRun x-alpha and the run alpha of uses.yaml may need one name" in p.stderr
    assert "kind: StatefulSet" not in (pkg / "sibling.yaml").read_text()
    assert _cli(pkg, "--check", "sibling.yaml").returncode == 1
    assert _cli(pkg, "--check", ".").returncode == 1


def test_a_problem_the_changed_pipeline_causes_fails(tmp_path: Path) -> None:
    """A run whose taskRunSpecs name a task the changed Pipeline no longer has: the change
    caused it, so the commit fails on it."""
    pkg = _package(tmp_path)
    (pkg / "uses.yaml").write_text(
        _run("alpha").replace("  taskRunTemplate:\n", "  taskRunSpecs:\n  - pipelineTaskName: build\n    serviceAccountName: b\n  taskRunTemplate:\n")
    )
    (pkg / "pipeline.yaml").write_text(PIPELINE.replace("  - name: build\n", "  - name: compile\n"))
    p = _cli(pkg, "--check", "pipeline.yaml")
    assert p.returncode == 1 and "uses.yaml" in p.stderr and "[error]" in p.stderr, p.stderr


EMBEDDED = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: inline
spec:
  pipelineSpec:
    tasks:
    - name: a
      taskRef: {name: t}
    - name: b
      runAfter: ["a"]
      taskRef: {name: t}
"""


def test_a_run_whose_lines_the_peek_is_unsure_of_is_read_not_assumed(tmp_path: Path) -> None:
    """A run whose lines the peek is not sure of (`runAfter: ["a"]`) was brought in for every
    changed Pipeline, said to run it: 42 of 48 files rewritten for one-file commits over
    Tekton's own examples ran no Pipeline by reference at all."""
    pkg = _package(tmp_path)
    (pkg / "inline.yaml").write_text(EMBEDDED)
    unsure = _run("gamma").replace("  pipelineRef:\n", '  params: [{name: x, value: "a"}]\n  pipelineRef:\n')
    (pkg / "unsure.yaml").write_text(unsure)
    (pkg / "unsure-other.yaml").write_text(unsure.replace("gamma", "delta").replace("name: build-and-test\n", "name: another-pipeline\n"))
    p = _cli(pkg, "--check", "--format", "json", "pipeline.yaml")
    rows = {r["path"]: r for r in json.loads(p.stdout)["files"]}
    assert "inline.yaml" not in rows and "unsure-other.yaml" not in rows, rows
    assert rows["unsure.yaml"]["why"] == "re-rendered: runs Pipeline build-and-test, changed in pipeline.yaml"
