"""A stream written back once the function has run: each document as its exact input bytes
unless the function changed it (then its text, with the stream's line ends and any odd line
break it held put back), the generated objects appended to the stream of their run, and the
whole read back to prove it is the intended documents.
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.keys import LEGACY_PATH_KEY
from krm_fn.core.keys import LOCATION_KEYS
from krm_fn.core.keys import PATH_KEY
from krm_fn.io.streams import FROM_STAND_INS
from krm_fn.io.streams import STAND_INS
from krm_fn.io.streams import Doc
from krm_fn.io.streams import Stream
from krm_fn.io.streams import has_directive
from krm_fn.io.streams import has_stand_ins
from krm_fn.io.streams import split
from krm_fn.io.textdiff import line_opcodes
from krm_fn.yaml import emitter
from krm_fn.yaml import layout
from krm_fn.yaml import placeholder
from krm_fn.yaml.document import LightDocument
from krm_fn.yaml.document import WrittenDocument
from krm_fn.yaml.document import unentry

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any
    from typing import Protocol

    class Outcome(Protocol):
        """What the writer needs of orchestration's Outcome (process.Outcome has it): every
        item's output text by its place in the list, the generated objects, and the earlier
        generated items they replace."""

        item_texts: list[str]
        positions: list[int]
        generated: list[dict[str, Any]]
        regenerated: dict[int, dict[str, Any]]


def _put_back(doc: Doc, new: str, s: Stream) -> str:
    """A changed document's new text with its odd line breaks back in place of the stand-ins.
    A stand-in the edit copied (a value holding one, written elsewhere in the object) would
    be a break in a value the function wrote: refused, the file left unchanged."""
    assert doc.item is not None and doc.item.text is not None
    if any(new.count(c) > doc.item.text.count(c) for c in STAND_INS):
        raise InputError(_copied_break(s, doc.line))
    return new.translate(FROM_STAND_INS)


def _copied_break(s: Stream, line: int | None) -> str:
    """`line`: of the document the value was copied within, when known."""
    where = f"{s.name or 'stdin'}:{line}:1" if line is not None else (s.name or "stdin")
    return (
        f"{where}: a value the function copies holds a line break other than "
        "LF (a CR, NEL, U+2028 or U+2029) inside its text; it is left unchanged: write the value "
        "on one line, or with the escape (\\r, \\N, \\L, \\P) in a double-quoted string"
    )


def apply(streams: list[Stream], outcome: Outcome, problems: dict[int, str] | None = None) -> dict[int, str]:
    """The new text of every stream (by list index) once `outcome` is applied.

    Call only for an outcome without errors. Untouched documents keep their exact bytes; a
    changed or generated document always starts on a line of its own after a bare `---`.
    A stream whose new text would not read back as the documents it should hold keeps its
    text: its reason goes into `problems` (by index), or raises InputError when that is None.
    Raises InputError when a generated object names a stream that is not in `streams`."""
    by_pos = dict(zip(outcome.positions, outcome.item_texts, strict=True))
    by_name = {s.name: i for i, s in enumerate(streams)}
    extra: dict[int, list[str]] = {i: [] for i in range(len(streams))}
    for obj in outcome.generated:
        path, doc_text = _placed(obj, {})
        if path is None:
            target = len(streams) - 1  # no file: the end of the (last) stream
        elif path in by_name:
            target = by_name[path]
        else:
            raise InputError(
                f"a generated object names {path!r}, which is not one of the given files; "
                "nothing was written"
            )
        extra[target].append(doc_text)
    out: dict[int, str] = {}
    for i, s in enumerate(streams):
        try:
            out[i] = _stream_text(s, by_pos, outcome.regenerated, extra[i])
        except InputError as e:
            if problems is None:
                raise
            problems[i] = str(e)
            out[i] = s.raw
    return out


def _stream_text(s: Stream, by_pos: dict[int, str], regenerated: dict[int, dict[str, Any]], appended: list[str]) -> str:
    parts: list[str] = [s.bom]
    written: list[str] = []  # every document's new text, in order (for the check)
    unproven: list[str] = []  # the new texts nothing has read back yet (for the check)
    for doc in s.docs:
        new = _doc_output(doc, by_pos, regenerated)
        if new is None:  # removed (a generated object its run no longer needs)
            if doc.number == 0:
                parts.append(doc.sep)
            continue
        if new is _SAME:
            parts.append(doc.sep)
            parts.append(doc.body)
            written.append(doc.body)
            continue
        # a regenerated placeholder, as its writer wrote it (line ends aside), is YAML by
        # construction (placeholder.proven)
        proven = new.__class__ is _Proven and not doc.stand_ins and not doc.tags
        new = _put_back(doc, str(new), s) if doc.stand_ins else str(new)
        for verbatim, written_as in doc.tags.items():
            new = new.replace(verbatim, written_as)
        new_text = _newlines(new, s.newline) if not _mixed(doc.body) else _line_ends_kept(doc.body, new)
        parts.append(_own_line_marker(doc.sep, s.newline))
        parts.append(new_text)
        written.append(new_text)
        if not proven and not _read_back(doc, regenerated):
            unproven.append(written[-1])
    parts.append(s.tail)
    text = "".join(parts)
    if appended:
        if text and not text.endswith("\n"):
            text += s.newline
        open_marker = _ends_with_bare_marker(text)
        # whether the text so far holds anything: asked once, not of the whole text per
        # document (strip copies it: quadratic in the documents appended to one file)
        content = bool(text.strip("\ufeff \r\n"))
        out = [text]
        for doc_text in appended:
            if has_stand_ins(doc_text):
                raise InputError(_copied_break(s, None))
            if content and not open_marker:
                out.append("---" + s.newline)
            new_text = _newlines(doc_text, s.newline)
            out.append(new_text)
            written.append(new_text)
            if doc_text.__class__ is not _Proven:
                unproven.append(new_text)
            open_marker = False
            content = content or bool(new_text.strip("\ufeff \r\n"))
        text = "".join(out)
    final = text.replace("\n", "\r") if s.cr else text
    if final != s.raw:
        _check(s, text, written, unproven)
    return final


def _read_back(doc: Doc, regenerated: dict[int, dict[str, Any]]) -> bool:
    """Whether a changed document's new text was read back already as the data it holds:
    the light writer's (splice reads every text it writes for the light path back with the light reader,
    whose every reading the round-trip loader reads the same: tests/unit/yaml/light/test_parser.py), or what
    is left of one once written (a WrittenDocument)."""
    item = doc.item
    return item is not None and item.pos not in regenerated and isinstance(item.doc, (LightDocument, WrittenDocument))


def _check(s: Stream, text: str, written: list[str], unproven: list[str] | None = None) -> None:
    """The new text must read back as the documents it was made of: the same documents in
    the same order for our splitter, and YAML to libyaml. InputError names the file.

    libyaml reads the documents of `unproven` (joined as a stream) rather than the whole
    text when the other documents are known to be YAML already: each untouched one was
    checked when the file was read, each one the light writer wrote was read back by the
    light reader, each placeholder placeholder.proven calls YAML is by construction; the
    splitter's check holds the joins (a file with a directive, which binds
    the document after it, is read whole). Should they fail, the whole text is judged."""
    from krm_fn.yaml import libyaml

    again = [d.body.rstrip("\r\n") for d in split(text, s.name).docs]
    same_docs = again == [w.rstrip("\r\n") for w in written]
    if same_docs and unproven is not None and len(unproven) < len(written) and not has_directive(text):
        if not unproven or libyaml.reads(("---" + s.newline).join(unproven)):
            return
    # libyaml (YAML 1.1) may refuse what the round-trip loader reads: judge only files it read
    if not same_docs or (not libyaml.reads(text.lstrip("\ufeff")) and libyaml.reads(s.raw.lstrip("\ufeff"))):
        raise InputError(
            f"{s.name or 'the output stream'}: the rewritten text would not read back as its "
            f"{len(written)} document(s) (its document markers, directives or end markers are "
            "in a form the function cannot keep); it is left unchanged: separate the documents "
            "with plain `---` lines and run again"
        )


def _own_line_marker(sep: str, newline: str) -> str:
    """A changed document's separator: a marker that carried content (`--- !!map`, `--- &a`,
    `--- {...}`; split() left `--- ` at the end of the separator) becomes a bare `---` line,
    so the new text never starts on the marker line."""
    if sep.endswith("--- "):
        return sep[:-1] + newline
    return sep


def _ends_with_bare_marker(text: str) -> bool:
    """Whether the last line with content is a bare `---` (a document is open, still empty)."""
    end = len(text.rstrip("\r\n \ufeff"))
    start = text.rfind("\n", 0, end) + 1
    return _BARE_MARKER_RE.match(text, start, end) is not None


_BARE_MARKER_RE = patterns.compile(r"---[ \t]*(?:#.*)?$")


_SAME = object()


def _doc_output(doc: Doc, by_pos: dict[int, str], regenerated: dict[int, dict[str, Any]]) -> Any:
    """_SAME, the new document text, or None when the item was dropped."""
    item = doc.item
    if item is None:
        return _SAME
    if item.pos not in by_pos:
        return None
    if item.pos in regenerated:
        # a regenerated object of ours: the location its document had in its file, not the
        # in-memory one of this run
        return _placed(regenerated[item.pos], doc.location)[1]
    text = by_pos[item.pos]
    if item.text is not None:
        if text == item.text:
            return _SAME
        return text if item.document else unentry(text)  # a document's render is one
    if not item.changed and text == item.render(0)[0]:
        return _SAME
    return unentry(text)


def _placed(obj: dict[str, Any], keep: dict[str, str]) -> tuple[str | None, str]:
    """(the file a generated object names, its document text): the in-memory location
    annotations dropped, the ones its document had in its file (`keep`) put back. The text
    is a _Proven when placeholder.proven calls it YAML."""
    md = obj.get("metadata")
    ann = md.get("annotations") if isinstance(md, dict) else None
    if not isinstance(md, dict) or not isinstance(ann, dict):
        return None, emitter.dump_block(obj)
    path = ann.get(PATH_KEY) or ann.get(LEGACY_PATH_KEY)
    kept = {k: v for k, v in ann.items() if k not in LOCATION_KEYS}
    kept.update(keep)
    new_md = {k: v for k, v in md.items() if k != "annotations"}
    if kept:
        new_md = {**md, "annotations": kept}
    placed = {k: (new_md if k == "metadata" else v) for k, v in obj.items()}
    text = placeholder.text(placed)
    if text is None:
        text = emitter.dump_block(placed)
    elif placeholder.proven(text):
        text = _Proven(text)
    return (str(path) if path is not None else None), text


class _Proven(str):
    """A placeholder's text that placeholder.proven calls YAML by construction: not read
    again by libyaml (_check)."""


def _newlines(text: str, newline: str) -> str:
    return text.replace("\n", newline) if newline != "\n" else text


def _mixed(body: str) -> bool:
    """Whether a document's text ends some lines in CRLF and others in LF alone."""
    crlf = body.count("\r\n")
    return 0 < crlf < body.count("\n")


def _line_ends_kept(body: str, new: str) -> str:
    """A changed document of mixed line ends (a file edited on two systems): each line the
    edit kept keeps its own line end, and the lines it wrote get the document's commoner one.
    Written with the stream's line end throughout, every untouched line of the other kind
    changed too, where a changed object must differ from its input only where the edit
    needs. The kept lines are found by a line diff of the two texts (only for such files)."""
    old_lines = layout.split_lines(body)
    old_keys = [x.rstrip("\n").removesuffix("\r") for x in old_lines]
    new_keys = new.split("\n")
    crlf = body.count("\r\n")
    default = "\r\n" if crlf * 2 >= body.count("\n") else "\n"
    ends = [default] * (len(new_keys) - 1) + [""]  # the text after the last LF has no line end
    for tag, a, b, c, _d in line_opcodes(old_keys, new_keys):
        if tag == "equal":
            for k in range(b - a):
                if c + k < len(new_keys) - 1:
                    line = old_lines[a + k]
                    ends[c + k] = "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else default
    return "".join(key + end for key, end in zip(new_keys, ends, strict=True))
