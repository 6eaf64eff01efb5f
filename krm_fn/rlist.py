"""ResourceList framing: read the bytes once, find item boundaries and identities cheaply,
and write every item the policy leaves alone back as the exact text it came in.

Fast path: block-style YAML with items as a block sequence. Items are located by
indentation alone; identity (apiVersion, kind, name, namespace, annotations) is read by a
small indentation-aware scanner. Only items that a transform needs are parsed, one at a
time, with the comment-preserving round-trip loader.

Fallback: anything the scanner is not sure about (JSON, a flow `items` list, tabs,
directives, odd indentation, aliases across items) is parsed whole with the round-trip
loader and re-emitted in block style.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import Any

from krm_fn import yamlio

MAX_ALIAS_NODES = 200_000  # nodes an expanded tree may have (billion-laughs guard)
MAX_DEPTH = 200  # nesting depth of any collection


class InputError(Exception):
    """The input cannot be read as a ResourceList. The message says what to do."""


class YamlSyntaxError(InputError):
    """Part of the input is not YAML at all, so the whole input is not: echoing it back would
    give an output no reader can parse, so the run refuses the input as a whole."""


class _Unsafe(Exception):
    """Text slicing is not safe for this input: parse it whole."""


@dataclasses.dataclass
class Meta:
    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""
    generate_name: str = ""
    annotations: dict[str, str] = dataclasses.field(default_factory=dict)
    is_mapping: bool = True

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]


@dataclasses.dataclass
class Item:
    """One entry of `items`. `text` is the exact input text (fast path) or None."""

    pos: int
    text: str | None
    meta: Meta
    node: Any = None  # round-trip tree, once loaded
    before: Any = None  # plain copy taken at load time, to tell whether anything changed
    indent: tuple[int, int, int] = (2, 2, 0)  # mapping, sequence, offset for re-emission
    complex_meta: bool = False

    def load(self) -> Any:
        """Parse this item with the round-trip loader (once)."""
        if self.node is None:
            assert self.text is not None
            self.node = _load_item_text(self.text)
            check_limits(self.node, "the object")
            self.before = yamlio.to_plain(self.node)
        return self.node

    @property
    def changed(self) -> bool:
        return self.node is not None and yamlio.to_plain(self.node) != self.before


@dataclasses.dataclass
class Frame:
    """A ResourceList split into the parts the writer needs."""

    api_version: str
    kind: str
    items: list[Item]
    function_config_text: str | None  # raw `functionConfig:` section, echoed unchanged
    function_config: Any  # parsed (round-trip) or None
    results: list[Any]  # incoming results, plain data
    fast: bool
    header: str = ""  # comments before the first key
    api_version_text: str = ""
    kind_text: str = ""
    items_indent: int = 0
    extra_text: str = ""  # unknown top-level keys, raw
    full_root: Any = None  # fallback: the whole parsed document


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

_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$")
_DASH_RE = re.compile(r"( *)-(?: |$)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def parse(text: str) -> Frame:
    """Split `text` into a Frame, by slicing when safe, else by a full parse."""
    if not text.strip() or all(_is_blank_or_comment(x) for x in text.splitlines()):
        raise InputError(
            "input is empty: expected one ResourceList (kind ResourceList or List) on stdin"
        )
    try:
        return _split(text)
    except (_Unsafe, YamlSyntaxError):  # a section may lean on an anchor elsewhere
        return _full_parse(text)


def _split(text: str) -> Frame:
    if "\t" in text:
        raise _Unsafe("tab")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    n = len(lines)
    i = 0
    header: list[str] = []
    seen_doc_start = False
    while i < n:
        s = lines[i].rstrip()
        if _is_blank_or_comment(s):
            header.append(lines[i])
            i += 1
        elif s == "---" and not seen_doc_start:
            seen_doc_start = True
            i += 1
        else:
            break
    sections: dict[str, tuple[int, int, str | None]] = {}  # key -> (start, end, inline value)
    order: list[str] = []
    cur: str | None = None
    while i < n:
        line = lines[i]
        s = line.rstrip()
        # a document marker starts with "-" too: test it before treating "-" as an item line
        if s not in ("---", "...") and (line[0] in " -" or _is_blank_or_comment(line)):
            if cur is None:
                raise _Unsafe("content before first key")
            i += 1
            continue
        if s.startswith(("--- ", "---\t")):
            raise _Unsafe("document marker with content")
        if s in ("---", "..."):
            rest = lines[i + 1 :]
            if any(not _is_blank_or_comment(x) and x.strip() not in ("---", "...") for x in rest):
                raise InputError(
                    f"line {i + 1}: a second YAML document starts here; the function reads "
                    "exactly one ResourceList on stdin (to rewrite a multi-document file, use "
                    "`krm-coschedule --config POLICY FILE`)"
                )
            del lines[i:]
            n = i
            break
        m = _KEY_RE.match(s)
        if not m:
            raise _Unsafe("top-level line")
        key = m.group(1)
        if key in sections:
            raise InputError(
                f"line {i + 1}: duplicate top-level key {key!r} in the ResourceList; "
                "remove one of them"
            )
        if cur is not None:
            sections[cur] = (sections[cur][0], i, sections[cur][2])
        sections[key] = (i, n, m.group(2))
        order.append(key)
        cur = key
        i += 1
    if cur is not None:
        sections[cur] = (sections[cur][0], n, sections[cur][2])
    if not sections:
        raise _Unsafe("no keys")

    def scalar_of(key: str) -> tuple[str, str]:
        if key not in sections:
            return "", ""
        a, b, v = sections[key]
        body = lines[a + 1 : b]
        if any(not _is_blank_or_comment(x) for x in body):
            raise _Unsafe(f"{key} spans lines")
        val = _scalar(v)
        if val is None or val is _COMPLEX:
            raise _Unsafe(f"{key} value")
        return str(val), "".join(lines[a:b])

    api_version, api_version_text = scalar_of("apiVersion")
    kind, kind_text = scalar_of("kind")
    _check_wrapper(kind)

    items: list[Item] = []
    items_indent = 0
    if "items" in sections:
        a, b, v = sections["items"]
        if v is not None and _strip_comment(v) not in ("", "[]", "null", "~"):
            raise _Unsafe("flow items")
        items, items_indent = _split_items(lines, a + 1, b)

    fc_text = None
    fc = None
    if "functionConfig" in sections:
        a, b, _v = sections["functionConfig"]
        fc_text = "".join(lines[a:b])
        fc = _load_section(fc_text, "functionConfig")
    results: list[Any] = []
    if "results" in sections:
        a, b, _v = sections["results"]
        loaded = _load_section("".join(lines[a:b]), "results")
        if isinstance(loaded, list):
            results = [yamlio.to_plain(r) for r in loaded]
        elif isinstance(loaded, dict):  # legacy {name, items} form
            results = [yamlio.to_plain(r) for r in (loaded.get("items") or [])]
    extra = "".join(
        "".join(lines[sections[k][0] : sections[k][1]])
        for k in order
        if k not in ("apiVersion", "kind", "items", "functionConfig", "results")
    )
    return Frame(
        api_version=api_version or "config.kubernetes.io/v1",
        kind=kind or "ResourceList",
        items=items,
        function_config_text=fc_text,
        function_config=fc,
        results=results,
        fast=True,
        header="".join(header),
        api_version_text=api_version_text,
        kind_text=kind_text,
        items_indent=items_indent,
        extra_text=extra,
    )


def _check_wrapper(kind: str) -> None:
    if kind not in ("ResourceList", "List"):
        what = f"kind {kind!r}" if kind else "no kind"
        raise InputError(
            f"input has {what}: expected one ResourceList (kind ResourceList or List) with "
            "`items`; to rewrite plain manifest files use `krm-coschedule --config POLICY FILE`"
        )


def _load_section(section_text: str, key: str) -> Any:
    root = load_guarded(section_text, key)
    return root.get(key) if isinstance(root, dict) else None


def _split_items(lines: list[str], a: int, b: int) -> tuple[list[Item], int]:
    j = a
    while j < b and _is_blank_or_comment(lines[j]):
        j += 1
    if j >= b:
        return [], 0
    m = _DASH_RE.match(lines[j])
    if not m:
        raise _Unsafe("items not a block sequence")
    d = len(m.group(1))
    starts: list[int] = []
    pending_comment = -1  # first line of a run of shallow comments before the next item
    for k in range(j, b):
        line = lines[k]
        if not line.strip():
            continue
        ind = _indent(line)
        if line.lstrip().startswith("#"):
            if ind <= d and pending_comment < 0:
                pending_comment = k
            continue
        if ind == d and line[d] == "-" and (len(line) == d + 1 or line[d + 1] in " \n"):
            starts.append(pending_comment if pending_comment >= 0 else k)
        elif ind < d + 2:
            raise _Unsafe("odd indentation")
        pending_comment = -1
    starts[0] = a if starts[0] > a else starts[0]
    items = []
    for idx, s in enumerate(starts):
        e = starts[idx + 1] if idx + 1 < len(starts) else b
        chunk = "".join(lines[s:e])
        items.append(_make_item(idx, chunk, d))
    return items, d


# --------------------------------------------------------------------------- item identity

_COMPLEX = object()


def _strip_comment(v: str) -> str:
    k = v.find(" #")
    return (v[:k] if k >= 0 else v).strip()


def _scalar(v: str | None) -> Any:
    """Decode a one-line scalar; None for an empty value, _COMPLEX when unsure."""
    if v is None:
        return None
    v = v.strip()
    if not v or v.startswith("#"):
        return None
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
            if v[k - 1] == "\\" and not v[k - 2 : k] == "\\\\":
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
    if c in "&*!|>{[%@`?,":
        return _COMPLEX
    return _strip_comment(v)


def _make_item(pos: int, chunk: str, d: int) -> Item:
    lines = chunk.splitlines(keepends=True)
    # the dash line (head comments may precede it)
    k = 0
    while not _DASH_RE.match(lines[k]) or _indent(lines[k]) != d:
        k += 1
    first = lines[k]
    after = first[d + 1 :].lstrip(" ")
    item = Item(pos=pos, text=chunk, meta=Meta())
    if after.strip() == "" or after.startswith("#"):
        k += 1
        while k < len(lines) and _is_blank_or_comment(lines[k]):
            k += 1
        if k >= len(lines):
            item.meta.is_mapping = False
            item.complex_meta = True
            return item
        c = _indent(lines[k])
        body = lines[k:]
    else:
        if after[0] in "{[\"'?!&*|>":
            item.complex_meta = True
            return item
        c = len(first) - len(after)
        body = [" " * c + after] + lines[k + 1 :]
    try:
        _scan_identity(body, c, item.meta)
    except _Unsafe:
        item.complex_meta = True
        return item
    item.indent = _detect_indent(body, c)
    return item


_WANTED_META = ("name", "namespace", "generateName")


def _block_entries(body: list[str], start: int, end: int, ind: int) -> list[tuple[str, Any, int, int]]:
    """Keys at exactly `ind` within body[start:end]: (key, value, child_start, child_end)."""
    out: list[tuple[str, Any, int, int]] = []
    k = start
    while k < end:
        line = body[k]
        if _is_blank_or_comment(line):
            k += 1
            continue
        li = _indent(line)
        if li != ind:
            if li < ind:
                raise _Unsafe("dedent")
            k += 1
            continue
        m = _KEY_RE.match(line.rstrip("\n"), ind)
        if not m:
            raise _Unsafe("not a key")
        e = k + 1
        while e < end and (_is_blank_or_comment(body[e]) or _indent(body[e]) > ind):
            e += 1
        val = _scalar(m.group(2))
        if val is not None and e > k + 1 and any(not _is_blank_or_comment(x) for x in body[k + 1 : e]):
            val = _COMPLEX  # multi-line scalar
        out.append((m.group(1), val, k + 1, e))
        k = e
    return out


def _child_indent(body: list[str], a: int, b: int) -> int:
    for k in range(a, b):
        if not _is_blank_or_comment(body[k]):
            return _indent(body[k])
    return -1


def _scan_identity(body: list[str], c: int, meta: Meta) -> None:
    top = _block_entries(body, 0, len(body), c)
    for key, val, a, b in top:
        if key in ("apiVersion", "kind"):
            if not isinstance(val, str):
                raise _Unsafe(key)
            if key == "kind":
                meta.kind = val
            else:
                meta.api_version = val
        elif key == "metadata":
            if val is not None:
                raise _Unsafe("flow metadata")
            mi = _child_indent(body, a, b)
            if mi < 0:
                continue
            for mk, mv, ma, mb in _block_entries(body, a, b, mi):
                if mk in _WANTED_META:
                    if not isinstance(mv, str):
                        raise _Unsafe(mk)
                    setattr(meta, "generate_name" if mk == "generateName" else mk, mv)
                elif mk == "annotations":
                    if mv is not None:
                        raise _Unsafe("flow annotations")
                    ai = _child_indent(body, ma, mb)
                    if ai < 0:
                        continue
                    for ak, av, _x, _y in _block_entries(body, ma, mb, ai):
                        if isinstance(av, str):
                            meta.annotations[ak] = av
                        elif av is _COMPLEX and ak.startswith(("config.kubernetes.io/", "internal.", "krm-coschedule.dev/")):
                            raise _Unsafe(ak)


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


def _load_item_text(chunk: str) -> Any:
    """Parse one item chunk alone: drop its `- ` and the sequence indentation."""
    lines = chunk.splitlines(keepends=True)
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
    if item.text is not None and not item.changed:
        return item.text
    m, s, o = item.indent
    dumped = yamlio.rt_dump(item.node, m, s, o)
    return indent_entry(dumped, d)


def indent_entry(dumped: str, d: int) -> str:
    """Turn a top-level YAML document into one `- ` entry of a sequence at indent `d`."""
    pad = " " * (d + 2)
    out = []
    dashed = False
    for line in dumped.splitlines(keepends=True):
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
    return Frame(
        api_version=str(api_version) if api_version else "config.kubernetes.io/v1",
        kind=str(kind),
        items=items,
        function_config_text=None,
        function_config=fc,
        results=results,
        fast=False,
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
    dup = _scan_events(text, what)
    try:
        root = yamlio.rt_load(text)
    except RecursionError:
        raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it") from None
    except Exception as e:  # noqa: BLE001 - parser errors of every kind
        msg = f"{what} is not valid YAML: {_describe(e, dup)}"
        if type(e).__name__ == "DuplicateKeyError":
            raise InputError(msg) from None  # well-formed: names the object and the field
        raise YamlSyntaxError(msg) from None
    if limits:
        check_limits(root, what)
    if _SURROGATE_ESCAPE.search(text):
        _join_surrogates(root, what)
    return root


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
    """Write the ResourceList: apiVersion, kind, items, functionConfig, results."""
    d = frame.items_indent
    out: list[str] = []
    if frame.fast:
        out.append(frame.header)
        out.append(frame.api_version_text or f"apiVersion: {yamlio.scalar(frame.api_version)}\n")
        out.append(frame.kind_text or f"kind: {yamlio.scalar(frame.kind)}\n")
        body = item_texts + [indent_entry(g, d) for g in generated]
        if body:
            out.append("items:\n")
            out.extend(body)
        else:
            out.append("items: []\n")
        if frame.function_config_text is not None:
            out.append(frame.function_config_text)
    else:
        out.append(f"apiVersion: {yamlio.scalar(frame.api_version)}\n")
        out.append(f"kind: {yamlio.scalar(frame.kind)}\n")
        body = item_texts + [indent_entry(g, 0) for g in generated]
        out.append("items:\n" if body else "items: []\n")
        out.extend(body)
        if frame.function_config is not None:
            out.append(_block_section("functionConfig", frame.function_config))
    all_results = list(frame.results) + results
    if all_results:
        out.append("results:\n")
        out.append(yamlio.dump_block(all_results, 0))
    if frame.fast:
        out.append(frame.extra_text)
    return "".join(out)


def _block_section(key: str, node: Any) -> str:
    if isinstance(node, (dict, list)) and node:
        _set_block(node)
        dumped = yamlio.rt_dump({key: node})
        return dumped
    return f"{key}: {yamlio.rt_dump(node).strip() if node is not None else 'null'}\n"


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
    _set_block(item.node)
    return indent_entry(yamlio.rt_dump(item.node), 0)
