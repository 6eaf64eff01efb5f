"""New text for the splicing writer (`splicer`): one mapping entry, or sequence entries, in
the layout ruamel's round-trip writer gives them, without comments (the comments of the
input stay in the text that is kept), shifted to the column they go at.

Two writers of the same layout: `Emitter`, ruamel's round-trip emitter itself (for the
round-trip loader's data, whose styles and tags it keeps), and `FastEmitter`, for the light
reader's plain data, which writes the common entries (plain and quoted scalars, block
collections of them) itself and gives anything else to the emitter, on a copy carrying the
light reader's styles (quotes, block scalars, the flow collections of the input). Its own
output is the emitter's byte for byte (tests/unit/yaml/light/test_parser.py compares both paths).
"""
from __future__ import annotations

import re

from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import ASCII_PRINTABLE
from krm_fn.yaml.light.scalars import DQ
from krm_fn.yaml.light.scalars import KEY_RE
from krm_fn.yaml.light.scalars import PLAIN_KEYS
from krm_fn.yaml.light.scalars import SQ
from krm_fn.yaml.light.scalars import Folded
from krm_fn.yaml.light.scalars import Lit
from krm_fn.yaml.light.scalars import resolve
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
        return _bare(v)

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


class FastEmitter(Emitter):
    """The light reader's plain data: written here when it is in the forms this writer knows
    (most new entries: a claim, a key and a string), by the emitter otherwise. `flows`: the
    ids of the input's flow collections (written in flow style, as the round-trip path
    keeps them)."""

    def __init__(self, indent: tuple[int, int, int], flows: set[int]) -> None:
        super().__init__(indent)
        self.m = indent[0]
        self.o = indent[2]
        self.flows = flows

    def prepare(self, v: Any) -> Any:
        return _styled(v, self.flows)

    def prepare_key(self, k: Any) -> Any:
        return _styled(k, self.flows)

    def restyled(self, old: Any, new: Any) -> Any:
        """A plain string set where a quoted or block scalar was keeps that style, as it
        does in a round-trip tree (ruamel's CommentedMap.__setitem__): the policy's
        `volcano` over `schedulerName: 'default-scheduler'` is written `'volcano'` on both
        paths."""
        if new.__class__ is str and old.__class__ in _STYLES:
            return old.__class__(new)
        return new

    def entry(self, key: Any, value: Any, col: int) -> list[str]:
        out: list[str] = []
        try:
            self._entry(key, value, col, out)
        except Unsure:
            return super().entry(key, value, col)
        return out

    def items(self, values: list[Any], dash: int) -> list[str]:
        out: list[str] = []
        try:
            for v in values:
                self._item(v, dash, out)
        except Unsure:
            return super().items(values, dash)
        return out

    def _entry(self, key: str, v: Any, indent: int, out: list[str]) -> None:
        if key.__class__ is not str or key not in PLAIN_KEYS:  # else: a key read as itself
            if key.__class__ is not str or not KEY_RE.fullmatch(key + ":") or resolve(key) is not key:
                raise Unsure("key form")  # a quoted key (SQ, DQ) too: the emitter writes it
        pad = " " * indent
        if v.__class__ is str:  # most entries: the scalar case first
            out.append(f"{pad}{key}: {_scalar(v)}")
        elif isinstance(v, dict):
            if not v:
                out.append(f"{pad}{key}: {{}}")
                return
            if id(v) in self.flows:
                raise Unsure("flow mapping")
            out.append(f"{pad}{key}:")
            for k, x in v.items():
                self._entry(k, x, indent + self.m, out)
        elif isinstance(v, list):
            if not v:
                out.append(f"{pad}{key}: []")
                return
            if id(v) in self.flows:
                raise Unsure("flow sequence")
            out.append(f"{pad}{key}:")
            for x in v:
                self._item(x, indent + self.o, out)
        elif v is None:
            out.append(f"{pad}{key}:")
        else:
            out.append(f"{pad}{key}: {_scalar(v)}")

    def _item(self, v: Any, dash: int, out: list[str]) -> None:
        pad = " " * dash
        if isinstance(v, dict):
            if not v:
                out.append(f"{pad}- {{}}")
                return
            if id(v) in self.flows:
                raise Unsure("flow mapping")
            first = len(out)
            for k, x in v.items():
                self._entry(k, x, dash + 2, out)
            out[first] = pad + "- " + out[first][dash + 2 :]
            return
        if isinstance(v, list) or v is None:
            raise Unsure("nested sequence or null item")
        out.append(f"{pad}- {_scalar(v)}")


_STYLES = (DQ, SQ, Lit, Folded)  # the light reader's scalar styles (str subclasses)


def _styled(v: Any, flows: set[int]) -> Any:
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
            m[_styled(k, flows)] = _styled(x, flows)
        if id(v) in flows:
            m.fa.set_flow_style()
        return m
    if isinstance(v, list):
        s = CommentedSeq(_styled(x, flows) for x in v)
        if id(v) in flows:
            s.fa.set_flow_style()
        return s
    for lite_type, rt_type in ((DQ, DoubleQuotedScalarString), (SQ, SingleQuotedScalarString), (Folded, FoldedScalarString), (Lit, LiteralScalarString)):
        if isinstance(v, lite_type):
            return rt_type(str(v))
    if isinstance(v, str) and v.__class__ is not str:
        raise Unsure("scalar type")
    return v


def _bare(v: Any) -> Any:
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
                n[k] = _bare(x)
        else:
            for x in v:
                n.append(_bare(x))
        return n
    if isinstance(v, dict):
        return {k: _bare(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_bare(x) for x in v]
    if getattr(v, "comment", None) is not None:
        if getattr(getattr(v, "anchor", None), "value", None) is not None:
            raise Unsure("anchor")
        return type(v)(str(v))
    return v


def _scalar(v: Any) -> str:
    """A new scalar as the round-trip writer writes it."""
    if v.__class__ is str:
        text = _SCALAR_TEXT.get(v)
        if text is None:
            text = _scalar_text(v)
            if len(_SCALAR_TEXT) >= 4096:
                _SCALAR_TEXT.clear()
            _SCALAR_TEXT[v] = text
        return text
    return _scalar_text(v)


def _scalar_text(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, DQ):
        if not ASCII_PRINTABLE.fullmatch(v) or '"' in v or "\\" in v:
            raise Unsure("double-quoted form")
        return f'"{v}"'
    if isinstance(v, SQ):
        if not ASCII_PRINTABLE.fullmatch(v):
            raise Unsure("single-quoted form")
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, str) and not isinstance(v, Lit):
        if _PLAIN_OUT_RE.fullmatch(v) and not v.endswith(":") and ": " not in v and " #" not in v:
            try:
                if resolve(v) is v:
                    return v
            except Unsure:
                pass
        raise Unsure("scalar needs quoting")
    raise Unsure("scalar type")


_SCALAR_TEXT: dict[str, str] = {}  # _scalar of a str, by value (cleared at 4,096)
# What the round-trip writer surely writes plain (checked against it in tests/unit/yaml/light/test_parser.py)
_PLAIN_OUT_RE = re.compile(r"[A-Za-z0-9_./$(][A-Za-z0-9_./$()@=+:-]*")
