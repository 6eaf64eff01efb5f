"""Files mode's results placed in their files: the line and column of each error's and
warning's field (yaml/field_position), in the document of the file it names, so schema and semantic
messages point into the file (`path:line:col:`, and `line`/`column` in JSON) as syntax errors
do."""
from __future__ import annotations

from collections.abc import Sequence

from krm_fn.core.errors import InputError
from krm_fn.core.results import Result
from krm_fn.io import reader
from krm_fn.io import streams

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Protocol

    class _File(Protocol):
        name: str
        stream: streams.Stream | None


def locate(results: list[Result], files: Sequence[_File], moved: dict[str, str] | None = None) -> list[Result]:
    """The errors and warnings placed at the line and column of their field in their file
    (a document of a file read, or the policy file): schema and semantic messages point into
    the file as syntax errors do. Infos and results that name their place already are kept.
    `moved`: {file: where a ConfigMap's `data` is in it} for a policy made of a Kptfile step's
    `configMap` (packages.CONFIG_FIELD_KEY)."""
    from krm_fn.core.results import location
    from krm_fn.yaml.field_position import field_position

    by_name: dict[str, streams.Stream | None] = {f.name: f.stream for f in files if f.stream is not None}
    out = []
    for r in results:
        if r.severity == "info" or not r.file_path or not r.field_path or r.line is not None or location(r.message)[0] is not None:
            out.append(r)
            continue
        if r.file_path not in by_name:
            by_name[r.file_path] = _stream_of(r.file_path)
        stream = by_name[r.file_path]
        index = r.file_index or 0
        doc = stream.docs[index] if stream is not None and index < len(stream.docs) else None
        # `items[N].` names the object by its place in the list: in its document, the rest
        field = r.field_path.split(".", 1)[1] if r.field_path.startswith("items[") and "." in r.field_path else r.field_path
        if moved and r.file_path in moved and (field == "data" or field.startswith(("data.", "data["))):
            field = moved[r.file_path] + field[len("data") :]
        at = field_position(doc.body, field) if doc is not None else None
        out.append(r.at(doc.line + at[0] - 1, at[1]) if doc is not None and at is not None else r)
    return out


def _stream_of(name: str) -> streams.Stream | None:
    """A file no pass read (the policy named by --config or the Kptfile), split into documents."""
    try:
        return streams.split(reader.read_text(name), name)
    except (reader.FileRefused, InputError):
        return None
