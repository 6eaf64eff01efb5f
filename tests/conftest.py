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


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every process it starts) keeps files mode's verdict cache in a
    directory of its own, empty at the start: never in the user's real cache, and no verdict
    of one test answers another."""
    where = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(where))
    monkeypatch.delenv("KRM_COSCHEDULE_NO_CACHE", raising=False)
    return where


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
