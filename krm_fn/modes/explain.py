"""`krm-coschedule explain`: the coscheduling plan a reviewer can read, as a table or as a
Mermaid diagram. It renders `Outcome.plans` of the very `process.process()` call the
transform makes; it never recomputes a decision."""
from __future__ import annotations

from collections.abc import Sequence

from krm_fn.orchestration.process import placeholder_cost
from krm_fn.transforms.context import Plan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("table", "mermaid", "json")
_HEADER = ("RUN", "MODE", "ASSISTANT", "TASKS", "CLAIM", "TEMPLATE", "BOUND BY")


def render(plans: Sequence[Plan], fmt: str) -> str:
    if fmt == "mermaid":
        return mermaid(plans)
    if fmt == "json":
        return as_json(plans)
    return table(plans)


def as_json(plans: Sequence[Plan]) -> str:
    """The plans as JSON for CI tools: [{run: {apiVersion, kind, name, namespace}, mode,
    strategy (placeholder | run-keyed: then each "assistant" is a group of tasks kept together),
    assistants: [{name, tasks, claims: [{template, claim, bindings}], volumes}]}]."""
    import json

    return json.dumps(
        [{"run": p.run.as_dict(), "mode": p.mode, "strategy": p.strategy, "assistants": p.assistants} for p in plans], indent=2, sort_keys=False
    ) + "\n"


def _run_name(p: Plan) -> str:
    r = p.run
    return f"{r.kind} {r.namespace}/{r.name}" if r.namespace else f"{r.kind} {r.name}"


def _fmt(v: Any) -> str:
    """A plan value as short text: lists joined, maps shown by their most telling field."""
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v)
    if isinstance(v, dict):
        for k in ("name", "claim", "claimName", "workspace", "path"):
            if k in v:
                rest = {kk: vv for kk, vv in v.items() if kk != k}
                return f"{_fmt(v[k])} ({_fmt(rest)})" if rest else _fmt(v[k])
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    return str(v)


def _rows(plans: Sequence[Plan]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for p in plans:
        run, mode = _run_name(p), p.mode
        if not p.assistants:
            rows.append((run, mode, "-", "(no assistant)", "", "", ""))
            continue
        for a in p.assistants:
            first = [run, mode, _fmt(a.get("name")), _fmt(a.get("tasks")) or "-"]
            lines: list[tuple[str, str, str]] = []
            for c in a.get("claims") or []:
                c = c if isinstance(c, dict) else {"claim": c}
                lines.append((_fmt(c.get("claim")), _fmt(c.get("template")), _fmt(c.get("bindings"))))
            vb = a.get("volumeBindings") or {}
            for v in a.get("volumes") or []:
                lines.append((_fmt(v), "(existing claim)", _fmt(vb.get(v))))
            if not lines:
                lines.append(("-", "", ""))
            for k, line in enumerate(lines):
                head = first if k == 0 else ["", "", "", ""]
                rows.append((*head, *line))
            run, mode = "", ""
    return rows


def table(plans: Sequence[Plan]) -> str:
    """Aligned columns, one row per claim; run, mode, assistant and tasks once per group."""
    if not plans:
        return "No run is coscheduled: the input has no Tekton run that gets an affinity assistant.\n"
    rows = [_HEADER, *_rows(plans)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADER))]
    out = []
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n")
    cost = placeholder_cost(list(plans))
    if cost:
        out.append("\n" + cost[2].upper() + cost[3:] + ".\n")
    if any(p.strategy == "run-keyed" for p in plans):
        out.append("(run-keyed) groups hold nothing: their pods share a node while they are alive.\n")
    return "".join(out)


def _q(s: str) -> str:
    """A Mermaid label: quoted, with the characters Mermaid reads as syntax escaped."""
    return '"' + s.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;") + '"'


def mermaid(plans: Sequence[Plan]) -> str:
    """A flowchart per run: tasks -> assistant -> claims, ready for a ```mermaid block."""
    out = ["flowchart LR\n"]
    if not plans:
        out.append(f"  none[{_q('no run is coscheduled')}]\n")
        return "".join(out)
    for i, p in enumerate(plans):
        rid = f"r{i}"
        out.append(f"  subgraph {rid}[{_q(f'{_run_name(p)} · {p.mode}')}]\n")
        if not p.assistants:
            out.append(f"    {rid}none[{_q('no assistant')}]\n")
        for j, a in enumerate(p.assistants):
            aid = f"{rid}a{j}"
            out.append(f"    {aid}{{{{{_q('assistant ' + _fmt(a.get('name')))}}}}}\n")
            for k, t in enumerate(a.get("tasks") or []):
                out.append(f"    {aid}t{k}[{_q('task ' + _fmt(t))}] --> {aid}\n")
            for k, c in enumerate(a.get("claims") or []):
                c = c if isinstance(c, dict) else {"claim": c}
                label = _fmt(c.get("claim"))
                if c.get("template"):
                    label += f" (template {_fmt(c.get('template'))})"
                edge = _fmt(c.get("bindings"))
                arrow = f" -- {_q(edge)} --> " if edge else " --> "
                out.append(f"    {aid}{arrow}{aid}c{k}[({_q(label)})]\n")
            vb = a.get("volumeBindings") or {}
            for k, v in enumerate(a.get("volumes") or []):
                edge = _fmt(vb.get(v))
                arrow = f" -. {_q(edge)} .-> " if edge else " -.-> "
                out.append(f"    {aid}{arrow}{aid}v{k}[({_q(_fmt(v) + ' (existing claim)')})]\n")
        out.append("  end\n")
    return "".join(out)
