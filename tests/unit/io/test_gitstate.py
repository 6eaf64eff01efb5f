"""krm_fn.io.gitstate: the files passed as they are at HEAD, read from git through
reader.read_command (the size limit, UTF-8, a refusal that names what was read), or NoState
saying why there is none (issue 33)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krm_fn.io import gitstate
from krm_fn.io import reader


def _repo(tmp_path: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.yaml").write_text("a: 1\n")
    (tmp_path / "bin.yaml").write_bytes(b"a: \x00\n")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "c")
    return tmp_path


def test_the_text_at_head_and_none_for_a_new_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    (root / "sub" / "a.yaml").write_text("a: 2\n")
    (root / "sub" / "new.yaml").write_text("b: 1\n")
    monkeypatch.chdir(root)
    # a hook runs with GIT_DIR and GIT_INDEX_FILE set, relative to the repository's top
    monkeypatch.setenv("GIT_DIR", "elsewhere/.git")
    assert gitstate.head_texts("sub", ["sub/a.yaml", "sub/new.yaml"]) == {"sub/a.yaml": "a: 1\n", "sub/new.yaml": None}


def test_a_file_at_head_that_is_no_text_is_no_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    monkeypatch.chdir(root)
    with pytest.raises(gitstate.NoState, match=r"^HEAD:bin.yaml: contains NUL bytes"):
        gitstate.head_texts(".", ["bin.yaml"])


def test_no_repository_no_commit_and_no_git_are_no_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_text("a: 1\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(gitstate.NoState, match="^not in a git work tree$"):
        gitstate.head_texts(".", ["a.yaml"])
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    with pytest.raises(gitstate.NoState, match="^no commit yet: HEAD is missing$"):
        gitstate.head_texts(".", ["a.yaml"])
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(gitstate.NoState, match="^git is not on PATH$"):
        gitstate.head_texts(".", ["a.yaml"])


def test_a_git_that_hangs_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f"#!/bin/sh\nexec {shutil.which('sleep')} 30\n")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(gitstate, "GIT_TIMEOUT", 0.5)
    with pytest.raises(gitstate.NoState, match=r"gave no answer within 0.5 s"):
        gitstate.head_texts(str(tmp_path), [str(tmp_path / "a.yaml")])


def test_read_command_keeps_to_the_limit_and_names_what_it_read() -> None:
    big = [sys.executable, "-c", "import sys; sys.stdout.write('x' * 100000)"]
    assert len(reader.read_command(big, "big")) == 100000
    with pytest.raises(reader.FileRefused, match=r"^big: is more than 0 MiB"):
        reader.read_command(big, "big", limit=1000)
    echo = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"]
    data = os.urandom(300000)
    assert reader.read_command(echo, "echo", stdin=data) == data  # more input than a pipe holds
    with pytest.raises(reader.FileRefused, match=r"^no: cannot be read: x cannot be run"):
        reader.read_command(["/nonexistent/x"], "no")
    fails = [sys.executable, "-c", "import sys; sys.stderr.write('fatal: bad\\n'); sys.exit(3)"]
    with pytest.raises(reader.FileRefused, match=r"exited with 3 \(fatal: bad\)$"):
        reader.read_command(fails, "fails")
