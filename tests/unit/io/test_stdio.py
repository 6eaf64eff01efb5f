"""krm_fn.io.stdio: stdin read to its end and stdout written whole whatever their mode
(issue 31). A parent built on Node.js, Go or some CI shells may leave O_NONBLOCK on the pipe's
file description; the function then found EAGAIN whenever the writer paused and took what
the pipe held as the whole input (exit 0, and kpt wrote that part back over the package), and
a full non-blocking stdout stopped the output at 64 KiB blaming "the reader closed it".

Every test here uses a real pipe with O_NONBLOCK set on the description the child shares,
and a writer (or reader) that pauses."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from shared import ROOT

from krm_fn.io import stdio

CMD = [sys.executable, "-m", "krm_fn"]
QUICKSTART = (ROOT / "examples" / "quickstart" / "resourcelist.yaml").read_bytes()
PACKAGE = ROOT / "examples" / "coschedule-pipelineruns"
STREAM = (PACKAGE / "pipeline.yaml").read_bytes() + b"---\n" + (PACKAGE / "pipelinerun.yaml").read_bytes()


def _big_list(n: int = 400) -> bytes:
    sys.path.insert(0, str(ROOT / "bench"))
    import gen  # type: ignore[import-not-found]

    return gen.generate(n, 0.05, 1).encode()


def _reference(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CMD, *args], input=data, capture_output=True, timeout=120, check=False)


def _paused_stdin(args: list[str], data: bytes, cuts: list[int], pause: float = 0.2, first: float = 1.0) -> subprocess.CompletedProcess[bytes]:
    """Run with stdin a pipe in O_NONBLOCK mode whose writer stops at each offset of `cuts`,
    `first` seconds at the first (long enough for the child to start and reach the read),
    `pause` at the others."""
    r, w = os.pipe()
    os.set_blocking(r, False)  # on the file description the child's stdin shares
    p = subprocess.Popen([*CMD, *args], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(r)
    out: dict[str, bytes] = {}

    def drain() -> None:  # the child may answer an error before the input ends
        o, e = p.communicate(timeout=120)
        out.update(stdout=o, stderr=e)

    t = threading.Thread(target=drain)
    t.start()
    try:
        at = 0
        for i, cut in enumerate(cuts):
            stdio.write_all(w, data[at:cut])
            at = cut
            time.sleep(first if i == 0 else pause)
        stdio.write_all(w, data[at:])
    finally:
        os.close(w)
    t.join(timeout=150)
    return subprocess.CompletedProcess(p.args, p.returncode, out["stdout"], out["stderr"])


def _cuts(data: bytes) -> list[list[int]]:
    """Pauses before the first byte, after it, in the middle of a line, and at several places."""
    mid = data.index(b"\n", len(data) // 2) - 3
    return [[0], [1], [mid], [len(data) // 5, len(data) // 3, mid, len(data) - 2]]


@pytest.mark.parametrize("cut", range(4))
@pytest.mark.parametrize("mode", ["krm", "plugin", "explain"])
def test_a_nonblocking_stdin_whose_writer_pauses_is_read_to_its_end(mode: str, cut: int) -> None:
    if mode == "krm":
        args, data = [], QUICKSTART
    elif mode == "plugin":
        args, data = [str(PACKAGE / "coschedule-policy.yaml")], STREAM
    else:
        args, data = ["explain", "--format", "json"], QUICKSTART
    want = _reference(args, data)
    assert want.returncode == 0, want.stderr
    got = _paused_stdin(args, data, _cuts(data)[cut])
    assert (got.returncode, got.stdout) == (0, want.stdout), got.stderr
    assert got.stderr == want.stderr


def test_nonblocking_stdins_under_load() -> None:
    """Eight runs at once on two cores, each writer pausing three times: every one reads its
    whole input."""
    data = _big_list()
    want = _reference([], data)
    assert want.returncode == 0
    results: list[subprocess.CompletedProcess[bytes]] = []

    def one(i: int) -> None:
        n = len(data)
        results.append(_paused_stdin([], data, [n // (i + 3), n // 2 + i, n - 1 - i], pause=0.05 * (i % 3 + 1), first=1.5))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert len(results) == 8
    for got in results:
        assert (got.returncode, got.stdout) == (0, want.stdout), got.stderr


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("mode", ["krm", "plugin"])
def test_a_nonblocking_stdout_that_fills_is_written_whole(mode: str, unbuffered: str) -> None:
    """The reader starts late: the pipe (64 KiB) fills many times over, and every byte comes."""
    if mode == "krm":
        args, data = [], _big_list()
    else:
        args, data = [str(PACKAGE / "coschedule-policy.yaml")], STREAM * 1 + b"---\n" + _many_configmaps()
    want = _reference(args, data)
    assert want.returncode == 0 and len(want.stdout) > 4 * 65536, want.stderr
    r, w = os.pipe()
    os.set_blocking(w, False)
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    p = subprocess.Popen([*CMD, *args], stdin=subprocess.PIPE, stdout=w, stderr=subprocess.PIPE, env=env)
    os.close(w)
    assert p.stdin is not None and p.stderr is not None
    p.stdin.write(data)
    p.stdin.close()
    time.sleep(1.0)  # the pipe fills while nobody reads
    parts = []
    with os.fdopen(r, "rb") as fh:
        while chunk := fh.read(4096):
            parts.append(chunk)
            if len(parts) % 16 == 0:
                time.sleep(0.01)  # a slow reader: the pipe fills again
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0, err
    assert b"".join(parts) == want.stdout
    assert err == want.stderr


def _many_configmaps(n: int = 3000) -> bytes:
    return b"---\n".join(
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  k: '%s'\n" % (i, b"v" * 40) for i in range(n)
    )


def test_a_failing_stdout_names_the_real_cause() -> None:
    """A non-blocking stdout that is full is no "reader closed it"; a full disk is said as one."""
    with open("/dev/full", "wb") as full:
        os.set_blocking(full.fileno(), False)
        p = subprocess.run(CMD, input=QUICKSTART, stdout=full, stderr=subprocess.PIPE, timeout=60, check=False)
    assert p.returncode == 1
    assert p.stderr.decode().strip() == "krm-coschedule: cannot write the output to stdout: No space left on device"


# --------------------------------------------------------------------------- the functions


def test_read_all_waits_through_eagain_and_pauses() -> None:
    for pauses in ([0.0], [0.05, 0.1], [0.02] * 4):
        r, w = os.pipe()
        os.set_blocking(r, False)
        pieces = [b"a" * 70000, b"b", b"c" * 3, b"d" * 100000, b"e"][: len(pauses) + 1]

        def writer(pieces: list[bytes] = pieces, pauses: list[float] = pauses, w: int = w) -> None:
            try:
                for piece, pause in zip(pieces, [*pauses, 0.0], strict=True):
                    stdio.write_all(w, piece)
                    time.sleep(pause)
            finally:
                os.close(w)

        t = threading.Thread(target=writer)
        t.start()
        try:
            assert stdio.read_all(r, 1 << 20) == b"".join(pieces)
        finally:
            t.join()
            os.close(r)


def test_read_all_refuses_more_than_its_limit() -> None:
    r, w = os.pipe()
    os.write(w, b"x" * 101)
    os.close(w)
    with pytest.raises(stdio.TooLarge):
        stdio.read_all(r, 100)
    os.close(r)


def test_write_all_waits_for_a_full_nonblocking_pipe() -> None:
    r, w = os.pipe()
    os.set_blocking(w, False)
    data = bytes(range(256)) * 4096  # 1 MiB: the pipe fills sixteen times
    got: list[bytes] = []

    def reader() -> None:
        time.sleep(0.2)
        with os.fdopen(r, "rb") as fh:
            got.append(fh.read())

    t = threading.Thread(target=reader)
    t.start()
    stdio.write_all(w, data)
    os.close(w)
    t.join()
    assert got == [data]


def test_write_all_to_a_pipe_whose_reader_left_is_a_broken_pipe() -> None:
    r, w = os.pipe()
    os.close(r)
    with pytest.raises(BrokenPipeError):
        stdio.write_all(w, b"x")
    os.close(w)


def test_stdin_is_read_in_one_place() -> None:
    """KRM, plugin and explain mode read stdin through cli._read_stdin (io.stdio) alone."""
    import ast

    readers = []
    for path in sorted((ROOT / "krm_fn").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and node.attr == "stdin" and isinstance(node.value, ast.Name) and node.value.id == "sys":
                    readers.append(f"{path.relative_to(ROOT).as_posix()}:{fn.name}")
    assert sorted(set(readers)) == ["krm_fn/cli.py:_read_stdin"]
    cli = (ROOT / "krm_fn" / "cli.py").read_text()
    assert cli.count("_read_stdin()") - cli.count("def _read_stdin()") == 3  # KRM, the plugin, explain


def test_the_error_numbers_written_out_are_errnos() -> None:
    """stdio and cli spell EIO and EPIPE as numbers (`import errno`: 1 M instructions at every
    start, issue 34): they must be this platform's."""
    import errno

    from krm_fn import cli

    assert stdio._EIO == errno.EIO
    assert cli._EPIPE == errno.EPIPE
