"""An item's identity (apiVersion, kind, metadata.name, namespace, generateName, annotations
and labels) read from its text without parsing it: the top-level entries found by
indentation and their plain or quoted scalars read here; anything else (a flow mapping, an
anchor, a tag) read by libyaml's composer from that item's text alone.

Also the line scans the item scanner and this reader find YAML lines with: keys, content
lines, lines at or between indentations (string operations; patterns for a long input, see
patterns.scan_pattern). (They were a module of their own, io/lines, for 70 lines: one more file to find
and load at every start, 0.07 ms of a one-PipelineRun run, issue 26.)
"""
from __future__ import annotations

from itertools import accumulate
from itertools import compress
from itertools import repeat

from krm_fn.core import patterns
from krm_fn.core.errors import Unsure
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.yaml import emitter
from krm_fn.yaml import guards
from krm_fn.yaml import layout
from krm_fn.yaml import libyaml
from krm_fn.yaml.light import scalars
from krm_fn.yaml.light.scalars import KEY_CHARS
from krm_fn.yaml.light.scalars import WORD_CHARS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


# The lines this reader looks for (keys, content lines, lines at or between indentations) are
# found by string operations: each pattern that found them cost 0.3-0.5 M instructions to
# compile at every start, more than all its uses on a small input (issue 34; the patterns
# live on in tests/unit/io/test_identity.py, each compared with what replaced it). Two scans
# look at every line of what they cover (lines_at: the keys of a mapping at one indent;
# shallow_lines: the top-level lines, the dash lines of `items`), where a pattern skips the
# lines it does not want in C, about six times faster a line: each kind of scan uses string
# operations until what they covered has cost what its compile costs (patterns.scan_pattern),
# then its pattern. Both ways find the same lines (the tests run both).


_AT_INDENT = "\\n {%d}([^ \\n#][^\\n]*)(?=\\n)"


def key_value(line: str) -> tuple[str, str | None] | None:
    """(key, raw inline value) of a one-line `key: value` with a plain key of the common
    shape; the value None after a bare `key:`, stripped of blanks otherwise; None for any
    other line. As re.match(r"([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$") reads a
    line without a newline."""
    c = line.find(":")
    if c <= 0:
        return None
    key = line[:c]
    if key[-1] == " ":
        key = key.rstrip(" ")
    if not key or key[0] not in WORD_CHARS or not KEY_CHARS.issuperset(key):
        return None
    if c + 1 == len(line):
        return key, None
    if line[c + 1] != " ":
        return None
    return key, line[c + 1 :].strip(" ")


def first_content(text: str, pos: int = 0, end: int | None = None) -> tuple[int, int] | None:
    """The first line after the newline at or after `pos` that holds more than blanks and a
    comment, before `end`: (the index of the newline before it, its indent); None if none.
    As re.search(r"\n( *)[^ \n#]", ...) finds it."""
    if end is None:
        end = len(text)
    p = text.find("\n", pos, end)
    while p >= 0:
        eol = text.find("\n", p + 1, end)
        line = text[p + 1 : end if eol < 0 else eol]
        s = line.lstrip(" ")
        if s and s[0] != "#":
            return p, len(line) - len(s)
        p = eol
    return None


def lines_at(text: str, a: int, b: int, c: int) -> list[tuple[int, int, int]]:
    """Non-comment lines indented exactly `c` in text[a:b] (a: a line start after a newline),
    each ended by a newline before b: (the index of the newline before it, the start of its
    text after the indent, its end). The keys of a block mapping, each line then read by
    key_value. As re.finditer(r"\n {c}([^ \n#][^\n]*)(?=\n)", text, a - 1, b) finds them."""
    pattern = patterns.scan_pattern(_AT_INDENT, c, b - a)
    if pattern is not None:
        return [(m.start(), m.start(1), m.end(1)) for m in pattern.finditer(text, a - 1, b)]
    return _lines_at(text, a, b, c)


def _lines_at(text: str, a: int, b: int, c: int) -> list[tuple[int, int, int]]:
    """lines_at by string operations."""
    out: list[tuple[int, int, int]] = []
    prefix = "\n" + " " * c
    deeper = prefix + " "
    find = text.find
    p = find(prefix, a - 1, b)
    while p >= 0:
        if text.startswith(deeper, p):
            p = find(prefix, p + 1, b)  # a deeper line
            continue
        ls = p + 1 + c
        le = find("\n", ls, b)
        if le < 0:
            break  # no newline after it before b: neither after any line further on
        if ls < le and text[ls] != "#":
            out.append((p, ls, le))
        p = find(prefix, le, b)
    return out


def any_between(text: str, a: int, b: int, lo: int, hi: int) -> bool:
    """Whether a non-comment line in text[a:b] (a: a line start after a newline) is indented
    lo..hi: too shallow for the mapping being read. As re.search(r"\n {lo,hi}[^ \n#]", text,
    a - 1, b) tells it."""
    prefix = "\n" + " " * lo
    # lines indented lo or more, less those indented more than hi: none, and none is (in C)
    if text.count(prefix, a - 1, b) == text.count(prefix + " " * (hi + 1 - lo), a - 1, b):
        return False
    p = text.find(prefix, a - 1, b)
    while p >= 0:
        eol = text.find("\n", p + 1, b)
        line = text[p + 1 : b if eol < 0 else eol]
        s = line.lstrip(" ")
        if s and s[0] != "#" and len(line) - len(s) <= hi:
            return True
        p = text.find(prefix, p + 1, b)
    return False


def indented_content(text: str) -> bool:
    """Whether a line of `text` is indented and holds more than a comment (content before
    the first top-level key)."""
    for line in text.split("\n"):
        if line[:1] == " ":
            s = line.lstrip(" ")
            if s and s[0] != "#":
                return True
    return False


def shallow_lines(text: str, a: int, b: int, k: int) -> list[tuple[int, str]]:
    """The lines of text[a:b] (a: 0 or a line start after a newline) indented at most k that
    hold more than blanks: (their start, their text up to the newline or b). The top-level
    lines of the input (k = 0); the item starts and head comments of `items` (k = the dash
    indent + 1). As re.finditer(r"\n( {0,k}[^ \n][^\n]*)", "\n" + text) finds them."""
    pattern = patterns.scan_pattern("\\n( {0,%d}[^ \\n][^\\n]*)", k, b - a)
    if pattern is not None:
        first: list[tuple[int, str]] = []
        if a == 0:  # the first line, which no newline starts
            eol = text.find("\n", 0, b)
            line = text[: b if eol < 0 else eol]
            if line and not line.startswith(" " * (k + 1)) and line.strip(" "):
                first.append((0, line))
        return first + [(m.start() + 1, m.group(1)) for m in pattern.finditer(text, a - 1 if a else 0, b)]
    lines = text[a:b].split("\n")
    # lines not indented k + 1 or more, picked in C (map, compress); then the blank ones left out
    picked = compress(range(len(lines)), map(int.__lt__, map(str.startswith, lines, repeat(" " * (k + 1))), repeat(1)))
    out: list[tuple[int, str]] = []
    starts: list[int] | None = None
    for i in picked:
        line = lines[i]
        if line and line.strip(" "):
            if starts is None:
                starts = list(accumulate(map(len, lines), initial=a))
            out.append((starts[i] + i, line))
    return out


def only_blank_or_comment(text: str, a: int = 0, b: int | None = None) -> bool:
    end = len(text) if b is None else b
    if a >= end:
        return True
    # each line blanks, or blanks and a comment (re.match(r"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*"
    # up to `end`, in string operations: the pattern cost more to compile at every start
    # than its uses, issue 34); stops at the first line that holds more
    while a < end:
        eol = text.find("\n", a, end)
        if eol < 0:
            eol = end
        line = text[a:eol].lstrip(" ")
        if line and line[0] != "#":
            return False
        a = eol + 1
    return True


COMPLEX = object()


# the common scalars, asked with sets (re.fullmatch(r"([A-Za-z_][A-Za-z0-9_./-]*)|'([^'\n]*)'"):
# the pattern cost more to compile at every start than its uses, issue 34)
_SIMPLE_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_SIMPLE_CHARS = _SIMPLE_FIRST | frozenset("0123456789./-")


# the only plain words of that shape a YAML 1.1 or 1.2 reader takes for a bool or null
_BOOL_NULL_WORDS = frozenset(
    v for w in ("y", "n", "yes", "no", "on", "off", "true", "false", "null") for v in (w, w.upper(), w.capitalize())
)


def strip_comment(v: str) -> str:
    if v.lstrip().startswith("#"):
        return ""
    k = v.find(" #")
    return (v[:k] if k >= 0 else v).strip()


def plain_scalar(v: str | None) -> Any:
    """Decode a one-line scalar; None for an empty value, COMPLEX when unsure."""
    if v is None:
        return None
    first = v[:1]  # the common cases first: `v1`, `web-1`, `'0'`
    if first in _SIMPLE_FIRST and _SIMPLE_CHARS.issuperset(v):
        return COMPLEX if v in _BOOL_NULL_WORDS else v
    if first == "'" and v.find("'", 1) == len(v) - 1 > 0 and "\n" not in v:
        return v[1:-1]
    v = v.strip(" ")
    if not v or v.startswith("#"):
        return None
    if "\t" in v:
        return COMPLEX
    c = v[0]
    if c == "'" or c == '"':
        try:
            value, end = scalars.quoted(v, 0)  # one line, JSON's escapes: else the composer reads it
        except Unsure:
            return COMPLEX
        rest = v[end:].strip()
        if rest and not rest.startswith("#"):
            return COMPLEX
        return str(value)
    if c in "&*!|>{[%@`?,-":
        return COMPLEX
    s = strip_comment(v)
    if emitter.is_ambiguous(s) or ": " in s or s.endswith(":"):
        return COMPLEX  # a number, bool, null or date to a YAML reader; or not a scalar
    return s


# a plain scalar of words (no indicator, no colon, no quote, no comment) on its own line
# (re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_./ -]*"), asked with sets: issue 34)
_PLAIN_WORDS_FIRST = _SIMPLE_FIRST | frozenset("0123456789.")
_PLAIN_WORDS_CHARS = _PLAIN_WORDS_FIRST | frozenset("/ -")


def _plain_words(s: str) -> bool:
    return s[:1] in _PLAIN_WORDS_FIRST and _PLAIN_WORDS_CHARS.issuperset(s)


def make_item(pos: int, chunk: str, dash: int, d: int, where: list[Any] | None = None) -> Item:
    """An Item for `chunk`, whose dash line starts at offset `dash`. `where`: given, it gets
    the body start of each identity value's line (see _read_identity) when the lines told it all."""
    item = Item(pos=pos, text=chunk, meta=Meta())
    found: list[Any] | None = None if where is None else []
    eol = chunk.find("\n", dash)
    first = chunk[dash:eol]
    after = first[d + 1 :].lstrip(" ")
    try:
        if not after or after.startswith("#"):
            fc = first_content(chunk, eol)
            if fc is None:
                item.meta.is_mapping = False
                item.complex_meta = True
                return item
            c = fc[1]
            entries = _entries(chunk, fc[0] + 1, len(chunk), c, d + 1)
        elif after[0] in "{[" and _flow_identity(item, chunk, eol, first, len(first) - len(after)):
            return item
        elif _plain_words(after) and only_blank_or_comment(chunk, eol + 1):
            item.meta.is_mapping = False  # `- some words`: a plain scalar, no key on any line
            return item
        elif after[0] in "{[?!&*|>":
            raise Unsure("flow, tagged or anchored")
        else:
            c = len(first) - len(after)
            k, v = key_value(after) or _quoted_entry(after)
            entries = _entries(chunk, eol + 1, len(chunk), c, d + 1)
            # the first key's body ends where the line of the next key starts
            body_end = chunk.rfind("\n", 0, entries[0][2] - 1) + 1 if entries else len(chunk)
            entries.insert(0, (k, v, eol + 1, body_end))
        _read_identity(chunk, entries, c, item.meta, found)
        if where is not None:
            where.append(found)
    except Unsure:
        _composed_identity(item, chunk)
    return item


def _flow_identity(item: Item, chunk: str, eol: int, first: str, col: int) -> bool:
    """The identity of an item that is one flow collection on its dash line (kpt passes JSON
    and flow items through as `- {"apiVersion": ...}`), read by the light reader's flow
    parser: True when it is sure (a sequence is no object). Scalars must be strings YAML 1.1 and 1.2 both read as strings;
    anything else (a second line, a tag, an anchor, a duplicate key) is left to libyaml's
    composer (_composed_identity), which 500,000 such items took 14 s to go through."""
    if not only_blank_or_comment(chunk, eol + 1):
        return False
    try:
        data, end = scalars.flow_collection(first, col, 0)
        rest = first[end:]
        if rest.strip(" ") and not rest.lstrip(" ").startswith("#"):
            return False
        if isinstance(data, list):
            item.meta.is_mapping = False  # `- [a, b]`: a sequence, not an object
            return True
        meta = Meta()
        meta.api_version = _flow_str(data, "apiVersion")
        meta.kind = _flow_str(data, "kind")
        md = data.get("metadata", {})
        if not isinstance(md, dict):
            return False  # null, a scalar or a list where a mapping goes: the composer decides
        meta.name = _flow_str(md, "name")
        meta.namespace = _flow_str(md, "namespace")
        meta.generate_name = _flow_str(md, "generateName")
        ann = md.get("annotations", {})
        if not isinstance(ann, dict):
            return False
        for k in ann:
            if not isinstance(ann[k], (dict, list)):
                meta.annotations[_flow_str({0: k}, 0)] = _flow_str(ann, k)
    except Unsure:
        return False
    item.meta = meta
    return True


def _flow_str(m: dict[Any, Any], key: Any) -> str:
    """The flow scalar at m[key] as _plain_str reads it: quoted, or plain and a string to
    both YAML 1.1 and 1.2; "" when the key is absent; Unsure otherwise (a null included)."""
    if key not in m:
        return ""
    v = m[key]
    if isinstance(v, (scalars.SQ, scalars.DQ)):
        return str(v)
    if type(v) is str and v and not emitter.is_ambiguous(v):
        return v
    raise Unsure("not a string to every reader")


def make_document_item(pos: int, text: str) -> Item:
    """An Item whose text is a whole document (files mode). Its identity is read off the
    document as it is when its first content line is a plain key at column 0 (then every
    key of it is: anything else is unsure); otherwise, or when unsure, exactly as the
    document's `- ` entry would be read (make_item)."""
    # every line after a newline and ending with one, as the patterns want them
    t = "\n" + text if text.endswith("\n") else "\n" + text + "\n"
    fc = first_content(t)
    if fc is not None and not fc[1]:
        item = Item(pos=pos, text=text, meta=Meta(), document=True)
        a = fc[0] + 1
        if key_value(t[a : t.index("\n", a)]) is not None:
            try:
                _read_identity(t, _entries(t, a, len(t), 0, -1), 0, item.meta)
                return item
            except Unsure:
                pass
    entry = layout.entry_of(text)
    item = make_item(pos, entry, 0 if entry.startswith("-") else entry.index("\n-") + 1, 0)
    item.text = text
    item.document = True
    return item


def _entries(text: str, a: int, b: int, ind: int, outer: int) -> list[tuple[str, Any, int, int]]:
    """The keys of the block mapping indented `ind` in text[a:b] (a: a line start after a
    newline; lines indented `outer` or less are not part of it): (key, raw inline value,
    body start, body end). Deeper lines are skipped in C."""
    if ind > outer + 1 and any_between(text, a, b, outer + 1, ind - 1):
        raise Unsure("a line indented less than the mapping's keys")
    out: list[tuple[str, Any, int, int]] = []
    key = value = None
    start = 0
    pattern = patterns.scan_pattern(_AT_INDENT, ind, b - a)
    if pattern is not None:  # a long input: the lines found by the pattern, in C
        for m in pattern.finditer(text, a - 1, b):
            line = m.group(1)
            kv = key_value(line)
            if kv is not None:
                k, v = kv
            elif line[0] == "-" and (len(line) == 1 or line[1] == " "):
                continue  # an indentless sequence: the value of the key before
            else:
                k, v = _quoted_entry(line)
            le = m.end()
            if key is not None:
                out.append((key, value, start, m.start() + 1))
            key, value, start = k, v, le + 1
    else:
        for s, ls, le in _lines_at(text, a, b, ind):
            line = text[ls:le]
            kv = key_value(line)
            if kv is not None:
                k, v = kv
            elif line[0] == "-" and (le == ls + 1 or line[1] == " "):
                continue  # an indentless sequence: the value of the key before
            else:
                k, v = _quoted_entry(line)
            if key is not None:
                out.append((key, value, start, s + 1))
            key, value, start = k, v, le + 1
    if key is not None:
        out.append((key, value, min(start, b), b))
    return out


def _quoted_entry(line: str) -> tuple[str, str | None]:
    """(key, raw inline value) of a line that starts with a quoted key (`"kind": Task`), as
    the key pattern gives them for a plain one; Unsure for any other line."""
    said = scalars.quoted_key(line, 0)
    if not said:
        raise Unsure("not a key")
    key, at = said
    v = line[at:].strip(" ")
    return str(key), v or None


WANTED_META = ("name", "namespace", "generateName")  # the metadata fields of an identity (io/headers too)


def _single(text: str, v: str | None, a: int, b: int) -> Any:
    """The scalar value of an entry; COMPLEX if it goes on below its line."""
    val = plain_scalar(v)
    if val is not None and a < b and not only_blank_or_comment(text, a, b):
        return COMPLEX
    return val


def _read_identity(chunk: str, entries: list[tuple[str, Any, int, int]], c: int, meta: Meta, found: list[Any] | None = None) -> None:
    """`found`: given, it gets (Meta attribute or None for an annotation, annotation key, the
    offset after its line, the value as written) of every value read."""
    seen: set[str] = set()
    for key, v, a, b in entries:
        if key not in ("apiVersion", "kind", "metadata"):
            continue
        if key in seen:
            raise Unsure("duplicate " + key)
        seen.add(key)
        if key == "metadata":
            if plain_scalar(v) is not None:
                raise Unsure("flow metadata")
            fc = first_content(chunk, a - 1, b)
            if fc is not None:
                mi = fc[1]
                if mi <= c:
                    raise Unsure("metadata is not a mapping")
                _read_metadata(chunk, a, b, mi, c, meta, found)
            continue
        val = _single(chunk, v, a, b)
        if not isinstance(val, str):
            raise Unsure(key)
        attr = "kind" if key == "kind" else "api_version"
        setattr(meta, attr, val)
        if found is not None:
            found.append((attr, None, a, v))


def _read_metadata(chunk: str, a: int, b: int, mi: int, c: int, meta: Meta, found: list[Any] | None) -> None:
    seen: set[str] = set()
    for mk, mv, ma, mb in _entries(chunk, a, b, mi, c):
        if mk in WANTED_META:
            val = _single(chunk, mv, ma, mb)
            if mk in seen or not isinstance(val, str):
                raise Unsure(mk)
            seen.add(mk)
            attr = "generate_name" if mk == "generateName" else mk
            setattr(meta, attr, val)
            if found is not None:
                found.append((attr, None, ma, mv))
        elif mk == "annotations":
            if mk in seen or plain_scalar(mv) is not None:
                raise Unsure("flow annotations")
            seen.add(mk)
            fc = first_content(chunk, ma - 1, mb)
            if fc is None:
                continue
            ai = fc[1]
            if ai <= mi:
                raise Unsure("annotations is not a mapping")
            for ak, av, aa, ab in _entries(chunk, ma, mb, ai, mi):
                val = _single(chunk, av, aa, ab)
                # unsure of a value (a block scalar, an escape JSON lacks, a number): parse
                # the item, so that meta.annotations is always exactly what a reader sees
                if not isinstance(val, str) or ak in meta.annotations:
                    raise Unsure(ak)
                meta.annotations[ak] = val
                if found is not None:
                    found.append((None, ak, aa, av))


_STR_TAG = "tag:yaml.org,2002:str"


def _composed_identity(item: Item, chunk: str) -> None:
    """Identity of an item the line scanner is unsure of (flow or JSON items, which kpt
    passes through as `- {"apiVersion": ...}`, quoted keys, multi-line values, duplicate
    keys...), read from libyaml's node graph: C speed, exact strings, and each scalar's
    style, so that a plain `yes`, `0o17` or `null`, which YAML 1.1 and 1.2 read differently,
    sends the item to the round-trip loader (`complex_meta`). Duplicate identity keys are
    noted in meta.duplicates (the item is refused: readers disagree on which one counts)."""
    item.complex_meta = True
    item.meta = Meta()
    if guards.may_nest_deeper_than_limit(chunk):
        return  # the C composer recurses per level: the bounded loader names the depth
    root = libyaml.compose(chunk)  # only lists with such items pay for PyYAML
    if not libyaml.is_sequence(root) or len(root.value) != 1:
        return
    node = root.value[0]
    if libyaml.is_scalar(node) or libyaml.is_sequence(node):
        # not a mapping to any reader: said so at once (the round-trip loader took 0.2 ms
        # an item to find it out: 500,000 items `- a` took 39 s)
        item.meta.is_mapping = False
        item.complex_meta = False
        return
    meta = Meta()
    dups: list[str] = []
    try:
        top = _mapping(node, dups, "", ("apiVersion", "kind", "metadata"))
        if top is None:
            return
        meta.api_version = _plain_str(top.get("apiVersion"))
        meta.kind = _plain_str(top.get("kind"))
        md = _mapping(top.get("metadata"), dups, "metadata.", ("name", "namespace", "generateName", "annotations"))
        meta.duplicates = tuple(dups)
        if md is not None:
            meta.name = _plain_str(md.get("name"))
            meta.namespace = _plain_str(md.get("namespace"))
            meta.generate_name = _plain_str(md.get("generateName"))
            ann = _mapping(md.get("annotations"))
            for k, v in (ann or {}).items():
                if libyaml.is_scalar(v) and not (not v.style and v.value in ("", "~")):
                    meta.annotations[k] = _plain_str(v)
    except Unsure:
        return
    item.meta = meta
    item.complex_meta = False


def _mapping(
    node: Any, dups: list[str] | None = None, prefix: str = "", watched: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """A mapping node's entries by key (last wins); None if absent or not a mapping. A
    `watched` key met twice is added to `dups` (with `prefix`)."""
    if node is None or not libyaml.is_mapping(node):
        if node is not None and not libyaml.is_scalar(node):
            raise Unsure("a sequence where a mapping goes")
        if libyaml.is_scalar(node) and not (not node.style and node.value in ("", "~", "null")):
            raise Unsure("a scalar where a mapping goes")
        return None
    out: dict[str, Any] = {}
    for k, v in node.value:
        key = _plain_str(k)
        if key == "<<" or k.tag == "tag:yaml.org,2002:merge":
            raise Unsure("merge key")
        if key in out and key in watched and dups is not None:
            dups.append(prefix + key)
        out[key] = v
    return out


def _plain_str(node: Any) -> str:
    """The string a YAML 1.2 reader sees in a scalar node; Unsure for anything else."""
    if node is None:
        return ""
    if not libyaml.is_scalar(node):
        raise Unsure("not a scalar")
    if not node.style:  # plain (None, or "" from the C loader): typed by the schema, and 1.1 and 1.2 types differ
        if not node.value or emitter.is_ambiguous(node.value):
            raise Unsure(node.value)
    elif node.tag != _STR_TAG:
        raise Unsure("explicit tag")
    return str(node.value)
