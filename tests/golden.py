"""Shared helpers for the directory-driven golden test."""
from __future__ import annotations

from pathlib import Path

from krm_fn.modes.krm import run_resource_list


def build_resource_list(case: Path) -> bytes:
    """input.yaml is a ResourceList; config.yaml (optional) becomes its functionConfig.

    When input.yaml already has a functionConfig and there is no config.yaml, it is kept."""
    inp = (case / "input.yaml").read_text()
    cfg = case / "config.yaml"
    if cfg.exists():
        body = "".join("  " + line if line.strip() else line for line in cfg.read_text().splitlines(True))
        inp = inp.rstrip("\n") + "\nfunctionConfig:\n" + body
    return inp.encode()


def function_config(coschedule: str, name: str = "c") -> str:
    """A ResourceList's closing `functionConfig:` section: a CoschedulePolicy of that mode."""
    return (
        "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n"
        f"  metadata:\n    name: {name}\n  spec:\n    coschedule: {coschedule}\n"
    )


def run_case(case: Path) -> tuple[str, int]:
    out, _outcome, code = run_resource_list(build_resource_list(case))
    return out, code
