"""A check-only reader: whether one item's text (an entry of `items`, from its dash line on)
is surely YAML, without building its data or positions. It is the syntax check of the objects
no transform reads (io/resourcelist.check_untouched), which are then echoed as they came: the
full light reader (light/parser) costs about 0.7 M instructions an object for data nothing
looks at, this about 0.27 M (the 20 objects of bench/gen.py's small list, each line read
once and remembered: a line that repeats, as keys and kpt's annotations do, costs a sixth).

It takes block YAML as manifests are written (mappings and sequences by indentation, plain,
quoted and flow scalars on one line, literal and folded block scalars, comments) and checks
what makes such text YAML or not: each line's column against the open collections, keys,
the first character and the `: ` of plain scalars, quotes closed on their line, block
scalars' indentation. Everything else (tabs, anchors, tags, multi-line plain or quoted
scalars, flow collections over several lines, document markers, characters outside
str.isprintable, explicit keys) gives False: not "not YAML" but "not sure", and the caller
asks the full light reader, then libyaml. So a True is only given to text that libyaml's
parser and the round-trip loader's take (tests/unit/yaml/light/test_check.py: a property
against both), and a False never refuses anything.
"""
from __future__ import annotations

from krm_fn.core.data import Memo
from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import flow_collection
from krm_fn.yaml.light.scalars import key_end
from krm_fn.yaml.light.scalars import quoted

# first characters of a plain scalar that is no plain scalar (an indicator), or that this
# reader leaves to the others (`-`, `?` and `:` are plain only before a non-blank: checked apart)
_NOT_PLAIN_FIRST = frozenset("#&*!|>'\"%@`,[]{}")
_BLOCK_HEADERS = frozenset({"|", "|-", "|+", ">", ">-", ">+"})
_MAX_KEY = 1000  # libyaml takes no implicit key over 1024 characters (nor ruamel)
_MAX_INDENT = 200


def checks(text: str) -> bool:
    """True when `text`, one item of a ResourceList as its scanner sliced it, is YAML for
    libyaml's parser and the round-trip loader's (no data built); False when not sure."""
    if "\t" in text or "\r" in text:
        return False
    lines = text.split("\n")
    if not "".join(lines).isprintable():
        return False  # controls, NEL, line and paragraph separators, BOM, no-break spaces...
    try:
        return _check(lines)
    except Unsure:
        return False


def _check(lines: list[str]) -> bool:
    # The open block collections, innermost last: a mapping whose keys sit at column c as
    # 2c, a sequence whose dashes do as 2c + 1; the item's own sequence, which holds this one
    # entry, as -(2d + 1), which no line matches. A line at the innermost one's column and
    # of its kind (`top`) goes on with it (most lines); one left of it closes collections.
    # `pending`: 2k after a `key:` at column k with nothing after it, 2d + 1 after a `-` at
    # column d with nothing after it, else -1.
    memo = _MEMO
    first = _first(lines, memo)
    if first is None:
        return False
    i, said = first
    n, enc, push, pend, after, k = said
    top = -enc
    stack = [top]
    pending = -1
    skip = i + 1
    while True:
        if push >= 0:
            stack.append(push)  # `- key: ...`: a mapping whose keys sit after the dash
            top = push
        if after >= 0:
            skip = _block_scalar(lines, skip - 1, lines[skip - 1][after:], k)
            if skip < 0:
                return False
        else:
            pending = pend
        # the next line to read
        while True:
            if skip >= len(lines):
                return pending < 0 or not pending & 1 or len(stack) > 1  # (an item `-` alone: null)
            line = lines[skip]
            skip += 1
            got = memo.get(line)
            if got is None:
                got = _said(line, memo)
                if got is None:
                    return False
            if got:
                break
        n, enc, push, pend, after, k = got
        if pending >= 0:
            # the value below `key:` or `-`: a collection deeper than either, or a sequence
            # at its key's column; else the value was null
            p = pending >> 1
            opens = n > p or n == p and enc & 1 and not pending & 1
            pending = -1
            if opens:
                stack.append(enc)
                top = enc
                continue
        if top != enc:
            top = _close(stack, n, enc)
            if top != enc:
                return False


def _first(lines: list[str], memo: Memo) -> tuple[int, tuple[int, int, int, int, int, int]] | None:
    """The item's dash line, after blank lines and comments: (its index, what it says)."""
    for i, line in enumerate(lines):
        said = _said(line, memo)
        if said is None:
            return None
        if said:
            return (i, said) if said[1] & 1 else None
    return None


def _close(stack: list[int], n: int, enc: int) -> int:
    """A line at column n of kind `enc` left of the innermost collection (or not of its kind:
    a key after an indentless sequence): the collections closed down to the line's own; the
    innermost one left."""
    top = stack[-1]
    while top >> 1 > n or top & 1 and top >> 1 == n and not enc & 1:
        stack.pop()
        top = stack[-1]
    return top


def _said(line: str, memo: Memo) -> tuple[int, int, int, int, int, int] | tuple[()] | None:
    """_line's verdict on `line`, remembered."""
    said = memo.get(line)
    if said is None:
        said = _line(line)
        if said is None:
            return None
        memo.keep(line, said)
    return said


# what _line says of a line, by its text (most lines repeat across objects: `kind: Service`,
# kpt's annotations); bounded, cleared when full
_MEMO = Memo(4096)


def _line(line: str) -> tuple[int, int, int, int, int, int] | tuple[()] | None:
    """What one line says, whatever surrounds it, in the terms of _check: () for a blank line
    or a comment, else (its column n; 2n + 1 for a sequence entry `-`, else 2n; the mapping a
    `- key: ...` opens, else -1; what it leaves pending, else -1; the column of a block
    scalar's header, else -1; the column of the key it is the value of); None when this
    reader is not sure of it."""
    said = _parts(line)
    if not said:
        return said
    n, dash, m, after = said
    return (
        n,
        2 * n + 1 if dash else 2 * n,
        2 * m if dash and m >= 0 else -1,
        (2 * m if m >= 0 else 2 * n + 1) if after == -2 else -1,
        after if after >= 0 else -1,
        m,
    )


def _parts(line: str) -> tuple[int, bool, int, int] | tuple[()] | None:
    """What one line says: () for a blank line or a comment, else (its column n; whether it
    is a sequence entry `-`; m, the column of the mapping key on it (n, or n + 2 after a
    dash; -1: none); after: -1 when its value ends on it, -2 when it has none (a value below,
    or null), else the column of a block scalar's header); None when not sure."""
    s = line.lstrip(" ")
    if not s or s[0] == "#":
        return ()
    n = len(line) - len(s)
    if n > _MAX_INDENT:
        return None
    ch = s[0]
    if ch == "-" and (len(s) == 1 or s[1] == " "):
        return _entry(line, s[2:], n)
    if ch in _SLOW_FIRST:
        after = _slow_line(line, n)
        return None if after is None else (n, False, n, after)
    c = _colon(s)
    return None if c < 0 else _key_value(line, s, c, n, False, n)


def _entry(line: str, s: str, n: int) -> tuple[int, bool, int, int] | None:
    """_parts of a sequence entry `- ...` at column n, `s` what follows `- `: nothing (the
    value below), a compact mapping `- key: ...`, or a scalar."""
    if not s or s[0] == " " or s[0] == "#":
        if s[:1] == " " and s.lstrip(" ")[:1] not in ("", "#"):
            return None  # `-   value`: not as manifests are written
        return n, True, -1, -2
    k = n + 2
    ch = s[0]
    if ch == "-" and (len(s) == 1 or s[1] == " "):
        return None  # `- - a`
    if ch in _SLOW_FIRST:
        if (ch == '"' or ch == "'") and _quoted_key_end(s, 0):
            after = _slow_line(line, k)
            return None if after is None else (n, True, k, after)
        if ch == "|" or ch == ">" or not _inline(line, k):
            return None  # (a block scalar as an entry: left to the others)
        return n, True, -1, -1
    c = _colon(s)
    if c < 0:  # a plain scalar entry
        return (n, True, -1, -1) if _plain(s) else None
    return _key_value(line, s, c, n, True, k)


def _key_value(line: str, s: str, c: int, n: int, dash: bool, k: int) -> tuple[int, bool, int, int] | None:
    """_parts of a line (column n) whose plain key starts `s` (at column k), its `:` at s[c]:
    the value after it."""
    if c > _MAX_KEY or " #" in s[:c]:
        return None
    j = c + 1
    if j >= len(s):
        return n, dash, k, -2
    v = s[j + 1 :] if s[j + 1 : j + 2] != " " else s[j:].lstrip(" ")
    if not v or v[0] == "#":
        return n, dash, k, -2
    if v[0] in _SLOW_FIRST:
        after = _slow_value(line, len(line) - len(v))
        return None if after is None else (n, dash, k, after)
    return (n, dash, k, -1) if _plain(v) else None


# first characters that the loop above leaves to the slower paths: quoted and flow scalars,
# block scalars, indicators (_inline refuses them), and `-`, `?` and `:` (plain only before a
# non-blank)
_SLOW_FIRST = frozenset("#&*!|>'\"%@`,[]{}-?:")


def _colon(s: str) -> int:
    """The index of the `:` that ends a plain key at s[0] (followed by a blank or the end),
    or -1."""
    c = s.find(":")
    while c >= 0 and c + 1 < len(s) and s[c + 1] != " ":
        c = s.find(":", c + 1)
    return c


def _plain(v: str) -> bool:
    """Whether v (from a non-indicator on) is a plain scalar on one line, a comment at most
    after it."""
    if " #" in v:
        v = v[: v.find(" #")]
    if v[-1] == " ":
        v = v.rstrip(" ")
    return ": " not in v and v[-1] != ":"


def _slow_line(line: str, k: int) -> int | None:
    """A mapping line whose key at column k is not a plain one the fast path takes: a quoted
    key, or a plain one that starts with `-`, `?` or `:` (scalars.key_end's); _line's `after`, or None."""
    at = key_end(line, k)
    if at >= 0:
        pass
    elif line[k] == '"' or line[k] == "'":
        at = k + _quoted_key_end(line[k:], 0)
        if at == k:
            return None
    else:
        return None
    if at - k > _MAX_KEY:
        return None
    rest = line[at:].lstrip(" ")
    if not rest or rest[0] == "#":  # (key_end and _quoted_key_end: a blank or the end after `:`)
        return -2
    return _slow_value(line, len(line) - len(rest))


def _slow_value(line: str, c: int) -> int | None:
    """The value at column c that is no plain scalar: _line's `after`, or None."""
    ch = line[c]
    if ch == "|" or ch == ">":
        return c
    return -1 if _inline(line, c) else None


def _quoted_key_end(line: str, c: int) -> int:
    """The column after `"key":` or `'key':` at c (followed by a blank or the line's end), or 0."""
    _, end = quoted(line, c)
    if line.startswith(":", end) and (len(line) == end + 1 or line[end + 1] == " "):
        return end + 1
    return 0


def _inline(line: str, c: int) -> bool:
    """Whether the scalar or flow collection at line[c:] is one this reader is sure of, ending
    on its line (then a comment at most)."""
    ch = line[c]
    if ch == "'" or ch == '"':
        end = line.find(ch, c + 1)
        if end < 0:
            return False  # closed on a later line, if at all
        if ch == "'" and line.startswith("'", end + 1) or ch == '"' and "\\" in line[c:end]:
            _, end = quoted(line, c)  # `''`, escapes (Unsure for those JSON has not)
        else:
            end += 1
        return _tail(line, end)
    if ch == "[" or ch == "{":
        _, end = flow_collection(line, c, 0)
        flow = line[c:end]
        if flow.count(":") != flow.count(": ") and _colon_in_flow_plain(flow):
            return False  # `[x:y]`: ruamel reads a string, libyaml refuses it
        return _tail(line, end)
    if ch in _NOT_PLAIN_FIRST:
        return False
    if (ch == "-" or ch == "?" or ch == ":") and (len(line) == c + 1 or line[c + 1] == " "):
        return False
    cut = line.find(" #", c)
    v = line[c:] if cut < 0 else line[c:cut]
    v = v.rstrip(" ")
    return ": " not in v and v[-1] != ":"


def _colon_in_flow_plain(flow: str) -> bool:
    """Whether a `:` not followed by a blank sits outside quotes in a flow collection (one
    that flow_collection read)."""
    q = ""
    i = 0
    while i < len(flow):
        ch = flow[i]
        if q:
            if ch == "\\" and q == '"':
                i += 1  # an escaped character
            elif ch == q:
                q = ""  # (`''` closes and reopens: the same for this question)
        elif ch == "'" or ch == '"':
            q = ch
        elif ch == ":" and flow[i + 1 : i + 2] != " ":
            return True
        i += 1
    return False


def _tail(line: str, end: int) -> bool:
    """Nothing after a scalar that ends at `end` but blanks and a comment after a blank."""
    tail = line[end:]
    if not tail:
        return True
    rest = tail.lstrip(" ")
    return not rest or (rest[0] == "#" and rest != tail)


def _block_scalar(lines: list[str], i: int, header: str, k: int) -> int:
    """A literal or folded block scalar whose header (`|`, `>-`...) is `header`, on line i,
    the value of a key at column k: its lines are those indented as the first of them, which
    is deeper than k, or deeper, and blank lines. The line after it, or -1 when unsure."""
    cut = header.find(" #")
    h = (header if cut < 0 else header[:cut]).rstrip(" ")
    if h not in _BLOCK_HEADERS:
        return -1  # an explicit indentation indicator, or text after the header
    n_lines = len(lines)
    j = i + 1
    while j < n_lines:
        s = lines[j]
        if s:
            break
        j += 1
    if j >= n_lines:
        return -1
    first = lines[j]
    m = len(first) - len(first.lstrip(" "))
    if m <= k or m == len(first):
        return -1  # an empty scalar, or leading lines of blanks (the parsers differ on them)
    pad = " " * m
    j += 1
    while j < n_lines:
        s = lines[j]
        if s.startswith(pad) or not s.strip(" "):
            j += 1
            continue
        break
    return j
