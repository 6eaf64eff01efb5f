"""io/identity's line tests, asked with sets and string operations or a shorter pattern
(issue 34: the patterns they replace cost a small input more to compile at every start than
all their uses), each checked against the pattern it replaces."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from krm_fn.core import patterns
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
BETWEEN = "\\n {%d,%d}[^ \\n#]"
LINES = ["a", "b:", "c: d", "- x", "-", "-x", "'q': 1", '"k": v', "#c", "k : v  ", "k:v", "x.y/z: 'a b'  # c", "k:  ", "- ", "", ":", "a: b: c", "\t", "k: \r", "é: x", "k:\tv"]


def _old_entries(text: str, a: int, b: int, ind: int, outer: int) -> list[tuple[str, object, int, int]]:
    if ind > outer + 1 and re.compile(BETWEEN % (outer + 1, ind - 1)).search(text, a - 1, b):
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


def _both_ways(f: object) -> list[object]:
    """f() by string operations, then by the compiled patterns (patterns.scan_pattern)."""
    got = []
    saved = patterns._C_SCAN
    for limit in (10**9, -1):
        patterns._C_SCAN = limit
        patterns._SCANNED.clear()
        patterns._COMPILED.clear()
        try:
            got.append(f())  # type: ignore[operator]
        finally:
            patterns._C_SCAN = saved
            patterns._SCANNED.clear()
            patterns._COMPILED.clear()
    return got


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
    expected = _outcome(lambda: _old_entries(text, 1, b, ind, outer))
    assert _both_ways(lambda: _outcome(lambda: identity._entries(text, 1, b, ind, outer))) == [expected, expected]


# the patterns io/identity found lines with before they were replaced by string operations
# (issue 34: their compile, at every start, cost more than their uses on a small input)
KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*) *:(?: +(.*?))? *$")
CONTENT_RE = re.compile(r"\n( *)[^ \n#]")
INDENTED_RE = re.compile(r"\n +[^ \n#]")
AT_INDENT = "\\n {%d}([^ \\n#][^\\n]*)(?=\\n)"
SHALLOW = "\\n( {0,%d}[^ \\n][^\\n]*)"

ONE_LINE = st.text(alphabet=" :#-_a0./'\"\té", max_size=12) | st.sampled_from(LINES)
YAMLISH = st.lists(st.tuples(st.integers(0, 5), ONE_LINE), max_size=8).map(lambda ls: "\n".join(" " * n + s for n, s in ls))


@given(ONE_LINE)
def test_key_value_reads_a_line_as_the_key_pattern(line: str) -> None:
    m = KEY_RE.match(line)
    assert identity.key_value(line) == (None if m is None else m.groups())


@given(YAMLISH, st.integers(0, 12), st.integers(0, 80))
def test_first_content_finds_the_line_the_pattern_finds(text: str, pos: int, end: int) -> None:
    text = "\n" + text + "\n"
    end = min(end, len(text))
    m = CONTENT_RE.search(text, pos, end)
    assert identity.first_content(text, pos, end) == (None if m is None else (m.start(), len(m.group(1))))
    m = CONTENT_RE.search(text)
    assert identity.first_content(text) == (None if m is None else (m.start(), len(m.group(1))))


@given(YAMLISH, st.integers(0, 6), st.integers(1, 12), st.integers(0, 80))
def test_lines_at_finds_the_lines_the_pattern_of_the_indent_finds(text: str, c: int, a: int, b: int) -> None:
    text = "\n" + text + "\n"
    a = min(a, len(text))
    if text[a - 1] != "\n":
        a = text.find("\n", a) + 1 or 1
    b = max(a, min(b, len(text)))
    expected = [(m.start(), m.start(1), m.end(1)) for m in re.compile(AT_INDENT % c).finditer(text, a - 1, b)]
    assert _both_ways(lambda: identity.lines_at(text, a, b, c)) == [expected, expected]


@given(YAMLISH, st.integers(0, 5), st.integers(0, 3), st.integers(1, 12), st.integers(0, 80))
def test_any_between_tells_what_the_pattern_of_the_indents_tells(text: str, lo: int, more: int, a: int, b: int) -> None:
    text = "\n" + text + "\n"
    a = min(a, len(text))
    if text[a - 1] != "\n":
        a = text.find("\n", a) + 1 or 1
    b = max(a, min(b, len(text)))
    hi = lo + more
    expected = re.compile(BETWEEN % (lo, hi)).search(text, a - 1, b) is not None
    assert identity.any_between(text, a, b, lo, hi) == expected


@given(YAMLISH)
def test_indented_content_tells_what_the_pattern_tells(text: str) -> None:
    assert identity.indented_content(text) == (INDENTED_RE.search("\n" + text) is not None)


@given(YAMLISH, st.integers(0, 3), st.integers(0, 12), st.integers(0, 80))
def test_shallow_lines_finds_the_lines_the_pattern_finds(text: str, k: int, a: int, b: int) -> None:
    a = min(a, len(text))
    if a and text[a - 1] != "\n":
        a = text.find("\n", a) + 1
    b = max(a, min(b, len(text)))
    pattern = re.compile(SHALLOW % k)
    if a == 0:
        expected = [(m.start(), m.group(1)) for m in pattern.finditer("\n" + text[:b])]
    else:
        expected = [(m.start() + 1, m.group(1)) for m in pattern.finditer(text, a - 1, b)]
    assert _both_ways(lambda: identity.shallow_lines(text, a, b, k)) == [expected, expected]


def test_a_scan_compiles_its_pattern_once_string_operations_covered_what_the_compile_costs() -> None:
    text = "\n" + "  a: 1\n    b: 2\n" * 300
    patterns._SCANNED.clear()
    patterns._COMPILED.clear()
    try:
        first = identity.lines_at(text, 1, len(text), 2)
        assert (identity._AT_INDENT, 2) in patterns._SCANNED and not patterns._COMPILED  # by strings
        for _ in range(patterns._C_SCAN // len(text) + 1):
            assert identity.lines_at(text, 1, len(text), 2) == first
        assert patterns._COMPILED[identity._AT_INDENT, 2] is re.compile(AT_INDENT % 2)
    finally:
        patterns._SCANNED.clear()
        patterns._COMPILED.clear()
