"""Structured results (KRM functions spec v1 list form)."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.record import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class ResourceRef(FrozenRecord):
    __slots__ = ("api_version", "kind", "name", "namespace")
    api_version: str
    kind: str
    name: str
    namespace: str | None

    def __init__(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        self._init(api_version, kind, name, namespace)

    def display(self) -> str:
        """`kind namespace/name` as used in messages."""
        if self.namespace:
            return f"{self.kind} {self.namespace}/{self.name}"
        return f"{self.kind} {self.name}"

    def as_dict(self) -> dict[str, str]:
        d = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            d["namespace"] = self.namespace
        return d


class Result(FrozenRecord):
    """One result. `order` keeps the emission order stable inside a sort bucket."""

    __slots__ = (
        "severity", "message", "resource", "field_path", "file_path", "file_index", "tags",
        "current_value", "proposed_value", "line", "column",
    )
    severity: str
    message: str
    resource: ResourceRef | None
    field_path: str | None
    file_path: str | None
    file_index: int | None
    tags: tuple[tuple[str, str], ...]
    current_value: Any
    proposed_value: Any
    line: int | None  # in the file, where files mode found the field (locate), 1-based
    column: int | None

    def __init__(
        self,
        severity: str,
        message: str,
        resource: ResourceRef | None = None,
        field_path: str | None = None,
        file_path: str | None = None,
        file_index: int | None = None,
        tags: tuple[tuple[str, str], ...] = (),
        current_value: Any = None,
        proposed_value: Any = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self._init(
            severity, message, resource, field_path, file_path, file_index, tags, current_value, proposed_value,
            line, column,
        )

    def at(self, line: int, column: int) -> Result:
        """This result placed at `line`:`column` of its file."""
        return self.replace(line=line, column=column)

    def place(self) -> tuple[int | None, int | None, str]:
        """(line, column, the message without the place): the place found for the field, else
        the one the message names (location)."""
        line, col, rest = location(self.message)
        if self.line is not None and line is None:
            return self.line, self.column, self.message
        return line, col, rest

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"message": self.message, "severity": self.severity}
        if self.resource is not None:
            d["resourceRef"] = self.resource.as_dict()
        if self.field_path:
            fld: dict[str, Any] = {"path": self.field_path}
            if self.current_value is not None:
                fld["currentValue"] = self.current_value
            if self.proposed_value is not None:
                fld["proposedValue"] = self.proposed_value
            d["field"] = fld
        if self.file_path:
            d["file"] = {"path": self.file_path, "index": self.file_index or 0}
        if self.tags:
            d["tags"] = dict(self.tags)
        return d

    def one_line(self) -> str:
        """kpt's rendering: [severity] apiVersion/kind/namespace/name field: message."""
        parts = [f"[{self.severity}]"]
        if self.resource is not None:
            r = self.resource
            ref = "/".join(x for x in (r.api_version, r.kind, r.namespace or "", r.name) if x)
            parts.append(ref)
        if self.field_path:
            parts.append(self.field_path)
        head = " ".join(parts)
        return f"{head}: {self.message}"


def sort_key(r: Result) -> tuple[Any, ...]:
    return (
        r.file_path or "",
        r.file_index or 0,
        SEVERITY_ORDER.get(r.severity, 3),
        r.resource.display() if r.resource else "",
        r.field_path or "",
        r.message,
    )


def sorted_results(results: Iterable[Result]) -> list[Result]:
    """Deterministic order: file, index, severity, object, field, message."""
    return sorted(results, key=sort_key)


def has_error(results: Iterable[Result]) -> bool:
    return any(r.severity == "error" for r in results)


def summary_line(results: Iterable[Result]) -> str:
    c = counts(results)
    return f"{c['errors']} error(s), {c['warnings']} warning(s), {c['info']} info"


def counts(results: Iterable[Result]) -> dict[str, int]:
    """{"errors": n, "warnings": n, "info": n}: the numbers behind summary_line."""
    c = {"error": 0, "warning": 0, "info": 0}
    for r in results:
        c[r.severity] = c.get(r.severity, 0) + 1
    return {"errors": c["error"], "warnings": c["warning"], "info": c["info"]}


# How a message says where in its file it is (the YAML guards, the scanner, the control
# character check: "at line 4, column 28", "(line 4, column 28)", "(lines 8 and 11)",
# "line 4: ..."). Compiled on first use: only a located message needs them.
_LOCATIONS = (
    (r" at line (\d+), column (\d+)", True),
    (r" \(line (\d+), column (\d+)\)", True),
    (r"^line (\d+): ", True),
    (r" \(lines (\d+) and \d+\)", False),  # both lines stay in the text: the second says as much
)


def location(message: str) -> tuple[int | None, int | None, str]:
    """(line, column, the message without the place) of a message that names a place in its
    file; (None, None, message) otherwise. A line without a column is column 1."""
    if "line" not in message:
        return None, None, message
    for pattern, cut in _LOCATIONS:
        m = patterns.search(pattern, message)
        if m is None:
            continue
        line = int(m.group(1))
        col = int(m.group(2)) if m.re.groups > 1 else 1
        rest = message[: m.start()] + message[m.end() :] if cut else message
        return line, col, rest
    return None, None, message


def elsewhere(message: str, path: str) -> str:
    """A located message about `path` relayed in a result about another file: its place
    written as `path:line:col` (which terminals link), and not as a place of that file."""
    line, col, rest = location(message)
    if line is None:
        return message
    rest = rest.replace(" (lines ", " (its lines ")
    rest = rest[len(path) :].lstrip(":") if rest.startswith(path) else f" {rest}"
    return f"{path}:{line}:{col}:{rest}"


def result_line(r: Result) -> str:
    """One line per result: `path:line:col: [severity] object field: message` where the
    message names a place in its file (editors and CI link that form), else
    `path: [severity] ...`; the place and the path are not repeated in the message."""
    line, col, message = r.place()
    if r.file_path and message.startswith(f"{r.file_path}: "):
        message = message[len(r.file_path) + 2 :]
    head = r.one_line()[: -len(r.message) - 2]  # "[severity] ref field"
    text = f"{head}: {message}" if head != f"[{r.severity}]" else f"{head} {message}"
    if not r.file_path:
        return text
    if line is not None:
        return f"{r.file_path}:{line}:{col}: {text}"
    return f"{r.file_path}: {text}"


def located_dict(r: Result) -> dict[str, Any]:
    """The KRM result with its file's line and column where the message names them (CI
    annotations need both)."""
    d = r.as_dict()
    line, col, _rest = r.place()
    if r.file_path and line is not None:
        d["file"] = {**d["file"], "line": line, "column": col}
    return d
