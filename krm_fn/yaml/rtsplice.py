"""The round-trip path's splicing writer: an edited object written back as its own text with
only the changed entries replaced (issue 11: a changed object differs from its input only in
the lines the edit needs).

The round-trip loader gives data but no end positions, so the item's text is composed again
with libyaml (ruamel.yaml.clib), whose nodes carry start and end marks. The plain data as read
(`before`) and the edited tree (`after`) are compared entry by entry along that node tree:

- an entry whose data did not change keeps its text, comments and layout (a flow mapping
  with a complex key such as `{{GITHUB_URL}}`, `key: null`, block scalar indentation, a
  multi-line flow list, a long plain scalar);
- an edited block mapping or sequence is compared one level down;
- a new key or list entry is inserted after the last content line of the entry before it
  (comments that follow that entry stay after the new lines, where rtedit puts them on the
  whole-object path), a removed one is cut, and any other change replaces the entry's lines;
- new text is what ruamel's round-trip emitter writes for that entry alone, with no comments
  (the comments of the input stay in the text that is kept), shifted to the entry's column.

A replaced span that holds a comment would lose it: then, and in any layout this module does
not know (an edit placed by an aliased node, merge keys...), it raises errors.Unsure
and the caller writes the whole object with the emitter instead. The spliced text is read back
and must be the edited data, keys in order.
"""
from __future__ import annotations

import bisect

from krm_fn.core.errors import Unsure
from krm_fn.yaml import guards
from krm_fn.yaml import yamlio
from krm_fn.yaml import yamltext

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class _Replace(Exception):
    """An edit this level cannot splice: the entry that holds it is replaced whole."""


def splice(chunk: str, before: Any, after: Any, indent: tuple[int, int, int]) -> str:
    """The item text `chunk` (one `- ` entry) with `after`'s changes over `before` (the plain
    data `chunk` was read as) spliced in; Unsure when this writer is not sure of it. The
    arguments in litesplice.render_item's order: what was read, then what is to be written."""
    lines = yamltext.split_lines(chunk, keepends=False)
    doc_text, cut = yamltext.item_document(chunk)
    root = _compose(doc_text)
    w = _Writer(lines, yamltext.split_lines(doc_text, keepends=False), cut, indent)
    w.shared = _shared(root)
    if not _is_block(root, "MappingNode") or not isinstance(after, dict):
        raise Unsure("not a block mapping")
    try:
        w.mapping(root, before, after)
    except _Replace:
        raise Unsure("the whole object changed") from None
    out = w.apply()
    k = yamltext.dash_index(lines)
    out = _head_after_dash(out, k, cut)
    text = "\n".join(out) + "\n"
    got, _ = yamltext.item_document(text)
    try:
        back = yamlio.verify_load(got)
    except Exception:  # noqa: BLE001 - e.g. a complex key (safe loader) and a tab (round trip)
        try:
            back = guards.load_guarded(got, "the object", limits=False)
        except Exception:  # noqa: BLE001 - unreadable output is what this check guards
            raise Unsure("spliced text unreadable") from None
    if _ordered(yamlio.to_plain(back)) != _ordered(yamlio.to_plain(after)):
        raise Unsure("read-back differs")
    return text


def _head_after_dash(out: list[str], k: int, cut: int) -> list[str]:
    """Comments before the dash go after it (`- # comment`), as the light writer and
    yamltext.indent_entry put them (yamltext.head_after_dash)."""
    if k >= len(out):
        return out  # no dash line to put them after
    dash = out[k]
    d = yamltext.indent_of(dash)
    head = yamltext.head_after_dash(out[:k], d, cut)
    if head is None:
        return out
    rest = dash[d + 1 :].lstrip(" ")
    if not rest or rest.startswith("#"):  # `-` or `- # comment`, the keys below
        return head + ([" " * cut + rest] if rest else []) + out[k + 1 :]
    if dash[d + 1 : cut].strip() or len(dash) <= cut:
        raise Unsure("head comments before an odd dash line")
    return head + [" " * cut + dash[cut:]] + out[k + 1 :]


def _ordered(v: Any) -> Any:
    if isinstance(v, dict):
        return [(k, _ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [_ordered(x) for x in v]
    return v


def _compose(text: str) -> Any:
    """The item's node graph, with start and end marks, from libyaml: ruamel.yaml.clib's, or
    when that refuses the text, PyYAML's. ruamel.yaml.clib bundles an older libyaml that
    refuses a colon inside a plain scalar in a flow collection (`{url: https://h:8443/x}`),
    which the round-trip loader and libyaml 0.2.5 read; the splice is read back either way."""
    try:
        from ruamel.yaml.cyaml import CBaseLoader
    except ImportError:  # no libyaml: no end marks
        raise Unsure("no libyaml") from None
    node = _composed(CBaseLoader, text)
    if node is _REFUSED:
        import yaml

        other = getattr(yaml, "CBaseLoader", None)
        node = _composed(other, text) if other is not None else _REFUSED
    if node is _REFUSED:
        raise Unsure("libyaml does not read the item")
    return node


_REFUSED = object()


def _composed(loader_class: Any, text: str) -> Any:
    """The single node a libyaml loader composes of `text`, or _REFUSED."""
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    except Exception:  # noqa: BLE001 - libyaml refuses what the round-trip loader took
        return _REFUSED
    finally:
        loader.dispose()


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


def _is_block(node: Any, kind: str) -> bool:
    return type(node).__name__ == kind and not node.flow_style


class _Writer:
    def __init__(self, lines: list[str], doc: list[str], cut: int, indent: tuple[int, int, int]) -> None:
        self.lines = lines  # the item's lines
        self.doc = doc  # the same lines as composed (dash and item indentation removed)
        self.cut = cut  # column in `lines` = column in `doc` + cut
        self.indent = indent
        self.edits: list[tuple[int, int, list[str]]] = []
        self.shared: set[int] = set()

    def _own(self, node: Any) -> None:
        if id(node) in self.shared:
            raise Unsure("an edit next to an alias")

    # --- edits

    def apply(self) -> list[str]:
        return yamltext.splice_lines(self.lines, self.edits)

    def _prefix_blank(self, line: int, col: int) -> bool:
        return not self.lines[line][: col + self.cut].strip()

    def _comments(self, node: Any, first: int, last: int, key: Any = None) -> list[tuple[int, int]]:
        """(line, column) of each comment on lines first..last: a `#` outside the scalars of
        `node` (and its key)."""
        masks: dict[int, list[tuple[int, int]]] = {}
        stack = [node] if key is None else [key, node]
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
                    found.append((li, at))
                    break
                at = text.find("#", spans[k][1])
        return found

    def replace(
        self, first: int, col: int, last: int, new: list[str], node: Any, key: Any = None, drop_comments: bool = False
    ) -> None:
        """Lines first..last become `new`; the first line keeps what precedes column `col`
        (a sequence dash). An end-of-line comment of a one-line entry that stays one line
        stays on it; any other comment in the span would be lost: Unsure (`drop_comments`:
        the entry is removed, and its comments with it, as on the whole-object path)."""
        tail = ""
        found = [] if drop_comments else self._comments(node, first, last, key)
        if found:
            if len(found) > 1 or first != last or len(new) != 1:
                raise Unsure("a comment in a replaced entry")
            line = self.doc[first]
            hash_at = found[0][1]
            tail = line[len(line[:hash_at].rstrip(" ")) :]
        c = col + self.cut
        new = [self.lines[first][:c] + new[0][c:] + tail] + new[1:]
        self.edits.append((first, last + 1, new))

    def insert_after(self, last: int, new: list[str]) -> None:
        self.edits.append((last + 1, last + 1, new))

    def insert_before(self, first: int, col: int, new: list[str]) -> None:
        """New lines before the line of a first key at `col`: a dash before it moves up."""
        c = col + self.cut
        old = self.lines[first]
        if not old[:c].strip():
            self.edits.append((first, first, new))
            return
        self.edits.append((first, first + 1, [old[:c] + new[0][c:], *new[1:], " " * c + old[c:]]))

    def remove(self, first: int, col: int, last: int) -> None:
        if not self._prefix_blank(first, col):
            raise _Replace  # the line also holds the sequence dash
        self.edits.append((first, last + 1, []))

    # --- positions

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

    def entry_end(self, key: Any, value: Any) -> int:
        if type(value).__name__ == "ScalarNode" and value.value == "" and value.start_mark.index == value.end_mark.index:
            return key.end_mark.line  # `key:` with nothing after it: the mark is on the next token
        return max(key.end_mark.line, self.end_line(value))

    # --- emission

    def _dump(self, m: Any) -> list[str]:
        text = yamlio.rt_dump(m, *self.indent)
        return [x for x in text.split("\n")[:-1] if x != "..."]

    def entry_lines(self, key: Any, value: Any, col: int) -> list[str]:
        from ruamel.yaml.comments import CommentedMap

        m = CommentedMap()
        m[key] = _bare(value)
        pad = " " * (col + self.cut)
        return [pad + x if x else x for x in self._dump(m)]

    def item_lines(self, values: list[Any], dash: int) -> list[str]:
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.comments import CommentedSeq

        seq = CommentedSeq()
        for v in values:
            seq.append(_bare(v))
        m = CommentedMap()
        m["x"] = seq
        got = self._dump(m)[1:]
        o = self.indent[2]
        shift = dash + self.cut - o
        if shift >= 0:
            return [" " * shift + x if x else x for x in got]
        if any(x[:-shift].strip() for x in got):
            raise Unsure("sequence column")
        return [x[-shift:] for x in got]

    # --- diff

    def mapping(self, node: Any, before: dict[str, Any], after: Any) -> None:
        pos, akeys, new_keys, kept, swapped = self._mapping_plan(node, before, after)
        gone = [k for k in before if k not in akeys and k not in swapped.values()]
        if any(not self._prefix_blank(pos[k][0].start_mark.line, pos[k][0].start_mark.column) for k in gone):
            raise _Replace  # a removed key on the line of the sequence dash
        for k in kept:  # inner edits first: at a shared line, they go before this level's
            self.entry(pos[k], akeys[k], before[k], after[akeys[k]])
        for sk in swapped:
            kn, vn = pos[sk]
            col = kn.start_mark.column
            new = self.entry_lines(akeys[sk], after[akeys[sk]], col)
            self.replace(kn.start_mark.line, col, self.entry_end(kn, vn), new, vn, kn, drop_comments=True)
        for k in gone:
            kn, vn = pos[k]
            self.remove(kn.start_mark.line, kn.start_mark.column, self.entry_end(kn, vn))
        self._insert_new_keys(pos, akeys, new_keys, before, swapped, after)

    def _mapping_plan(self, node: Any, before: dict[str, Any], after: Any) -> tuple[dict[str, Any], dict[str, Any], list[str], list[str], dict[str, str]]:
        """(node pair of each key, each new key's object, the new keys in order, the keys
        kept, {new key: the removed key whose place it takes}); _Replace when the mapping
        is not spliced key by key."""
        self._own(node)
        pairs = node.value
        old = list(before)
        if len(pairs) != len(old):
            raise Unsure("merge keys or duplicates")
        new_keys = [str(k) for k in after]
        if any(type(k).__name__ != "ScalarNode" for k, _ in pairs):
            raise _Replace  # complex keys: not spliced one by one
        if len(set(new_keys)) != len(new_keys):
            raise _Replace
        pos = {k: pairs[i] for i, k in enumerate(old)}
        akeys = {str(k): k for k in after}
        kept = [k for k in new_keys if k in before]
        if kept != [k for k in old if k in akeys]:
            raise _Replace  # keys reordered
        # a new key in the place of a removed one (document.replace_key: volumeClaimTemplate
        # for persistentVolumeClaim) rewrites that entry in place, a dash before it included
        swapped = yamltext.swapped_keys(old, new_keys, before, akeys)
        for new_key, old_key in swapped.items():
            pos[new_key] = pos[old_key]
        if not kept and not swapped:
            raise _Replace  # nothing to anchor new keys to
        return pos, akeys, new_keys, kept, swapped

    def _insert_new_keys(self, pos: dict[str, Any], akeys: dict[str, Any], new_keys: list[str], before: dict[str, Any], swapped: dict[str, str], after: Any) -> None:
        """Write each run of new keys after the kept key before it, or before the first kept
        key when none is."""
        group: list[str] = []
        anchor: str | None = None
        for nk in [*new_keys, None]:
            if nk is not None and nk not in before and nk not in swapped:
                group.append(nk)
                continue
            if group:
                at = anchor if anchor is not None else nk
                assert at is not None  # a group ends at a kept key or after one
                kn, vn = pos[at]
                col = kn.start_mark.column
                new = [x for g in group for x in self.entry_lines(akeys[g], after[akeys[g]], col)]
                if anchor is None:  # before the first kept key
                    self.insert_before(kn.start_mark.line, col, new)
                else:
                    self.insert_after(self.entry_end(kn, vn), new)
                group = []
            anchor = nk

    def entry(self, pair: tuple[Any, Any], key: Any, b: Any, a: Any) -> None:
        kn, vn = pair
        if yamlio.to_plain(a) == b:
            return
        mark = len(self.edits)
        try:
            if isinstance(a, dict) and isinstance(b, dict) and _is_block(vn, "MappingNode"):
                self.mapping(vn, b, a)
                return
            if isinstance(a, list) and isinstance(b, list) and _is_block(vn, "SequenceNode"):
                self.sequence(vn, b, a)
                return
        except _Replace:
            del self.edits[mark:]
        col = kn.start_mark.column
        self.replace(kn.start_mark.line, col, self.entry_end(kn, vn), self.entry_lines(key, a, col), vn, kn)

    def sequence(self, node: Any, before: list[Any], after: list[Any]) -> None:
        self._own(node)
        items = node.value
        for it in items:
            self._own(it)
        if len(items) != len(before) or not items:
            raise _Replace
        dash = node.start_mark.column
        floor = node.start_mark.line
        dashes = []  # the line of each entry's dash (its content may start below it)
        for it in items:
            s = it.start_mark
            li = s.line if s.column > dash else s.line - 1
            while li >= floor and not (self.doc[li][dash : dash + 1] == "-" and not self.doc[li][:dash].strip()):
                li -= 1
            if li < floor:
                raise _Replace
            dashes.append(li)
            floor = self.end_line(it) + 1
        align = _align(items, after)
        if align is not None and align != [*range(len(before)), *[None] * (len(after) - len(before))]:
            self.aligned(items, dashes, dash, before, after, align)
            return
        plain = [yamlio.to_plain(x) for x in after]
        if len(after) < len(before):
            j = 0
            gone = []
            for i, b in enumerate(before):
                if j < len(plain) and plain[j] == b:
                    j += 1
                else:
                    gone.append(i)
            if j != len(plain) or not plain:
                raise _Replace
            for i in gone:
                self.remove(dashes[i], dash, self.end_line(items[i]))
            return
        for i, b in enumerate(before):
            if plain[i] != b:
                self.item(items[i], dashes[i], dash, b, after[i])
        if len(after) > len(before):
            self.insert_after(self.end_line(items[-1]), self.item_lines(list(after[len(before) :]), dash))

    def aligned(
        self, items: list[Any], dashes: list[int], dash: int, before: list[Any], after: list[Any], align: list[int | None]
    ) -> None:
        """A list whose entries were removed, edited and added at once (a pinned term swapped
        for another): each old entry still in it is edited where it is, the others are cut,
        and new ones go after the old entry before them (or before the first old one)."""
        matched = {i for i in align if i is not None}
        if not matched:
            raise _Replace
        for k in range(len(items)):
            if k not in matched:
                self.remove(dashes[k], dash, self.end_line(items[k]))
        for j, old in enumerate(align):
            if old is not None and yamlio.to_plain(after[j]) != before[old]:
                self.item(items[old], dashes[old], dash, before[old], after[j])
        group: list[Any] = []
        prev: int | None = None
        for j in range(len(align) + 1):
            at = align[j] if j < len(align) else None
            if j < len(align) and at is None:
                group.append(after[j])
                continue
            if group:
                new = self.item_lines(group, dash)
                if prev is not None:
                    self.insert_after(self.end_line(items[prev]), new)
                else:
                    assert at is not None
                    self.insert_before(dashes[at], dash, new)
                group = []
            if at is not None:
                prev = at

    def item(self, node: Any, line: int, dash: int, b: Any, a: Any) -> None:
        mark = len(self.edits)
        try:
            if isinstance(a, dict) and isinstance(b, dict) and _is_block(node, "MappingNode"):
                self.mapping(node, b, a)
                return
            if isinstance(a, list) and isinstance(b, list) and _is_block(node, "SequenceNode"):
                self.sequence(node, b, a)
                return
        except _Replace:
            del self.edits[mark:]
        self.replace(line, dash, self.end_line(node), self.item_lines([a], dash), node)


def _align(items: list[Any], after: list[Any]) -> list[int | None] | None:
    """For each entry of the edited list, the index of the entry of the input it is (the
    round-trip loader's line and column of a collection are those libyaml gives its node), or
    None for a new one; None when that is not known (a scalar entry, an order changed)."""
    starts = {(it.start_mark.line, it.start_mark.column): i for i, it in enumerate(items)}
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


def _bare(v: Any) -> Any:
    """A copy of a round-trip subtree without its comments (they stay in the kept text), with
    its styles (flow, quotes, block scalars) and tags."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq

    if isinstance(v, (CommentedMap, CommentedSeq)):
        if v.anchor.value is not None:
            raise Unsure("anchor")
        n: Any = type(v)()
        if v.fa.flow_style():
            n.fa.set_flow_style()
        tag = getattr(v, "tag", None)
        if tag is not None and getattr(tag, "value", None):
            n.yaml_set_ctag(tag)
        if isinstance(v, CommentedMap):
            for k, x in v.items():
                n[k] = _bare(x)
        else:
            for x in v:
                n.append(_bare(x))
        return n
    if isinstance(v, dict):
        return {k: _bare(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_bare(x) for x in v]
    if getattr(v, "comment", None) is not None:
        if getattr(getattr(v, "anchor", None), "value", None) is not None:
            raise Unsure("anchor")
        return type(v)(str(v))
    return v
