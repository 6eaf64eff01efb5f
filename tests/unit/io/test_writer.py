"""krm_fn.io.writer, the one atomic writer (issue 31): every file is replaced whole or not
at all whatever its links (a file with several hard links was written in place: a full disk
or a SIGKILL mid-write left it cut in the middle of a StatefulSet), what it carries besides
its bytes goes with it or a warning names what did not (its POSIX ACL and extended attributes
were dropped without a word), and the temp file's name fits beside any name the file system
accepts (a name of 238 to 255 bytes could never be rewritten)."""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from files_util import PIPELINE  # type: ignore[import-not-found]
from files_util import cli  # type: ignore[import-not-found]
from files_util import kinds  # type: ignore[import-not-found]
from files_util import run_doc  # type: ignore[import-not-found]

from krm_fn.io import writer
from krm_fn.modes import kustomize

CMD = [sys.executable, "-m", "krm_fn"]


def _package(d: Path, runs: int = 1) -> list[str]:
    (d / "pipeline.yaml").write_text(PIPELINE)
    names = []
    for i in range(runs):
        (d / f"run{i}.yaml").write_text(run_doc(f"r{i}"))
        names.append(f"run{i}.yaml")
    return names


# --------------------------------------------------------------------------- hard links


@pytest.mark.parametrize("links", [2, 3, 5])
def test_a_hard_linked_file_is_replaced_by_a_rename_with_a_warning(tmp_path: Path, links: int) -> None:
    _package(tmp_path)
    run = tmp_path / "run0.yaml"
    old = run.read_bytes()
    others = [tmp_path / f"link{i}.yml.bak" for i in range(links - 1)]
    for o in others:
        os.link(run, o)
    before = run.stat()
    code, _, err = cli(tmp_path, "pipeline.yaml", "run0.yaml")
    assert code == 1, err
    after = run.stat()
    assert after.st_ino != before.st_ino and after.st_nlink == 1  # a new file, renamed into place
    assert kinds(run) == ["PipelineRun", "StatefulSet"]
    assert all(o.read_bytes() == old for o in others)  # the other names keep the old text
    assert f"run0.yaml: [warning] had {links} hard links; it was replaced by a new file" in err
    assert "krm-coschedule: rewrote run0.yaml" in err


def test_the_hard_link_warning_is_in_the_json_report(tmp_path: Path) -> None:
    _package(tmp_path)
    os.link(tmp_path / "run0.yaml", tmp_path / "other")
    code, out, _err = cli(tmp_path, "--format", "json", "pipeline.yaml", "run0.yaml")
    assert code == 1
    report = json.loads(out)
    warnings = [r for r in report["results"] if r["severity"] == "warning" and "hard links" in r["message"]]
    assert len(warnings) == 1 and warnings[0]["file"]["path"] == "run0.yaml"
    assert report["summary"]["warnings"] >= 1


def _tmpfs(where: Path, pages: int) -> Path:
    where.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={pages * 4}k", "tmpfs", str(where)], capture_output=True, check=False)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {p.stderr.decode().strip()}")
    return where


@pytest.mark.parametrize("links", [1, 2])
def test_a_full_disk_never_leaves_a_hard_linked_file_torn(tmp_path: Path, links: int) -> None:
    """Room for the temp file but not for the file to grow in place (the old way): the file
    is the old or the new one, never cut."""
    ref = tmp_path / "ref"
    ref.mkdir()
    _package(ref)
    (ref / "run0.yaml").write_text(run_doc("r0") + "# " + "x" * 3000 + "\n")  # one page
    old = (ref / "run0.yaml").read_bytes()
    assert cli(ref, "pipeline.yaml", "run0.yaml")[0] == 1
    new = (ref / "run0.yaml").read_bytes()
    assert 4096 < len(new) <= 8192  # two pages
    mnt = _tmpfs(tmp_path / "mnt", 24)
    try:
        _package(mnt)
        run = mnt / "run0.yaml"
        run.write_bytes(old)
        if links > 1:
            os.link(run, mnt / "twin")
        free = shutil.disk_usage(mnt).free // 4096
        (mnt / "ballast").write_bytes(b"\0" * (free - 2) * 4096)  # 2 pages left: the new text needs 2
        code, _, err = cli(mnt, "pipeline.yaml", "run0.yaml")
        data = run.read_bytes()
        assert data in (old, new), f"torn: {len(data)} bytes"
        assert data == new and code == 1, err  # here the rename needs no more room than the temp file
        assert [p.name for p in mnt.iterdir() if p.name.endswith(".krm-tmp")] == []
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_kill_during_writes_leaves_each_hard_linked_file_old_or_new(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    names = _package(src, 20)
    (src / "pipeline.yaml").write_text(PIPELINE)
    for n in names:  # large files: the writes take a while
        (src / n).write_text(run_doc(n[:-5]) + "".join(f"# {i} {'y' * 200}\n" for i in range(3000)))
    old = {n: (src / n).read_bytes() for n in names}
    done = tmp_path / "done"
    shutil.copytree(src, done)
    assert subprocess.run([*CMD, "pipeline.yaml", *names], cwd=done, capture_output=True, check=False).returncode == 1
    new = {n: (done / n).read_bytes() for n in names}
    assert all(new[n] != old[n] for n in names)
    for attempt in range(6):
        work = tmp_path / f"kill{attempt}"
        shutil.copytree(src, work)
        for n in names:
            os.link(work / n, work / f".{n}.twin")
        proc = subprocess.Popen([*CMD, "pipeline.yaml", *names], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        inodes = {n: (work / n).stat().st_ino for n in names}
        deadline = time.monotonic() + 60
        if attempt < 3:  # while the temp files are staged
            while proc.poll() is None and not any(p.name.endswith(".krm-tmp") for p in work.iterdir()) and time.monotonic() < deadline:
                pass
            time.sleep(0.003 * attempt)
        else:  # as soon as the first file is written (renamed into place, or written in place)
            while proc.poll() is None and time.monotonic() < deadline and all(
                (work / n).stat().st_ino == inodes[n] and (work / n).stat().st_size == len(old[n]) for n in names
            ):
                pass
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for n in names:
            data = (work / n).read_bytes()
            assert data in (old[n], new[n]), f"{n} is neither the old nor the new file after a kill"
            assert (work / f".{n}.twin").read_bytes() == old[n]  # the other name is never touched


def test_concurrent_runs_killed_at_random_leave_hard_linked_files_old_or_new(tmp_path: Path) -> None:
    """Under load: four packages of hard-linked files rewritten at once on two cores, each
    run killed at its own instant (random, from its first temp file on)."""
    import random

    src = tmp_path / "src"
    src.mkdir()
    names = _package(src, 8)
    for n in names:
        (src / n).write_text(run_doc(n[:-5]) + "".join(f"# {i} {'z' * 200}\n" for i in range(2000)))
    old = {n: (src / n).read_bytes() for n in names}
    done = tmp_path / "done"
    shutil.copytree(src, done)
    assert subprocess.run([*CMD, "pipeline.yaml", *names], cwd=done, capture_output=True, check=False).returncode == 1
    new = {n: (done / n).read_bytes() for n in names}
    rng = random.Random(31)
    for round_ in range(3):
        works, procs = [], []
        for i in range(4):
            work = tmp_path / f"r{round_}p{i}"
            shutil.copytree(src, work)
            for n in names:
                os.link(work / n, work / f".{n}.twin")
            works.append(work)
            procs.append(subprocess.Popen([*CMD, "pipeline.yaml", *names], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(p.name.endswith(".krm-tmp") for w in works for p in w.iterdir()):
            if all(p.poll() is not None for p in procs):
                break
        start = time.monotonic()
        for at, proc in sorted(((rng.uniform(0, 0.5), p) for p in procs), key=lambda x: x[0]):
            time.sleep(max(0.0, start + at - time.monotonic()))
            proc.send_signal(signal.SIGKILL)
        for proc, work in zip(procs, works, strict=True):
            proc.wait()
            for n in names:
                assert (work / n).read_bytes() in (old[n], new[n]), f"{work.name}/{n} is torn"
                assert (work / f".{n}.twin").read_bytes() == old[n]


# --------------------------------------------------------------------------- attributes


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A system.posix_acl_access value: version 2, then (tag, perm, id) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


USER_OBJ, USER, GROUP_OBJ, MASK, OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
UNDEF = 0xFFFFFFFF


def _xattrs_supported(d: Path) -> bool:
    probe = d / "probe"
    probe.write_text("")
    try:
        os.setxattr(probe, "user.probe", b"1")
        return True
    except OSError:
        return False
    finally:
        probe.unlink()


@pytest.mark.parametrize(
    "attrs",
    [
        {"user.origin": b"vendor/a"},
        {"user.a": b"1", "user.b": b"\x00\xff binary"},
        {"system.posix_acl_access": _acl((USER_OBJ, 6, UNDEF), (USER, 6, 1234), (GROUP_OBJ, 4, UNDEF), (MASK, 6, UNDEF), (OTHER, 4, UNDEF))},
        {
            "user.checksum": b"abc",
            "system.posix_acl_access": _acl((USER_OBJ, 6, UNDEF), (USER, 4, 4321), (GROUP_OBJ, 4, UNDEF), (MASK, 4, UNDEF), (OTHER, 0, UNDEF)),
        },
    ],
    ids=["user", "two-user", "acl", "acl-and-user"],
)
def test_extended_attributes_and_acls_are_carried_over(tmp_path: Path, attrs: dict[str, bytes]) -> None:
    if not _xattrs_supported(tmp_path):
        pytest.skip("no user extended attributes on this file system")
    _package(tmp_path)
    run = tmp_path / "run0.yaml"
    for k, v in attrs.items():
        os.setxattr(run, k, v)
    mode = run.stat().st_mode
    code, _, err = cli(tmp_path, "pipeline.yaml", "run0.yaml")
    assert code == 1 and "[warning]" not in err, err
    assert kinds(run) == ["PipelineRun", "StatefulSet"]
    assert {k: os.getxattr(run, k) for k in attrs} == attrs
    assert run.stat().st_mode == mode


def test_an_acl_inherited_from_the_directory_is_not_added(tmp_path: Path) -> None:
    """The new file is the old one's: no ACL of the directory's default one it did not have."""
    if not _xattrs_supported(tmp_path):
        pytest.skip("no extended attributes on this file system")
    _package(tmp_path)
    run = tmp_path / "run0.yaml"
    mode = run.stat().st_mode
    default = _acl((USER_OBJ, 7, UNDEF), (USER, 7, 999), (GROUP_OBJ, 5, UNDEF), (MASK, 7, UNDEF), (OTHER, 5, UNDEF))
    os.setxattr(tmp_path, "system.posix_acl_default", default)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run0.yaml")
    assert code == 1, err
    assert "system.posix_acl_access" not in os.listxattr(run)
    assert run.stat().st_mode == mode


def test_an_attribute_that_cannot_be_carried_is_a_warning_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not _xattrs_supported(tmp_path):
        pytest.skip("no extended attributes on this file system")
    _package(tmp_path)
    run = tmp_path / "run0.yaml"
    os.setxattr(run, "user.keep", b"1")
    os.setxattr(run, "user.locked", b"2")
    real = os.setxattr

    def setxattr(path: object, name: str, value: bytes, *a: object) -> None:
        if name == "user.locked":
            raise PermissionError(errno.EPERM, "Operation not permitted")
        real(path, name, value, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "setxattr", setxattr)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run0.yaml")
    assert code == 1
    assert (
        "run0.yaml: [warning] the extended attribute user.locked (Operation not permitted) could not be "
        "carried over to the rewritten file"
    ) in err
    assert os.getxattr(run, "user.keep") == b"1" and kinds(run) == ["PipelineRun", "StatefulSet"]


# --------------------------------------------------------------------------- long names


@pytest.mark.parametrize("length", [200, 238, 250, 255])
def test_a_file_name_up_to_name_max_can_be_rewritten(tmp_path: Path, length: int) -> None:
    _package(tmp_path)
    name = "r" * (length - 5) + ".yaml"
    os.rename(tmp_path / "run0.yaml", tmp_path / name)
    code, _, err = cli(tmp_path, "pipeline.yaml", name)
    assert code == 1 and "too long" not in err, err
    assert kinds(tmp_path / name) == ["PipelineRun", "StatefulSet"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".krm-tmp")] == []


# --------------------------------------------------------------------------- the installer


def test_the_installer_writes_through_the_atomic_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "fn.kpt.dev" / "v1alpha1" / "coschedulepolicy" / "CoschedulePolicy"
    target.parent.mkdir(parents=True)
    target.write_text("#!/bin/sh\nold\n")
    target.chmod(0o600)
    assert kustomize.install(tmp_path, ["/bin/true"]) == [target]
    assert target.read_text().endswith("exec /bin/true \"$@\"\n") and target.stat().st_mode & 0o777 == 0o755
    assert any(s.endswith(writer.TEMP_SUFFIX) for s in synced)  # the script was on disk before the rename
    assert str(target.parent) in synced  # and the rename too
    assert [p.name for p in target.parent.iterdir()] == ["CoschedulePolicy"]


def test_the_installer_leaves_the_old_script_when_it_cannot_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "fn.kpt.dev" / "v1alpha1" / "coschedulepolicy" / "CoschedulePolicy"
    target.parent.mkdir(parents=True)
    target.write_text("#!/bin/sh\nold\n")

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        kustomize.install(tmp_path, ["/bin/true"])
    assert target.read_text() == "#!/bin/sh\nold\n"
    assert [p.name for p in target.parent.iterdir()] == ["CoschedulePolicy"]
