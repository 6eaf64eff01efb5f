"""Process faults, run as real subprocesses: closed, full and broken standard streams,
signals, a POSIX locale, oversized input, and files that are not regular files. Each fault is
one line on stderr and a non-zero exit (130 on SIGINT), never a traceback, and never exit 0
with missing or partial output."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from shared import ROOT

QUICKSTART = ROOT / "examples" / "quickstart" / "resourcelist.yaml"
CMD = [sys.executable, "-m", "krm_fn"]


def run(args: list[str] | None = None, env: dict[str, str] | None = None, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CMD, *(args or [])], capture_output=kw.pop("capture", True), env=env, **kw)  # type: ignore[call-overload]


def no_traceback(p: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in (p.stderr or b"") + (p.stdout or b"")


def big_list(n: int = 3000) -> bytes:
    sys.path.insert(0, str(ROOT / "bench"))
    import gen  # type: ignore[import-not-found]

    return gen.generate(n, 0.05, 1).encode()


def test_closed_stdin() -> None:
    p = subprocess.run(CMD, stdin=subprocess.DEVNULL, capture_output=True, preexec_fn=lambda: os.close(0))
    assert p.returncode == 1
    no_traceback(p)
    assert p.stderr.decode().strip() == "krm-coschedule: stdin is closed: nothing to read"
    assert b"kind: ResourceList" in p.stdout and b"severity: error" in p.stdout


def test_closed_stdout() -> None:
    p = subprocess.run(CMD, stdin=QUICKSTART.open("rb"), stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert p.returncode == 1
    assert p.stderr.decode().strip() == "krm-coschedule: stdout is closed: nothing to write the output to"


def test_full_stdout() -> None:
    with open("/dev/full", "wb") as full:
        p = subprocess.run(CMD, stdin=QUICKSTART.open("rb"), stdout=full, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert p.stderr.decode().strip() == "krm-coschedule: cannot write the output to stdout: No space left on device"


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_reader_leaving_early_is_an_error_not_exit_0(tmp_path: Path, unbuffered: str) -> None:
    """`krm-coschedule < big | head`: the output is cut, so the exit is not 0 (with
    PYTHONUNBUFFERED the raw file takes part of a write without an error)."""
    src = tmp_path / "big.yaml"
    src.write_bytes(big_list())
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    p = subprocess.Popen(CMD, stdin=src.open("rb"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait() == 1
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.strip().splitlines() == [
        "krm-coschedule: the reader of stdout closed it before the output was complete (broken pipe)"
    ]


def test_closed_stderr_does_not_change_a_good_run() -> None:
    alone = run(stdin=QUICKSTART.open("rb"))
    p = subprocess.run(CMD, stdin=QUICKSTART.open("rb"), stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2))
    assert p.returncode == alone.returncode == 0
    assert p.stdout == alone.stdout


def test_sigint_is_exit_130_and_one_line() -> None:
    p = subprocess.Popen(CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)  # it is reading stdin, which stays open
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130
    assert err.decode().strip() == "krm-coschedule: interrupted; nothing was written"
    assert out == b""


def test_posix_locale_still_writes_utf8() -> None:
    data = QUICKSTART.read_text(encoding="utf-8").replace(
        "    name: build-and-test-1\n", "    name: build-and-test-1\n    annotations:\n      owner: Bäu Ünïcode\n", 1
    ).encode()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0")
    p = run(env=env, input=data)
    utf8 = run(input=data)
    no_traceback(p)
    assert p.returncode == utf8.returncode == 0, p.stderr
    assert p.stdout == utf8.stdout and "Bäu Ünïcode".encode() in p.stdout


def test_control_characters_in_names_are_escaped_for_people(tmp_path: Path) -> None:
    """An object name carrying a terminal escape is refused (not a valid name); no output
    carries the raw escape: not the results (KRM mode), not stderr (files mode)."""
    data = QUICKSTART.read_bytes().replace(b"name: build-and-test-1", b'name: "evil\\e[2J"', 1)
    p = run(input=data)
    assert p.returncode == 1
    assert b"\x1b" not in p.stdout + p.stderr
    assert b"metadata.name" in p.stdout and b"is not valid here" in p.stdout
    doc = tmp_path / "run.yaml"
    doc.write_text('apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: "evil\\e[2J"\nspec:\n  pipelineSpec:\n    tasks: []\n')
    p = run(["--check", str(doc)])
    assert p.returncode == 1
    assert b"\x1b" not in p.stderr
    assert b"\\x1b[2J" in p.stderr or b"\\u001b[2J" in p.stderr


def test_oversized_stdin_is_refused(tmp_path: Path) -> None:
    code = "import sys\nfrom krm_fn import cli\nfrom krm_fn.io import stdio\nstdio.MAX_INPUT_BYTES = 1000\nraise SystemExit(cli.main([]))\n"
    p = subprocess.run([sys.executable, "-c", code], input=QUICKSTART.read_bytes(), capture_output=True)
    assert p.returncode == 1
    no_traceback(p)
    assert "stdin holds more than" in p.stderr.decode()
    assert b"kind: ResourceList" in p.stdout


def test_files_that_are_not_regular_files_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    good = tmp_path / "cm.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    p = run(["--check", str(fifo), "/dev/zero", str(good)], timeout=60)
    assert p.returncode == 1
    no_traceback(p)
    err = p.stderr.decode()
    assert f"{fifo}: [error] is a FIFO, not a regular file" in err
    assert "/dev/zero: [error] is a device, not a regular file" in err
    assert "2 failed, 1 unchanged" in err


def _fstat_saying(size: int) -> object:
    """os.fstat as it was before the file grew: its real result with st_size = size."""
    real = os.fstat

    def fake(fd: int) -> os.stat_result:
        fields = list(real(fd))
        fields[6] = size  # st_size
        return os.stat_result(fields)

    return fake


def test_a_file_that_grows_after_its_stat_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read asks for the size fstat gave and one byte more: a file that grew in between is
    still read to its end (up to the limit), not cut at its old size."""
    from krm_fn.io import reader

    text = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n"
    f = tmp_path / "cm.yaml"
    f.write_bytes(text)
    monkeypatch.setattr(reader.os, "fstat", _fstat_saying(10))
    assert reader.read_bytes(f)[0] == text


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.io import reader

    f = tmp_path / "cm.yaml"
    f.write_bytes(b"a: 1\n" * 40)  # 200 bytes
    monkeypatch.setattr(reader, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(reader.os, "fstat", _fstat_saying(50))
    with pytest.raises(reader.FileRefused, match="grew past"):
        reader.read_bytes(f)
