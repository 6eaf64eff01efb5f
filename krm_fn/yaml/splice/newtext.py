"""New text for the splicing writer (`splicer`): one mapping entry, or sequence entries, in
the layout ruamel's round-trip writer gives them, without comments (the comments of the
input stay in the text that is kept), shifted to the column they go at.

Two writers of the same layout: `roundtrip/entries.Emitter`, ruamel's round-trip emitter
itself (for the round-trip loader's data, whose styles and tags it keeps), and `FastEmitter`
(here), for the light
reader's plain data, which writes the common entries (plain and quoted scalars, block
collections of them) itself and gives anything else to the emitter, on a copy carrying the
light reader's styles (quotes, block scalars, the flow collections of the input). Its own
output is the emitter's byte for byte (tests/unit/yaml/light/test_parser.py compares both paths).
"""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import DQ
from krm_fn.yaml.light.scalars import PLAIN_KEYS
from krm_fn.yaml.light.scalars import SQ
from krm_fn.yaml.light.scalars import Folded
from krm_fn.yaml.light.scalars import Lit
from krm_fn.yaml.light.scalars import ascii_printable
from krm_fn.yaml.light.scalars import key_end
from krm_fn.yaml.light.scalars import resolve
from krm_fn.yaml.roundtrip import entries
from krm_fn.yaml.roundtrip.entries import Emitter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


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
        return entries.styled(v, self.flows)

    def prepare_key(self, k: Any) -> Any:
        return entries.styled(k, self.flows)

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
            if key.__class__ is not str or key_end(key + ":") != len(key) + 1 or resolve(key) is not key:
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
        if not ascii_printable(v) or '"' in v or "\\" in v:
            raise Unsure("double-quoted form")
        return f'"{v}"'
    if isinstance(v, SQ):
        if not ascii_printable(v):
            raise Unsure("single-quoted form")
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, str) and not isinstance(v, Lit):
        if plain_out(v) and not v.endswith(":") and ": " not in v and " #" not in v:
            try:
                if resolve(v) is v:
                    return v
            except Unsure:
                pass
        raise Unsure("scalar needs quoting")
    raise Unsure("scalar type")


_SCALAR_TEXT: dict[str, str] = {}  # _scalar of a str, by value (cleared at 4,096)
# What the round-trip writer surely writes plain (checked against it in tests/unit/yaml/light/test_parser.py)
# (re.fullmatch(r"[A-Za-z0-9_./$(][A-Za-z0-9_./$()@=+:-]*", s), asked with sets: issue 34)
_PLAIN_OUT_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./$(")
_PLAIN_OUT_CHARS = _PLAIN_OUT_FIRST | frozenset(")@=+:-")


def plain_out(s: str) -> bool:
    return s[:1] in _PLAIN_OUT_FIRST and _PLAIN_OUT_CHARS.issuperset(s)
