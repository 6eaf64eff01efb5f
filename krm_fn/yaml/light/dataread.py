"""The light reader without its positions: the same reading of an object's text (the same
data, the same texts refused as errors.Unsure), but no Entry, no line span or comment
column kept per key, which only the splicing writer needs.

Two readings need only the data (issue 34): the read-back of a text the splicing writer
just wrote (splicer.render_light compares it with the intended data), and the first
reading of an object that nothing may change (files mode's `--check` of a rendered
package reads 1,500 runs it then leaves as they are). `parser.read` reads such a text
again, positions and all, when an edit needs them (document.LightDocument). Its entries
then get back the collections this reading built (`nodes`, in parser.collections' order),
so the writer still tells an edit in place from a new collection. `copy_read` copies what
either reading built (LightDocument keeps the data as read).

DataReader runs parser.Reader's own code for every rare form (flow collections, quoted and
block scalars, continuation lines, `-` alone on a line), with a scratch Entry each form
writes its positions into and nobody reads; it writes only the two loops that visit every
line, mapping and sequence, again without positions.
tests/unit/yaml/light/test_dataread.py compares both readings on every document of the
project's fixtures and on the hypothesis property's texts.
"""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml import layout
from krm_fn.yaml.light.parser import _ITEM_LINES
from krm_fn.yaml.light.parser import _LINES
from krm_fn.yaml.light.parser import MAX_INDENT
from krm_fn.yaml.light.parser import Entry
from krm_fn.yaml.light.parser import MapPos
from krm_fn.yaml.light.parser import Reader
from krm_fn.yaml.light.parser import _item_line
from krm_fn.yaml.light.parser import _key_line
from krm_fn.yaml.light.parser import item_body

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.yaml.light.parser import Doc
    from krm_fn.yaml.light.parser import SeqPos


class DataReader(Reader):
    """parser.Reader's reading, data only (see the module docstring). `nodes`: every
    collection it read as an entry's value, where parser.Reader gives it to the entry."""

    def __init__(self, lines: list[str], m: int, o: int, left: int = 0, deepest: int = MAX_INDENT, bare: bool = False) -> None:
        super().__init__(lines, m, o, left, deepest, bare)
        self.nodes: list[Any] = []
        self.scratch = Entry(0)

    def _entry(self, li: int) -> Entry:
        """The scratch entry for a rare form that reads its entry's line (continued(),
        below_dash()) or writes its positions."""
        e = self.scratch
        e.line = e.last = li
        e.comment = 0
        return e

    def mapping(self, indent: int, first: tuple[int, Any] | None = None) -> tuple[dict[str, Any], Any]:
        """(the mapping, a copy of it: copy_read's, built alongside)."""
        data: dict[str, Any] = {}
        copy: dict[str, Any] = {}
        lines, ind, nxt, n = self.lines, self.ind, self.nxt, self.n
        while True:
            if first is not None:
                li, said = first
                first = None
                line = lines[li]
            else:
                li = self.i = nxt[self.i]
                if li >= n:
                    break
                col = ind[li]
                if col < indent:
                    break
                if col > indent:
                    raise Unsure("odd indentation")
                line = lines[li]
                said = _LINES.get(line)
                if said is None:
                    said = _key_line(line, col)
                    if said is None:
                        break  # an indentless sequence of the key before ends here
                    _LINES.keep(line, said)
            key, at, kind, v, comment = said
            if key in data:
                raise Unsure("key")
            if kind == 1:
                data[key] = copy[key] = v
                nx = self.i = nxt[li + 1]
                if nx < n and ind[nx] > indent:
                    e = self._entry(li)
                    e.comment = comment
                    data[key] = copy[key] = self.continued(e, v, indent)
                continue
            if kind == 2:
                # parser.Reader.below, inline (a call per nested key, ~40 a run)
                nx = self.i = nxt[li + 1]
                v = vc = None
                if nx < n:
                    c = ind[nx]
                    t = lines[nx]
                    if t.startswith("-", c) and t[c + 1 : c + 2] in ("", " "):  # `-` alone, or `- `
                        if c in (indent + self.o, indent, indent + 2):
                            v, vc = self.sequence(c)
                        elif c >= indent:
                            raise Unsure("sequence indentation")
                    elif c > indent:
                        v, vc = self.mapping(c)
                data[key] = v
                copy[key] = vc
            else:
                self.i = li + 1
                v = data[key] = self.value(self._entry(li), line, at, indent)
                copy[key] = copy_read(v) if v.__class__ is dict or v.__class__ is list else v
            if v.__class__ is dict or v.__class__ is list:
                self.nodes.append(v)
        return data, copy

    def sequence(self, dash: int) -> tuple[list[Any], Any]:
        """(the sequence, a copy of it: copy_read's, built alongside)."""
        data: list[Any] = []
        copy: list[Any] = []
        lines, ind, nxt, n = self.lines, self.ind, self.nxt, self.n
        nodes = self.nodes
        col = dash + 2
        while True:
            li = self.i = nxt[self.i]
            if li >= n or ind[li] != dash:
                break
            line = lines[li]
            if not line.startswith("- ", dash) and len(line) != dash + 1:
                break
            if len(line) == dash + 1:
                v = self.below_dash(self._entry(li), dash)
                vc = copy_read(v)  # (a mapping)
            elif said := (_ITEM_LINES.get(line) or _item_line(line, col)):
                v, vc = self.mapping(col, (li, said))
            else:
                if line[col] in "|>":
                    raise Unsure("block scalar as a sequence item")
                self.i = li + 1
                v = vc = self.inline(self._entry(li), line, col, dash)
                self.after_inline(dash)
                if v.__class__ is dict or v.__class__ is list:
                    vc = copy_read(v)  # a flow collection
            if v.__class__ is dict or v.__class__ is list:
                nodes.append(v)
            data.append(v)
            copy.append(vc)
        return data, copy


def read(
    lines: list[str], m: int, o: int, indent: int, deepest: int = MAX_INDENT, bare: bool = False
) -> tuple[dict[str, Any], list[Any]]:
    """parser.read's data, and the collections it gave its entries (parser.collections'
    order); Unsure when unsure. `deepest`, `bare`: parser.Reader's."""
    r = DataReader(lines, m, o, indent, deepest, bare)
    return _read(r, indent)[0], r.nodes


def _read(r: DataReader, indent: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the mapping, copy_read's copy of it)."""
    r.skip()
    if r.i >= r.n or r.indent() != indent:
        raise Unsure("layout")
    data, copy = r.mapping(indent)
    r.skip()
    if r.i < r.n:
        raise Unsure("content after the mapping")
    return data, copy


class Unplaced:
    """What a data-only reading of an item keeps for its positions to be read later: the
    collections it gave its entries (read()) and the item's indentation; and `read`, the
    copy of its data the reader built alongside (copy_read's, for LightDocument), or None."""

    __slots__ = ("nodes", "m", "o", "read")

    def __init__(self, nodes: list[Any], m: int, o: int, read: dict[str, Any] | None = None) -> None:
        self.nodes = nodes
        self.m = m
        self.o = o
        self.read = read


def load_item(chunk: str, m: int, s: int, o: int, lines: list[str] | None = None) -> tuple[dict[str, Any], Unplaced]:
    """parser.load_item's data, and what its positions need (Unplaced)."""
    _, _, body, c = item_body(chunk, s, o, lines)
    r = DataReader(body, m, o, c)
    data, copy = _read(r, c)
    return data, Unplaced(r.nodes, m, o, copy)


def load_document(text: str) -> tuple[dict[str, Any], Unplaced] | None:
    """load_item's reading of a document's entry (layout.entry_of(text), as io/items reads a
    document item), read off the document's own lines: the same data and Unsure alike,
    without the entry made, split and measured (issue 34: a `--check` of a rendered package
    made 1,500 of them). Only for a text whose entry is the text line for line
    (layout.line_for_line), with its first content line at the left: every line of that
    entry's mapping is then the document's line two columns in, and the reader reads the
    same whatever the shift (each column it compares is a key's, a dash's or a line's
    indentation, all shifted alike), but for its deepest indentation, taken two less
    here. None for any other text (read its entry). The m and o of the entry's Unplaced
    are the document's: detect_indent measures differences of indentation alone."""
    first = layout.line_for_line(text)
    if first < 0 or text[first] == " ":
        return None  # (a first line indented: `- ` then blanks, Unsure in the entry)
    lines = text[first:-1].split("\n")
    r = DataReader(lines, 0, 0, 0, MAX_INDENT - 2, bare=True)  # (line_for_line: no line ends in a blank)
    m, s, o = _detect_indent(r)
    if s != o + 2:
        raise Unsure("sequence indent")
    r.m, r.o = m, o
    data, copy = _read(r, 0)
    return data, Unplaced(r.nodes, m, o, copy)


def _detect_indent(r: DataReader) -> tuple[int, int, int]:
    """layout.detect_indent(r.lines, 0) off the reader's own measures (each content line's
    indentation, the next content line), for lines that hold no blank but spaces and none
    at their end (layout.line_for_line's): a content line is then the reader's, and what
    detect_indent strips of it is nothing. tests/unit/yaml/light/test_dataread.py compares
    both."""
    lines, ind, nxt, n = r.lines, r.ind, r.nxt, r.n
    mapping = 0
    seq: tuple[int, int] | None = None
    prev = -1  # the indent of the key line before, when its value is below it
    j = nxt[0]
    while j < n:
        line, k = lines[j], ind[j]
        j = nxt[j + 1]
        if line.startswith("- ", k) or len(line) == k + 1 and line[k] == "-":
            if seq is None and prev >= 0 and k >= prev:
                off = k - prev
                seq = (off + 2, off) if off else (2, 0)
            prev = -1
            continue
        if k > 0 and mapping == 0 and prev >= 0 and k > prev:
            mapping = k - prev
        prev = k if line[-1] == ":" else -1
        if mapping and seq:
            break
    return layout.indent_of_layout(mapping, seq)


def collections(doc: Doc) -> list[Entry]:
    """The entries of a full reading (parser.read) that hold a collection, in the order
    the reader gave it to them (each after the entries inside it): the order of a
    data-only reading's `nodes` of the same text."""
    out: list[Entry] = []

    def walk(pos: MapPos | SeqPos) -> None:
        for e in pos.entries.values() if pos.__class__ is MapPos else pos.items:  # type: ignore[union-attr]
            v = e.value
            if v is not None and not v.flow:
                walk(v)
            if e.node is not None:
                out.append(e)

    assert doc.root is not None
    walk(doc.root)
    return out


def copy_read(v: Any) -> Any:
    """A copy of data the light reader (parser, DataReader) built (new collections,
    scalars shared: they are immutable), core.data.copy_data's result for it at about 60% of its cost: every
    collection the reader builds is an exact dict or list (`{}`, `[]`), so each one is
    copied whole (dict.copy, list.copy: in C) and only its collections are copied again. A
    light document keeps such a copy of every run it reads (LightDocument: the data as read,
    to tell what the transform changed), 1,500 of them in a re-render of the bench's
    package (issue 34)."""
    out = v.copy()
    if v.__class__ is dict:
        for k, x in v.items():
            c = x.__class__
            if c is dict or c is list:
                out[k] = copy_read(x)
    else:
        for i, x in enumerate(v):
            c = x.__class__
            if c is dict or c is list:
                out[i] = copy_read(x)
    return out
