"""A strict reader for the plain block YAML that CI manifests are made of (its splicing writer
is `litesplice`), so a small run never imports, let alone runs, the comment-preserving
round-trip loader.

The round-trip loader (ruamel) costs about 20 ms to import and 20 to 40 ms to read and write
one PipelineRun: most of a one-object run. This module reads an item whose text is in the
form ruamel itself writes (each mapping indented as its first key, one space after `- ` and
`: `, canonical scalars, keys plain or quoted, no anchors, tags or multi-line quoted scalars) into plain data,
and writes an edited item back by splicing only the changed lines into its original text,
in the layout ruamel would give them. Everything else in the item stays the exact input text,
which is what ruamel writes back for such text too.

Anything it is not sure about raises errors.Unsure, and the caller reads that item again on
the round-trip path (document.LightDocument, process). So this module never decides output on its own: it either gives the bytes
the round-trip path gives (tests/test_lite.py compares both on every fixture) or steps aside.
"""
from __future__ import annotations

import re

from krm_fn import yamlio
from krm_fn import yamltext
from krm_fn.errors import Unsure

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class SQ(str):
    """A single-quoted scalar of the input (kept quoted when copied, as ruamel does)."""


class Lit(str):
    """A literal block scalar of the input."""


class Folded(Lit):
    """A folded block scalar of the input (`>`, `>-`): kept as written, never written anew."""


DQ = yamlio.DQ

_NOT_PLAIN = frozenset("'\"[{|>")
_NOT_PLAIN_VALUE = _NOT_PLAIN | {" ", "#"}
# Plain keys the writer can emit as they are: Kubernetes field and label/annotation keys.
_KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?= |$)")
_INT_RE = re.compile(r"-?(?:0|[1-9][0-9]*)")
# The characters the reader takes in a scalar are the printable ones (str.isprintable): ASCII
# from space to `~`, and of the rest of Unicode letters, marks, numbers, punctuation and
# symbols (a description in German, a name in Japanese, an emoji); not tabs or other
# controls, NEL, the line and paragraph separators (line breaks to a YAML 1.1 reader), other
# separators (a no-break space), format characters (a byte order mark), surrogates or
# unassigned code points. None of those taken is one of YAML's indicators or blanks, so a
# scalar holding them reads as its text, as a string. (A test in C: a pattern of Unicode's
# ranges costs milliseconds to compile at every start.)
_PLAIN_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./$(~=+-")
_NUMBERISH = re.compile(r"[-+.0-9]")
_NOT_CONTINUATION = frozenset("#-?:,[]{}&*!|>'\"%@`")  # first characters of a continuation line taken
_ASCII_PRINTABLE = re.compile(r"[\x20-\x7e]*")  # what the writer writes quoted (litesplice)
_TS_RE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
_NULLS = frozenset({"null", "Null", "NULL", "~"})
_SPECIAL = frozenset({"~", "null", "Null", "NULL", "True", "TRUE", "False", "FALSE", "<<", "="})


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
        self.comment = False  # the first line has an end-of-line comment
        self.value: MapPos | SeqPos | None = None  # block collection or flow `{}`/`[...]`
        self.node: Any = None  # the loaded collection (to tell edits in place from new ones)


# --------------------------------------------------------------------------- reader


class Doc:
    """An item read by this module: its lines and positions, for the splicing writer."""

    __slots__ = ("lines", "root", "m", "o", "head", "first_inline", "order")

    def __init__(self, lines: list[str], m: int, o: int) -> None:
        self.lines = lines
        self.root: MapPos | None = None
        self.order: list[Entry] = []  # every position, in reading order (the same for the same text)
        self.m = m
        self.o = o
        self.head: list[str] = []  # item text before the body (the dash line of `- # c`)
        self.first_inline = ""  # the dash line when the first key sits on it


# Deepest indentation the reader takes. Every level of nesting it reads is at least one column
# deeper (a sequence's entries are mappings or scalars, flow collections hold scalars), so
# this bounds the depth of what it builds, and of its own recursion, well under guards'
# MAX_DEPTH: a deeper object goes to the round-trip path, which names the deepest field.
MAX_INDENT = 120


class _Reader:
    def __init__(self, lines: list[str], m: int, o: int, left: int = 0) -> None:
        self.raw = lines  # as written: a block scalar's lines are its text (literal())
        if any(x[-1:] == " " for x in lines):
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
        # Each line's indentation, and for each line the first content line at or after it
        # (nxt[n] = n): one pass here instead of a strip per look at a line. A blank or
        # comment line that ends in a blank other than a space (a tab) is refused here,
        # wherever it sits (a block scalar refuses trailing blanks on its own lines too), and
        # so is a comment left of column `left` (where the document's keys sit).
        stripped = [x.lstrip(" ") for x in lines]
        self.ind = ind = [len(x) - len(t) for x, t in zip(lines, stripped, strict=True)]
        if ind and max(ind) > MAX_INDENT:
            raise Unsure("nested too deep for the light reader")
        nxt = list(range(n + 1))
        for j in reversed([j for j, t in enumerate(stripped) if not t or t[0] == "#"]):
            # a blank or comment line (few): the next content line is the one after it's
            if lines[j][-1:].isspace():
                raise Unsure("trailing blanks")
            if stripped[j] and ind[j] < left:
                raise Unsure("comment left of the item")
            nxt[j] = nxt[j + 1]
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
                    if len(_LINES) >= _LINES_MAX:
                        _LINES.clear()
                    _LINES[line] = said
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
                        e.comment = True
                        return self.below(e, indent)
                    raise Unsure("two spaces")
                v = self.inline(e, line, at + 1, indent)
                self.after_inline(indent)
                return v
            if not rest.startswith(" #"):
                raise Unsure("value")
            e.comment = True
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
        if first.__class__ is not str or e.comment or not first or _NUMBERISH.match(first):
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
        return _folded(segs)

    def after_inline(self, indent: int) -> None:
        """An inline value has no lines below it: a deeper line would be a continuation."""
        i = self.i = self.nxt[self.i]
        if i < self.n and self.ind[i] > indent:
            raise Unsure("continuation line")

    def last_content(self) -> int:
        """The last content line read so far (a block scalar's lines may start with `#`)."""
        return self.last_line

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
        """An inline scalar or one-line flow collection at `col`; records its span."""
        c = line[col]
        if c not in _NOT_PLAIN:  # the common case first
            cut = line.find(" #", col)
            text = (line[col:] if cut < 0 else line[col:cut]).rstrip(" ")
            end = col + len(text)
            v: Any = _plain(text)
        elif c == "'" or c == '"':
            v, end = quoted(line, col)
        elif c == "[" or c == "{":
            v, end = _flow(line, col, 0)
            e.value = SeqPos(-1) if c == "[" else MapPos(-1)
            e.value.flow = True
        else:  # "|" or ">"
            return self.literal(e, line, col, indent)
        if _comment_after(line, end):
            e.comment = True
        return v

    def literal(self, e: Entry, line: str, col: int, key_indent: int) -> Any:
        """A literal (`|`, `|-`) or folded (`>`, `>-`) block scalar: its lines sit at the
        indentation the first one sets (`want`; a literal's may sit deeper), empty lines
        between them are the text's own; empty lines after the last one are not (clipped or
        stripped), nor lines with trailing blanks anywhere (refused)."""
        head = line[col:]
        if head not in ("|", "|-", ">", ">-"):
            raise Unsure("block scalar header")
        folded = head[0] == ">"
        want = key_indent + self.m
        out: list[str] = []
        lines, n = self.raw, self.n
        k = self.i
        while k < n:
            s = lines[k]
            if not s:
                if not out:
                    raise Unsure("an empty first line in a block scalar")
                j = k + 1
                while j < n and not lines[j]:
                    j += 1
                if j < n and lines[j][: key_indent + 1].strip(" ") == "":  # the block goes on
                    out.extend([""] * (j - k))
                    k = j
                    continue
                break  # blank lines after the block: not its text
            ind = len(s) - len(s.lstrip(" "))
            if ind == len(s):
                # a line of blanks is an empty line to a YAML reader, whatever its width, or
                # text (the blanks past the indentation) where lines of text follow
                raise Unsure("a line of blanks in or after a block scalar")
            if ind <= key_indent:
                break
            # the first line sets the block's indentation for a YAML reader: it must be `want`
            if ind < want or (not out and ind != want) or s != s.rstrip():
                raise Unsure("block scalar layout")
            if folded and (ind != want or s[want] == "\t"):
                raise Unsure("a more-indented line in a folded scalar")
            out.append(s[want:])
            k += 1
        if not out:
            raise Unsure("empty block scalar")
        self.i = k
        self.last_line = k - 1
        e.last = k - 1
        end = "" if head[1:] == "-" else "\n"
        self.after_inline(key_indent)
        if not folded:
            return Lit("\n".join(out) + end)
        return Folded(_folded(out) + end)


def _folded(lines: list[str]) -> str:
    """Lines of text folded as YAML folds a folded block scalar and a plain scalar over
    several lines: the line break between two lines of text is a space; with n empty lines
    ("") between them, n line breaks. The first and last lines are text."""
    parts = [lines[0]]
    empty = 0
    for cur in lines[1:]:
        if not cur:
            empty += 1
            continue
        parts.append("\n" * empty if empty else " ")
        parts.append(cur)
        empty = 0
    return "".join(parts)


# _key_line of lines already read, by their text (bounded: cleared when full); of sequence
# entries' lines, the _key_line after the dash, or False for an entry that is no mapping
_LINES: dict[str, tuple[str, int, int, Any, bool]] = {}
_ITEM_LINES: dict[str, Any] = {}
_LINES_MAX = 4096  # each: the lines that repeat are few, and each kept line is kept alive


def _item_line(line: str, col: int) -> Any:
    """_key_line of a sequence entry's line whose content starts at `col` (after `- `), or
    False for an entry that is no mapping; remembered by the line's text."""
    said = _ITEM_LINES.get(line)
    if said is None:
        if col >= len(line) or line[col] in " -#":
            raise Unsure("sequence item layout")
        said = _key_line(line, col) if _KEY_RE.match(line, col) is not None or quoted_key(line, col) else False
        if len(_ITEM_LINES) >= _LINES_MAX:
            _ITEM_LINES.clear()
        _ITEM_LINES[line] = said
    return said


def _key_line(line: str, col: int) -> tuple[str, int, int, Any, bool] | None:
    """(key, end of `key:`, what follows: 1 a plain scalar, 2 nothing, 0 anything else; the
    scalar's value, whether an end-of-line comment follows it) of a mapping line whose key
    sits at `col`; None for a sequence entry (`-`), Unsure for anything else."""
    km = _KEY_RE.match(line, col)
    if km is not None:
        key = _PLAIN_KEYS.get(km.group(1)) or _plain_key(km.group(1))
        at = km.end()
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
            return key, at, 1, _plain(line[at + 1 :]), False
        return key, at, 1, _plain(line[at + 1 : cut].rstrip(" ")), True
    if line.startswith((" '", ' "'), at):
        # `key: 'quoted'`: as value() and inline() read it (a scalar, like a plain one)
        if line[-1].isspace():
            raise Unsure("trailing blanks")
        v, end = quoted(line, at + 1)
        return key, at, 1, v, _comment_after(line, end)
    return key, at, 2 if at == len(line) else 0, None, False


def quoted_key(line: str, col: int) -> tuple[Any, int] | None:
    """(key, end of `"key":`) of a quoted key at `col` (`"app.kubernetes.io/name": x`, read
    as the round-trip loader reads it: a string that keeps its quotes, SQ or DQ); None when
    no quoted scalar followed by `: ` or `:` at the line's end starts there (Unsure for a
    quoted scalar this reader does not take)."""
    if line[col : col + 1] not in ("'", '"'):
        return None
    key, end = quoted(line, col)
    if line.startswith(":", end) and (end + 1 == len(line) or line[end + 1] == " "):
        return key, end + 1
    return None


def quoted(line: str, col: int) -> tuple[Any, int]:
    """The quoted scalar at `col` (on one line; in double quotes, JSON's escapes) and the
    column after it; Unsure for anything else (the scanner reads identities with it too)."""
    if line[col] == "'":
        end = _quoted_end(line, col, "'")
        return SQ(line[col + 1 : end - 1].replace("''", "'")), end
    end = _quoted_end(line, col, '"')
    body = line[col + 1 : end - 1]
    if "\\" in body:
        return DQ(_unescaped(body)), end
    return DQ(body), end


# JSON's escapes, which a YAML reader reads the same (not a \u of half a surrogate pair: JSON
# joins two of them into one character, YAML does not); compiled on first use (re's cache)
_JSON_ESCAPE = r'\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})'


def _unescaped(body: str) -> str:
    """A double-quoted scalar's text with its escapes read; Unsure for an escape JSON does not
    have (YAML's \\x41, \\0, \\e...)."""
    if "\\" in re.sub(_JSON_ESCAPE, "", body):
        raise Unsure("escape")
    import json  # here: few inputs hold escapes (json: ~1 ms to import)

    return str(json.loads('"' + body + '"'))


def _comment_after(line: str, end: int) -> bool:
    """Whether an end-of-line comment follows the scalar that ends at `end` (Unsure for
    anything else after it)."""
    tail = line[end:]
    if not tail:
        return False
    if not tail.startswith(" #") and not tail.lstrip(" ").startswith("#"):
        raise Unsure("after a scalar")
    if not tail.startswith(" "):
        raise Unsure("comment")
    return True


def _quoted_end(line: str, col: int, q: str) -> int:
    k = col + 1
    while True:
        k = line.find(q, k)
        if k < 0:
            raise Unsure("multi-line quoted scalar")
        if q == "'" and line.startswith("''", k):
            k += 2
            continue
        if q == '"' and (k - col - 1 - len(line[col + 1 : k].rstrip("\\"))) % 2:
            k += 1  # an escaped quote
            continue
        end = k + 1
        body = line[col:end]
        if not body.isprintable():
            raise Unsure("control characters")
        return end


_FLOW_DEPTH = 16  # deeper flow nesting is left to the round-trip loader
_FLOW_PLAIN_END = r"[,\[\]{}]|:(?=[ ,\[\]{}]|$)| #"


def _flow(line: str, i: int, depth: int) -> tuple[Any, int]:
    """The flow collection that opens at line[i] (`[` or `{`) and closes on the same line,
    nested ones too, and the column after it: scalars plain or quoted, keys plain or quoted, entries
    separated by commas (a trailing one too) and spaces. Unsure for anything else: a pair
    inside a sequence (`[a: b]`), an empty value, a comment or a line break inside, tabs."""
    if depth > _FLOW_DEPTH:
        raise Unsure("flow nesting")
    is_map = line[i] == "{"
    close = "}" if is_map else "]"
    out: Any = {} if is_map else []
    n = len(line)
    i += 1
    while i < n and line[i] == " ":
        i += 1
    if line[i : i + 1] == close:
        return out, i + 1
    while True:
        if is_map:
            km = _KEY_RE.match(line, i)
            if km is not None:
                key = km.group(1)
                if _resolve(key) is not key:
                    raise Unsure("flow mapping key")
                i = km.end()
            else:
                said = quoted_key(line, i)  # `{"a": b}`: a quoted key, followed by `: `
                if not said:
                    raise Unsure("flow mapping key")
                key, i = said
            if key in out:
                raise Unsure("flow mapping key")
            while i < n and line[i] == " ":
                i += 1
            v, i = _flow_value(line, i, depth)
            out[key] = v
        else:
            v, i = _flow_value(line, i, depth)
            out.append(v)
        while i < n and line[i] == " ":
            i += 1
        c = line[i : i + 1]
        if c == ",":
            i += 1
            while i < n and line[i] == " ":
                i += 1
            if line[i : i + 1] == close:
                return out, i + 1
            continue
        if c == close:
            return out, i + 1
        raise Unsure("flow")


def _flow_value(line: str, i: int, depth: int) -> tuple[Any, int]:
    """The value at line[i] inside a flow collection, and the column after it."""
    c = line[i : i + 1]
    if c == "[" or c == "{":
        return _flow(line, i, depth + 1)
    if c == "'" or c == '"':
        return quoted(line, i)
    if not c or c in ",]}":
        raise Unsure("empty flow value")
    # a plain scalar ends before an indicator, before `:` that ends a key, before ` #`; a
    # colon with another character after it is the scalar's own (`https://host:8443/x`)
    m = re.compile(_FLOW_PLAIN_END).search(line, i)  # re's cache: compiled on first use
    text = line[i : m.start() if m else len(line)].rstrip(" ")
    if not text:
        raise Unsure("empty flow value")
    return _plain(text), i + len(text)


# The values of plain scalars already read (most repeat: ReadWriteOnce, kubernetes.io/hostname...)
_PLAIN_VALUES: dict[str, Any] = {}
_MISSING = object()


def _plain(text: str) -> Any:
    v = _PLAIN_VALUES.get(text, _MISSING)
    if v is not _MISSING:
        return v
    c = text[:1]  # plain scalars: printable text, no indicator first (nor anything a YAML 1.2
    # resolver types other than the canonical int/bool: _resolve checks that)
    if not c or (c not in _PLAIN_FIRST and (c.isascii() or not c.isprintable())) or not text.isprintable():
        raise Unsure("plain scalar")
    if text[:2] in ("- ", "? ", ": ") or text in ("-", "?"):
        raise Unsure("plain scalar")
    if ": " in text or " #" in text or "\t" in text or text.endswith(":"):
        raise Unsure("plain scalar")
    # null: ruamel writes `key:` for it, so a line that holds one is never rewritten
    # (_clean): both writers keep it as it is
    v = None if text in _NULLS else _resolve(text)
    if len(_PLAIN_VALUES) >= 65536:
        _PLAIN_VALUES.clear()
    _PLAIN_VALUES[text] = v
    return v


# Keys already known to read as themselves (a string, not true/1/null), each kept once: most
# keys repeat, and every object read holds its keys (10,000 objects: 290,000 key strings).
_PLAIN_KEYS: dict[str, str] = {}


def _plain_key(key: str) -> str:
    """A key that matched _KEY_RE, when it reads as the string itself (remembered); Unsure
    for a key YAML types (true, 1, null)."""
    if _resolve(key) is not key:
        raise Unsure("key")
    if len(_PLAIN_KEYS) < 65536:
        _PLAIN_KEYS[key] = key
    return key


def _resolve(text: str) -> Any:
    """The YAML 1.2 value of a plain scalar, as ruamel reads it, for the canonical forms
    ruamel also writes back unchanged; Unsure for any other typed form."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text in _SPECIAL:
        raise Unsure("typed scalar")
    if _NUMBERISH.match(text):
        if _INT_RE.fullmatch(text):
            return int(text)
        if yamlio._NUMBER_RE.match(text) or _TS_RE.match(text) or text[0] in "+.":
            raise Unsure("number form")
    return text


def read(lines: list[str], m: int, o: int, indent: int) -> tuple[dict[str, Any], Doc]:
    """Read a block mapping document whose keys sit at `indent`; Unsure when unsure."""
    doc = Doc(lines, m, o)
    r = _Reader(lines, m, o, indent)
    r.skip()
    if r.i >= r.n or r.indent() != indent:
        raise Unsure("layout")
    data, pos = r.mapping(indent)
    r.skip()
    if r.i < r.n:
        raise Unsure("content after the mapping")
    doc.root = pos
    doc.order = r.order
    return data, doc


# --------------------------------------------------------------------------- items


def load_item(chunk: str, m: int, s: int, o: int, lines: list[str] | None = None) -> tuple[dict[str, Any], Doc]:
    """Read one `- ` entry of `items` (its exact text, from its dash line on; `lines`: the
    text split already, as split_lines(chunk, keepends=False) splits it)."""
    if s != o + 2:
        raise Unsure("sequence indent")
    if lines is None:
        lines = yamltext.split_lines(chunk, keepends=False)
    k = yamltext.dash_index(lines)
    pre, lines = lines[:k], lines[k:]
    # before the dash: blank lines, then the head comment, which may hold blank lines too (a
    # license header)
    if not lines or any(x and not x.lstrip(" ").startswith("#") for x in pre):
        raise Unsure("text before the dash")
    first = lines[0]
    d = yamltext.indent_of(first)
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
        # the dash (`- # comment`): see rtsplice._head_after_dash and yamltext.indent_entry
        moved = yamltext.head_after_dash(pre, d, c)
        if moved is None:
            raise Unsure("blank lines before the dash")
        if head:
            raise Unsure("comments before and after the dash")
        if any(x[-1:].isspace() and x.rstrip(" ")[-1:].isspace() for x in pre):
            raise Unsure("trailing blanks")
        head = moved
        first_inline = ""
    data, doc = read(body, m, o, c)
    doc.head = head
    doc.first_inline = first_inline
    return data, doc
