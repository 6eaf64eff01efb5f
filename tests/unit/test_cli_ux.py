"""CLI habits: --help on every subcommand, colour in --diff on a terminal (NO_COLOR honoured),
a progress line on a terminal only, machine-readable output for files mode and explain."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT

CMD = [sys.executable, "-m", "krm_fn"]
EXAMPLE = ROOT / "examples" / "pre-commit"


@pytest.mark.parametrize(
    "args, words",
    [
        (["explain", "--help"], ["usage: krm-coschedule explain", "--format", "mermaid", "json"]),
        (["install-kustomize-plugin", "--help"], ["usage: krm-coschedule install-kustomize-plugin", "--plugin-home"]),
        (["--files", "--help"], ["usage: krm-coschedule", "--check", "--diff", "--format", "package"]),
        (["--help"], ["Usage:", "explain", "install-kustomize-plugin"]),
    ],
)
def test_help_on_every_subcommand(args: list[str], words: list[str]) -> None:
    p = subprocess.run([*CMD, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for w in words:
        assert w in p.stdout


def test_bad_subcommand_argument_points_at_its_help() -> None:
    p = subprocess.run([*CMD, "explain", "--nope"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "unrecognized arguments: --nope" in p.stderr and "krm-coschedule explain --help" in p.stderr


def _on_terminal(args: list[str], env: dict[str, str] | None = None, cwd: Path = EXAMPLE) -> tuple[int, bytes]:
    """Run with stdout and stderr on one pseudo-terminal; (exit, what the terminal got)."""
    main, sub = pty.openpty()
    p = subprocess.Popen([*CMD, *args], stdin=subprocess.DEVNULL, stdout=sub, stderr=sub, cwd=cwd, env=env)
    os.close(sub)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return p.wait(), b"".join(chunks)


DIFF_ARGS = ["--diff", "--config", "coschedule-policy.yaml", "manifests/pipeline.yaml", "manifests/pipelinerun.yaml"]


def test_diff_is_coloured_on_a_terminal_unless_no_color() -> None:
    code, seen = _on_terminal(DIFF_ARGS, env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
    assert code == 1
    assert b"\x1b[32m+kind: StatefulSet" in seen and b"\x1b[31m-" in seen
    code, seen = _on_terminal(DIFF_ARGS, env={**os.environ, "NO_COLOR": "1"})
    assert code == 1
    assert b"\x1b[3" not in seen and b"+kind: StatefulSet" in seen
    plain = subprocess.run([*CMD, *DIFF_ARGS], capture_output=True, cwd=EXAMPLE)
    assert b"\x1b" not in plain.stdout + plain.stderr  # not a terminal: no colour, no progress


def test_progress_line_on_a_terminal_with_many_packages(tmp_path: Path) -> None:
    for i in range(3):
        d = tmp_path / f"pkg{i}"
        d.mkdir()
        (d / "cm.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    main, sub = pty.openpty()
    p = subprocess.Popen([*CMD, "--check", str(tmp_path)], stdin=subprocess.DEVNULL, stdout=sub, stderr=sub)
    os.close(sub)
    seen = b""
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        seen += data
    os.close(main)
    assert p.wait() == 0
    assert b"\rkrm-coschedule: package 1/3, file 1/3" in seen and b"package 3/3, file 3/3" in seen
    plain = subprocess.run([*CMD, "--check", str(tmp_path)], capture_output=True)
    assert b"rendering" not in plain.stderr


def test_files_mode_json_report() -> None:
    p = subprocess.run([*CMD, "--format", "json", *DIFF_ARGS], capture_output=True, text=True, cwd=EXAMPLE)
    assert p.returncode == 1
    report = json.loads(p.stdout)
    assert {f["path"]: f["status"] for f in report["files"]} == {
        "manifests/pipeline.yaml": "unchanged", "manifests/pipelinerun.yaml": "would-rewrite",
    }
    assert "+kind: StatefulSet" in report["files"][1]["diff"]
    assert any(r["severity"] == "info" and "generated StatefulSet" in r["message"] for r in report["results"])
    assert report["summary"] == {
        "errors": 0, "warnings": 0, "info": 4, "files_changed": 1, "files_failed": 0, "files_unchanged": 1,
    }


def test_explain_json() -> None:
    p = subprocess.run(
        [*CMD, "explain", "--format", "json", "--config", "coschedule-policy.yaml", "manifests/pipeline.yaml", "manifests/pipelinerun.yaml"],
        capture_output=True, text=True, cwd=EXAMPLE,
    )
    assert p.returncode == 0, p.stderr
    plans = json.loads(p.stdout)
    assert plans[0]["run"]["kind"] == "PipelineRun" and plans[0]["mode"] == "workspaces"
    assert plans[0]["assistants"][0]["name"].startswith("affinity-assistant-")


# ---------------------------------------------------------------- issue 23: errors and habits

BROKEN_RUN = 'apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: x\nspec:\n  pipelineRef: {name: "a\\qb"}\n'
BROKEN_CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "a\\qb"\n'


def test_yaml_syntax_errors_are_one_located_line_for_every_kind(tmp_path: Path) -> None:
    """A Tekton run's syntax error was one message for the whole run, without file or place
    ("the object is not valid YAML ... at line 6, column 26"); a ConfigMap's named its file.
    Both are now `path:line:col: [error] message`, the form editors and CI link."""
    (tmp_path / "run.yaml").write_text(BROKEN_RUN)
    (tmp_path / "cm.yaml").write_text(BROKEN_CM)
    p = subprocess.run([*CMD, "--check", "run.yaml", "cm.yaml"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert "run.yaml:6:26: [error] document 1 is not valid YAML: while scanning a double-quoted scalar: found unknown escape character 'q'; the file is left unchanged" in lines
    assert "cm.yaml:6:9: [error] document 1 is not valid YAML: while scanning a double-quoted scalar: found unknown escape character 'q'; the file is left unchanged" in lines
    assert "at line" not in p.stderr


def test_json_results_carry_line_and_column_and_integer_counts(tmp_path: Path) -> None:
    (tmp_path / "run.yaml").write_text(BROKEN_RUN)
    p = subprocess.run([*CMD, "--check", "--format", "json", "run.yaml"], capture_output=True, text=True, cwd=tmp_path)
    report = json.loads(p.stdout)
    (err,) = [r for r in report["results"] if r["severity"] == "error"]
    assert err["file"] == {"path": "run.yaml", "index": 0, "line": 6, "column": 26}
    assert report["summary"]["errors"] == 1 and report["summary"]["files_failed"] == 1
    assert all(isinstance(v, int) for v in report["summary"].values())


def test_quiet_prints_errors_only_and_verbose_the_infos(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\ndata:\n  coschedul: pipelineruns\n")
    args = ["--check", "--config", str(tmp_path / "cm.yaml"), *DIFF_ARGS[3:]]
    loud = subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=EXAMPLE)
    assert "did you mean 'coschedule'?" in loud.stderr and "would rewrite" in loud.stderr
    assert "[info]" not in loud.stderr
    quiet = subprocess.run([*CMD, "-q", *args], capture_output=True, text=True, cwd=EXAMPLE)
    assert quiet.returncode == loud.returncode == 1 and quiet.stderr == ""
    verbose = subprocess.run([*CMD, "--verbose", *args], capture_output=True, text=True, cwd=EXAMPLE)
    assert "[info]" in verbose.stderr and "generated StatefulSet" in verbose.stderr
    both = subprocess.run([*CMD, "-q", "-v", *args], capture_output=True, text=True, cwd=EXAMPLE)
    assert both.returncode == 2


def test_one_argument_form_decides_by_the_file_not_by_stdin() -> None:
    """`krm-coschedule run.yaml` in CI (stdin not a terminal) was taken as the kustomize
    plugin form and failed with "unsupported functionConfig PipelineRun"."""
    p = subprocess.run([*CMD, "manifests/pipelinerun.yaml"], capture_output=True, text=True, cwd=EXAMPLE, input="")
    assert p.returncode == 2 and p.stdout == ""
    assert "holds a PipelineRun, not a functionConfig" in p.stderr and "--files FILE" in p.stderr
    assert "unsupported functionConfig" not in p.stderr
    run = (EXAMPLE / "manifests" / "pipelinerun.yaml").read_text()
    plugin = subprocess.run([*CMD, "coschedule-policy.yaml"], capture_output=True, text=True, cwd=EXAMPLE, input=run)
    assert "kind: PipelineRun" in plugin.stdout  # a functionConfig: the plugin form as before


def test_no_arguments_on_a_terminal_says_what_it_waits_for() -> None:
    main, sub = pty.openpty()
    p = subprocess.Popen(CMD, stdin=sub, stdout=subprocess.DEVNULL, stderr=sub)
    os.close(sub)
    import select

    seen = b""
    # until the hint is seen, or the function sits silent for 20 s (the old behaviour: that
    # is the failure, not a hang of the test); not a timing assertion
    while b"Ctrl-D" not in seen and select.select([main], [], [], 20)[0]:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        seen += data
    os.write(main, b"\x04")  # end of input: the function answers and exits
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    os.close(main)
    assert b"reading a ResourceList (KRM function input) on stdin" in seen


def test_progress_advances_per_file_in_one_package(tmp_path: Path) -> None:
    for i in range(60):
        (tmp_path / f"cm{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    code, seen = _on_terminal(["--check", str(tmp_path)], cwd=tmp_path)
    assert code == 0
    assert b"package 1/1, file 2/60" in seen and b"package 1/1, file 60/60" in seen


def test_a_policy_syntax_error_is_one_located_line_not_the_parsers_dump(tmp_path: Path) -> None:
    """--config POLICY with a YAML error gave the parser's flattened text (`in "<unicode
    string>", line 6, column 15: coschedule: [a} ^ (line: 6)`)."""
    (tmp_path / "pol.yaml").write_text(
        "# the team's policy\n---\napiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: x\nspec:\n  coschedule: a\n  coschedule: b\n"
    )
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    p = subprocess.run([*CMD, "--check", "--config", "pol.yaml", "cm.yaml"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1
    first = p.stderr.splitlines()[0]
    assert first.startswith("pol.yaml:8:1: [error] ") and "duplicate key 'coschedule' at spec.coschedule (lines 8 and 9)" in first
    assert "<unicode string>" not in p.stderr and "^" not in p.stderr


def _package(tmp_path: Path, kptfile_tail: str = "") -> Path:
    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n" + kptfile_tail)
    for name in ("pipeline.yaml", "pipelinerun.yaml"):
        (tmp_path / name).write_text((EXAMPLE / "manifests" / name).read_text())
    return tmp_path


def test_a_typo_in_the_packages_own_policy_is_shown(tmp_path: Path) -> None:
    """The package's policy is one of its files, whose results files mode did not show: the
    typo's warning was dropped and the defaults rendered without a word."""
    pkg = _package(tmp_path, "pipeline:\n  mutators:\n  - exec: krm-coschedule\n    configPath: flags.yaml\n")
    (pkg / "flags.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\ndata:\n  coschedul: pipelineruns\n")
    p = subprocess.run([*CMD, "--check", "pipelinerun.yaml"], capture_output=True, text=True, cwd=pkg)
    assert "flags.yaml: [warning] v1/ConfigMap/f data.coschedul:" in p.stderr and "did you mean 'coschedule'?" in p.stderr


def test_a_place_in_the_packages_policy_is_not_given_to_the_rendered_file(tmp_path: Path) -> None:
    """The policy's duplicate key (lines 8 and 9 of policy.yaml) was reported as
    `pipelinerun.yaml:8:1:`, a place in the wrong file."""
    pkg = _package(tmp_path)
    (pkg / "policy.yaml").write_text(
        "# the team's policy\n---\napiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: x\nspec:\n  coschedule: a\n  coschedule: b\n"
    )
    p = subprocess.run([*CMD, "--check", "pipelinerun.yaml"], capture_output=True, text=True, cwd=pkg)
    assert p.returncode == 1
    assert "pipelinerun.yaml:" not in p.stderr.replace("pipelinerun.yaml: [error]", "")
    assert "policy.yaml:8:1: is not valid YAML: duplicate key 'coschedule' at spec.coschedule (its lines 8 and 9)" in p.stderr
