"""Plain data out of YAML: a parsed tree (the round-trip loader's commented types, or the
light reader's) as plain dicts, lists, strings and numbers, to compare, hash or copy."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def to_plain(value: Any) -> Any:
    """Round-trip tree -> plain dict/list/str/int (for comparison and hashing)."""
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    import datetime  # not at the top (#5: start-up); whatever made a date value has loaded it

    if isinstance(value, (datetime.datetime, datetime.date)):
        # the round-trip loader gives a datetime for a plain date, the safe loader a date
        if isinstance(value, datetime.datetime) and value.time() == datetime.time() and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat()
    return str(value)
