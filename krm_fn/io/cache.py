"""The verdict cache of files mode (issue 34), as black, ruff and mypy keep one: the file I/O
of it. What goes in an entry and when it may be trusted is modes/verdicts' business; this
module keeps entries, each under a slot name, with the content key it was stored for.

Where: `$XDG_CACHE_HOME/krm-coschedule/` (an absolute XDG_CACHE_HOME only, as the XDG spec
says), else the platform's cache directory (`~/.cache` on Linux and other Unixes,
`~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows). Inside it, one directory per
`fingerprint()` (this function's version, a hash of its installed files, the interpreter
and the installed distributions), so that nothing is trusted across versions; in it, one
JSON file per slot.

Every read goes through krm_fn.io.reader (a regular file of at most MAX_ENTRY_BYTES), every
write through krm_fn.io.writer.write_atomic, unsynced (a temp file and a rename: runs at the same time
each see a whole entry or none). An entry that is missing, unreadable, not JSON, of another
format or key is a miss; the next clean verdict replaces it. A cache directory that cannot
be made or written is no cache: the run goes on as without one. Turned off by
`KRM_COSCHEDULE_NO_CACHE=1` (and files mode's `--no-cache`).
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from krm_fn.io import reader
from krm_fn.io.writer import write_atomic

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

NO_CACHE_ENV = "KRM_COSCHEDULE_NO_CACHE"
FORMAT = 1  # of an entry; part of the fingerprint
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a larger entry is not read (a miss)
MAX_ENTRIES = 1000  # per fingerprint: past it, the oldest entries are removed
STALE_SECONDS = 30 * 24 * 3600  # another fingerprint's directory untouched this long is removed
_SOURCES = (".py", ".json", ".typed")  # the package's own files, hashed for an editable install


def disabled_by_env() -> bool:
    """KRM_COSCHEDULE_NO_CACHE set to anything but empty or 0."""
    return os.environ.get(NO_CACHE_ENV, "") not in ("", "0")


def directory() -> Path | None:
    """The cache's root directory (not made here), or None when there is no home to put it in."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    try:
        if os.path.isabs(xdg):
            base = Path(xdg)
        elif sys.platform == "win32":
            local = os.environ.get("LOCALAPPDATA", "")
            base = Path(local) if os.path.isabs(local) else Path.home() / "AppData" / "Local"
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path.home() / ".cache"
    except RuntimeError:  # no home directory to be found
        return None
    return base / "krm-coschedule"


def fingerprint(package: Path | None = None) -> str:
    """What a verdict was reached with, as a hex string: this function's version, its files
    (the installed distribution's RECORD, which holds a hash of every file it installed; else,
    for an editable install, every source file's bytes, so an edited checkout reuses nothing),
    the interpreter's version and the names (with versions) of the distributions installed
    beside it (ruamel.yaml, PyYAML, ... write and read the YAML). `package`: krm_fn's directory
    (default: this one's)."""
    from krm_fn import __version__

    h = hashlib.sha256(f"krm-coschedule {__version__}\0verdicts {FORMAT}\0{sys.version}\0".encode())
    if package is None:
        package = Path(__file__).resolve().parent.parent
    record = _record(package.parent)
    if record is not None:
        h.update(b"RECORD\0" + record)
    else:
        for root, dirs, names in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(_SOURCES):
                    path = os.path.join(root, name)
                    _add(h, os.fsencode(os.path.relpath(path, package)), _bytes(path))
    for entry in sys.path[1:]:  # not the script's directory (or the working directory of -c and -m)
        try:
            found = sorted(n for n in os.listdir(entry) if n.endswith(".dist-info"))
        except OSError:
            continue
        _add(h, entry.encode(), "\0".join(found).encode())
    return h.hexdigest()[:32]


def _record(site: Path) -> bytes | None:
    """The RECORD of the distribution installed at `site` beside krm_fn (a regular install),
    or None (an editable install: krm_fn is a source tree, its RECORD lists no source)."""
    try:
        names = os.listdir(site)
    except OSError:
        return None
    for name in names:
        if name.startswith("krm_coschedule-") and name.endswith(".dist-info"):
            data = _bytes(os.path.join(site, name, "RECORD"))
            if b"krm_fn/__init__.py," in data:
                return data
    return None


def _bytes(path: str) -> bytes:
    try:
        return reader.read_bytes(path)[0]
    except reader.FileRefused:
        return b"\0unreadable"


def _add(h: Any, label: bytes, data: bytes) -> None:
    """One labelled part into a hash, each length-prefixed (no two splits hash alike)."""
    h.update(b"%d:%d:" % (len(label), len(data)))
    h.update(label)
    h.update(data)


class Cache:
    """The entries of one fingerprint under `root`. The fingerprint is computed on first use."""

    __slots__ = ("root", "_dir")

    def __init__(self, root: Path) -> None:
        self.root = root
        self._dir: Path | None = None

    @property
    def dir(self) -> Path:
        if self._dir is None:
            self._dir = self.root / fingerprint()
        return self._dir

    def get(self, slot: str, key: str) -> Any:
        """The verdict stored under `slot` for `key`, or None (a miss: none, another key, or an
        entry that cannot be read)."""
        import json

        try:
            data, _st = reader.read_bytes(self.dir / f"{slot}.json", limit=MAX_ENTRY_BYTES)
        except reader.FileRefused:
            return None
        try:
            entry = json.loads(data)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past the stack
            return None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        return entry.get("verdict")

    def put(self, slot: str, key: str, verdict: Any) -> bool:
        """Store `verdict` (plain JSON data) under `slot` for `key`, replacing what was there;
        False when it cannot be written (the run goes on: a cache is never the reason to fail)."""
        import json

        data = json.dumps({"format": FORMAT, "key": key, "verdict": verdict}, ensure_ascii=True, separators=(",", ":"))
        try:
            where = self.dir
            where.mkdir(parents=True, exist_ok=True)
            path = where / f"{slot}.json"
            fresh = not os.path.lexists(path)
            write_atomic(path, data.encode("utf-8"), mode=0o600, sync=False)  # private, not synced
        except OSError:
            return False
        if fresh:
            self._prune(where, path.name)
        return True

    def _prune(self, where: Path, added: str) -> None:
        """Bound the cache when an entry was added: past MAX_ENTRIES the oldest quarter goes
        (never the one `added`); other fingerprints' directories untouched for STALE_SECONDS
        go (an old version's)."""
        import time

        try:
            entries = [e for e in os.scandir(where) if e.name.endswith(".json") and e.name != added]
            if len(entries) >= MAX_ENTRIES:
                entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns)
                for e in entries[: len(entries) - MAX_ENTRIES * 3 // 4]:
                    _remove(e.path)
            old = time.time() - STALE_SECONDS
            for e in os.scandir(self.root):
                if e.name != where.name and e.is_dir(follow_symlinks=False) and e.stat(follow_symlinks=False).st_mtime < old:
                    import shutil

                    shutil.rmtree(e.path, ignore_errors=True)
        except OSError:
            pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def open_cache(off: bool = False) -> Cache | None:
    """The user's verdict cache, or None when it is off (`off`: --no-cache; or
    KRM_COSCHEDULE_NO_CACHE) or has no place."""
    if off or disabled_by_env():
        return None
    root = directory()
    return None if root is None else Cache(root)
