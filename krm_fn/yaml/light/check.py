"""A check-only reader: whether one item's text (an entry of `items`, from its dash line on)
is surely YAML, without building its data or positions. It is the syntax check of the objects
no transform reads (io/resourcelist.check_untouched), which are then echoed as they came: the
full light reader (light/parser) costs about 0.7 M instructions an object for data nothing
looks at, this a tenth of it.

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

from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import KEY_RE
from krm_fn.yaml.light.scalars import flow_collection
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
    # the open block collections, innermost last: a mapping whose keys sit at column c as
    # 2c, a sequence whose dashes do as 2c + 1 (the item's own dash opens the first, which
    # holds this one entry); `pending`: 2k after a `key:` at column k with nothing after it,
    # 2d + 1 after a `-` at column d with nothing after it, else -1
    stack: list[int] = []
    pending = -1
    memo = _MEMO
    n_lines = len(lines)
    i = 0
    while i < n_lines:
        line = lines[i]
        i += 1
        said = memo.get(line)
        if said is None:
            said = _line(line)
            if said is None:
                return False
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            memo[line] = said
        if not said:
            continue  # blank, or a comment
        n, dash, m, after = said
        if not stack:  # the item's dash line (blank lines and comments before it)
            if not dash:
                return False
            stack.append(2 * n + 1)
        else:
            opened = False
            if pending >= 0:
                # the value below `key:` or `-`: a collection deeper than either, or a
                # sequence at its key's column; else the value was null
                p = pending >> 1
                if n > p or n == p and dash and not pending & 1:
                    stack.append(2 * n + 1 if dash else 2 * n)
                    opened = True
                pending = -1
            if not opened:
                top = stack[-1]
                while top >> 1 > n or (top == 2 * n + 1 and not dash):
                    stack.pop()
                    if len(stack) < 2:
                        return False  # at the item's dash column or left of it: not this item
                    top = stack[-1]
                if top >> 1 != n or (top & 1) != dash or (dash and len(stack) < 2):
                    return False
        if dash and m > n:
            stack.append(2 * m)  # `- key: ...`: a mapping whose keys sit after the dash
        if after == -1:
            continue
        if after == -2:
            pending = 2 * m if m >= 0 else 2 * n + 1
            continue
        i = _block_scalar(lines, i - 1, line[after:], m)
        if i < 0:
            return False
    return pending < 0 or not pending & 1 or len(stack) > 1  # (an item `-` alone: null)


# what _line says of a line, by its text (most lines repeat across objects: `kind: Service`,
# kpt's annotations); bounded, cleared when full
_MEMO: dict[str, tuple[int, bool, int, int] | tuple[()]] = {}
_MEMO_MAX = 4096


def _line(line: str) -> tuple[int, bool, int, int] | tuple[()] | None:
    """What one line says, whatever surrounds it: () for a blank line or a comment, else (its
    column n; whether it is a sequence entry `-`; m, the column of the mapping key on it (n,
    or n + 2 after a dash; -1: none); after: -1 when its value ends on it, -2 when it has
    none (a value below, or null), else the column of a block scalar's header); None when
    this reader is not sure of it."""
    s = line.lstrip(" ")
    if not s or s[0] == "#":
        return ()
    n = len(line) - len(s)
    if n > _MAX_INDENT:
        return None
    ch = s[0]
    dash = ch == "-" and (len(s) == 1 or s[1] == " ")
    if dash:
        # `- ...`: nothing (the value below), a compact mapping `- key: ...`, or a scalar
        s = s[2:]
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
    elif ch in _SLOW_FIRST:
        after = _slow_line(line, n)
        return None if after is None else (n, False, n, after)
    else:
        k = n
        c = _colon(s)
        if c < 0:
            return None
    # a plain key at column k, its `:` at s[c]; the value after it
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
    key, or a plain one that starts with `-`, `?` or `:` (KEY_RE's); _line's `after`, or None."""
    km = KEY_RE.match(line, k)
    if km is not None:
        at = km.end()
    elif line[k] == '"' or line[k] == "'":
        at = k + _quoted_key_end(line[k:], 0)
        if at == k:
            return None
    else:
        return None
    if at - k > _MAX_KEY:
        return None
    rest = line[at:].lstrip(" ")
    if not rest or rest[0] == "#":  # (KEY_RE and _quoted_key_end: a blank or the end after `:`)
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
        _, end = quoted(line, c)  # Unsure when it does not close on the line, or escapes
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
