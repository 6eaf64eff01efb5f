"""Scheduling policy for pod templates (SPEC §5): nodeSelector, tolerations, schedulerName,
merged so that nothing a manifest already says is relaxed (the KEP-3838 rule)."""
from __future__ import annotations

from typing import Any

from krm_fn import rlist
from krm_fn.process import Context


def constrain_pod_template(
    item: rlist.Item,
    ctx: Context,
    parent: Any,
    key: str,
    field_path: str,
    only_set_fields: bool = False,
) -> None:
    """Apply ctx.policy's nodeSelector / tolerations / schedulerName to the pod template at
    parent[key] (a round-trip map; created when absent and the policy adds something).

    Tekton flavour: a toleration is "present" when key, operator, value and effect match.
    `only_set_fields`: for taskRunSpecs templates, constrain only the fields the template
    itself sets (the run-level template covers the rest). Conflicts follow
    ctx.policy.on_conflict; hardening findings are reported per ctx.policy.hardening.
    `field_path` is the dotted path of parent[key] for results.
    """
