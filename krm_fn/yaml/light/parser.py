"""A strict reader for the plain block YAML that CI manifests are made of (its splicing writer
is `splice/splicer`), so a small run never imports, let alone runs, the comment-preserving
round-trip loader.

The round-trip loader (ruamel) costs about 20 ms to import and 20 to 40 ms to read and write
one PipelineRun: most of a one-object run. This module reads an item whose text is in the
form ruamel itself writes (each mapping indented as its first key, one space after `- ` and
`: `, canonical scalars, keys plain or quoted, no anchors or tags) into plain data,
and writes an edited item back by splicing only the changed lines into its original text,
in the layout ruamel would give them. Everything else in the item stays the exact input text,
which is what ruamel writes back for such text too.

Anything it is not sure about raises errors.Unsure, and the caller reads that item again on
the round-trip path (document.LightDocument, process). So this module never decides output on its own: it either gives the bytes
the round-trip path gives (tests/unit/yaml/light/test_parser.py compares both on every fixture) or steps aside.
"""
from __future__ import annotations

from krm_fn.core.data import Memo
from krm_fn.core.errors import Unsure
from krm_fn.yaml import layout
from krm_fn.yaml.light import multiline
from krm_fn.yaml.light.scalars import NOT_PLAIN
from krm_fn.yaml.light.scalars import NUMBERISH
from krm_fn.yaml.light.scalars import PLAIN_KEYS
from krm_fn.yaml.light.scalars import closing_quote
from krm_fn.yaml.light.scalars import comment_after
from krm_fn.yaml.light.scalars import flow_collection
from krm_fn.yaml.light.scalars import folded
from krm_fn.yaml.light.scalars import key_end
from krm_fn.yaml.light.scalars import open_brackets
from krm_fn.yaml.light.scalars import plain_key
from krm_fn.yaml.light.scalars import plain_value
from krm_fn.yaml.light.scalars import quoted
from krm_fn.yaml.light.scalars import quoted_key
from krm_fn.yaml.light.scalars import tagged_str

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


_NOT_PLAIN_VALUE = NOT_PLAIN | {" ", "#", "!"}
_NOT_CONTINUATION = frozenset("#-?:,[]{}&*!|>'\"%@`")  # first characters of a continuation line taken


# --------------------------------------------------------------------------- positions


class MapPos:
    __slots__ = ("indent", "entries", "flow")

    def __init__(self, indent: int) -> None:
        self.indent = indent
        self.entries: dict[str, Entry] = {}
        self.flow = False


class SeqPos:
    __slots__ = ("dash", "items", "flow")

    def __init__(self, dash: int) -> None:
        self.dash = dash
        self.items: list[Entry] = []
        self.flow = False


class Entry:
    """One mapping entry or sequence item: its first line, its last content line, whether
    its value is on the first line (and where), and the value's own positions."""

    __slots__ = ("line", "last", "comment", "value", "node")

    def __init__(self, line: int) -> None:
        self.line = line
        self.last = line
        # the column of the end-of-line comment of its first line (0: none; 1: one on a later
        # line of the entry, a multi-line scalar's; a comment's own column is never below 2)
        self.comment = 0
        self.value: MapPos | SeqPos | None = None  # block collection or flow `{}`/`[...]`
        self.node: Any = None  # the loaded collection (to tell edits in place from new ones)


# --------------------------------------------------------------------------- reader


class Doc:
    """An item read by this module: its lines and positions, for the splicing writer."""

    __slots__ = ("lines", "root", "m", "o", "head", "first_inline", "order", "notes", "flows")

    def __init__(self, lines: list[str], m: int, o: int) -> None:
        self.lines = lines
        self.root: MapPos | None = None
        self.order: list[Entry] = []  # every position, in reading order (the same for the same text)
        self.m = m
        self.o = o
        self.head: list[str] = []  # item text before the body (the dash line of `- # c`)
        self.first_inline = ""  # the dash line when the first key sits on it
        self.notes: list[int] = []  # the lines that start with `#` (comments, or a block scalar's text)
        self.flows: list[Entry] = []  # the entries whose value is a flow collection


# Deepest indentation the reader takes. Every level of nesting it reads is at least one column
# deeper (a sequence's entries are mappings or scalars, flow collections hold scalars), so
# this bounds the depth of what it builds, and of its own recursion, well under guards'
# MAX_DEPTH: a deeper object goes to the round-trip path, which names the deepest field.
MAX_INDENT = 120


class Reader:
    def __init__(self, lines: list[str], m: int, o: int, left: int = 0, deepest: int = MAX_INDENT, bare: bool = False) -> None:
        self.raw = lines  # as written: a block scalar's lines are its text (literal())
        # a line that ends in a space, asked of the lines joined (in C: a generator over
        # every line was ~4% of a run's reading); the lines hold no newline. `bare`: the
        # caller knows none does (dataread.load_document)
        joined = "" if bare else "\n".join(lines)
        if " \n" in joined or joined[-1:] == " ":
            # blanks at the end of a line are no part of a key, of a scalar on one line, of a
            # comment or of a blank line: read without them (the writer keeps such a line as
            # it is, or replaces it whole)
            lines = [x.rstrip(" ") for x in lines]
        self.lines = lines
        self.m = m
        self.o = o
        n = self.n = len(lines)
        self.i = 0
        self.last_line = -1
        self.order: list[Entry] = []  # every Entry made, in reading order
        self.notes: list[int] = []  # the lines that start with `#`, in order
        self.flows: list[Entry] = []  # the entries whose value is a flow collection
        # Each line's indentation (a content line's remembered by its text: lines repeat
        # across objects, and a strip of each was ~5% of a first render), and for each line
        # the first content line at or after it (nxt[n] = n). A blank or comment line that
        # ends in a blank other than a space (a tab) is refused, wherever it sits (a block
        # scalar refuses them on its own lines too), and so is a comment left of `left`.
        # (-1 for a line not remembered: an int compares with ints at half the cost of None)
        ind: list[Any] = [*map(_INDENTS.get, lines, [-1] * n), -1]  # the last: where index() stops
        if ind.count(-1) * 2 > n:  # mostly lines not seen before (a first object): all measured
            stripped = [x.lstrip(" ") for x in lines]
            ind = [len(x) - len(t) for x, t in zip(lines, stripped, strict=True)]
            blank = [j for j, t in enumerate(stripped) if not t or t[0] == "#"]
            _remember_indents(lines, ind, blank)
        else:
            blank = []  # blank and comment lines (few)
            j = -1
            while (j := ind.index(-1, j + 1)) < n:
                x = lines[j]
                t = x.lstrip(" ")
                ind[j] = len(x) - len(t)
                if t and t[0] != "#":
                    _INDENTS.keep(x, ind[j])
                else:
                    blank.append(j)
            ind.pop()
        self.ind = ind
        if ind and max(ind) > deepest:  # (deepest: MAX_INDENT, less a document's shift: dataread)
            raise Unsure("nested too deep for the light reader")
        nxt = list(range(n + 1))
        for j in reversed(blank):  # the next content line is the one after it's
            if lines[j][-1:].isspace():
                raise Unsure("trailing blanks")
            if ind[j] < len(lines[j]):  # a comment
                if ind[j] < left:
                    raise Unsure("comment left of the item")
                self.notes.append(j)
            nxt[j] = nxt[j + 1]
        self.notes.reverse()
        self.nxt = nxt

    def skip(self) -> None:
        """Past blank and comment lines."""
        self.i = self.nxt[self.i]

    def indent(self) -> int:
        return self.ind[self.i]

    def mapping(self, indent: int, first: tuple[int, Any] | None = None) -> tuple[dict[str, Any], MapPos]:
        """A block mapping whose keys sit at `indent`. `first`: (line, _key_line of it) of a
        first key that sits after a sequence dash."""
        data: dict[str, Any] = {}
        pos = MapPos(indent)
        entries = pos.entries
        lines, ind, nxt, n = self.lines, self.ind, self.nxt, self.n
        order = self.order
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
                # what a line says, its key at its own indentation, depends on its text
                # alone: read once per distinct line (most lines repeat across objects)
                said = _LINES.get(line)
                if said is None:
                    said = _key_line(line, col)
                    if said is None:
                        break  # an indentless sequence of the key before ends here
                    _LINES.keep(line, said)
            key, at, kind, v, comment = said
            if key in data:
                raise Unsure("key")
            e = entries[key] = Entry(li)
            order.append(e)
            self.last_line = li
            if kind == 1:
                # `key: plain scalar`, most lines: value(), inline() and after_inline() in one
                data[key] = v
                e.comment = comment
                li = self.i = nxt[li + 1]
                if li < n and ind[li] > indent:
                    data[key] = self.continued(e, v, indent)
                continue
            self.i = li + 1
            v = data[key] = self.below(e, indent) if kind == 2 else self.value(e, line, at, indent)
            if v.__class__ is dict or v.__class__ is list:
                e.node = v
        return data, pos

    def value(self, e: Entry, line: str, at: int, indent: int) -> Any:
        """The value after `key:` or `- ` at `at` on `line`: inline, or on the lines below."""
        rest = line[at:]
        if rest:
            if rest[-1].isspace() and not rest.lstrip().startswith("#"):
                raise Unsure("trailing blanks")
            if rest[0] == " " and rest[1:2] != "#":
                if rest[1:2] == " ":
                    if rest.lstrip(" ")[:1] == "#":  # `spec:   # comment`
                        e.comment = line.index("#", at)
                        return self.below(e, indent)
                    raise Unsure("two spaces")
                if rest == " !!map" or rest == " !!seq":
                    # a block collection tagged as what it is (the tag stays in the key's line,
                    # which the writer rewrites only with the whole entry, as the splicing writer does)
                    v = self.below(e, indent)
                    if v.__class__ is not (dict if rest == " !!map" else list) or not v:
                        raise Unsure("tagged collection")
                    return v
                v = self.inline(e, line, at + 1, indent)
                self.after_inline(indent)
                return v
            if not rest.startswith(" #"):
                raise Unsure("value")
            e.comment = at + 1
        return self.below(e, indent)

    def below(self, e: Entry, indent: int) -> Any:
        """The value of a `key:` (or `- `) with nothing else on its line: on the lines below
        (self.i: the next line), or null."""
        i = self.i = self.nxt[self.i]
        if i < self.n:
            ind = self.ind[i]
            s = self.lines[i]
            if s.startswith("-", ind) and (len(s) == ind + 1 or s[ind + 1] == " "):
                # the document's sequence offset, or either of the two people mix in one
                # file (`- ` at the key's column, as kubectl writes, or two further in)
                if ind == indent + self.o or ind == indent or ind == indent + 2:
                    v, p = self.sequence(ind)
                    e.value = p
                    e.last = self.last_line
                    return v
                if ind >= indent:
                    raise Unsure("sequence indentation")
            elif ind > indent:
                # any deeper column: people paste a spec indented by four under metadata
                # indented by two (each mapping's keys sit where its own first key does)
                m, p2 = self.mapping(ind)
                e.value = p2
                e.last = self.last_line
                return m
        return None

    def continued(self, e: Entry, first: Any, indent: int) -> str:
        """A plain scalar that goes on over the lines below its key's, indented deeper (a
        description wrapped by hand), folded as YAML folds it: a line break between two
        lines is a space, each empty line between them a newline, and the blanks around
        each line go. `first`: what the key's line holds. Unsure for a scalar that is not
        plain text (quoted, a number, with a comment after it), a comment line inside it,
        and a continuation that holds `: ` or ` #`, ends in `:` or starts with an indicator."""
        if first.__class__ is not str or e.comment or not first or first[:1] in NUMBERISH:
            raise Unsure("continuation line")  # (one that starts like a number could be a timestamp)
        lines, ind, n = self.lines, self.ind, self.n
        segs = [first]
        last = j = e.line
        while True:
            j += 1
            if j >= n:
                break
            t = lines[j]
            if not t:
                continue
            col = ind[j]
            if col <= indent:
                break
            seg = t[col:]
            if seg[0] in _NOT_CONTINUATION or ": " in seg or " #" in seg or seg[-1] == ":" or not seg.isprintable():
                raise Unsure("continuation line")
            segs.extend([""] * (j - last - 1))  # the empty lines between
            segs.append(seg)
            last = j
        e.last = self.last_line = last
        self.i = last + 1
        return folded(segs)

    def after_inline(self, indent: int) -> None:
        """An inline value has no lines below it: a deeper line would be a continuation."""
        i = self.i = self.nxt[self.i]
        if i < self.n and self.ind[i] > indent:
            raise Unsure("continuation line")

    def sequence(self, dash: int) -> tuple[list[Any], SeqPos]:
        data: list[Any] = []
        pos = SeqPos(dash)
        items = pos.items
        lines, ind, nxt, n = self.lines, self.ind, self.nxt, self.n
        col = dash + 2
        while True:
            li = self.i = nxt[self.i]
            if li >= n or ind[li] != dash:
                break
            line = lines[li]
            if not line.startswith("- ", dash) and len(line) != dash + 1:
                break
            e = Entry(li)
            self.order.append(e)
            if len(line) == dash + 1:
                v = self.below_dash(e, dash)
            elif said := _item_line(line, col):
                v, p = self.mapping(col, (li, said))
                e.value = p
                e.last = self.last_line
            else:
                if line[col] in "|>":
                    raise Unsure("block scalar as a sequence item")
                self.i = li + 1
                self.last_line = li
                v = self.inline(e, line, col, dash)
                self.after_inline(dash)
            if v.__class__ is dict or v.__class__ is list:
                e.node = v
            data.append(v)
            items.append(e)
        return data, pos

    def below_dash(self, e: Entry, dash: int) -> dict[str, Any]:
        """The mapping of a sequence entry written `-` alone on its line (e.line), below it
        and deeper than the dash (a `-` at the dash's column is the next entry, this one
        then null: left to the round-trip loader, as is anything but a mapping)."""
        self.i = e.line + 1
        self.last_line = e.line
        at = self.nxt[self.i]
        if at >= self.n or self.ind[at] <= dash or self.lines[at].startswith("-", self.ind[at]):
            raise Unsure("sequence item layout")
        v = self.below(e, dash)
        if v.__class__ is not dict:
            raise Unsure("sequence item layout")
        e.last = self.last_line
        return v

    def inline(self, e: Entry, line: str, col: int, indent: int) -> Any:
        """An inline scalar (plain, quoted, tagged `!!str`, a block scalar) or flow collection
        at `col`; records its span."""
        c = line[col]
        v: Any
        if c == "!":
            v, end = tagged_str(line, col)
        elif c not in NOT_PLAIN:  # the common case
            cut = line.find(" #", col)
            text = (line[col:] if cut < 0 else line[col:cut]).rstrip(" ")
            end = col + len(text)
            v = plain_value(text)
        elif c == "'" or c == '"':
            if closing_quote(line, col + 1, c) < 0:
                return self.quoted_lines(e, line, col, indent)
            v, end = quoted(line, col)
        elif c == "[" or c == "{":
            try:
                v, end = flow_collection(line, col, 0)
            except Unsure:
                if open_brackets(line, col) <= 0:
                    raise
                return self.flow_lines(e, line, col, indent)
            e.value = SeqPos(-1) if c == "[" else MapPos(-1)
            e.value.flow = True
            if v:  # an empty one is written in block style once filled, as ruamel does
                self.flows.append(e)
        else:  # "|" or ">"
            return self.literal(e, line, col, indent)
        if comment_after(line, end):
            e.comment = line.index("#", end)
        return v

    def flow_lines(self, e: Entry, line: str, col: int, indent: int) -> Any:
        """A flow collection that closes on a later line (`args: ["--a",` and `"--b"]` below
        it), read as one line: to a YAML reader a line break inside it is a blank, and a
        scalar over two of its lines folds to one with a space, as joined here. Unsure for an
        empty line, a comment, a line at or left of its key's column (but one that starts
        with the closing bracket), blanks at the end of a line or a `\\` (an escaped line
        break)."""
        raw, n = self.raw, self.n
        li = self.i - 1  # the key's (or the dash's) line
        if raw[li] != line or line[-1] == "\\":
            raise Unsure("flow collection layout")
        parts = [line[col:]]
        j = li
        while open_brackets(" ".join(parts), 0) > 0:
            j += 1
            if j >= n:
                raise Unsure("flow collection not closed")
            s = raw[j]
            t = s.lstrip(" ")
            if not t or s[-1].isspace() or s[-1] == "\\":
                raise Unsure("flow collection layout")
            if len(s) - len(t) < indent or (len(s) - len(t) == indent and t[0] not in "]}"):
                # (deeper than its key, but the closing bracket, as JSON is laid out)
                raise Unsure("flow collection layout")
            parts.append(t)
        text = " ".join(parts)
        v, end = flow_collection(text, 0, 0)
        if comment_after(text, end):
            e.comment = 1  # on the last line
        e.value = SeqPos(-1) if line[col] == "[" else MapPos(-1)
        e.value.flow = True
        if v:
            self.flows.append(e)
        e.last = self.last_line = j
        self.i = j + 1
        return v

    def quoted_lines(self, e: Entry, line: str, col: int, indent: int) -> Any:
        """A quoted scalar that closes on a later line (multiline.quoted_lines)."""
        v, j, comment = multiline.quoted_lines(self.raw, self.i - 1, line, col, indent)
        if comment:
            e.comment = 1  # on the last line
        e.last = self.last_line = j
        self.i = j + 1
        return v

    def literal(self, e: Entry, line: str, col: int, key_indent: int) -> Any:
        """A literal (`|`) or folded (`>`) block scalar (multiline.block_scalar)."""
        v, k = multiline.block_scalar(self.raw, self.i, line, col, key_indent)
        self.i = k
        self.last_line = k - 1
        e.last = k - 1
        self.after_inline(key_indent)
        return v


# _key_line of lines already read, by their text (bounded: cleared when full); of sequence
# entries' lines, the _key_line after the dash, or False for an entry that is no mapping
# (4,096 each: the lines that repeat are few, and each kept line is kept alive)
_LINES = Memo(4096)
_ITEM_LINES = Memo(4096)
_INDENTS = Memo(4096)  # a content line's indentation, by its text (Reader)


def _remember_indents(lines: list[str], ind: list[int], blank: list[int]) -> None:
    """Keep the indentation of every content line of `lines` (Reader), in C."""
    if len(_INDENTS) + len(lines) > _INDENTS.limit:
        _INDENTS.clear()
    _INDENTS.update(zip(lines, ind, strict=True))
    for j in blank:
        _INDENTS.pop(lines[j], None)


def _item_line(line: str, col: int) -> Any:
    """_key_line of a sequence entry's line whose content starts at `col` (after `- `), or
    False for an entry that is no mapping; remembered by the line's text."""
    said = _ITEM_LINES.get(line)
    if said is None:
        if col >= len(line) or line[col] in " -#":
            raise Unsure("sequence item layout")
        said = _key_line(line, col) if key_end(line, col) >= 0 or quoted_key(line, col) else False
        _ITEM_LINES.keep(line, said)
    return said


def _key_line(line: str, col: int) -> tuple[str, int, int, Any, int] | None:
    """(key, end of `key:`, what follows: 1 a plain scalar, 2 nothing, 0 anything else; the
    scalar's value, the column of the end-of-line comment after it or 0) of a mapping line whose key
    sits at `col`; None for a sequence entry (`-`), Unsure for anything else."""
    at = key_end(line, col)
    if at >= 0:
        key = PLAIN_KEYS.get(line[col : at - 1]) or plain_key(line[col : at - 1])
    elif line.startswith("-", col):
        return None
    else:
        said = quoted_key(line, col)
        if not said:
            raise Unsure("not a plain key")
        key, at = said
    if at - col > 1024:
        raise Unsure("key over 1024 characters")  # no implicit key to a YAML reader
    if at + 1 < len(line) and line[at] == " " and line[at + 1] not in _NOT_PLAIN_VALUE:
        if line[-1].isspace():
            raise Unsure("trailing blanks")
        cut = line.find(" #", at + 1)
        if cut < 0:
            return key, at, 1, plain_value(line[at + 1 :]), 0
        return key, at, 1, plain_value(line[at + 1 : cut].rstrip(" ")), cut + 1
    if line.startswith((" '", ' "'), at):
        # `key: 'quoted'`: as value() and inline() read it (a scalar, like a plain one)
        if line[-1].isspace():
            raise Unsure("trailing blanks")
        if closing_quote(line, at + 2, line[at + 1]) < 0:
            return key, at, 0, None, 0  # it closes on a later line: value() reads it
        v, end = quoted(line, at + 1)
        return key, at, 1, v, line.index("#", end) if comment_after(line, end) else 0
    return key, at, 2 if at == len(line) else 0, None, 0


def read(lines: list[str], m: int, o: int, indent: int) -> tuple[dict[str, Any], Doc]:
    """Read a block mapping document whose keys sit at `indent`; Unsure when unsure."""
    doc = Doc(lines, m, o)
    r = Reader(lines, m, o, indent)
    r.skip()
    if r.i >= r.n or r.indent() != indent:
        raise Unsure("layout")
    data, pos = r.mapping(indent)
    r.skip()
    if r.i < r.n:
        raise Unsure("content after the mapping")
    doc.root = pos
    doc.order = r.order
    doc.notes = r.notes
    doc.flows = r.flows
    return data, doc


# --------------------------------------------------------------------------- items


def load_item(chunk: str, m: int, s: int, o: int, lines: list[str] | None = None) -> tuple[dict[str, Any], Doc]:
    """Read one `- ` entry of `items` (its exact text, from its dash line on; `lines`: the
    text split already, as split_lines(chunk, keepends=False) splits it)."""
    head, first_inline, body, c = item_body(chunk, s, o, lines)
    data, doc = read(body, m, o, c)
    doc.head = head
    doc.first_inline = first_inline
    return data, doc


def item_body(chunk: str, s: int, o: int, lines: list[str] | None = None) -> tuple[list[str], str, list[str], int]:
    """(head, first_inline, body, its keys' column) of one `- ` entry (load_item): the
    lines of its mapping as a document's, its keys at the column after the dash."""
    if s != o + 2:
        raise Unsure("sequence indent")
    if lines is None:
        lines = layout.split_lines(chunk, keepends=False)
    k = layout.dash_index(lines)
    pre, lines = lines[:k], lines[k:]
    # before the dash: blank lines, then the head comment, which may hold blank lines too (a
    # license header)
    if not lines or any(x and not x.lstrip(" ").startswith("#") for x in pre):
        raise Unsure("text before the dash")
    first = lines[0]
    d = layout.indent_of(first)
    if not first.startswith("- ", d) and first[d:] != "-":
        raise Unsure("text before the dash")
    c = d + 2
    rest = first[c:]
    head: list[str] = []
    if rest and not rest.startswith("#"):
        if rest.startswith(" "):
            raise Unsure("dash spacing")
        body = [" " * c + rest] + lines[1:]
        first_inline = first
    else:
        if rest.startswith("#") and first[c - 1] != " ":
            raise Unsure("dash spacing")
        head = [first]
        body = lines[1:]
        first_inline = ""
    if pre:
        # the round-trip path reads them as the object's head comment and writes that after
        # the dash (`- # comment`): see splicer._head_after_dash and layout.indent_entry
        moved = layout.head_after_dash(pre, d, c)
        if moved is None:
            raise Unsure("blank lines before the dash")
        if head:
            raise Unsure("comments before and after the dash")
        if any(x[-1:].isspace() and x.rstrip(" ")[-1:].isspace() for x in pre):
            raise Unsure("trailing blanks")
        head = moved
        first_inline = ""
    return head, first_inline, body, c

