"""io/scanner's item shapes (issue 34): an item whose shape (its text with simple values and
comment text written alike) was seen before takes its identity from the lines the first one
had it on, and is YAML when the check-only reader takes the shape. Each property is asked
against the path the shape shortcuts: make_item for the identity, both parsers for the
syntax check (the same answer, or no answer)."""
from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from unit.yaml.light.test_check import libyaml_parses  # type: ignore[import-not-found]
from unit.yaml.light.test_check import mutated_items  # type: ignore[import-not-found]
from unit.yaml.light.test_check import ruamel_parses  # type: ignore[import-not-found]

from krm_fn.core import patterns
from krm_fn.io import scanner
from krm_fn.io.identity import make_item
from krm_fn.io.items import Item
from krm_fn.yaml import guards
from krm_fn.yaml.light.check import checks

META = ("api_version", "kind", "name", "namespace", "generate_name", "annotations", "is_mapping", "duplicates")


def _said(item: Item) -> tuple[Any, ...]:
    return (item.complex_meta, *(getattr(item.meta, k) for k in META))


def _syntax_sound(text: str) -> None:
    """What the shape's verdict would mark read, both parsers take."""
    s = scanner.shape(text)
    if s is not None and guards.flow_nesting_within_limit(text) and checks(s):
        assert libyaml_parses(text), (text, s)
        assert ruamel_parses(text), (text, s)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_items())
def test_a_shape_the_check_takes_is_of_yaml_only(text: str) -> None:
    _syntax_sound(text)


# values and comments that make a shape alike or not: strings, what YAML types otherwise,
# quotes of both kinds (closed or not, escapes), indicators, colons, comments' look-alikes
VALUES = [
    "app-3", "v1", "x", "a_b.c/d-e", "http://h:80/p", "yes", "No", "null", "123", "1e3", "0x1F", "2001-01-01",
    "'0'", "'x y'", "''", "'it''s'", "'a #b'", "'unclosed", '"q"', '"a # b"', '"a\\tb"', '"a\\"', '"unclosed',
    "a: b", "a #b", "a#b", "x:", ":x", "?x", "-", "- a", "-x", "[a, b]", "{k: v}", "[a", "&a x", "*a", "!!str x",
    "|", ">-", "~", "", "'x' y", '"x" z', "'x' y'", "'a'' b'", '"x" y"', '"a\\" b"', "a b", "x:y:", "é",
]
# values a shape writes alike (`a`): strings, and what a YAML reader types otherwise
ALIKE = ["app-3", "v1", "x", "a_b.c/d-e", "http://h:80/p", "yes", "No", "null", "123", "1e3", "0x1F", "2001-01-01",
         "'0'", "'x y'", "'a #b'", "'a: b'", "'\\'", '"q"', '"a # b"', '"a: b"', "y"]
ALIKE_STRINGS = ["app-3", "x", "'0'", "'a #b'", '"a: b"']  # (identities are read off lines when all are strings)
KEYS = ["name", "namespace", "generateName", '"name"', "'kind'", "annotations", "labels", "x", '"a #b"', "a #b"]
# comment texts a shape writes alike (` #`)
COMMENT_TEXTS = [" # c", " # a: b", " # 'q", ' # "', " #x", " ##", " # [a", "  # c"]


@st.composite
def same_shaped(draw: Any) -> tuple[str, str]:
    """Two items on one template: each value either the same text in both (any value) or
    one of ALIKE drawn for each; each comment in both or in neither, its text drawn for each."""
    lines: list[tuple[str, str]] = [("- apiVersion: ", "v"), ("  kind: ", "v"), ("  metadata:", "c")]
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=draw(st.integers(0, 4)) > 0)):
        if key == "annotations":
            lines.append(("    annotations:", "c"))
            lines += [(f"      {k}: ", "v") for k in draw(st.lists(st.sampled_from(["a", "b/c", '"d"', "e #f", "g"]), max_size=3, unique=True))]
        else:
            lines.append((f"    {key}: ", "v"))
    lines += [("  spec:", "c"), ("    x: ", "v")]
    if draw(st.booleans()):
        lines[0] = ("- ", "c")
        lines.insert(1, ("  apiVersion: ", "v"))
    # per line: its value, the same in both (None: an ALIKE one drawn for each; "": none),
    # and whether it has a comment
    slots = [(text, what, draw(st.sampled_from([None] * 6 + ["", draw(st.sampled_from(VALUES))])), draw(st.integers(0, 3)) == 0) for text, what in lines]

    def fill() -> str:
        out = []
        for text, what, value, comment in slots:
            if what == "v":
                text = (text + (draw(st.sampled_from(ALIKE + ALIKE_STRINGS * 4)) if value is None else value)).rstrip(" ")
            out.append(text + (draw(st.sampled_from(COMMENT_TEXTS)) if comment else ""))
        return "\n".join(out) + "\n"

    return fill(), fill()


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(same_shaped())
def test_an_item_of_a_known_shape_is_read_as_make_item_reads_it(pair: tuple[str, str]) -> None:
    first, second = pair
    scanner._SHAPES.clear()
    scanner.shaped_item(0, first, 0, 0)
    got = scanner.shaped_item(1, second, 0, 0)
    assert _said(got) == _said(make_item(1, second, 0, 0)), (first, second)
    assert got.text == second
    if got.was_read:
        assert libyaml_parses(second) and ruamel_parses(second), (first, second)
    _syntax_sound(first)
    _syntax_sound(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the same lines, a value that is no string to every reader: make_item decides
        ("- kind: a\n  metadata:\n    name: app\n", "- kind: a\n  metadata:\n    name: yes\n"),
        # quoted and plain values are alike in a shape; the value read is the second's own
        ("- kind: a\n  metadata:\n    name: 'x y'\n", "- kind: b\n  metadata:\n    name: z\n"),
        # a key hidden in a comment's text: not an identity key
        ("- kind: a\n  metadata: # name: x\n    labels: {}\n", "- kind: a\n  metadata: # name: y\n    labels: {}\n"),
        # annotations, read off their lines
        ("- kind: a\n  metadata:\n    annotations:\n      p: 'x/1.yaml'\n      q: '0'\n", "- kind: a\n  metadata:\n    annotations:\n      p: 'x/2.yaml'\n      q: '0'\n"),
        # one broken: the shapes differ (the value `a: b` is no simple value)
        ("- kind: a\n  x: b\n", "- kind: a\n  x: a: b\n"),
    ],
)
def test_pairs(first: str, second: str) -> None:
    test_an_item_of_a_known_shape_is_read_as_make_item_reads_it.hypothesis.inner_test((first, second))  # type: ignore[attr-defined]


# the text _SHAPE_VALUE tells apart: values of every alternative, with and without what must
# follow them, quotes left open or across lines, `:` ends, comments with and without a blank
_SHAPE_TEXT = st.lists(st.sampled_from([*"ab_9.:/-'\"\\# \n", ": ", ": a", ": a:", " #", "\n  k: ", "'x'", '"y"', "''", '""']), max_size=40).map("".join)


@given(_SHAPE_TEXT)
@example("k: a:\nk: ''\nk: \"\" #\nk: 'a\nb'\nk: \"a\\\\b\"\nk: a #c\nk: a#c\n: a\n")
@settings(max_examples=500)
def test_shape_values_by_string_operations_are_the_patterns(text: str) -> None:
    """A small input's shapes are written by string operations (no `re` to import):
    the same text as the pattern's substitution, which a long input uses."""
    assert scanner._shape_values(text) == re.sub(scanner._SHAPE_VALUE, ": a", text)


def test_a_shape_uses_the_pattern_once_string_operations_covered_what_it_costs() -> None:
    text = "- kind: Service\n  metadata:\n    name: app-3\n" * 20
    key = (scanner._SHAPE_VALUE, None)
    patterns._SCANNED.pop(key, None)
    patterns._COMPILED.pop(key, None)
    try:
        first = scanner.shape(text)
        assert key in patterns._SCANNED and key not in patterns._COMPILED  # by string operations
        for _ in range(patterns._C_SCAN // len(text) + 1):
            assert scanner.shape(text) == first
        assert patterns._COMPILED[key] is re.compile(scanner._SHAPE_VALUE)
    finally:
        patterns._SCANNED.pop(key, None)
        patterns._COMPILED.pop(key, None)


def test_shapes() -> None:
    """What a shape keeps: keys, indentation, indicators; what it writes alike: simple values
    that end their line, one-line quoted ones, comment text after a blank."""
    text = "- # head 3\n  kind: Service\n  metadata:\n    name: app-3 # tuned\n    annotations:\n      p: 'team-3/x.yaml'\n      q: \"a b\"\n  spec:\n    a: x: y\n    b: [1, 2]\n    c: |\n      text 3\n"
    assert scanner.shape(text) == "- #\n  kind: a\n  metadata:\n    name: a #\n    annotations:\n      p: a\n      q: a\n  spec:\n    a: x: a\n    b: [1, 2]\n    c: |\n      text 3\n"
    assert scanner.shape("- a: \u00e9\n") is None
    assert scanner.shape("- a: b\t# c\n") is None


def test_a_list_of_one_shape_reads_each_identity_and_checks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.io import resourcelist

    asked: list[str] = []
    monkeypatch.setattr(scanner, "checks", lambda t: asked.append(t) or checks(t))
    scanner._SHAPES.clear()
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n    namespace: 'n{i}'  # ns\n" for i in range(5))
    rl = resourcelist.parse("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items)
    assert [(it.meta.name, it.meta.namespace, it.was_read) for it in rl.items] == [(f"c{i}", f"n{i}", True) for i in range(5)]
    assert len(asked) == 1


def test_shapes_are_given_up_for_a_list_of_objects_each_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shape costs an item that is its shape's first more than make_item alone: after
    SHAPES_TRIED items of which fewer than half had a known shape, the rest are read by
    make_item (same identities). A list of one shape keeps them to its end."""
    from krm_fn.io import resourcelist

    shaped: list[str] = []
    real = scanner.shape
    monkeypatch.setattr(scanner, "shape", lambda t: shaped.append(t) or real(t))
    for key, expected in (("key{i}", scanner.SHAPES_TRIED + 1), ("key", 200)):
        scanner._SHAPES.clear()
        shaped.clear()
        items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n  data:\n    {key.format(i=i)}: v\n" for i in range(200))
        rl = resourcelist.parse("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items)
        assert [it.meta.name for it in rl.items] == [f"c{i}" for i in range(200)]
        assert len(shaped) == expected


_GEN_LINES = st.sampled_from(["    key: a: b\n", "    key: 'x\n", "  bad\n", "    - x\n", "    key: \"a\\q\"\n", "    name: yes\n", "  metadata:\n    name: dup\n"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 50), st.integers(0, 40), _GEN_LINES, st.booleans())
def test_a_list_gives_what_it_gives_without_shapes(seed: int, at: int, bad: str, insert: bool) -> None:
    """A whole KRM run (bench/gen.py's lists, a line inserted into some items, which may break
    them or change their identity) gives the same output and exit code with item shapes as
    without them (same output, errors included, with file, line and column)."""
    import sys

    from shared import BENCH

    from krm_fn.modes.krm import run_resource_list

    sys.path.insert(0, str(BENCH))
    import gen

    text = gen.generate(12, 0.1, seed)
    if insert:  # into every `every`-th item: items of one shape, broken or not, alike
        every = at % 3 + 1
        parts = text.split("\n  kind:")
        text = parts[0] + "".join(("\n" + bad + "  kind:" if i % every == 0 else "\n  kind:") + x for i, x in enumerate(parts[1:]))
    scanner._SHAPES.clear()
    with_shapes = run_resource_list(text.encode())
    scanner._SHAPES.clear()
    old = scanner.SHAPES_FROM
    scanner.SHAPES_FROM = 10**9
    try:
        without = run_resource_list(text.encode())
    finally:
        scanner.SHAPES_FROM = old
    assert (with_shapes[0], with_shapes[2]) == (without[0], without[2])
