"""rlist.indent_entry: a re-emitted item keeps its head comment at the dash's column."""
from __future__ import annotations

from krm_fn import rlist


def test_head_comment_stays_at_the_dash_column() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# about a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    frame = rlist.parse(text)
    item = frame.items[0]
    item.load()["metadata"]["name"] = "b"
    out = rlist.render_item(item, frame.items_indent)
    assert out.startswith("# about a\n- apiVersion: v1\n")


def test_head_comment_with_indented_items() -> None:
    assert rlist.indent_entry("# c\nkind: X\nmetadata: {}\n", 2) == "  # c\n  - kind: X\n    metadata: {}\n"
