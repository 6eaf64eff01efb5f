"""The item scanner: split a block-style ResourceList into its top-level sections and its
items by indentation alone, and read each item's identity (apiVersion, kind, name,
namespace, annotations) without parsing it.

The scanner works on offsets into the text, never on a list of every line: a 7 MB list has a
quarter of a million lines, and a Python loop over them costs more than everything else
together. The few lines that carry structure (top-level keys, item starts, an item's own
top-level keys) are found by string operations (io/identity), and in a long input by
patterns compiled once those have covered a few kilobytes, which skip the deeper lines in C.

In a list of a few items or more, an item of a shape seen before is read by its shape
(shaped_item, at the end).

Per item, what it is not sure about (quoted or typed identity values, multi-line scalars,
flow metadata, odd indentation inside the item) sets `complex_meta`: that item alone is
parsed to learn its identity. What makes slicing itself unsafe (a flow `items` list, an alias
to an anchor in another item, a document marker or directive, a CR or Unicode line separator,
a line indented less than its item, a section that does not parse alone) raises
errors.Unsure, and the caller parses the whole input instead (resourcelist.parse).
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.data import Memo
from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.keys import PATH_ANNOTATIONS
from krm_fn.io.identity import COMPLEX
from krm_fn.io.identity import first_content
from krm_fn.io.identity import indented_content
from krm_fn.io.identity import key_value
from krm_fn.io.identity import make_item
from krm_fn.io.identity import only_blank_or_comment
from krm_fn.io.identity import plain_scalar
from krm_fn.io.identity import shallow_lines
from krm_fn.io.identity import strip_comment
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.io.items import ResourceList
from krm_fn.io.items import detect_indent
from krm_fn.yaml import guards
from krm_fn.yaml import layout
from krm_fn.yaml import libyaml
from krm_fn.yaml.light import parser
from krm_fn.yaml.light.check import checks
from krm_fn.yaml.light.scalars import WORD_CHARS
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

_ALIAS_RE = r"(?m)(?:^[ ]*|[-?:][ ]+|[\[{,][ ]*)\*([^\s,\[\]{}]+)"  # compiled on first use (re's cache)
KNOWN_SECTIONS = ("apiVersion", "kind", "items", "functionConfig", "results")


def scan(text: str) -> ResourceList:
    """The ResourceList in `text`, sliced; Unsure when slicing is not safe for it."""
    # CR (decode() already turned CRLF into LF) and the Unicode line breaks of YAML 1.1
    # (which ruamel still honours) end lines where this splitter sees none
    if any(c in text for c in "\r\x85\u2028\u2029"):
        raise Unsure("CR or a Unicode line separator")
    # Tabs need no check of their own: a tab that YAML would take as separation, at the start
    # of a line or after a dash or colon, makes that line fail the key and dash patterns
    # (-> Unsure), and plain_scalar() refuses values with tabs; deeper tabs are content.
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
    for start, line in shallow_lines(text, 0, len(text), 0):
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
        kv = key_value(line)
        if kv is None:
            raise Unsure("top-level line")
        key = kv[0]
        if key in sections:
            lineno = text.count("\n", 0, start) + 1
            raise InputError(f"line {lineno}: duplicate top-level key {key!r} in the ResourceList; remove one of them")
        if cur is None:
            head = text[:start]
            if indented_content(head):
                raise Unsure("content before the first key")
            # comments before the first key are kept; a leading `---` is dropped
            header = head if doc_start is None else head[: doc_start[0]] + head[doc_start[1] :]
        else:
            sections[cur][1] = start
        sections[key] = [start, end, kv[1], start + len(line) + 1]
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
    val = plain_scalar(v)
    if val is None or val is COMPLEX:
        raise Unsure(f"{key} value")
    return str(val), text[a:b]


def _items_section(text: str, sections: dict[str, list[Any]]) -> tuple[list[Item], int, str, str]:
    """(items, dash indent, the `items:` line as written, comments after the last item)."""
    if "items" not in sections:
        return [], 0, "items:\n", ""
    a, b, v, le = sections["items"]
    items_line = text[a:le]
    if v is not None and strip_comment(v) not in ("", "[]", "null", "~"):
        raise Unsure("flow items")
    if v is not None and strip_comment(v) and not only_blank_or_comment(text, le, b):
        raise Unsure("items value and content")
    items, items_indent, items_trailer = _split_items(text, le, b)
    if not items and strip_comment(v or ""):
        return items, items_indent, text[a:b], ""  # `items: []` and what follows it, as written
    return items, items_indent, items_line, items_trailer


def _results_section(text: str, sections: dict[str, list[Any]]) -> list[Any]:
    if "results" not in sections:
        return []
    a, b, _v, _le = sections["results"]
    loaded = _load_section(text[a:b], "results")
    if isinstance(loaded, list):
        return [to_plain(r) for r in loaded]
    if isinstance(loaded, dict):  # legacy {name, items} form
        return [to_plain(r) for r in (loaded.get("items") or [])]
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
        lines = layout.split_lines(section_text, keepends=False)
        m, s, o = detect_indent([x + "\n" for x in lines], 0)
        try:
            root, _ = parser.read(lines, m, o, 0)
            return root.get(key)
        except Unsure:
            pass
    elif libyaml.reads(section_text):  # False for flow nesting too deep: refused below
        if key not in ("results",):
            return None
        try:
            root = loader.verify_load(section_text)
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
        for m in patterns.finditer(_ALIAS_RE, chunk):
            name = m.group(1)
            anchor = patterns.compile(r"&" + patterns.escape(name) + r"(?=[\s,\[\]{}]|$)", patterns.M)
            if anchor.search(chunk, 0, m.start()):
                continue
            if anchor.search(text):
                raise Unsure("alias to an anchor in another item")
            # no such anchor anywhere: not an alias (a glob in a block scalar), or bad YAML
            # that parsing the item will report


def _split_items(text: str, a: int, b: int) -> tuple[list[Item], int, str]:
    """Items of the block sequence in text[a:b]: (items, dash indent, trailing comments).
    `a` is a line start after a newline."""
    fc = first_content(text, a - 1, b)
    if fc is None:
        return [], 0, text[a:b]
    d = fc[1]
    first = fc[0] + 1
    if not layout.dash_at(text, first) or text[first + d] != "-":
        raise Unsure("items not a block sequence")
    starts: list[tuple[int, int]] = []  # (chunk start, dash line start)
    comments: list[int] = []  # shallow comment lines since the last item start
    for p, shallow in shallow_lines(text, a, b, d + 1):
        ind = len(shallow) - len(shallow.lstrip(" "))
        if shallow[ind] == "#":
            comments.append(p)
            continue
        if ind == d and shallow[d] == "-" and (len(shallow) == d + 1 or shallow[d + 1] == " "):
            starts.append((_head_start(text, comments, p), p))
            comments = []
            continue
        raise Unsure("odd indentation")
    trailer_at = _head_start(text, comments, b) if comments else b
    items = []
    line = text.count("\n", 0, a) + 1
    read = shaped_item if len(starts) >= SHAPES_FROM else make_item
    _SHAPES_SEEN[:] = [0, 0]
    for idx, (s, dash) in enumerate(starts):
        s = a if idx == 0 else s
        e = starts[idx + 1][0] if idx + 1 < len(starts) else trailer_at
        chunk = text[s:e]
        item = read(idx, chunk, dash - s, d)
        if idx == SHAPES_TRIED and _SHAPES_SEEN[1] * 2 < idx:
            read = make_item  # most shapes new: a list of objects each its own, not worth it
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


# --------------------------------------------------------------------------- item shapes

# An item's shape (issue 34): its text with every simple plain value that ends its line
# written `a` (`name: app-3` -> `name: a`), and so the inside of every one-line quoted value
# that ends its line (`path: 'a/b.yaml'` -> `path: a`), in one C pass of _SHAPE_VALUE, and the
# text of every comment after a blank taken out (` # tuned by hand` -> ` #`). Keys,
# indentation, indicators and every other character stay. Most items of a list share their
# shape with others (kpt's annotations, one template per kind): the first of a shape is read
# as before (make_item), which notes where its identity lies; every later item of that
# shape has it on the same lines after the same text (checked), and is YAML if the shape is:
# what it differs in, a parser takes anywhere a value ends its line (or is comment text),
# so the check-only reader (light/check) decides the shape once, at its second item (a
# shape seen once, such as the one PipelineRun of a list, is checked as before, if unread).
# An untouched item then costs two C passes and a few values instead of the identity reader
# and a syntax check. Only for ASCII text without tabs (a character a reader refuses in a
# comment or a quoted value would go unseen). tests/unit/io/test_scanner.py checks it
# against make_item and both parsers, on items of one shape.
_SHAPE_VALUE = r""": (?:\w[\w./:-]*(?<!:)|'[^'\n]+'|"[^"\n\\]+")(?= *\n| +#)"""  # (\w: ASCII here)
SHAPES_FROM = 3  # items in the list; fewer (one PipelineRun) do not pay for shapes
# shape -> [where its identity lies, or None: (Meta attribute, or None for an annotation;
# annotation key; line index; the line up to the value; the line and the value read off it
# in the first item); the check-only reader's verdict on
# the shape, None until asked; until then, the shape's first item, marked with the verdict]
_SHAPES = Memo(512)
# after this many items of a list, shapes are given up when fewer than half were known
# (a shape costs 0.08 M instructions more to an item that is its shape's first)
SHAPES_TRIED = 64
_SHAPES_SEEN = [0, 0]  # items of the list being scanned: shapes new, shapes known


def shape(chunk: str) -> str | None:  # `chunk`'s shape (see _SHAPE_VALUE); None: it has none
    if not chunk.isascii() or "\t" in chunk:
        return None
    pattern = patterns.scan_pattern(_SHAPE_VALUE, None, len(chunk))
    s = _shape_values(chunk) if pattern is None else pattern.sub(": a", chunk)
    if " #" not in s:
        return s
    parts = s.split(" #")
    return " #".join([parts[0], *(p[p.find("\n") :] if "\n" in p else "" for p in parts[1:])])


_VALUE_CHARS = WORD_CHARS | frozenset("./:-")


def _shape_values(text: str) -> str:
    """re.sub(_SHAPE_VALUE, ": a", text) by string operations, for ASCII text (a small input
    does not pay for importing `re`: patterns.scan_pattern)."""
    out = []
    at = 0  # text[at:] is not copied yet
    n = len(text)
    p = text.find(": ")
    while p != -1:
        e = _simple_value_end(text, p + 2, n)
        if e == -1:
            p = text.find(": ", p + 1)
            continue
        out.append(text[at:p])
        out.append(": a")
        at = e
        p = text.find(": ", e)
    out.append(text[at:])
    return "".join(out)


def _simple_value_end(text: str, v: int, n: int) -> int:
    """Where a value of _SHAPE_VALUE starting at `v` ends, if it ends its line there (blanks
    and a newline, or blanks and a comment follow); -1 otherwise."""
    if v >= n:
        return -1
    c = text[v]
    if c in WORD_CHARS:  # \w[\w./:-]*(?<!:): a run of those never followed by one of them
        e = v + 1
        while e < n and text[e] in _VALUE_CHARS:
            e += 1
        if text[e - 1] == ":":
            return -1
    elif c == "'" or c == '"':  # '[^'\n]+' and "[^"\n\\]+": not empty, on one line
        q = text.find(c, v + 1)
        if q <= v + 1 or text.find("\n", v + 1, q) != -1 or (c == '"' and text.find("\\", v + 1, q) != -1):
            return -1
        e = q + 1
    else:
        return -1
    s = e
    while s < n and text[s] == " ":
        s += 1
    if s < n and (text[s] == "\n" or (text[s] == "#" and s > e)):  # (?= *\n| +#)
        return e
    return -1


# make_item's Item for `chunk`, marked read (`was_read`: it is YAML, no syntax check left)
# when its shape was checked; by the shape's lines when it was seen before
def shaped_item(pos: int, chunk: str, dash: int, d: int) -> Item:
    s = shape(chunk) if guards.flow_nesting_within_limit(chunk) else None
    if s is None:
        return make_item(pos, chunk, dash, d)
    known = _SHAPES.get(s)
    _SHAPES_SEEN[known is not None] += 1
    if known is None:
        where: list[Any] = []
        item = make_item(pos, chunk, dash, d, where)
        _SHAPES.keep(s, [_recipe(chunk, where[0]) if where else None, None, item])
        return item
    recipe, verdict, first = known
    if verdict is None:
        verdict = known[1] = checks(s)
        if verdict:
            first.was_read = True  # (the shape's first item, of this list or an earlier one)
        known[2] = None
    read = _by_recipe(pos, chunk, recipe) if recipe is not None else None
    item = make_item(pos, chunk, dash, d) if read is None else read
    item.was_read = verdict
    return item


# The Item of `chunk` with its identity read where the recipe says; None when a line is not
# as it says or a value is not a string there (`yes`, a number: make_item decides)
def _by_recipe(pos: int, chunk: str, recipe: list[Any]) -> Item | None:
    meta = Meta()
    lines = chunk.split("\n")
    for attr, key, i, prefix, same, val in recipe:
        line = lines[i]
        if line != same:  # (else the first item's value: `kind: Service`, `index: '0'`)
            if not line.startswith(prefix):
                return None
            val = plain_scalar(line[len(prefix) :].rstrip(" "))
            if type(val) is not str:
                return None
        if attr is None:
            meta.annotations[key] = val
        else:
            setattr(meta, attr, val)
    return Item(pos, chunk, meta)


def _recipe(chunk: str, found: list[Any]) -> list[Any] | None:  # see _SHAPES; None: unsure
    lines = chunk.split("\n")
    out = []
    for attr, key, a, v in found:
        i = chunk.count("\n", 0, a - 1)
        line = lines[i].rstrip(" ")
        if not line.endswith(v):
            return None
        out.append((attr, key, i, lines[i][: len(line) - len(v)], lines[i], plain_scalar(v)))
    return out
