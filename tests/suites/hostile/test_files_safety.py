"""Files mode never leaves a truncated file: writes go to a temp file in the same directory
and are renamed into place. Killing the process at any moment leaves every file either as it
was or as the complete run would write it. Files that cannot be read or written are
reported, and the other files are still processed."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from krm_fn.cli import main

POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: pipelineruns\n"


def _manifest(i: int, padding_lines: int) -> str:
    pad = "".join(f"  k{j}: value-{i}-{j}\n" for j in range(padding_lines))
    return (
        f"apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: run-{i}\n  namespace: ci\n"
        "spec:\n  pipelineRef:\n    name: build\n  workspaces:\n  - name: src\n    volumeClaimTemplate:\n"
        "      spec:\n        accessModes: [ReadWriteOnce]\n        resources:\n          requests:\n            storage: 1Gi\n"
        f"---\n# padding so that writing this file takes a while\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{i}\n  namespace: ci\ndata:\n{pad}"
    )


def _cli_path() -> str:
    exe = Path(sys.executable).parent / "krm-coschedule"
    assert exe.exists(), exe
    return str(exe)


def _twenty_files(tmp_path: Path) -> tuple[Path, list[str], dict[str, bytes], dict[str, bytes], float]:
    """(the package, its 20 manifests' names, their bytes before, after a complete run on a
    copy, and how long that run took)."""
    n = 20
    src = tmp_path / "orig"
    src.mkdir()
    (src / "policy.yaml").write_text(POLICY)
    for i in range(n):
        (src / f"m{i:02d}.yaml").write_text(_manifest(i, 3000))
    names = [f"m{i:02d}.yaml" for i in range(n)]
    old = {name: (src / name).read_bytes() for name in names}
    # the complete run, on a copy: what every file becomes
    full = tmp_path / "full"
    shutil.copytree(src, full)
    t0 = time.monotonic()
    done = subprocess.run([_cli_path(), "--config", "policy.yaml", *names], cwd=full, capture_output=True, text=True)
    duration = time.monotonic() - t0
    assert done.returncode == 1, done.stderr  # 1: files changed (pre-commit convention)
    new = {name: (full / name).read_bytes() for name in names}
    return src, names, old, new, duration


def test_kill_during_writes_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    src, names, old, new, duration = _twenty_files(tmp_path)
    assert all(new[k] != old[k] for k in names)

    outcomes: set[str] = set()
    for attempt in range(1, 11):
        work = tmp_path / f"kill{attempt}"
        shutil.copytree(src, work)
        proc = subprocess.Popen([_cli_path(), "--config", "policy.yaml", *names], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if attempt <= 2:
            time.sleep(duration * attempt / 3)  # during reading and processing
        else:
            # wait for the write phase (a temp file appears), then kill a little later each time
            while proc.poll() is None and not any(p.name.endswith(".krm-tmp") for p in work.iterdir()):
                pass
            time.sleep(0.002 * (attempt - 3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        states = []
        for name in names:
            data = (work / name).read_bytes()
            assert data in (old[name], new[name]), f"{name} is neither the old nor the new file after a kill"
            states.append("new" if data == new[name] else "old")
        outcomes.add("/".join(sorted(set(states))))
        # a leftover temp file is only ever ours, beside the file, and never a manifest name
        for leftover in work.iterdir():
            if leftover.name not in names and leftover.name != "policy.yaml":
                assert leftover.name.startswith(".") and leftover.name.endswith(".krm-tmp"), leftover.name
    print("kill outcomes:", sorted(outcomes))
    assert outcomes, "no attempt ran"


def _write(tmp: Path) -> tuple[Path, Path]:
    (tmp / "policy.yaml").write_text(POLICY)
    a, b = tmp / "a.yaml", tmp / "b.yaml"
    a.write_text(_manifest(1, 1))
    b.write_text(_manifest(2, 1))
    return a, b


def test_unwritable_file_is_reported_and_the_others_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _write(tmp_path)
    before_a = a.read_bytes()
    real_replace = os.replace

    def replace(src: str, dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == "a.yaml":
            raise PermissionError(13, "Permission denied", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "policy.yaml", "a.yaml", "b.yaml"]) == 1
    err = capsys.readouterr().err
    assert "a.yaml" in err and "Permission denied" in err
    assert a.read_bytes() == before_a  # untouched, no half-written file
    assert "StatefulSet" in b.read_text()  # the other file was still processed
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".krm-tmp")] == []  # temp file cleaned up


@pytest.mark.parametrize("files", [2, 12])
def test_file_that_cannot_be_synced_is_reported_and_the_others_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], files: int
) -> None:
    """Every temp file is on disk (fsync) before any file is renamed into place, from a few
    threads when there are many; one whose fsync fails is not renamed over its file."""
    (tmp_path / "policy.yaml").write_text(POLICY)
    names = [f"run{i:02d}.yaml" for i in range(files)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(_manifest(i, 2))
    before = (tmp_path / names[0]).read_bytes()
    real_fsync, real_open = os.fsync, os.open
    opened: dict[int, str] = {}
    synced: list[str] = []

    def open_(path: Any, flags: int, *a: Any, **k: Any) -> int:
        fd = real_open(path, flags, *a, **k)
        opened[fd] = str(path)
        return fd

    # the temp file's name is short and says nothing of its file (issue 31: a name of 255
    # bytes must be rewritable): the first staged is the first file's
    import tempfile

    real_mkstemp = tempfile.mkstemp
    staged: list[str] = []

    def mkstemp(*a: Any, **k: Any) -> tuple[int, str]:
        fd, name = real_mkstemp(*a, **k)
        staged.append(name)
        return fd, name

    def fsync(fd: int) -> None:
        name = opened.get(fd, "")
        if staged and name == staged[0]:
            raise OSError(5, "Input/output error")
        synced.append(name)
        real_fsync(fd)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "policy.yaml", *names]) == 1
    err = capsys.readouterr().err
    assert f"{names[0]}: cannot write: Input/output error" in err
    assert (tmp_path / names[0]).read_bytes() == before
    assert all("StatefulSet" in (tmp_path / n).read_text() for n in names[1:])
    assert len([s for s in synced if s.endswith(".krm-tmp")]) == files - 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".krm-tmp")] == []


def test_unreadable_file_is_reported_and_the_others_are_processed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _write(tmp_path)
    before_a = a.read_bytes()
    from krm_fn.io import reader

    real_open = os.open

    def open_(path: Any, *args: Any, **kwargs: Any) -> Any:  # the reader's open (running as root ignores modes)
        if os.path.basename(os.fspath(path)) == "a.yaml":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(reader.os, "open", open_)
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "policy.yaml", "a.yaml", "b.yaml"]) == 1
    err = capsys.readouterr().err
    assert "a.yaml: [error] cannot be read: Permission denied" in err
    monkeypatch.setattr(reader.os, "open", real_open)
    assert a.read_bytes() == before_a
    assert "StatefulSet" in b.read_text()


def test_read_only_file_keeps_its_mode_when_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, _b = _write(tmp_path)
    os.chmod(a, 0o444)
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "policy.yaml", "a.yaml"]) == 1
    assert "StatefulSet" in a.read_text()
    assert (a.stat().st_mode & 0o777) == 0o444


# --------------------------------------------------------------------------- faults from outside

_FAULTY_REPLACE = """
import os, sys
real = os.replace
calls = []
def replace(src, dst, *a, **k):
    calls.append(dst)
    if len(calls) == {fail_at}:
        raise RuntimeError("simulated fault in os.replace")
    return real(src, dst, *a, **k)
os.replace = replace
from krm_fn.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_unexpected_exception_while_writing_leaves_every_file_intact(tmp_path: Path, fail_at: int) -> None:
    """An exception the package does not expect, raised from outside it while files are
    renamed into place (the first, second or third of three): one clear line, exit 1, no
    traceback, and every file as it was, with no temp file left behind."""
    (tmp_path / "policy.yaml").write_text(POLICY)
    names = []
    for i in range(3):
        (tmp_path / f"run{i}.yaml").write_text(_manifest(i, 2))
        names.append(f"run{i}.yaml")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = subprocess.run(
        [sys.executable, "-c", _FAULTY_REPLACE.format(fail_at=fail_at), "--config", "policy.yaml", *names],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [x for x in proc.stderr.splitlines() if "simulated fault" in x]
    assert lines == ["krm-coschedule: internal error (RuntimeError: simulated fault in os.replace); "
                     "this is a bug in krm-coschedule: please report it with the input that caused it"]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("args", [["explain", "--config", "policy.yaml", "run0.yaml"], ["policy.yaml"]])
def test_unexpected_exception_in_other_modes_is_one_line(tmp_path: Path, args: list[str]) -> None:
    """explain and the kustomize plugin: a bug is one line and exit 1, never a traceback."""
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "run0.yaml").write_text(_manifest(0, 1))
    code = (
        "import sys\nfrom krm_fn.orchestration import process\n"
        "def boom(*a, **k):\n    raise ValueError('simulated bug')\n"
        "process.process = boom\n"
        "from krm_fn.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=tmp_path, capture_output=True, text=True,
        input=_manifest(0, 1),
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.strip().splitlines() == [
        "krm-coschedule: internal error (ValueError: simulated bug); this is a bug in "
        "krm-coschedule: please report it with the input that caused it"
    ]


def test_file_changed_by_another_process_is_not_overwritten(tmp_path: Path) -> None:
    """A file edited on disk between reading and writing is refused, not overwritten."""
    (tmp_path / "policy.yaml").write_text(POLICY)
    run = tmp_path / "run0.yaml"
    run.write_text(_manifest(0, 1))
    code = (
        "import sys\nfrom pathlib import Path\nfrom krm_fn.modes import files\n"
        "real = files.process_mod.process\n"
        "def edit_then_process(*a, **k):\n"
        "    Path('run0.yaml').write_text(Path('run0.yaml').read_text() + '# edited meanwhile\\n')\n"
        "    return real(*a, **k)\n"
        "files.process_mod.process = edit_then_process\n"
        "from krm_fn.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "--config", "policy.yaml", "run0.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "run0.yaml: changed on disk while krm-coschedule ran; not rewritten (run it again)" in proc.stderr
    assert run.read_text().endswith("# edited meanwhile\n")
    assert "affinity-assistant" not in run.read_text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_termination_signal_during_writes_removes_temp_files_and_leaves_each_file_old_or_new(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """SIGTERM is what CI runners and pre-commit send on cancel or timeout: it is handled as
    SIGINT is (before, its default action left 14-60 staged temp files in the repository).
    Each attempt signals as soon as the first temp file appears, a little later each time.
    The child starts with the signal's default action whatever the test inherited: under
    nohup (SIGHUP ignored) or as a shell's background job (SIGINT ignored) the function
    rightly keeps an ignored signal ignored, and no attempt would be interrupted."""
    src, names, old, new, _duration = _twenty_files(tmp_path)

    signalled = 0
    for attempt in range(6):
        work = tmp_path / f"sig{attempt}"
        shutil.copytree(src, work)
        proc = subprocess.Popen(
            [_cli_path(), "--config", "policy.yaml", *names], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL),  # noqa: PLW1509 - the test starts no thread
        )
        while proc.poll() is None and not any(p.name.endswith(".krm-tmp") for p in work.iterdir()):
            pass
        time.sleep(0.003 * attempt)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert "Traceback" not in err
        if proc.returncode == -sig:
            # the signal came after the run had ended and put back the handlers it found
            # (during the interpreter's exit): the default action, with every file written
            assert all((work / name).read_bytes() == new[name] for name in names), "killed before the run ended"
            assert "file(s) rewritten" in err, err
            assert [p.name for p in work.iterdir() if p.name.endswith(".krm-tmp")] == []
            continue
        after = False  # the signal came once every file was replaced: they stay new, and it says so
        if proc.returncode != 1:  # 1: the run had finished
            signalled += 1
            assert proc.returncode == 128 + sig, (proc.returncode, err)
            last = err.splitlines()[-1]
            after = last.endswith(f"after writing {len(names)} file(s)")
            assert last.startswith("krm-coschedule: ") and ("nothing was written" in last or after), err
        assert [p.name for p in work.iterdir() if p.name.endswith(".krm-tmp")] == []
        for name in names:
            assert (work / name).read_bytes() in (old[name], new[name]), f"{name} is neither old nor new"
        if proc.returncode != 1:
            want = new if after else old
            assert all((work / name).read_bytes() == want[name] for name in names), "an interrupted run puts back what it wrote"
    assert signalled, "no attempt reached the write phase before the run ended"


@pytest.mark.parametrize("when", ["after the writes", "before the writes"])
def test_a_termination_signal_is_told_whether_the_files_were_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], when: str
) -> None:
    """SIGTERM right after the files are replaced (while the summary is written) finds them
    written for good: the line says so, and they stay new. It used to say "nothing was
    written" over files that had been. Before the writes, nothing is written and it says so."""
    from krm_fn.modes import report as files_mod

    (tmp_path / "policy.yaml").write_text(POLICY)
    names = [f"m{i}.yaml" for i in range(3)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(_manifest(i, 0))
    old = {n: (tmp_path / n).read_bytes() for n in names}
    target = "write_summary" if when == "after the writes" else "write_results"
    real = getattr(files_mod, target)

    def then_terminated(*a: Any, **k: Any) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # delivered here: the handler raises at once
        real(*a, **k)

    monkeypatch.setattr(files_mod, target, then_terminated)
    monkeypatch.chdir(tmp_path)
    code = main(["--config", "policy.yaml", *names])
    err = capsys.readouterr().err
    assert code == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    if when == "after the writes":
        assert err.splitlines()[-1] == "krm-coschedule: terminated (SIGTERM); after writing 3 file(s)", err
        assert all((tmp_path / n).read_bytes() != old[n] for n in names)
    else:
        assert err.splitlines()[-1] == "krm-coschedule: terminated (SIGTERM); nothing was written", err
        assert all((tmp_path / n).read_bytes() == old[n] for n in names)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler put back
