"""YAML helpers: a small deterministic block emitter, YAML 1.1-safe quoting, and the
comment-preserving round-trip loader (imported lazily: most runs never need it)."""
from __future__ import annotations

import re

try:  # json.dumps(s, ensure_ascii=False) of a str is this, and json costs ~1 ms to import
    from _json import encode_basestring as _json_string
except ImportError:  # pragma: no cover - an interpreter without json's C accelerator
    from json.encoder import py_encode_basestring as _json_string

from krm_fn.yaml import yamltext

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# Strings a YAML 1.1 decoder (kubectl, go-yaml v2) or a YAML 1.2 decoder would re-type.
_BOOL_NULL = frozenset(
    s
    for w in ("y", "n", "yes", "no", "on", "off", "true", "false", "null")
    for s in (w, w.upper(), w.capitalize())
) | {"~", "", "=", "<<"}
# The number forms, compiled on first use (re's cache): every form starts with a sign, a
# digit or a dot and holds only _NUMBER_CHARS (and `$` takes a final newline), so most
# strings are answered without it, and a run whose strings are no numbers never compiles it.
_NUMBER = r"""(?x)^(?:
      [-+]?0b[0-1_]+
    | [-+]?0o?[0-7_]+
    | [-+]?(?:0|[1-9][0-9_]*)
    | [-+]?0x[0-9a-fA-F_]+
    | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
    | [-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    | [-+]?\.(?:inf|Inf|INF)
    | \.(?:nan|NaN|NAN)
    )$"""
_NUMBER_START = frozenset("-+.0123456789")
_NUMBER_CHARS = frozenset("0123456789_-+.:abcdefABCDEFoxinIN\n")


class _NumberPattern:
    """`_NUMBER_RE.match(s)`: re.match(_NUMBER, s), asked only of a string that could match."""

    __slots__ = ()

    def match(self, s: str) -> re.Match[str] | None:
        if s[:1] not in _NUMBER_START or not _NUMBER_CHARS.issuperset(s):
            return None
        return re.match(_NUMBER, s)


_NUMBER_RE = _NumberPattern()
_TIMESTAMP = r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"  # compiled on first use, for `dddd-` only
# What may stay plain: starts with a safe character, no `: `/` #`, no trailing colon or space.
# It is r"^[A-Za-z0-9_./$(][A-Za-z0-9_./:@+=$(){}\[\], -]*\Z", answered with sets: that
# pattern cost 0.1 ms to compile at every start. (The pattern ended in `$`, which also matches
# before a final newline: "abc\n" was written plain and read back as "abc".)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_PLAIN_FIRST = frozenset(_ALNUM + "_./$(")
_PLAIN_REST = frozenset(_ALNUM + "_./:@+=$(){}[], -")


def _plain_chars(s: str) -> bool:
    if s[:1] not in _PLAIN_FIRST:
        return False
    return _PLAIN_REST.issuperset(s[1:])


def is_ambiguous(s: str) -> bool:
    """True when a plain `s` would not read back as the same string under YAML 1.1 or 1.2."""
    return (
        s in _BOOL_NULL
        or (s.isdigit() and s.isascii() and (s[0] != "0" or len(s) == 1))  # an int, without _NUMBER
        or bool(_NUMBER_RE.match(s))
        or (s[4:5] == "-" and s[:4].isdigit() and re.match(_TIMESTAMP, s) is not None)
    )


_FLOW_CHARS = frozenset("{}[],")


def _plain_ok(s: str) -> bool:
    if not _plain_chars(s) or is_ambiguous(s):
        return False
    if s.endswith((":", " ")) or ": " in s or " #" in s:
        return False
    if not _FLOW_CHARS.isdisjoint(s) and not s.startswith("$("):
        return False
    return True


# scalar() of a string, by string: the objects the emitter writes repeat their keys and most
# values (10,000 StatefulSets: 684,000 scalars, a few thousand distinct). Bounded: cleared
# when full, so a list of unique values costs one dict of them at most.
_SCALARS: dict[str, str] = {}
_SCALARS_MAX = 65536


def scalar(v: Any) -> str:
    """One scalar as YAML text."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    s = str(v)
    text = _SCALARS.get(s)
    if text is None:
        text = s if _plain_ok(s) else _json_string(s)
        if len(_SCALARS) >= _SCALARS_MAX:
            _SCALARS.clear()
        _SCALARS[s] = text
    return text


def dump_block(obj: Any, indent: int = 0, compact: bool = True) -> str:
    """Emit plain data (dict/list/scalars) as block YAML, keys in insertion order.

    `compact` puts sequence dashes at the parent key's indent (kyaml's default)."""
    out: list[str] = []
    _emit(obj, indent, compact, out)
    return "".join(out)


def dump_entry(obj: Any, d: int) -> str:
    """yamltext.indent_entry(dump_block(obj), d), emitted in place: a mapping's lines at
    indent d + 2, the first one's after the dash (`- `) at indent d."""
    if not isinstance(obj, dict) or any(k.__class__ is not str or scalar(k).startswith("...") for k in obj):
        return yamltext.indent_entry(dump_block(obj), d)  # a line indent_entry takes for an end marker
    out: list[str] = []
    _emit(obj, d + 2, True, out)
    out[0] = " " * d + "- " + out[0][d + 2 :]
    return "".join(out)


def _emit(obj: Any, ind: int, compact: bool, out: list[str]) -> None:
    pad = " " * ind
    if isinstance(obj, dict):
        if not obj:
            out.append(pad + "{}\n")
            return
        cached = _SCALARS.get
        append = out.append
        for k, v in obj.items():
            key = (cached(k) if k.__class__ is str else None) or scalar(k)
            if v.__class__ is str:  # most values, first
                append(f"{pad}{key}: {cached(v) or scalar(v)}\n")
            elif isinstance(v, dict) and v:
                append(f"{pad}{key}:\n")
                _emit(v, ind + 2, compact, out)
            elif isinstance(v, list) and v:
                append(f"{pad}{key}:\n")
                _emit(v, ind if compact else ind + 2, compact, out)
            else:
                append(f"{pad}{key}: {_inline(v)}\n")
    elif isinstance(obj, list):
        if not obj:
            out.append(pad + "[]\n")
            return
        cut = ind + 2
        for v in obj:
            if isinstance(v, (dict, list)) and v:
                # the entry's first line gets the dash in place of its indentation (one line
                # rewritten, not the entry's whole text: linear in nesting depth)
                first = len(out)
                _emit(v, cut, compact, out)
                out[first] = pad + "- " + out[first][cut:]
            else:
                out.append(f"{pad}- {_inline(v)}\n")
    else:
        out.append(pad + _inline(obj) + "\n")


def _inline(v: Any) -> str:
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return scalar(v)


# --------------------------------------------------------------------------- round trip

_RT: dict[tuple[int, int, int], Any] = {}


def rt_yaml(mapping: int = 2, sequence: int = 2, offset: int = 0) -> Any:
    """A ruamel round-trip instance (cached per indentation style)."""
    key = (mapping, sequence, offset)
    y = _RT.get(key)
    if y is None:
        from ruamel.yaml import YAML

        y = YAML(typ="rt")
        y.Constructor = _key_constructor()
        y.Representer = _key_representer()
        y.preserve_quotes = True
        y.width = 1_000_000
        y.indent(mapping=mapping, sequence=sequence, offset=offset)
        y.allow_duplicate_keys = False
        _RT[key] = y
    return y


class ScalarKey(str):
    """A mapping key written as a plain int, bool or float (`1:`, `true:`): kept as its text,
    a string, as Kubernetes reads it (YAML is converted to JSON, whose keys are strings), so
    `1` and `true` in one mapping are two keys (as Python values they are equal, and the
    round-trip loader took them for a duplicate), and written back as it was."""

    __slots__ = ("tag",)
    tag: str


_KEY_TAGS = {
    "tag:yaml.org,2002:int": "tag:krm-coschedule,key:int",
    "tag:yaml.org,2002:bool": "tag:krm-coschedule,key:bool",
    "tag:yaml.org,2002:float": "tag:krm-coschedule,key:float",
}
_KEY_TAGS_BACK = {v: k for k, v in _KEY_TAGS.items()}


def _key_constructor() -> Any:
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.nodes import MappingNode
    from ruamel.yaml.nodes import ScalarNode

    class KeyConstructor(RoundTripConstructor):
        def construct_document(self, node: Any) -> Any:
            # retag plain int/bool/float mapping keys before construction, walking the node
            # tree without recursion (a deeper Python stack would lower the depth bound)
            stack = [node]
            seen: set[int] = set()
            while stack:
                n = stack.pop()
                if id(n) in seen or isinstance(n, ScalarNode):
                    continue
                seen.add(id(n))
                if isinstance(n, MappingNode):
                    for key_node, value_node in n.value:
                        if isinstance(key_node, ScalarNode) and key_node.tag in _KEY_TAGS and key_node.style is None:
                            key_node.tag = _KEY_TAGS[key_node.tag]
                        stack.append(key_node)
                        stack.append(value_node)
                elif isinstance(n.value, list):
                    stack.extend(n.value)
            return super().construct_document(node)

        def construct_key(self, node: Any) -> ScalarKey:
            key = ScalarKey(node.value)
            key.tag = _KEY_TAGS_BACK[node.tag]
            return key

    for tag in _KEY_TAGS.values():
        KeyConstructor.add_constructor(tag, KeyConstructor.construct_key)
    return KeyConstructor


def _key_representer() -> Any:
    from ruamel.yaml.representer import RoundTripRepresenter

    class KeyRepresenter(RoundTripRepresenter):
        def represent_key_scalar(self, data: ScalarKey) -> Any:
            return self.represent_scalar(data.tag, str(data))

    KeyRepresenter.add_representer(ScalarKey, KeyRepresenter.represent_key_scalar)
    return KeyRepresenter


def round_trip_used() -> bool:
    """Whether this process made a round-trip or verifying loader (whose loads make
    reference cycles: process.PausedGC collects them)."""
    return bool(_RT) or _VERIFY is not None


def rt_load(text: str) -> Any:
    y = rt_yaml()
    try:
        data = y.load(text)
    finally:
        # a `%YAML`/`%TAG` directive sticks to the (cached) instance and would be written
        # into every later dump, items included
        y.version = None
        y.tags = None
        _forget_documents(y)
    if "!!str" in text or _STR_TAG in text:
        _untag_strings(data)
    return data


_STR_TAG = "tag:yaml.org,2002:str"


def _untag_strings(data: Any) -> None:
    """`!!str ci` is the string `ci` to every YAML reader (kubectl too), but the round-trip
    loader gives a TaggedScalar (to write the tag back), which no check takes for a string:
    a run with `namespace: !!str ci` was refused. Such values become strings, double-quoted
    ones, so that a whole-object write keeps them strings (`"0755"`); the splicing writers
    keep the text of an entry that did not change, tag and all."""
    from ruamel.yaml.comments import TaggedScalar
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    stack = [data]
    while stack:
        node = stack.pop()
        slots = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in list(slots):
            if isinstance(v, TaggedScalar) and str(v.tag) == _STR_TAG and isinstance(v.value, str):
                node[k] = DoubleQuotedScalarString(v.value)
            elif isinstance(v, (dict, list)):
                stack.append(v)


def rt_dump(node: Any, mapping: int = 2, sequence: int = 2, offset: int = 0) -> str:
    import io

    buf = io.StringIO()
    rt_yaml(mapping, sequence, offset).dump(node, buf)
    return buf.getvalue()


class DQ(str):
    """A string to be written double-quoted (the light path's DoubleQuotedScalarString)."""


def yamlsafe(value: Any) -> Any:
    """Deep-convert plain data for insertion into a round-trip tree: maps and lists become
    ruamel's commented types (block style), and strings a YAML 1.1 reader would re-type are
    double-quoted (kubernetes#34146, go-yaml#489)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, dict):
        m = CommentedMap()
        for k, v in value.items():
            m[k] = yamlsafe(v)
        return m
    if isinstance(value, list):
        s = CommentedSeq()
        for v in value:
            s.append(yamlsafe(v))
        return s
    if isinstance(value, str) and type(value) is str and is_ambiguous(value):
        return DoubleQuotedScalarString(value)
    return value


def plain_safe(value: Any) -> Any:
    """yamlsafe() for plain data (the light path): plain dicts and lists, DQ for strings a
    YAML 1.1 reader would re-type."""
    cls = value.__class__
    if cls is str:
        safe = _SAFE.get(value)
        if safe is None:
            safe = DQ(value) if is_ambiguous(value) else value
            if len(_SAFE) >= 4096:
                _SAFE.clear()
            _SAFE[value] = safe
        return safe
    if cls is dict or (cls is not list and isinstance(value, dict)):
        return {k: plain_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_safe(v) for v in value]
    return value


# plain_safe of a str, by value (the same few strings are made safe for every run; cleared
# at 4,096: a kept string is kept alive)
_SAFE: dict[str, str] = {}


def set_block_style(node: Any) -> None:
    """Make every non-empty collection of a round-trip tree block style (the full-parse path
    writes JSON and flow input as block YAML)."""
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


def dump_verified(node: Any, m: int = 2, s: int = 2, o: int = 0) -> tuple[str, bool]:
    """Dump with the round-trip emitter and read the text back: ruamel 0.19 can write data
    that reads back differently (a comment before the items of a sequence turned `- a` and
    `- b` into the one string "a - b"; float digits). Then the data wins over the comments:
    the plain block emitter writes it, and the caller says so (faithful = False)."""
    dumped = rt_dump(node, m, s, o)
    want = to_plain(node)
    try:
        same = to_plain(verify_load(dumped)) == want
    except Exception:  # noqa: BLE001 - unreadable output is the case this guards
        same = False
    if same:
        return dumped, True
    return dump_block(want, compact=o == 0), False


_VERIFY: Any = None


def verify_load(text: str) -> Any:
    """Read emitted text back for verification: ruamel's safe loader (YAML 1.2, like the
    round-trip loader) on libyaml's C parser when ruamel.yaml.clib is installed, about five
    times faster than the round-trip loader; the round-trip loader when the safe one refuses
    the text (a local tag, say)."""
    global _VERIFY
    if _VERIFY is None:
        from ruamel.yaml import YAML

        _VERIFY = YAML(typ="safe", pure=False)
    try:
        return _VERIFY.load(text)
    except Exception:  # noqa: BLE001 - e.g. a tag the safe loader does not know
        return rt_load(text)
    finally:
        _forget_documents(_VERIFY)


def _forget_documents(y: Any) -> None:
    """ruamel 0.19 keeps a DocInfo per document a YAML instance loads, read only while it
    loads: the cached instances grew by two objects a load, for the life of the process."""
    infos = getattr(y, "doc_infos", None)
    if isinstance(infos, list):
        infos.clear()


def source_text(value: Any) -> str:
    """A scalar as it was written in the YAML it came from (`1.30`, `010`, `0x1F`: the
    round-trip loader keeps the spelling of numbers), else as YAML writes it."""
    try:
        text = rt_dump(value)
    except Exception:  # noqa: BLE001 - a value the emitter refuses: its Python spelling
        return repr(value)
    return text[: -len("\n...\n")] if text.endswith("\n...\n") else text.rstrip("\n")


def to_plain(value: Any) -> Any:
    """Round-trip tree -> plain dict/list/str/int (for comparison and hashing)."""
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    import datetime  # not at the top (#5: start-up); whatever made a date value has loaded it

    if isinstance(value, (datetime.datetime, datetime.date)):
        # the round-trip loader gives a datetime for a plain date, the safe loader a date
        if isinstance(value, datetime.datetime) and value.time() == datetime.time() and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat()
    return str(value)
