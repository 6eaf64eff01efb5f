"""The splicing writer of the light path: an item read by `lite` is written back with only
its changed entries spliced into its own text, in the layout ruamel's round-trip writer gives
them, and the result is read back by `lite` to prove it holds the data it must.

Whatever it is not sure of raises errors.Unsure, and the caller writes that item on the
round-trip path instead (document.LightDocument, process): it gives the bytes the round-trip
path gives (tests/test_lite.py compares both on every fixture) or steps aside.
"""
from __future__ import annotations

import re

from krm_fn.core.errors import Unsure
from krm_fn.yaml import yamlio
from krm_fn.yaml import yamltext
from krm_fn.yaml.lite import Doc
from krm_fn.yaml.lite import Entry
from krm_fn.yaml.lite import MapPos
from krm_fn.yaml.lite import SeqPos
from krm_fn.yaml.lite import read
from krm_fn.yaml.litescalar import _ASCII_PRINTABLE
from krm_fn.yaml.litescalar import _KEY_RE
from krm_fn.yaml.litescalar import _PLAIN_KEYS
from krm_fn.yaml.litescalar import DQ
from krm_fn.yaml.litescalar import SQ
from krm_fn.yaml.litescalar import Folded
from krm_fn.yaml.litescalar import Lit
from krm_fn.yaml.litescalar import _resolve

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# a line that may hold an explicit null (a quoted "null" too: then the writer just steps aside)
_NULL_WORD = re.compile(r"(?<![^ ,\[{])(?:null|Null|NULL|~)(?=$|[ ,\]}])")

def render_item(doc: Doc, before: Any, after: Any) -> tuple[str, Any]:
    """The item's text with `after`'s changes over `before` spliced in, and the data it reads
    back as (equal to `after`, sharing no collection with it); Unsure when the edit is not one
    this writer is sure to lay out the way the round-trip writer would."""
    assert doc.root is not None
    edits: list[tuple[int, int, list[str]]] = []
    w = _Writer(doc, edits)
    w.mapping(doc.root, before, after)
    lines = w.apply()
    # the new text must read back as the data it is meant to hold
    check, _ = read(lines, doc.m, doc.o, doc.root.indent)
    # plain data on both sides: `==` compares as to_plain would (never more leniently)
    if check != after:
        raise Unsure("read-back differs")
    if doc.first_inline:
        if not lines or lines[0] != doc.lines[0]:
            raise Unsure("first key changed")
        lines = [doc.first_inline] + lines[1:]
    return "\n".join(doc.head + lines) + "\n", check


class _Writer:
    def __init__(self, doc: Doc, edits: list[tuple[int, int, list[str]]]) -> None:
        self.lines = doc.lines
        self.edits = edits
        self.m = doc.m
        self.o = doc.o

    # --- edits

    def apply(self) -> list[str]:
        return yamltext.splice_lines(self.lines, self.edits)

    def _followed_by_content(self, k: int) -> None:
        """An edit that ends after line k must not be followed by a comment or blank line:
        the round-trip writer keeps such a comment with the last scalar before it, and moves
        it when something is added or removed there. Except at the end of the object:
        comments there (`# end of file`, blank lines around them) stay after the edit, as the
        round-trip path's splice (rtsplice) leaves them; blank lines alone there it puts
        before the edit (an item of a list followed by a blank line: tests/test_lite.py)."""
        if k + 1 < len(self.lines):
            t = self.lines[k + 1].lstrip(" ")
            if (not t or t.startswith("#")) and not self._comments_end_the_object(k):
                raise Unsure("comment at the insertion point")

    def _comments_end_the_object(self, k: int) -> bool:
        """Whether every line after line k is a comment or blank, one of them a comment."""
        rest = [x.lstrip(" ") for x in self.lines[k + 1 :]]
        return all(not t or t[0] == "#" for t in rest) and any(rest)

    def _clean(self, a: int, b: int) -> None:
        """Lines a..b (inclusive) hold no comment, blank line or explicit null (which the
        round-trip writer keeps when it splices, and writes as `key:` when it emits)."""
        for k in range(a, b + 1):
            t = self.lines[k].lstrip(" ")
            if not t or "#" in t:
                raise Unsure("comment in a replaced block")
            if _NULL_WORD.search(t):
                raise Unsure("explicit null in a replaced block")

    def insert_after(self, k: int, new: list[str]) -> None:
        """Insert after line k. A comment or blank line right after it is not something
        this writer places (but at the end of the object: _followed_by_content): the
        round-trip loader ties such a comment to a node chosen by its column and by what
        ends there, and rtedit may move it (tests/test_lite.py)."""
        self._followed_by_content(k)
        self.edits.append((k + 1, k + 1, new))

    def remove(self, e: Entry) -> None:
        if self._is_dash_line(e.line):
            raise Unsure("first key of a sequence item removed")
        self._clean(e.line, e.last)
        self._followed_by_content(e.last)
        self.edits.append((e.line, e.last + 1, []))

    def replace(self, e: Entry, new: list[str], indent: int) -> None:
        """Replace entry e's lines (a mapping entry keeps the dash of its line, if any)."""
        if e.comment:
            raise Unsure("end-of-line comment on an edited line")
        self._clean(e.line, e.last)
        self._followed_by_content(e.last)
        self.swap(e, new, indent)

    def swap(self, e: Entry, new: list[str], indent: int) -> None:
        """Entry e's lines become `new`, the dash of its first line kept. As such, for a key
        replaced by another in its place: the comments and blank lines inside the entry go
        with it, as the round-trip splice drops them there (rtsplice: drop_comments), and
        what follows it, a comment too, stays after the new lines, as it does there."""
        first = self.lines[e.line]
        if indent >= 2 and first.startswith("- ", indent - 2) and new[0].startswith(" " * indent):
            new = [first[:indent] + new[0][indent:]] + new[1:]
        self.edits.append((e.line, e.last + 1, new))

    def _is_dash_line(self, li: int) -> bool:
        return self.lines[li].lstrip(" ").startswith("- ")

    # --- diff

    def mapping(self, pos: MapPos, before: dict[str, Any], after: dict[str, Any]) -> None:
        if pos.flow:
            raise Unsure("flow mapping edited")
        old = list(before)
        new = list(after)
        for k in new:  # inner edits first: at a shared line, they go before this level's
            if k in before:
                self.value(pos.entries[k], k, before[k], after[k], pos.indent)
        if old != new:
            kept = [k for k in new if k in before]
            if kept != [k for k in old if k in after]:
                raise Unsure("keys reordered")
            # a new key where a removed one sat (a binding's volumeClaimTemplate bound to its
            # claim, `- volumeClaimTemplate:` first too): that entry rewritten in place
            swapped = yamltext.swapped_keys(old, new, before, after)
            for sk, ok in swapped.items():
                self.swap(pos.entries[ok], self.entry_lines(sk, after[sk], pos.indent), pos.indent)
            gone = set(swapped.values())
            for k in old:
                if k not in after and k not in gone:
                    self.remove(pos.entries[k])
            anchor: str | None = None
            group: list[str] = []
            ends: list[str | None] = [*new, None]
            for nk in ends:
                if nk is not None and nk not in before and nk not in swapped:
                    group.append(nk)
                    continue
                if group:
                    if anchor is None:
                        raise Unsure("key inserted first")
                    lines: list[str] = []
                    for g in group:
                        lines.extend(self.entry_lines(g, after[g], pos.indent))
                    self.insert_after(pos.entries[swapped.get(anchor, anchor)].last, lines)
                    group = []
                anchor = nk

    def value(self, e: Entry, key: str, b: Any, a: Any, indent: int) -> None:
        if a is e.node and e.node is not None:  # the loaded collection, edited in place
            if _same(b, a):
                return
            if isinstance(a, dict) and isinstance(e.value, MapPos) and not e.value.flow:
                self.mapping(e.value, b, a)
                return
            if isinstance(a, list) and isinstance(e.value, SeqPos) and not e.value.flow:
                self.sequence(e.value, b, a)
                return
            self.replace(e, self.flow_entry_lines(key, a, indent), indent)  # a flow collection
            return
        if _same(b, a) and (e.value is None or not e.value.flow) and not isinstance(a, Lit):
            # equal data, written fresh: the same text, as this reader only takes the layout
            # the writer gives; comments inside would be lost (replace() refuses those)
            if not isinstance(a, (dict, list)):
                return
            self._clean(e.line, e.last)
            return
        self.replace(e, self.entry_lines(key, a, indent), indent)

    def sequence(self, pos: SeqPos, b: list[Any], a: list[Any]) -> None:
        items = pos.items
        if len(a) < len(b):
            # removals only: what is left must be the old entries, in order
            j = 0
            gone = []
            for i, e in enumerate(items):
                if j < len(a) and _kept(e, b[i], a[j]):
                    j += 1
                else:
                    gone.append(e)
            if j != len(a) or not a:
                raise Unsure("sequence edit")
            for e in gone:
                if e.comment or e.node is None:
                    # which of two equal scalars went is not known here
                    raise Unsure("scalar entry removed")
                self._clean(e.line, e.last)
                self._followed_by_content(e.last)
                self.edits.append((e.line, e.last + 1, []))
            return
        for i in range(len(b)):
            self.item(items[i], b[i], a[i], pos.dash)
        if len(a) > len(b):
            lines: list[str] = []
            for v in a[len(b) :]:
                lines.extend(self.item_lines(v, pos.dash))
            self.insert_after(items[-1].last, lines)

    def item(self, e: Entry, b: Any, a: Any, dash: int) -> None:
        if a is e.node and e.node is not None:
            if _same(b, a):
                return
            if isinstance(a, dict) and isinstance(e.value, MapPos) and not e.value.flow and (
                list(a)[:1] == list(b)[:1] or list(a)[1:] == list(b)[1:]  # the first key the same, or replaced
            ):
                self.mapping(e.value, b, a)
                return
            raise Unsure("sequence item edited")
        if _same(b, a) and not isinstance(a, (dict, list, Lit)):
            return
        self.replace(e, self.item_lines(a, dash), -1)

    # --- emission, in the layout of ruamel's round-trip writer

    def flow_entry_lines(self, key: str, v: Any, indent: int) -> list[str]:
        """A flow collection of the input, edited in place, as the round-trip writer writes
        the entry: in flow style, its scalars quoted as they were read (ruamel's emitter on
        a copy carrying those styles: a rare edit, and its layout is the emitter's to give)."""
        if key.__class__ is not str or not _KEY_RE.fullmatch(key + ":") or _resolve(key) is not key:
            raise Unsure("key form")
        try:
            text = yamlio.rt_dump({key: _styled(v, flow=True)}, self.m, self.o + 2, self.o)
        except Unsure:
            raise
        except Exception:  # noqa: BLE001 - what the emitter refuses is the round-trip path's
            raise Unsure("flow collection the emitter refuses") from None
        return [" " * indent + x if x else x for x in text.split("\n")[:-1]]

    def entry_lines(self, key: str, v: Any, indent: int) -> list[str]:
        out: list[str] = []
        self._entry(key, v, indent, out)
        return out

    def item_lines(self, v: Any, dash: int) -> list[str]:
        out: list[str] = []
        self._item(v, dash, out)
        return out

    def _entry(self, key: str, v: Any, indent: int, out: list[str]) -> None:
        if key.__class__ is not str or key not in _PLAIN_KEYS:  # else: a key read as itself
            if key.__class__ is not str or not _KEY_RE.fullmatch(key + ":") or _resolve(key) is not key:
                raise Unsure("key form")  # a quoted key (SQ, DQ) too: the round-trip path writes it
        pad = " " * indent
        if v.__class__ is str:  # most entries: the scalar case first
            out.append(f"{pad}{key}: {_scalar(v)}")
        elif isinstance(v, dict):
            if not v:
                out.append(f"{pad}{key}: {{}}")
                return
            out.append(f"{pad}{key}:")
            for k, x in v.items():
                self._entry(k, x, indent + self.m, out)
        elif isinstance(v, list):
            if not v:
                out.append(f"{pad}{key}: []")
                return
            out.append(f"{pad}{key}:")
            for x in v:
                self._item(x, indent + self.o, out)
        elif v is None:
            out.append(f"{pad}{key}:")
        else:
            out.append(f"{pad}{key}: {_scalar(v)}")

    def _item(self, v: Any, dash: int, out: list[str]) -> None:
        pad = " " * dash
        if isinstance(v, dict):
            if not v:
                out.append(f"{pad}- {{}}")
                return
            first = len(out)
            for k, x in v.items():
                self._entry(k, x, dash + 2, out)
            out[first] = pad + "- " + out[first][dash + 2 :]
            return
        if isinstance(v, list) or v is None:
            raise Unsure("nested sequence or null item")
        out.append(f"{pad}- {_scalar(v)}")


def _styled(v: Any, flow: bool = False) -> Any:
    """Plain data of the light reader as ruamel's emitter takes it: quoted and block scalars
    as its scalar-string types, `flow` collections in flow style (what they hold is written
    in flow style by the emitter in any case)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString
    from ruamel.yaml.scalarstring import FoldedScalarString
    from ruamel.yaml.scalarstring import LiteralScalarString
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if isinstance(v, dict):
        m = CommentedMap()
        for k, x in v.items():
            m[_styled(k)] = _styled(x)
        if flow:
            m.fa.set_flow_style()
        return m
    if isinstance(v, list):
        s = CommentedSeq(_styled(x) for x in v)
        if flow:
            s.fa.set_flow_style()
        return s
    for lite_type, rt_type in ((DQ, DoubleQuotedScalarString), (SQ, SingleQuotedScalarString), (Folded, FoldedScalarString), (Lit, LiteralScalarString)):
        if isinstance(v, lite_type):
            return rt_type(str(v))
    if isinstance(v, str) and v.__class__ is not str:
        raise Unsure("scalar type")
    return v


def _kept(e: Entry, b: Any, a: Any) -> bool:
    """Whether `a` is the old entry `b` (the same loaded collection, or an equal scalar)."""
    if e.node is not None:
        return a is e.node and _same(b, a)
    return _same(b, a)


def _same(a: Any, b: Any) -> bool:
    """Equal data with equal scalar types (a quoted string is not a plain one, 1 is not true)."""
    t = type(a)
    if t is not type(b):
        return False
    if t is dict:  # the reader's and the transforms' collections: scalars compared in line
        if list(a) != list(b):
            return False
        for k, x in a.items():
            y = b[k]
            tx = type(x)
            if tx is not type(y) or (not _same(x, y) if isinstance(x, (dict, list)) else x != y):
                return False
        return True
    if t is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            tx = type(x)
            if tx is not type(y) or (not _same(x, y) if isinstance(x, (dict, list)) else x != y):
                return False
        return True
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _scalar(v: Any) -> str:
    """A new scalar as the round-trip writer writes it."""
    if v.__class__ is str:
        text = _SCALAR_TEXT.get(v)
        if text is None:
            text = _scalar_text(v)
            if len(_SCALAR_TEXT) >= 4096:
                _SCALAR_TEXT.clear()
            _SCALAR_TEXT[v] = text
        return text
    return _scalar_text(v)


def _scalar_text(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, DQ):
        if not _ASCII_PRINTABLE.fullmatch(v) or '"' in v or "\\" in v:
            raise Unsure("double-quoted form")
        return f'"{v}"'
    if isinstance(v, SQ):
        if not _ASCII_PRINTABLE.fullmatch(v):
            raise Unsure("single-quoted form")
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, str) and not isinstance(v, Lit):
        if _PLAIN_OUT_RE.fullmatch(v) and not v.endswith(":") and ": " not in v and " #" not in v:
            try:
                if _resolve(v) is v:
                    return v
            except Unsure:
                pass
        raise Unsure("scalar needs quoting")
    raise Unsure("scalar type")


_SCALAR_TEXT: dict[str, str] = {}  # _scalar of a str, by value (cleared at 4,096)
# What the round-trip writer surely writes plain (checked against it in tests/test_lite.py)
_PLAIN_OUT_RE = re.compile(r"[A-Za-z0-9_./$(][A-Za-z0-9_./$()@=+:-]*")
