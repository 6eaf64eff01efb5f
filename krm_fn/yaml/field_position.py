"""Where a field is in a document's text: the line and column of the key a result's field path
names (`spec.scheduling.tolerations[0].operator`, `metadata.labels[app]`), so that schema and
semantic messages point into the file as syntax errors do. Read only for the results shown."""
from __future__ import annotations

from krm_fn.core.errors import Unsure

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def field_position(text: str, path: str | None) -> tuple[int, int] | None:
    """(line, column), 1-based within `text`, of the deepest key (or list entry) of `path`
    that the document has: the key itself where it exists, its nearest parent where it does
    not (a missing field is reported where it belongs); the document's start for an empty
    path. None when the text cannot be read (libyaml refuses it)."""
    from krm_fn.yaml.libyaml import compose_marked as compose

    try:
        root = compose(text)
    except Unsure:
        return None
    if root is None:
        return None
    mark = _walk(root, path or "")
    return mark.line + 1, mark.column + 1


def _walk(node: Any, rest: str) -> Any:
    mark = node.start_mark
    while rest:
        kind = type(node).__name__
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0:
                break
            token, rest = rest[1:end], rest[end + 1 :]
            if kind == "SequenceNode" and token.isdigit() and int(token) < len(node.value):
                node = node.value[int(token)]
                mark = node.start_mark
            elif kind == "MappingNode":
                pair = next(((k, v) for k, v in node.value if str(k.value) == token), None)
                if pair is None:
                    break
                mark, node = pair[0].start_mark, pair[1]
            else:
                break
        elif kind == "MappingNode":
            # the longest key the path goes on with (keys may hold dots: krm-coschedule.dev/owner)
            best = None
            for k, v in node.value:
                key = str(k.value)
                if rest == key or rest.startswith((key + ".", key + "[")):
                    if best is None or len(key) > len(str(best[0].value)):
                        best = (k, v)
            if best is None:
                break
            mark, node = best[0].start_mark, best[1]
            rest = rest[len(str(best[0].value)) :]
        else:
            break
        rest = rest[1:] if rest.startswith(".") else rest
    return mark
