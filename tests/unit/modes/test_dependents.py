"""Only what depends on the change (issue 33, deliverable 1): which files of a package a
one-file commit brings in, why, and that a problem the change did not cause is a warning."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT

from krm_fn.modes import dependents

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


# ---------------------------------------------------------------- the state before the change
# A brought-in file's error is the change's when the files passed, as they are at HEAD, do not
# give it (issue 33): real git repositories; without one (or without git) the rule is Why.caused.

POLICY = (
    "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\n  annotations:\n"
    "    config.kubernetes.io/local-config: 'true'\nspec:\n  coschedule: workspaces\n  strategy: {strategy}\n"
)
SPECS = "  taskRunSpecs:\n  - pipelineTaskName: {task}\n    serviceAccountName: b\n  taskRunTemplate:\n"


def _git(pkg: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=pkg, check=True, capture_output=True)


def _commit(pkg: Path) -> None:
    _git(pkg, "init", "-q")
    _git(pkg, "add", "-A")
    _git(pkg, "commit", "-qm", "before")


def _uses_task(task: str) -> str:
    return _run("alpha").replace("  taskRunTemplate:\n", SPECS.format(task=task))


def _nameless_package(tmp_path: Path, strategy: str) -> Path:
    """A run with generateName only under coschedule workspaces: strategy placeholder cannot
    name its placeholder, an error at metadata.generateName (which Why.caused calls the run's
    own identity, never the change's)."""
    pkg = _package(tmp_path)
    (pkg / "other.yaml").unlink()  # a run of a Pipeline not in the package: an error under workspaces
    (pkg / "uses.yaml").write_text(_run("alpha").replace("  name: alpha\n", "  generateName: alpha-\n"))
    (pkg / "policy.yaml").write_text(POLICY.format(strategy=strategy))
    return pkg


def test_with_git_a_pipeline_change_that_breaks_a_brought_in_run_fails(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    (pkg / "uses.yaml").write_text(_uses_task("build"))
    _commit(pkg)
    (pkg / "pipeline.yaml").write_text(PIPELINE.replace("  - name: build\n", "  - name: compile\n"))
    p = _cli(pkg, "--check", "pipeline.yaml")
    assert p.returncode == 1, p.stderr
    assert "uses.yaml" in p.stderr and "[error]" in p.stderr and "does not exist in Pipeline" in p.stderr, p.stderr
    assert "not part of the change" not in p.stderr


def test_with_git_a_brought_in_run_broken_before_the_change_is_a_warning(tmp_path: Path) -> None:
    """The run's taskRunSpecs named a task the Pipeline did not have before the change: the
    change (a label on the Pipeline) did not cause it. Why.caused took any taskRunSpecs error
    of a run of a changed Pipeline for the change's: the commit failed."""
    pkg = _package(tmp_path)
    (pkg / "uses.yaml").write_text(_uses_task("nope"))
    _commit(pkg)
    (pkg / "pipeline.yaml").write_text(PIPELINE.replace("  namespace: ci\n", "  namespace: ci\n  labels:\n    team: a\n", 1))
    p = _cli(pkg, "--check", "pipeline.yaml")
    assert p.returncode == 0, p.stderr
    assert "[warning]" in p.stderr and "uses.yaml is not part of the change" in p.stderr, p.stderr
    assert "it fails the same way with the files passed as they are at HEAD, before the change" in p.stderr
    assert "[error]" not in p.stderr
    assert _cli(pkg, "--check", "uses.yaml").returncode == 1  # naming it still fails


def test_with_git_a_policy_change_that_breaks_a_runs_metadata_fails(tmp_path: Path) -> None:
    """strategy auto -> placeholder makes a nameless run an error at metadata.generateName:
    Why.caused calls an object's metadata never the change's (a warning, the commit passed);
    the state before the change gives no such error, so it is the change's."""
    pkg = _nameless_package(tmp_path, "auto")
    _commit(pkg)
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="placeholder"))
    p = _cli(pkg, "--check", "policy.yaml")
    assert p.returncode == 1, p.stderr
    assert "uses.yaml:" in p.stderr and "[error]" in p.stderr and "metadata.generateName" in p.stderr, p.stderr
    assert "not part of the change" not in p.stderr
    assert "rendered with" not in p.stderr  # the error reads as when the file is passed


def test_with_git_an_error_a_policy_change_did_not_cause_is_a_warning(tmp_path: Path) -> None:
    """The reverse: under a changed policy Why.caused takes every error but metadata for the
    change's; a run that failed the same way before (a taskRunSpecs task the Pipeline lacks)
    is a warning."""
    pkg = _package(tmp_path)
    (pkg / "other.yaml").unlink()
    (pkg / "uses.yaml").write_text(_uses_task("nope"))
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="auto"))
    _commit(pkg)
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="auto").replace("  name: p\n", "  name: p\n  labels:\n    team: a\n"))
    p = _cli(pkg, "--check", "policy.yaml")
    assert p.returncode == 0, p.stderr
    assert "uses.yaml is not part of the change" in p.stderr and "as they are at HEAD" in p.stderr, p.stderr


def test_a_new_file_has_no_state_before_it(tmp_path: Path) -> None:
    """A policy new in this commit: before it the package had the defaults (pipelineruns),
    under which the nameless run renders; the error it now gets is the change's."""
    pkg = _nameless_package(tmp_path, "placeholder")
    (pkg / "policy.yaml").unlink()
    _commit(pkg)
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="placeholder"))
    p = _cli(pkg, "--check", "policy.yaml")
    assert p.returncode == 1 and "[error]" in p.stderr and "not part of the change" not in p.stderr, p.stderr


def test_without_a_git_repository_the_rule_is_what_the_error_names(tmp_path: Path) -> None:
    """No repository: no state before the change; Why.caused decides, and the warning says so."""
    pkg = _nameless_package(tmp_path, "placeholder")
    p = _cli(pkg, "--check", "policy.yaml")
    assert p.returncode == 0, p.stderr
    assert "uses.yaml is not part of the change" in p.stderr, p.stderr
    assert "judged without the state before the change (not in a git work tree)" in p.stderr, p.stderr


def test_without_git_on_path_the_rule_is_what_the_error_names(tmp_path: Path) -> None:
    pkg = _nameless_package(tmp_path, "auto")
    _commit(pkg)
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="placeholder"))
    empty = tmp_path.parent / (tmp_path.name + "-nogit")
    empty.mkdir()
    p = subprocess.run([*CMD, "--check", "policy.yaml"], capture_output=True, text=True, cwd=pkg, env={**os.environ, "PATH": str(empty)})
    assert p.returncode == 0, p.stderr
    assert "uses.yaml is not part of the change" in p.stderr
    assert "judged without the state before the change (git is not on PATH)" in p.stderr, p.stderr


def test_a_verdict_judged_against_the_state_before_is_not_cached(tmp_path: Path) -> None:
    """The same bytes, judged first without a repository (a warning: clean), then with HEAD
    holding the policy as it was (the error is the change's): the cached clean verdict of the
    first call must not answer the second."""
    pkg = _nameless_package(tmp_path, "placeholder")
    first = _cli(pkg, "--check", "policy.yaml")
    assert first.returncode == 0 and "judged without the state before the change" in first.stderr, first.stderr
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="auto"))
    _commit(pkg)
    (pkg / "policy.yaml").write_text(POLICY.format(strategy="placeholder"))
    second = _cli(pkg, "--check", "policy.yaml")
    assert second.returncode == 1 and "[error]" in second.stderr, second.stderr


def test_with_git_a_kptfile_passed_is_read_as_it_was(tmp_path: Path) -> None:
    """The Kptfile's configMap is the policy: passed and changed (strategy auto -> placeholder),
    the state before the change reads the Kptfile at HEAD, under which the nameless run
    rendered; the error is the change's."""
    pkg = _nameless_package(tmp_path, "auto")
    (pkg / "policy.yaml").unlink()

    def kptfile(strategy: str) -> str:
        return (
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n"
            f"  - image: krm-coschedule\n    configMap:\n      coschedule: workspaces\n      coschedule-strategy: {strategy}\n"
        )

    (pkg / "Kptfile").write_text(kptfile("auto"))
    _commit(pkg)
    (pkg / "Kptfile").write_text(kptfile("placeholder"))
    p = _cli(pkg, "--check", "Kptfile")
    assert p.returncode == 1, p.stderr
    assert "uses.yaml:" in p.stderr and "[error]" in p.stderr and "metadata.generateName" in p.stderr, p.stderr
    assert "not part of the change" not in p.stderr


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


@settings(database=None, max_examples=300)
@given(st.text("ab-", min_size=1, max_size=8), st.lists(st.text("ab-", min_size=1, max_size=8), max_size=12))
def test_longest_end_is_the_longest_named_end(name: str, named: list[str]) -> None:
    names = {n: "f.yaml" for n in named}
    ends = [name[i:] for i in range(len(name)) if name[i:] in names]
    assert dependents._longest_end(name, names) == (ends[0] if ends else None)
