"""One field of an item's text, read without reading the rest of it.

A re-render looks up the claim templates of every placeholder StatefulSet it generated
before (`spec.volumeClaimTemplates`: they are kept, with any edit made to them in Git). Reading
the whole StatefulSet for that costs as much as reading a run; this reads the lines of that
field only, with the light reader (light/parser), after finding them by indentation alone:
only the lines at or left of each mapping's keys are looked at, found by `re` (a placeholder's
hundred lines are not walked one by one in Python: issue 34, the re-render reads 3,000 of them).

Finding a field by indentation is sure in block YAML: a key of the mapping whose keys sit at
column k is a line at column k, and no other line is there, except for the continuation of a
quoted or flow scalar that spans lines (libyaml does not hold those to the indentation). So a
text with any line that opens a quote or a bracket it does not close on that line is left to
the whole reader (errors.Unsure), as is anything else unexpected: a line at a key's column that
is not a plain `key:` (a document marker, a directive, a flow or quoted key), a key twice, a
field whose parents are not block mappings, tabs or carriage returns. What the lines of the
field hold is read by lite's own reader, as strictly as a whole item (parser.read), or, when
every line is in the simple form claim templates are written in, by a narrower reader of that
form alone (_simple_entry: the same data, without the bookkeeping a writer needs).
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.data import Memo
from krm_fn.core.errors import Unsure
from krm_fn.yaml import layout
from krm_fn.yaml.light import parser
from krm_fn.yaml.light.scalars import plain_key
from krm_fn.yaml.light.scalars import plain_value
from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# A character that may open a scalar or collection spanning lines: a line holding one must be
# one of the forms below, which close on the line (or not hold it at the start of a value).
_KEY = r"[A-Za-z0-9_][A-Za-z0-9_./-]*"
# a plain scalar holds no `: ` (that would make it a key) and, to keep this simple, no `#`
_CLOSED_VALUE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|\{\}|\[\]|[^\s"'\[\]{}#&*!|>%@`?:,](?:[^#:]|:(?=[^\s]))*?)"""
_CLOSED_LINE = rf" *(?:- )*(?:{_KEY}:(?: {_CLOSED_VALUE})?|{_CLOSED_VALUE})?(?: +#.*)?"  # compiled on first use


def field(text: str, document: bool, path: tuple[str, ...]) -> Any:
    """The value at `path` (keys of nested block mappings) of an item's text, as plain data
    (new dicts and lists, str keys, str, int, bool): a whole YAML document (`document`) or
    one `- ` entry of a ResourceList's items. None when a key on the path is absent or null.
    Raises Unsure when not sure (read the whole item then)."""
    if not path or "\r" in text or "\t" in text:
        raise Unsure("peek")
    if '"' in text or "'" in text or "[" in text or "{" in text:
        _check_closed(text, text.split("\n"))
    t = "\n" + text if text.endswith("\n") else "\n" + text + "\n"  # every line after a newline
    found = _locate(t, document, path)
    if found is None:
        return None
    start, end, k = found
    lines = t[start + 1 : end].split("\n")
    return _read_entry(lines, k, path[-1])


def spot(text: str, path: tuple[str, ...]) -> Any:
    """The value at `path` of a document's text, read where this function's own writer puts
    it (placeholder.text: each key of the path alone on its line, two columns right of its
    parent's, a sequence's dashes at its key's column): found by a search for those lines,
    not by the indentation of every line between (field's _locate, half of field's cost),
    and read as field() reads the lines it finds. Not sure of what it finds (a line inside a
    scalar spanning lines, a key twice, another key's child): the caller proves it, by the
    object's text written again being the same (then these lines are that writer's for the
    value), or else by reading the field again with field() (Context.generated_field).
    Raises Unsure when the lines are not there."""
    at = 0
    for depth, key in enumerate(path):
        at = text.find("\n" + "  " * depth + key + ":\n", at)
        if at < 0:
            raise Unsure("spot")
        at += 1
    k = 2 * (len(path) - 1)
    # the block ends before the first line that is not deeper than the key nor a dash at its column
    after = patterns.compile(_BLOCK_END % (k + 1, k)).search(text, at)
    end = after.start() if after is not None else len(text)
    return _read_entry(text[at:end].split("\n"), k, path[-1])


# the newline before the first line of another entry (compiled per column: re's cache)
_BLOCK_END = r"\n(?! {%d}| {%d}- )"


def _locate(t: str, document: bool, path: tuple[str, ...]) -> tuple[int, int, int] | None:
    """(start, end, column) of the entry at `path` in `t` (a text after a newline, ending
    with one): t[start] is the newline before its key's line, t[end] the newline after its
    last line. Found by indentation alone, and only the lines at or left of each mapping's
    keys are looked at (found by re, not line by line). None when a key on the path is absent
    or null."""
    first = patterns.compile(_FIRST_CONTENT).search(t)
    if first is None:
        raise Unsure("empty")
    col = first.end() - first.start() - 2
    if document:
        if col != 0 or t.startswith("-", first.start() + 1):
            raise Unsure("not a mapping document")
        a, k = first.start(), 0
    else:
        # the entry's dash: its first key is read as if the dash were spaces (in a copy)
        if not t.startswith("- ", first.start() + 1 + col):
            raise Unsure("not an entry")
        k = col + 2
        j = first.start() + 1 + col
        t = t[:j] + "  " + t[j + 2 :]
        if t[j + 2 : j + 3] in (" ", "#", "\n"):
            raise Unsure("entry layout")
        a = first.start()
    b = len(t) - 1
    for depth, key in enumerate(path):
        at, end = _key_at(t, a, b, k, key)
        if at < 0:
            return None
        if depth == len(path) - 1:
            return at, end, k
        line_end = t.index("\n", at + 1)
        rest = t[at + 1 + k + len(key) + 1 : line_end]
        if rest and not rest.lstrip(" ").startswith("#"):
            raise Unsure("not a block mapping")
        nxt = patterns.compile(_FIRST_CONTENT).search(t, line_end, end)
        if nxt is None:
            return None
        child = nxt.end() - nxt.start() - 2
        if child <= k:
            raise Unsure("not a block mapping")
        a, b, k = line_end, end, child
    raise Unsure("peek")  # not reached


# the next line with content (not blank, not only a comment), from its newline to that content;
# the patterns here are compiled on first use (re's cache): an input that peeks at nothing
# (one run) does not pay for compiling them at start-up
_FIRST_CONTENT = r"\n *[^ \n#]"
# a line whose content starts at or left of a column (compiled per column: re's cache)
_LEFT = r"\n {0,%d}[^ \n]"
# scalars.KEY_RE where a line goes on after the key (its `$` is the text's end there)
_KEY_AT = r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?=[ \n])"


def _key_at(t: str, a: int, b: int, k: int, key: str) -> tuple[int, int]:
    """(offset of the newline before `key:` among the keys at column k of t[a:b], offset of
    the newline its entry ends at), (-1, -1) when absent; Unsure on a line at column k that
    is not a plain key, or a line left of it that is not a comment."""
    at = end = -1
    match = patterns.compile(_KEY_AT).match
    keys = False
    for m in patterns.compile(_LEFT % k).finditer(t, a, b + 1):
        j = m.end() - 1  # the line's first character
        c = t[j]
        if j - m.start() - 1 < k:
            if c != "#":
                raise Unsure("a line left of the mapping")
            continue
        if c == "#":
            continue  # a comment at the keys' column
        if c == "-" and t[j + 1] in " \n":
            if not keys:
                raise Unsure("a sequence, not a mapping")
            continue  # an entry of an indentless sequence under the key before
        km = match(t, j)
        if km is None:
            raise Unsure("not a plain key")
        keys = True
        if at >= 0 and end < 0:
            end = m.start()
        if km.group(1) == key:
            if at >= 0:
                raise Unsure("key twice")
            at = m.start()
    if at >= 0 and end < 0:
        end = b
    return at, end


def _check_closed(text: str, lines: list[str]) -> None:
    """Unsure when a line opens a quote or a bracket it may not close on that line."""
    if '"' in text or "'" in text or "[" in text or "{" in text:
        closed = patterns.compile(_CLOSED_LINE).fullmatch  # re's cache: compiled once per process
        for line in lines:
            if ('"' in line or "'" in line or "[" in line or "{" in line) and closed(line) is None:
                raise Unsure("a scalar or collection may span lines")


def _read_entry(lines: list[str], k: int, key: str) -> Any:
    """The value of the one `key:` entry these lines hold, read by lite's reader (by
    _simple_entry first: the same data, for the lines in its narrower form), as plain data
    (the simple form's is plain as read: its keys and scalars are plain_key's and
    plain_value's; the general reader's str subclasses of quoted scalars are made str)."""
    simple = _simple_entry(lines, k, key)
    if simple is not _NOT_SIMPLE:
        return simple
    return to_plain(general_entry(lines, k, key))


def general_entry(lines: list[str], k: int, key: str) -> Any:
    """The value of the one `key:` entry these lines hold, read by lite's general reader
    (no simple form first), or Unsure."""
    m, _s, o = layout.detect_indent(lines, k)
    r = parser.Reader(lines, m, o, k)
    r.skip()
    data, _pos = r.mapping(k)
    r.skip()
    if r.i < r.n or list(data) != [key]:
        raise Unsure("peek")
    return data[key]


# --------------------------------------------------------------------------- the simple form

_NOT_SIMPLE = object()
# a line of the simple form: its indentation, then at most one `- `, then `key:`, `key: value`
# or (after a dash) `value`; a value holds no `#` and no `: `, and starts with none of YAML's
# indicators (plain_value judges the rest, as the reader does)
_SIMPLE_LINE = r"( *)(- )?(?:([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: ([^-?:,\[\]{}#&*!|>'\"%@` ][^#]*))?|([^-?:,\[\]{}#&*!|>'\"%@` ][^#]*))"


def _simple_entry(lines: list[str], k: int, key: str) -> Any:
    """The value of the one `key:` entry these lines hold when every line is in the simple
    form claim templates and the like are written in (block mappings and sequences, plain
    scalars on their key's or dash's line, no comment, no blank line, nothing quoted, flow or
    spanning lines, keys each once and of at most 1,023 characters (as parser._key_line), a
    sequence's dashes at its key's column or two right of it, nothing indented past
    parser.MAX_INDENT); else _NOT_SIMPLE, and lite's reader
    decides. What it reads is what lite's reader reads of the same lines (the same
    plain_key and plain_value; tests/unit/yaml/light/test_peek.py compares them on every
    document the project has): the claim templates of 3,000 placeholders are read back at
    each re-render (issue 34), and the general reader's bookkeeping (each entry's place, for
    its writer) is not needed for data no writer splices."""
    rows = []
    for line in lines:
        row = _ROWS.get(line)
        if row is None:
            row = _simple_row(line)
            if row is None:
                return _NOT_SIMPLE
            _ROWS.keep(line, row)
        rows.append(row)
    try:
        reader = _Simple(rows)
        data = reader.mapping(0, k)
    except (Unsure, _Refused):
        return _NOT_SIMPLE
    if reader.i != len(rows) or list(data) != [key]:
        return _NOT_SIMPLE
    return data[key]


# each line's row, by its text: most lines of claim templates repeat from one run to the next
_ROWS = Memo(4096)


def _simple_row(line: str) -> tuple[int, bool, str | None, str | None, str | None] | None:
    """A line of the simple form as (column of the content, after a dash, key, the value after
    `key: `, the scalar after `- `); None for any other line."""
    mt = patterns.compile(_SIMPLE_LINE).fullmatch(line)
    if mt is None or line[-1:] == " ":
        return None
    ind, dash, name, value, item = mt.groups()
    col = len(ind)
    scalar = value if value is not None else item
    if col > parser.MAX_INDENT or (name is not None and len(name) > 1023) or (scalar is not None and (": " in scalar or scalar[-1] == ":")):
        return None
    return col, dash is not None, name, value, item


class _Refused(Exception):
    """Not in the simple form (lite's reader decides)."""


class _Simple:
    """The rows of _simple_entry read into data: (column of the content, after a dash, key,
    the value after `key: `, the scalar after `- `)."""

    __slots__ = ("rows", "i")

    def __init__(self, rows: list[tuple[int, bool, str | None, str | None, str | None]]) -> None:
        self.rows = rows
        self.i = 0

    def mapping(self, i: int, col: int, first: bool = False) -> dict[str, Any]:
        """The block mapping whose keys sit at `col`, from row i (`first`: row i is a
        sequence entry's, its key after the dash)."""
        rows, n = self.rows, len(self.rows)
        data: dict[str, Any] = {}
        while i < n:
            c, dash, name, value, _item = rows[i]
            if first:
                first = False
            elif c < col or (c == col and dash):
                break  # the mapping ends (or an indentless sequence of the key before does)
            elif c > col or dash:
                raise _Refused
            if name is None or name in data:
                raise _Refused
            key = parser.PLAIN_KEYS.get(name) or plain_key(name)
            if value is not None:
                data[key] = plain_value(value)
                i += 1
                if i < n and rows[i][0] > col:
                    raise _Refused  # a continuation line
                continue
            data[key], i = self.below(i + 1, col)
        self.i = i
        return data

    def below(self, i: int, col: int) -> tuple[Any, int]:
        """The value of a `key:` at `col` with nothing after it, from row i: (value, next row)."""
        rows = self.rows
        if i >= len(rows):
            return None, i
        c, dash, _name, _value, _item = rows[i]
        if dash and c in (col, col + 2):
            return self.sequence(i, c)
        if dash and c > col:
            raise _Refused
        if c > col:
            return self.mapping(i, c), self.i
        return None, i

    def sequence(self, i: int, dash: int) -> tuple[list[Any], int]:
        rows, n = self.rows, len(self.rows)
        data: list[Any] = []
        while i < n:
            c, is_dash, name, _value, item = rows[i]
            if c != dash or not is_dash:
                break
            if name is not None:
                data.append(self.mapping(i, dash + 2, first=True))
                i = self.i
                continue
            assert item is not None
            data.append(plain_value(item))
            i += 1
            if i < n and rows[i][0] > dash:
                raise _Refused  # a continuation line
        return data, i
