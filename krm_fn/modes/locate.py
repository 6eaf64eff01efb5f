"""Files mode's results placed in their files: the line and column of each error's and
warning's field (yaml/field_position), in the document of the file it names, so schema and semantic
messages point into the file (`path:line:col:`, and `line`/`column` in JSON) as syntax errors
do."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.results import Result
from krm_fn.io import reader
from krm_fn.io import streams

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from typing import Protocol

    from krm_fn.io.items import ResourceList

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


STDIN = "<stdin>"  # how a KRM-mode message names an input that is no file of the user's


def locate_krm(results: list[Result], rl: ResourceList, text: str) -> list[Result]:
    """KRM mode's errors and warnings placed where the user can find them (infos are left as
    they are, as in files mode):

    - input from kpt or kustomize (items carry config.kubernetes.io/path): the message names
      the file (`run.yaml: ...`, `run.yaml (document 2): ...` where the file holds several
      objects); the result carries kpt's `file: {path, index}` and `field: {path}` already.
      No line: kpt gives the function its own serialization of the objects, not the file's
      text, so a line number would point nowhere in the user's file;
    - any other input (a list or file piped by the user): the input's lines are the user's, so
      the message starts `<stdin>:line:col:` at its field, as a YAML syntax error in the input
      does (syntax_located)."""
    from krm_fn.core.results import location

    if from_kpt(text):
        return _named_by_file(results, rl)
    places = _Places(rl, text)
    out = []
    for r in results:
        if r.severity == "info":
            out.append(r)
            continue
        line, col, rest = location(r.message)
        at = places.of(r) if line is None else (line, col or 1)
        out.append(r if at is None else _said(r, f"{STDIN}:{at[0]}:{at[1]}: {r.message if line is None else rest}", at))
    return out


def _said(r: Result, message: str, at: tuple[int, int] | None = None) -> Result:
    """`r` with `message` (and placed at `at`)."""
    line, column = at if at is not None else (r.line, r.column)
    return r.replace(message=message, line=line, column=column)


def syntax_located(message: str, text: str) -> str:
    """A message about the input that names a line and column (a YAML syntax error, a control
    character), for input not from kpt: `<stdin>:line:col: what` (locate_krm's form)."""
    from krm_fn.core.results import location

    line, col, rest = location(message)
    if line is None or from_kpt(text):
        return message
    return f"{STDIN}:{line}:{col}: {rest}"


def from_kpt(text: str) -> bool:
    """Whether the input's objects carry kpt's (or kustomize's) path annotations: then its lines
    are those of kpt's serialization, not of any file the user has."""
    return patterns.search(r"config\.kubernetes\.io/path:", text) is not None


def _named_by_file(results: list[Result], rl: ResourceList) -> list[Result]:
    from krm_fn.transforms.context import file_of

    per_file: dict[str, int] = {}
    for it in rl.items:
        path, _idx = file_of(it)
        if path:
            per_file[path] = per_file.get(path, 0) + 1
    out = []
    for r in results:
        path = r.file_path
        # a message that starts with its file already, or is about the path annotation itself
        if r.severity == "info" or not path or r.message.startswith((f"{path}:", f"{path} (")) or "config.kubernetes.io/path" in (r.field_path or ""):
            out.append(r)
            continue
        index = r.file_index or 0
        where = f"{path} (document {index + 1})" if index > 0 or per_file.get(path, 0) > 1 else path
        out.append(_said(r, f"{where}: {r.message}"))
    return out


class _Places:
    """Where a result's field is in the input: (line, column), or None when the result names
    no object of the input or the object is ambiguous (two items of the same identity)."""

    def __init__(self, rl: ResourceList, text: str) -> None:
        self.rl = rl
        self.text = text
        self.starts: list[int] | None = None  # the line where each item's text begins
        self.by_ref: dict[tuple[Any, ...], list[int]] | None = None

    def of(self, r: Result) -> tuple[int, int] | None:
        field = r.field_path or ""
        m = patterns.match(r"items\[(\d+)\]\.?", field)
        if m is not None:
            pos: int | None = int(m.group(1))
            field = field[m.end():]
        elif r.resource is not None:
            pos = self._item_of(r)
            if pos is None:
                return self._in_function_config(r, field)
        else:
            return None
        if pos is None or pos >= len(self.rl.items):
            return None
        return self._in_item(pos, field)

    def _item_of(self, r: Result) -> int | None:
        ref = r.resource
        assert ref is not None
        if self.by_ref is None:
            self.by_ref = {}
            for i, it in enumerate(self.rl.items):
                m = it.meta
                key = (m.api_version, m.kind, m.name or m.generate_name, m.namespace or None)
                self.by_ref.setdefault(key, []).append(i)
        found = self.by_ref.get((ref.api_version, ref.kind, ref.name, ref.namespace), [])
        # two objects of one identity (a duplicate): the one the message does not name as the other
        found = [i for i in found if f"items[{i}]" not in r.message] if len(found) > 1 else found
        return found[0] if len(found) == 1 else None

    def _in_item(self, pos: int, field: str) -> tuple[int, int] | None:
        from krm_fn.yaml.field_position import field_position

        item = self.rl.items[pos]
        if item.text is None or item.document:
            return field_position(self.text, f"items[{pos}].{field}" if field else f"items[{pos}]")
        start = self._start(pos)
        if start is None:
            return None
        at = field_position(item.text, f"[0].{field}" if field else "[0]")
        return None if at is None else (start + at[0] - 1, at[1])

    def _start(self, pos: int) -> int | None:
        """The input line where item `pos`'s text begins (the items' texts are slices of the
        input, in order)."""
        if self.starts is None:
            self.starts = []
            cursor = line = 0
            for it in self.rl.items:
                # each item's text follows the last one's, after comment or blank lines at most
                at = -1 if not it.text else cursor if self.text.startswith(it.text, cursor) else self.text.find(it.text, cursor)
                if at < 0 or it.text is None:
                    break
                line += self.text.count("\n", cursor, at)
                self.starts.append(line + 1)
                line += it.text.count("\n")
                cursor = at + len(it.text)
        return self.starts[pos] if pos < len(self.starts) else None

    def _in_function_config(self, r: Result, field: str) -> tuple[int, int] | None:
        """A result about the functionConfig (the policy): its field in that section."""
        from krm_fn.yaml.field_position import field_position

        fc = self.rl.function_config
        md = fc.get("metadata") if isinstance(fc, dict) else None
        ref = r.resource
        if ref is None or not isinstance(md, dict) or (fc.get("kind"), md.get("name")) != (ref.kind, ref.name):
            return None
        m = patterns.search(r"(?m)^functionConfig:", self.text)
        if m is None:
            return None
        end = patterns.search(r"(?m)^\S", self.text[m.end():])
        section = self.text[m.start(): m.end() + (end.start() if end else len(self.text) - m.end())]
        at = field_position(section, f"functionConfig.{field}" if field else "functionConfig")
        return None if at is None else (self.text.count("\n", 0, m.start()) + at[0], at[1])
