"""Edits on ruamel round-trip trees that keep the user's comments where they were.

ruamel attaches a comment that follows a block to the last scalar inside it. Appending after
that block (a new list entry, a new key) or replacing it would move the comment below our
new content or drop it; these helpers move the "following-line" part of such a comment to
the new last scalar instead. End-of-line comments stay with their line.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def _tail(node: Any) -> tuple[Any, Any] | None:
    """(container, key) of the comment slot after the last scalar under `node`."""
    found = None
    while isinstance(node, (dict, list)) and len(node):
        if isinstance(node, dict):
            key = list(node.keys())[-1]
        else:
            key = len(node) - 1
        found = (node, key)
        node = node[key]
    return found


def _slot(container: Any, key: Any) -> tuple[list[Any] | None, int]:
    ca = getattr(container, "ca", None)
    if ca is None:
        return None, 0
    entry = ca.items.get(key)
    return entry, (2 if isinstance(container, dict) else 0)


def take_tail_comment(node: Any) -> str | None:
    """Detach the following-line comment text after the last scalar under `node`."""
    where = _tail(node)
    if where is None:
        return None
    entry, pos = _slot(*where)
    if not entry or len(entry) <= pos or entry[pos] is None:
        return None
    tok = entry[pos]
    value = getattr(tok, "value", None)
    if not isinstance(value, str) or "\n" not in value:
        return None
    head, _, rest = value.partition("\n")
    if not rest.strip():
        return None
    if head.strip():
        tok.value = head + "\n"  # the end-of-line comment stays
    else:
        entry[pos] = None
    return rest


def put_tail_comment(node: Any, text: str | None) -> None:
    """Attach following-line comment text after the last scalar under `node`."""
    if not text:
        return
    where = _tail(node)
    if where is None:
        return
    container, key = where
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    entry, pos = _slot(container, key)
    if entry is None:
        entry = [None, None, None, None]
        container.ca.items[key] = entry
    old = entry[pos]
    if old is not None and isinstance(getattr(old, "value", None), str):
        old.value = old.value.rstrip("\n") + "\n" + text
        return
    entry[pos] = CommentToken("\n" + text, CommentMark(0), None)


# A comment taken off the tail of a container goes back after the last scalar the container
# ends with once the transforms are done with it (flush): a transform that adds an empty map
# and fills it afterwards must not find the comment wedged between the map's key and its
# contents. Each round-trip document keeps its own list of them (`pending`).
def flush(pending: list[tuple[Any, str]]) -> None:
    """Put every comment taken by append/add_key/replace_key after the last scalar its
    container now ends with (before the tree is written)."""
    for container, text in pending:
        put_tail_comment(container, text)
    pending.clear()


def append(seq: Any, value: Any, pending: list[tuple[Any, str]]) -> None:
    """seq.append(value), keeping a comment that followed the old last entry at the end."""
    text = take_tail_comment(seq) if len(seq) else None
    seq.append(value)
    if text:
        pending.append((seq, text))


def add_key(m: Any, key: str, value: Any, pending: list[tuple[Any, str]]) -> None:
    """m[key] = value for a new key at the end, keeping a trailing comment at the end."""
    text = take_tail_comment(m) if len(m) else None
    m[key] = value
    if text:
        pending.append((m, text))


def replace_key(m: Any, old: str, new: str, value: Any, pending: list[tuple[Any, str]]) -> None:
    """Swap one key for another at the same position (keeps the binding's other keys)."""
    keys = list(m.keys())
    pos = keys.index(old)
    text = take_tail_comment(m[old]) if pos == len(keys) - 1 else None
    del m[old]
    m.insert(pos, new, value)
    if text:
        pending.append((m, text))
