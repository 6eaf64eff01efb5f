"""The scalars the light reader (light/parser) takes, and how it types them: plain scalars as YAML 1.2
resolves them (only the canonical forms ruamel writes back unchanged), quoted ones (JSON's
escapes in double quotes), flow collections (read as one line: lite joins the lines of one
that spans several), and the folding of text over lines. Anything else raises errors.Unsure,
and the item goes to the round-trip loader."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.data import Memo
from krm_fn.core.errors import Unsure
from krm_fn.yaml import emitter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class SQ(str):
    """A single-quoted scalar of the input (kept quoted when copied, as ruamel does)."""


class Lit(str):
    """A literal block scalar of the input."""


class Folded(Lit):
    """A folded block scalar of the input (`>`, `>-`): kept as written, never written anew."""


DQ = emitter.DQ

NOT_PLAIN = frozenset("'\"[{|>")
# Plain keys the writer can emit as they are: Kubernetes field and label/annotation keys.
# A key of that shape is found by key_end, in string operations: the pattern that found it
# (KEY_RE, r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?= |$)", in tests/unit/yaml/light/test_scalars.py)
# cost 0.4 M instructions to compile at every start, issue 34.
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")  # \w of ASCII text: a plain key's first character (io/identity, io/scanner too)
KEY_CHARS = WORD_CHARS | frozenset("./-")


def key_end(line: str, i: int = 0) -> int:
    """The index after the `:` of a plain key of that shape at line[i] (`[A-Za-z0-9_]`, then
    `[A-Za-z0-9_./-]`, then `:`) followed by a blank or the line's end; -1 if there is none.
    The key is line[i : key_end(line, i) - 1]."""
    c = line.find(":", i)
    if c <= i or line[i] not in WORD_CHARS or not KEY_CHARS.issuperset(line[i + 1 : c]):
        return -1
    n = len(line)
    if c + 1 == n or line[c + 1] == " " or c + 2 == n and line[c + 1] == "\n":
        return c + 1  # (`$` before a final newline too, as the pattern's)
    return -1
# The characters the reader takes in a scalar are the printable ones (str.isprintable): ASCII
# from space to `~`, and of the rest of Unicode letters, marks, numbers, punctuation and
# symbols (a description in German, a name in Japanese, an emoji); not tabs or other
# controls, NEL, the line and paragraph separators (line breaks to a YAML 1.1 reader), other
# separators (a no-break space), format characters (a byte order mark), surrogates or
# unassigned code points. None of those taken is one of YAML's indicators or blanks, so a
# scalar holding them reads as its text, as a string. (A test in C: a pattern of Unicode's
# ranges costs milliseconds to compile at every start.)
_PLAIN_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./$(~=+-")
# What start-up would compile as patterns is asked with set and string operations: each
# pattern costs a small input more to compile (0.3-0.6 M instructions) than all its uses
# (issue 34); tests/unit/yaml/light/test_scalars.py checks each against its pattern.
NUMBERISH = frozenset("-+.0123456789")  # a number's or a timestamp's first character: [-+.0-9]
_DIGITS = frozenset("0123456789")
_NULLS = frozenset({"null", "Null", "NULL", "~"})
_SPECIAL = frozenset({"~", "null", "Null", "NULL", "True", "TRUE", "False", "FALSE", "<<", "="})


def ascii_printable(s: str) -> bool:
    """re.fullmatch(r"[\x20-\x7e]*", s): what the writer writes quoted (splice/newtext)."""
    return s.isascii() and s.isprintable()


def is_int(s: str) -> bool:
    """re.fullmatch(r"-?(?:0|[1-9][0-9]*)", s): an integer in canonical form."""
    t = s[1:] if s[:1] == "-" else s
    return t.isascii() and t.isdigit() and (t == "0" or t[0] != "0")


def starts_as_date(s: str) -> bool:
    """re.match(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", s): a timestamp's date."""
    if len(s) < 8 or s[4] != "-" or not _DIGITS.issuperset(s[:4]) or s[5] not in _DIGITS:
        return False
    i = 7 if s[6] in _DIGITS else 6  # after the month's one or two digits
    return s[i : i + 1] == "-" and s[i + 1 : i + 2] in _DIGITS  # ("" is not in _DIGITS)


def folded(lines: list[str]) -> str:
    """Lines of text folded as YAML folds a folded block scalar and a plain scalar over
    several lines: the line break between two lines of text is a space; with n empty lines
    ("") between them, n line breaks. A line more indented than the block's (a folded
    scalar's: it starts with a blank) is not folded: the breaks around it are all kept. The
    first and last lines are text."""
    parts = [lines[0]]
    empty = 0
    prev = lines[0]
    for cur in lines[1:]:
        if not cur:
            empty += 1
            continue
        if prev[0] == " " or cur[0] == " ":
            parts.append("\n" * (empty + 1))
        else:
            parts.append("\n" * empty if empty else " ")
        parts.append(cur)
        prev = cur
        empty = 0
    return "".join(parts)


def quoted_key(line: str, col: int) -> tuple[Any, int] | None:
    """(key, end of `"key":`) of a quoted key at `col` (`"app.kubernetes.io/name": x`, read
    as the round-trip loader reads it: a string that keeps its quotes, SQ or DQ); None when
    no quoted scalar followed by `: ` or `:` at the line's end starts there (Unsure for a
    quoted scalar this reader does not take)."""
    if line[col : col + 1] not in ("'", '"') or closing_quote(line, col + 1, line[col]) < 0:
        return None  # (a quoted scalar over several lines is no key this reader takes)
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
        return DQ(unescaped(body)), end
    return DQ(body), end


# JSON's escapes, which a YAML reader reads the same (not a \u of half a surrogate pair: JSON
# joins two of them into one character, YAML does not); compiled on first use (re's cache)
_JSON_ESCAPE = r'\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})'


def unescaped(body: str) -> str:
    """A double-quoted scalar's text with its escapes read; Unsure for an escape JSON does not
    have (YAML's \\x41, \\0, \\e...)."""
    if "\\" in patterns.sub(_JSON_ESCAPE, "", body):
        raise Unsure("escape")
    import json  # here: few inputs hold escapes (json: ~1 ms to import)

    return str(json.loads('"' + body + '"'))


def comment_after(line: str, end: int) -> bool:
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
    end = closing_quote(line, col + 1, q)
    if end < 0:
        raise Unsure("multi-line quoted scalar")
    if not line[col:end].isprintable():
        raise Unsure("control characters")
    return end


def closing_quote(line: str, k: int, q: str) -> int:
    """The column after the quote `q` that closes a scalar whose text goes on at column k of
    `line` (`''` is a quote in single quotes, `\\"` in double ones), or -1 when none does."""
    start = k
    while True:
        k = line.find(q, k)
        if k < 0:
            return -1
        if q == "'" and line.startswith("''", k):
            k += 2
            continue
        if q == '"' and (k - start - len(line[start:k].rstrip("\\"))) % 2:
            k += 1  # an escaped quote
            continue
        return k + 1


_FLOW_DEPTH = 16  # deeper flow nesting is left to the round-trip loader
_FLOW_PLAIN_END = r"[,\[\]{}]|:(?=[ ,\[\]{}]|$)| #"  # what flow_plain_end finds (a test compares)


def flow_collection(line: str, i: int, depth: int) -> tuple[Any, int]:
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
            at = key_end(line, i)
            if at >= 0:
                key = line[i : at - 1]
                if resolve(key) is not key:
                    raise Unsure("flow mapping key")
                i = at
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


def open_brackets(text: str, i: int) -> int:
    """How many of the flow collections that open at or after text[i] are still open at the
    end of `text`, 0 once the first is closed (a quoted scalar starts where a node does:
    after `[`, `{`, `,`, `:` or at i); Unsure for a comment inside, or a bracket closed that
    is not open."""
    depth = 0
    q = ""
    node = True  # a node may start here
    n = len(text)
    while i < n:
        c = text[i]
        if q:
            if c == "\\" and q == '"':
                i += 2
                continue
            if c == q:
                if q == "'" and text.startswith("''", i):
                    i += 2
                    continue
                q = ""
            i += 1
            continue
        if c in "[{":
            depth += 1
            node = True
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                if depth < 0:
                    raise Unsure("flow")
                return 0  # closed: what follows is the line's (a comment may)
            node = False
        elif c in ",:":
            node = True
        elif c in "'\"" and node:
            q = c
            node = False
        elif c == "#" and i and text[i - 1] == " ":
            raise Unsure("comment in a flow collection")
        elif c != " ":
            node = False
        i += 1
    return depth


def _flow_value(line: str, i: int, depth: int) -> tuple[Any, int]:
    """The value at line[i] inside a flow collection, and the column after it."""
    c = line[i : i + 1]
    if c == "[" or c == "{":
        return flow_collection(line, i, depth + 1)
    if c == "'" or c == '"':
        return quoted(line, i)
    if not c or c in ",]}":
        raise Unsure("empty flow value")
    # a plain scalar ends before an indicator, before `:` that ends a key, before ` #`; a
    # colon with another character after it is the scalar's own (`https://host:8443/x`)
    text = line[i : flow_plain_end(line, i)].rstrip(" ")
    if not text:
        raise Unsure("empty flow value")
    return plain_value(text), i + len(text)


_FLOW_STOPS = frozenset(",[]{}")
_AFTER_COLON = frozenset(" ,[]{}")


def flow_plain_end(line: str, i: int) -> int:
    """Where a plain scalar inside a flow collection that starts at line[i] ends: the first
    match of _FLOW_PLAIN_END from i, else len(line). Asked character by character (a flow
    value is a word or two): the pattern cost more to compile at every start than its uses
    (issue 34)."""
    n = len(line)
    for j in range(i, n):
        c = line[j]
        if c in _FLOW_STOPS:
            return j
        if c == ":":
            after = line[j + 1 : j + 2]
            if not after or after in _AFTER_COLON or (after == "\n" and j + 2 == n):  # `$`
                return j
        elif c == " " and line[j + 1 : j + 2] == "#":
            return j
    return n


# The values of plain scalars already read (most repeat: ReadWriteOnce, kubernetes.io/hostname...)
_PLAIN_VALUES = Memo(65536)
_MISSING = object()


def plain_value(text: str) -> Any:
    """The value of a plain scalar's text as YAML 1.2 resolves it (remembered); Unsure for a
    form the light reader does not take."""
    v = _PLAIN_VALUES.get(text, _MISSING)
    if v is not _MISSING:
        return v
    _plain_text(text)
    # null: ruamel writes `key:` for it, so a line that holds one is never rewritten
    # (_clean): both writers keep it as it is
    v = None if text in _NULLS else resolve(text)
    _PLAIN_VALUES.keep(text, v)
    return v


def _plain_text(text: str) -> None:
    """Unsure unless `text` is a plain scalar this reader takes: printable text, no indicator
    first (what it resolves to is resolve's, or a tag's)."""
    c = text[:1]
    if not c or (c not in _PLAIN_FIRST and (c.isascii() or not c.isprintable())) or not text.isprintable():
        raise Unsure("plain scalar")
    if text[:2] in ("- ", "? ", ": ") or text in ("-", "?"):
        raise Unsure("plain scalar")
    if ": " in text or " #" in text or "\t" in text or text.endswith(":"):
        raise Unsure("plain scalar")


def tagged_str(line: str, col: int) -> tuple[Any, int]:
    """The scalar tagged `!!str` at `col` (`!!str 0755`, `!!str 'x'`) and the column after
    it: the string it writes, double-quoted as the round-trip path makes it (so that a
    whole-object write keeps it a string: loader._untag_strings); Unsure for any other tag,
    or a value that is not a one-line plain or quoted scalar."""
    if not line.startswith("!!str ", col):
        raise Unsure("tag")
    c = col + 6
    first = line[c : c + 1]
    if first == "'" or first == '"':
        v, end = quoted(line, c)
        return DQ(v), end
    if not first or first in NOT_PLAIN or first in "!&*":
        raise Unsure("tagged value")
    cut = line.find(" #", c)
    text = (line[c:] if cut < 0 else line[c:cut]).rstrip(" ")
    _plain_text(text)  # what it resolves to is the tag's: a string
    return DQ(text), c + len(text)


# Keys already known to read as themselves (a string, not true/1/null), each kept once: most
# keys repeat, and every object read holds its keys (10,000 objects: 290,000 key strings).
PLAIN_KEYS: dict[str, str] = {}


def plain_key(key: str) -> str:
    """A key that key_end found, when it reads as the string itself (remembered); Unsure
    for a key YAML types (true, 1, null)."""
    if resolve(key) is not key:
        raise Unsure("key")
    if len(PLAIN_KEYS) < 65536:
        PLAIN_KEYS[key] = key
    return key


def resolve(text: str) -> Any:
    """The YAML 1.2 value of a plain scalar, as ruamel reads it, for the canonical forms
    ruamel also writes back unchanged; Unsure for any other typed form."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text in _SPECIAL:
        raise Unsure("typed scalar")
    if text[:1] in NUMBERISH:
        if is_int(text):
            return int(text)
        if emitter.NUMBER_RE.match(text) or starts_as_date(text) or text[0] in "+.":
            raise Unsure("number form")
    return text
