"""Shipwright Build / BuildRun scheduling policy and validation (SHIP-0039). SPEC §5."""
from __future__ import annotations

from krm_fn import rlist
from krm_fn.process import Context


def handle_build(item: rlist.Item, ctx: Context) -> None:
    """Validate and apply the scheduling policy to one Build."""


def handle_buildrun(item: rlist.Item, ctx: Context) -> None:
    """Validate and apply the scheduling policy to one BuildRun."""
