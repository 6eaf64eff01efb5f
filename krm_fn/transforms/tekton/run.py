"""A Tekton run as the transform sees it (`Run`: where the run keeps its pod templates, by
kind and apiVersion) and the edits of its affinity that keep user terms untouched: pinning to
an assistant, unpinning, and copying the run-level affinity into a task's template."""
from __future__ import annotations

from krm_fn.core.data import type_name
from krm_fn.core.errors import FieldError
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import file_of
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.transforms.tekton import names
from krm_fn.yaml import document
from krm_fn.yaml.document import Document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


class Run:
    """Where a run keeps its pod templates, by kind and apiVersion."""

    def __init__(self, item: Item, ctx: Context, node: Any = None, meta: Meta | None = None, template: bool = False) -> None:
        """`node`/`meta`: a run template inside the item (a TriggerTemplate's
        resourcetemplates entry, `template`), whose results `ctx` places under its path."""
        self.item = item
        self.ctx = ctx
        assert item.doc is not None
        self.doc = item.doc  # new nodes are made by the item's own document
        self.node = item.node if node is None else node
        meta = item.meta if meta is None else meta
        self.kind = meta.kind
        self.version = meta.version
        self.name = meta.name
        self.generate_name = meta.generate_name
        self.namespace = meta.namespace
        self.template_run = template
        # Pipelines-as-Code creates the run under `generateName: <name>-` and applies nothing else
        self.pac = any(k.startswith(PAC_PREFIX) for k in meta.annotations) or _in_tekton_dir(file_of(item)[0])
        spec = self.node.get("spec")
        if not isinstance(spec, dict):
            raise FieldError("spec", "spec is missing or not a mapping")
        self.spec = spec
        if self.kind == "PipelineRun" and self.version == "v1":
            self.tpl_parent_key: str | None = "taskRunTemplate"
            self.tpl_path = "spec.taskRunTemplate.podTemplate"
            self.trs_key = "podTemplate"
        else:
            self.tpl_parent_key = None
            self.tpl_path = "spec.podTemplate"
            self.trs_key = "taskPodTemplate"
        self._created_parent = False
        self._own: frozenset[str] | None = None

    # ---- the run-level pod template
    def tpl_parent(self, create: bool) -> Any:
        if self.tpl_parent_key is None:
            return self.spec
        parent = get_map(self.spec, self.tpl_parent_key, f"spec.{self.tpl_parent_key}")
        if parent is None and create:
            parent = self.doc.new_map()
            self.doc.add_key(self.spec, self.tpl_parent_key, parent)
            self._created_parent = True
        return parent

    def template(self, create: bool = False) -> Any:
        parent = self.tpl_parent(create)
        if parent is None:
            return None
        tpl = get_map(parent, "podTemplate", self.tpl_path)
        if tpl is None and create:
            tpl = self.doc.new_map()
            self.doc.add_key(parent, "podTemplate", tpl)
        return tpl

    def drop_empty_parent(self) -> None:
        """A taskRunTemplate we created for nothing leaves again."""
        key = self.tpl_parent_key
        if self._created_parent and key and key in self.spec and not self.spec[key]:
            del self.spec[key]

    def service_account(self) -> str:
        parent = self.tpl_parent(False)
        sa = parent.get("serviceAccountName") if isinstance(parent, dict) else None
        return sa if isinstance(sa, str) else ""

    def task_run_specs(self) -> list[tuple[int, Any]]:
        if self.kind != "PipelineRun":
            return []
        trs = get_list(self.spec, "taskRunSpecs", "spec.taskRunSpecs") or []
        return [(i, t) for i, t in enumerate(trs) if isinstance(t, dict)]

    def trs_templates(self) -> list[tuple[str, Any]]:
        out = []
        for i, t in self.task_run_specs():
            tpl = get_map(t, self.trs_key, f"spec.taskRunSpecs[{i}].{self.trs_key}")
            if tpl is not None:
                out.append((f"spec.taskRunSpecs[{i}].{self.trs_key}", tpl))
        return out

    # ---- names
    def own_assistants(self) -> frozenset[str]:
        """Every assistant name this run can have under any mode (to recognise our work).
        Computed once per run: it is asked once per binding and per pinning term."""
        if self._own is None:
            self._own = self._compute_own_assistants()
        return self._own

    def _compute_own_assistants(self) -> frozenset[str]:
        if self.kind == "TaskRun":
            return frozenset({names.taskrun_assistant_name(self.name)})
        out = {names.assistant_name("", self.name)}
        for b in get_list(self.spec, "workspaces", "spec.workspaces") or []:
            if isinstance(b, dict) and isinstance(b.get("name"), str):
                out.add(names.assistant_name(b["name"], self.name))
        return frozenset(out)

    @property
    def owner(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def nameless(self) -> bool:
        """The run has no name it will keep: generateName, a template, or a PaC run."""
        return not self.name or self.template_run or self.pac

    def why_nameless(self) -> str:
        if self.template_run:
            return "is a run template of a TriggerTemplate, named only when a trigger fires"
        if self.pac:
            return (
                "is a Pipelines-as-Code run (a pipelinesascode.tekton.dev annotation or a .tekton/ "
                "path): PaC creates it under generateName <name>- and applies no other document"
            )
        return f"has generateName {self.generate_name!r} and no name"


PAC_PREFIX = "pipelinesascode.tekton.dev/"


def _in_tekton_dir(path: str | None) -> bool:
    return bool(path) and ".tekton" in str(path).replace("\\", "/").split("/")[:-1]


def copy_affinity(doc: Document, aff: Any, own: frozenset[str]) -> Any:
    """A deep copy of the run-level affinity without our pinning terms, for a task template."""
    plain = document.plain(aff) if isinstance(aff, dict) else {}
    cleaned = assistant_mod.prune_empty(strip_pins(plain, own))
    return doc.safe(cleaned)


def strip_pins(aff: dict[str, Any], own: frozenset[str]) -> dict[str, Any]:
    pa = aff.get("podAffinity")
    if isinstance(pa, dict) and isinstance(pa.get(REQUIRED), list):
        pa[REQUIRED] = [t for t in pa[REQUIRED] if names.pinned_assistant(t) not in own]
    return aff


# --------------------------------------------------------------------------- tree edits


def pin(doc: Document, tpl: Any, aa: str, own: frozenset[str], path: str) -> None:
    """Append the required podAffinity term for `aa` (once), dropping our terms for other
    assistants of this run (left over from another mode), never touching user terms."""
    unpin(tpl, {aa}, own)
    term = names.pin_term(aa)  # made safe once, with what holds it
    aff = get_map(tpl, "affinity", path)
    if aff is None:
        set_key(doc, tpl, "affinity", doc.safe({"podAffinity": {REQUIRED: [term]}}))
        return
    pa = get_map(aff, "podAffinity", f"{path}.podAffinity")
    if pa is None:
        set_key(doc, aff, "podAffinity", doc.safe({REQUIRED: [term]}))
        return
    req = get_list(pa, REQUIRED, f"{path}.podAffinity.{REQUIRED}")
    if req is None:
        set_key(doc, pa, REQUIRED, doc.safe([term]))
    elif not any(names.pinned_assistant(t) == aa for t in req):
        doc.append(req, doc.safe(term))


def unpin(tpl: Any, keep: set[str], own: frozenset[str], keep_affinity: bool = False) -> bool:
    """Remove our pinning terms for this run's assistants not in `keep`; containers that
    only held them go too (but an `affinity` itself with `keep_affinity`). True when
    something was removed."""
    aff = tpl.get("affinity")
    if not isinstance(aff, dict):
        return False
    pa = aff.get("podAffinity")
    if not isinstance(pa, dict):
        return False
    req = pa.get(REQUIRED)
    if not isinstance(req, list):
        return False
    drop = [
        i for i, t in enumerate(req) if (a := names.pinned_assistant(t)) is not None and a in own and a not in keep
    ]
    if not drop:
        return False
    for i in reversed(drop):
        del req[i]
    if not req:
        del pa[REQUIRED]
    if not pa:
        del aff["podAffinity"]
    if not aff and not keep_affinity:
        del tpl["affinity"]
    return True


def unpin_run_level(run: Run, own: frozenset[str]) -> None:
    """Unpin the run-level template; a template that held only our term goes too."""
    tpl = run.template()
    if tpl is not None and unpin(tpl, set(), own) and not tpl:
        del run.tpl_parent(False)["podTemplate"]
        if run.tpl_parent_key and not run.spec[run.tpl_parent_key]:
            del run.spec[run.tpl_parent_key]


def plain_affinity(tpl: Any, own: frozenset[str]) -> Any:
    """A template's affinity as plain data without our pinning terms (None when unset)."""
    aff = tpl.get("affinity") if isinstance(tpl, dict) else None
    if not isinstance(aff, dict):
        return None
    return assistant_mod.prune_empty(strip_pins(document.plain(aff), own))


def unpin_task(run: Run, index: int, own: frozenset[str], same_as: Any = None) -> None:
    """Unpin one taskRunSpecs template; an entry that held only our term goes too. With
    `same_as`, an affinity equal to it (the run-level one) goes as well."""
    trs = run.spec["taskRunSpecs"]
    entry = trs[index]
    tpl = entry.get(run.trs_key)
    if not isinstance(tpl, dict):
        return
    # a task's `affinity: {}` under a run-level affinity clears it for that task (Tekton takes
    # the task's field whole): the user's, and it stays when our term leaves it empty again
    run_tpl = run.template()
    clears = bool(plain_affinity(run_tpl, own)) if isinstance(run_tpl, dict) else False
    changed = unpin(tpl, set(), own, keep_affinity=clears)
    if same_as is not None and "affinity" in tpl and plain_affinity(tpl, own) == same_as:
        del tpl["affinity"]
        changed = True
    if not changed or tpl:
        return
    del entry[run.trs_key]
    if set(entry) <= {"pipelineTaskName"}:
        del trs[index]
        if not trs:
            del run.spec["taskRunSpecs"]


def task_template(run: Run, trs: Any, path: str, run_aff: Any, own: frozenset[str]) -> Any:
    """A taskRunSpecs entry's pod template, made when missing, whose affinity starts as a copy
    of the run-level one (without our terms): Tekton takes the task's affinity whole."""
    tpl = get_map(trs, run.trs_key, path)
    if tpl is None:
        tpl = run.doc.new_map()
        run.doc.add_key(trs, run.trs_key, tpl)
    if tpl.get("affinity") is None:
        set_key(run.doc, tpl, "affinity", copy_affinity(run.doc, run_aff, own))
    return tpl


def add_task_entries(run: Run, tasks: list[str], run_aff: Any, own: frozenset[str], put: Callable[[Any, str], object]) -> None:
    """A new taskRunSpecs entry per task (the list made when missing), its pod template's
    affinity a copy of the run-level one; `put(template, task)` adds our term."""
    if not tasks:
        return
    trs_list = get_list(run.spec, "taskRunSpecs", "spec.taskRunSpecs")
    if trs_list is None:
        trs_list = run.doc.safe([])
        run.doc.add_key(run.spec, "taskRunSpecs", trs_list)
    for task in tasks:
        entry = run.doc.safe({"pipelineTaskName": task, run.trs_key: {}})
        entry[run.trs_key]["affinity"] = copy_affinity(run.doc, run_aff, own)
        put(entry[run.trs_key], task)
        run.doc.append(trs_list, entry)


def set_key(doc: Document, m: Any, key: str, value: Any) -> None:
    """m[key] = value; a new key goes last, keeping a trailing comment last."""
    if key in m:
        m[key] = value
    else:
        doc.add_key(m, key, value)


def get_map(parent: Any, key: str, path: str) -> Any:
    v = parent.get(key)
    if v is None:
        return None
    if not isinstance(v, dict):
        raise FieldError(path, f"{path} is a {type_name(v)}, not a mapping")
    return v


def get_list(parent: Any, key: str, path: str) -> Any:
    v = parent.get(key)
    if v is None:
        return None
    if not isinstance(v, list):
        raise FieldError(path, f"{path} is a {type_name(v)}, not a list")
    return v
