"""Orchestration: config -> which items -> which transform -> results and the output texts.

Every way of running (KRM stdin, kustomize plugin, files, explain) goes through `process`:

1. load the policy (config);
2. check every item's shape and identity; find runs the input has twice (judged after
   the transforms, by what was generated for them: krm_fn.orchestration.collisions);
3. dispatch each Tekton / Shipwright object to its transform (HANDLERS), reading it with the
   light reader when allowed; an item whose edit the splicing writer is not sure of is read
   again on the round-trip path and transformed again (the one fallback, per item);
4. match generated objects with earlier generated copies in the input;
5. decide every item's output text and the generated objects' texts (all or nothing).
"""
from __future__ import annotations

from krm_fn.core.data import type_name
from krm_fn.core.errors import FieldError
from krm_fn.core.errors import InputError
from krm_fn.core.errors import KrmError
from krm_fn.core.errors import Unsure
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.errors import internal_error_message
from krm_fn.core.errors import short
from krm_fn.core.keys import is_local_config
from krm_fn.core.record import Record
from krm_fn.core.results import Result
from krm_fn.core.results import has_error
from krm_fn.core.results import sorted_results
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.io.items import meta_of
from krm_fn.orchestration import collisions
from krm_fn.orchestration.generated import generated_objects
from krm_fn.orchestration.generated import placeholder_cost
from krm_fn.orchestration.generated import reconcile
from krm_fn.policy import config as config_mod
from krm_fn.policy import validation
from krm_fn.transforms import prerequisite
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Plan
from krm_fn.transforms.context import Refuted as Refuted  # raised by process() (files mode catches it)
from krm_fn.transforms.tekton import handlers
from krm_fn.transforms.tekton import sharedclaims
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

    from krm_fn.transforms.context import Handler


# The transforms of the kinds that few inputs hold are loaded with the first object of their
# kind, here and nowhere else: an input of PipelineRuns imports no Shipwright or Triggers
# code (issue 34: pay only for what the input holds).
def _shipwright_build(item: Item, ctx: Context) -> None:
    from krm_fn.transforms import shipwright

    shipwright.handle_build(item, ctx)


def _shipwright_buildrun(item: Item, ctx: Context) -> None:
    from krm_fn.transforms import shipwright

    shipwright.handle_buildrun(item, ctx)


def _trigger_template(item: Item, ctx: Context) -> None:
    from krm_fn.transforms.tekton import triggers

    triggers.handle_triggertemplate(item, ctx)


# (group, kind) -> transform
HANDLERS: dict[tuple[str, str], Handler] = {
    ("tekton.dev", "PipelineRun"): handlers.handle_pipelinerun,
    ("tekton.dev", "TaskRun"): handlers.handle_taskrun,
    ("shipwright.io", "Build"): _shipwright_build,
    ("shipwright.io", "BuildRun"): _shipwright_buildrun,
    ("triggers.tekton.dev", "TriggerTemplate"): _trigger_template,
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

    __slots__ = ("item_texts", "_generated_texts", "results", "plans", "positions", "generated", "regenerated", "assistant_off", "missed")

    def __init__(
        self,
        item_texts: list[str],
        generated_texts: list[str] | None,
        results: list[Result],
        plans: list[Plan],
        positions: list[int] | None = None,
        generated: list[dict[str, Any]] | None = None,
        regenerated: dict[int, dict[str, Any]] | None = None,
        assistant_off: bool = False,
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
        self.assistant_off = assistant_off  # Context.assistant_off (prerequisite.note)
        self.missed: frozenset[tuple[str, str, str]] = frozenset()  # Context.missed: lookups that found nothing

    @property
    def generated_texts(self) -> list[str]:
        """The generated objects as block YAML documents (emitted once, on first use)."""
        if self._generated_texts is None:
            self._generated_texts = [document.new_block(obj) for obj in self.generated]
        return self._generated_texts

    def generated_entries(self, d: int) -> list[str]:
        """The generated objects as entries of a list's `items` at dash indent `d`, each
        object let go of once written (a large list's objects and texts were all held at
        once, with the texts twice: as documents, then indented)."""
        if self._generated_texts is not None:  # written as documents already: indented, not emitted again
            return [document.as_entry(t, d) for t in self._generated_texts]
        objs, self.generated = self.generated, []
        objs.reverse()
        out = []
        while objs:
            out.append(document.new_entry(objs.pop(), d))
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
    later (ruamel's, ~90 objects a run); light runs leave none (tests/suites/project/test_complexity.py).
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

            if gc.get_count()[0] <= self.FREEZE_ABOVE and document.round_trip_used():
                gc.collect(0)
            gc.freeze()
            gc.enable()


def process(rl: ResourceList, policy_override: Any = None, light: bool = False, speculate: bool = False) -> Outcome:
    """Run the policy over a parsed ResourceList and decide every item's output text.

    `light`: read targets with the light reader where it can (same bytes, faster); any item
    it is not sure of takes the round-trip path. Raises YamlSyntaxError when an item the
    scanner sliced out does not parse alone (the caller then reads the input whole).
    `speculate`: the placeholders' claim templates are read where the writer puts them
    (Context.generated_field); raises Refuted when one was not what the object holds (the
    caller runs again without)."""
    with PausedGC():
        missed: set[tuple[str, str, str]] = set()
        outcome = _process(rl, policy_override, light, missed, speculate)
        outcome.missed = frozenset(missed)
        return outcome


def _process(rl: ResourceList, policy_override: Any, light: bool, missed: set[tuple[str, str, str]], speculate: bool = False) -> Outcome:
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
    ctx.missed = missed
    ctx.speculate = speculate
    ctx.results.extend(cfg_results)
    for sev, where, msg, tags in validation.check_policy(ctx.policy):  # the policy's own values, once per run
        ctx.config_result(sev, where, msg, tags=tags)
    for item in rl.items:
        _check_item(item, ctx)
    if has_error(ctx.results):
        return _unchanged(rl, ctx.results, [])
    twins = collisions.duplicates(rl.items) if ctx.policy.mode != "disabled" else []
    ctx.reindex()  # loading may have corrected identities the scanner was unsure of
    for item in rl.items:
        _dispatch(item, ctx)
    sharedclaims.check(ctx)  # runs whose placeholders mount one existing claim
    # the cluster's Tekton must leave coscheduling to us: judged once the runs are rendered,
    # and only when something rendered is what its own assistant would undo
    prerequisite.check_feature_flags(ctx)
    collisions.judge_duplicates(twins, ctx)
    collisions.check_generated_names(ctx)
    reconcile(rl, ctx, KNOWN_KINDS)
    if has_error(ctx.results):
        ctx.confirm_spotted()
        return _unchanged(rl, ctx.results, ctx.plans)
    outcome = _emit(rl, ctx)  # proves the spotted readings of the placeholders it finds the same
    ctx.confirm_spotted()
    return outcome


# --------------------------------------------------------------------------- checks


def _not_an_object(item: Item, ctx: Context) -> None:
    where, field = ctx.place(item)
    ctx.error_at(item, field, f"{where} is not a mapping; every item must be a Kubernetes object")


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
        where, field = ctx.place(item, item.meta.duplicates[0])
        ctx.error_at(
            item,
            field,
            f"{where} ({item.meta.kind} {item.meta.name}) has {twice} twice; YAML readers "
            "disagree on which one counts (kpt keeps the first), so the object is ambiguous. A "
            "missing `---` between two documents? Separate them, or keep one of the keys",
        )
        return
    if not scanned_kind and not item.meta.kind:
        where, field = ctx.place(item, "kind")
        ctx.error_at(item, field, f"{where} has no kind; every item must be a Kubernetes object with apiVersion and kind")
        return
    if item.meta.kind.endswith("List") and any(k in (item.text or "") for k in _RENDERED_NAMES):
        _check_list(item, ctx)
    if item.doc is not None:
        _check_identity_types(item, ctx)


_RENDERED_NAMES = tuple({kind for _group, kind in HANDLERS})


def _check_list(item: Item, ctx: Context) -> None:
    """A `kind: List` wrapper (or a `PipelineRunList`): kubectl and kpt apply the objects it
    holds, but the function renders top-level objects only. The runs inside it are reported
    (they were passed through unrendered, with no word)."""
    if item.doc is None and not _load(item, ctx, light=ctx.light, named=bool(item.meta.name)):
        return
    node = item.node
    entries = node.get("items") if isinstance(node, dict) else None
    found = []
    for i, e in enumerate(entries if isinstance(entries, list) else []):
        kind, api = (e.get("kind"), e.get("apiVersion")) if isinstance(e, dict) else (None, None)
        if isinstance(kind, str) and isinstance(api, str) and (api.rpartition("/")[0], kind) in HANDLERS:
            md = e.get("metadata")
            found.append(f"items[{i}] {kind} {(md.get('name') if isinstance(md, dict) else None) or '(no name)'}")
    if found:
        ctx.warning(
            item,
            "items",
            f"this {item.meta.kind} wraps {', '.join(found)}, which the function renders only as objects "
            "of their own: they pass through unrendered (no coscheduling). Write each as its own YAML "
            "document (`---` between them), which kubectl and kpt read the same",
        )


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
                ctx.place(item, key)[1],
                f"{ctx.place(item)[0]}: {key} is a {type_name(v)}; it must be a string "
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
            problems.append(("metadata", f"metadata is a {type_name(md)}; it must be a mapping with name and namespace"))
        else:
            for k in ("name", "namespace", "generateName"):
                v = md.get(k)
                if v is not None and not isinstance(v, str):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {type_name(v)}; it must be a string: quote it"))
            for k in ("labels", "annotations"):
                v = md.get(k)
                if v is not None and not isinstance(v, dict):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {type_name(v)}; it must be a mapping of strings"))
        spec = node.get("spec")
        if spec is not None and not isinstance(spec, dict):
            problems.append(("spec", f"spec is a {type_name(spec)}; it must be a mapping"))
    for path, msg in problems:
        if item.meta.name or item.meta.generate_name:
            ctx.error(item, path or None, msg)
        else:  # nothing to name it by but its place in the list
            where, field = ctx.place(item, path)
            ctx.error_at(item, field, f"{where} ({item.meta.kind}): {msg}")
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
    # An object like the last one is likely left as the last one was: after one left
    # unchanged (a re-render, `--check` of a rendered package), the light reader reads the
    # data alone, the positions only should it change (light/dataread); after one changed
    # (a first render), data and positions at once (issue 34)
    if not _load(item, ctx, ctx.light, named=True, positions=not ctx.last_unchanged):
        return
    light = document.is_light(item.doc)
    mark = ctx.mark()
    _transform(handler, item, ctx)
    if light:
        ctx.last_unchanged = not item.changed
    if not light or ctx.last_unchanged:
        item.release()  # unchanged: its text is the output (a lookup reads it again)
        return
    # a light-path edit is written right away; when the splicing writer is not sure of it,
    # what the transform did is undone and the item goes again on the round-trip path
    try:
        item.render(0, once=True)
    except Unsure:
        ctx.rollback(mark)
        item.load_round_trip()
        _transform(handler, item, ctx)
        return
    item.release(just_written=True)  # written: what only another writing needs can go


def _load(item: Item, ctx: Context, light: bool, named: bool, positions: bool = True) -> bool:
    """Parse the item (Item.load); False with an error result when it cannot be read (named by its
    identity, or by its place in the list when the identity is what was unreadable).
    YamlSyntaxError escapes: the caller reads the whole input instead (krm.py)."""
    try:
        item.load(light, positions)
        return True
    except YamlSyntaxError:
        raise
    except InputError as e:
        item.unreadable = True
        if named:
            ctx.error(item, None, str(e))
        else:
            where, field = ctx.place(item)  # loading changes neither the item's place nor its annotations
            ctx.error_at(item, field, f"{where}: {e}")
    except Exception as e:  # noqa: BLE001 - a parser failing in a way it does not report
        item.unreadable = True
        if named:
            ctx.error(item, None, f"cannot be parsed: {short(e)}")
        else:
            where, field = ctx.place(item)
            ctx.error_at(item, field, f"{where} is not valid YAML: {short(e)}")
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
                texts.append(document.new_entry(it.before, 0))
            else:
                texts.append(it.render(0)[0])
    # info results describe changes, and none is written: keep errors and warnings, and say so
    kept = [r for r in results if r.severity != "info"]
    n = sum(1 for r in results if r.severity == "error")
    kept.append(Result("info", f"krm-coschedule: {n} error(s); nothing was changed (all or nothing)"))
    return Outcome(texts, [], sorted_results(kept), plans, positions)


def _emit(rl: ResourceList, ctx: Context) -> Outcome:
    d = rl.items_indent if rl.fast else 0
    regenerated, generated = generated_objects(rl, ctx, d)
    if has_error(ctx.results):
        # a generated object that may not be written (a user's StatefulSet under its name):
        # found only now, and all or nothing still holds (the run's edits were kept)
        return _unchanged(rl, ctx.results, ctx.plans)
    replaced = {pos: document.new_entry(obj, d) for pos, obj in regenerated.items()}
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
    return Outcome(texts, None, sorted_results(ctx.results), ctx.plans, positions, generated, regenerated, ctx.assistant_off)


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
