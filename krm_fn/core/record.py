"""Small record classes without `dataclasses`.

`import dataclasses` pulls in `inspect` (and with it ast, dis, tokenize, linecache) and every
`@dataclass` compiles its methods with `exec` at import: about 15 ms of a one-PipelineRun run
that needs none of it (#5). A record names its fields in `__slots__` (in constructor order)
and writes its own `__init__`; this base gives it a dataclass's field-wise `==` and `repr`.
"""
from __future__ import annotations

from itertools import repeat

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class Record:
    """Field-wise `==` (same class only) and `repr`, like a dataclass. Defining `__eq__`
    makes instances unhashable, as a mutable dataclass's are."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{self.__class__.__qualname__}({fields})"


_SET = object.__setattr__


class FrozenRecord(Record):
    """A record that cannot change after `__init__` (which sets its fields with `_init`):
    hashable by value, as a frozen dataclass is."""

    __slots__: tuple[str, ...] = ()

    def _init(self, *values: Any) -> None:
        if len(values) != len(self.__slots__):
            raise TypeError(f"{self.__class__.__name__} takes {len(self.__slots__)} fields, not {len(values)}")
        # every field in one C loop (results are made by the thousand)
        any(map(_SET, repeat(self), self.__slots__, values))

    def replace(self, **changes: Any) -> Any:
        """A copy with the named fields changed, as dataclasses.replace makes one; an unknown
        field is a TypeError."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{self.__class__.__name__} has no field {sorted(unknown)[0]!r}")
        return self.__class__(*(changes.get(n, getattr(self, n)) for n in self.__slots__))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {self.__class__.__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {self.__class__.__name__} is immutable")

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        # copy and pickle rebuild through __init__ (the default sets fields with setattr)
        return (self.__class__, self._values())

