"""What the tests share: the repository's paths and test data (the test files live at
several depths under tests/unit and tests/suites, so none computes them from its own place).
tests/ is on sys.path (conftest.py's directory), so `from shared import ROOT` works from
every test file."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
FIXTURES = ROOT / "fixtures"
EXAMPLES = ROOT / "examples"
BENCH = ROOT / "bench"
