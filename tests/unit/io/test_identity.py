"""io/identity's line tests, asked with sets and string operations or a shorter pattern
(issue 34: the patterns they replace cost a small input more to compile at every start than
all their uses), each checked against the pattern it replaces."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from krm_fn.core.errors import Unsure
from krm_fn.io import identity

LINE_TEXT = st.text(alphabet=" #\n\tax:-'\"é", max_size=16)
BLANK_OR_COMMENT = re.compile(r"(?:[ ]*(?:#[^\n]*)?(?:\n|\Z))*")


@given(LINE_TEXT, st.integers(0, 4), st.integers(0, 20))
def test_only_blank_or_comment(text: str, a: int, b: int) -> None:
    end = min(b, len(text))
    m = BLANK_OR_COMMENT.match(text, a, end)
    expected = a >= end or (m is not None and m.end() == end)
    assert identity.only_blank_or_comment(text, a, end) == expected
    if a == 0:
        whole = BLANK_OR_COMMENT.match(text)
        assert identity.only_blank_or_comment(text) == (whole is not None and whole.end() == len(text))


SIMPLE = re.compile(r"([A-Za-z_][A-Za-z0-9_./-]*)|'([^'\n]*)'")


@given(st.one_of(st.text(max_size=10), st.text(alphabet="aZ_09./-'\n #:\"", max_size=10)))
def test_plain_scalar_fast_path(v: str) -> None:
    """The common scalars (`v1`, `web-1`, `'0'`) read without the general path, as the
    pattern that found them read them; a plain word that YAML reads as a bool or null stays
    COMPLEX."""
    m = SIMPLE.fullmatch(v)
    if m is None:
        return
    got = identity.plain_scalar(v)
    if m.group(1) is not None:
        assert got == (identity.COMPLEX if v in identity._BOOL_NULL_WORDS else v)
    else:
        assert got == m.group(2)


@given(st.text(max_size=10) | st.text(alphabet="aZ_09./ -'#:", max_size=10))
def test_plain_words(s: str) -> None:
    assert identity._plain_words(s) == bool(re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_./ -]*", s))


# the pattern each indent compiled before issue 34: keys (1, 2), entries (3), other lines (4)
OLD_AT_INDENT = "\\n {%d}(?:([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +([^\\n]*?))? *|(-(?: [^\\n]*)?)|([^ \\n#][^\\n]*))(?=\\n)"
LINES = ["a", "b:", "c: d", "- x", "-", "-x", "'q': 1", '"k": v', "#c", "k : v  ", "k:v", "x.y/z: 'a b'  # c", "k:  ", "- ", "", ":", "a: b: c", "\t", "k: \r", "é: x", "k:\tv"]


def _old_entries(text: str, a: int, b: int, ind: int, outer: int) -> list[tuple[str, object, int, int]]:
    if ind > outer + 1 and identity.between_re(outer + 1, ind - 1).search(text, a - 1, b):
        raise Unsure("shallow")
    out: list[tuple[str, object, int, int]] = []
    key = value = None
    start = 0
    for m in re.compile(OLD_AT_INDENT % ind).finditer(text, a - 1, b):
        k, v, dash, other = m.groups()
        if k is None:
            if dash is not None:
                continue
            k, v = identity._quoted_entry(other)
        s, e = m.span()
        if key is not None:
            out.append((key, value, start, s + 1))
        key, value, start = k, v, e + 1
    if key is not None:
        out.append((key, value, min(start, b), b))
    return out


def _outcome(f: object) -> object:
    try:
        return f()  # type: ignore[operator]
    except Unsure:
        return "unsure"


@given(
    st.lists(st.tuples(st.integers(0, 4), st.sampled_from(LINES)), min_size=1, max_size=6),
    st.sampled_from([0, 2, 4]),
    st.integers(-1, 1),
    st.integers(0, 2),
)
def test_entries_read_as_the_pattern_of_each_indent_read_them(lines: list[tuple[int, str]], ind: int, back: int, cut: int) -> None:
    """The keys of a mapping at one indent: found by a short pattern per indent and read by
    KEY_RE, as the pattern that did both read them (keys, entries skipped, quoted keys,
    lines it does not understand: Unsure)."""
    text = "\n" + "\n".join(" " * n + s for n, s in lines) + "\n"
    outer = -1 if back < 0 else ind - 1 - back
    b = len(text) - cut
    assert _outcome(lambda: identity._entries(text, 1, b, ind, outer)) == _outcome(lambda: _old_entries(text, 1, b, ind, outer))
