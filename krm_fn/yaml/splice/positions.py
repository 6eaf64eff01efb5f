"""Where each node of an item's text is, for the splicing writer (`splicer`): two sources of
the same small interface, over the lines the writer splices (the item's lines, each column
as it is there).

- `LitePositions`: the light reader's own positions (parser.Doc: each entry's first and last
  line, its end-of-line comment, the lines that start with `#`), nothing read again;
- `NodePositions`: libyaml's composed nodes with their start and end marks, for an item that
  only the round-trip loader reads (anchors, tags, complex keys...).

A mapping node gives its entries by key (`entries`), a sequence node its entries with the
line of each dash (`items`); an entry handle gives its first line and column (`start`), its
last content line (`end`), the block collection it holds (`inner`), the comments on its
lines (`comments`). `align` tells which entry of the input each entry of an edited list is.
"""
from __future__ import annotations

try:  # the C module that `bisect` wraps, the same functions: 0.5 M instructions less a start (issue 34)
    import _bisect as bisect
except ImportError:  # pragma: no cover - an interpreter without it
    import bisect  # type: ignore[no-redef]

from krm_fn.core.errors import Unsure

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.yaml.light.parser import Doc

MAP = 1  # inner(): a block mapping
SEQ = 2  # inner(): a block sequence


class Replace(Exception):
    """An edit this level cannot splice: the entry that holds it is replaced whole."""


class LitePositions:
    """The light reader's positions. A handle is a parser.Entry; `off`: the line of the
    writer's lines where the reader's first line is."""

    def __init__(self, doc: Doc, off: int) -> None:
        self.doc = doc
        self.off = off
        self._starts: list[int] | None = None

    def entries(self, node: Any, before: dict[str, Any]) -> dict[str, Any]:
        return node.entries

    def start(self, node: Any, h: Any) -> tuple[int, int]:
        return h.line + self.off, node.indent

    def end(self, h: Any) -> int:
        return h.last + self.off

    def inner(self, h: Any) -> tuple[int, Any]:
        v = h.value
        if v is None or v.flow:
            return 0, None
        if self.doc.lines[h.line].endswith((" !!seq", " !!map")):
            # an edit in a collection tagged as what it is: the round-trip path splices inside
            # it or replaces its entry whole (then without the tag), as its own alignment of
            # the entries allows; the light path steps aside rather than guess which (the
            # differential property found it splicing where the round trip replaced)
            raise Unsure("an edit in a tagged collection")
        return (SEQ if v.__class__.__name__ == "SeqPos" else MAP), v

    def items(self, node: Any, n: int) -> tuple[int, list[tuple[int, Any]]]:
        off = self.off
        return node.dash, [(e.line + off, e) for e in node.items]

    def align(self, handles: list[Any], after: list[Any]) -> list[int | None] | None:
        """Each entry of the edited list as the index of the input's entry it is (the same
        collection: the light reader's data is edited in place), or None for a new one;
        None when that is not known (a scalar entry, an order changed)."""
        at = {id(h.node): i for i, h in enumerate(handles) if h.node is not None}
        out: list[int | None] = []
        last = -1
        for a in after:
            if not isinstance(a, (dict, list)):
                return None
            i = at.get(id(a))
            if i is not None:
                if i <= last:
                    return None
                last = i
            out.append(i)
        return out

    def comments(self, h: Any, first: int, last: int) -> list[tuple[int, int]]:
        """(line, column) of each comment on lines first..last: the end-of-line comments of
        the entries there, and the lines that start with `#` but for those inside a scalar
        over several lines (a block scalar's text)."""
        off = self.off
        a, b = first - off, last - off
        order = self.doc.order
        starts = self._starts
        if starts is None:
            starts = self._starts = [e.line for e in order]
        found: list[tuple[int, int]] = []
        inside: list[tuple[int, int]] = []
        for e in order[bisect.bisect_left(starts, a) : bisect.bisect_right(starts, b)]:
            if e.comment:
                found.append((e.line + off if e.comment > 1 else e.last + off, e.comment))
            if e.last > e.line and (e.value is None or e.value.flow):
                inside.append((e.line, e.last))
        notes = self.doc.notes
        for j in notes[bisect.bisect_left(notes, a) : bisect.bisect_right(notes, b)]:
            if not any(x < j <= y for x, y in inside):
                line = self.doc.lines[j]
                found.append((j + off, len(line) - len(line.lstrip(" "))))
        return found


class NodePositions:
    """libyaml's composed nodes of the item's text as a document (layout.item_document:
    line for line, `cut` columns less). A mapping entry's handle is (key node, value node),
    a sequence entry's (None, node)."""

    def __init__(self, doc: list[str], cut: int, root: Any) -> None:
        self.doc = doc  # the item's lines as composed
        self.cut = cut  # column in the writer's lines = column in `doc` + cut
        self.shared = _shared(root)

    def _own(self, node: Any) -> None:
        if id(node) in self.shared:
            raise Unsure("an edit next to an alias")

    def entries(self, node: Any, before: dict[str, Any]) -> dict[str, Any]:
        self._own(node)
        pairs = node.value
        if len(pairs) != len(before):
            raise Unsure("merge keys or duplicates")
        if any(type(k).__name__ != "ScalarNode" for k, _ in pairs):
            raise Replace  # complex keys: not spliced one by one
        return {k: pairs[i] for i, k in enumerate(before)}

    def start(self, node: Any, h: Any) -> tuple[int, int]:
        s = h[0].start_mark
        return s.line, s.column + self.cut

    def end(self, h: Any) -> int:
        kn, vn = h
        if kn is None:
            return self.end_line(vn)
        if type(vn).__name__ == "ScalarNode" and vn.value == "" and vn.start_mark.index == vn.end_mark.index:
            return kn.end_mark.line  # `key:` with nothing after it: the mark is on the next token
        return max(kn.end_mark.line, self.end_line(vn))

    def inner(self, h: Any) -> tuple[int, Any]:
        vn = h[1]
        if _is_block(vn, "MappingNode"):
            return MAP, vn
        if _is_block(vn, "SequenceNode"):
            return SEQ, vn
        return 0, None

    def end_line(self, node: Any) -> int:
        """The last line of a node's own text (comments and blank lines after it excluded)."""
        self._own(node)
        kind = type(node).__name__
        if kind == "MappingNode" and not node.flow_style:
            return self.end_line(node.value[-1][1]) if node.value else node.end_mark.line
        if kind == "SequenceNode" and not node.flow_style:
            return self.end_line(node.value[-1]) if node.value else node.end_mark.line
        e = node.end_mark
        last = e.line - 1 if e.column == 0 and e.line > node.start_mark.line else e.line
        if kind == "ScalarNode" and node.style in ("|", ">"):
            header = self.doc[node.start_mark.line][node.start_mark.column :].split(" ")[0]
            if "+" not in header:
                while last > node.start_mark.line and not self.doc[last].strip():
                    last -= 1
        return min(last, len(self.doc) - 1)

    def items(self, node: Any, n: int) -> tuple[int, list[tuple[int, Any]]]:
        """The column of the dashes, and each entry's dash line (its content may start below
        it) and handle. `n`: how many entries the data as read has."""
        self._own(node)
        items = node.value
        for it in items:
            self._own(it)
        if len(items) != n or not items:
            raise Replace
        dash = node.start_mark.column
        floor = node.start_mark.line
        out = []
        for it in items:
            s = it.start_mark
            li = s.line if s.column > dash else s.line - 1
            while li >= floor and not (self.doc[li][dash : dash + 1] == "-" and not self.doc[li][:dash].strip()):
                li -= 1
            if li < floor:
                raise Replace
            out.append((li, (None, it)))
            floor = self.end_line(it) + 1
        return dash + self.cut, out

    def align(self, handles: list[Any], after: list[Any]) -> list[int | None] | None:
        """Each entry of the edited list as the index of the input's entry it is (the
        round-trip loader's line and column of a collection are those libyaml gives its
        node), or None for a new one; None when that is not known (a scalar entry, an order
        changed)."""
        starts = {(h[1].start_mark.line, h[1].start_mark.column): i for i, h in enumerate(handles)}
        out: list[int | None] = []
        last = -1
        for a in after:
            if not isinstance(a, (dict, list)):
                return None
            lc = getattr(a, "lc", None)
            line = getattr(lc, "line", None)
            if line is None:
                out.append(None)
                continue
            i = starts.get((line, getattr(lc, "col", None)))
            if i is None or i <= last:
                return None
            out.append(i)
            last = i
        return out

    def comments(self, h: Any, first: int, last: int) -> list[tuple[int, int]]:
        """(line, column) of each comment on lines first..last: a `#` outside the scalars of
        the entry (its key and value)."""
        masks: dict[int, list[tuple[int, int]]] = {}
        stack = [x for x in h if x is not None]
        while stack:
            n = stack.pop()
            kind = type(n).__name__
            if kind == "ScalarNode":
                s, e = n.start_mark, n.end_mark
                for li in range(s.line, e.line + 1):
                    a = s.column if li == s.line else 0
                    b = e.column if li == e.line else 1 << 30
                    masks.setdefault(li, []).append((a, b))
            elif kind == "MappingNode":
                for k, v in n.value:
                    stack.extend((k, v))
            else:
                stack.extend(n.value)
        found = []
        for li in range(first, last + 1):
            text = self.doc[li]
            at = text.find("#")
            if at < 0:
                continue
            spans = sorted(masks.get(li, ()))
            starts = [a for a, _ in spans]
            while at >= 0:
                k = bisect.bisect_right(starts, at) - 1
                if k < 0 or at >= spans[k][1]:  # not inside a scalar: a comment
                    found.append((li, at + self.cut))
                    break
                at = text.find("#", spans[k][1])
        return found


def _shared(root: Any) -> set[int]:
    """The nodes an alias gives a second time: their marks are those of the anchored text,
    wherever they are met, so the writer never places anything by them."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            shared.add(id(n))
            continue
        seen.add(id(n))
        kind = type(n).__name__
        if kind == "MappingNode":
            for k, v in n.value:
                stack.extend((k, v))
        elif kind == "SequenceNode":
            stack.extend(n.value)
    return shared


def is_block_mapping(node: Any) -> bool:
    return _is_block(node, "MappingNode")


def _is_block(node: Any, kind: str) -> bool:
    return type(node).__name__ == kind and not node.flow_style
