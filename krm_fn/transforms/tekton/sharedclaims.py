"""Runs whose placeholders mount one existing claim (issue 32, deliverable 6).

A placeholder holds every claim it mounts for as long as its manifest is in Git, finished run
or not. Two runs that bind one `persistentVolumeClaim` get a placeholder each, and the
scheduler keeps placeholders apart (preferred anti-affinity; required under
isolate-pipelinerun): a ReadWriteOnce volume is then attached to one node while the other
placeholder's node needs it too (Multi-Attach: its pods never start), even when the runs never
overlap, and a node-local volume leaves the other run unplaceable. Tekton's own assistant,
deleted with its run, has neither problem. The function warns on each such run, naming the
runs and the claim; a claim in the input whose access modes allow several nodes is fine.
"""
from __future__ import annotations

from krm_fn.transforms.context import Context

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.io.items import Item

_SHARED_MODES = ("ReadWriteMany", "ReadOnlyMany")


def check(ctx: Context) -> None:
    users: dict[tuple[str, str], list[Item]] = {}
    for g in ctx.generated:
        if g.obj.get("kind") != "StatefulSet":
            continue
        ns = str(g.obj["metadata"].get("namespace") or "")
        pod = ((g.obj.get("spec") or {}).get("template") or {}).get("spec") or {}
        for v in pod.get("volumes") or []:
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName") if isinstance(v, dict) else None
            if isinstance(claim, str):
                owners = users.setdefault((ns, claim), [])
                if all(o is not g.owner for o in owners):
                    owners.append(g.owner)
    for (ns, claim), owners in users.items():
        if len(owners) < 2 or _shared_access(ctx, ns, claim):
            continue
        names = [_name(o) for o in owners]
        isolate = ctx.policy.mode == "isolate-pipelinerun"
        for owner in owners:
            others = ", ".join(n for n in names if n != _name(owner))
            ctx.warning(
                owner,
                _binding_path(ctx, owner, claim),
                f"binds existing claim {claim}, which the placeholders of {len(owners)} runs mount "
                f"({', '.join(names)}): each placeholder holds it for as long as its manifest is in "
                f"Git, and the scheduler keeps placeholders apart ({'required' if isolate else 'preferred'} "
                "anti-affinity), so a ReadWriteOnce volume attached to one placeholder's node keeps "
                f"the pods of {others} from starting elsewhere (Multi-Attach), even when the runs "
                "never overlap, and a node-local volume leaves them unplaceable. Give each run its "
                "own claim (a volumeClaimTemplate), use a ReadWriteMany claim, keep one of these "
                "runs in Git at a time, or render them run-keyed (no placeholder holds the claim)",
            )


def _name(item: Item) -> str:
    m = item.meta
    return f"{m.kind} {m.namespace}/{m.name}" if m.namespace else f"{m.kind} {m.name}"


def _binding_path(ctx: Context, item: Item, claim: str) -> str:
    """The first binding of `claim` in the run, read again where the light path released a run
    its transform left unchanged (then released again: the output is its text)."""
    node: Any = item.node
    reread = node is None and item.text is not None
    if reread:
        node = item.load(ctx.light)
    found = "spec.workspaces"
    spec = node.get("spec") if isinstance(node, dict) else None
    ws = spec.get("workspaces") if isinstance(spec, dict) else None
    for i, b in enumerate(ws if isinstance(ws, list) else []):
        pvc = b.get("persistentVolumeClaim") if isinstance(b, dict) else None
        if isinstance(pvc, dict) and pvc.get("claimName") == claim:
            found = f"spec.workspaces[{i}].persistentVolumeClaim.claimName"
            break
    if reread:
        item.release()
    return found


def _shared_access(ctx: Context, namespace: str, claim: str) -> bool:
    """The claim is in the input and every access mode it asks for allows several nodes."""
    it = ctx.find("", "PersistentVolumeClaim", namespace, claim)
    node: Any = it.node if it is not None else None
    spec = node.get("spec") if isinstance(node, dict) else None
    modes = spec.get("accessModes") if isinstance(spec, dict) else None
    return isinstance(modes, list) and bool(modes) and all(m in _SHARED_MODES for m in modes)
