"""ruamel's round-trip emitter writing new entries for the splicing writer (splice/newtext):
one mapping entry or sequence entries at the item's indentation, from a copy of the data
without its comments (`bare`: they stay in the kept text) or, for the light reader's plain
data, with its styles (`styled`: quotes, block scalars, flow collections)."""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import DQ
from krm_fn.yaml.light.scalars import SQ
from krm_fn.yaml.light.scalars import Folded
from krm_fn.yaml.light.scalars import Lit
from krm_fn.yaml.roundtrip import loader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class Emitter:
    """ruamel's round-trip emitter, at the item's indentation (mapping, sequence, offset)."""

    def __init__(self, indent: tuple[int, int, int]) -> None:
        self.indent = indent

    def prepare(self, v: Any) -> Any:
        """The data as the emitter is to write it."""
        return bare(v)

    def prepare_key(self, k: Any) -> Any:
        return k

    def restyled(self, old: Any, new: Any) -> Any:
        """The value `new` set where `old` was, as the tree holds it (ruamel's own mappings
        keep the old scalar's style already)."""
        return new

    def _dump(self, m: Any) -> list[str]:
        try:
            text = loader.rt_dump(m, *self.indent)
        except Unsure:
            raise
        except Exception:  # noqa: BLE001 - what the emitter refuses is not this writer's
            raise Unsure("data the emitter refuses") from None
        return [x for x in text.split("\n")[:-1] if x != "..."]

    def entry(self, key: Any, value: Any, col: int) -> list[str]:
        """`key: value` with its key at column `col`."""
        from ruamel.yaml.comments import CommentedMap

        m = CommentedMap()
        m[self.prepare_key(key)] = self.prepare(value)
        pad = " " * col
        return [pad + x if x else x for x in self._dump(m)]

    def items(self, values: list[Any], dash: int) -> list[str]:
        """`values` as sequence entries, their dashes at column `dash`."""
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.comments import CommentedSeq

        seq = CommentedSeq()
        for v in values:
            seq.append(self.prepare(v))
        m = CommentedMap()
        m["x"] = seq
        got = self._dump(m)[1:]
        shift = dash - self.indent[2]
        if shift >= 0:
            return [" " * shift + x if x else x for x in got]
        if any(x[:-shift].strip() for x in got):
            raise Unsure("sequence column")
        return [x[-shift:] for x in got]


def styled(v: Any, flows: set[int]) -> Any:
    """Plain data of the light reader as ruamel's emitter takes it: quoted and block scalars
    as its scalar-string types, the input's flow collections (`flows`) in flow style (what
    they hold is written in flow style by the emitter in any case)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString
    from ruamel.yaml.scalarstring import FoldedScalarString
    from ruamel.yaml.scalarstring import LiteralScalarString
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if isinstance(v, dict):
        m = CommentedMap()
        for k, x in v.items():
            m[styled(k, flows)] = styled(x, flows)
        if id(v) in flows:
            m.fa.set_flow_style()
        return m
    if isinstance(v, list):
        s = CommentedSeq(styled(x, flows) for x in v)
        if id(v) in flows:
            s.fa.set_flow_style()
        return s
    for lite_type, rt_type in ((DQ, DoubleQuotedScalarString), (SQ, SingleQuotedScalarString), (Folded, FoldedScalarString), (Lit, LiteralScalarString)):
        if isinstance(v, lite_type):
            return rt_type(str(v))
    if isinstance(v, str) and v.__class__ is not str:
        raise Unsure("scalar type")
    return v


def bare(v: Any) -> Any:
    """A copy of a round-trip subtree without its comments (they stay in the kept text), with
    its styles (flow, quotes, block scalars) and tags."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq

    if isinstance(v, (CommentedMap, CommentedSeq)):
        if v.anchor.value is not None:
            raise Unsure("anchor")
        n: Any = type(v)()
        if v.fa.flow_style():
            n.fa.set_flow_style()
        tag = getattr(v, "tag", None)
        if tag is not None and getattr(tag, "value", None):
            n.yaml_set_ctag(tag)
        if isinstance(v, CommentedMap):
            for k, x in v.items():
                n[k] = bare(x)
        else:
            for x in v:
                n.append(bare(x))
        return n
    if isinstance(v, dict):
        return {k: bare(x) for k, x in v.items()}
    if isinstance(v, list):
        return [bare(x) for x in v]
    if getattr(v, "comment", None) is not None:
        if getattr(getattr(v, "anchor", None), "value", None) is not None:
            raise Unsure("anchor")
        return type(v)(str(v))
    return v


