"""The comment-preserving round-trip loader and emitter (ruamel.yaml, imported when first
used: most runs never need it): load, dump, dump and verify, the safe loader that reads an
emitted text back, and plain data made safe for a round-trip tree."""
from __future__ import annotations

from krm_fn.yaml.emitter import dump_block
from krm_fn.yaml.emitter import is_ambiguous
from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

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


def new_map() -> Any:
    """An empty mapping of a round-trip tree (ruamel's CommentedMap)."""
    from ruamel.yaml.comments import CommentedMap

    return CommentedMap()


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
