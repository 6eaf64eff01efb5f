from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension
from syrupy.extensions.single_file import WriteMode

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
VENV_BIN = Path(sys.executable).parent


class YamlSnapshot(SingleFileSnapshotExtension):
    """One readable .yaml file per snapshot."""

    _write_mode = WriteMode.TEXT
    file_extension = "yaml"


@pytest.fixture
def snapshot_yaml(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(YamlSnapshot)


def require_tool(name: str) -> str:
    """Path of an external tool. In CI a missing tool fails the test; locally it skips."""
    path = shutil.which(name) or (str(VENV_BIN / name) if (VENV_BIN / name).exists() else None)
    if path:
        return path
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{name} is required in CI but was not found on PATH")
    pytest.skip(f"{name} not installed")
