"""The line patterns the item scanner and the identity reader find YAML lines with: keys,
content lines, lines at or between indentations. Each searches from the "\\n" that ends the
line before, so the regex engine scans for it in C.
"""
from __future__ import annotations

import re

KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$")


# Patterns that find lines start with a literal "\n" (search from the "\n" that ends the line
# before): the regex engine then scans for it in C, several times faster than `^` with re.M.
TOP_LINE_RE = re.compile(r"\n([^ \n][^\n]*)")  # every line that starts in column 0


CONTENT_RE = re.compile(r"\n( *)[^ \n#]")  # the next non-blank, non-comment line


INDENTED_RE = re.compile(r"\n +[^ \n#]")


BLANK_OR_COMMENT_RE = re.compile(r"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")


_PATTERNS: dict[tuple[str, int, int], re.Pattern[str]] = {}


def shallow_re(d: int) -> re.Pattern[str]:
    """Lines indented less than an item's content (d + 2): item starts, head comments."""
    return _pattern("\\n( {0,%d}[^ \\n][^\\n]*)", 0, d + 1)


_AT_INDENT: dict[int, re.Pattern[str]] = {}


def at_indent_re(c: int) -> re.Pattern[str]:
    """Non-comment lines indented exactly `c`: the keys of a block mapping. Groups: 1 a key,
    2 its inline value; 3 a sequence entry (an indentless list, the value of the key
    before); 4 anything else (not a line this scanner understands). Kept by indent (asked
    three times per item)."""
    p = _AT_INDENT.get(c)
    if p is None:
        p = _AT_INDENT[c] = _pattern(
            "\\n {%d}(?:([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +([^\\n]*?))? *|(-(?: [^\\n]*)?)|([^ \\n#][^\\n]*))(?=\\n)",
            c,
            0,
        )
    return p


def between_re(lo: int, hi: int) -> re.Pattern[str]:
    """Non-comment lines indented lo..hi: too shallow for the mapping being read."""
    return _pattern("\\n {%d,%d}[^ \\n#]", lo, hi)


def _pattern(template: str, x: int, y: int) -> re.Pattern[str]:
    key = (template, x, y)
    p = _PATTERNS.get(key)
    if p is None:
        p = _PATTERNS[key] = re.compile(template % ((x, y) if template.count("%d") == 2 else (x or y,)))
    return p


def only_blank_or_comment(text: str, a: int = 0, b: int | None = None) -> bool:
    end = len(text) if b is None else b
    if a >= end:
        return True
    m = BLANK_OR_COMMENT_RE.match(text, a, end)
    return m is not None and m.end() == end
