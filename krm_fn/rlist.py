"""ResourceList framing: read the bytes once, find item boundaries and identities cheaply,
and write every item the policy leaves alone back as the exact text it came in.

Fast path: block-style YAML with items as a block sequence. Items are located by
indentation alone; identity (apiVersion, kind, name, namespace, annotations) is read by a
small indentation-aware scanner. Only items that a transform needs are parsed, one at a
time, with the comment-preserving round-trip loader. Top-level sections are written back
where and as they came; only `items` (rewritten or generated entries) and `results` change.

Per item, what the scanner is not sure about (quoted or typed identity values, multi-line
scalars, flow metadata, odd indentation inside the item) sets `complex_meta`: that item alone
is parsed to learn its identity. One-line flow items (kpt passes JSON files through as
`- {"apiVersion": ...}`) are read with libyaml.

Fallback: what makes slicing itself unsafe (a JSON document or a flow `items` list, an alias
to an anchor in another item, a document marker or directive, a CR or Unicode line
separator, a line indented less than its item, a duplicate top-level key, a section that
does not parse alone) sends the whole input to the round-trip loader, re-emitted in block
style. Tabs need no rule of their own (see _split). Items no transform
parses are still syntax-checked, in one libyaml pass (check_untouched), then echoed as they
came.

Light path (krm_fn.lite): in a run that allows it (process.run_frame), an item in plain block
form is read without the round-trip loader and rewritten by splicing its changed lines into
its text; an item outside that form, or an edit the splicing writer is not sure of, takes the
round-trip path instead.
"""
from __future__ import annotations

import copy
import json
import re

from krm_fn import yamlio
from krm_fn.record import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# Whether this run reads items with the light reader (krm_fn.lite) where it can: set and reset
# by process.process_light.
LIGHT = False

MAX_ALIAS_NODES = 200_000  # nodes an expanded tree may have (billion-laughs guard)
MAX_DEPTH = 200  # nesting depth of any collection


class InputError(Exception):
    """The input cannot be read as a ResourceList. The message says what to do."""


class YamlSyntaxError(InputError):
    """Part of the input is not YAML at all, so the whole input is not: echoing it back would
    give an output no reader can parse, so the run refuses the input as a whole."""


class _Unsafe(Exception):
    """Text slicing is not safe for this input: parse it whole."""


class Meta(Record):
    __slots__ = ("api_version", "kind", "name", "namespace", "generate_name", "annotations", "is_mapping")

    def __init__(
        self,
        api_version: str = "",
        kind: str = "",
        name: str = "",
        namespace: str = "",
        generate_name: str = "",
        annotations: dict[str, str] | None = None,
        is_mapping: bool = True,
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.generate_name = generate_name
        self.annotations: dict[str, str] = {} if annotations is None else annotations
        self.is_mapping = is_mapping

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]


class Item(Record):
    """One entry of `items`. `text` is the exact input text (fast path) or None."""

    __slots__ = (
        "pos", "text", "meta", "node", "before", "indent", "complex_meta", "lite", "lite_before", "lite_text",
    )

    def __init__(
        self,
        pos: int,
        text: str | None,
        meta: Meta,
        node: Any = None,
        before: Any = None,
        indent: tuple[int, int, int] = (2, 2, 0),
        complex_meta: bool = False,
    ) -> None:
        self.pos = pos
        self.text = text
        self.meta = meta
        self.node = node  # round-trip tree (or light-path data), once loaded
        self.before = before  # plain copy taken at load time, to tell whether anything changed
        self.indent = indent  # mapping, sequence, offset for re-emission
        self.complex_meta = complex_meta
        self.lite: Any = None  # krm_fn.lite.Doc when read by the light reader
        self.lite_before: Any = None  # the data as read, scalar types kept (splicing writer)
        self.lite_text: Any = None  # (plain data, text) the splicing writer gave for it

    def load(self) -> Any:
        """Parse this item (once): with the light reader when this run allows it and the text
        is in its form, else with the round-trip loader."""
        if self.node is None:
            assert self.text is not None
            if LIGHT and _load_light(self):
                return self.node
            return self.reload_round_trip()
        return self.node

    def reload_round_trip(self) -> Any:
        """Parse the item's text with the round-trip loader (dropping a light-path reading
        and whatever was done to it)."""
        assert self.text is not None
        self.lite = self.lite_before = self.lite_text = None
        self.node = None  # a failed load leaves the item unloaded
        node = _load_item_text(self.text)
        check_limits(node, "the object")
        self.node = node
        self.before = yamlio.to_plain(node)
        self.indent = _detect_indent(*_item_body(self.text))  # only loaded items need it
        return self.node

    @property
    def changed(self) -> bool:
        return self.node is not None and yamlio.to_plain(self.node) != self.before


class Frame(Record):
    """A ResourceList split into the parts the writer needs."""

    __slots__ = (
        "api_version", "kind", "items", "function_config_text", "function_config", "results", "fast",
        "header", "api_version_text", "kind_text", "items_indent", "order", "items_line",
        "items_trailer", "extra", "full_root",
    )

    def __init__(
        self,
        api_version: str,
        kind: str,
        items: list[Item],
        function_config_text: str | None,
        function_config: Any,
        results: list[Any],
        fast: bool,
        header: str = "",
        api_version_text: str = "",
        kind_text: str = "",
        items_indent: int = 0,
        order: list[str] | None = None,
        items_line: str = "items:\n",
        items_trailer: str = "",
        extra: dict[str, Any] | None = None,
        full_root: Any = None,
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.items = items
        self.function_config_text = function_config_text  # raw `functionConfig:` section, echoed unchanged
        self.function_config = function_config  # parsed (round-trip) or None
        self.results = results  # incoming results, plain data
        self.fast = fast
        self.header = header  # comments before the first key
        self.api_version_text = api_version_text
        self.kind_text = kind_text
        self.items_indent = items_indent
        self.order: list[str] = [] if order is None else order  # top-level keys as they came
        self.items_line = items_line  # the `items:` line as written (with its comment)
        self.items_trailer = items_trailer  # comment lines after the last item, kept after generated ones
        # unknown keys: raw text (fast path) or parsed node (full parse), echoed unchanged
        self.extra: dict[str, Any] = {} if extra is None else extra
        self.full_root = full_root  # fallback: the whole parsed document


# --------------------------------------------------------------------------- decoding


def decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("input is UTF-16 text (it starts with a UTF-16 byte order mark); re-encode it as UTF-8")
    if b"\x00" in data:
        raise InputError(
            "input contains NUL bytes: it is binary, not YAML; pipe a ResourceList in YAML or JSON"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"input is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
            "re-encode the file as UTF-8"
        ) from None
    bad = _NON_PRINTABLE.search(text)
    if bad is not None:
        # YAML allows these nowhere (c-printable): refusing here means no item that holds one
        # is echoed back into an output no reader can parse
        line = text.count("\n", 0, bad.start()) + 1
        col = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputError(
            f"input contains the control character U+{ord(bad.group()):04X} at line {line}, "
            f"column {col}; YAML does not allow it anywhere: remove it (or write it as an escape "
            "in a double-quoted string)"
        )
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


# everything outside YAML 1.2's c-printable set (tab, LF, CR and NEL are allowed)
_NON_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")


# --------------------------------------------------------------------------- fast path
#
# The fast path works on offsets into the text, never on a list of every line: a 7 MB list
# has a quarter of a million lines, and a Python loop over them costs more than everything
# else together. Regular expressions find the few lines that carry structure (top-level keys,
# item starts, an item's own top-level keys); everything deeper is skipped in C.

_KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$")
_DASH_RE = re.compile(r"( *)-(?=[ \n]|$)")
# Patterns that find lines start with a literal "\n" (search from the "\n" that ends the line
# before): the regex engine then scans for it in C, several times faster than `^` with re.M.
_TOP_LINE_RE = re.compile(r"\n([^ \n][^\n]*)")  # every line that starts in column 0
_CONTENT_RE = re.compile(r"\n( *)[^ \n#]")  # the next non-blank, non-comment line
_INDENTED_RE = re.compile(r"\n +[^ \n#]")
_BLANK_OR_COMMENT_RE = re.compile(r"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")
_ALIAS_RE = re.compile(r"(?:^[ ]*|[-?:][ ]+|[\[{,][ ]*)\*([^\s,\[\]{}]+)", re.M)
_KNOWN_SECTIONS = ("apiVersion", "kind", "items", "functionConfig", "results")
_PATTERNS: dict[tuple[str, int, int], re.Pattern[str]] = {}


def _shallow_re(d: int) -> re.Pattern[str]:
    """Lines indented less than an item's content (d + 2): item starts, head comments."""
    return _pattern("\\n( {0,%d}[^ \\n][^\\n]*)", 0, d + 1)


def _at_indent_re(c: int) -> re.Pattern[str]:
    """Non-comment lines indented exactly `c`: the keys of a block mapping. Groups: 1 a key,
    2 its inline value; 3 a sequence entry (an indentless list, the value of the key
    before); 4 anything else (not a line this scanner understands)."""
    return _pattern(
        "\\n {%d}(?:([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +([^\\n]*?))? *|(-(?: [^\\n]*)?)|([^ \\n#][^\\n]*))(?=\\n)",
        c,
        0,
    )


def _between_re(lo: int, hi: int) -> re.Pattern[str]:
    """Non-comment lines indented lo..hi: too shallow for the mapping being read."""
    return _pattern("\\n {%d,%d}[^ \\n#]", lo, hi)


def _pattern(template: str, x: int, y: int) -> re.Pattern[str]:
    key = (template, x, y)
    p = _PATTERNS.get(key)
    if p is None:
        p = _PATTERNS[key] = re.compile(template % ((x, y) if template.count("%d") == 2 else (x or y,)))
    return p


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def _only_blank_or_comment(text: str, a: int = 0, b: int | None = None) -> bool:
    end = len(text) if b is None else b
    if a >= end:
        return True
    m = _BLANK_OR_COMMENT_RE.match(text, a, end)
    return m is not None and m.end() == end


def _lines(text: str) -> list[str]:
    """Lines with their ends, split on \n only (str.splitlines also splits on \x0c, \x1c,
    \u2028 and friends, which are ordinary characters inside YAML scalars)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def parse(text: str, *, fast: bool = True) -> Frame:
    """Split `text` into a Frame, by slicing when safe, else by a full parse.

    `fast=False` forces the full parse (tests compare both paths)."""
    if not text.strip() or _only_blank_or_comment(text):
        raise InputError(
            "input is empty: expected one ResourceList (kind ResourceList or List) on stdin"
        )
    if fast:
        try:
            return _split(text)
        except (_Unsafe, YamlSyntaxError):  # a section may lean on an anchor elsewhere
            pass
    return _full_parse(text)


def _split(text: str) -> Frame:
    # CR (decode() already turned CRLF into LF) and the Unicode line breaks of YAML 1.1
    # (which ruamel still honours) end lines where this splitter sees none
    if any(c in text for c in "\r\x85\u2028\u2029"):
        raise _Unsafe("CR or a Unicode line separator")
    # Tabs need no check of their own: a tab that YAML would take as separation, at the start
    # of a line or after a dash or colon, makes that line fail the key and dash patterns
    # (-> _Unsafe), and _scalar() refuses values with tabs; deeper tabs are content.
    if not text.endswith("\n"):
        text += "\n"
    # ---- top level: column-0 lines are keys, comments, or document markers
    sections: dict[str, list[Any]] = {}  # key -> [start, end, inline value, body start]
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
            after_marker = start + len(line) + 1
            if line.rstrip() == "..." and cur is not None and _only_blank_or_comment(text, after_marker):
                end = start  # document end, then only comments
                break
            if cur is not None and line.startswith("---") and not _only_blank_or_comment(text, after_marker):
                lineno = text.count("\n", 0, start) + 1
                raise InputError(
                    f"line {lineno}: a second YAML document starts here; "
                    "the function reads exactly one ResourceList on stdin (to rewrite a "
                    "multi-document file, use `krm-coschedule --config POLICY FILE`)"
                )
            raise _Unsafe("document marker")  # the full parse tells what it is
        if c0 == "-":
            if cur is None:
                raise _Unsafe("content before the first key")
            continue
        km = _KEY_RE.match(line)
        if not km:
            raise _Unsafe("top-level line")
        key = km.group(1)
        if key in sections:
            lineno = text.count("\n", 0, start) + 1
            raise InputError(f"line {lineno}: duplicate top-level key {key!r} in the ResourceList; remove one of them")
        if cur is None:
            head = text[:start]
            if _INDENTED_RE.search("\n" + head):
                raise _Unsafe("content before the first key")
            # comments before the first key are kept; a leading `---` is dropped
            header = head if doc_start is None else head[: doc_start[0]] + head[doc_start[1] :]
        else:
            sections[cur][1] = start
        sections[key] = [start, end, km.group(2), start + len(line) + 1]
        order.append(key)
        cur = key
    if cur is None:
        raise _Unsafe("no keys")
    sections[cur][1] = min(sections[cur][1], end)

    def scalar_of(key: str) -> tuple[str, str]:
        if key not in sections:
            return "", ""
        a, b, v, le = sections[key]
        if not _only_blank_or_comment(text, le, b):
            raise _Unsafe(f"{key} spans lines")
        val = _scalar(v)
        if val is None or val is _COMPLEX:
            raise _Unsafe(f"{key} value")
        return str(val), text[a:b]

    api_version, api_version_text = scalar_of("apiVersion")
    kind, kind_text = scalar_of("kind")
    _check_wrapper(kind)

    items: list[Item] = []
    items_indent = 0
    items_line = "items:\n"
    items_trailer = ""
    if "items" in sections:
        a, b, v, le = sections["items"]
        items_line = text[a:le]
        if v is not None and _strip_comment(v) not in ("", "[]", "null", "~"):
            raise _Unsafe("flow items")
        if v is not None and _strip_comment(v) and not _only_blank_or_comment(text, le, b):
            raise _Unsafe("items value and content")
        items, items_indent, items_trailer = _split_items(text, le, b)
        if not items and _strip_comment(v or ""):
            items_line = text[a:b]  # `items: []` and what follows it, kept as written
            items_trailer = ""

    fc_text = None
    fc = None
    if "functionConfig" in sections:
        a, b, _v, _le = sections["functionConfig"]
        fc_text = text[a:b]
        fc = _load_section(fc_text, "functionConfig")
    results: list[Any] = []
    if "results" in sections:
        a, b, _v, _le = sections["results"]
        loaded = _load_section(text[a:b], "results")
        if isinstance(loaded, list):
            results = [yamlio.to_plain(r) for r in loaded]
        elif isinstance(loaded, dict):  # legacy {name, items} form
            results = [yamlio.to_plain(r) for r in (loaded.get("items") or [])]
    extra = {k: text[sections[k][0] : sections[k][1]] for k in order if k not in _KNOWN_SECTIONS}
    for k, t in extra.items():
        _load_section(t, k)  # must be valid YAML on its own; it is echoed as written
    if "*" in text:
        _check_aliases(text, items, [(sections[k][0], sections[k][1]) for k in order if k != "items"])
    return Frame(
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


def _check_wrapper(kind: str) -> None:
    if kind not in ("ResourceList", "List"):
        what = f"kind {kind!r}" if kind else "no kind"
        raise InputError(
            f"input has {what}: expected one ResourceList (kind ResourceList or List) with "
            "`items`; to rewrite plain manifest files use `krm-coschedule --config POLICY FILE`"
        )


def _load_section(section_text: str, key: str) -> Any:
    if key == "functionConfig":
        from krm_fn import lite

        lines = lite.lines_of(section_text)
        m, s, o = _detect_indent([x + "\n" for x in lines], 0)
        try:
            root, _ = lite.read(lines, m, o, 0)
            return root.get(key)
        except lite.Bail:
            pass
    root = load_guarded(section_text, key)
    return root.get(key) if isinstance(root, dict) else None


def _check_aliases(text: str, items: list[Item], spans: list[tuple[int, int]]) -> None:
    """An alias whose anchor lives in another item or section makes slicing wrong: an item
    parsed alone would not find it. Aliases to anchors of the same item are fine."""
    chunks = [it.text or "" for it in items] + [text[a:b] for a, b in spans]
    for chunk in chunks:
        if "*" not in chunk:
            continue
        for m in _ALIAS_RE.finditer(chunk):
            name = m.group(1)
            anchor = re.compile(r"&" + re.escape(name) + r"(?=[\s,\[\]{}]|$)", re.M)
            if anchor.search(chunk, 0, m.start()):
                continue
            if anchor.search(text):
                raise _Unsafe("alias to an anchor in another item")
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
    if not _DASH_RE.match(text, first) or text[first + d] != "-":
        raise _Unsafe("items not a block sequence")
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
        raise _Unsafe("odd indentation")
    trailer_at = _head_start(text, comments, b) if comments else b
    items = []
    for idx, (s, dash) in enumerate(starts):
        s = a if idx == 0 else s
        e = starts[idx + 1][0] if idx + 1 < len(starts) else trailer_at
        items.append(_make_item(idx, text[s:e], dash - s, d))
    return items, d, text[trailer_at:b]


def _head_start(text: str, comments: list[int], p: int) -> int:
    """Where the item starting at `p` begins: at the first shallow comment of the comment
    run right before it (its head comment), else at the dash line itself."""
    if not comments:
        return p
    for c in comments:
        if _only_blank_or_comment(text, c, p):
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
    if c == "'":
        k = 1
        while True:
            k = v.find("'", k)
            if k < 0:
                return _COMPLEX
            if v[k + 1 : k + 2] == "'":
                k += 2
                continue
            break
        rest = v[k + 1 :].strip()
        if rest and not rest.startswith("#"):
            return _COMPLEX
        return v[1:k].replace("''", "'")
    if c == '"':
        k = 1
        while True:
            k = v.find('"', k)
            if k < 0:
                return _COMPLEX
            slashes = len(v[:k]) - len(v[:k].rstrip("\\"))
            if slashes % 2:
                k += 1
                continue
            break
        rest = v[k + 1 :].strip()
        if rest and not rest.startswith("#"):
            return _COMPLEX
        try:
            return json.loads(v[: k + 1])
        except ValueError:
            return _COMPLEX
    if c in "&*!|>{[%@`?,-":
        return _COMPLEX
    s = _strip_comment(v)
    if yamlio.is_ambiguous(s) or ": " in s or s.endswith(":"):
        return _COMPLEX  # a number, bool, null or date to a YAML reader; or not a scalar
    return s


def _make_item(pos: int, chunk: str, dash: int, d: int) -> Item:
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
        elif after[0] in "{[\"'?!&*|>":
            raise _Unsafe("flow, quoted, tagged or anchored")
        else:
            c = len(first) - len(after)
            km = _KEY_RE.match(after)
            if not km:
                raise _Unsafe("not a key")
            entries = _entries(chunk, eol + 1, len(chunk), c, d + 1)
            # the first key's body ends where the line of the next key starts
            body_end = chunk.rfind("\n", 0, entries[0][2] - 1) + 1 if entries else len(chunk)
            entries.insert(0, (km.group(1), km.group(2), eol + 1, body_end))
        _read_identity(chunk, entries, c, item.meta)
    except _Unsafe:
        _composed_identity(item, chunk)
    return item


def _entries(text: str, a: int, b: int, ind: int, outer: int) -> list[tuple[str, Any, int, int]]:
    """The keys of the block mapping indented `ind` in text[a:b] (a: a line start after a
    newline; lines indented `outer` or less are not part of it): (key, raw inline value,
    body start, body end). Deeper lines are skipped in C."""
    if ind > outer + 1 and _between_re(outer + 1, ind - 1).search(text, a - 1, b):
        raise _Unsafe("a line indented less than the mapping's keys")
    out: list[tuple[str, Any, int, int]] = []
    prev: tuple[str, str | None, int] | None = None  # key, value, body start
    for m in _at_indent_re(ind).finditer(text, a - 1, b):
        key = m.group(1)
        if key is None:
            if m.group(3) is not None:
                continue  # an indentless sequence: the value of the key before
            raise _Unsafe("not a key")
        if prev is not None:
            out.append((prev[0], prev[1], prev[2], m.start() + 1))
        prev = (key, m.group(2), m.end() + 1)
    if prev is not None:
        out.append((prev[0], prev[1], min(prev[2], b), b))
    return out


_WANTED_META = ("name", "namespace", "generateName")


def _single(text: str, v: str | None, a: int, b: int) -> Any:
    """The scalar value of an entry; _COMPLEX if it goes on below its line."""
    val = _scalar(v)
    if val is not None and a < b and not _only_blank_or_comment(text, a, b):
        return _COMPLEX
    return val


def _read_identity(chunk: str, entries: list[tuple[str, Any, int, int]], c: int, meta: Meta) -> None:
    seen: set[str] = set()
    for key, v, a, b in entries:
        if key not in ("apiVersion", "kind", "metadata"):
            continue
        if key in seen:
            raise _Unsafe("duplicate " + key)
        seen.add(key)
        if key == "metadata":
            if _scalar(v) is not None:
                raise _Unsafe("flow metadata")
            m = _CONTENT_RE.search(chunk, a - 1, b)
            if m is not None:
                mi = len(m.group(1))
                if mi <= c:
                    raise _Unsafe("metadata is not a mapping")
                _read_metadata(chunk, a, b, mi, c, meta)
            continue
        val = _single(chunk, v, a, b)
        if not isinstance(val, str):
            raise _Unsafe(key)
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
                raise _Unsafe(mk)
            seen.add(mk)
            setattr(meta, "generate_name" if mk == "generateName" else mk, val)
        elif mk == "annotations":
            if mk in seen or _scalar(mv) is not None:
                raise _Unsafe("flow annotations")
            seen.add(mk)
            m = _CONTENT_RE.search(chunk, ma - 1, mb)
            if m is None:
                continue
            ai = len(m.group(1))
            if ai <= mi:
                raise _Unsafe("annotations is not a mapping")
            for ak, av, aa, ab in _entries(chunk, ma, mb, ai, mi):
                val = _single(chunk, av, aa, ab)
                # unsure of a value (a block scalar, an escape JSON lacks, a number): parse
                # the item, so that meta.annotations is always exactly what a reader sees
                if not isinstance(val, str) or ak in meta.annotations:
                    raise _Unsafe(ak)
                meta.annotations[ak] = val


_STR_TAG = "tag:yaml.org,2002:str"


class _Unsure(Exception):
    """libyaml's view of a value may differ from the round-trip loader's (YAML 1.1 vs 1.2)."""


def _composed_identity(item: Item, chunk: str) -> None:
    """Identity of an item the line scanner is unsure of (flow or JSON items, which kpt
    passes through as `- {"apiVersion": ...}`, quoted keys, multi-line values, duplicate
    keys...), read from libyaml's node graph: C speed, exact strings, and each scalar's
    style, so that a plain `yes`, `0o17` or `null`, which YAML 1.1 and 1.2 read differently,
    sends the item to the round-trip loader (`complex_meta`). Duplicate keys: the last one
    wins here; loading the item (as a target) reports them."""
    item.complex_meta = True
    item.meta = Meta()
    if "\t" in chunk:
        return  # libyaml takes tabs where ruamel refuses them: let the round-trip loader judge
    import yaml  # PyYAML; only lists with such items pay for it

    try:
        root = yaml.compose(chunk, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    if not isinstance(root, yaml.SequenceNode) or len(root.value) != 1:
        return
    node = root.value[0]
    meta = Meta()
    try:
        top = _mapping(yaml, node)
        if top is None:
            return
        meta.api_version = _plain_str(yaml, top.get("apiVersion"))
        meta.kind = _plain_str(yaml, top.get("kind"))
        md = _mapping(yaml, top.get("metadata"))
        if md is not None:
            meta.name = _plain_str(yaml, md.get("name"))
            meta.namespace = _plain_str(yaml, md.get("namespace"))
            meta.generate_name = _plain_str(yaml, md.get("generateName"))
            ann = _mapping(yaml, md.get("annotations"))
            for k, v in (ann or {}).items():
                if isinstance(v, yaml.ScalarNode) and not (v.style is None and v.value in ("", "~")):
                    meta.annotations[k] = _plain_str(yaml, v)
    except _Unsure:
        return
    item.meta = meta
    item.complex_meta = False


def _mapping(yaml: Any, node: Any) -> dict[str, Any] | None:
    """A mapping node's entries by key (last wins); None if absent or not a mapping."""
    if node is None or not isinstance(node, yaml.MappingNode):
        if node is not None and not isinstance(node, yaml.ScalarNode):
            raise _Unsure("a sequence where a mapping goes")
        if isinstance(node, yaml.ScalarNode) and not (node.style is None and node.value in ("", "~", "null")):
            raise _Unsure("a scalar where a mapping goes")
        return None
    out: dict[str, Any] = {}
    for k, v in node.value:
        key = _plain_str(yaml, k)
        if key == "<<" or k.tag == "tag:yaml.org,2002:merge":
            raise _Unsure("merge key")
        out[key] = v
    return out


def _plain_str(yaml: Any, node: Any) -> str:
    """The string a YAML 1.2 reader sees in a scalar node; _Unsure for anything else."""
    if node is None:
        return ""
    if not isinstance(node, yaml.ScalarNode):
        raise _Unsure("not a scalar")
    if node.style is None:  # plain: typed by the schema, and 1.1 and 1.2 types differ
        if not node.value or yamlio.is_ambiguous(node.value):
            raise _Unsure(node.value)
    elif node.tag != _STR_TAG:
        raise _Unsure("explicit tag")
    return str(node.value)


def _child_indent(body: list[str], a: int, b: int) -> int:
    for k in range(a, b):
        if not _is_blank_or_comment(body[k]):
            return _indent(body[k])
    return -1


def _item_body(chunk: str) -> tuple[list[str], int]:
    """The item's lines from the dash line on, the dash turned into a space, and the indent
    of its top-level keys."""
    lines = _lines(chunk)
    k = 0
    while not (_DASH_RE.match(lines[k]) and not lines[k].lstrip().startswith("#")):
        k += 1
    d = _indent(lines[k])
    after = lines[k][d + 1 :].lstrip(" ")
    if after.strip() and not after.startswith("#"):
        c = len(lines[k]) - len(after)
        return [" " * c + after] + lines[k + 1 :], c
    body = lines[k + 1 :]
    c = _child_indent(body, 0, len(body))
    return body, c if c >= 0 else d + 2


def _detect_indent(body: list[str], c: int) -> tuple[int, int, int]:
    """(mapping, sequence, offset) for ruamel, read off the item's own text."""
    mapping = 0
    seq: tuple[int, int] | None = None
    prev_key_indent = -1
    for line in body:
        if _is_blank_or_comment(line):
            continue
        ind = _indent(line)
        stripped = line[ind:]
        if stripped.startswith("- ") or stripped.rstrip() == "-":
            if seq is None and prev_key_indent >= 0 and ind >= prev_key_indent:
                off = ind - prev_key_indent
                seq = (off + 2, off) if off else (2, 0)
            prev_key_indent = -1
            continue
        if ind > c and mapping == 0 and prev_key_indent >= 0 and ind > prev_key_indent:
            mapping = ind - prev_key_indent
        prev_key_indent = ind if stripped.rstrip().endswith(":") else -1
        if mapping and seq:
            break
    m = mapping or 2
    s, o = seq if seq else (m, 0)
    if o:
        s = max(s, m + o) if s < o + 2 else s
    return (m, s, o)


def prerender_light(item: Item) -> bool:
    """Write a light-path item's edit now (kept for the output); False when the splicing
    writer is unsure of it."""
    from krm_fn import lite

    try:
        text = lite.render_item(item.lite, item.lite_before, item.node)
    except lite.Bail:
        return False
    item.lite_text = (yamlio.to_plain(item.node), text)
    return True


def _load_light(item: Item) -> bool:
    from krm_fn import lite

    assert item.text is not None
    if _may_nest_deeper_than_limit(item.text):
        return False  # the round-trip path names the deepest field
    body, c = _item_body(item.text)
    m, s, o = _detect_indent(body, c)
    try:
        data, doc = lite.load_item(item.text, m, s, o)
    except lite.Bail:
        return False
    check_limits(data, "the object")
    item.node = data
    item.lite = doc
    item.lite_before = lite.copy_data(data)
    item.before = yamlio.to_plain(data)
    item.indent = (m, s, o)
    return True


def check_untouched(frame: Frame) -> None:
    """Syntax-check the items no transform parsed, which the fast path would otherwise echo
    unread: one libyaml pass over their text (about 0.25 s for 6.7 MB, no objects built).
    Raises YamlSyntaxError (see check_syntax)."""
    texts = [it.text for it in frame.items if it.node is None and it.text is not None]
    if not frame.fast or not texts or _libyaml_reads("".join(texts)):
        return
    for t in texts:  # some item is not YAML for libyaml: which one?
        check_syntax(t)


def check_syntax(chunk: str) -> None:
    """Raise YamlSyntaxError when `chunk` (an item's text) is not YAML. libyaml (YAML 1.1)
    and the round-trip loader (YAML 1.2) differ at the edges, so what libyaml refuses is
    refused only when the round-trip loader refuses it too: this check never rejects what
    the rest of the function accepts."""
    if not _libyaml_reads(chunk):
        _load_item_text(chunk)


def _libyaml_reads(text: str) -> bool:
    """Whether libyaml parses `text` (events only, no objects built)."""
    try:
        from _ruamel_yaml import CParser  # ruamel.yaml.clib, a dependency
    except ImportError:
        return False
    try:
        CParser(text).raw_parse()
        return True
    except Exception:  # noqa: BLE001 - libyaml's errors of every kind
        return False


def _load_item_text(chunk: str) -> Any:
    """Parse one item chunk alone: drop its `- ` and the sequence indentation."""
    lines = _lines(chunk)
    k = 0
    while not (_DASH_RE.match(lines[k]) and not lines[k].lstrip().startswith("#")):
        k += 1
    d = _indent(lines[k])
    rest = lines[k][d + 1 :]
    after = rest.lstrip(" ")
    if after.strip() and not after.startswith("#"):
        cut = d + 1 + len(rest) - len(after)
    else:
        nxt = [x for x in lines[k + 1 :] if not _is_blank_or_comment(x)]
        cut = _indent(nxt[0]) if nxt else d + 2
    out = [x.lstrip(" ") if x.strip() else "\n" for x in lines[:k]]
    out.append(after if after.strip() else "\n")
    for line in lines[k + 1 :]:
        out.append(line[min(_indent(line), cut) :] if line.strip() else "\n")
    return load_guarded("".join(out), "the object", limits=False)


def render_item(item: Item, d: int) -> str:
    """The item's output text: the original when unchanged, else re-emitted."""
    return render_item_verified(item, d)[0]


def render_item_verified(item: Item, d: int) -> tuple[str, bool]:
    """(text, faithful): faithful is False when the round-trip emitter could not write the
    item without changing its data, and the plain emitter wrote it instead."""
    if item.text is not None and not item.changed:
        return item.text, True
    if item.lite is not None:
        from krm_fn import lite

        if item.lite_text is not None and item.lite_text[0] == yamlio.to_plain(item.node):
            return item.lite_text[1], True
        return lite.render_item(item.lite, item.lite_before, item.node), True  # or lite.Bail
    m, s, o = item.indent
    dumped, ok = dump_verified(item.node, m, s, o)
    return indent_entry(dumped, d), ok


def dump_verified(node: Any, m: int = 2, s: int = 2, o: int = 0) -> tuple[str, bool]:
    """Dump with the round-trip emitter and read the text back: ruamel 0.19 can write data
    that reads back differently (a comment before the items of a sequence turned `- a` and
    `- b` into the one string "a - b"; float digits). Then the data wins over the comments:
    the plain block emitter writes it, and the caller says so."""
    dumped = yamlio.rt_dump(node, m, s, o)
    want = yamlio.to_plain(node)
    try:
        same = yamlio.to_plain(yamlio.verify_load(dumped)) == want
    except Exception:  # noqa: BLE001 - unreadable output is the case this guards
        same = False
    if same:
        return dumped, True
    return yamlio.dump_block(want, compact=o == 0), False


def indent_entry(dumped: str, d: int) -> str:
    """Turn a top-level YAML document into one `- ` entry of a sequence at indent `d`."""
    pad = " " * (d + 2)
    out = []
    dashed = False
    for line in _lines(dumped):
        if line.startswith("..."):
            continue
        if not line.strip():
            out.append("\n")
        elif not dashed:
            # a head comment goes after the dash (`- # comment`), as kpt sends it: before
            # the dash, kpt (yaml.v3) would give it to the previous item, i.e. another file
            out.append(" " * d + "- " + line)
            dashed = True
        else:
            out.append(pad + line)
    if not dashed:
        out.append(" " * d + "- {}\n")
    return "".join(out)


# --------------------------------------------------------------------------- fallback


_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s,\[\]{}]")


def parse_whole(text: str) -> Frame:
    """Parse the input with the full loader, skipping the fast path: when a sliced item does
    not parse alone (it is not YAML, or it leans on an anchor in another item)."""
    return _full_parse(text)


def _full_parse(text: str) -> Frame:
    root = load_guarded(text, "the input")
    if not isinstance(root, dict):
        raise InputError(
            f"input is a YAML {type_name(root)}, not a ResourceList: expected a mapping with "
            "`kind: ResourceList` and `items`"
        )
    check_limits(root)
    kind = root.get("kind")
    _check_wrapper(kind if isinstance(kind, str) else "")
    api_version = root.get("apiVersion")
    items_node = root.get("items")
    if items_node is None:
        items_node = []
    if not isinstance(items_node, list):
        raise InputError(
            f"`items` is a {type_name(items_node)}; it must be a list of Kubernetes objects"
        )
    if _ALIAS.search(text):
        # an alias makes two places one node: an edit to one item must not reach another
        items_node = [copy.deepcopy(n) for n in items_node]
    items = []
    for pos, node in enumerate(items_node):
        meta = meta_of(node)
        it = Item(pos=pos, text=None, meta=meta, node=node)
        it.before = yamlio.to_plain(node)
        items.append(it)
    results_node = root.get("results")
    results: list[Any] = []
    if isinstance(results_node, list):
        results = [yamlio.to_plain(r) for r in results_node]
    elif isinstance(results_node, dict):
        results = [yamlio.to_plain(r) for r in (results_node.get("items") or [])]
    fc = root.get("functionConfig")
    extra = {str(k): v for k, v in root.items() if k not in _KNOWN_SECTIONS}
    return Frame(
        api_version=str(api_version) if api_version else "config.kubernetes.io/v1",
        kind=str(kind),
        items=items,
        function_config_text=None,
        function_config=fc,
        results=results,
        fast=False,
        extra=extra,
        full_root=root,
    )


def meta_of(node: Any) -> Meta:
    meta = Meta()
    if not isinstance(node, dict):
        meta.is_mapping = False
        return meta
    meta.api_version = _str(node.get("apiVersion"))
    meta.kind = _str(node.get("kind"))
    md = node.get("metadata")
    if isinstance(md, dict):
        meta.name = _str(md.get("name"))
        meta.namespace = _str(md.get("namespace"))
        meta.generate_name = _str(md.get("generateName"))
        ann = md.get("annotations")
        if isinstance(ann, dict):
            meta.annotations = {str(k): str(v) for k, v in ann.items() if isinstance(v, (str, int))}
    return meta


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "mapping"
    return type(v).__name__


def _short(e: Exception) -> str:
    s = " ".join(str(e).split())
    return s[:400]


def load_guarded(text: str, what: str, limits: bool = True) -> Any:
    """Parse `text` with the round-trip loader, bounded: nesting is measured on the event
    stream first (the loader recurses, and slows down sharply on deep flow nesting), alias
    expansion after (`check_limits`; skipped when the caller runs it itself). Every failure
    is an InputError whose message starts with `what`."""
    if _may_nest_deeper_than_limit(text):
        _scan_events(text, what)  # raises when it does
    try:
        root = yamlio.rt_load(text)
    except RecursionError:
        raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it") from None
    except Exception as e:  # noqa: BLE001 - parser errors of every kind
        # the event walk names a duplicate key's path and lines; only failures pay for it
        dup = _scan_events(text, what) if type(e).__name__ == "DuplicateKeyError" else None
        msg = f"{what} is not valid YAML: {_describe(e, dup)}"
        if type(e).__name__ == "DuplicateKeyError":
            raise InputError(msg) from None  # well-formed: names the object and the field
        raise YamlSyntaxError(msg) from None
    if limits:
        check_limits(root, what)
    if _SURROGATE_ESCAPE.search(text):
        _join_surrogates(root, what)
    return root


def _may_nest_deeper_than_limit(text: str) -> bool:
    """False when `text` surely nests at most MAX_DEPTH levels, so the event walk (PyYAML's
    import and a Python loop over every event: most of a one-PipelineRun run's parse time)
    can be skipped. A bound, not a measure: every level of block nesting needs a deeper
    indentation within two levels (an indentless sequence shares its key's column) or an
    indicator on the line (`- `, `? `, `: `), and every flow level a bracket."""
    flow = text.count("[") + text.count("{")
    if flow > MAX_DEPTH:
        return True
    deepest = 0
    for line in text.split("\n"):
        ind = len(line) - len(line.lstrip(" "))
        inline = line.count("- ") + line.count("? ") + line.count(": ")
        deepest = max(deepest, 2 * ind + inline)
    return deepest + flow + 2 > MAX_DEPTH


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _pair(s: str) -> str:
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def _join_surrogates(root: Any, what: str) -> None:
    """JSON writers escape a character outside the BMP as a UTF-16 surrogate pair
    (`"\\ud83d\\ude00"`); YAML reads each half as a character of its own, and no YAML
    reader takes such halves back. Join the pairs; an unpaired half is an input error."""
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        entries = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for k, v in entries:
            p = f"{path}[{k}]" if isinstance(node, list) else (f"{path}.{k}" if path else str(k))
            if isinstance(k, str) and _LONE_SURROGATE.search(k):
                raise InputError(f"{what}: key {p} holds a \\u escape of half a UTF-16 surrogate pair; write the character itself")
            if isinstance(v, str) and _LONE_SURROGATE.search(v):
                joined = _pair(str(v))
                if _LONE_SURROGATE.search(joined):
                    raise InputError(
                        f"{what}: {p} holds a \\u escape of half a UTF-16 surrogate pair, which "
                        "is not a character; write the character itself (or its full pair)"
                    )
                node[k] = type(v)(joined) if type(v) is not str else joined
            elif isinstance(v, (dict, list)):
                stack.append((v, p))


def _describe(e: Exception, dup: tuple[str, str, int, int] | None) -> str:
    """A one-line reason with the place and the fix, instead of the parser's dump."""
    name = type(e).__name__
    problem = str(getattr(e, "problem", "") or "")
    mark = getattr(e, "problem_mark", None)
    at = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    if name == "DuplicateKeyError":
        if dup is not None:
            path, key, first, second = dup
            return (
                f"duplicate key {key!r} at {path} (lines {first} and {second}); a key may "
                "appear only once in a mapping: keep one of them"
            )
        return f"{problem} ({at}); a key may appear only once in a mapping: keep one of them"
    if "Composer" in name and "document" in str(e):
        return (
            "it holds several YAML documents; the function reads exactly one ResourceList on "
            "stdin (to rewrite a multi-document file, use `krm-coschedule --config POLICY FILE`)"
        )
    if "\\t" in problem or "\t" in problem:
        return f"a tab character at {at}; YAML indentation must be spaces: replace the tab"
    if problem and at:
        ctx = str(getattr(e, "context", "") or "")
        return f"{ctx + ': ' if ctx else ''}{problem} at {at}"
    return _short(e)


class _Frame:
    __slots__ = ("is_map", "seen", "expect_key", "key", "index", "is_key")

    def __init__(self, is_map: bool, is_key: bool) -> None:
        self.is_map = is_map
        self.seen: dict[str, int] = {}
        self.expect_key = True
        self.key = ""
        self.index = 0
        self.is_key = is_key


def _path_of(stack: list[_Frame]) -> str:
    out = ""
    for f in stack:
        if f.is_map:
            out += ("." if out else "") + f.key
        else:
            out += f"[{f.index}]"
    return out or "the top level"


def _scan_events(text: str, what: str) -> tuple[str, str, int, int] | None:
    """Walk libyaml's event stream (iterative, C speed, no tree): refuse nesting deeper than
    MAX_DEPTH, and note the first duplicate mapping key (path, key, line, line) so that a
    DuplicateKeyError from the round-trip loader can name the field. A syntax error stops the
    walk: the round-trip loader reports it in its own words."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    stack: list[_Frame] = []
    dup: tuple[str, str, int, int] | None = None

    def done() -> None:  # a node in value position is complete
        if stack:
            top = stack[-1]
            if top.is_map:
                top.expect_key = True
            else:
                top.index += 1

    try:
        for ev in yaml.parse(text, Loader=loader):
            if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                f = stack.pop()
                if not f.is_key:
                    done()
                continue
            if not isinstance(ev, yaml.NodeEvent):
                continue
            top = stack[-1] if stack else None
            in_key = top is not None and top.is_map and top.expect_key
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if top is not None and in_key:
                    top.expect_key = False
                    top.key = "?"
                stack.append(_Frame(isinstance(ev, yaml.MappingStartEvent), in_key))
                if len(stack) > MAX_DEPTH + 1:
                    raise InputError(
                        f"{what} nests deeper than {MAX_DEPTH} levels (at "
                        f"{_path_of(stack[:-1])[:120]}...); flatten it"
                    )
                continue
            if top is not None and in_key:
                key = str(getattr(ev, "value", "*"))
                line = ev.start_mark.line + 1 if ev.start_mark is not None else 0
                if isinstance(ev, yaml.ScalarEvent) and dup is None and key in top.seen:
                    top.key = key
                    dup = (_path_of(stack), key, top.seen[key], line)
                top.seen.setdefault(key, line)
                top.key = key
                top.expect_key = False
                continue
            done()
    except yaml.YAMLError:
        pass
    return dup


def check_limits(root: Any, what: str = "the input") -> None:
    """Refuse alias bombs and absurd nesting before anything walks the tree.

    The bound is on what aliases add: a node's expanded size minus the distinct nodes seen
    so far (all of its subtree, in post-order). A large input without aliases is no bomb (a
    20,000-item JSON list was refused as one)."""
    memo: dict[int, int] = {}
    distinct = 0
    stack: list[tuple[Any, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        key = id(node)
        if done:
            kids = list(node.values() if isinstance(node, dict) else node)
            total = 1 + sum(memo.get(id(k), 1) for k in kids)
            distinct += 1 + sum(1 for k in kids if not isinstance(k, (dict, list)))
            if total - distinct > MAX_ALIAS_NODES:
                raise InputError(
                    f"{what} expands to more than {MAX_ALIAS_NODES} nodes through YAML "
                    "aliases (an alias bomb?); expand anchors by hand or split the input"
                )
            memo[key] = total
            continue
        if key in memo:
            continue
        if depth > MAX_DEPTH:
            raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it")
        memo[key] = 1  # cycle guard
        stack.append((node, depth, True))
        for k in node.values() if isinstance(node, dict) else node:
            if isinstance(k, (dict, list)) and id(k) not in memo:
                stack.append((k, depth + 1, False))


# --------------------------------------------------------------------------- writing


def render(frame: Frame, item_texts: list[str], generated: list[str], results: list[dict[str, Any]]) -> str:
    """Write the ResourceList. Fast path: every top-level section where and as it came (only
    `items` and `results` change); full parse: apiVersion, kind, items, functionConfig,
    results, then any other keys."""
    all_results = list(frame.results) + results
    results_text = "results:\n" + yamlio.dump_block(all_results, 0) if all_results else ""
    if frame.fast:
        return _render_fast(frame, item_texts, generated, results_text)
    out: list[str] = [
        f"apiVersion: {yamlio.scalar(frame.api_version)}\n",
        f"kind: {yamlio.scalar(frame.kind)}\n",
    ]
    body = item_texts + [indent_entry(g, 0) for g in generated]
    out.append("items:\n" if body else "items: []\n")
    out.extend(body)
    if frame.function_config is not None:
        out.append(_block_section("functionConfig", frame.function_config))
    out.append(results_text)
    for key, node in frame.extra.items():
        out.append(_block_section(key, node))
    return "".join(out)


def _render_fast(frame: Frame, item_texts: list[str], generated: list[str], results_text: str) -> str:
    d = frame.items_indent
    out: list[str] = [frame.header]
    if "apiVersion" not in frame.order:
        out.append(f"apiVersion: {yamlio.scalar(frame.api_version)}\n")
    order = frame.order if "items" in frame.order else [*frame.order, "items"]
    for key in order:
        if key == "apiVersion":
            out.append(frame.api_version_text)
        elif key == "kind":
            out.append(frame.kind_text)
        elif key == "items":
            body = item_texts + [indent_entry(g, d) for g in generated]
            bare = frame.items_line.split("#", 1)[0].strip() == "items:"
            if body:
                out.append(frame.items_line if bare else "items:\n")
            else:
                out.append("items: []\n" if bare else frame.items_line)
            out.extend(body)
            out.append(frame.items_trailer)
        elif key == "functionConfig":
            out.append(frame.function_config_text or "")
        elif key == "results":
            out.append(results_text)
        else:
            out.append(frame.extra[key])
    if "results" not in frame.order:
        out.append(results_text)
    return "".join(out)


def _block_section(key: str, node: Any) -> str:
    if isinstance(node, (dict, list)) and node:
        _set_block(node)
        dumped = yamlio.rt_dump({key: node})
        return dumped
    if node is None:
        return f"{key}: null\n"
    # a scalar dumped alone ends with a document end marker (`...`), which would cut the list
    return yamlio.rt_dump({key: node})


def _set_block(node: Any) -> None:
    stack = [node]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, (dict, list)):
            fa = getattr(n, "fa", None)
            # an empty collection has no block form: ruamel would write `{}` on a line of its
            # own, after the key's comment, which no reader can parse
            if fa is not None and len(n):
                fa.set_block_style()
            stack.extend(n.values() if isinstance(n, dict) else n)


def render_full_item(item: Item) -> str:
    """Fallback path: every item is re-emitted in block style."""
    return render_full_item_verified(item)[0]


def render_full_item_verified(item: Item) -> tuple[str, bool]:
    _set_block(item.node)
    dumped, ok = dump_verified(item.node)
    return indent_entry(dumped, 0), ok
