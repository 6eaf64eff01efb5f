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


def yaml_documents() -> list[str]:
    """Every YAML document of the examples and of the tests' own files (split at `---`
    lines, each ending with a newline; files that are not UTF-8 left out): the texts the
    readers' equivalence tests compare them on."""
    out = []
    for path in sorted([*EXAMPLES.rglob("*.yaml"), *TESTS.rglob("*.yaml")]):
        try:
            raw = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        out += [doc if doc.endswith("\n") else doc + "\n" for doc in raw.split("\n---\n") if doc.strip()]
    return out
