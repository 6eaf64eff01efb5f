"""Which of a package's files are rendered with the ones named, and why: only what depends on
the change (pre-commit names only the staged files). A file brought in is written only if its
render changed; its problems fail the commit only when the change may have caused them."""
from __future__ import annotations

import os

from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.results import Result
from krm_fn.io import packages
from krm_fn.io.items import Item
from krm_fn.orchestration import process as process_mod
from krm_fn.orchestration.collisions import TEKTON_RUNS
from krm_fn.policy import config as config_mod

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any
    from typing import Protocol
    from typing import TypeVar

    from krm_fn.io import streams

    class _File(Protocol):
        path: Path
        name: str
        failed: bool
        stream: streams.Stream | None

    F = TypeVar("F", bound=_File)


# what a run's render reads besides the run: (group, kind) -> the kind of run that refers to it;
# a Task is not read (its runs render the same whatever it holds)
_USED_BY = {("tekton.dev", "Pipeline"): "PipelineRun", ("shipwright.io", "Build"): "BuildRun"}
# where a run names what it refers to
_REF = {"PipelineRun": ("spec", "pipelineRef", "name"), "BuildRun": ("spec", "build", "name")}
# what every render of the package reads: the Kptfile, and a StatefulSet that is not generated
# (it may take an assistant's name)
_PACKAGE_WIDE = frozenset({("kpt.dev", "Kptfile"), ("apps", "StatefulSet")})


# the fields of a run whose problems a changed Pipeline or Build can cause: its reference, the
# workspaces it binds to the Pipeline's, the tasks its taskRunSpecs name
_REF_FIELDS = ("spec.pipelineRef", "spec.workspaces", "spec.taskRunSpecs", "spec.build")


class Why:
    """Why a file not named is rendered: `text` for the report (`runs Pipeline build, changed
    in pipeline.yaml`); `reads`: "package" (the policy or the Kptfile changed: every render
    reads it), "uses" (a Pipeline or Build it refers to changed) or "name" (a named run may
    collide with one of its runs); `mentions`: the named files and the changed objects
    (`Pipeline build`), which a problem the change caused names."""

    __slots__ = ("text", "reads", "mentions")

    def __init__(self, text: str, reads: str, mentions: frozenset[str]) -> None:
        self.text = text
        self.reads = reads
        self.mentions = mentions

    def caused(self, r: Result) -> bool:
        """Whether a problem of the brought-in file may be the change's (then it fails the
        commit as a named file's does), judged by what it names: the rule where there is no
        state before the change to render against (modes/before; no git work tree). It names a named file or a changed object (a run of a
        named file collides with this one, the Pipeline lacks a task), or it is about what the
        render read of the change (the policy's values; a Pipeline's workspaces and tasks). An
        object's own identity (metadata, a document that is no object) is never the change's."""
        if any(m in r.message for m in self.mentions):
            return True
        field = r.field_path or ""
        if r.resource is None or field.startswith("metadata"):
            return False
        return self.reads == "package" or (self.reads == "uses" and field.startswith(_REF_FIELDS))


def config_file(node: Any, source: str | None) -> str | None:
    """The real path of the file a package's Kptfile names as this function's config, from
    what packages.kptfile_config gave: (None, path, None) for a `configPath`."""
    return os.path.realpath(source) if source is not None and node is None else None


def promoted(files: list[F], context: list[F], config: str | None = None) -> list[tuple[F, Why]]:
    """The package's other files that must be rendered with the named ones, each with why:

    - a changed policy, the Kptfile or its config (`config`, a real path), or a StatefulSet
      that is not generated: every file with an object the function handles (every render
      reads them);
    - a changed Pipeline (Build): the files of the PipelineRuns (BuildRuns) that refer to it by
      name in its namespace, and of the objects that hold run templates (a TriggerTemplate);
    - a named Tekton run: the files of the runs of its namespace whose name ends with its
      name or is the end of it: the same name, or names that Tekton's hash of the workspace and
      run names (no separator) can make collide (`run1` + `source`, `cerun1` + `sour`);
    - a file holding a placeholder generated for a named run (its owner annotation), moved
      out of the run's file: a mode change renames the run's placeholders, and the old one
      left as context stayed beside the new one (two placeholders and two claims for one
      run, with no word). Rendered with the run, it is removed (or kept) with the results
      it gets when both files are named (issue 31).

    Otherwise the other files stay context only: a commit of one run file costs what it did
    (names are compared from the scanner's identities; a reference's name is read off its lines)."""
    if not context:
        return []
    named = frozenset(f.name for f in files)
    runs, used, wide = _named(files, config)
    if wide is not None:
        every = Why(wide, "package", named)
        return [(f, every) for f in context if any((it.meta.group, it.meta.kind) in process_mod.KNOWN_KINDS for it in _items(f))]
    out: list[tuple[F, Why]] = []
    ends = {ns: {n[i:] for n in names for i in range(len(n))} for ns, names in runs.items()}
    for f in context:
        why = _uses(f, used, named) if used else None
        if why is None and runs:
            why = _may_collide(f, runs, ends, named) or _holds_placeholder_of(f, runs, named)
        if why is not None:
            out.append((f, why))
    return out


def _named(files: list[F], config: str | None) -> tuple[dict[str, dict[str, str]], dict[tuple[str, str, str], str], str | None]:
    """({namespace: {run name: its file}} of the named files' Tekton runs, {(run kind,
    namespace, name): `Pipeline build, changed in pipeline.yaml`} of what runs refer to, why
    every file is rendered (None: not)."""
    runs: dict[str, dict[str, str]] = {}
    used: dict[tuple[str, str, str], str] = {}
    for f in files:
        if config is not None and not f.failed and packages.realpath(f.path) == config:
            return runs, used, f"the package's policy changed in {f.name}"
        for item in _items(f):
            m = item.meta
            key = (m.group, m.kind)
            if key in TEKTON_RUNS and m.name:
                runs.setdefault(m.namespace, {}).setdefault(m.name, f.name)
            elif m.kind == config_mod.POLICY_KIND:
                return runs, used, f"the package's policy changed in {f.name}"
            elif key in _USED_BY and m.name:
                used[(_USED_BY[key], m.namespace, m.name)] = f"{m.kind} {m.name}, changed in {f.name}"
            elif key in _PACKAGE_WIDE and OWNER_ANNOTATION not in m.annotations:
                what = "the Kptfile" if m.kind == "Kptfile" else f"{m.kind} {m.name} (it may take an assistant's name)"
                return runs, used, f"{what} changed in {f.name}"
    return runs, used, None


def _uses(f: _File, used: dict[tuple[str, str, str], str], named: frozenset[str]) -> Why | None:
    """Why a file is rendered for a changed Pipeline or Build: a run of it refers to one (or
    might: a reference not read off its lines), or it holds run templates."""
    for item in _items(f):
        m = item.meta
        key = (m.group, m.kind)
        if key in process_mod.KNOWN_KINDS and key not in TEKTON_RUNS and m.group == "triggers.tekton.dev":
            return Why(f"its run templates may run {', '.join(sorted(used.values()))}", "uses", named | _changed(used))
        for (kind, ns, name), what in used.items():
            if m.kind != kind or m.namespace != ns:
                continue
            ref = _ref(item, _REF[kind])
            if ref is _UNKNOWN or ref == name:
                return Why(f"runs {what}", "uses", named | _changed(used))
    return None


def _changed(used: dict[tuple[str, str, str], str]) -> frozenset[str]:
    """`Pipeline build` for each changed Pipeline or Build, as messages name them."""
    return frozenset(what.split(",")[0] for what in used.values())


_UNKNOWN = object()


def _ref(item: Item, path: tuple[str, ...]) -> Any:
    """The value at `path` of a context object: read off its lines where the reader is sure
    (the object left unread), else from the object read (and the reading dropped again when
    this read it: a file not brought in costs no memory); _UNKNOWN when neither can say (the
    object is not YAML the readers take: it is brought in, and its render says why)."""
    if item.text is not None and item.doc is None:
        try:
            return item.field(path)
        except Unsure:
            pass  # a line the peek is not sure of (a flow list, a quote): read the object
    try:
        fresh = item.doc is None
        node = item.load(light=True)
    except (Unsure, InputError):
        return _UNKNOWN
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    if fresh:
        item.release()
    return node


def _may_collide(f: _File, runs: dict[str, dict[str, str]], ends: dict[str, set[str]], named: frozenset[str]) -> Why | None:
    """Why a file is rendered for a named run: it holds a Tekton run whose name ends with a
    named run's name of its namespace, or is the end of one (`ends`: the ends of the named
    names)."""
    for item in _items(f):
        m = item.meta
        if m.kind not in _RUN_KINDS:
            continue  # (the group, a property, asked of the runs only)
        names = runs.get(m.namespace) if (m.group, m.kind) in TEKTON_RUNS and m.name else None
        if names is None:
            continue
        other = m.name if m.name in names else _longest_end(m.name, names)
        if other is None and m.name in ends[m.namespace]:
            other = next(n for n in names if n.endswith(m.name))
        if other is not None:
            return Why(
                f"its {m.kind} {m.name} and the run {other} of {names[other]} may need one name "
                "(the same name, or assistant names that hash alike)",
                "name", named,
            )
    return None


def _longest_end(name: str, names: dict[str, str]) -> str | None:
    """The longest end of `name` (a suffix, not empty) that is one of `names`: each of the
    few named runs asked, rather than each of the name's ends (a commit names one run, and
    each of 1,500 context runs was asked with every end of its name)."""
    if len(names) < len(name):
        ends = [n for n in names if n and name.endswith(n)]
        return max(ends, key=len) if ends else None
    return next((name[i:] for i in range(len(name)) if name[i:] in names), None)


_RUN_KINDS = frozenset(kind for _group, kind in TEKTON_RUNS)


def _holds_placeholder_of(f: _File, runs: dict[str, dict[str, str]], named: frozenset[str]) -> Why | None:
    """Why a file is rendered for a named run: it holds an object generated for that run
    (its owner annotation `Kind/name`, in the run's namespace)."""
    for item in _items(f):
        owner = item.meta.annotations.get(OWNER_ANNOTATION)
        if owner is None:
            continue
        kind, _, name = owner.partition("/")
        names = runs.get(item.meta.namespace)
        if kind in _RUN_KINDS and names is not None and name in names:
            return Why(f"its {item.meta.kind} {item.meta.name} was generated for the {kind} {name} of {names[name]}", "name", named)
    return None


def _items(f: _File) -> list[Item]:
    if f.stream is None:
        return []
    return [doc.item for doc in f.stream.docs if doc.item is not None]
