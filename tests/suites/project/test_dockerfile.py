"""The Dockerfile, checked without a Docker engine: hadolint, the final stage's user and
environment, and its ENTRYPOINT run the way kpt runs a container (as nobody, no HOME)."""
from __future__ import annotations

import json
import os
import re
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
from conftest import ROOT
from conftest import VENV_BIN
from conftest import require_tool

DOCKERFILE = ROOT / "Dockerfile"
QUICKSTART = ROOT / "examples" / "quickstart" / "resourcelist.yaml"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            out = []
        out.append((word.upper(), rest.strip()))
    return out


def _env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in _instructions():
        if word == "ENV":
            for m in re.finditer(r"(\w+)=(\S+)", rest):
                env[m.group(1)] = m.group(2)
    return env


def _entrypoint() -> list[str]:
    entries = [rest for word, rest in _instructions() if word == "ENTRYPOINT"]
    assert len(entries) == 1, "the final stage needs one ENTRYPOINT"
    cmd = json.loads(entries[0])  # exec form: signals reach the function, no shell
    assert isinstance(cmd, list) and cmd
    return cmd


def test_hadolint() -> None:
    hadolint = require_tool("hadolint")
    p = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout == ""


def test_base_image_is_a_build_argument() -> None:
    """Both stages start from ARG BASE (a local base where Docker Hub is unreachable, see
    tests/container/build.sh); the default is the fully qualified official image, so podman
    needs no short-name resolution."""
    text = DOCKERFILE.read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0] == "ARG BASE=docker.io/library/python:3.12-slim-bookworm"
    froms = [line for line in lines if line.upper().startswith("FROM ")]
    assert froms == ["FROM ${BASE} AS build", "FROM ${BASE}"]


def test_runs_as_non_root() -> None:
    users = [rest for word, rest in _instructions() if word == "USER"]
    assert users, "the final stage must set USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")


def test_environment() -> None:
    env = _env()
    assert env.get("PYTHONDONTWRITEBYTECODE") == "1"
    assert "HOME" not in env  # the function needs none


def test_entrypoint_is_the_console_script() -> None:
    cmd = _entrypoint()
    assert cmd == ["krm-coschedule"]
    assert f'\n{cmd[0]} = "krm_fn.cli:main"\n' in (ROOT / "pyproject.toml").read_text()
    eps = {ep.name: ep.value for ep in metadata.entry_points(group="console_scripts")}
    assert eps.get(cmd[0]) == "krm_fn.cli:main"
    assert (VENV_BIN / cmd[0]).exists()


def _world_reachable(path: Path) -> bool:
    real = path.resolve()
    dirs_ok = all(p.stat().st_mode & 0o001 for p in real.parents)
    return dirs_ok and bool(real.stat().st_mode & 0o005)


def _nobody_can_run() -> bool:
    """Root can switch to nobody, but nobody must reach the interpreter (a pyenv Python
    under /root cannot be run by nobody; then the test runs as the current user)."""
    return os.geteuid() == 0 and _world_reachable(Path(os.path.realpath(VENV_BIN / "python"))) and _world_reachable(ROOT / "krm_fn" / "cli.py")


def _run_like_kpt(args: list[str], stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The entrypoint with the image's environment, no HOME, and as nobody when we can."""
    env = {k: v for k, v in _env().items() if k != "PATH"}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}/usr/bin:/bin"
    kw: dict = {}
    if _nobody_can_run():
        kw = {"user": 65534, "group": 65534, "extra_groups": []}
    return subprocess.run([*_entrypoint(), *args], input=stdin, capture_output=True, env=env, cwd=cwd, check=False, **kw)


def test_entrypoint_runs_without_home(tmp_path: Path) -> None:
    # a directory the user cannot write to (nobody cannot even enter pytest's tmp_path)
    cwd = Path("/") if _nobody_can_run() else tmp_path / "ro"
    if cwd != Path("/"):
        cwd.mkdir()
        cwd.chmod(0o555)
    before = sorted(cwd.iterdir())
    p = _run_like_kpt(["--help"], b"", cwd)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(b"krm-coschedule: ")
    p = _run_like_kpt([], QUICKSTART.read_bytes(), cwd)
    assert p.returncode == 0, p.stderr
    assert b"\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\n" in p.stdout
    assert sorted(cwd.iterdir()) == before


@pytest.mark.parametrize("copied", ["pyproject.toml", "README.md", "krm_fn"])
def test_build_context_has_what_the_dockerfile_copies(copied: str) -> None:
    assert copied in DOCKERFILE.read_text()
    assert (ROOT / copied).exists()
