"""ResourceList framing: read the bytes once, split them into items cheaply (krm_fn.io.scanner),
and write the list back with every item the policy leaves alone as the exact text it came in.

Fast path: block-style YAML with items as a block sequence, sliced by the scanner. Only items
a transform needs are parsed (Item.load); top-level sections are written back where and as
they came; only `items` (rewritten or generated entries) and `results` change. Items no
transform parses are still syntax-checked (an item of a shape the check-only reader took is
YAML already, scanner.shaped_item; the others by check_untouched: by the check-only reader,
light/check, for a small input, else in one libyaml pass), then echoed as they came.

Fallback: when slicing is not safe (a JSON document, flow `items`, an alias to an anchor in
another item, a document marker or directive, a CR or Unicode line separator, odd
indentation, a section that does not parse alone), the whole input goes to the round-trip
loader and every item is re-emitted in block style.
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.data import type_name
from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.io import scanner
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.io.items import check_syntax
from krm_fn.io.items import light_reads
from krm_fn.io.items import meta_of
from krm_fn.yaml import emitter
from krm_fn.yaml import guards
from krm_fn.yaml import layout
from krm_fn.yaml import libyaml
from krm_fn.yaml.document import RoundTripDocument
from krm_fn.yaml.light.check import checks
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


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
    if not printable_ascii(data):
        check_printable(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


_PRINTABLE_ASCII = b"\t\n\r" + bytes(range(0x20, 0x7F))


def printable_ascii(data: bytes) -> bool:
    """Whether `data` is ASCII with no character outside YAML's c-printable set: then
    check_printable() passes its text. One C pass, whose result is empty (the text check
    copies the text three times: 18 ms of a 7 MB list, 2 ms this way)."""
    return data.isascii() and not data.translate(None, _PRINTABLE_ASCII)


def check_printable(text: str, what: str = "input ") -> None:
    """InputError for a character YAML allows nowhere (outside c-printable). The common case,
    printable ASCII, is passed by printable_ascii() on the bytes before this is called."""
    bad = patterns.search(_NON_PRINTABLE, text)
    if bad is not None:
        # YAML allows these nowhere (c-printable): refusing here means no item that holds one
        # is echoed back into an output no reader can parse
        line = text.count("\n", 0, bad.start()) + 1
        col = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputError(
            f"{what}contains the control character U+{ord(bad.group()):04X} at line {line}, "
            f"column {col}; YAML does not allow it anywhere: remove it (or write it as an escape "
            "in a double-quoted string)"
        )


# everything outside YAML 1.2's c-printable set (tab, LF, CR and NEL are allowed); compiled
# on first use (re's cache), by input that is not plain printable ASCII
_NON_PRINTABLE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]"


def parse(text: str, *, fast: bool = True) -> ResourceList:
    """Split `text` into a ResourceList, by slicing when safe, else by a full parse.

    `fast=False` forces the full parse (tests compare both paths)."""
    if not text.strip() or scanner.only_blank_or_comment(text):
        raise InputError(
            "input is empty: expected one ResourceList (kind ResourceList or List) on stdin"
        )
    if fast:
        try:
            return scanner.scan(text)
        except (Unsure, YamlSyntaxError):  # a section may lean on an anchor elsewhere
            pass
    return _full_parse(text)




# Untouched items of at most this many bytes in all are checked by the check-only reader
# (light/check), then the light reader for what it is not sure of, so that such an input
# imports no libyaml binding (its import, ~20 ms with ruamel.yaml's, was most of a 20-item
# run: issue 34). Past it libyaml is cheaper: the check-only reader costs about 15,000
# instructions a line it has not seen before (a line seen once is remembered), libyaml's
# import about 60 M. Measured in instructions, whole runs of bench/gen.py lists (5% targets):
# 208 KB, 16% fewer with the check-only reader than with libyaml; the same list with every
# line made unique (a comment of its own), 3% fewer; 1 MB, 8% fewer. The verdict is the same
# either way: what the check-only reader takes, both libyaml and the round-trip loader take;
# what the light reader takes, the round-trip loader reads the same; check_syntax refuses
# only what that loader refuses; what neither reader is sure of goes to libyaml.
LIGHT_CHECK_BYTES = 256 * 1024


def check_untouched(rl: ResourceList) -> None:
    """Syntax-check the items no transform parsed, which the fast path would otherwise echo
    unread: one libyaml pass over their text (about 0.25 s for 6.7 MB, no objects built), or
    the check-only reader and the light reader for a small input (LIGHT_CHECK_BYTES). Raises YamlSyntaxError (see
    check_syntax), or InputError for flow nesting too deep to parse safely."""
    unread = [it for it in rl.items if it.doc is None and it.text is not None and not it.unreadable and not it.was_read]
    if not rl.fast or not unread:
        return
    for it in unread:
        assert it.text is not None
        if not guards.flow_nesting_within_limit(it.text):  # the item's name only when needed
            name = " ".join(x for x in (it.meta.kind, it.meta.name) if x)
            guards.check_flow_depth(it.text, f"items[{it.pos}]" + (f" ({name})" if name else ""))
    texts = [it.text for it in unread if it.text is not None]
    if sum(map(len, texts)) <= LIGHT_CHECK_BYTES:
        # the check-only reader first (no data built: about a third of the light reader's cost),
        # then the light reader for what it is not sure of (multi-line scalars...)
        texts = [t for t in texts if not checks(t) and not light_reads(t)]
        if not texts:
            return
    if libyaml.reads("".join(texts)):
        return
    for t in texts:  # some item is not YAML for libyaml: which one?
        check_syntax(t)



_ALIAS = r"(?:^|[\s\[{,:])\*[^\s,\[\]{}]"  # compiled on first use (re's cache): the full parse only


def parse_whole(text: str) -> ResourceList:
    """Parse the input with the full loader, skipping the fast path: when a sliced item does
    not parse alone (it is not YAML, or it leans on an anchor in another item)."""
    return _full_parse(text)


def _full_parse(text: str) -> ResourceList:
    root = guards.load_guarded(text, "the input")
    if not isinstance(root, dict):
        raise InputError(
            f"input is a YAML {type_name(root)}, not a ResourceList: expected a mapping with "
            "`kind: ResourceList` and `items`"
        )
    guards.check_limits(root)
    kind = root.get("kind")
    scanner.check_wrapper(kind if isinstance(kind, str) else "")
    api_version = root.get("apiVersion")
    items_node = root.get("items")
    if items_node is None:
        items_node = []
    if not isinstance(items_node, list):
        raise InputError(
            f"`items` is a {type_name(items_node)}; it must be a list of Kubernetes objects"
        )
    if patterns.search(_ALIAS, text):
        # an alias makes two places one node: an edit to one item must not reach another
        import copy  # here: ruamel's nodes (a plain copy would lose their comments); few lists

        items_node = [copy.deepcopy(n) for n in items_node]
    items = []
    for pos, node in enumerate(items_node):
        items.append(Item(pos, None, meta_of(node), doc=RoundTripDocument(node, block=True)))
    results_node = root.get("results")
    results: list[Any] = []
    if isinstance(results_node, list):
        results = [to_plain(r) for r in results_node]
    elif isinstance(results_node, dict):
        results = [to_plain(r) for r in (results_node.get("items") or [])]
    fc = root.get("functionConfig")
    # keys as read (an empty or null key stays one, quoted when written)
    extra = {k: v for k, v in root.items() if k not in scanner.KNOWN_SECTIONS}
    return ResourceList(
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




def render(rl: ResourceList, item_texts: list[str], generated: list[str], results: list[dict[str, Any]]) -> str:
    """Write the ResourceList. Fast path: every top-level section where and as it came (only
    `items` and `results` change); full parse: apiVersion, kind, items, functionConfig,
    results, then any other keys. `generated`: documents."""
    d = rl.items_indent if rl.fast else 0
    return "".join(render_parts(rl, item_texts, [layout.indent_entry(g, d) for g in generated], results))


_NULLS = frozenset(("", "~", "null", "Null", "NULL"))


def _null_value(value: str) -> bool:
    """Whether `value` (what follows `items` on its line, comment removed) gives the key a
    null value: the colon and nothing, or one of YAML 1.1's spellings of null."""
    return value.startswith(":") and value[1:].strip() in _NULLS


def render_parts(rl: ResourceList, item_texts: list[str], generated: Iterable[str], results: list[dict[str, Any]]) -> list[str]:
    """render's pieces, unjoined; `generated`: the generated objects as entries of `items`
    (each made when it is reached)."""
    all_results = list(rl.results) + results
    results_text = "results:\n" + emitter.dump_block(all_results, 0) if all_results else ""
    if rl.fast:
        return _render_fast(rl, item_texts, generated, results_text)
    out: list[str] = [
        f"apiVersion: {emitter.scalar(rl.api_version)}\n",
        f"kind: {emitter.scalar(rl.kind)}\n",
    ]
    body = item_texts + list(generated)
    out.append("items:\n" if body else "items: []\n")
    out.extend(body)
    if rl.function_config is not None:
        out.append(_block_section("functionConfig", rl.function_config))
    out.append(results_text)
    for key, node in rl.extra.items():
        out.append(_block_section(key, node))
    return out


def _render_fast(rl: ResourceList, item_texts: list[str], generated: Iterable[str], results_text: str) -> list[str]:
    out: list[str] = [rl.header]
    if "apiVersion" not in rl.order:
        out.append(f"apiVersion: {emitter.scalar(rl.api_version)}\n")
    order = rl.order if "items" in rl.order else [*rl.order, "items"]
    for key in order:
        if key == "apiVersion":
            out.append(rl.api_version_text)
        elif key == "kind":
            out.append(rl.kind_text)
        elif key == "items":
            body = item_texts + list(generated)
            value = rl.items_line.split("#", 1)[0].strip()[len("items") :].lstrip()
            bare = value == ":"
            if body:
                out.append(rl.items_line if bare else "items:\n")
            else:
                # a null `items` (`items:`, `items  :`, `items: ~`, `items: null`) is written
                # as the empty list it means: the output's items are always a list
                out.append("items: []\n" if _null_value(value) else rl.items_line)
            out.extend(body)
            out.append(rl.items_trailer)
        elif key == "functionConfig":
            out.append(rl.function_config_text or "")
        elif key == "results":
            out.append(results_text)
        else:
            out.append(rl.extra[key])
    if "results" not in rl.order:
        out.append(results_text)
    return out


def _block_section(key: Any, node: Any) -> str:
    if isinstance(node, (dict, list)) and node:
        loader.set_block_style(node)
        return loader.rt_dump({key: node})
    if node is None and isinstance(key, str):
        return f"{emitter.scalar(key)}: null\n"
    # a scalar dumped alone ends with a document end marker (`...`), which would cut the list
    return loader.rt_dump({key: node})

