"""Directory-driven golden test: fixtures/<case>/{config.yaml,input.yaml}, one YAML
snapshot per case. Every case runs twice: the second pass must change nothing."""
from __future__ import annotations

from pathlib import Path

import pytest
from golden import run_case  # type: ignore[import-not-found]
from shared import ROOT

from krm_fn.modes.krm import run_resource_list

FIXTURES = ROOT / "fixtures"
CASES = sorted(p for p in FIXTURES.iterdir() if (p / "input.yaml").exists()) if FIXTURES.exists() else []


def test_cases_discovered() -> None:
    assert CASES, f"no golden cases found under {FIXTURES}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Path, snapshot_yaml) -> None:  # type: ignore[no-untyped-def]
    out, code = run_case(case)
    assert f"# exit: {code}\n{out}" == snapshot_yaml
    # idempotence: the output fed back in changes nothing
    again, code2 = run_resource_list(out.encode())[0::2]
    if code == 0:
        assert code2 == 0
        assert _strip_results(again) == _strip_results(out)


def _strip_results(text: str) -> str:
    return text.split("\nresults:\n", 1)[0]
