"""One parsed object and the way it is edited and written back.

A transform edits `doc.data` in place and builds every new node through its document, so
the node types always match the tree: plain dicts and lists on the light path, ruamel's
commented types on the round-trip path. The two implementations share one interface:

- `data`, `before` (plain data as read), `changed`;
- `new_map()`, `safe(value)`: new nodes of the tree's kind (YAML 1.1-ambiguous strings quoted);
- `append`, `add_key`, `replace_key`: edits that keep the user's comments in place;
- `render(d)`: the object as one `- ` entry at dash indent `d`, and whether it is faithful
  (False when the data could only be written without its comments).

`LightDocument.render` raises `errors.Unsure` when the splicing writer is not sure of an
edit; the orchestrator then reads that one item again as a `RoundTripDocument` and runs its
transform again (`process`).
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import Unsure
from krm_fn.yaml import emitter
from krm_fn.yaml import layout as layout_mod
from krm_fn.yaml import placeholder
from krm_fn.yaml.light import dataread
from krm_fn.yaml.light import parser
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import comments as comments_mod
from krm_fn.yaml.roundtrip import loader
from krm_fn.yaml.splice import splicer

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Document:
    """The interface both documents implement (see the module docstring)."""

    data: Any
    before: Any
    _derived: dict[Any, Any] | None = None

    def derived(self, key: Any, make: Callable[[Any], Any]) -> Any:
        """make(data), computed once per document and key: facts of an object that transforms
        look up and never edit (the Pipeline that 1,500 runs name is converted to plain data
        once, not once per run). Never for an object a transform edits."""
        memo = self._derived
        if memo is None:
            memo = self._derived = {}
        if key not in memo:
            memo[key] = make(self.data)
        return memo[key]

    @property
    def changed(self) -> bool:
        """Whether the data differs from what was read."""
        return to_plain(self.data) != self.before

    def as_plain(self) -> Any:
        """The data as plain dicts, lists and scalars, for comparing (not to be edited)."""
        return to_plain(self.data)

    def new_map(self) -> Any:
        raise NotImplementedError

    def safe(self, value: Any) -> Any:
        raise NotImplementedError

    def append(self, seq: Any, value: Any) -> None:
        raise NotImplementedError

    def add_key(self, m: Any, key: str, value: Any) -> None:
        raise NotImplementedError

    def replace_key(self, m: Any, old: str, new: str, value: Any) -> None:
        raise NotImplementedError

    def render(self, d: int) -> tuple[str, bool]:
        raise NotImplementedError

    def render_document(self) -> tuple[str, bool]:
        """render(0) as a document of its own (layout.unentry): a document item's text."""
        text, faithful = self.render(0)
        return unentry(text), faithful


class LightDocument(Document):
    """An object read by the light reader: plain data, written back by splicing the changed
    lines into its own text (`source`, the item's `- ` entry).

    Once written, `compact()` lets go of what only a new writing needs (the layout: lines and
    positions; the copy as read): a list of 10,000 runs held all of them at once. Should the
    data change after that, both are read again from `source`, the positions given back the
    collections they had (by reading order), and the object is written as before."""

    def __init__(
        self, data: dict[str, Any], layout: parser.Doc | dataread.Unplaced, source: str = "", document: str | None = None
    ) -> None:
        """`layout`: the light reader's positions, or what a data-only reading keeps
        (light/dataread); the positions are then read from `source` when a writing needs
        them. `document`: the document whose entry (layout.entry_of) is `source`, made the
        first time it is asked for (a document read data-only and left unchanged, 1,500
        runs of a `--check`, never is)."""
        self.data = data
        self._source = source
        self._of = document
        self._indent = (layout.m, layout.o)
        self._layout: parser.Doc | None = None
        # compacted, or read data-only: the collections of the positions (dataread.collections)
        self._nodes: list[Any] | None = None
        read = None
        if layout.__class__ is dataread.Unplaced:
            self._nodes = layout.nodes
            read = layout.read
        else:
            self._layout = layout  # type: ignore[assignment]
        # the data as read, scalar types kept (a data-only reading built it alongside)
        self._read: Any = dataread.copy_read(data) if read is None else read
        self._before: Any = None
        # (fingerprint of the data, text) last written: a copy of the data was kept instead,
        # a third of what a large list held per run
        self._rendered: tuple[tuple[int, int] | None, str] | None = None  # None: not taken (render)
        self._document: tuple[str, str] | None = None  # (text last written, as a document)
        self._changed = False  # compacted: whether the data written differs from the data read

    @property
    def source(self) -> str:
        if self._of is not None:
            self._source, self._of = layout_mod.entry_of(self._of), None
        return self._source

    @property
    def layout(self) -> parser.Doc:
        if self._layout is None:
            self._reread()
        assert self._layout is not None
        return self._layout

    @property
    def read(self) -> Any:
        """The data as read (a copy: the transform edits `data`)."""
        if self._read is None:
            self._reread()
        return self._read

    def _reread(self) -> None:
        m, o = self._indent
        read, layout = parser.load_item(self.source, m, o + 2, o)
        positions = dataread.collections(layout)
        assert self._nodes is not None and len(positions) == len(self._nodes), "the source reads as before"
        for e, node in zip(positions, self._nodes, strict=True):
            e.node = node
        if self._read is None:
            self._read = read
        self._layout, self._nodes = layout, None

    def compact(self, changed: bool | None = None) -> None:
        """Keep the data and the text last written (rendered for the data as it is now);
        drop the layout and the copy as read (read again from `source` when needed).
        `changed`: whether the data differs from the data read, when the caller knows."""
        if self._layout is None or not self.source or self._rendered is None or self._rendered[0] != fingerprint(self.data):
            return
        self._changed = self.data != self._read if changed is None else changed
        self._nodes = [e.node for e in dataread.collections(self._layout)]
        self._layout = self._read = None

    def written(self, fresh: bool = False) -> WrittenDocument | None:
        """What is left to keep once this document is written and done with (None when its
        text was not written for the data as it is now; `fresh`: the caller rendered it just
        now, nothing changed since)."""
        if self._rendered is None or not self.source:
            return None
        if not fresh and self._rendered[0] != fingerprint(self.data):
            return None
        text = self._rendered[1]
        as_document = self._document[1] if self._document is not None and self._document[0] is text else None
        return WrittenDocument(text, self.source, self._indent, as_document)

    @property
    def before(self) -> Any:
        """The data as read, as plain data (made when asked for)."""
        if self._before is None:
            self._before = to_plain(self.read)
        return self._before

    def as_plain(self) -> Any:
        return self.data  # plain already; `==` treats its str subclasses as str

    @property
    def changed(self) -> bool:
        if self._read is None and self._rendered is not None and self._rendered[0] == fingerprint(self.data):
            return self._changed  # compacted, and the data is what was written then
        # both sides are plain dicts, lists and scalars (str subclasses for quoted and block
        # scalars): `==` compares them as to_plain would, without copying either
        return bool(self.data != self.read)

    def new_map(self) -> Any:
        return {}

    def safe(self, value: Any) -> Any:
        return emitter.plain_safe(value)

    def append(self, seq: Any, value: Any) -> None:
        seq.append(value)

    def add_key(self, m: Any, key: str, value: Any) -> None:
        m[key] = value

    def replace_key(self, m: Any, old: str, new: str, value: Any) -> None:
        keys = list(m)
        pos = keys.index(old)
        del m[old]
        rest = [(k, m.pop(k)) for k in keys[pos + 1 :]]
        m[new] = value
        m.update(rest)

    def render(self, d: int, remember: bool = True) -> tuple[str, bool]:
        """`remember` False: the caller writes the text and lets the data go at once
        (process._dispatch, then Item.release): the data's fingerprint (a repr of all of
        it, ~1% of a first render) is not taken, and the text is taken for no later one."""
        fp = fingerprint(self.data) if remember else None
        if fp is None or self._rendered is None or self._rendered[0] != fp:
            text = splicer.render_light(self.layout, self.read, self.data)
            self._rendered = (fp, text)
        return self._rendered[1], True

    def render_document(self, remember: bool = True) -> tuple[str, bool]:
        text, _ = self.render(0, remember)
        if self._document is None or self._document[0] is not text:
            self._document = (text, unentry(text))  # files mode asks twice per run
        return self._document[1], True


class WrittenDocument(Document):
    """A light document once written and done with: only the text written is kept (with the
    item's own text), not the data, its positions or the copy as read. A list of 10,000 runs
    held every run's data to the end; the text is what the output needs. Should anything
    look at the object again, the text written is read (the same data: the writer read it
    back when it wrote it); an edit after that is spliced into that text."""

    def __init__(self, text: str, source: str, indent: tuple[int, int], as_document: str | None = None) -> None:
        self.text = text
        self.source = source
        self._indent = indent
        self._doc: LightDocument | None = None
        self._before: Any = None
        self._as_document = as_document  # the text as a document (files mode), once made

    def _reading(self) -> LightDocument:
        if self._doc is None:
            m, o = self._indent
            data, layout = parser.load_item(self.text, m, o + 2, o)
            self._doc = LightDocument(data, layout, self.text)
        return self._doc

    @property
    def data(self) -> Any:
        return self._reading().data

    @property
    def before(self) -> Any:
        """The data as read from the item's own text."""
        if self._before is None:
            m, o = self._indent
            self._before = to_plain(parser.load_item(self.source, m, o + 2, o)[0])
        return self._before

    @property
    def changed(self) -> bool:
        return True  # written because it changed; the text written is not the item's own

    def as_plain(self) -> Any:
        return self.data

    # an edit goes to the reading of the text written, whose own methods make and write it
    def new_map(self) -> Any:
        return self._reading().new_map()

    def safe(self, value: Any) -> Any:
        return self._reading().safe(value)

    def append(self, seq: Any, value: Any) -> None:
        self._reading().append(seq, value)

    def add_key(self, m: Any, key: str, value: Any) -> None:
        self._reading().add_key(m, key, value)

    def replace_key(self, m: Any, old: str, new: str, value: Any) -> None:
        self._reading().replace_key(m, old, new, value)

    def render(self, d: int) -> tuple[str, bool]:
        return (self.text, True) if self._doc is None else self._doc.render(d)

    def render_document(self) -> tuple[str, bool]:
        if self._doc is not None:
            return self._doc.render_document()
        if self._as_document is None:
            self._as_document = unentry(self.text)  # files mode asks twice per run
        return self._as_document, True


def unentry(text: str) -> str:
    """layout.unentry(text), the same string, with layout's check for the rare lines made
    by searches that start at a newline (layout's one regular expression tries every
    character of the text: ~2% of a first render of the bench's package, issue 34): a text
    of ASCII without the line breaks and blanks other than LF and the space, in which no
    line is made of spaces only, loses two spaces at each line start in C; any other goes
    to layout.unentry."""
    if not text.startswith("- ") or not text.isascii() or any(c in text for c in _ODD) or patterns.search(_ODD_BLANK_LINE, text):
        return layout_mod.unentry(text)
    eol = text.find("\n") + 1
    if not eol:
        return layout_mod.unentry(text)
    return text[2:eol] + ("\n" + text[eol:]).replace("\n  ", "\n")[1:]


# what sends a text to layout.unentry: an ASCII line break or blank other than LF and the
# space, or a line of spaces only (unentry writes one of other than two spaces empty); the
# pattern is compiled on first use (re's cache)
_ODD = "\r\v\f\t\x1c\x1d\x1e\x1f"
_ODD_BLANK_LINE = r"\n ++(?=\n|\Z)"  # possessive: no backtracking over an indentation


def fingerprint(data: Any) -> tuple[int, int]:
    """What tells whether plain data changed since it was written: the length and hash of
    its repr (a repr sees what `==` sees, str subclasses as str, and key order too, which
    only makes an equal object be written again)."""
    r = repr(data)
    return len(r), hash(r)


class RoundTripDocument(Document):
    """An object read by ruamel's round-trip loader, written back by its emitter (checked by
    reading the text back). `indent` is (mapping, sequence, offset) as the item's text has
    them; `block` writes every collection in block style (the full-parse path). `text` is the
    item's own text when it has one: then only the changed entries are written anew
    (splice), and the whole object only when the splice is not sure."""

    def __init__(
        self, data: Any, indent: tuple[int, int, int] = (2, 2, 0), block: bool = False, text: str | None = None
    ) -> None:
        self.data = data
        self.text = text
        self.indent = indent
        self.block = block
        self.before = to_plain(data)
        self.pending: list[tuple[Any, str]] = []  # comments to put back before writing

    def new_map(self) -> Any:
        return loader.new_map()

    def safe(self, value: Any) -> Any:
        return loader.yamlsafe(value)

    def append(self, seq: Any, value: Any) -> None:
        comments_mod.append(seq, value, self.pending)

    def add_key(self, m: Any, key: str, value: Any) -> None:
        comments_mod.add_key(m, key, value, self.pending)

    def replace_key(self, m: Any, old: str, new: str, value: Any) -> None:
        comments_mod.replace_key(m, old, new, value, self.pending)

    def render(self, d: int) -> tuple[str, bool]:
        comments_mod.flush(self.pending)
        if self.text is not None and not self.block:
            try:
                return splicer.render_round_trip(self.text, self.before, self.data, self.indent), True
            except Unsure:
                pass
            except Exception:  # noqa: BLE001 - a splice bug costs the layout, never the object
                pass  # (tests/unit/yaml/splice/test_splicer_round_trip.py calls splicer.render_round_trip itself, where it shows)
        if self.block:
            loader.set_block_style(self.data)
        dumped, faithful = loader.dump_verified(self.data, *self.indent)
        out = layout_mod.indent_entry(dumped, d)
        if self.text is not None and self.text.startswith("\n") and not out.startswith("\n"):
            # blank lines before the object (after a file's `---`) are not the emitter's to drop
            out = "\n" * (len(self.text) - len(self.text.lstrip("\n"))) + out
        return out, faithful


# --------------------------------------------------------------------------- document level
# What the transforms need of the YAML layer besides a Document: they import nothing else of
# it (tests/suites/project/test_architecture.py).


def plain(node: Any) -> Any:
    """A node of a document's data (a subtree or a scalar) as plain data: new dicts and lists,
    str keys, the loader's scalar types as bool, int, float, str (a date as its ISO text). For
    comparing, hashing and building new objects from; edits go to the node itself."""
    return to_plain(node)


def new_block(obj: Any) -> str:
    """A new object (plain data: a generated placeholder) as a block YAML document, keys in
    insertion order (the project's own emitter)."""
    return placeholder.text(obj) or emitter.dump_block(obj)


def new_entry(obj: Any, d: int) -> str:
    """new_block(obj) as one `- ` entry of a list's items at dash indent `d` (the same text,
    emitted in place)."""
    text = placeholder.text(obj, d + 2) if placeholder.entry_ok(obj) else None
    if text is None:
        return emitter.dump_entry(obj, d)
    return " " * d + "- " + text[d + 2 :]


def as_entry(block: str, d: int) -> str:
    """A document new_block gave, as new_entry(obj, d) gives it (indented, not emitted again)."""
    return layout_mod.indent_entry(block, d)


def is_light(doc: Document | None) -> bool:
    """Whether `doc` is the light reader's (a LightDocument): its render raises errors.Unsure
    when the splicing writer is not sure of an edit (the item is then read again on the
    round-trip path)."""
    return isinstance(doc, LightDocument)


def round_trip_used() -> bool:
    """Whether this process made a round-trip or verifying loader (their loads make reference
    cycles, which process.PausedGC collects)."""
    return loader.round_trip_used()


def field_place(text: str, field_path: str) -> tuple[int, int] | None:
    """(line, column), 1-based within a document's `text`, of the key `field_path` names (its
    nearest parent that exists): for messages that point at another object's place."""
    from krm_fn.yaml.field_position import field_position

    return field_position(text, field_path)
