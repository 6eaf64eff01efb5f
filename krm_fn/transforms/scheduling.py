"""Scheduling policy for pod templates (SPEC §5): nodeSelector, tolerations, schedulerName,
merged so that nothing a manifest already says is relaxed (the KEP-3838 rule: only further
constrain). Shared by the Tekton transform (`constrain_pod_template`) and the Shipwright one
(`apply_policy` with the Shipwright flavour)."""
from __future__ import annotations

from _collections_abc import Mapping
from _collections_abc import MutableMapping

from krm_fn.core.record import Record
from krm_fn.io.items import Item
from krm_fn.policy import hardening
from krm_fn.policy import nodeaffinity
from krm_fn.policy import validation
from krm_fn.policy.tolerations import SHIPWRIGHT
from krm_fn.policy.tolerations import TEKTON
from krm_fn.policy.tolerations import indices_by_key
from krm_fn.policy.tolerations import same_toleration
from krm_fn.policy.tolerations import tol_identity
from krm_fn.policy.tolerations import tol_key
from krm_fn.policy.tolerations import tol_text
from krm_fn.transforms.context import Context
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

FIELDS = ("nodeSelector", "tolerations", "schedulerName", "runtimeClassName")


class Inherited(Record):
    """What a BuildRun inherits from its Build (the Build as written, plain data)."""

    __slots__ = ("node_selector", "tolerations", "scheduler_name", "source", "runtime_class_name")

    def __init__(
        self, node_selector: Mapping[str, Any], tolerations: list[Any], scheduler_name: Any, source: str,
        runtime_class_name: Any = None,
    ) -> None:
        self.node_selector = node_selector
        self.tolerations = tolerations
        self.scheduler_name = scheduler_name
        self.source = source  # "Build ns/name", for messages
        self.runtime_class_name = runtime_class_name


def show(value: Any) -> str:
    """A value as it reads in a message (JSON: strings quoted, maps inline)."""
    import json  # here, as below: json costs ~1 ms to import, and most runs never call these

    return json.dumps(document.plain(value), sort_keys=False)


# --------------------------------------------------------------------------- conflicts


def _conflict(
    ctx: Context,
    item: Item,
    path: str,
    what: str,
    current: Any,
    proposed: Any,
    why: str = "",
) -> str:
    """Report one conflict per ctx.policy.on_conflict and return that action. `why`, when
    given, says after the values why they conflict."""
    action = ctx.policy.on_conflict
    cur, prop = document.plain(current), document.plain(proposed)
    head = f"{what} is {show(cur)} in the manifest but the scheduling policy wants {show(prop)}{why}"
    if action == "keep":
        ctx.warning(
            item,
            path,
            head + "; kept the manifest's value (onConflict: keep), so the policy is not applied to this field",
            current=cur,
            proposed=prop,
        )
    elif action == "override":
        ctx.warning(
            item,
            path,
            head + "; replaced it with the policy's value (onConflict: override)",
            current=cur,
            proposed=prop,
        )
    else:
        ctx.error(
            item,
            path,
            head + "; the policy only adds constraints and never changes what a manifest says "
            "(onConflict: error). Align the manifest with the policy, or set "
            "spec.scheduling.onConflict to keep or override",
            current=cur,
            proposed=prop,
        )
    return action


def _inherited_conflict(ctx: Context, inherited_value: Any, wanted: Any, same: bool) -> bool:
    """True when the BuildRun must not add `wanted` because the Build (in the input) already
    sets the field differently: that conflict is reported on the Build, and adding the value to
    the BuildRun would silently override the Build's (BuildRun values win in Shipwright's
    merge). Only onConflict=override adds it anyway."""
    return inherited_value is not None and not same and ctx.policy.on_conflict != "override"


# --------------------------------------------------------------------------- merge


def apply_policy(
    ctx: Context,
    item: Item,
    holder: MutableMapping[str, Any],
    path: str,
    flavour: str,
    only_set_fields: bool = False,
    inherited: Inherited | None = None,
    platform_keys_blocked: bool = False,
    node_affinity_from: list[tuple[str, Any]] | None = None,
) -> list[str]:
    """Merge ctx.policy into holder's nodeSelector / tolerations / schedulerName in place.

    Returns a short description of every addition or override (empty: nothing changed).
    `only_set_fields`: touch only the fields holder itself sets (a Tekton taskRunSpecs
    template replaces the run-level field only when it sets it: MergePodTemplateWithDefault
    works per field, and a non-nil empty map counts as set).
    `inherited`: the Build under a BuildRun, compared so the BuildRun never overrides it.
    `platform_keys_blocked`: spec.output.platforms is set, so kubernetes.io/os and
    kubernetes.io/arch must not be added (NodeSelectorPlatformConflict).
    `node_affinity_from`: the (path, pod template) pairs whose required nodeAffinity the
    pods get beside holder's nodeSelector (default: holder itself); a policy key that leaves
    them no node is a conflict."""
    m = _Merge(ctx, item, holder, path, flavour, only_set_fields, inherited)
    m.affinity_from = [(path, holder)] if node_affinity_from is None else node_affinity_from
    m.node_selector(platform_keys_blocked)
    m.tolerations()
    m.scheduler_name()
    m.runtime_class_name()
    return m.changes


class _Merge:
    """One merge of the policy into one holder (a pod template or a Shipwright spec)."""

    def __init__(
        self,
        ctx: Context,
        item: Item,
        holder: MutableMapping[str, Any],
        path: str,
        flavour: str,
        only_set_fields: bool,
        inherited: Inherited | None,
    ) -> None:
        self.ctx = ctx
        self.item = item
        assert item.doc is not None
        self.doc = item.doc  # new nodes are made by the item's own document
        self.holder = holder
        self.path = path
        self.flavour = flavour
        self.only_set_fields = only_set_fields
        self.inherited = inherited
        self.affinity_from: list[tuple[str, Any]] = []
        self.changes: list[str] = []

    def node_selector(self, platform_keys_blocked: bool) -> None:
        """Add missing keys; the same key with another value is a conflict."""
        ctx, p, holder = self.ctx, self.ctx.policy, self.holder
        ns = holder.get("nodeSelector")
        if not p.node_selector or (self.only_set_fields and ns is None):
            return
        if ns is not None and not isinstance(ns, dict):
            return
        adds: dict[str, str] = {}
        # the node labels the pods' nodeSelector fixes so far, for the nodeAffinity check
        fixed = {str(k): v for k, v in ns.items() if isinstance(v, str)} if ns is not None else {}
        for k, want in p.node_selector.items():
            kp = f"{self.path}.nodeSelector[{k}]"
            if ns is not None and k in ns:
                if (
                    ns[k] != want
                    and _conflict(ctx, self.item, kp, f'nodeSelector "{k}"', ns[k], want) == "override"
                    and self._node_affinity_allows(fixed, k, want)
                ):
                    ns[k] = self.doc.safe(want)
                    fixed[k] = want
                    self.changes.append(f"nodeSelector {k}={want} (override)")
                continue
            inh = self.inherited
            if inh is not None and _inherited_conflict(ctx, inh.node_selector.get(k), want, inh.node_selector.get(k) == want):
                continue
            if platform_keys_blocked and k in validation.PLATFORM_KEYS:
                self._platform_conflict(kp, k, want)
                continue
            if not self._node_affinity_allows(fixed, k, want):
                continue
            adds[k] = want
            fixed[k] = want
        if not adds:
            return
        if ns is None:
            holder["nodeSelector"] = self.doc.safe(adds)
        else:
            for k, v in adds.items():
                ns[k] = self.doc.safe(v)
        self.changes.extend(f"nodeSelector {k}={v}" for k, v in adds.items())

    def _node_affinity_allows(self, fixed: dict[str, str], k: str, want: str) -> bool:
        """Whether `k: want` may join the nodeSelector: a required nodeAffinity that some node
        satisfies with the labels fixed so far and none with this one too is a conflict
        (kubernetes.io/os: linux beside `kubernetes.io/os In [windows]`: the pods would never
        be scheduled). override: the policy decides the key, so the affinity's expressions on
        it go."""
        after = {**fixed, k: want}
        for path, tpl in self.affinity_from:
            terms = nodeaffinity.required_terms(tpl)
            if terms is None or not nodeaffinity.contradicts(terms, fixed, after):
                continue
            why = f" (the nodeSelector of {self.path}); no node can match both, so these pods would never be scheduled"
            if not _node_affinity_conflict(self.ctx, self.item, path, tpl, terms, k, want, why):
                return False
            self.changes.append(f"nodeAffinity expressions on {k} removed (override)")
        return True

    def _platform_conflict(self, kp: str, k: str, want: str) -> None:
        msg = validation.platform_conflict_message(k) + f"; the scheduling policy would add {k}={want}"
        tags = {"reason": validation.NODE_SELECTOR_PLATFORM_CONFLICT}
        if self.ctx.policy.on_conflict == "keep":
            self.ctx.warning(self.item, kp, msg + ": not added (onConflict: keep)", tags=tags, proposed=want)
        else:
            self.ctx.error(
                self.item,
                kp,
                msg + ". Remove the key from spec.scheduling.nodeSelector or the platforms "
                "from spec.output, or set spec.scheduling.onConflict to keep",
                tags=tags,
                proposed=want,
            )

    def tolerations(self) -> None:
        """Add those not present (Tekton: same key/operator/value/effect; Shipwright merges by
        key, so a same-key toleration with other fields is a conflict). Linear in the
        tolerations of the policy and of the manifest: lookups go through keys computed once."""
        p, holder = self.ctx.policy, self.holder
        tols = holder.get("tolerations")
        if not p.tolerations or (self.only_set_fields and tols is None):
            return
        if tols is not None and not isinstance(tols, list):
            return
        new = self._tekton_new(tols) if self.flavour == TEKTON else self._shipwright_new(tols)
        if not new:
            return
        if tols is None:
            holder["tolerations"] = self.doc.safe([dict(t) for t in new])
        else:
            for t in new:
                tols.append(self.doc.safe(dict(t)))
        self.changes.extend(f"toleration {tol_text(t)}" for t in new)

    def _tekton_new(self, tols: list[Any] | None) -> list[Any]:
        present = {tol_identity(t, TEKTON) for t in (tols or []) if isinstance(t, dict)}
        new: list[Any] = []
        for wt in self.ctx.policy.tolerations:
            ident = tol_identity(wt, TEKTON)
            if ident not in present:
                present.add(ident)
                new.append(wt)
        return new

    def _shipwright_new(self, tols: list[Any] | None) -> list[Any]:
        inherited_by_key: dict[str, Any] = {}
        for t in self.inherited.tolerations if self.inherited is not None else ():
            if isinstance(t, dict):
                inherited_by_key.setdefault(tol_key(t), t)
        by_key = indices_by_key(tols)
        new: list[Any] = []
        new_keys: set[str] = set()
        for wt in self.ctx.policy.tolerations:
            wkey = tol_key(wt)
            if wkey in new_keys:
                continue  # a repeated policy key: Shipwright keeps the first (validation.check_policy warns)
            idx = by_key.get(wkey)
            if idx:
                assert tols is not None
                if self._shipwright_conflict(tols, idx, wt, wkey):
                    by_key = indices_by_key(tols)  # entries were replaced and removed
                continue
            inh = inherited_by_key.get(wkey)
            if inh is not None and _inherited_conflict(self.ctx, inh, wt, same_toleration(inh, wt, SHIPWRIGHT)):
                continue
            new.append(wt)
            new_keys.add(wkey)
        return new

    def _shipwright_conflict(self, tols: list[Any], idx: list[int], wt: Any, wkey: str) -> bool:
        """Same-key tolerations that differ from the policy's: a conflict. True when they
        were overridden (the list changed)."""
        bad = [j for j in idx if not same_toleration(tols[j], wt, SHIPWRIGHT)]
        if not bad:
            return False
        j = bad[0]
        action = _conflict(self.ctx, self.item, f"{self.path}.tolerations[{j}]", f'the toleration for key "{wkey}"', tols[j], wt)
        if action != "override":
            return False
        # Shipwright matches by key: the policy's toleration replaces them all
        tols[idx[0]] = self.doc.safe(dict(wt))
        for d in reversed(idx[1:]):
            del tols[d]
        self.changes.append(f"toleration {wkey} (override)")
        return True

    def scheduler_name(self) -> None:
        """Set when absent; another value is a conflict. Tekton's podTemplate schedulerName is a
        plain string: "" is unset. In Shipwright it is a pointer, and "" is set (and invalid:
        SchedulerNameNotValid, reported by the validator)."""
        inh = self.inherited.scheduler_name if self.inherited is not None else None
        self._single("schedulerName", self.ctx.policy.scheduler_name, inh, empty_unset=self.flavour == TEKTON)

    def runtime_class_name(self) -> None:
        """The same for runtimeClassName, a pointer in Tekton's PodTemplate and in Shipwright
        (v0.19+, SHIP-0040): "" is set, and invalid."""
        p = self.ctx.policy
        if self.flavour == SHIPWRIGHT and p.shipwright_version < validation.SHIPWRIGHT_RUNTIME_CLASS_SINCE:
            return  # the Build and BuildRun of that Shipwright have no such field (validation.check_policy says so)
        inh = self.inherited.runtime_class_name if self.inherited is not None else None
        self._single("runtimeClassName", p.runtime_class_name, inh, empty_unset=False)

    def _single(self, field: str, want: Any, inh: Any, empty_unset: bool) -> None:
        cur = self.holder.get(field)
        absent = cur is None or (empty_unset and cur == "")
        if want is None or (self.only_set_fields and absent):
            return
        if absent:
            if not _inherited_conflict(self.ctx, inh, want, inh == want):
                self.holder[field] = self.doc.safe(want)
                self.changes.append(f"{field} {want}")
        elif cur != want and cur != "":
            if _conflict(self.ctx, self.item, f"{self.path}.{field}", field, cur, want) == "override":
                self.holder[field] = self.doc.safe(want)
                self.changes.append(f"{field} {want} (override)")


def report_changes(ctx: Context, item: Item, path: str, changes: list[str]) -> None:
    if changes:
        ctx.info(item, path, "scheduling policy applied: " + ", ".join(changes))


# --------------------------------------------------------------------------- hardening


def report_hardening(
    ctx: Context,
    item: Item,
    path: str,
    node_selector: Any,
    tolerations: Any,
    skip_tolerations: frozenset[int] = frozenset(),
    prefix: str = "",
) -> None:
    """Report SHIP-0039 hardening findings for values as written at `path`."""
    p = ctx.policy
    sev = hardening.severity(p.hardening)
    if sev is None:
        return
    found = hardening.check(
        node_selector,
        tolerations,
        p.hardening_allow_toleration_keys,
        p.hardening_allow_node_selector_keys,
        skip_tolerations,
    )
    for f in found:
        ctx.add(
            sev,
            item,
            f"{path}.{f.where}",
            f"{prefix or hardening.subject(f.rule) + ' '}{f.message} ({hardening.advice(f.rule)})",
            tags={"hardening": f.rule},
        )


# --------------------------------------------------------------------------- Tekton


def constrain_pod_template(
    item: Item,
    ctx: Context,
    parent: Any,
    key: str,
    field_path: str,
    only_set_fields: bool = False,
    node_affinity_from: list[tuple[str, Any]] | None = None,
) -> None:
    """Apply ctx.policy's nodeSelector / tolerations / schedulerName to the pod template at
    parent[key] (a round-trip map; created when absent and the policy adds something).

    Tekton flavour: a toleration is "present" when key, operator, value and effect match.
    `only_set_fields`: for taskRunSpecs templates, constrain only the fields the template
    itself sets (the run-level template covers the rest). Conflicts follow
    ctx.policy.on_conflict; hardening findings on the template as written are reported per
    ctx.policy.hardening (the policy's own values are checked once, by validation.check_policy).
    `field_path` is the dotted path of parent[key] for results. `parent` must be a map; the
    caller creates it (for example `spec.taskRunTemplate`) when needed.
    `node_affinity_from`: the other (path, template) pairs whose required nodeAffinity meets
    this template's nodeSelector in some pod (Tekton replaces pod template fields one by one:
    the run-level affinity for a taskRunSpecs template that sets only nodeSelector, a
    taskRunSpecs affinity for the run-level nodeSelector); this template's own is always
    checked.
    """
    if not isinstance(parent, dict):
        return
    # a dotted key ("taskRunTemplate.podTemplate") walks down from parent, creating the
    # missing maps only when the policy adds something (pod template keys hold no dots)
    *heads, last = key.split(".")
    holder: Any = parent
    missing: list[str] = []
    base = field_path[: -len(key)].rstrip(".") if field_path.endswith(key) else ""
    for i, h in enumerate(heads):
        nxt = holder.get(h) if not missing else None
        if nxt is None:
            missing.append(h)
        elif isinstance(nxt, dict):
            holder = nxt
        else:
            where = ".".join(x for x in (base, *heads[: i + 1]) if x)
            ctx.error(item, where, f"must be a map, got {type(nxt).__name__}")
            return
    tpl = holder.get(last) if not missing else None
    if tpl is not None and not isinstance(tpl, dict):
        ctx.error(item, field_path, f"must be a map (a Tekton PodTemplate), got {type(tpl).__name__}")
        return
    if tpl is not None and not _tekton_types_ok(ctx, item, tpl, field_path):
        return
    if tpl is not None:
        report_hardening(ctx, item, field_path, tpl.get("nodeSelector"), tpl.get("tolerations"))
    if only_set_fields and tpl is None:
        return
    assert item.doc is not None
    target: MutableMapping[str, Any] = item.doc.new_map() if tpl is None else tpl
    changes = apply_policy(
        ctx, item, target, field_path, TEKTON, only_set_fields=only_set_fields,
        node_affinity_from=[(field_path, target), *(node_affinity_from or [])],
    )
    if tpl is None and len(target):
        for h in missing:
            fresh = item.doc.new_map()
            holder[h] = fresh
            holder = fresh
        holder[last] = target
    report_changes(ctx, item, field_path, changes)


def assistant_node_selector(ctx: Context, item: Item, tpl: Any, tpl_path: str) -> None:
    """The pin: a placeholder takes `assistant.podTemplate`'s nodeSelector when the run's pod
    template `tpl` (at `tpl_path`) sets none, and copies the run's affinity; a key that leaves
    the run's required nodeAffinity no node is a conflict, handled by onConflict (the
    placeholder would never be scheduled, and every pod pinned to it would wait). keep and
    error: the placeholder does not take the key (assistant.pod_spec leaves it out by the same
    rule); override: the run's affinity loses its expressions on the key."""
    if isinstance(tpl, dict) and tpl.get("nodeSelector") is not None:
        return
    sel = ctx.policy.assistant_pod_template.get("nodeSelector")
    terms = nodeaffinity.required_terms(tpl)
    if not isinstance(sel, dict) or terms is None:
        return
    why = (
        " (spec.assistant.podTemplate.nodeSelector, which the placeholder takes because this "
        "template sets no nodeSelector); no node can match both, so the placeholder would never be "
        "scheduled and every TaskRun pod pinned to it would wait"
    )
    for k in nodeaffinity.conflicting_keys(terms, sel):
        if _node_affinity_conflict(ctx, item, tpl_path, tpl, terms, k, sel[k], why):
            report_changes(ctx, item, tpl_path, [f"nodeAffinity expressions on {k} removed (override)"])
            terms = nodeaffinity.required_terms(tpl)
            if terms is None:
                return


def _node_affinity_conflict(ctx: Context, item: Item, path: str, tpl: Any, terms: list[Any], k: str, want: str, why: str) -> bool:
    """onConflict for a nodeSelector key `k: want` that leaves the required nodeAffinity
    `terms` of the template `tpl` (at `path`) no node; `why` follows the values in the
    message. True when the key goes in: override, and the affinity's expressions on it leave
    `tpl`."""
    action = _conflict(
        ctx,
        item,
        f"{path}.affinity.nodeAffinity.{nodeaffinity.REQUIRED}",
        f'the required nodeAffinity on "{k}"',
        nodeaffinity.on_key(terms, k),
        {k: want},
        why=why,
    )
    if action != "override":
        return False
    nodeaffinity.drop_key(tpl, k)
    return True


def _tekton_types_ok(ctx: Context, item: Item, tpl: Mapping[str, Any], path: str) -> bool:
    """Shapes the merge relies on; a wrong type is an error (the Tekton webhook would reject
    the run when it decodes it)."""
    ok = True
    ns = tpl.get("nodeSelector")
    if ns is not None:
        if not isinstance(ns, dict):
            ctx.error(item, f"{path}.nodeSelector", "must be a map of label keys to string values")
            ok = False
        else:
            for k in sorted(ns, key=str):
                if not isinstance(ns[k], str):
                    ctx.error(
                        item,
                        f"{path}.nodeSelector[{k}]",
                        f"must be a string, got {show(ns[k])}; quote it",
                    )
                    ok = False
    tols = tpl.get("tolerations")
    if tols is not None:
        if not isinstance(tols, list):
            ctx.error(item, f"{path}.tolerations", "must be a list of tolerations")
            ok = False
        else:
            for i, t in enumerate(tols):
                if not isinstance(t, dict):
                    ctx.error(item, f"{path}.tolerations[{i}]", "must be a toleration (a map with key, operator, value, effect)")
                    ok = False
    return ok
