"""The one atomic writer: every file the function writes (files mode's rewrites, the
kustomize plugin's installer) is replaced whole or not at all, through a staged temp file in
the same directory, fsync and a rename. Files mode's writes are also all or nothing (a file
that changed since it was read is not overwritten; on any failure or signal the files
already replaced are put back and the temp files removed). SIGINT, SIGTERM and SIGHUP are
held while a file is replaced.

What a file carries besides its bytes goes with it: its mode, its owner and group where the
writer may, and its extended attributes (its POSIX ACL, `system.posix_acl_access`, among
them); an attribute that cannot be set on the new file is a warning naming it. A file with
several hard links is replaced like any other (a write in place could leave it torn on a
full disk or a SIGKILL): its other names keep the old text, and a warning names the file and
its link count. The temp file's name is short (`.XXXXXXXX.krm-tmp`), whatever the length of
the file's own: a name of 255 bytes can be rewritten.
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from krm_fn.core.results import Result
from krm_fn.core.signals import Held
from krm_fn.core.signals import files_written

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Protocol
    from typing import TypeVar

    from krm_fn.io import streams

    class _File(Protocol):
        """What the writes need of files mode's FileState."""

        path: Path
        name: str
        failed: bool
        new_text: str | None
        stat: os.stat_result | None
        stream: streams.Stream | None

    F = TypeVar("F", bound=_File)

TEMP_SUFFIX = ".krm-tmp"


def write_files(files: list[F], warnings: list[Result] | None = None) -> list[tuple[F, str]]:
    """Write every file's new text, each atomically (a temp file in the same directory, then a
    rename), keeping its mode, its extended attributes and, where allowed, its owner and
    group; what was not kept (an attribute, the link of a file with several hard links) is
    a warning added to `warnings`. A file that cannot be
    written, is a symlink, or changed on disk since it was read fails on its own (returned
    with the reason). Anything unexpected while files are staged or replaced puts back the
    files already replaced and removes every temp file before it propagates: then no file
    has changed. The files are replaced together, with SIGINT, SIGTERM and SIGHUP held: one
    that comes then is delivered once they all are, and finds them written for good
    (signals.written), where it used to land between the last file and the end of this
    function and be told "nothing was written"."""
    def warn(f: F, message: str) -> None:
        if warnings is not None:
            warnings.append(Result("warning", f"{f.name}: {message}", file_path=f.name))

    failures: list[tuple[F, str]] = []
    staged: list[tuple[F, str]] = []
    done: list[F] = []
    try:
        for f in files:
            reason = _refusal(f)
            if reason is None:
                try:
                    lost: list[str] = []
                    with Held():  # a temp file is made and noted at once, or not at all
                        staged.append((f, _stage(f.path, f.new_text or "", sync=False, lost=lost)))
                    if lost:
                        warn(f, f"{_listed(lost)} could not be carried over to the rewritten file")
                    continue
                except OSError as e:
                    reason = f"cannot write: {e.strerror or e}"
            f.failed = True
            failures.append((f, reason))
        for (f, _tmp), problem in zip(staged, _sync_all([tmp for _f, tmp in staged]), strict=True):
            if problem is not None:  # not on disk for sure: this file is not replaced
                f.failed = True
                failures.append((f, f"cannot write: {problem}"))
        with Held():
            try:
                for f, tmp in [(f, tmp) for f, tmp in staged if not f.failed]:
                    reason = _refusal(f)
                    if reason is None:
                        try:
                            links = _put(tmp, f)
                            done.append(f)
                            if links > 1:
                                warn(f, _broken_link(links))
                            continue
                        except OSError as e:
                            reason = f"cannot write: {e.strerror or e}"
                    f.failed = True
                    failures.append((f, reason))
            except BaseException:
                for f in done:
                    _restore(f)
                raise
            files_written(len(done))  # in the held block: no signal lands before it
    finally:
        with Held():
            for _f, tmp in staged:
                _unlink(tmp)
    return failures


def _refusal(f: _File) -> str | None:
    """Why `f` must not be replaced now, or None."""
    if f.path.is_symlink():
        # os.replace would turn the link into a file; rewriting its target is not ours to do
        return "is a symlink; not rewritten (pass the file it points to)"
    try:
        now = f.path.stat()
    except OSError as e:
        return f"cannot write: {e.strerror or e}"
    was = f.stat
    if was is not None and (now.st_ino, now.st_size, now.st_mtime_ns) != (was.st_ino, was.st_size, was.st_mtime_ns):
        return "changed on disk while krm-coschedule ran; not rewritten (run it again)"
    return None


def _sync_all(tmps: list[str]) -> list[str | None]:
    """fsync every staged temp file before any is renamed into place; per file None, or why
    it failed. Many files are synced from a few threads at once (fsync waits on the disk, not
    on Python: the waits overlap, and the journal commits them together; 1,500 files: 0.5-0.9
    -> 0.25 s)."""
    def sync(tmp: str) -> str | None:
        try:
            fd = os.open(tmp, os.O_WRONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            return str(e.strerror or e)
        return None

    if len(tmps) < 8:
        return [sync(t) for t in tmps]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(sync, tmps))


def _stage(path: Path, text: str | bytes, sync: bool = True, mode: int | None = None, lost: list[str] | None = None) -> str:
    """A temp file beside `path` holding `text`, with path's mode, owner (when allowed) and
    extended attributes (the names of those that could not be set are added to `lost`); on
    disk before it returns unless `sync` is false (then _sync_all does it). `mode`, when
    given, is the new file's mode (`path` may then not exist yet)."""
    st: os.stat_result | None = None
    if mode is None:
        st = path.stat()
    else:
        try:
            st = path.stat()
        except FileNotFoundError:
            pass
    # a short name of our own, not `.<name>.<random>`: a name of 255 bytes is legal, and the
    # temp file's must be too
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8") if isinstance(text, str) else text)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        if st is None:
            os.chmod(tmp, 0o644 if mode is None else mode)
            return tmp
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass  # not ours to give away: the file becomes the writer's, as with any editor
        # after chown, which clears some of them (security.capability), before chmod, which
        # sets the ACL's mask from the group bits
        (lost if lost is not None else []).extend(_carry_attributes(path, tmp))
        os.chmod(tmp, stat.S_IMODE(st.st_mode) if mode is None else mode)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _carry_attributes(src: Path, tmp: str) -> list[str]:
    """Give `tmp` the extended attributes of `src` (a POSIX ACL is one: system.posix_acl_access)
    and take from it an ACL it inherited from its directory's default ACL that `src` has not;
    the names of the attributes that could not be carried (with why)."""
    if not hasattr(os, "listxattr"):
        return []  # not Linux: no extended attributes through os
    try:
        names = os.listxattr(src)
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return []  # a file system without them: nothing to carry
        return [f"the extended attributes ({e.strerror or e})"]
    lost = []
    for name in names:
        try:
            value = os.getxattr(src, name)
            try:
                if os.getxattr(tmp, name) == value:
                    continue  # the new file has it already (an SELinux label from the directory)
            except OSError:
                pass
            os.setxattr(tmp, name, value)
        except OSError as e:
            lost.append(f"{name} ({e.strerror or e})")
    try:
        for name in os.listxattr(tmp):
            if name.startswith("system.posix_acl") and name not in names:
                os.removexattr(tmp, name)
    except OSError:
        pass  # then the mode set next still gives the old file's permission bits
    return lost


def _listed(lost: list[str]) -> str:
    """`the extended attribute user.a (why)`, or `the extended attributes a (why), b (why)`."""
    return f"the extended attribute{'s' if len(lost) > 1 else ''} {', '.join(lost)}"


def _broken_link(links: int) -> str:
    others = links - 1
    return (
        f"had {links} hard links; it was replaced by a new file (a write in place could leave it "
        f"torn), so its other {others} name{'s' if others > 1 else ''} keep{'' if others > 1 else 's'} "
        "the old text: link them to it again (`ln -f`) if they should follow"
    )


def _put(tmp: str, f: _File) -> int:
    """Move the staged text into place by a rename, whatever the file's links; the link count
    the file had (a rename gives this name a file of its own: the other links keep the old
    text, and the caller says so)."""
    try:
        links = f.path.stat().st_nlink
    except OSError:
        links = 1
    os.replace(tmp, f.path)
    return links


def _restore(f: _File) -> None:
    """Put a written file's original bytes back (after a failure elsewhere)."""
    if f.stream is None:
        return
    try:
        _put(_stage(f.path, f.stream.raw), f)
    except OSError:
        pass


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_atomic(path: Path, text: str | bytes, mode: int | None = None, sync: bool = True) -> list[str]:
    """Replace (or create) `path` with `text` through a temp file in the same directory, fsync
    and a rename: a reader, or a run beside this one, sees the old file or the new one, never
    half of one, and a crash leaves the old one. An existing file keeps its owner and extended
    attributes, and its mode unless `mode` is given; a new file gets `mode`. `sync=False`
    leaves out both fsyncs, for a file of the function's own that may be lost in a crash (the
    verdict cache's entries: a torn one reads as corrupt and is ignored).
    The attributes that could not be carried over (with why). Raises OSError; the temp file
    is removed then."""
    lost: list[str] = []
    tmp = _stage(path, text, sync=sync, mode=mode, lost=lost)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    if sync:
        _sync_directory(path.parent)
    return lost


def _sync_directory(directory: Path) -> None:
    """fsync a directory, so that a rename in it is on disk (where the platform allows)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory: the rename still happened
    finally:
        os.close(fd)
