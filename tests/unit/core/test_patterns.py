"""core/patterns: the standard `re`, imported when first used, and when a line scan is worth
its pattern (issue 34's cold start)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import krm_fn
from krm_fn.core import patterns


def test_each_name_is_res_own_and_is_kept() -> None:
    assert patterns.fullmatch is re.fullmatch and patterns.M is re.M and patterns.error is re.error
    assert vars(patterns)["fullmatch"] is re.fullmatch  # the next use is a dict lookup
    with pytest.raises(AttributeError):
        patterns.no_such_name  # noqa: B018


def test_the_module_itself_does_not_import_re() -> None:
    code = "import sys; from krm_fn.core import patterns; assert 're' not in sys.modules; patterns.escape('.'); assert 're' in sys.modules"
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, timeout=60, check=False, env={"PYTHONPATH": str(Path(krm_fn.__file__).parent.parent)})
    assert proc.returncode == 0, proc.stderr.decode()


@pytest.fixture
def scans() -> object:
    patterns._SCANNED.clear()
    patterns._COMPILED.clear()
    yield
    patterns._SCANNED.clear()
    patterns._COMPILED.clear()


@pytest.mark.usefixtures("scans")
def test_a_scan_gets_its_pattern_once_string_operations_covered_what_the_compile_costs() -> None:
    size = patterns._C_SCAN // 4
    got = [patterns.scan_pattern("x{%d}", 2, size) for _ in range(5)]
    assert got[:4] == [None] * 4  # 4 x size: _C_SCAN, covered by string operations
    assert got[4] is re.compile("x{2}") and patterns.scan_pattern("x{%d}", 2, 1) is got[4]
    assert patterns.scan_pattern("x{%d}", 3, size) is None  # each scan counts its own
    assert patterns.scan_pattern("y+", None, 10**9) is re.compile("y+")  # a template without a parameter


@pytest.mark.usefixtures("scans")
def test_before_re_is_imported_a_scan_waits_until_the_import_is_repaid(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pattern of a process costs the import of `re` too (26 M instructions): a
    20-item input (15 KB) then compiles nothing."""
    monkeypatch.delitem(sys.modules, "re")
    size = patterns._C_SCAN
    assert [patterns.scan_pattern("x{%d}", 2, size) for _ in range(patterns._C_SCAN_FIRST // size)] == [None] * (patterns._C_SCAN_FIRST // size)
    assert patterns._SCANNED["x{%d}", 2] == patterns._C_SCAN_FIRST
