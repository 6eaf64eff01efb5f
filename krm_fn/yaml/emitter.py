"""The small deterministic block emitter of plain data (generated objects, new entries of the
light path) and YAML 1.1-safe quoting: a string a YAML 1.1 reader (kubectl, go-yaml v2) would
re-type is written double-quoted (`DQ` marks one in plain data)."""
from __future__ import annotations

from krm_fn.core import patterns

try:  # json.dumps(s, ensure_ascii=False) of a str is this, and json costs ~1 ms to import
    from _json import encode_basestring as _json_string
except ImportError:  # pragma: no cover - an interpreter without json's C accelerator
    from json.encoder import py_encode_basestring as _json_string

from krm_fn.core.data import Memo
from krm_fn.yaml import layout

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
    """`NUMBER_RE.match(s)`: re.match(_NUMBER, s), asked only of a string that could match."""

    __slots__ = ()

    def match(self, s: str) -> patterns.Match[str] | None:
        if s[:1] not in _NUMBER_START or not _NUMBER_CHARS.issuperset(s):
            return None
        return patterns.match(_NUMBER, s)


NUMBER_RE = _NumberPattern()
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
        or bool(NUMBER_RE.match(s))
        or (s[4:5] == "-" and s[:4].isdigit() and patterns.match(_TIMESTAMP, s) is not None)
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
_SCALARS = Memo(65536)
SCALARS = _SCALARS  # read by yaml/placeholder (the same dict: cleared in place)


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
        _SCALARS.keep(s, text)
    return text


def dump_block(obj: Any, indent: int = 0, compact: bool = True) -> str:
    """Emit plain data (dict/list/scalars) as block YAML, keys in insertion order.

    `compact` puts sequence dashes at the parent key's indent (kyaml's default)."""
    out: list[str] = []
    _emit(obj, indent, compact, out)
    return "".join(out)


def write(obj: Any, indent: int, out: list[str]) -> None:
    """dump_block(obj, indent)'s lines, appended to `out` (yaml/placeholder writes the parts
    of a placeholder that are not its fixed shape with it)."""
    _emit(obj, indent, True, out)


def dump_entry(obj: Any, d: int) -> str:
    """layout.indent_entry(dump_block(obj), d), emitted in place: a mapping's lines at
    indent d + 2, the first one's after the dash (`- `) at indent d."""
    if not isinstance(obj, dict) or any(k.__class__ is not str or scalar(k).startswith("...") for k in obj):
        return layout.indent_entry(dump_block(obj), d)  # a line indent_entry takes for an end marker
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


class DQ(str):
    """A string to be written double-quoted (the light path's DoubleQuotedScalarString)."""


def plain_safe(value: Any) -> Any:
    """yamlsafe() for plain data (the light path): plain dicts and lists, DQ for strings a
    YAML 1.1 reader would re-type."""
    cls = value.__class__
    if cls is str:
        safe = _SAFE.get(value)
        if safe is None:
            safe = DQ(value) if is_ambiguous(value) else value
            _SAFE.keep(value, safe)
        return safe
    if cls is dict or (cls is not list and isinstance(value, dict)):
        return {k: plain_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_safe(v) for v in value]
    return value


# plain_safe of a str, by value (the same few strings are made safe for every run; cleared
# at 4,096: a kept string is kept alive)
_SAFE = Memo(4096)
