"""Tekton PipelineRun / TaskRun coscheduling (TEP-0135) at render time. SPEC §4."""
from __future__ import annotations

from krm_fn import rlist
from krm_fn.process import Context


def handle_pipelinerun(item: rlist.Item, ctx: Context) -> None:
    """Rewrite one PipelineRun in place (item.node) and generate its assistants."""


def handle_taskrun(item: rlist.Item, ctx: Context) -> None:
    """Rewrite one standalone TaskRun in place."""
