"""One field of an item's text, read without reading the rest of it.

A re-render looks up the claim templates of every placeholder StatefulSet it generated
before (`spec.volumeClaimTemplates`: they are kept, with any edit made to them in Git). Reading
the whole StatefulSet for that costs as much as reading a run; this reads the lines of that
field only, with the light reader (light/parser), after finding them by indentation alone.

Finding a field by indentation is sure in block YAML: a key of the mapping whose keys sit at
column k is a line at column k, and no other line is there, except for the continuation of a
quoted or flow scalar that spans lines (libyaml does not hold those to the indentation). So a
text with any line that opens a quote or a bracket it does not close on that line is left to
the whole reader (errors.Unsure), as is anything else unexpected: a line at a key's column that
is not a plain `key:` (a document marker, a directive, a flow or quoted key), a key twice, a
field whose parents are not block mappings, tabs or carriage returns. What the lines of the
field hold is read by lite's own reader, as strictly as a whole item (parser.read).
"""
from __future__ import annotations

import re

from krm_fn.core.errors import Unsure
from krm_fn.yaml import layout
from krm_fn.yaml.light import parser
from krm_fn.yaml.light import scalars

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
    """The value at `path` (keys of nested block mappings) of an item's text: a whole YAML
    document (`document`) or one `- ` entry of a ResourceList's items. None when a key on
    the path is absent or null. Raises Unsure when not sure (read the whole item then)."""
    if not path or "\r" in text or "\t" in text:
        raise Unsure("peek")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    _check_closed(text, lines)
    lines, first, col = _top_mapping(lines, document)
    a, b, k = first, len(lines), col
    for depth, key in enumerate(path):
        at, end = _key_line(lines, a, b, k, key)
        if at < 0:
            return None
        if depth == len(path) - 1:
            return _read_entry(lines[at:end], k, key)
        rest = lines[at][k + len(key) + 1 :]
        if rest and not rest.lstrip(" ").startswith("#"):
            raise Unsure("not a block mapping")
        nxt = _first_content(lines, at + 1, end)
        if nxt < 0:
            return None
        child = len(lines[nxt]) - len(lines[nxt].lstrip(" "))
        if child <= k:
            raise Unsure("not a block mapping")
        a, b, k = at + 1, end, child
    raise Unsure("peek")  # not reached


def _check_closed(text: str, lines: list[str]) -> None:
    """Unsure when a line opens a quote or a bracket it may not close on that line."""
    if '"' in text or "'" in text or "[" in text or "{" in text:
        closed = re.compile(_CLOSED_LINE).fullmatch  # re's cache: compiled once per process
        for line in lines:
            if ('"' in line or "'" in line or "[" in line or "{" in line) and closed(line) is None:
                raise Unsure("a scalar or collection may span lines")


def _top_mapping(lines: list[str], document: bool) -> tuple[list[str], int, int]:
    """(lines, first content line, column of the top mapping's keys): an entry's `- ` is
    written as spaces in a copy of the lines, so that its keys line up."""
    first = _first_content(lines, 0, len(lines))
    if first < 0:
        raise Unsure("empty")
    line = lines[first]
    col = len(line) - len(line.lstrip(" "))
    if document:
        if col != 0 or line.startswith("-"):
            raise Unsure("not a mapping document")
        return lines, first, col
    if not line.startswith("- ", col):
        raise Unsure("not an entry")
    lines = list(lines)
    lines[first] = " " * (col + 2) + line[col + 2 :]
    col += 2
    if lines[first][col : col + 1] in ("", " ", "#"):
        raise Unsure("entry layout")
    return lines, first, col


def _first_content(lines: list[str], a: int, b: int) -> int:
    for j in range(a, b):
        t = lines[j].lstrip(" ")
        if t and t[0] != "#":
            return j
    return -1


def _key_line(lines: list[str], a: int, b: int, k: int, key: str) -> tuple[int, int]:
    """(line of `key:` among the keys at column k of lines a..b, the line its entry ends
    before), (-1, -1) when absent; Unsure on a line at column k that is not a plain key."""
    at = end = -1
    match = scalars.KEY_RE.match
    pad, deeper = " " * k, " " * (k + 1)
    keys = False
    for j in range(a, b):
        line = lines[j]
        if line.startswith(deeper) or not line:
            continue  # deeper (or blank)
        if not line.startswith(pad):
            t = line.lstrip(" ")
            if t and t[0] != "#":
                raise Unsure("a line left of the mapping")
            continue
        c = line[k : k + 1]
        if c == "" or c == "#":
            continue  # blank, or a comment at the keys' column
        if c == "-" and (len(line) == k + 1 or line[k + 1] == " "):
            if not keys:
                raise Unsure("a sequence, not a mapping")
            continue  # an entry of an indentless sequence under the key before
        km = match(line, k)
        if km is None:
            raise Unsure("not a plain key")
        keys = True
        if at >= 0 and end < 0:
            end = j
        if km.group(1) == key:
            if at >= 0:
                raise Unsure("key twice")
            at = j
    if at >= 0 and end < 0:
        end = b
    return at, end


def _read_entry(lines: list[str], k: int, key: str) -> Any:
    """The value of the one `key:` entry these lines hold, read by lite's reader."""
    m, _s, o = layout.detect_indent(lines, k)
    r = parser.Reader(lines, m, o, k)
    r.skip()
    data, _pos = r.mapping(k)
    r.skip()
    if r.i < r.n or list(data) != [key]:
        raise Unsure("peek")
    return data[key]
