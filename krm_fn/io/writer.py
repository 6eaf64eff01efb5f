"""Files mode's writes: every file replaced atomically (a staged temp file, fsync, rename),
all or nothing (a file that changed since it was read is not overwritten; on any failure or
signal the files already replaced are put back and the temp files removed). SIGINT, SIGTERM
and SIGHUP are held while a file is replaced.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

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
        failed: bool
        new_text: str | None
        stat: os.stat_result | None
        stream: streams.Stream | None

    F = TypeVar("F", bound=_File)


def write_files(files: list[F]) -> list[tuple[F, str]]:
    """Write every file's new text, each atomically (a temp file in the same directory, then a
    rename), keeping its mode and, where allowed, its owner and group. A file that cannot be
    written, is a symlink, or changed on disk since it was read fails on its own (returned
    with the reason). Anything unexpected while files are staged or replaced puts back the
    files already replaced and removes every temp file before it propagates: then no file
    has changed. The files are replaced together, with SIGINT, SIGTERM and SIGHUP held: one
    that comes then is delivered once they all are, and finds them written for good
    (signals.written), where it used to land between the last file and the end of this
    function and be told "nothing was written"."""
    failures: list[tuple[F, str]] = []
    staged: list[tuple[F, str]] = []
    done: list[F] = []
    try:
        for f in files:
            reason = _refusal(f)
            if reason is None:
                try:
                    with Held():  # a temp file is made and noted at once, or not at all
                        staged.append((f, _stage(f.path, f.new_text or "", sync=False)))
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
                            _put(tmp, f)
                            done.append(f)
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


def _stage(path: Path, text: str, sync: bool = True) -> str:
    """A temp file beside `path` holding `text`, with path's mode (and owner when allowed);
    on disk before it returns unless `sync` is false (then _sync_all does it)."""
    st = path.stat()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".krm-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass  # not ours to give away: the file becomes the writer's, as with any editor
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _put(tmp: str, f: _File) -> None:
    """Move the staged text into place: a rename, or for a file with several hard links a
    write in place (a rename would give this name a file of its own and leave the other
    links with the old text)."""
    if f.stat is None or f.stat.st_nlink <= 1:
        os.replace(tmp, f.path)
        return
    with open(tmp, "rb") as src, f.path.open("r+b") as dst:
        data = src.read()
        dst.write(data)
        dst.truncate(len(data))
        dst.flush()
        os.fsync(dst.fileno())


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


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temp file in the same directory and a rename, keeping
    the file's mode; a reader never sees a half-written file."""
    os.replace(_stage(path, text), path)


def replace_file(path: Path, data: bytes) -> None:
    """Put `data` at `path` (a file of the function's own, made if missing: the verdict cache's
    entries) through a temp file in its directory and a rename: a reader, or a run beside this
    one, sees the old file or the new one, never half of one. Private to the user (0600, as
    mkstemp makes it) and not synced: a crash may lose the entry or leave it torn, and a torn
    entry is read as corrupt and ignored. Raises OSError; the temp file is removed then."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".krm-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
