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

ROOT = Path(__file__).resolve().parent.parent
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


def _on_terminal(args: list[str], env: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Run with stdout and stderr on one pseudo-terminal; (exit, what the terminal got)."""
    main, sub = pty.openpty()
    p = subprocess.Popen([*CMD, *args], stdin=subprocess.DEVNULL, stdout=sub, stderr=sub, cwd=EXAMPLE, env=env)
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
    assert b"\rkrm-coschedule: rendering 3 files, package 1/3" in seen
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
    assert report["summary"].startswith("0 error(s)")


def test_explain_json() -> None:
    p = subprocess.run(
        [*CMD, "explain", "--format", "json", "--config", "coschedule-policy.yaml", "manifests/pipeline.yaml", "manifests/pipelinerun.yaml"],
        capture_output=True, text=True, cwd=EXAMPLE,
    )
    assert p.returncode == 0, p.stderr
    plans = json.loads(p.stdout)
    assert plans[0]["run"]["kind"] == "PipelineRun" and plans[0]["mode"] == "workspaces"
    assert plans[0]["assistants"][0]["name"].startswith("affinity-assistant-")
