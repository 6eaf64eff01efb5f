"""The PVC-backed workspace bindings of a Tekton run and the claims behind them: which
bindings it has (a user's claim, a volumeClaimTemplate, or a claim an earlier render made,
recognised by its name and taken back with its template from the placeholder that holds it),
the volumes and claim templates of a placeholder, and the undoing of an earlier render. SPEC §4.
"""
from __future__ import annotations

from krm_fn.core.data import copy_data
from krm_fn.core.errors import FieldError
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.record import Record
from krm_fn.transforms.tekton import names
from krm_fn.transforms.tekton.run import Run
from krm_fn.transforms.tekton.run import get_list
from krm_fn.transforms.tekton.run import get_map
from krm_fn.transforms.tekton.run import unpin_run_level
from krm_fn.transforms.tekton.run import unpin_task
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class Binding(Record):
    """One PVC-backed entry of spec.workspaces."""

    __slots__ = ("index", "name", "node", "kind", "claim", "template", "source")

    def __init__(
        self,
        index: int,
        name: str,
        node: Any,
        kind: str,
        claim: str = "",
        template: dict[str, Any] | None = None,
        source: str = "",
    ) -> None:
        self.index = index
        self.name = name
        self.node = node  # the round-trip map of the binding
        self.kind = kind  # "pvc" (a user claim), "vct" (volumeClaimTemplate), "ours" (a claim we made)
        self.claim = claim  # pvc / ours: the claimName
        self.template = template  # vct / ours: plain claim template
        self.source = source  # ours: the assistant whose StatefulSet holds the template

    @property
    def key(self) -> str:
        """Tekton's "distinct claim" key: the claimName, or the binding for a template."""
        return f"claim:{self.claim}" if self.kind == "pvc" else f"template:{self.name}"

    @property
    def path(self) -> str:
        return f"spec.workspaces[{self.index}]"


class Group(Record):
    """Bindings that share one assistant."""

    __slots__ = ("assistant", "bindings", "tasks")

    def __init__(self, assistant: str, bindings: list[Binding], tasks: list[str] | None = None) -> None:
        self.assistant = assistant
        self.bindings = bindings
        self.tasks: list[str] = [] if tasks is None else tasks


def plain_bindings(bindings: list[Binding]) -> list[tuple[str, str]]:
    """(workspace, claimName) per binding; claimName "" for a volumeClaimTemplate."""
    return [(b.name, b.claim if b.kind == "pvc" else "") for b in bindings]


def unrender(run: Run, bindings: list[Binding], own: frozenset[str], why: str = "") -> None:
    """The run is not coscheduled (disabled, or a TaskRun with one claim): undo an earlier
    render, so a mode change leaves no binding to a claim nobody creates."""
    unpin_run_level(run, own)
    for i, _t in reversed(run.task_run_specs()):
        unpin_task(run, i, own)
    fixed_keys = {"tekton.dev/pipelineRun", "tekton.dev/taskRun", names.LABEL_INSTANCE, names.LABEL_COMPONENT}
    for b in bindings:
        if b.kind != "ours" or b.template is None:
            continue
        vct = copy_data(b.template)
        md = vct.get("metadata") or {}
        labels = {k: v for k, v in (md.get("labels") or {}).items() if k not in fixed_keys}
        if labels:
            md["labels"] = labels
        else:
            md.pop("labels", None)
        _restore_template_name(md, b.name, run.name)
        if "metadata" in vct and not md:
            del vct["metadata"]
        run.doc.replace_key(b.node, "persistentVolumeClaim", "volumeClaimTemplate", run.doc.safe(vct))
        run.ctx.info(
            run.item,
            b.path,
            f"workspace {b.name} binds claim {b.claim} of assistant {b.source}, which "
            + (why or f"coschedule {run.ctx.policy.mode} does not render here")
            + "; restored its volumeClaimTemplate",
        )


def _restore_template_name(md: dict[str, Any], binding: str, run_name: str) -> None:
    """The claim template's name back as the user wrote it: `pvc-<h10>` was made from no
    name, `<name>-<h10>` from <name> (a name shortened to 63 characters stays as it is)."""
    tname = md.get("name")
    if not isinstance(tname, str):
        return
    if tname == names.claim_template_name("", binding, run_name):
        del md["name"]
        return
    suffix = "-" + names.h10(binding + run_name)
    if tname.endswith(suffix) and tname != suffix and names.claim_template_name(tname[: -len(suffix)], binding, run_name) == tname:
        md["name"] = tname[: -len(suffix)]


# --------------------------------------------------------------------------- the claims a run binds


def bindings_of(run: Run, own: frozenset[str], quiet: bool = False) -> list[Binding] | None:
    """The PVC-backed workspace bindings, with our own earlier claims recognised (`quiet`:
    only to count them; claims of other runs are not reported)."""
    ws = get_list(run.spec, "workspaces", "spec.workspaces") or []
    out: list[Binding] = []
    ok = True
    for i, b in enumerate(ws):
        if not isinstance(b, dict):
            continue
        name = b.get("name")
        path = f"spec.workspaces[{i}]"
        if "volumeClaimTemplate" in b and b.get("volumeClaimTemplate") is not None:
            vct = b["volumeClaimTemplate"]
            if not isinstance(vct, dict):
                raise FieldError(f"{path}.volumeClaimTemplate", "volumeClaimTemplate is not a mapping")
            out.append(Binding(i, str(name), b, "vct", template=document.plain(vct)))
            continue
        pvc = get_map(b, "persistentVolumeClaim", f"{path}.persistentVolumeClaim")
        if pvc is None:
            continue
        claim = pvc.get("claimName")
        if not isinstance(claim, str) or not claim:
            raise FieldError(f"{path}.persistentVolumeClaim.claimName", "claimName is missing or not a string")
        found = None if quiet else _our_claim(run, claim, own)
        if found is _MISSING:
            ok = False
        elif found is None:
            out.append(Binding(i, str(name), b, "pvc", claim=claim))
        else:
            assert isinstance(found, tuple)
            source, template = found
            out.append(Binding(i, str(name), b, "ours", claim=claim, template=template, source=source))
    return out if ok else None


_MISSING = object()


def _our_claim(run: Run, claim: str, own: frozenset[str]) -> object:
    """(assistant, template) when `claim` is `<template>-<assistant>-0` of one of this run's
    generated StatefulSets; None for a user claim; _MISSING after reporting an error."""
    for aa in sorted(own):
        suffix = f"-{aa}-0"
        if not claim.endswith(suffix) or len(claim) == len(suffix):
            continue
        template_name = claim[: -len(suffix)]
        for t in _existing_templates(run, aa):
            if (t.get("metadata") or {}).get("name") == template_name:
                return aa, t
        run.ctx.error(
            run.item,
            "spec.workspaces",
            f"binds claim {claim}, which the claim template {template_name} of assistant {aa} "
            f"creates, but the generated StatefulSet {aa} with that template is not in the input; "
            "put the StatefulSet back, or bind a volumeClaimTemplate again",
        )
        return _MISSING
    foreign = names.claim_assistant(claim)
    if foreign is not None:
        _foreign_claim(run, claim, foreign)
        return _MISSING
    return None


def _foreign_claim(run: Run, claim: str, aa: str) -> None:
    """A claim of the generated pattern that no assistant of this run creates: the run was
    copied from a rendered run (or renamed), and would share that run's volume."""
    sts = run.ctx.find("apps", "StatefulSet", run.namespace, aa)
    owner = sts.meta.annotations.get(OWNER_ANNOTATION) if sts is not None else None
    template = claim[: -len(f"-{aa}-0")]
    source = (
        f"the claim template {template} of StatefulSet {aa}, generated for {owner}"
        if owner
        else f"assistant {aa} (claim template {template}), which is not generated for this run"
    )
    run.ctx.error(
        run.item,
        "spec.workspaces",
        f"binds claim {claim}, made by {source}: this run looks copied or renamed from a rendered "
        "run, and would share that run's volume. Bind a volumeClaimTemplate again"
        + (f" (its spec is in {aa}'s spec.volumeClaimTemplates)" if owner else "")
        + ", or render the original run's manifest instead of a copy",
    )


def _existing_templates(run: Run, aa: str) -> list[dict[str, Any]]:
    """The claim templates of this run's assistant `aa` as the input has it (rendered
    before), or []."""
    key = ("claim templates", run.namespace, aa, run.owner)
    found = run.ctx.memo.get(key)
    if found is None:  # asked twice per assistant: the claim check, its volumes
        vcts = run.ctx.generated_field("StatefulSet", run.namespace, aa, run.owner, ("spec", "volumeClaimTemplates"))
        # plain data already (generated_field), shared with its other readers: not changed here
        found = run.ctx.memo[key] = tuple(t for t in vcts if isinstance(t, dict)) if isinstance(vcts, list) else ()
    return list(found)  # the templates are shared: copy one to change it


def assistant_volumes(run: Run, group: Group) -> tuple[list[dict[str, Any]], list[str]]:
    """Claim templates (kept from the existing StatefulSet, then new ones) and user claims;
    rewrites each template binding to the claim the StatefulSet creates."""
    aa = group.assistant
    label_key = "tekton.dev/pipelineRun" if run.kind == "PipelineRun" else "tekton.dev/taskRun"
    fixed = names.fixed_labels(label_key, run.name, aa)
    templates = _existing_templates(run, aa)
    have = {t["metadata"].get("name") for t in templates if isinstance(t.get("metadata"), dict)}
    claims: list[str] = []
    for b in group.bindings:
        if b.kind == "pvc":
            if b.claim not in claims:
                claims.append(b.claim)
            continue
        assert b.template is not None
        if b.kind == "vct":
            template = _template_from_vct(b.template, b.name, run.name, fixed)
        else:
            # b.template is shared (_existing_templates): new mappings where this one differs
            md = {**b.template["metadata"]}
            md["labels"] = {**(md.get("labels") or {}), **fixed}
            template = {**b.template, "metadata": md}
        tname = template["metadata"]["name"]
        if tname not in have:
            templates.append(template)
            have.add(tname)
        claim = names.claim_name(tname, aa)
        if b.kind == "vct":
            run.doc.replace_key(b.node, "volumeClaimTemplate", "persistentVolumeClaim", run.doc.safe({"claimName": claim}))
            run.ctx.info(
                run.item,
                f"{b.path}.volumeClaimTemplate",
                f"workspace {b.name}: volumeClaimTemplate moved into StatefulSet {aa} as claim "
                f"template {tname}; the workspace now binds claim {claim}",
            )
        elif b.claim != claim:
            pvc = b.node["persistentVolumeClaim"]
            pvc["claimName"] = claim
        b.claim = claim
    return templates, claims


def _template_from_vct(vct: dict[str, Any], binding: str, run_name: str, fixed: dict[str, str]) -> dict[str, Any]:
    """The user's claim (spec, and the metadata labels and annotations, as Tekton copies
    them) under the sanitised template name, with the three fixed labels on top."""
    raw = vct.get("metadata")
    md: dict[str, Any] = raw if isinstance(raw, dict) else {}
    vname = md["name"] if isinstance(md.get("name"), str) else ""
    out_md: dict[str, Any] = {"name": names.claim_template_name(vname, binding, run_name)}
    out_md["labels"] = {**(md.get("labels") or {}), **fixed}
    if md.get("annotations"):
        out_md["annotations"] = dict(md["annotations"])
    return {"metadata": out_md, "spec": copy_data(vct.get("spec") or {})}  # plain already
