"""The item scanner: split a block-style ResourceList into its top-level sections and its
items by indentation alone, and read each item's identity (apiVersion, kind, name,
namespace, annotations) without parsing it.

The scanner works on offsets into the text, never on a list of every line: a 7 MB list has a
quarter of a million lines, and a Python loop over them costs more than everything else
together. Regular expressions find the few lines that carry structure (top-level keys, item
starts, an item's own top-level keys); everything deeper is skipped in C.

Per item, what it is not sure about (quoted or typed identity values, multi-line scalars,
flow metadata, odd indentation inside the item) sets `complex_meta`: that item alone is
parsed to learn its identity. What makes slicing itself unsafe (a flow `items` list, an alias
to an anchor in another item, a document marker or directive, a CR or Unicode line separator,
a line indented less than its item, a section that does not parse alone) raises
errors.Unsure, and the caller parses the whole input instead (resourcelist.parse).
"""
from __future__ import annotations

import re

from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.keys import PATH_ANNOTATIONS
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.io.items import ResourceList
from krm_fn.io.items import detect_indent
from krm_fn.io.items import libyaml_reads
from krm_fn.yaml import guards
from krm_fn.yaml import lite
from krm_fn.yaml import litescalar
from krm_fn.yaml import yamlio
from krm_fn.yaml import yamltext

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

_KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$")
# Patterns that find lines start with a literal "\n" (search from the "\n" that ends the line
# before): the regex engine then scans for it in C, several times faster than `^` with re.M.
_TOP_LINE_RE = re.compile(r"\n([^ \n][^\n]*)")  # every line that starts in column 0
_CONTENT_RE = re.compile(r"\n( *)[^ \n#]")  # the next non-blank, non-comment line
_INDENTED_RE = re.compile(r"\n +[^ \n#]")
_BLANK_OR_COMMENT_RE = re.compile(r"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")
_ALIAS_RE = r"(?m)(?:^[ ]*|[-?:][ ]+|[\[{,][ ]*)\*([^\s,\[\]{}]+)"  # compiled on first use (re's cache)
KNOWN_SECTIONS = ("apiVersion", "kind", "items", "functionConfig", "results")
_PATTERNS: dict[tuple[str, int, int], re.Pattern[str]] = {}


def _shallow_re(d: int) -> re.Pattern[str]:
    """Lines indented less than an item's content (d + 2): item starts, head comments."""
    return _pattern("\\n( {0,%d}[^ \\n][^\\n]*)", 0, d + 1)


_AT_INDENT: dict[int, re.Pattern[str]] = {}


def _at_indent_re(c: int) -> re.Pattern[str]:
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


def _between_re(lo: int, hi: int) -> re.Pattern[str]:
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
    m = _BLANK_OR_COMMENT_RE.match(text, a, end)
    return m is not None and m.end() == end



def scan(text: str) -> ResourceList:
    """The ResourceList in `text`, sliced; Unsure when slicing is not safe for it."""
    # CR (decode() already turned CRLF into LF) and the Unicode line breaks of YAML 1.1
    # (which ruamel still honours) end lines where this splitter sees none
    if any(c in text for c in "\r\x85\u2028\u2029"):
        raise Unsure("CR or a Unicode line separator")
    # Tabs need no check of their own: a tab that YAML would take as separation, at the start
    # of a line or after a dash or colon, makes that line fail the key and dash patterns
    # (-> Unsure), and _scalar() refuses values with tabs; deeper tabs are content.
    if not text.endswith("\n"):
        text += "\n"
    sections, order, header = _top_level(text)
    api_version, api_version_text = _scalar_section(text, sections, "apiVersion")
    kind, kind_text = _scalar_section(text, sections, "kind")
    check_wrapper(kind)
    items, items_indent, items_line, items_trailer = _items_section(text, sections)
    fc_text = None
    fc = None
    if "functionConfig" in sections:
        a, b, _v, _le = sections["functionConfig"]
        fc_text = text[a:b]
        fc = _load_section(fc_text, "functionConfig")
    results = _results_section(text, sections)
    extra = {k: text[sections[k][0] : sections[k][1]] for k in order if k not in KNOWN_SECTIONS}
    for k, t in extra.items():
        _load_section(t, k)  # must be valid YAML on its own; it is echoed as written
    if "*" in text:
        _check_aliases(text, items, [(sections[k][0], sections[k][1]) for k in order if k != "items"])
    return ResourceList(
        api_version=api_version or "config.kubernetes.io/v1",
        kind=kind or "ResourceList",
        items=items,
        function_config_text=fc_text,
        function_config=fc,
        results=results,
        fast=True,
        header=header,
        api_version_text=api_version_text,
        kind_text=kind_text,
        items_indent=items_indent,
        order=order,
        items_line=items_line,
        items_trailer=items_trailer,
        extra=extra,
    )


def _top_level(text: str) -> tuple[dict[str, list[Any]], list[str], str]:
    """The top-level sections: column-0 lines are keys, comments, or document markers.
    ({key: [start, end, inline value, body start]}, keys in order, comments before the
    first key)."""
    sections: dict[str, list[Any]] = {}
    order: list[str] = []
    cur: str | None = None
    doc_start: tuple[int, int] | None = None  # the `---` line before the first key
    header = ""
    end = len(text)
    for m in _TOP_LINE_RE.finditer("\n" + text):
        line = m.group(1)
        start = m.start()  # of the line, in `text`
        c0 = line[0]
        if c0 == "#":
            continue
        if line.startswith(("---", "...")) and (len(line) == 3 or line[3] == " "):
            if line.rstrip() == "---" and cur is None and doc_start is None:
                doc_start = (start, start + len(line) + 1)
                continue
            if _document_end(text, line, start, cur):
                end = start  # document end, then only comments
                break
            raise Unsure("document marker")  # the full parse tells what it is
        if c0 == "-":
            if cur is None:
                raise Unsure("content before the first key")
            continue
        km = _KEY_RE.match(line)
        if not km:
            raise Unsure("top-level line")
        key = km.group(1)
        if key in sections:
            lineno = text.count("\n", 0, start) + 1
            raise InputError(f"line {lineno}: duplicate top-level key {key!r} in the ResourceList; remove one of them")
        if cur is None:
            head = text[:start]
            if _INDENTED_RE.search("\n" + head):
                raise Unsure("content before the first key")
            # comments before the first key are kept; a leading `---` is dropped
            header = head if doc_start is None else head[: doc_start[0]] + head[doc_start[1] :]
        else:
            sections[cur][1] = start
        sections[key] = [start, end, km.group(2), start + len(line) + 1]
        order.append(key)
        cur = key
    if cur is None:
        raise Unsure("no keys")
    sections[cur][1] = min(sections[cur][1], end)
    return sections, order, header


def _document_end(text: str, line: str, start: int, cur: str | None) -> bool:
    """A `...` after the content with only comments after it: True. A `---` that starts a
    second document: InputError. Anything else: False (the caller steps aside)."""
    after_marker = start + len(line) + 1
    if line.rstrip() == "..." and cur is not None and only_blank_or_comment(text, after_marker):
        return True
    if cur is not None and line.startswith("---") and not only_blank_or_comment(text, after_marker):
        lineno = text.count("\n", 0, start) + 1
        raise InputError(
            f"line {lineno}: a second YAML document starts here; "
            "the function reads exactly one ResourceList on stdin (to rewrite a "
            "multi-document file, use `krm-coschedule --config POLICY FILE`)"
        )
    return False


def _scalar_section(text: str, sections: dict[str, list[Any]], key: str) -> tuple[str, str]:
    """(value, text as written) of a one-line top-level scalar such as `kind`."""
    if key not in sections:
        return "", ""
    a, b, v, le = sections[key]
    if not only_blank_or_comment(text, le, b):
        raise Unsure(f"{key} spans lines")
    val = _scalar(v)
    if val is None or val is _COMPLEX:
        raise Unsure(f"{key} value")
    return str(val), text[a:b]


def _items_section(text: str, sections: dict[str, list[Any]]) -> tuple[list[Item], int, str, str]:
    """(items, dash indent, the `items:` line as written, comments after the last item)."""
    if "items" not in sections:
        return [], 0, "items:\n", ""
    a, b, v, le = sections["items"]
    items_line = text[a:le]
    if v is not None and _strip_comment(v) not in ("", "[]", "null", "~"):
        raise Unsure("flow items")
    if v is not None and _strip_comment(v) and not only_blank_or_comment(text, le, b):
        raise Unsure("items value and content")
    items, items_indent, items_trailer = _split_items(text, le, b)
    if not items and _strip_comment(v or ""):
        return items, items_indent, text[a:b], ""  # `items: []` and what follows it, as written
    return items, items_indent, items_line, items_trailer


def _results_section(text: str, sections: dict[str, list[Any]]) -> list[Any]:
    if "results" not in sections:
        return []
    a, b, _v, _le = sections["results"]
    loaded = _load_section(text[a:b], "results")
    if isinstance(loaded, list):
        return [yamlio.to_plain(r) for r in loaded]
    if isinstance(loaded, dict):  # legacy {name, items} form
        return [yamlio.to_plain(r) for r in (loaded.get("items") or [])]
    return []


def check_wrapper(kind: str) -> None:
    if kind not in ("ResourceList", "List"):
        what = f"kind {kind!r}" if kind else "no kind"
        raise InputError(
            f"input has {what}: expected one ResourceList (kind ResourceList or List) with "
            "`items`; to rewrite plain manifest files use `krm-coschedule --config POLICY FILE`"
        )


def _load_section(section_text: str, key: str) -> Any:
    """A top-level section's value. The functionConfig is read as the transforms read it
    (light reader, else the round-trip loader); incoming results, which the function only
    copies, by the C safe loader (a long results section took seconds on the round-trip
    loader); other sections are only checked (echoed as written)."""
    if key == "functionConfig":
        lines = yamltext.split_lines(section_text, keepends=False)
        m, s, o = detect_indent([x + "\n" for x in lines], 0)
        try:
            root, _ = lite.read(lines, m, o, 0)
            return root.get(key)
        except Unsure:
            pass
    elif libyaml_reads(section_text):  # False for flow nesting too deep: refused below
        if key not in ("results",):
            return None
        try:
            root = yamlio.verify_load(section_text)
        except Exception:  # noqa: BLE001 - the bounded loader below says what is wrong
            root = None
        if isinstance(root, dict) and not guards.may_hold_aliases(section_text):
            return root.get(key)
    root = guards.load_guarded(section_text, key)
    return root.get(key) if isinstance(root, dict) else None


def _check_aliases(text: str, items: list[Item], spans: list[tuple[int, int]]) -> None:
    """An alias whose anchor lives in another item or section makes slicing wrong: an item
    parsed alone would not find it. Aliases to anchors of the same item are fine."""
    chunks = [it.text or "" for it in items] + [text[a:b] for a, b in spans]
    for chunk in chunks:
        if "*" not in chunk:
            continue
        for m in re.finditer(_ALIAS_RE, chunk):
            name = m.group(1)
            anchor = re.compile(r"&" + re.escape(name) + r"(?=[\s,\[\]{}]|$)", re.M)
            if anchor.search(chunk, 0, m.start()):
                continue
            if anchor.search(text):
                raise Unsure("alias to an anchor in another item")
            # no such anchor anywhere: not an alias (a glob in a block scalar), or bad YAML
            # that parsing the item will report


def _split_items(text: str, a: int, b: int) -> tuple[list[Item], int, str]:
    """Items of the block sequence in text[a:b]: (items, dash indent, trailing comments).
    `a` is a line start after a newline."""
    m = _CONTENT_RE.search(text, a - 1, b)
    if m is None:
        return [], 0, text[a:b]
    d = len(m.group(1))
    first = m.start() + 1
    if not yamltext.DASH_RE.match(text, first) or text[first + d] != "-":
        raise Unsure("items not a block sequence")
    starts: list[tuple[int, int]] = []  # (chunk start, dash line start)
    comments: list[int] = []  # shallow comment lines since the last item start
    for sm in _shallow_re(d).finditer(text, a - 1, b):
        line = sm.group(1)
        p = sm.start() + 1
        ind = len(line) - len(line.lstrip(" "))
        if line[ind] == "#":
            comments.append(p)
            continue
        if ind == d and line[d] == "-" and (len(line) == d + 1 or line[d + 1] == " "):
            starts.append((_head_start(text, comments, p), p))
            comments = []
            continue
        raise Unsure("odd indentation")
    trailer_at = _head_start(text, comments, b) if comments else b
    items = []
    line = text.count("\n", 0, a) + 1
    for idx, (s, dash) in enumerate(starts):
        s = a if idx == 0 else s
        e = starts[idx + 1][0] if idx + 1 < len(starts) else trailer_at
        chunk = text[s:e]
        item = make_item(idx, chunk, dash - s, d)
        # the chunk's first line in the input; unknown for kpt's serialization of a file
        item.line = None if any(k in item.meta.annotations for k in PATH_ANNOTATIONS) else line
        line += chunk.count("\n")
        items.append(item)
    return items, d, text[trailer_at:b]


def _head_start(text: str, comments: list[int], p: int) -> int:
    """Where the item starting at `p` begins: at the first shallow comment of the comment
    run right before it (its head comment), else at the dash line itself."""
    if not comments:
        return p
    for c in comments:
        if only_blank_or_comment(text, c, p):
            return c
    return p


# --------------------------------------------------------------------------- item identity

_COMPLEX = object()
_SIMPLE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_./-]*)|'([^'\n]*)'")
# the only plain words of that shape a YAML 1.1 or 1.2 reader takes for a bool or null
_BOOL_NULL_WORDS = frozenset(
    v for w in ("y", "n", "yes", "no", "on", "off", "true", "false", "null") for v in (w, w.upper(), w.capitalize())
)


def _strip_comment(v: str) -> str:
    if v.lstrip().startswith("#"):
        return ""
    k = v.find(" #")
    return (v[:k] if k >= 0 else v).strip()


def _scalar(v: str | None) -> Any:
    """Decode a one-line scalar; None for an empty value, _COMPLEX when unsure."""
    if v is None:
        return None
    m = _SIMPLE_RE.fullmatch(v)  # the common cases first: `v1`, `web-1`, `'0'`
    if m is not None:
        plain = m.group(1)
        if plain is not None:
            return _COMPLEX if plain in _BOOL_NULL_WORDS else plain
        return m.group(2)
    v = v.strip(" ")
    if not v or v.startswith("#"):
        return None
    if "\t" in v:
        return _COMPLEX
    c = v[0]
    if c == "'" or c == '"':
        try:
            value, end = litescalar.quoted(v, 0)  # one line, JSON's escapes: else the composer reads it
        except Unsure:
            return _COMPLEX
        rest = v[end:].strip()
        if rest and not rest.startswith("#"):
            return _COMPLEX
        return str(value)
    if c in "&*!|>{[%@`?,-":
        return _COMPLEX
    s = _strip_comment(v)
    if yamlio.is_ambiguous(s) or ": " in s or s.endswith(":"):
        return _COMPLEX  # a number, bool, null or date to a YAML reader; or not a scalar
    return s


def make_item(pos: int, chunk: str, dash: int, d: int) -> Item:
    """An Item for `chunk`, whose dash line starts at offset `dash`."""
    item = Item(pos=pos, text=chunk, meta=Meta())
    eol = chunk.find("\n", dash)
    first = chunk[dash:eol]
    after = first[d + 1 :].lstrip(" ")
    try:
        if not after or after.startswith("#"):
            m = _CONTENT_RE.search(chunk, eol)
            if m is None:
                item.meta.is_mapping = False
                item.complex_meta = True
                return item
            c = len(m.group(1))
            entries = _entries(chunk, m.start() + 1, len(chunk), c, d + 1)
        elif after[0] in "{[?!&*|>":
            raise Unsure("flow, tagged or anchored")
        else:
            c = len(first) - len(after)
            km = _KEY_RE.match(after)
            k, v = (km.group(1), km.group(2)) if km else _quoted_entry(after)
            entries = _entries(chunk, eol + 1, len(chunk), c, d + 1)
            # the first key's body ends where the line of the next key starts
            body_end = chunk.rfind("\n", 0, entries[0][2] - 1) + 1 if entries else len(chunk)
            entries.insert(0, (k, v, eol + 1, body_end))
        _read_identity(chunk, entries, c, item.meta)
    except Unsure:
        _composed_identity(item, chunk)
    return item


def make_document_item(pos: int, text: str) -> Item:
    """An Item whose text is a whole document (files mode). Its identity is read off the
    document as it is when its first content line is a plain key at column 0 (then every
    key of it is: anything else is unsure); otherwise, or when unsure, exactly as the
    document's `- ` entry would be read (make_item)."""
    # every line after a newline and ending with one, as the patterns want them
    t = "\n" + text if text.endswith("\n") else "\n" + text + "\n"
    m = _CONTENT_RE.search(t)
    if m is not None and not m.group(1):
        item = Item(pos=pos, text=text, meta=Meta(), document=True)
        a = m.start() + 1
        if _KEY_RE.match(t, a, t.index("\n", a)) is not None:
            try:
                _read_identity(t, _entries(t, a, len(t), 0, -1), 0, item.meta)
                return item
            except Unsure:
                pass
    entry = yamltext.entry_of(text)
    item = make_item(pos, entry, 0 if entry.startswith("-") else entry.index("\n-") + 1, 0)
    item.text = text
    item.document = True
    return item


def _entries(text: str, a: int, b: int, ind: int, outer: int) -> list[tuple[str, Any, int, int]]:
    """The keys of the block mapping indented `ind` in text[a:b] (a: a line start after a
    newline; lines indented `outer` or less are not part of it): (key, raw inline value,
    body start, body end). Deeper lines are skipped in C."""
    if ind > outer + 1 and _between_re(outer + 1, ind - 1).search(text, a - 1, b):
        raise Unsure("a line indented less than the mapping's keys")
    out: list[tuple[str, Any, int, int]] = []
    key = value = None
    start = 0
    for m in _at_indent_re(ind).finditer(text, a - 1, b):
        k, v, dash, other = m.groups()
        if k is None:
            if dash is not None:
                continue  # an indentless sequence: the value of the key before
            k, v = _quoted_entry(other)
        s, e = m.span()
        if key is not None:
            out.append((key, value, start, s + 1))
        key, value, start = k, v, e + 1
    if key is not None:
        out.append((key, value, min(start, b), b))
    return out


def _quoted_entry(line: str) -> tuple[str, str | None]:
    """(key, raw inline value) of a line that starts with a quoted key (`"kind": Task`), as
    the key pattern gives them for a plain one; Unsure for any other line."""
    said = litescalar.quoted_key(line, 0)
    if not said:
        raise Unsure("not a key")
    key, at = said
    v = line[at:].strip(" ")
    return str(key), v or None


_WANTED_META = ("name", "namespace", "generateName")


def _single(text: str, v: str | None, a: int, b: int) -> Any:
    """The scalar value of an entry; _COMPLEX if it goes on below its line."""
    val = _scalar(v)
    if val is not None and a < b and not only_blank_or_comment(text, a, b):
        return _COMPLEX
    return val


def _read_identity(chunk: str, entries: list[tuple[str, Any, int, int]], c: int, meta: Meta) -> None:
    seen: set[str] = set()
    for key, v, a, b in entries:
        if key not in ("apiVersion", "kind", "metadata"):
            continue
        if key in seen:
            raise Unsure("duplicate " + key)
        seen.add(key)
        if key == "metadata":
            if _scalar(v) is not None:
                raise Unsure("flow metadata")
            m = _CONTENT_RE.search(chunk, a - 1, b)
            if m is not None:
                mi = len(m.group(1))
                if mi <= c:
                    raise Unsure("metadata is not a mapping")
                _read_metadata(chunk, a, b, mi, c, meta)
            continue
        val = _single(chunk, v, a, b)
        if not isinstance(val, str):
            raise Unsure(key)
        if key == "kind":
            meta.kind = val
        else:
            meta.api_version = val


def _read_metadata(chunk: str, a: int, b: int, mi: int, c: int, meta: Meta) -> None:
    seen: set[str] = set()
    for mk, mv, ma, mb in _entries(chunk, a, b, mi, c):
        if mk in _WANTED_META:
            val = _single(chunk, mv, ma, mb)
            if mk in seen or not isinstance(val, str):
                raise Unsure(mk)
            seen.add(mk)
            setattr(meta, "generate_name" if mk == "generateName" else mk, val)
        elif mk == "annotations":
            if mk in seen or _scalar(mv) is not None:
                raise Unsure("flow annotations")
            seen.add(mk)
            m = _CONTENT_RE.search(chunk, ma - 1, mb)
            if m is None:
                continue
            ai = len(m.group(1))
            if ai <= mi:
                raise Unsure("annotations is not a mapping")
            for ak, av, aa, ab in _entries(chunk, ma, mb, ai, mi):
                val = _single(chunk, av, aa, ab)
                # unsure of a value (a block scalar, an escape JSON lacks, a number): parse
                # the item, so that meta.annotations is always exactly what a reader sees
                if not isinstance(val, str) or ak in meta.annotations:
                    raise Unsure(ak)
                meta.annotations[ak] = val


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
    import yaml  # PyYAML; only lists with such items pay for it

    try:
        root = yaml.compose(chunk, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    if not isinstance(root, yaml.SequenceNode) or len(root.value) != 1:
        return
    node = root.value[0]
    meta = Meta()
    dups: list[str] = []
    try:
        top = _mapping(yaml, node, dups, "", ("apiVersion", "kind", "metadata"))
        if top is None:
            return
        meta.api_version = _plain_str(yaml, top.get("apiVersion"))
        meta.kind = _plain_str(yaml, top.get("kind"))
        md = _mapping(yaml, top.get("metadata"), dups, "metadata.", ("name", "namespace", "generateName", "annotations"))
        meta.duplicates = tuple(dups)
        if md is not None:
            meta.name = _plain_str(yaml, md.get("name"))
            meta.namespace = _plain_str(yaml, md.get("namespace"))
            meta.generate_name = _plain_str(yaml, md.get("generateName"))
            ann = _mapping(yaml, md.get("annotations"))
            for k, v in (ann or {}).items():
                if isinstance(v, yaml.ScalarNode) and not (not v.style and v.value in ("", "~")):
                    meta.annotations[k] = _plain_str(yaml, v)
    except Unsure:
        return
    item.meta = meta
    item.complex_meta = False


def _mapping(
    yaml: Any, node: Any, dups: list[str] | None = None, prefix: str = "", watched: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """A mapping node's entries by key (last wins); None if absent or not a mapping. A
    `watched` key met twice is added to `dups` (with `prefix`)."""
    if node is None or not isinstance(node, yaml.MappingNode):
        if node is not None and not isinstance(node, yaml.ScalarNode):
            raise Unsure("a sequence where a mapping goes")
        if isinstance(node, yaml.ScalarNode) and not (not node.style and node.value in ("", "~", "null")):
            raise Unsure("a scalar where a mapping goes")
        return None
    out: dict[str, Any] = {}
    for k, v in node.value:
        key = _plain_str(yaml, k)
        if key == "<<" or k.tag == "tag:yaml.org,2002:merge":
            raise Unsure("merge key")
        if key in out and key in watched and dups is not None:
            dups.append(prefix + key)
        out[key] = v
    return out


def _plain_str(yaml: Any, node: Any) -> str:
    """The string a YAML 1.2 reader sees in a scalar node; Unsure for anything else."""
    if node is None:
        return ""
    if not isinstance(node, yaml.ScalarNode):
        raise Unsure("not a scalar")
    if not node.style:  # plain (None, or "" from the C loader): typed by the schema, and 1.1 and 1.2 types differ
        if not node.value or yamlio.is_ambiguous(node.value):
            raise Unsure(node.value)
    elif node.tag != _STR_TAG:
        raise Unsure("explicit tag")
    return str(node.value)


