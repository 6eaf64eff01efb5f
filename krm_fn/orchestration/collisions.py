"""Identity within a package: two runs of one name, and two runs whose generated names
collide. Judged after the transforms, by what was generated for them: Kubernetes keeps one
object per name, so a twin is wrong only where a generated object (and with it a pin or a
claim) would be shared."""
from __future__ import annotations

from krm_fn.core.keys import is_local_config
from krm_fn.io.items import Item
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import file_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

TEKTON_RUNS = frozenset({("tekton.dev", "PipelineRun"), ("tekton.dev", "TaskRun")})  # (group, kind)


def duplicates(items: list[Item]) -> list[list[Item]]:
    """The Tekton runs the input has more than once (one kind, namespace and name), each
    group in input order. Judged after the transforms (judge_duplicates), by what was
    generated for them."""
    groups: dict[tuple[str, str, str, str], list[Item]] = {}
    for item in items:
        m = item.meta
        if (m.group, m.kind) not in TEKTON_RUNS or not m.name or is_local_config(m.annotations):
            continue
        groups.setdefault((m.group, m.kind, m.namespace, m.name), []).append(item)
    return [g for g in groups.values() if len(g) > 1]


def judge_duplicates(twins: list[list[Item]], ctx: Context) -> None:
    """Kubernetes keeps one object per name, so two runs of one name are a warning at most;
    an error only where something would be wrong: an object generated for them (the
    assistant StatefulSet, named from the run's name: one run would silently lose it, and
    its claims, pins and claim bindings would be the other's). Said on every twin, each
    naming the others: the verdict is the same whichever file comes first (or is named)."""
    owners = {id(g.owner) for g in ctx.generated}
    for group in twins:
        wrong = any(id(it) in owners for it in group)
        for item in group:
            also = ", ".join(_where(other) for other in group if other is not item)
            if wrong:
                ctx.error(
                    item,
                    "metadata.name",
                    f"the input has this {item.meta.kind} twice (also {also}); Kubernetes keeps one "
                    "object per name, and the objects generated for both would collide: give each "
                    "its own name or namespace, or render them separately (one run of the function "
                    "per environment)",
                )
            else:
                ctx.warning(
                    item,
                    "metadata.name",
                    f"the input has this {item.meta.kind} twice (also {also}); Kubernetes keeps one "
                    "object per name, so only one of them can exist at a time. Nothing is generated "
                    "for either, so both are rendered; give each its own name or namespace if both "
                    "are meant to exist",
                )


def _where(item: Item) -> str:
    path, _ = file_of(item)
    return f"items[{item.pos}]" + (f" in {path}" if path else "")


def check_generated_names(ctx: Context) -> None:
    """Two runs that need one generated object, or whose claims get one name: Tekton's
    assistant name hashes the workspace binding name and the run name with no separator
    (`source` + `run1` and `sour` + `cerun1` are one name), and so do claim names. They
    would share one StatefulSet and one claim, and deleting one run's manifest would delete
    the other's volume: an error on both runs, naming each other and the fix."""
    first: dict[tuple[str, str, str, str], Item] = {}
    clashed: set[tuple[int, int]] = set()
    for g in ctx.generated:
        other = first.setdefault(g.key, g.owner)
        if other is g.owner or _same_run(other, g.owner) or (id(other), id(g.owner)) in clashed:
            continue
        clashed.add((id(other), id(g.owner)))
        _, kind, ns, name = g.key
        _clash(ctx, other, g.owner, f"{kind} {ns + '/' if ns else ''}{name}")
    claims: dict[tuple[str, str], Any] = {}
    by_ref = {(it.meta.kind, it.meta.namespace, it.meta.name): it for it in (g.owner for g in ctx.generated)}
    for plan in ctx.plans:
        run = plan.run
        for a in plan.assistants:
            for c in a.get("claims") or []:
                claim = c.get("claim") if isinstance(c, dict) else None
                if not claim:
                    continue
                key = (run.namespace or "", claim)
                seen = claims.setdefault(key, run)
                if seen is run or (seen.kind, seen.namespace, seen.name) == (run.kind, run.namespace, run.name):
                    continue
                one = by_ref.get((seen.kind, seen.namespace or "", seen.name))
                two = by_ref.get((run.kind, run.namespace or "", run.name))
                if one is None or two is None or (id(one), id(two)) in clashed:
                    continue
                clashed.add((id(one), id(two)))
                _clash(ctx, one, two, f"PersistentVolumeClaim {key[0] + '/' if key[0] else ''}{claim}")


def _same_run(a: Item, b: Item) -> bool:
    return (a.meta.kind, a.meta.namespace, a.meta.name) == (b.meta.kind, b.meta.namespace, b.meta.name)


def _clash(ctx: Context, one: Item, two: Item, what: str) -> None:
    for item, other in ((one, two), (two, one)):
        ctx.error(
            item,
            None,
            f"this run and {ctx.ref(other).display()} ({_where(other)}) both need {what}: Tekton names it "
            "from a hash of the workspace binding name and the run name joined with no separator, "
            "so the two names hash alike. They would share one StatefulSet and one claim, and "
            "deleting one run's manifest would delete the other's volume. Rename a workspace "
            "binding or one of the runs",
        )
