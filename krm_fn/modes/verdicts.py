"""Files mode's verdicts from the cache (issue 34): a package whose every input is
byte-identical to one this function last found clean is answered without rendering it.

A package is read once, whole (`Probe`): the files named, its other YAML files (context),
its Kptfile and the file the Kptfile's `configPath` names. The content key hashes every
byte of them with each file's name and real path (a symbolic link moved, a hard link
between a named file and a context file), the `--config` file (`policy`: its path and
bytes), the working directory and the package's root (messages name files as given and
relative to it), and whether the light reader is on. The slot, under which the cache keeps
the last verdict, is the command line's shape: the root, the working directory, the files
named, the policy named, the reader. The cache's directory is per version of the function
(io/cache.fingerprint).

Only clean verdicts are stored: no file would change, none failed, no error. Such a verdict
is all files mode prints or returns for the package: the files named (each unchanged), the
results (warnings and infos, every field), whether placeholders are rendered (the
prerequisite note) and whether a feature-flags ConfigMap turns Tekton's assistant off. A
package that changes a file or fails is rendered every time, as without the cache.

On a miss the bytes read are the ones rendered (files.read_files takes them from the probe):
a miss costs the hashing and one small file read, and a clean outcome one small file
written.
"""
from __future__ import annotations

import hashlib
import os

from krm_fn.core.record import Record
from krm_fn.core.results import ResourceRef
from krm_fn.core.results import Result
from krm_fn.io import packages
from krm_fn.io import reader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.io.cache import Cache


class Verdict(Record):
    """A clean verdict: what files mode reports for a package that needs no change."""

    __slots__ = ("files", "results", "placeholders", "assistant_off")

    def __init__(self, files: list[str], results: list[Result], placeholders: bool, assistant_off: bool) -> None:
        self.files = files  # the files named, as named, in the outcome's order
        self.results = results
        self.placeholders = placeholders
        self.assistant_off = assistant_off


class Probe:
    """A package read for the cache: `data` (name -> (bytes, stat) or the refusal) is what
    files mode then renders on a miss; `key` is None when the package cannot be cached (a
    file or the Kptfile cannot be read)."""

    __slots__ = ("cache", "data", "key", "slot", "again")

    def __init__(self, cache: Cache, data: dict[str, Any], key: str | None, slot: str, again: dict[str, bytes]) -> None:
        self.cache = cache
        self.data = data
        self.key = key
        self.slot = slot
        # files the render reads again by path (the Kptfile, its configPath): their digests as
        # keyed, compared before a verdict is kept (one edited meanwhile keeps none)
        self.again = again

    def verdict(self) -> Verdict | None:
        """The cached clean verdict for exactly these bytes, or None."""
        if self.key is None:
            return None
        return _decode(self.cache.get(self.slot, self.key))

    def remember(self, verdict: Verdict) -> bool:
        """Store a clean verdict (False when it cannot be stored: not cacheable, a result that
        does not come back from JSON the same, or no cache directory to write)."""
        if self.key is None or not all(_digest(path) == digest for path, digest in self.again.items()):
            return False
        row = _encode(verdict)
        if _decode(_json_round_trip(row)) != verdict:
            return False
        return self.cache.put(self.slot, self.key, row)


def probe(cache: Cache, pkg: packages.Package, policy: tuple[str, bytes] | None, light: bool) -> Probe:
    """Read the package (every file once, by the one reader) and key it. `policy`: the
    `--config` file's path and bytes (None for the package's own policy, which is among its
    files, its Kptfile, or the file its Kptfile names)."""
    key, slot = hashlib.sha256(), hashlib.sha256()
    for h in (key, slot):
        for part in (os.getcwd(), str(pkg.root), "light" if light else "round-trip", "" if policy is None else policy[0]):
            _add(h, b"", os.fsencode(part))
        for name in pkg.given:
            _add(h, b"given", os.fsencode(name))
    if policy is not None:
        _add(key, b"--config", policy[1])
    data: dict[str, Any] = {}
    cacheable = True
    dirs: dict[str, str] = {}
    for name in pkg.given + pkg.context:
        try:
            raw, st = got = reader.read_bytes(name, name)
        except reader.FileRefused as e:
            data[name] = e
            cacheable = False
            continue
        data[name] = got
        real = pkg.real.get(name) or packages.realpath(name, dirs)
        link = f"{real}\0{st.st_dev}:{st.st_ino}" if st.st_nlink > 1 else real
        _add(key, os.fsencode(f"{name}\0{link}"), raw)
    again: dict[str, bytes] = {}
    cacheable = cacheable and _add_kptfile(key, pkg, policy is None, again)
    return Probe(cache, data, key.hexdigest() if cacheable else None, slot.hexdigest()[:40], again)


def _add_kptfile(h: Any, pkg: packages.Package, own_policy: bool, again: dict[str, bytes]) -> bool:
    """The Kptfile's bytes, and when the package's own policy counts, those of the file its
    `configPath` names (inside the package, but maybe no YAML file, so not context). The
    render reads both again by path: their digests go to `again`. False when either cannot
    be read (not cached: rendered, and so said, every time)."""
    kptfile = pkg.kptfile
    if kptfile is None:
        return True
    try:
        raw, _st = reader.read_bytes(kptfile)
    except reader.FileRefused:
        return False
    _add(h, b"Kptfile", raw)
    again[str(kptfile)] = hashlib.sha256(raw).digest()
    if own_policy and b"configPath" in raw:
        node, source, _problem = packages.kptfile_config(pkg)
        if source is not None and node is None:
            try:
                config, _st = reader.read_bytes(source)
            except reader.FileRefused:
                return False
            _add(h, b"configPath\0" + os.fsencode(source), config)
            again[source] = hashlib.sha256(config).digest()
    return True


def _digest(path: str) -> bytes | None:
    try:
        return hashlib.sha256(reader.read_bytes(path)[0]).digest()
    except reader.FileRefused:
        return None


def _add(h: Any, label: bytes, data: bytes) -> None:
    """One labelled part into a hash, each length-prefixed (no two splits hash alike)."""
    h.update(b"%d:%d:" % (len(label), len(data)))
    h.update(label)
    h.update(data)


def _json_round_trip(row: Any) -> Any:
    import json

    return json.loads(json.dumps(row, ensure_ascii=False))


def _encode(v: Verdict) -> dict[str, Any]:
    return {
        "files": list(v.files),
        "results": [_result_row(r) for r in v.results],
        "placeholders": v.placeholders,
        "assistant_off": v.assistant_off,
    }


def _result_row(r: Result) -> list[Any]:
    ref = r.resource
    return [
        r.severity, r.message, None if ref is None else [ref.api_version, ref.kind, ref.name, ref.namespace],
        r.field_path, r.file_path, r.file_index, [list(t) for t in r.tags], r.current_value, r.proposed_value,
        r.line, r.column,
    ]


def _decode(row: Any) -> Verdict | None:
    """A Verdict from an entry's data, or None when it is not one (a corrupt entry: a miss)."""
    if not isinstance(row, dict):
        return None
    try:
        files, rows = row["files"], row["results"]
        placeholders, assistant_off = row["placeholders"], row["assistant_off"]
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files) and isinstance(rows, list)):
            return None
        if not (isinstance(placeholders, bool) and isinstance(assistant_off, bool)):
            return None
        return Verdict(files, [_result(r) for r in rows], placeholders, assistant_off)
    except (KeyError, TypeError, ValueError):
        return None


def _result(r: Any) -> Result:
    """A Result from its row. Raises TypeError or ValueError for a row that is not one."""
    if not isinstance(r, list) or len(r) != 11:
        raise TypeError("not a result row")
    severity, message, ref, field_path, file_path, file_index, tags, current, proposed, line, column = r
    if severity not in ("warning", "info") or not isinstance(message, str):
        raise ValueError("not a result of a clean verdict")
    if not (_optional(field_path, str) and _optional(file_path, str) and _optional(file_index, int)):
        raise TypeError("a result's location")
    if not (_optional(line, int) and _optional(column, int)):
        raise TypeError("a result's line and column")
    resource = None
    if ref is not None:
        if not (isinstance(ref, list) and len(ref) == 4 and all(isinstance(x, str) for x in ref[:3]) and _optional(ref[3], str)):
            raise TypeError("a result's object")
        resource = ResourceRef(*ref)
    if not (isinstance(tags, list) and all(isinstance(t, list) and len(t) == 2 and all(isinstance(x, str) for x in t) for t in tags)):
        raise TypeError("a result's tags")
    return Result(
        severity, message, resource, field_path, file_path, file_index, tuple((k, v) for k, v in tags), current, proposed,
        line, column,
    )


def _optional(value: Any, kind: type) -> bool:
    return value is None or (isinstance(value, kind) and not isinstance(value, bool))
