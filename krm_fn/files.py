"""Files mode (pre-commit): `krm-coschedule --config POLICY FILE...` rewrites YAML files in
place. All files form one ResourceList (a PipelineRun in one file can use a Pipeline in
another); each file is all or nothing on its own."""
from __future__ import annotations

import difflib
import os
import stat
import tempfile
from pathlib import Path

from krm_fn import lite
from krm_fn import process as process_mod
from krm_fn import rlist
from krm_fn import streams
from krm_fn.record import Record
from krm_fn.results import Result
from krm_fn.results import sorted_results

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

LOCAL_CONFIG = "config.kubernetes.io/local-config"


class FileState(Record):
    __slots__ = ("path", "name", "stream", "failed", "new_text")

    def __init__(
        self,
        path: Path,
        name: str,
        stream: streams.Stream | None = None,
        failed: bool = False,
        new_text: str | None = None,
    ) -> None:
        self.path = path
        self.name = name  # as given on the command line (and in results)
        self.stream = stream
        self.failed = failed
        self.new_text = new_text  # None: unchanged (or failed)


class FilesOutcome(Record):
    __slots__ = ("files", "results", "plans", "global_error")

    def __init__(
        self,
        files: list[FileState],
        results: list[Result],
        plans: list[process_mod.Plan],
        global_error: bool = False,
    ) -> None:
        self.files = files
        self.results = results
        self.plans = plans
        self.global_error = global_error

    @property
    def changed(self) -> list[FileState]:
        return [f for f in self.files if f.new_text is not None]

    @property
    def has_error(self) -> bool:
        return self.global_error or any(f.failed for f in self.files)


def _file_error(name: str, message: str) -> Result:
    return Result("error", message, file_path=name, file_index=0)


def read_files(names: list[str]) -> tuple[list[FileState], list[Result]]:
    """Read, decode and split every file; a file that cannot be read fails on its own."""
    files: list[FileState] = []
    results: list[Result] = []
    seen: set[str] = set()
    for name in names:
        path = Path(name)
        key = os.path.realpath(path)
        if key in seen:
            continue  # the same file twice (pre-commit never does this; users might)
        seen.add(key)
        f = FileState(path, name)
        files.append(f)
        try:
            data = path.read_bytes()
        except OSError as e:
            f.failed = True
            results.append(_file_error(name, f"{name}: cannot be read: {e.strerror or e}"))
            continue
        try:
            text = _decode(data)
        except rlist.InputError as e:
            f.failed = True
            results.append(_file_error(name, f"{name}: {e}; the file is left unchanged"))
            continue
        stream = streams.split(text, name)
        try:
            streams.make_items(stream)
        except streams.DocError as e:
            f.failed = True
            results.append(_file_error(name, f"{e}; the file is left unchanged"))
            continue
        f.stream = stream
    return files, results


def _decode(data: bytes) -> str:
    if b"\x00" in data:
        raise rlist.InputError("contains NUL bytes (a binary file?)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise rlist.InputError(
            f"is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None


def run(names: list[str], function_config: Any, light: bool = True) -> FilesOutcome:
    """Process the files together; decide every file's new text. Writes nothing."""
    if light:
        try:
            return _run(names, function_config, process_mod.process_light)
        except lite.Bail:  # rare: read the files again, all on the round-trip path
            pass
    return _run(names, function_config, process_mod.process)


def _run(names: list[str], function_config: Any, process: Any) -> FilesOutcome:
    files, read_errors = read_files(names)
    errors: list[Result] = list(read_errors)
    by_name = {f.name: f for f in files}
    while True:
        live = [f for f in files if f.stream is not None]
        for f in live:
            if f.failed:
                _mark_context_only(f.stream)  # its objects still resolve references
        frame = streams.frame_of([f.stream for f in live if f.stream is not None], function_config)
        outcome = process(frame)
        new_failures = False
        global_error = False
        for r in outcome.results:
            if r.severity != "error":
                continue
            target = by_name.get(r.file_path or "")
            if target is None:
                global_error = True
            elif not target.failed:
                target.failed = True
                new_failures = True
            if r not in errors:
                errors.append(r)
        if global_error:
            return FilesOutcome(files, sorted_results(errors + _others(outcome.results)), [], True)
        if not new_failures:
            break
    ok = [f for f in live if not f.failed and f.stream is not None]
    try:
        texts = streams.apply([f.stream for f in live if f.stream is not None], outcome)
    except streams.DocError as e:
        errors.append(Result("error", str(e)))
        return FilesOutcome(files, sorted_results(errors), [], True)
    index = {id(f): i for i, f in enumerate(live)}
    for f in ok:
        assert f.stream is not None
        text = texts[index[id(f)]]
        if text != f.stream.raw:
            f.new_text = text
    failed_names = {f.name for f in files if f.failed}
    kept = [r for r in outcome.results if r.severity != "error" and r.file_path not in failed_names]
    return FilesOutcome(files, sorted_results(errors + kept), outcome.plans)


def _others(results: list[Result]) -> list[Result]:
    return [r for r in results if r.severity != "error"]


def _mark_context_only(stream: streams.Stream | None) -> None:
    """Objects of a failed file stay in the list for lookups but are not transformed."""
    assert stream is not None
    for it in stream.items:
        if it.meta.annotations.get(LOCAL_CONFIG) != "true":
            it.meta.annotations = {**it.meta.annotations, LOCAL_CONFIG: "true"}


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temp file in the same directory and a rename, keeping
    the file's mode; a reader never sees a half-written file."""
    st = path.stat()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".krm-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def unified_diff(f: FileState) -> str:
    assert f.stream is not None and f.new_text is not None
    return "".join(
        difflib.unified_diff(
            f.stream.raw.splitlines(keepends=True),
            f.new_text.splitlines(keepends=True),
            fromfile=f"a/{f.name}",
            tofile=f"b/{f.name}",
        )
    )
