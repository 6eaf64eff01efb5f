"""The package is type-checked and linted in every test run (CI runs the README's test
command): mypy with the settings in pyproject.toml, ruff with the rules chosen there."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT

BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: it comes with `pip install -e '.[test]'`")
    return found


def test_mypy_is_clean() -> None:
    proc = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "krm_fn", "tests", "bench", "tools"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
