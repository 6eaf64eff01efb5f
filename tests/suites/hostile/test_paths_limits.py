"""Paths at the limits (issue 31): a directory of the package whose path is past PATH_MAX (a
deep vendor tree) made the whole run an internal error; a named file past NAME_MAX or
PATH_MAX is a located error for that file; a file name that is not UTF-8 made --diff and
--format json an internal error (and the errors about it were lost on stderr). Now each is
a warning or an error about that path, every other file is still rendered, and every output
format prints such a name escaped (`\\xff`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from files_util import PIPELINE  # type: ignore[import-not-found]
from files_util import kinds  # type: ignore[import-not-found]
from files_util import run_doc  # type: ignore[import-not-found]

from krm_fn.core.paths import escaped

CMD = [sys.executable, "-m", "krm_fn"]
DEEP = "d" * 200


def _run(cwd: Path | bytes, *args: str | bytes) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([*CMD, *args], cwd=cwd, capture_output=True, timeout=120, check=False)
    out, err = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")  # the output is UTF-8 whatever the names
    assert "internal error" not in err and "Traceback" not in err, err
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def _deep(base: Path, levels: int, leaf: str | None = None) -> str:
    """Directories DEEP/DEEP/... `levels` deep under `base` (past PATH_MAX from 21 on), made
    one level at a time relative to the last (a path that long cannot be opened whole);
    `leaf`: a YAML file at the bottom. The path relative to `base`."""
    fd = os.open(base, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(DEEP, dir_fd=fd)
            nxt = os.open(DEEP, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        if leaf is not None:
            w = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(w, run_doc("deep").encode())
            os.close(w)
    finally:
        os.close(fd)
    return "/".join([DEEP] * levels + ([leaf] if leaf else []))


def _package(d: Path, kptfile: bool) -> None:
    (d / "pipeline.yaml").write_text(PIPELINE)
    (d / "run.yaml").write_text(run_doc("r"))
    if kptfile:
        (d / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n")


@pytest.mark.parametrize("how", ["dir-arg", "named-files", "named-files-kptfile", "dir-arg-kptfile"])
@pytest.mark.parametrize("levels", [21, 30])
def test_a_directory_past_path_max_is_a_warning_and_the_rest_is_rendered(tmp_path: Path, how: str, levels: int) -> None:
    kptfile = how.endswith("kptfile") or how.startswith("named")
    _package(tmp_path, kptfile=kptfile)
    (tmp_path / "vendor").mkdir()
    _deep(tmp_path / "vendor", levels, leaf="x.yaml")
    args = ["."] if how.startswith("dir-arg") else ["pipeline.yaml", "run.yaml"]
    p = _run(tmp_path, *args)
    assert p.returncode == 1, p.stderr  # run.yaml was rewritten
    assert kinds(tmp_path / "run.yaml") == ["PipelineRun", "StatefulSet"]
    warned = [x for x in p.stderr.splitlines() if "longer than the system allows (PATH_MAX)" in x]
    assert len(warned) == 1 and warned[0].startswith(f"[warning] vendor/{DEEP}/"), p.stderr
    assert "1 warning(s)" in p.stderr


def test_the_deep_directory_warning_is_in_the_json_report(tmp_path: Path) -> None:
    _package(tmp_path, kptfile=True)
    (tmp_path / "vendor").mkdir()
    _deep(tmp_path / "vendor", 25)
    p = _run(tmp_path, "--check", "--format", "json", "pipeline.yaml", "run.yaml")
    report = json.loads(p.stdout)
    assert [r["severity"] for r in report["results"] if "PATH_MAX" in r["message"]] == ["warning"]
    assert report["summary"]["files_changed"] == 1


@pytest.mark.parametrize("length", [256, 300, 1000])
def test_a_named_file_past_name_max_is_an_error_for_it(tmp_path: Path, length: int) -> None:
    _package(tmp_path, kptfile=False)
    name = "n" * (length - 5) + ".yaml"
    p = _run(tmp_path, "--check", "pipeline.yaml", name, "run.yaml")
    assert p.returncode == 1
    assert f"{name}: [error] cannot be read: a name in its path is {length} bytes, longer than the file system allows" in p.stderr
    assert "would rewrite run.yaml" in p.stderr  # the other files are still checked


def test_a_named_file_past_path_max_is_an_error_for_it(tmp_path: Path) -> None:
    _package(tmp_path, kptfile=False)
    (tmp_path / "vendor").mkdir()
    deep = "vendor/" + _deep(tmp_path / "vendor", 22, leaf="x.yaml")
    p = _run(tmp_path, "--check", "pipeline.yaml", deep, "run.yaml")
    assert p.returncode == 1
    assert f"{deep}: [error] cannot be read: its path is {len(deep)} bytes, longer than the system allows (PATH_MAX)" in p.stderr
    assert "would rewrite run.yaml" in p.stderr


# --------------------------------------------------------------------------- names not UTF-8

BAD_NAMES = [b"bad\xff.yaml", b"caf\xe9.yaml", b"\x80\x81run.yaml", b"ok-\xc3(.yaml"]


@pytest.mark.parametrize("raw", BAD_NAMES)
def test_a_name_that_is_not_utf8_is_rendered_and_shown_escaped(tmp_path: Path, raw: bytes) -> None:
    _package(tmp_path, kptfile=False)
    (tmp_path / "run.yaml").unlink()
    path = os.path.join(os.fsencode(tmp_path), raw)
    with open(path, "w") as fh:
        fh.write(run_doc("r"))
    shown = "".join(chr(b) if b < 0x80 else f"\\x{b:02x}" for b in raw)
    # text
    p = _run(tmp_path, "--check", b"pipeline.yaml", raw)
    assert p.returncode == 1 and f"would rewrite {shown}\n" in p.stderr, p.stderr
    # --diff
    p = _run(tmp_path, "--diff", b"pipeline.yaml", raw)
    assert p.returncode == 1 and f"--- a/{shown}\n+++ b/{shown}\n" in p.stdout, p.stdout
    # --format json
    p = _run(tmp_path, "--check", "--format", "json", b"pipeline.yaml", raw)
    assert [f["path"] for f in json.loads(p.stdout)["files"]] == ["pipeline.yaml", shown]
    # and written under its own name
    p = _run(tmp_path, b"pipeline.yaml", raw)
    assert p.returncode == 1 and f"rewrote {shown}\n" in p.stderr
    assert kinds(Path(os.fsdecode(path))) == ["PipelineRun", "StatefulSet"]


def test_errors_about_a_name_that_is_not_utf8_are_printed(tmp_path: Path) -> None:
    """They were lost: the line could not be encoded, and stderr's failures are ignored."""
    _package(tmp_path, kptfile=False)
    (tmp_path / "run.yaml").unlink()
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.yaml"), "w") as fh:
        fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n")
    for fmt in ("text", "json"):
        p = _run(tmp_path, "--check", "--format", fmt, b"pipeline.yaml", b"bad\xff.yaml")
        assert p.returncode == 1
        if fmt == "text":
            assert "bad\\xff.yaml" in p.stderr and "[error]" in p.stderr, p.stderr
        else:
            errors = [r for r in json.loads(p.stdout)["results"] if r["severity"] == "error"]
            assert errors and errors[0]["file"]["path"] == "bad\\xff.yaml"


def test_escaped() -> None:
    assert escaped("plain.yaml") == "plain.yaml"
    assert escaped("café.yaml") == "café.yaml"  # UTF-8 is a name as it is
    assert escaped(os.fsdecode(b"a\xff\x80b")) == "a\\xff\\x80b"
    assert escaped(os.fsdecode(b'{"p": "a\xff"}'), in_json=True) == '{"p": "a\\\\xff"}'
    assert json.loads(escaped(json.dumps({"p": os.fsdecode(b"\xe9")}, ensure_ascii=False), in_json=True)) == {"p": "\\xe9"}
