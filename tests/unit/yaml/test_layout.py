"""layout.indent_entry: a re-emitted item keeps its head comment on its own entry, after the
dash (`- # comment`), as kpt sends it; before the dash, kpt (yaml.v3) would attach it to the
previous item and so write it into another file."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.io import resourcelist
from krm_fn.yaml import emitter
from krm_fn.yaml import layout


def test_head_comment_goes_after_the_dash() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# about a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    frame = resourcelist.parse(text)
    item = frame.items[0]
    item.load()["metadata"]["name"] = "b"
    out = item.render(frame.items_indent)[0]
    assert out.startswith("- # about a\n  apiVersion: v1\n")
    assert "name: b\n" in out


def test_head_comment_with_indented_items() -> None:
    assert layout.indent_entry("# c\nkind: X\nmetadata: {}\n", 2) == "  - # c\n    kind: X\n    metadata: {}\n"


def test_unchanged_item_keeps_its_exact_text() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# about a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    frame = resourcelist.parse(text)
    assert frame.items[0].render(frame.items_indent)[0] == "# about a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"


@pytest.mark.parametrize("d", [0, 2, 4])
@pytest.mark.parametrize(
    "obj",
    [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "a", "labels": {"x": "y"}}, "spec": {"l": [{"a": 1, "b": [1, "2"]}, [], {}], "e": {}}},
        {},
        {"...": 1, "b": 2},
        {"a": "..."},
        {1: "int key", "k": None},
        ["a", {"b": 1}],
        "scalar",
    ],
)
def test_dump_entry_is_indent_entry_of_dump_block(obj: object, d: int) -> None:
    """emitter.dump_entry emits a generated object as an entry in one pass: the same text as
    emitting it as a document and indenting that."""
    assert emitter.dump_entry(obj, d) == layout.indent_entry(emitter.dump_block(obj), d)


@given(
    st.lists(
        st.lists(st.sampled_from(["  ", " ", "- ", "a", ":", "#", "\n", "\t", "\r", "\u3000", "\u2028", "\x0c", "\x85"]), max_size=12).map("".join),
        max_size=8,
    )
)
@settings(max_examples=400, deadline=None)
def test_unentry_is_its_line_by_line_reading(parts: list[str]) -> None:
    """unentry()'s replace in C gives exactly what the line-by-line loop gives, for entries
    and for any other text (blank lines of every width, other line breaks, tabs)."""
    for text in ("- " + "\n  ".join(parts), "\n".join(parts), "- x\n" + "".join(parts)):
        assert layout.unentry(text) == layout.unentry_lines(text)


@given(st.text(alphabet=" -\n#a\t", max_size=8), st.integers(0, 3))
def test_dash_at_answers_as_its_pattern(text: str, i: int) -> None:
    """layout.dash_at asks in string operations what its pattern asked (issue 34: the
    pattern cost more to compile at every start than its uses)."""
    import re

    assert layout.dash_at(text, i) == bool(re.compile(r"( *)-(?=[ \n]|$)").match(text, i))
