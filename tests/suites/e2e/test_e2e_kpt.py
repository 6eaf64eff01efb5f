"""End-to-end with the real kpt: `kpt fn render --allow-exec` and `kpt fn eval --exec` on
copies of the example packages, compared with `.expected/` beside each example.

The example Kptfiles say `exec: krm-coschedule`: kpt finds it on PATH, so every kpt command
here runs with the venv's bin directory first on PATH, as docs/integrations/kpt.md tells users to.
Regenerate the expected files with KRM_UPDATE_EXPECTED=1 (see tests/e2e_util.py).
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import fake_transform
import pytest
from conftest import ROOT
from conftest import VENV_BIN
from conftest import require_tool
from e2e_util import check_expected
from e2e_util import check_generated_beside_runs
from e2e_util import copy_package
from e2e_util import documents
from e2e_util import normalized
from e2e_util import package_diff
from e2e_util import snapshot
from e2e_util import stdin_objects

pytestmark = pytest.mark.e2e

EXAMPLES = sorted(p.parent for p in (ROOT / "examples").glob("*/Kptfile"))


def _env(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def _kpt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    kpt = require_tool("kpt")
    return subprocess.run([kpt, *args], capture_output=True, text=True, env=env, check=False)


def _render(pkg: Path, env: dict[str, str], results: Path) -> subprocess.CompletedProcess[str]:
    return _kpt("fn", "render", "--allow-exec", str(pkg), "--results-dir", str(results), env=env)


def _eval(pkg: Path, env: dict[str, str], results: Path) -> subprocess.CompletedProcess[str]:
    return _kpt(
        "fn", "eval", str(pkg), "--exec", "krm-coschedule",
        "--fn-config", str(pkg / "coschedule-policy.yaml"), "--results-dir", str(results),
        env=env,
    )


def _resources(pkg: Path) -> list[Path]:
    return sorted(p for p in pkg.glob("*.yaml") if p.name != "coschedule-policy.yaml")


def _same_as_stdin(rendered: Path, original: Path) -> None:
    """kpt wrote the same objects as the function makes of the package on stdin."""
    got = normalized([d for f in _resources(rendered) for d in documents(f.read_text())])
    assert got == stdin_objects(_resources(original), original / "coschedule-policy.yaml")


def _results_text(results_dir: Path) -> str:
    return (results_dir / "results.yaml").read_text()


def test_examples_discovered() -> None:
    names = {p.name for p in EXAMPLES}
    assert {
        "coschedule-workspaces", "coschedule-pipelineruns", "coschedule-isolate-pipelinerun",
        "coschedule-disabled", "shipwright-scheduling",
    } <= names
    for p in EXAMPLES:
        assert (p / ".krmignore").read_text().split() == [".expected"]
        assert "exec: krm-coschedule\n" in (p / "Kptfile").read_text()
        assert "configPath: coschedule-policy.yaml\n" in (p / "Kptfile").read_text()


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_render_and_eval_example(example: Path, tmp_path: Path) -> None:
    assert (VENV_BIN / "krm-coschedule").exists()
    env = _env(VENV_BIN)
    before = snapshot(example)
    pkg = copy_package(example, tmp_path / "render" / example.name)
    p = _render(pkg, env, tmp_path / "res1")
    assert p.returncode == 0, p.stdout + p.stderr
    after = snapshot(pkg)
    assert sorted(after) == sorted(before), "kpt must keep the package layout (no file added, deleted or renamed)"
    assert after["Kptfile"] == before["Kptfile"]
    diff = package_diff(before, after)
    check_expected(example / ".expected" / "diff.patch", diff)
    check_expected(example / ".expected" / "results.yaml", _results_text(tmp_path / "res1"))
    check_generated_beside_runs(after)
    _same_as_stdin(pkg, example)
    # a second render changes nothing
    p = _render(pkg, env, tmp_path / "res2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(pkg) == after, package_diff(after, snapshot(pkg))
    # kpt fn eval --exec gives the same files as render
    pkg2 = copy_package(example, tmp_path / "eval" / example.name)
    p = _eval(pkg2, env, tmp_path / "res3")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(pkg2) == after, package_diff(after, snapshot(pkg2))


def test_render_with_a_transform_that_generates(tmp_path: Path) -> None:
    """The plumbing under kpt with a stand-in transform: run edited in place, StatefulSet
    appended to the run's own file, layout kept, second render a no-op, eval the same."""
    env = _env(fake_transform.write_wrapper(tmp_path / "bin").parent)
    example = ROOT / "examples" / "coschedule-workspaces"
    before = snapshot(example)
    pkg = copy_package(example, tmp_path / "pkg")
    p = _render(pkg, env, tmp_path / "r1")
    assert p.returncode == 0, p.stdout + p.stderr
    after = snapshot(pkg)
    assert sorted(after) == sorted(before)
    assert after["pipeline.yaml"] == before["pipeline.yaml"]
    assert after["Kptfile"] == before["Kptfile"]
    run = after["pipelinerun.yaml"].decode()
    assert run.startswith("# A run of build-and-test")  # the file's head comment stays
    assert "persistentVolumeClaim:\n      claimName: pvc-" in run
    assert "\n---\napiVersion: apps/v1\nkind: StatefulSet\n" in run
    assert check_generated_beside_runs(after) == 1
    from krm_fn.orchestration import process

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), fake_transform.handle_pipelinerun)
        _same_as_stdin(pkg, example)
    p = _render(pkg, env, tmp_path / "r2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(pkg) == after, package_diff(after, snapshot(pkg))
    pkg2 = copy_package(example, tmp_path / "pkg2")
    p = _eval(pkg2, env, tmp_path / "r3")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(pkg2) == after, package_diff(after, snapshot(pkg2))


def test_render_error_writes_nothing(tmp_path: Path) -> None:
    env = _env(fake_transform.write_wrapper(tmp_path / "bin").parent)
    pkg = copy_package(ROOT / "examples" / "coschedule-workspaces", tmp_path / "pkg")
    run = pkg / "pipelinerun.yaml"
    run.write_text(run.read_text().replace("  labels:\n", f"  annotations:\n    {fake_transform.ERROR_ANNOTATION}: x\n  labels:\n"))
    before = snapshot(pkg)
    p = _render(pkg, env, tmp_path / "r")
    assert p.returncode != 0
    assert "fake error requested by the test" in p.stdout + p.stderr
    assert snapshot(pkg) == before


def test_help_for_kpt_fn_doc() -> None:
    """`kpt fn doc` runs the function with --help and shows its stdout."""
    p = subprocess.run([str(VENV_BIN / "krm-coschedule"), "--help"], capture_output=True, text=True, check=False)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("krm-coschedule: ")
    assert "Usage:" in p.stdout


def test_imperative_key_value_form(tmp_path: Path) -> None:
    """`kpt fn eval --exec krm-coschedule DIR -- coschedule=pipelineruns`: kpt turns the
    key=value pairs into a ConfigMap functionConfig; errors name the ConfigMap keys the user
    wrote (data.coschedule), not the typed fields."""
    env = _env(VENV_BIN)
    pkg = copy_package(ROOT / "examples" / "coschedule-workspaces", tmp_path / "pkg")
    (pkg / "coschedule-policy.yaml").unlink()
    p = _kpt("fn", "eval", str(pkg), "--exec", "krm-coschedule", "--", "coschedule=pipelineruns", env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    docs = [d for f in sorted(pkg.glob("*.yaml")) for d in documents(f.read_text())]
    sts = [d for d in docs if d.get("kind") == "StatefulSet"]
    assert len(sts) == 1 and sts[0]["metadata"]["name"].startswith("affinity-assistant-")
    runs = [d for d in docs if d.get("kind") == "PipelineRun"]
    pod = runs[0]["spec"]["taskRunTemplate"]["podTemplate"]
    assert "podAffinity" in pod["affinity"]
    bad = _kpt("fn", "eval", str(pkg), "--exec", "krm-coschedule", "--", "coschedule=bogus", env=env)
    assert bad.returncode != 0
    out = bad.stdout + bad.stderr
    assert "data.coschedule" in out and '"bogus"' in out and "pipelineruns" in out, out


def test_render_names_the_policy_file_for_its_duplicate_key_not_kpts_lines(tmp_path: Path) -> None:
    """A duplicate key in the policy under `kpt fn render`: the result cited kpt's stream
    lines (18 and 21), which are in no file; now it names the policy's file, without lines."""
    pkg = copy_package(ROOT / "examples" / "coschedule-workspaces", tmp_path / "pkg")
    policy = pkg / "coschedule-policy.yaml"
    policy.write_text(policy.read_text() + "  coschedule: pipelineruns\n")
    p = _render(pkg, _env(VENV_BIN), tmp_path / "results")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert "coschedule-policy.yaml: functionConfig is not valid YAML: duplicate key 'coschedule'" in out, out
    assert "lines" not in out and "line " not in out, out


def test_eval_names_the_file_of_an_objects_error_and_carries_file_and_field(tmp_path: Path) -> None:
    """kpt prints a result's object and field, not its file: the message named neither the file
    nor a line (issue 33). Now it starts with the file; no line (kpt's lines are no file's)."""
    import yaml

    pkg = copy_package(ROOT / "examples" / "coschedule-workspaces", tmp_path / "pkg")
    run = pkg / "pipelinerun.yaml"
    run.write_text(run.read_text().replace("  taskRunTemplate:\n", "  taskRunTemplate:\n    podTemplate:\n      nodeSelector: [a]\n", 1))
    p = _eval(pkg, _env(VENV_BIN), tmp_path / "results")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert "spec.taskRunTemplate.podTemplate.nodeSelector: pipelinerun.yaml: must be a map" in out, out
    results = yaml.safe_load((tmp_path / "results" / "results.yaml").read_text())["items"][0]["results"]
    (err,) = (r for r in results if r["severity"] == "error")
    assert err["file"]["path"] == "pipelinerun.yaml" and err["field"]["path"] == "spec.taskRunTemplate.podTemplate.nodeSelector", err
    assert ":" not in err["message"].split(": ", 1)[1] and " line " not in err["message"], err
