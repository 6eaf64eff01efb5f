"""Which PipelineRun workspaces a pipeline task uses, by Tekton's own rules (v1.15): the one
place that decides it. Plain data in (a pipeline task as parsed YAML), workspace names out.

A pipeline task's TaskRun binds a PipelineRun workspace when

1. the pipeline task maps it (`workspaces: [{name, workspace}]`, `workspace` defaulting to
   `name`), whatever its Task declares; or
2. its embedded `taskSpec` refers to `$(workspaces.<name>...)` in a field Tekton scans and the
   pipeline task does not map a workspace called <name> ("propagated workspaces": Tekton adds
   the mapping `{name: <name>}` when it creates the TaskRun, whether or not the taskSpec or
   the Pipeline declares <name>, and for a referenced Pipeline as for an embedded one).
   Scanned: the steps' script, args, command, workingDir, env values and params values; the
   sidecars' script, args, command, workingDir and env values; the stepTemplate's args,
   command, workingDir and env values. Not images, volumeMounts, the steps' own `workspaces`,
   results or volumes. Before it looks, Tekton replaces `$(workspaces.<name>.bound)` with
   true or false for every workspace the PipelineRun binds or the Pipeline declares, so such a
   reference alone propagates nothing (`substituted`).

A workspace the taskSpec declares that is neither mapped nor propagated is not bound at all:
an `optional: true` one is simply absent; for a required one Tekton fails the TaskRun
("declared workspace ... is required but has not been bound"), unless the cluster's
config-defaults sets default-task-run-workspace-binding, which binds a volume of its own, never
a PipelineRun workspace. A task with `taskRef` gets only its mappings (propagation is for
embedded specs). A task with `pipelineRef` or `pipelineSpec` (pipelines in pipelines) runs a
child PipelineRun, which gets its mappings only, and the parent's `spec.taskRunTemplate` but
none of its `taskRunSpecs`.

Differences between Tekton versions are not modelled: propagation became the default in
v0.47 (behind the alpha, then beta, API fields before), step params are scanned from v0.61
and child PipelineRuns receive workspaces from v1.14. Following the newest pins a task more
often, never less.
"""
from __future__ import annotations

from krm_fn.core.record import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterator
    from typing import Any

_OPEN = "$(workspaces"


class Uses(Record):
    """What a pipeline task does with workspaces. `names`: the PipelineRun workspaces it binds,
    mapped ones first, then propagated ones in the order their first reference appears;
    `child`: it runs a child PipelineRun (the names are that run's); `unbound`: (field path
    under the task, name) of each required workspace its taskSpec declares but gets nothing
    for; `unreadable`: (field path under the task, reference) of each `$(workspaces...)`
    reference Tekton cannot use."""

    __slots__ = ("names", "child", "unbound", "unreadable")

    def __init__(
        self,
        names: list[str],
        child: bool = False,
        unbound: list[tuple[str, str]] | None = None,
        unreadable: list[tuple[str, str]] | None = None,
    ) -> None:
        self.names = names
        self.child = child
        self.unbound: list[tuple[str, str]] = [] if unbound is None else unbound
        self.unreadable: list[tuple[str, str]] = [] if unreadable is None else unreadable


def task_workspaces(task: Any, substituted: Collection[str] = ()) -> Uses:
    """The workspaces pipeline task `task` uses. `substituted`: the workspaces whose
    `$(workspaces.<name>.bound)` Tekton replaces first (the run's bindings and the
    Pipeline's declarations). Any shape is accepted; what is not Tekton's is ignored."""
    if not isinstance(task, dict):
        return Uses([])
    names: list[str] = []
    mapped: set[str] = set()  # the task-side names of the mappings
    for w in _items(task.get("workspaces")):
        if isinstance(w, dict) and isinstance(w.get("name"), str):
            mapped.add(w["name"])
            target = w.get("workspace")
            ws = target if isinstance(target, str) and target else w["name"]
            if ws not in names:
                names.append(ws)
    if task.get("pipelineRef") is not None or task.get("pipelineSpec") is not None:
        return Uses(names, child=True)
    ts = task.get("taskSpec")
    if not isinstance(ts, dict):
        return Uses(names)
    uses = Uses(names)
    propagated: set[str] = set()
    for path, text in scanned_strings(ts):
        for name, ref in references(text):
            if name is None:
                uses.unreadable.append((f"taskSpec.{path}", ref))
            elif name in substituted and ref == f"{_OPEN}.{name}.bound)":
                continue  # already true or false when Tekton looks
            elif name not in mapped:
                propagated.add(name)
                if name not in names:
                    names.append(name)
    for j, w in enumerate(_items(ts.get("workspaces"))):
        n = w.get("name") if isinstance(w, dict) else None
        if not isinstance(n, str) or n in mapped or n in propagated or w.get("optional") is True:
            continue
        uses.unbound.append((f"taskSpec.workspaces[{j}]", n))
    return uses


def pipeline_uses(spec: Any, substituted: Collection[str] = ()) -> list[tuple[str, int, dict[str, Any], Uses]]:
    """(section, index, task, what it uses) for every named pipeline task of a pipeline spec,
    tasks then finally; what is not Tekton's shape is skipped."""
    out = []
    for section in ("tasks", "finally"):
        tasks = spec.get(section) if isinstance(spec, dict) else None
        for i, task in enumerate(_items(tasks)):
            if isinstance(task, dict) and isinstance(task.get("name"), str):
                out.append((section, i, task, task_workspaces(task, substituted)))
    return out


def substituted(run_spec: Any, pipeline_spec: Any) -> frozenset[str]:
    """The workspaces whose `$(workspaces.<name>.bound)` Tekton replaces in every pipeline
    task before it looks for propagated ones: those the run binds and the Pipeline declares."""
    out: set[str] = set()
    for spec in (run_spec, pipeline_spec):
        for w in _items(spec.get("workspaces") if isinstance(spec, dict) else None):
            if isinstance(w, dict) and isinstance(w.get("name"), str):
                out.add(w["name"])
    return frozenset(out)


def scanned_strings(ts: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field path under the taskSpec, text) of every string Tekton scans for workspace
    references, in document order."""
    for i, step in enumerate(_items(ts.get("steps"))):
        if not isinstance(step, dict):
            continue
        yield from _container(step, f"steps[{i}]", script=True)
        for k, par in enumerate(_items(step.get("params"))):
            value = par.get("value") if isinstance(par, dict) else None
            where = f"steps[{i}].params[{k}].value"
            if isinstance(value, str):
                yield where, value
            elif isinstance(value, list):
                yield from ((f"{where}[{m}]", v) for m, v in enumerate(value) if isinstance(v, str))
            elif isinstance(value, dict):
                yield from ((f"{where}.{key}", v) for key, v in value.items() if isinstance(v, str))
    for i, sidecar in enumerate(_items(ts.get("sidecars"))):
        if isinstance(sidecar, dict):
            yield from _container(sidecar, f"sidecars[{i}]", script=True)
    template = ts.get("stepTemplate")
    if isinstance(template, dict):
        yield from _container(template, "stepTemplate", script=False)


def _container(c: dict[str, Any], where: str, script: bool) -> Iterator[tuple[str, str]]:
    if script and isinstance(c.get("script"), str):
        yield f"{where}.script", c["script"]
    for key in ("args", "command"):
        for j, v in enumerate(_items(c.get(key))):
            if isinstance(v, str):
                yield f"{where}.{key}[{j}]", v
    if isinstance(c.get("workingDir"), str):
        yield f"{where}.workingDir", c["workingDir"]
    for k, e in enumerate(_items(c.get("env"))):
        value = e.get("value") if isinstance(e, dict) else None
        if isinstance(value, str):
            yield f"{where}.env[{k}].value", value


def _items(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def references(text: str) -> list[tuple[str | None, str]]:
    """Tekton's reading of the `$(workspaces...)` references in one string, left to right, each
    as (workspace name, reference text); the name is None for a reference Tekton cannot use:
    more than two dot-separated parts after `workspaces.` (Tekton cannot read it), or an
    empty name (Tekton looks for a workspace called "" and finds none).

    The forms, each on one line and ending at the first closing that fits:
    `$(workspaces.NAME)` and `$(workspaces.NAME.FIELD)` (up to the first `)`), and
    `$(workspaces["NAME"])` and `$(workspaces['NAME'])` (up to the first `"])` or `'])`; the
    name is taken whole). A reference is matched where its `$(` starts, and the next one is
    looked for after its end. Linear in the text: each kind of closing is looked up once per
    position it is found at, however many openings share it."""
    out: list[tuple[str | None, str]] = []
    found: dict[str, int] = {}

    def first(token: str, start: int) -> int:
        """The first `token` at or after `start` (-1: none); `start` never decreases."""
        at = found.get(token, -2)
        if at == -1 or at >= start:
            return at
        at = text.find(token, start)
        found[token] = at
        return at

    i = text.find(_OPEN)
    while i >= 0:
        j = i + len(_OPEN)
        head = text[j : j + 2]
        if head[:1] == ".":
            close, body = ")", j + 1
        elif head in ('["', "['"):
            close, body = head[1] + "])", j + 2
        else:
            i = text.find(_OPEN, i + 1)
            continue
        end = first(close, body)
        newline = first("\n", body)
        if end < 0 or 0 <= newline < end:
            i = text.find(_OPEN, i + 1)
            continue
        var = text[body:end]
        stop = end + len(close)
        name: str | None = var
        if close == ")" and "." in var:
            parts = var.split(".")
            name = parts[0] if len(parts) == 2 else None
        out.append((name or None, text[i:stop]))
        i = text.find(_OPEN, stop)
    return out


# --------------------------------------------------------------------------- messages


def unbound_message(task: str, name: str) -> str:
    return (
        f"pipeline task {task} declares workspace {name} in its taskSpec but neither maps it "
        f"(workspaces: - name: {name}) nor refers to $(workspaces.{name}.path) in a step, so "
        f"Tekton binds nothing to it and fails the TaskRun (declared workspace {name!r} is "
        "required but has not been bound), unless your config-defaults sets "
        "default-task-run-workspace-binding; map it to a pipeline workspace, or mark it "
        "optional: true"
    )


def unreadable_message(task: str, ref: str) -> str:
    return (
        f"pipeline task {task} refers to {ref}, which Tekton cannot use (after $(workspaces. "
        "it takes a name and at most one field), so it stops the PipelineRun at this task "
        "without creating its TaskRun; write $(workspaces.NAME.path), or .bound, .claim or "
        ".volume"
    )


def child_pipeline_message(task: str, used: list[str], claims: str) -> str:
    """`used`: the PVC-backed workspaces the task passes to its child PipelineRun;
    `claims`: what backs them and which assistant holds it."""
    listed = ", ".join(used)
    return (
        f"pipeline task {task} runs a child pipeline (pipelineRef or pipelineSpec) and passes it "
        f"workspace {listed} ({claims}); Tekton starts a child PipelineRun for it that takes this "
        "run's spec.taskRunTemplate but none of its taskRunSpecs, so coschedule workspaces cannot "
        "pin the child's pods to that claim's node and a ReadWriteOnce claim may fail to attach "
        "there; use coschedule: pipelineruns (its pin is in spec.taskRunTemplate, which the "
        "child run copies), or move the child pipeline's tasks into this pipeline"
    )
