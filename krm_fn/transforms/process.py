"""Orchestration: config -> which items -> which transform -> results and the output texts.

Every way of running (KRM stdin, kustomize plugin, files, explain) goes through `process`:

1. load the policy (config);
2. check every item's shape and identity; find runs the input has twice (judged after
   the transforms, by what was generated for them: krm_fn.transforms.identity);
3. dispatch each Tekton / Shipwright object to its transform (HANDLERS), reading it with the
   light reader when allowed; an item whose edit the splicing writer is not sure of is read
   again on the round-trip path and transformed again (the one fallback, per item);
4. match generated objects with earlier generated copies in the input;
5. decide every item's output text and the generated objects' texts (all or nothing).
"""
from __future__ import annotations

import re

from krm_fn.core.errors import FieldError
from krm_fn.core.errors import InputError
from krm_fn.core.errors import KrmError
from krm_fn.core.errors import Unsure
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.errors import internal_error_message
from krm_fn.core.errors import short
from krm_fn.core.keys import INDEX_ANNOTATIONS
from krm_fn.core.keys import INDEX_KEY
from krm_fn.core.keys import LEGACY_INDEX_KEY
from krm_fn.core.keys import LEGACY_PATH_KEY
from krm_fn.core.keys import LOCATION_KEYS
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.keys import PATH_ANNOTATIONS
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.keys import is_local_config
from krm_fn.core.record import Record
from krm_fn.core.results import Result
from krm_fn.core.results import has_error
from krm_fn.core.results import sorted_results
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.io.items import meta_of
from krm_fn.policy import config as config_mod
from krm_fn.transforms import identity
from krm_fn.transforms import prerequisite
from krm_fn.transforms import scheduling
from krm_fn.transforms import shipwright
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Generated
from krm_fn.transforms.context import Handler
from krm_fn.transforms.context import Plan
from krm_fn.transforms.context import file_of
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.transforms.tekton import tekton
from krm_fn.transforms.tekton import triggers
from krm_fn.yaml import guards
from krm_fn.yaml import yamlio
from krm_fn.yaml import yamltext
from krm_fn.yaml.document import LightDocument

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


# (group, kind) -> transform
HANDLERS: dict[tuple[str, str], Handler] = {
    ("tekton.dev", "PipelineRun"): tekton.handle_pipelinerun,
    ("tekton.dev", "TaskRun"): tekton.handle_taskrun,
    ("shipwright.io", "Build"): shipwright.handle_build,
    ("shipwright.io", "BuildRun"): shipwright.handle_buildrun,
    ("triggers.tekton.dev", "TriggerTemplate"): triggers.handle_triggertemplate,
}
VERSIONS = {"tekton.dev": {"v1", "v1beta1"}, "shipwright.io": {"v1beta1"}, "triggers.tekton.dev": {"v1alpha1", "v1beta1"}}
KNOWN_KINDS = frozenset(HANDLERS)

# SHIP-0039 added the scheduling fields to v1beta1 only; the v1beta1 -> v1alpha1 conversion
# never touches them, so a round trip through v1alpha1 drops them silently.
_SHIPWRIGHT_V1ALPHA1 = (
    "; shipwright.io/v1alpha1 has no nodeSelector, tolerations or schedulerName fields (and "
    "converting to v1alpha1 drops them), so no scheduling policy can apply: write it as "
    "shipwright.io/v1beta1"
)


class Outcome(Record):
    """What process() decided: every item's output text (the ResourceList writer's), and the
    generated objects as data (the stream writer's: it places them by their path)."""

    __slots__ = ("item_texts", "_generated_texts", "results", "plans", "positions", "generated", "regenerated")

    def __init__(
        self,
        item_texts: list[str],
        generated_texts: list[str] | None,
        results: list[Result],
        plans: list[Plan],
        positions: list[int] | None = None,
        generated: list[dict[str, Any]] | None = None,
        regenerated: dict[int, dict[str, Any]] | None = None,
    ) -> None:
        self.item_texts = item_texts
        # None: written when asked for (the ResourceList writer asks; files mode places the
        # objects in their files itself, so it never pays for these texts)
        self._generated_texts = generated_texts
        self.results = results
        self.plans = plans
        # rl.items position of each entry of item_texts (a stale generated item has none)
        self.positions: list[int] = [] if positions is None else positions
        # the objects of generated_texts, and the earlier generated items replaced (by position)
        self.generated: list[dict[str, Any]] = [] if generated is None else generated
        self.regenerated: dict[int, dict[str, Any]] = {} if regenerated is None else regenerated

    @property
    def generated_texts(self) -> list[str]:
        """The generated objects as block YAML documents (emitted once, on first use)."""
        if self._generated_texts is None:
            self._generated_texts = [yamlio.dump_block(obj) for obj in self.generated]
        return self._generated_texts

    def generated_entries(self, d: int) -> list[str]:
        """The generated objects as entries of a list's `items` at dash indent `d`, each
        object let go of once written (a large list's objects and texts were all held at
        once, with the texts twice: as documents, then indented)."""
        if self._generated_texts is not None:
            return [yamltext.indent_entry(t, d) for t in self._generated_texts]
        objs, self.generated = self.generated, []
        objs.reverse()
        out = []
        while objs:
            out.append(yamlio.dump_entry(objs.pop(), d))
        return out

    @property
    def exit_code(self) -> int:
        return 1 if has_error(self.results) else 0


class PausedGC:
    """`with PausedGC():` the cyclic garbage collector does not run inside (it is restored
    after, as it was). A run builds hundreds of thousands of dicts and lists and frees almost
    none of them before it ends; the collector walked them all again and again (a third of
    the CPU time of a 1,500-file re-render), and found few cycles to free: the objects are
    trees, freed by reference counting. Nests (only the outermost one turns it back on).

    At the end, the cycles among what the run made are collected (one collection of the
    youngest generation, where all of it is: the round-trip loader makes some), unless the
    run left more than FREEZE_ABOVE objects, or the round-trip loader was never used (a
    light run makes no cycle: the collection walked 150,000 objects of a 1,500-run render to
    free none); then everything is moved out of the collector's
    sight (gc.freeze): later collections, and the one at interpreter exit, would walk it all
    again (0.2-0.3 s after 1,500 files; 2.5 ms of a one-PipelineRun start). A program that
    calls runs in a loop keeps, frozen, the cycles that its round-trip runs leave behind
    later (ruamel's, ~90 objects a run); light runs leave none (tests/test_complexity.py).
    """

    __slots__ = ("was",)
    FREEZE_ABOVE = 200_000

    def __enter__(self) -> None:
        import gc

        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            import gc

            if gc.get_count()[0] <= self.FREEZE_ABOVE and yamlio.round_trip_used():
                gc.collect(0)
            gc.freeze()
            gc.enable()


def process(rl: ResourceList, policy_override: Any = None, light: bool = False) -> Outcome:
    """Run the policy over a parsed ResourceList and decide every item's output text.

    `light`: read targets with the light reader where it can (same bytes, faster); any item
    it is not sure of takes the round-trip path. Raises YamlSyntaxError when an item the
    scanner sliced out does not parse alone (the caller then reads the input whole)."""
    with PausedGC():
        return _process(rl, policy_override, light)


def _process(rl: ResourceList, policy_override: Any, light: bool) -> Outcome:
    fc = rl.function_config if policy_override is None else policy_override
    if _is_placeholder(fc):
        fc = None
    policy, cfg_results = config_mod.load(fc)
    if policy is None:
        return _unchanged(rl, cfg_results, [])
    if any(isinstance(r, dict) and r.get("severity") == "error" for r in rl.results):
        # an earlier function of the pipeline failed: its error stands, and all or nothing
        return _unchanged(rl, [Result("error", "krm-coschedule: the input already carries an error result from an earlier function; nothing was changed: fix that first")], [])
    ctx = Context(policy, rl.items, light)
    ctx.results.extend(cfg_results)
    scheduling.validate_policy(ctx)  # the policy's own scheduling values, checked once per run
    prerequisite.check_feature_flags(ctx)  # the cluster's Tekton must leave coscheduling to us
    for item in rl.items:
        _check_item(item, ctx)
    if has_error(ctx.results):
        return _unchanged(rl, ctx.results, [])
    twins = identity.duplicates(rl.items, ctx) if ctx.policy.mode != "disabled" else []
    ctx.reindex()  # loading may have corrected identities the scanner was unsure of
    for item in rl.items:
        _dispatch(item, ctx)
    identity.judge_duplicates(twins, ctx)
    identity.check_generated_names(ctx)
    _reconcile_generated(rl, ctx)
    if has_error(ctx.results):
        return _unchanged(rl, ctx.results, ctx.plans)
    return _emit(rl, ctx)


# --------------------------------------------------------------------------- checks


def _not_an_object(item: Item, ctx: Context) -> None:
    ctx.error_at(item, f"items[{item.pos}]", f"items[{item.pos}] is not a mapping; every item must be a Kubernetes object")


def _check_item(item: Item, ctx: Context) -> None:
    """Every item must be a mapping with a kind; an identity the scanner was unsure of is read
    by parsing the item now."""
    if not item.meta.is_mapping:
        _not_an_object(item, ctx)
        return
    scanned_kind = item.meta.kind
    if item.complex_meta and item.doc is None:
        if not _load(item, ctx, light=False, named=False):
            return
        item.meta = meta_of(item.node)
        if not item.meta.is_mapping:
            _not_an_object(item, ctx)
            return
    if item.meta.duplicates and item.doc is None:
        # the round-trip loader names the duplicate key and both lines
        if not _load(item, ctx, light=False, named=bool(item.meta.name or item.meta.generate_name)):
            return
        twice = ", ".join(item.meta.duplicates)
        ctx.error_at(
            item,
            f"items[{item.pos}].{item.meta.duplicates[0]}",
            f"items[{item.pos}] ({item.meta.kind} {item.meta.name}) has {twice} twice; YAML readers "
            "disagree on which one counts (kpt keeps the first), so the object is ambiguous. A "
            "missing `---` between two documents? Separate them, or keep one of the keys",
        )
        return
    if not scanned_kind and not item.meta.kind:
        ctx.error_at(item, f"items[{item.pos}].kind", f"items[{item.pos}] has no kind; every item must be a Kubernetes object with apiVersion and kind")
        return
    if item.doc is not None:
        _check_identity_types(item, ctx)


def _check_identity_types(item: Item, ctx: Context) -> None:
    """An item read by the full loader: apiVersion and kind must not be collections (the
    scanner hands `kind: [a]` over as unsure; a number reads as a string on both paths)."""
    node = item.node
    if not isinstance(node, dict):
        return
    for key in ("apiVersion", "kind"):
        v = node.get(key)
        if isinstance(v, (dict, list)):
            ctx.error_at(
                item,
                f"items[{item.pos}].{key}",
                f"items[{item.pos}]: {key} is a {guards.type_name(v)}; it must be a string "
                "such as `apiVersion: tekton.dev/v1`, `kind: PipelineRun`",
            )


def _skipped(item: Item) -> bool:
    m = item.meta
    if m.kind == "Kptfile" and m.group == "kpt.dev":
        return True
    return is_local_config(m.annotations)


def _check_object(item: Item, ctx: Context) -> bool:
    """Shapes every transform relies on, checked once here: metadata a mapping with string
    name/namespace/generateName, spec a mapping. False (with an error) when broken."""
    node = item.node
    problems: list[tuple[str, str]] = []
    if not isinstance(node, dict):
        problems.append(("", "the object is not a mapping"))
    else:
        md = node.get("metadata")
        if not isinstance(md, dict):
            problems.append(("metadata", f"metadata is a {guards.type_name(md)}; it must be a mapping with name and namespace"))
        else:
            for k in ("name", "namespace", "generateName"):
                v = md.get(k)
                if v is not None and not isinstance(v, str):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {guards.type_name(v)}; it must be a string: quote it"))
            for k in ("labels", "annotations"):
                v = md.get(k)
                if v is not None and not isinstance(v, dict):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {guards.type_name(v)}; it must be a mapping of strings"))
        spec = node.get("spec")
        if spec is not None and not isinstance(spec, dict):
            problems.append(("spec", f"spec is a {guards.type_name(spec)}; it must be a mapping"))
    for path, msg in problems:
        if item.meta.name or item.meta.generate_name:
            ctx.error(item, path or None, msg)
        else:  # nothing to name it by but its place in the list
            where = f"items[{item.pos}]" + (f".{path}" if path else "")
            ctx.error_at(item, where, f"items[{item.pos}] ({item.meta.kind}): {msg}")
    return not problems


def _is_placeholder(fc: Any) -> bool:
    """kpt fn eval without arguments sends an empty ConfigMap named function-input."""
    if not isinstance(fc, dict) or fc.get("kind") != "ConfigMap":
        return False
    md = fc.get("metadata") or {}
    return isinstance(md, dict) and md.get("name") == "function-input" and not fc.get("data")


# --------------------------------------------------------------------------- transforms


def _dispatch(item: Item, ctx: Context) -> None:
    """Hand one item to its transform, if it has one."""
    m = item.meta
    key = (m.group, m.kind)
    handler = HANDLERS.get(key)
    if handler is None or _skipped(item):
        return
    if m.version not in VERSIONS[m.group]:
        ctx.warning(
            item,
            "apiVersion",
            f"{m.api_version} is not supported for {m.kind}; supported: "
            + ", ".join(f"{m.group}/{v}" for v in sorted(VERSIONS[m.group]))
            + ". The object is left unchanged"
            + (_SHIPWRIGHT_V1ALPHA1 if key[0] == "shipwright.io" and m.version == "v1alpha1" else ""),
        )
        return
    if not _load(item, ctx, ctx.light, named=True):
        return
    light = isinstance(item.doc, LightDocument)
    mark = ctx.mark()
    _transform(handler, item, ctx)
    if not light or not item.changed:
        item.release()  # unchanged: its text is the output (a lookup reads it again)
        return
    # a light-path edit is written right away; when the splicing writer is not sure of it,
    # what the transform did is undone and the item goes again on the round-trip path
    try:
        item.render(0)
    except Unsure:
        ctx.rollback(mark)
        item.load_round_trip()
        _transform(handler, item, ctx)
        return
    item.release(just_written=True)  # written: what only another writing needs can go


def _load(item: Item, ctx: Context, light: bool, named: bool) -> bool:
    """Parse the item; False with an error result when it cannot be read (named by its
    identity, or by its place in the list when the identity is what was unreadable).
    YamlSyntaxError escapes: the caller reads the whole input instead (krm.py)."""
    where = f"items[{item.pos}]"
    try:
        item.load(light)
        return True
    except YamlSyntaxError:
        raise
    except InputError as e:
        item.unreadable = True
        if named:
            ctx.error(item, None, str(e))
        else:
            ctx.error_at(item, where, f"{where}: {e}")
    except Exception as e:  # noqa: BLE001 - a parser failing in a way it does not report
        item.unreadable = True
        if named:
            ctx.error(item, None, f"cannot be parsed: {short(e)}")
        else:
            ctx.error_at(item, where, f"{where} is not valid YAML: {short(e)}")
    return False


def _transform(handler: Handler, item: Item, ctx: Context) -> None:
    """Check the object's shape, then run its transform. Whatever the transform raises
    becomes an error result naming the object, so a bug in one handler never costs the user
    their list (all items leave unchanged, exit 1)."""
    if not _check_object(item, ctx):
        return
    try:
        handler(item, ctx)
    except YamlSyntaxError:
        raise
    except KrmError as e:  # e.g. a referenced item that cannot be read, a field's type
        ctx.error(item, e.path if isinstance(e, FieldError) else None, str(e))
    except Exception as e:  # noqa: BLE001 - any bug, RecursionError and MemoryError included
        ctx.error(item, None, internal_error_message(e))


# --------------------------------------------------------------------------- generated objects


def _reconcile_generated(rl: ResourceList, ctx: Context) -> None:
    """Match generated objects with earlier generated copies in the input."""
    owners = {(g.owner.meta.kind, g.owner.meta.namespace, g.owner.meta.name) for g in ctx.generated}
    wanted = {g.key for g in ctx.generated}
    present_owners = {
        (it.meta.kind, it.meta.namespace, it.meta.name)
        for it in rl.items
        if (it.meta.group, it.meta.kind) in KNOWN_KINDS
    }
    for it in rl.items:
        owner = it.meta.annotations.get(OWNER_ANNOTATION)
        if not owner or it.lookup_only:
            continue  # files mode: what is said of, or done to, a context file's object is dropped
        okind, _, oname = owner.partition("/")
        key = (it.meta.api_version, it.meta.kind, it.meta.namespace, it.meta.name)
        okey = (okind, it.meta.namespace, oname)
        if key in wanted:
            continue
        if okey not in present_owners:
            ctx.warning(
                it,
                f"metadata.annotations.{OWNER_ANNOTATION}",
                f"generated for {okind} {oname}, which is not in the input; left as it is "
                "(delete it if the run is gone)",
            )
        elif okey in owners or okey in present_owners:
            ctx.stale.add(it.pos)
            held = _claim_template_names(ctx.find(it.meta.group, it.meta.kind, it.meta.namespace, it.meta.name))
            if not held:
                ctx.info(
                    it,
                    None,
                    f"removed: {okind} {oname} no longer needs this assistant under coschedule "
                    f"mode {ctx.policy.mode}",
                )
                continue
            ctx.warning(
                it,
                "spec.volumeClaimTemplates",
                f"removed: {okind} {oname} no longer needs this assistant under coschedule mode "
                f"{ctx.policy.mode}, but it holds claim template(s) {', '.join(held)}: when it is "
                "pruned, its claims are deleted with it (persistentVolumeClaimRetentionPolicy; the run "
                "no longer binds them). If their data matters, copy it first "
                "or keep this StatefulSet out of the prune",
            )


def _claim_template_names(it: Item | None) -> list[str]:
    spec = it.node.get("spec") if it is not None and isinstance(it.node, dict) else None
    vcts = spec.get("volumeClaimTemplates") if isinstance(spec, dict) else None
    out = []
    for t in vcts if isinstance(vcts, list) else []:
        md = t.get("metadata") if isinstance(t, dict) else None
        if isinstance(md, dict) and isinstance(md.get("name"), str):
            out.append(md["name"])
    return out


# --------------------------------------------------------------------------- output


def _unchanged(rl: ResourceList, results: list[Result], plans: list[Plan]) -> Outcome:
    """All or nothing: on any error every item leaves as it came."""
    if rl.fast:
        texts = [it.text for it in rl.items if it.text is not None]
        positions = [it.pos for it in rl.items if it.text is not None]
    else:
        positions = [it.pos for it in rl.items]
        # the fallback mutated trees in place: write what was read
        texts = []
        for it in rl.items:
            if it.before is not None:
                texts.append(yamltext.indent_entry(yamlio.dump_block(it.before), 0))
            else:
                texts.append(it.render(0)[0])
    # info results describe changes, and none is written: keep errors and warnings, and say so
    kept = [r for r in results if r.severity != "info"]
    n = sum(1 for r in results if r.severity == "error")
    kept.append(Result("info", f"krm-coschedule: {n} error(s); nothing was changed (all or nothing)"))
    return Outcome(texts, [], sorted_results(kept), plans, positions)


def _emit(rl: ResourceList, ctx: Context) -> Outcome:
    d = rl.items_indent if rl.fast else 0
    regenerated, generated = _generated_objects(rl, ctx, d)
    if has_error(ctx.results):
        # a generated object that may not be written (a user's StatefulSet under its name):
        # found only now, and all or nothing still holds (the run's edits were kept)
        return _unchanged(rl, ctx.results, ctx.plans)
    replaced = {pos: yamltext.indent_entry(yamlio.dump_block(obj), d) for pos, obj in regenerated.items()}
    texts: list[str] = []
    positions: list[int] = []
    for it in rl.items:
        if it.pos in ctx.stale:
            continue
        positions.append(it.pos)
        if it.pos in replaced:
            texts.append(replaced[it.pos])
            continue
        text, faithful = it.render(d)
        texts.append(text)
        if not faithful:
            ctx.warning(
                it,
                None,
                "the comment-preserving YAML writer could not write this object without changing "
                "its data, so it was written as plain block YAML: its comments and quoting are "
                "lost (the data is exact); please report the object's layout",
            )
    changed = sum(1 for it in rl.items if it.changed)
    ctx.results.append(
        Result(
            "info",
            f"krm-coschedule: {changed} object(s) changed, {len(generated)} generated, "
            f"{len(replaced)} regenerated (coschedule mode {ctx.policy.mode})" + placeholder_cost(ctx.plans),
        )
    )
    return Outcome(texts, None, sorted_results(ctx.results), ctx.plans, positions, generated, regenerated)


def _generated_objects(
    rl: ResourceList, ctx: Context, d: int = 0
) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]]]:
    """Every generated object, placed: ({position of the earlier copy it replaces: object},
    [new objects, with their file]). An earlier copy equal to it stays as it is (`d`: the
    dash indent of the list's entries)."""
    by_key: dict[tuple[str, str, str, str], Item] = {}
    next_index: dict[str, int] = {}
    for it in rl.items:
        if OWNER_ANNOTATION in it.meta.annotations:
            by_key[(it.meta.api_version, it.meta.kind, it.meta.namespace, it.meta.name)] = it
        path, idx = file_of(it)
        if path is not None:
            next_index[path] = max(next_index.get(path, 0), (idx or 0) + 1)
    replaced: dict[int, dict[str, Any]] = {}
    appended: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str, str]] = set()
    unsafe_warned: set[int] = set()
    for g in ctx.generated:
        if g.key in seen:
            continue
        seen.add(g.key)
        existing = by_key.get(g.key)
        ann = g.obj["metadata"].setdefault("annotations", {})
        if not _ours_to_write(g, existing, ctx):
            continue
        if existing is not None:
            if _same_as_existing(g.obj, ann, existing, ctx.light, d):
                continue
            replaced[existing.pos] = g.obj
            continue
        _locate(g.obj, ann, g.owner, ctx, next_index, None if rl.own_paths else unsafe_warned)
        appended.append(g.obj)
        ctx.info(
            g.owner,
            None,
            f"generated {g.obj['kind']} {g.obj['metadata']['name']}; it is not owned by the run (the UID "
            "is unknown at render time): it goes away when the run's manifest leaves Git, or "
            f"with `kubectl delete statefulset -l tekton.dev/{_label_kind(g.owner)}={g.owner.meta.name}`",
        )
    return replaced, appended


def _ours_to_write(g: Generated, existing: Item | None, ctx: Context) -> bool:
    """An object of the input under the generated name that is not this run's own earlier
    copy (a user's object, or one generated for another run) is never overwritten: an error
    naming both. False after reporting."""
    _api, kind, ns, name = g.key
    other = existing or ctx.find(meta_of(g.obj).group, kind, ns, name)
    owner = other.meta.annotations.get(OWNER_ANNOTATION) if other is not None else None
    want = g.obj["metadata"]["annotations"][OWNER_ANNOTATION]
    if other is None or owner == want:
        return True
    ctx.error(
        g.owner,
        None,
        f"needs its assistant {kind} {ns + '/' if ns else ''}{name}, but the input already has a "
        + (f"{kind} of that name generated for {owner}" if owner else f"{kind} of that name that is not generated by krm-coschedule (no {OWNER_ANNOTATION} annotation)")
        + ": the function does not overwrite it. Rename or remove that object (the name is "
        "Tekton's formula, affinity-assistant- + a hash of the workspace binding name and the run "
        "name, joined with no separator), or rename this run or its workspace binding",
    )
    return False


_TOOL_PREFIXES = ("internal.", "config.k8s.io/", "kustomize.config.k8s.io/")


def _same_as_existing(obj: dict[str, Any], ann: dict[str, str], existing: Item, light: bool, d: int = 0) -> bool:
    """Give a regenerated object the earlier copy's location and tool annotations; True when
    it then equals that copy."""
    for k in (*PATH_ANNOTATIONS, *INDEX_ANNOTATIONS):
        if k in existing.meta.annotations:
            ann[k] = existing.meta.annotations[k]
    if light and existing.doc is None and existing.text is not None and _same_text(obj, ann, existing, d):
        return True
    existing.load(light)
    assert existing.doc is not None
    node = existing.doc.as_plain()
    old_ann = (node.get("metadata") or {}).get("annotations") or {}
    for k, v in old_ann.items():
        if str(k).startswith(("internal.", "config.k8s.io/", "kustomize.config.k8s.io/")) and k not in ann:
            ann[str(k)] = str(v)
    # the location annotations are the list's business: in files mode the item's are set in
    # memory only (the file's text has none), so they never make an equal object differ
    return bool(_without_location(node) == _without_location(obj))


def _same_text(obj: dict[str, Any], ann: dict[str, str], existing: Item, d: int) -> bool:
    """Whether the earlier copy's text is exactly what the regenerated object writes, with the
    copy's tool annotations, in the copy's order (its location annotations too, where its
    text has them: in a ResourceList). Equal text is equal data, and the copy is not read at
    all: a re-render regenerates every assistant of every run, and reading each one cost as
    much as reading its run. Any difference (a comment, kpt's quoting, an edit) is decided by
    comparing the data (_same_as_existing)."""
    have = existing.meta.annotations
    merged = dict(ann)
    for k, v in have.items():
        if k not in merged and k.startswith(_TOOL_PREFIXES):
            merged[k] = v
    order = [k for k in have if not (existing.document and k in LOCATION_KEYS)]
    want = {k for k in merged if not (existing.document and k in LOCATION_KEYS)}
    if len(order) != len(want) or not want.issuperset(order):
        return False
    md = obj["metadata"]
    placed = {**obj, "metadata": {**md, "annotations": {k: merged[k] for k in order}}}
    text = yamlio.dump_block(placed) if existing.document else yamlio.dump_entry(placed, d)
    if text == existing.text:
        existing.was_read = True  # the emitter's own text: YAML, no syntax check needed
    elif existing.document or not _same_but_annotations(text, existing, merged, order, d):
        return False
    ann.update(merged)
    return True


def _same_but_annotations(text: str, existing: Item, merged: dict[str, str], order: list[str], d: int) -> bool:
    """In a ResourceList from kpt, whose annotations kpt writes in its own quoting
    (`config.kubernetes.io/index: '1'`): the texts are the same but for the lines of
    `metadata.annotations`, and those hold the same data (the item's annotations as the scanner
    read them, which is exactly what a reader sees: an annotation it is unsure of has the
    item read whole)."""
    old = existing.text
    assert old is not None
    a, b = _annotations_lines(text, d), _annotations_lines(old, d)
    if a is None or b is None or text[: a[0]] != old[: b[0]] or text[a[1] :] != old[b[1] :]:
        return False
    return existing.meta.annotations == {k: merged[k] for k in order}


def _annotations_lines(text: str, d: int) -> tuple[int, int] | None:
    """(start, end) offsets of the lines of `metadata.annotations` in an entry whose dash sits
    at `d` (block style: each key alone on its line, the entries on the lines below); None when
    not found so."""
    c = d + 2
    if text.startswith(" " * d + "- metadata:\n"):
        body = text.index("\n")
    else:
        md = text.find("\n" + " " * c + "metadata:\n")
        if md < 0:
            return None
        body = md + 1 + c + len("metadata:")  # the newline that ends the metadata line
    after = re.compile(f"\n {{0,{c}}}[^ \n]").search(text, body)  # the line after metadata's
    md_end = after.start() if after else len(text)
    key = "\n" + " " * (c + 2) + "annotations:\n"
    start = text.find(key, body, md_end + 1)
    if start < 0:
        return None
    end = re.compile(f"\n {{0,{c + 2}}}[^ \n]").search(text, start + len(key) - 1)
    return start + 1, (end.start() + 1 if end else len(text))


def _without_location(obj: Any) -> Any:
    md = obj.get("metadata") if isinstance(obj, dict) else None
    ann = md.get("annotations") if isinstance(md, dict) else None
    if not isinstance(md, dict) or not isinstance(ann, dict):
        return obj
    kept = {k: v for k, v in ann.items() if k not in LOCATION_KEYS}
    return {**obj, "metadata": {**md, "annotations": kept}}


def _locate(
    obj: dict[str, Any], ann: dict[str, str], owner: Item, ctx: Context, next_index: dict[str, int], warned: set[int] | None
) -> None:
    """A new generated object goes into its run's file, after the file's last item. Under
    kpt (`warned` is a set) a path outside the package is not followed; the files this run
    was given (None) are followed however they are spelled."""
    opath, _ = file_of(owner)
    if opath is not None and warned is not None and not _safe_path(opath):
        if id(owner) not in warned:
            warned.add(id(owner))
            key = next(k for k in PATH_ANNOTATIONS if k in owner.meta.annotations)
            ctx.warning(
                owner,
                f"metadata.annotations.{key}",
                f"path annotation {opath!r} is "
                + ("absolute" if _is_absolute(opath) else "outside the package (`..`)")
                + "; the objects generated for this run get no path, so kpt picks one "
                "inside the package. Give the run a relative path within the package",
            )
        return
    if opath is None:
        return
    n = next_index.get(opath, 0)
    next_index[opath] = n + 1
    ann[PATH_KEY] = opath
    ann[INDEX_KEY] = str(n)
    if LEGACY_PATH_KEY in owner.meta.annotations:
        ann[LEGACY_PATH_KEY] = opath
        ann[LEGACY_INDEX_KEY] = str(n)


def _is_absolute(path: str) -> bool:
    drive = len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "/\\"
    return path.startswith(("/", "\\")) or drive


def _safe_path(path: str) -> bool:
    """A path kpt may write a generated item to: relative, never climbing out with `..`
    (kpt refuses `../x.yaml`; an absolute path would write outside the package)."""
    if not path or _is_absolute(path):
        return False
    return ".." not in path.replace("\\", "/").split("/")


def _label_kind(item: Item) -> str:
    return "pipelineRun" if item.meta.kind == "PipelineRun" else "taskRun"


def placeholder_cost(plans: list[Plan]) -> str:
    """What the placeholders of these plans hold, and for how long (issue 12: the cost of
    placeholders, shown), as the tail of the summary; "" when there is none."""
    held = [a for p in plans if p.strategy == "placeholder" for a in p.assistants]
    if not held:
        return ""
    n = len(held)
    made = sum(len(a.get("claims") or []) for a in held)
    mounted = sum(len(a.get("volumes") or []) for a in held)
    cpu, mem = (int(assistant_mod.RESOURCES[k].rstrip("mMi")) for k in ("cpu", "memory"))
    return (
        f"; {n} placeholder pod(s) request {n * cpu}m CPU and {n * mem}Mi memory in all and hold "
        f"{made} claim(s) they create and {mounted} existing one(s), on their nodes, until their "
        "runs' manifests leave Git (finished runs too)"
    )


def unchanged(rl: ResourceList, results: list[Result]) -> Outcome:
    """An outcome that leaves every item as it came, with these results (an error found
    after process(), such as an untouched item too deep to check)."""
    return _unchanged(rl, results, [])


def process_guarded(rl: ResourceList, light: bool = False) -> Outcome:
    """process(), with a bug outside the handlers turned into an error result (the items
    leave unchanged). YamlSyntaxError still escapes: the caller reads the input whole."""
    try:
        return process(rl, light=light)
    except YamlSyntaxError:
        raise
    except Exception as e:  # noqa: BLE001 - a bug outside the handlers: keep the items
        return _unchanged(rl, [Result("error", internal_error_message(e))], [])
