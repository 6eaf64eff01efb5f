"""Plain data (dicts, lists and scalars, as every reader gives them): a copy, and what a
value is called in a message. Nothing here knows YAML: both take a reader's subclasses of
dict, list, str, int and float as what they are. Also Memo, the bounded dict that readers and
writers remember results in."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def type_name(v: Any) -> str:
    """What a value is, in a message's words (`spec is a list; it must be a mapping`)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "mapping"
    return type(v).__name__


class Memo(dict["Any", "Any"]):
    """Results remembered by their key (a reader's verdict on a line, by its text; a writer's
    text of a value), bounded: emptied when `limit` are kept, so a stream of distinct keys
    costs one dict of them at most. Read with `get` (dict's, in C); `keep` stores one."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, key: Any, value: Any) -> None:
        if len(self) >= self.limit:
            self.clear()
        self[key] = value


def copy_data(v: Any) -> Any:
    """A copy of loaded or plain data (collections new, scalars shared: they are immutable);
    copy.deepcopy's result for plain data, at several times less per node (no memo)."""
    if isinstance(v, dict):
        return {k: copy_data(x) if isinstance(x, (dict, list)) else x for k, x in v.items()}
    if isinstance(v, list):
        return [copy_data(x) if isinstance(x, (dict, list)) else x for x in v]
    return v
