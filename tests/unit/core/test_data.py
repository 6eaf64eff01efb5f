"""krm_fn.core.data: Memo, the bounded dict readers and writers remember results in."""
from __future__ import annotations

from krm_fn.core.data import Memo
from krm_fn.yaml import emitter
from krm_fn.yaml import placeholder
from krm_fn.yaml.light import check
from krm_fn.yaml.light import parser
from krm_fn.yaml.light import peek
from krm_fn.yaml.light import scalars


def test_memo_keeps_until_full_then_starts_again() -> None:
    m = Memo(3)
    for k in "abc":
        m.keep(k, k.upper())
    assert dict(m) == {"a": "A", "b": "B", "c": "C"} and m.get("b") == "B"
    m.keep("d", "D")  # full: emptied, then kept
    assert dict(m) == {"d": "D"} and m.get("a") is None
    m.keep("d", "E")  # a key kept again is replaced, not counted twice
    assert dict(m) == {"d": "E"}


def test_every_remembered_result_is_bounded() -> None:
    """Each reader's and writer's memo is a Memo with a limit: none grows with its input."""
    memos = [parser._LINES, parser._ITEM_LINES, parser._INDENTS, check._MEMO, peek._ROWS, placeholder._SAME, emitter._SCALARS, emitter._SAFE, scalars._PLAIN_VALUES]
    assert all(isinstance(m, Memo) and 0 < m.limit <= 65536 for m in memos)
    assert emitter.SCALARS is emitter._SCALARS  # placeholder reads the emitter's own
