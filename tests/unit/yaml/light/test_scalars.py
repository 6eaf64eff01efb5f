"""The light reader's scalar tests asked with sets and string operations (yaml/light/scalars,
yaml/splice/newtext): issue 34 took the patterns out of start-up, where each cost a small
input more to compile than all its uses. Each answers as the pattern it replaces."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from krm_fn.yaml.light import scalars
from krm_fn.yaml.splice import newtext

# what the patterns tell apart: digits, signs, dots, dashes, colons, quotes, blanks, controls,
# a non-ASCII letter and a non-ASCII digit
TEXT = st.one_of(st.text(max_size=14), st.text(alphabet="0123456789-+.:aZ_/$()@= '\"\n\x7f\té٣#~", max_size=14))
DATES = st.from_regex(r"\A[0-9]{4}-[0-9]{1,3}-?[0-9]{0,2}[-T ]?.{0,3}\Z")


@given(TEXT)
def test_numberish_is_the_first_character_class(s: str) -> None:
    assert (s[:1] in scalars.NUMBERISH) == bool(re.match(r"[-+.0-9]", s))


@given(TEXT)
def test_ascii_printable(s: str) -> None:
    assert scalars.ascii_printable(s) == bool(re.fullmatch(r"[\x20-\x7e]*", s))


@given(st.one_of(TEXT, st.from_regex(r"\A-?[0-9]{1,4}\Z")))
def test_is_int(s: str) -> None:
    assert scalars.is_int(s) == bool(re.fullmatch(r"-?(?:0|[1-9][0-9]*)", s))


@given(st.one_of(TEXT, DATES))
def test_starts_as_date(s: str) -> None:
    assert scalars.starts_as_date(s) == bool(re.match(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", s))


@given(TEXT)
def test_plain_out(s: str) -> None:
    assert newtext.plain_out(s) == bool(re.fullmatch(r"[A-Za-z0-9_./$(][A-Za-z0-9_./$()@=+:-]*", s))


@given(st.text(alphabet="ab:, #[]{}\n", max_size=12), st.integers(0, 3))
def test_flow_plain_end(line: str, i: int) -> None:
    m = re.compile(scalars._FLOW_PLAIN_END).search(line, i)
    assert scalars.flow_plain_end(line, i) == (m.start() if m else len(line))


# the pattern scalars.key_end replaces (issue 34: its compile cost 0.4 M instructions at every
# start, more than its uses on a small input)
KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?= |$)")


@given(st.text(alphabet="aZ09_./-: #\"'\né\t", max_size=14) | st.text(max_size=8) | st.sampled_from(["a:\n", "a: \n", "a:\nb", "_.-:", ":", "a :"]), st.integers(0, 5))
def test_key_end_finds_the_key_the_pattern_finds(line: str, i: int) -> None:
    m = KEY_RE.match(line, i)
    at = scalars.key_end(line, i)
    assert at == (-1 if m is None else m.end())
    if m is not None:
        assert line[i : at - 1] == m.group(1)
    whole = KEY_RE.fullmatch(line + ":")
    assert (scalars.key_end(line + ":") == len(line) + 1) == (whole is not None)
