"""Comment-keeping edits on round-trip trees."""
from __future__ import annotations

from typing import Any

from krm_fn.yaml.roundtrip import comments
from krm_fn.yaml.roundtrip import loader

DOC = """\
spec:
  list:
  - x: 1
    y: 2 # eol y
  # about ws
  ws:
  - name: a
    vct:
      spec:
        storage: 1Gi
  # about b
  - name: b
  trs:
  - name: t
  # trailing spec comment
other: 1
"""


def test_append_keeps_the_following_comment_below() -> None:
    n = loader.rt_load(DOC)
    pending: list[tuple[Any, str]] = []
    comments.append(n["spec"]["list"], loader.yamlsafe({"x": 3}), pending)
    comments.flush(pending)
    out = loader.rt_dump(n)
    assert "    y: 2 # eol y\n  - x: 3\n  # about ws\n  ws:\n" in out


def test_replace_key_keeps_the_comment_of_the_next_entry() -> None:
    n = loader.rt_load(DOC)
    pending: list[tuple[Any, str]] = []
    comments.replace_key(n["spec"]["ws"][0], "vct", "pvc", loader.yamlsafe({"claimName": "c"}), pending)
    comments.flush(pending)
    assert "    pvc:\n      claimName: c\n  # about b\n  - name: b\n" in loader.rt_dump(n)


def test_add_key_goes_before_a_trailing_comment() -> None:
    n = loader.rt_load(DOC)
    pending: list[tuple[Any, str]] = []
    comments.add_key(n["spec"], "new", loader.yamlsafe({"k": "v"}), pending)
    comments.flush(pending)
    assert "  new:\n    k: v\n  # trailing spec comment\nother: 1\n" in loader.rt_dump(n)


def test_plain_edits_without_comments() -> None:
    n = loader.rt_load("a:\n- 1\n")
    pending: list[tuple[Any, str]] = []
    comments.append(n["a"], 2, pending)
    comments.add_key(n, "b", 3, pending)
    assert pending == []
    assert loader.rt_dump(n) == "a:\n- 1\n- 2\nb: 3\n"


def test_a_map_added_empty_and_filled_later_keeps_the_comment_after_its_contents() -> None:
    """The comment moves after the container's last scalar as it is when the edits are done
    (flush), not after the empty map it had when it was added."""
    n = loader.rt_load("spec:\n  a: 1\n  # trailing\nother: 1\n")
    parent = loader.yamlsafe({})
    pending: list[tuple[Any, str]] = []
    comments.add_key(n["spec"], "tpl", parent, pending)
    parent["podTemplate"] = loader.yamlsafe({"k": "v"})
    comments.flush(pending)
    assert loader.rt_dump(n) == "spec:\n  a: 1\n  tpl:\n    podTemplate:\n      k: v\n  # trailing\nother: 1\n"
