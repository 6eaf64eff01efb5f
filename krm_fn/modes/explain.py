"""`krm-coschedule explain`: the coscheduling plan a reviewer can read, as a table or as a
Mermaid diagram. It renders `Outcome.plans` of the very `process.process()` call the
transform makes; it never recomputes a decision."""
from __future__ import annotations

from krm_fn.orchestration.process import placeholder_cost
from krm_fn.transforms.context import Plan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
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
    isolationScope (namespace | cluster: where the anti-affinity that keeps runs apart looks
    for other runs; null where nothing is kept apart), waits (where the run may wait for the
    scheduler's flush of unschedulable pods, as the table's notes say),
    assistants: [{name, tasks, claims: [{template, claim, bindings}], volumes}]}]."""
    import json

    waits = _waits(plans)
    return json.dumps(
        [
            {"run": p.run.as_dict(), "mode": p.mode, "strategy": p.strategy, "isolationScope": p.scope or None,
             "waits": w, "assistants": p.assistants}
            for p, w in zip(plans, waits, strict=True)
        ],
        indent=2, sort_keys=False,
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
    out.extend(scope_notes(plans))
    out.extend(flush_notes(plans))
    return "".join(out)


def _waits(plans: Sequence[Plan]) -> list[list[str]]:
    """Each plan's waits for kube-scheduler's flush of unschedulable pods (the plans carry them
    for the policy's strategy, mode and kubernetesVersion): a placeholder waits only beside a
    run-keyed isolate run, so with none in the plans its waits are left out."""
    beside = any(p.strategy == "run-keyed" and p.mode == "isolate-pipelinerun" for p in plans)
    return [list(p.waits) if beside or p.strategy != "placeholder" else [] for p in plans]


def flush_notes(plans: Sequence[Plan]) -> list[str]:
    """Where runs may wait for kube-scheduler's flush of unschedulable pods, once each."""
    seen: list[str] = []
    for waits in _waits(plans):
        seen.extend(w for w in waits if w not in seen)
    if not seen:
        return []
    head = (
        "May wait for the scheduler's periodic flush of unschedulable pods (5 minutes after the pod's last attempt by default; "
        "kube-scheduler --pod-max-in-unschedulable-pods-duration; adding or uncordoning a node "
        "retries at once; docs/strategies.md):\n"
    )
    return [head, *(f"- {w}.\n" for w in seen)]


_WHO = {"placeholder": "placeholders", "run-keyed": "run-keyed runs"}
_HOW = {"isolate-pipelinerun": "required: one run per node", "pipelineruns": "preferred: runs spread over nodes",
        "workspaces": "preferred: workspaces spread over nodes"}
_WHERE = {
    "namespace": "in the run's own namespace only",
    "cluster": "in every namespace (namespaceSelector: {})",
}
_WHY = {
    ("placeholder", "namespace"): " (Tekton's term, which has no namespace selector: tektoncd/pipeline#9531)",
}


def scope_notes(plans: Sequence[Plan]) -> list[str]:
    """One line per strategy, mode and isolation scope among the plans: where the
    anti-affinity that keeps runs apart looks for other runs (Plan.scope, as the transform
    wrote it)."""
    seen = sorted({(p.strategy, p.mode, p.scope) for p in plans if p.scope}, key=lambda x: (x[0] != "placeholder", x[1], x[2]))
    out = []
    for strategy, mode, scope in seen:
        other = "cluster" if scope == "namespace" else "namespace"
        out.append(
            f"In {mode}, the anti-affinity of {_WHO.get(strategy, strategy)} ({_HOW.get(mode, mode)}) looks for "
            f"other runs {_WHERE[scope]}{_WHY.get((strategy, scope), '')}; isolationScope: {other} in the "
            "policy changes that.\n"
        )
    return out


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
    notes = [n.strip() for n in (*scope_notes(plans), *flush_notes(plans))]
    if notes:  # the table's notes, as a box of their own under the runs
        out.append(f"  subgraph notes[{_q('notes')}]\n")
        out.extend(f"    n{k}[{_q(n)}]\n" for k, n in enumerate(notes))
        out.append("  end\n")
    return "".join(out)
