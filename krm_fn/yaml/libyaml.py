"""libyaml, the C parser behind PyYAML (YAML 1.1, as kubectl and kpt read) and
ruamel.yaml.clib: whether a text parses at all (events only, nothing built), its node graph
(`compose`, with the node kinds the callers ask about), and the tags its scanner finds. The
modules outside yaml/ ask these questions here and import no parser themselves."""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml import guards

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def reads(text: str) -> bool:
    """Whether libyaml parses `text` (events only, no objects built). False, without asking
    libyaml, for flow nesting past guards.MAX_DEPTH: the libyaml of ruamel.yaml.clib takes
    time with the square of the depth (60,000 levels in incoming results: 20 s) and older
    ones crash; the caller's guarded loader then refuses it with the field path."""
    if not guards.flow_nesting_within_limit(text):
        return False
    try:
        from _ruamel_yaml import CParser  # ruamel.yaml.clib, a dependency
    except ImportError:
        return False
    try:
        CParser(text).raw_parse()
        return True
    except Exception:  # noqa: BLE001 - libyaml's errors of every kind
        return False


def compose(text: str) -> Any:
    """The root node of libyaml's composer (PyYAML's C loader) for one document, or None
    when it is not YAML to libyaml. The caller bounds the nesting first (the composer
    recurses per level)."""
    import yaml  # PyYAML; only inputs that need a node graph pay for it

    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None


# a composed node's kind (PyYAML's ScalarNode, SequenceNode and MappingNode carry it as `id`)
def is_scalar(node: Any) -> bool:
    return getattr(node, "id", None) == "scalar"


def is_sequence(node: Any) -> bool:
    return getattr(node, "id", None) == "sequence"


def is_mapping(node: Any) -> bool:
    return getattr(node, "id", None) == "mapping"


def tag_tokens(text: str) -> list[tuple[str, str, int, int]] | None:
    """Each tag libyaml's scanner finds in `text` (a `!` inside a scalar is none): its
    handle, its suffix, and where it starts and ends; None when the text does not scan."""
    import yaml

    try:
        tokens = [t for t in yaml.scan(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if isinstance(t, yaml.TagToken)]
    except yaml.YAMLError:
        return None
    return [(t.value[0], t.value[1], t.start_mark.index, t.end_mark.index) for t in tokens]


def compose_marked(text: str) -> Any:
    """An item's node graph, with start and end marks (the splicer's positions of round-trip
    items), from libyaml: ruamel.yaml.clib's, or
    when that refuses the text, PyYAML's. ruamel.yaml.clib bundles an older libyaml that
    refuses a colon inside a plain scalar in a flow collection (`{url: https://h:8443/x}`),
    which the round-trip loader and libyaml 0.2.5 read; the splice is read back either way."""
    try:
        from ruamel.yaml.cyaml import CBaseLoader
    except ImportError:  # no libyaml: no end marks
        raise Unsure("no libyaml") from None
    node = _composed(CBaseLoader, text)
    if node is _REFUSED:
        import yaml

        other = getattr(yaml, "CBaseLoader", None)
        node = _composed(other, text) if other is not None else _REFUSED
    if node is _REFUSED:
        raise Unsure("libyaml does not read the item")
    return node


_REFUSED = object()


def _composed(loader_class: Any, text: str) -> Any:
    """The single node a libyaml loader composes of `text`, or _REFUSED."""
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    except Exception:  # noqa: BLE001 - libyaml refuses what the round-trip loader took
        return _REFUSED
    finally:
        loader.dispose()
