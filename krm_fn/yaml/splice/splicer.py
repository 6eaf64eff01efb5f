"""The splicing writer of both read paths: an edited object written back as its own text with
only the changed entries replaced (issue 11: a changed object differs from its input only in
the lines the edit needs; issue 26: one writer for the light and the round-trip reader).

The data as read (`before`) and the edited data (`after`) are compared entry by entry along
the positions of the item's text (`splice/positions`: the light reader's own, or libyaml's nodes
for an item only the round-trip loader reads):

- an entry whose data did not change keeps its text, comments and layout (a flow mapping
  with a complex key such as `{{GITHUB_URL}}`, `key: null`, block scalar indentation, a
  multi-line flow list, a long plain scalar);
- an edited block mapping or sequence is compared one level down;
- a new key or list entry is inserted after the last content line of the entry before it
  (comments that follow that entry stay after the new lines, where roundtrip/comments puts them on the
  whole-object path), a removed one is cut (its own comments with it), a key that takes a
  removed key's place rewrites that entry, and any other change replaces the entry's lines;
  a list whose entries were removed, edited and added at once is edited entry by entry,
  each entry of the input known by its collection (`positions.*.align`);
- new text is the layout of ruamel's round-trip writer for that entry alone, with no
  comments, shifted to the entry's column (`splice/newtext`: the light reader's plain data
  written by its own writer, the round-trip loader's by the emitter).

A replaced span that holds a comment would lose it (but the end-of-line comment of a one-line
entry that stays one line, which stays on it): then, and in any layout the writer does not
know (an edit placed by an aliased node, merge keys...), it raises errors.Unsure; the light
path then reads the item again on the round-trip path (process), and that path writes the
whole object with the emitter (document.RoundTripDocument). The spliced text is read back,
by the reader that read the item, and must be the edited data.
"""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml import guards
from krm_fn.yaml import layout
from krm_fn.yaml import libyaml
from krm_fn.yaml.light import dataread
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import entries
from krm_fn.yaml.roundtrip import loader
from krm_fn.yaml.splice import newtext
from krm_fn.yaml.splice import positions
from krm_fn.yaml.splice.positions import MAP
from krm_fn.yaml.splice.positions import SEQ
from krm_fn.yaml.splice.positions import Replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from krm_fn.yaml.light.parser import Doc


def render_light(doc: Doc, before: Any, after: Any) -> str:
    """The text of an item the light reader read (`doc`, as `before`) with `after`'s changes
    spliced in; read back by the light reader (its data alone: light/dataread). Unsure when
    the writer is not sure of it."""
    root = doc.root
    assert root is not None
    head = doc.head
    lines = doc.lines
    if doc.first_inline:  # the first key on the dash line: the writer's lines have the dash
        lines = [doc.first_inline, *lines[1:]]
    off = len(head)
    if off:
        lines = head + lines
    if any("\t" in x for x in lines):
        # libyaml refuses a tab where a block scalar's indentation is (ruamel and the light
        # reader read it): the round-trip path cannot splice such an item and writes the
        # whole object, so the light path must not splice it either (the same bytes)
        libyaml.compose_marked(layout.item_document("\n".join(lines) + "\n")[0])
    flows = {id(e.node) for e in doc.flows} if doc.flows else _NONE
    w = _Walker(lines, positions.LitePositions(doc, off), newtext.FastEmitter((doc.m, doc.o + 2, doc.o), flows), _same_plain)
    try:
        w.mapping(root, before, after)
    except Replace:
        raise Unsure("the whole object changed") from None
    out = w.apply()
    body = out[off:] if off else out
    if doc.first_inline:
        c = root.indent
        if not body or body[0][:c] != doc.first_inline[:c]:
            raise Unsure("first key changed")
        body = [" " * c + body[0][c:], *body[1:]]
    check, _ = dataread.read(body, doc.m, doc.o, root.indent)  # the data alone: no positions
    # plain data on both sides: `==` compares as to_plain would (never more leniently)
    if check != after:
        raise Unsure("read-back differs")
    return "\n".join(out) + "\n"


_NONE: set[int] = set()


def render_round_trip(chunk: str, before: Any, after: Any, indent: tuple[int, int, int]) -> str:
    """The item text `chunk` (one `- ` entry) with `after`'s changes (a round-trip tree) over
    `before` (the plain data `chunk` was read as) spliced in, with libyaml's node marks; read
    back by the safe loader. Unsure when the writer is not sure of it."""
    lines = layout.split_lines(chunk, keepends=False)
    doc_text, cut = layout.item_document(chunk)
    root = libyaml.compose_marked(doc_text)
    src = positions.NodePositions(layout.split_lines(doc_text, keepends=False), cut, root)
    w = _Walker(lines, src, entries.Emitter(indent), to_plain)
    if not positions.is_block_mapping(root) or not isinstance(after, dict):
        raise Unsure("not a block mapping")
    try:
        w.mapping(root, before, after)
    except Replace:
        raise Unsure("the whole object changed") from None
    out = w.apply()
    k = layout.dash_index(lines)
    out = _head_after_dash(out, k, cut)
    text = "\n".join(out) + "\n"
    got, _ = layout.item_document(text)
    try:
        back = loader.verify_load(got)
    except Exception:  # noqa: BLE001 - e.g. a complex key (safe loader) and a tab (round trip)
        try:
            back = guards.load_guarded(got, "the object", limits=False)
        except Exception:  # noqa: BLE001 - unreadable output is what this check guards
            raise Unsure("spliced text unreadable") from None
    if ordered(to_plain(back)) != ordered(to_plain(after)):
        raise Unsure("read-back differs")
    return text


def _head_after_dash(out: list[str], k: int, cut: int) -> list[str]:
    """Comments before the dash go after it (`- # comment`), as the light reader reads them
    (parser.load_item) and layout.indent_entry puts them (layout.head_after_dash)."""
    if k >= len(out):
        return out  # no dash line to put them after
    dash = out[k]
    d = layout.indent_of(dash)
    head = layout.head_after_dash(out[:k], d, cut)
    if head is None:
        return out
    rest = dash[d + 1 :].lstrip(" ")
    if not rest or rest.startswith("#"):  # `-` or `- # comment`, the keys below
        return head + ([" " * cut + rest] if rest else []) + out[k + 1 :]
    if dash[d + 1 : cut].strip() or len(dash) <= cut:
        raise Unsure("head comments before an odd dash line")
    return head + [" " * cut + dash[cut:]] + out[k + 1 :]


def ordered(v: Any) -> Any:
    """Plain data with each mapping as its list of pairs: equal when the keys' order is too."""
    if isinstance(v, dict):
        return [(k, ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return v


def _same_plain(v: Any) -> Any:
    return v  # the light reader's data is plain already (`==` sees its str subclasses as str)


class _Walker:
    """The comparison of the data as read with the edited data along the positions `src`,
    and the edits it makes of the writer's `lines` (`emit`: new text; `plain`: a subtree of
    the edited data as plain data, to compare with the data as read)."""

    def __init__(self, lines: list[str], src: Any, emit: entries.Emitter, plain: Callable[[Any], Any]) -> None:
        self.lines = lines
        self.src = src
        self.emit = emit
        self.plain = plain
        self.edits: list[tuple[int, int, list[str]]] = []

    # --- edits

    def apply(self) -> list[str]:
        return layout.splice_lines(self.lines, self.edits)

    def _prefix_blank(self, line: int, col: int) -> bool:
        return not self.lines[line][:col].strip()

    def replace(self, first: int, col: int, last: int, new: list[str], h: Any, drop_comments: bool = False) -> None:
        """Lines first..last become `new`; the first line keeps what precedes column `col`
        (a sequence dash). An end-of-line comment of a one-line entry that stays one line
        stays on it; any other comment in the span would be lost: Unsure (`drop_comments`:
        the entry is replaced by another key's, and its comments go with it, as on the
        whole-object path)."""
        tail = ""
        found = [] if drop_comments else self.src.comments(h, first, last)
        if found:
            if len(found) > 1 or first != last or len(new) != 1:
                raise Unsure("a comment in a replaced entry")
            line = self.lines[first]
            hash_at = found[0][1]
            tail = line[len(line[:hash_at].rstrip(" ")) :]
        new = [self.lines[first][:col] + new[0][col:] + tail] + new[1:]
        self.edits.append((first, last + 1, new))

    def insert_after(self, last: int, new: list[str]) -> None:
        self.edits.append((last + 1, last + 1, new))

    def insert_before(self, first: int, col: int, new: list[str]) -> None:
        """New lines before the line of a first key at `col`: a dash before it moves up."""
        old = self.lines[first]
        if not old[:col].strip():
            self.edits.append((first, first, new))
            return
        self.edits.append((first, first + 1, [old[:col] + new[0][col:], *new[1:], " " * col + old[col:]]))

    def remove(self, first: int, col: int, last: int) -> None:
        if not self._prefix_blank(first, col):
            raise Replace  # the line also holds the sequence dash
        self.edits.append((first, last + 1, []))

    # --- mappings

    def mapping(self, node: Any, before: dict[str, Any], after: Any) -> None:
        src = self.src
        pos, akeys, new_keys, kept, swapped = self._mapping_plan(node, before, after)
        gone = [k for k in before if k not in akeys and k not in swapped.values()]
        if any(not self._prefix_blank(*src.start(node, pos[k])) for k in gone):
            raise Replace  # a removed key on the line of the sequence dash
        for k in kept:  # inner edits first: at a shared line, they go before this level's
            self.entry(node, pos[k], akeys[k], before[k], after[akeys[k]])
        for sk in swapped:
            h = pos[sk]
            line, col = src.start(node, h)
            new = self.emit.entry(akeys[sk], after[akeys[sk]], col)
            self.replace(line, col, src.end(h), new, h, drop_comments=True)
        for k in gone:
            line, col = src.start(node, pos[k])
            self.remove(line, col, src.end(pos[k]))
        self._insert_new_keys(node, pos, akeys, new_keys, before, swapped, after)

    def _mapping_plan(self, node: Any, before: dict[str, Any], after: Any) -> tuple[dict[str, Any], dict[str, Any], list[str], list[str], dict[str, str]]:
        """(handle of each key, each new key's object, the new keys in order, the keys kept,
        {new key: the removed key whose place it takes}); Replace when the mapping is not
        spliced key by key."""
        pos = self.src.entries(node, before)
        new_keys = [str(k) for k in after]
        if len(set(new_keys)) != len(new_keys):
            raise Replace
        akeys = {str(k): k for k in after}
        kept = [k for k in new_keys if k in before]
        if kept != [k for k in before if k in akeys]:
            raise Replace  # keys reordered
        # a new key in the place of a removed one (document.replace_key: volumeClaimTemplate
        # for persistentVolumeClaim) rewrites that entry in place, a dash before it included
        swapped = layout.swapped_keys(list(before), new_keys, before, akeys)
        if swapped:
            pos = dict(pos)
            for new_key, old_key in swapped.items():
                pos[new_key] = pos[old_key]
        if not kept and not swapped:
            raise Replace  # nothing to anchor new keys to
        return pos, akeys, new_keys, kept, swapped

    def _insert_new_keys(self, node: Any, pos: dict[str, Any], akeys: dict[str, Any], new_keys: list[str], before: dict[str, Any], swapped: dict[str, str], after: Any) -> None:
        """Write each run of new keys after the kept key before it, or before the first kept
        key when none is."""
        src = self.src
        group: list[str] = []
        anchor: str | None = None
        for nk in [*new_keys, None]:
            if nk is not None and nk not in before and nk not in swapped:
                group.append(nk)
                continue
            if group:
                at = anchor if anchor is not None else nk
                assert at is not None  # a group ends at a kept key or after one
                line, col = src.start(node, pos[at])
                new = [x for g in group for x in self.emit.entry(akeys[g], after[akeys[g]], col)]
                if anchor is None:  # before the first kept key
                    self.insert_before(line, col, new)
                else:
                    self.insert_after(src.end(pos[at]), new)
                group = []
            anchor = nk

    def entry(self, node: Any, h: Any, key: Any, b: Any, a: Any) -> None:
        if self.plain(a) == b:
            return
        mark = len(self.edits)
        if self._descend(h, b, a):
            return
        del self.edits[mark:]
        line, col = self.src.start(node, h)
        self.replace(line, col, self.src.end(h), self.emit.entry(key, self.emit.restyled(b, a), col), h)

    def _descend(self, h: Any, b: Any, a: Any) -> bool:
        """Whether the edit of the entry `h` was spliced one level down (its block collection
        edited entry by entry); False when the entry is to be replaced whole."""
        kind, inner = self.src.inner(h)
        try:
            if kind == MAP and isinstance(a, dict) and isinstance(b, dict):
                self.mapping(inner, b, a)
                return True
            if kind == SEQ and isinstance(a, list) and isinstance(b, list):
                self.sequence(inner, b, a)
                return True
        except Replace:
            pass
        return False

    # --- sequences

    def sequence(self, node: Any, before: list[Any], after: list[Any]) -> None:
        src = self.src
        dash, items = src.items(node, len(before))
        align = src.align([h for _, h in items], after)
        if align is not None and align != [*range(len(before)), *[None] * (len(after) - len(before))]:
            self.aligned(items, dash, before, after, align)
            return
        plain = [self.plain(x) for x in after]
        if len(after) < len(before):
            j = 0
            gone = []
            for i, b in enumerate(before):
                if j < len(plain) and plain[j] == b:
                    j += 1
                else:
                    gone.append(i)
            if j != len(plain) or not plain:
                raise Replace
            for i in gone:
                line, h = items[i]
                self.remove(line, dash, src.end(h))
            return
        for i, b in enumerate(before):
            if plain[i] != b:
                self.item(items[i], dash, b, after[i])
        if len(after) > len(before):
            self.insert_after(src.end(items[-1][1]), self.emit.items(list(after[len(before) :]), dash))

    def aligned(self, items: list[tuple[int, Any]], dash: int, before: list[Any], after: list[Any], align: list[int | None]) -> None:
        """A list whose entries were removed, edited and added at once (a pinned term swapped
        for another): each old entry still in it is edited where it is, the others are cut,
        and new ones go after the old entry before them (or before the first old one)."""
        src = self.src
        matched = {i for i in align if i is not None}
        if not matched:
            raise Replace
        for k in range(len(items)):
            if k not in matched:
                line, h = items[k]
                self.remove(line, dash, src.end(h))
        for j, old in enumerate(align):
            if old is not None and self.plain(after[j]) != before[old]:
                self.item(items[old], dash, before[old], after[j])
        group: list[Any] = []
        prev: int | None = None
        for j in range(len(align) + 1):
            at = align[j] if j < len(align) else None
            if j < len(align) and at is None:
                group.append(after[j])
                continue
            if group:
                new = self.emit.items(group, dash)
                if prev is not None:
                    self.insert_after(src.end(items[prev][1]), new)
                else:
                    assert at is not None
                    self.insert_before(items[at][0], dash, new)
                group = []
            if at is not None:
                prev = at

    def item(self, item: tuple[int, Any], dash: int, b: Any, a: Any) -> None:
        line, h = item
        mark = len(self.edits)
        if self._descend(h, b, a):
            return
        del self.edits[mark:]
        self.replace(line, dash, self.src.end(h), self.emit.items([a], dash), h)
