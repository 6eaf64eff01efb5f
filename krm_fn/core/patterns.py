"""The standard library's `re`, imported when a pattern is first used (issue 34's cold start).

`import re` loads enum, functools, collections and re's own compiler: 26 M instructions at
every start, two thirds of the interpreter's own (`python -c pass`: 38 M), while one
PipelineRun compiles no pattern at all. So modules of krm_fn never `import re`: they write
`patterns.search(...)`, `patterns.compile(...)`, `patterns.M` where they would write
`re.search(...)`. The first name taken here imports `re` and keeps the name in this module,
so each later use costs what `re.search` costs (one dict lookup). A pattern compiled when its
module is imported still imports `re` then: compile it where it is first needed (re's cache
keeps it). tests/suites/project/test_conventions.py keeps `import re` out of krm_fn;
tests/suites/project/test_cold_start.py checks what a small input loads.

Also here: when a scan that visits every line of what it covers is worth its pattern
(scan_pattern)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:  # what the type checker sees; at run time, __getattr__ provides each name
    from re import DOTALL as DOTALL
    from re import M as M
    from re import Match as Match
    from re import Pattern as Pattern
    from re import compile as compile
    from re import error as error
    from re import escape as escape
    from re import findall as findall
    from re import finditer as finditer
    from re import fullmatch as fullmatch
    from re import match as match
    from re import search as search
    from re import sub as sub


def __getattr__(name: str) -> object:
    """`re.<name>`, kept here so that the next use does not come back (PEP 562)."""
    import re

    value = getattr(re, name)
    globals()[name] = value
    return value


# A scan that visits every line of what it covers (io/identity's lines_at and shallow_lines,
# io/scanner's item shapes) has two ways: string operations, and a pattern that skips the
# lines it does not want in C, about six times faster a line but 0.3-0.5 M instructions to
# compile, what string operations spend on about 8 KB (_C_SCAN). The first pattern of a
# process also imports `re`: 26 M more, what string operations spend on about 512 KB
# (_C_SCAN_FIRST). So a scan uses string operations until they have covered that much in
# this process, then its pattern for the rest; a small input compiles nothing.
_C_SCAN = 8 * 1024
_C_SCAN_FIRST = 512 * 1024
_SCANNED: dict[tuple[str, int | None], int] = {}  # characters covered by string operations, per scan
_COMPILED: dict[tuple[str, int | None], Pattern[str]] = {}


def scan_pattern(template: str, n: int | None, size: int) -> Pattern[str] | None:
    """The pattern `template % n` (`template` itself when n is None) once string operations
    have covered what its compile costs (counting `size`, about to be scanned), else None:
    scan by string operations. Both ways must find the same (their tests run both)."""
    key = (template, n)
    p = _COMPILED.get(key)
    if p is None:
        done = _SCANNED.get(key, 0) + size
        if done <= (_C_SCAN if "re" in sys.modules else _C_SCAN_FIRST):
            _SCANNED[key] = done
            return None
        import re

        p = _COMPILED[key] = re.compile(template if n is None else template % n)
    return p
