"""Orchestration: config -> which items -> which transform -> results and exit code.

Every way of running (KRM stdin, kustomize plugin, files, explain) goes through `process`.
"""
from __future__ import annotations

from collections.abc import Callable

from krm_fn import config as config_mod
from krm_fn import lite
from krm_fn import rtedit
from krm_fn import rlist
from krm_fn import yamlio
from krm_fn.record import Record
from krm_fn.results import ResourceRef
from krm_fn.results import Result
from krm_fn.results import has_error
from krm_fn.results import sorted_results

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

OWNER_ANNOTATION = "krm-coschedule.dev/owner"
PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_ANNOTATIONS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
LOCAL_CONFIG = "config.kubernetes.io/local-config"


class Generated(Record):
    """An object a transform wants in the output (a placeholder StatefulSet)."""

    __slots__ = ("owner", "obj")

    def __init__(self, owner: rlist.Item, obj: dict[str, Any]) -> None:
        self.owner = owner
        self.obj = obj  # plain data, metadata.annotations includes the owner marker

    @property
    def key(self) -> tuple[str, str, str, str]:
        md = self.obj["metadata"]
        return (self.obj["apiVersion"], self.obj["kind"], md.get("namespace", ""), md["name"])


class Plan(Record):
    """What the coscheduling transform decided for one run (read by `explain`)."""

    __slots__ = ("run", "mode", "assistants")

    def __init__(self, run: ResourceRef, mode: str, assistants: list[dict[str, Any]]) -> None:
        self.run = run
        self.mode = mode
        # {name, tasks: [..], claims: [{template, claim, bindings}], volumes: [...]}
        self.assistants = assistants


class Context:
    """What a transform sees: the policy, the other items, and where results go."""

    def __init__(self, policy: config_mod.Policy, items: list[rlist.Item]) -> None:
        self.policy = policy
        self.items = items
        self.results: list[Result] = []
        self.generated: list[Generated] = []
        self.plans: list[Plan] = []
        self.stale: set[int] = set()  # positions of generated items no run wants any more
        self._index: dict[tuple[str, str, str, str], rlist.Item] = {}
        for it in items:
            m = it.meta
            self._index.setdefault((m.group, m.kind, m.namespace, m.name), it)

    # ---- lookups
    def find(self, group: str, kind: str, namespace: str, name: str) -> rlist.Item | None:
        """An input item by group/kind/namespace/name (loaded for reading)."""
        it = self._index.get((group, kind, namespace, name))
        if it is not None and it.node is None and it.text is not None:
            it.load()
        return it

    def existing_generated(self, kind: str, namespace: str, name: str) -> Any:
        """A previously generated object of ours in the input (round-trip tree), or None."""
        it = self.find("apps" if kind == "StatefulSet" else "", kind, namespace, name)
        if it is None or OWNER_ANNOTATION not in it.meta.annotations:
            return None
        return it.node

    # ---- results
    def ref(self, item: rlist.Item) -> ResourceRef:
        m = item.meta
        return ResourceRef(m.api_version, m.kind, m.name or m.generate_name, m.namespace or None)

    def file_of(self, item: rlist.Item) -> tuple[str | None, int | None]:
        ann = item.meta.annotations
        path = next((ann[k] for k in PATH_ANNOTATIONS if k in ann), None)
        idx = next((ann[k] for k in INDEX_ANNOTATIONS if k in ann), None)
        try:
            return path, int(idx) if idx is not None else (0 if path else None)
        except ValueError:
            return path, 0

    def add(
        self,
        severity: str,
        item: rlist.Item | None,
        field_path: str | None,
        message: str,
        tags: dict[str, str] | None = None,
        current: Any = None,
        proposed: Any = None,
    ) -> None:
        """Record a result. Messages start with `kind namespace/name` of the object."""
        ref = self.ref(item) if item is not None else None
        path, idx = self.file_of(item) if item is not None else (None, None)
        self._append(severity, ref, path, idx, field_path, message, tags, current, proposed)

    def _append(
        self,
        severity: str,
        ref: ResourceRef | None,
        path: str | None,
        idx: int | None,
        field_path: str | None,
        message: str,
        tags: dict[str, str] | None = None,
        current: Any = None,
        proposed: Any = None,
    ) -> None:
        text = f"{ref.display()}: {message}" if ref is not None else message
        self.results.append(
            Result(
                severity,
                text,
                resource=ref,
                field_path=field_path,
                file_path=path,
                file_index=idx,
                tags=tuple(sorted((tags or {}).items())),
                current_value=current,
                proposed_value=proposed,
            )
        )

    def error(self, item: rlist.Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("error", item, field_path, message, **kw)

    def warning(self, item: rlist.Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("warning", item, field_path, message, **kw)

    def info(self, item: rlist.Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("info", item, field_path, message, **kw)

    def config_result(self, severity: str, field_path: str, message: str, tags: dict[str, str] | None = None) -> None:
        """A result that points at the functionConfig."""
        p = self.policy
        self._append(severity, p.ref, p.file_path, p.file_index, field_path, message, tags)

    def generate(self, owner: rlist.Item, obj: dict[str, Any]) -> None:
        self.generated.append(Generated(owner, obj))


Handler = Callable[[rlist.Item, Context], None]


def _handlers() -> tuple[dict[tuple[str, str], Handler], dict[str, set[str]]]:
    # imported here so a run that never meets a Tekton or Shipwright object skips them
    from krm_fn import shipwright
    from krm_fn import tekton

    table: dict[tuple[str, str], Handler] = {
        ("tekton.dev", "PipelineRun"): tekton.handle_pipelinerun,
        ("tekton.dev", "TaskRun"): tekton.handle_taskrun,
        ("shipwright.io", "Build"): shipwright.handle_build,
        ("shipwright.io", "BuildRun"): shipwright.handle_buildrun,
    }
    versions = {"tekton.dev": {"v1", "v1beta1"}, "shipwright.io": {"v1beta1"}}
    return table, versions


KNOWN_KINDS = {("tekton.dev", "PipelineRun"), ("tekton.dev", "TaskRun"), ("shipwright.io", "Build"), ("shipwright.io", "BuildRun")}


# SHIP-0039 added the scheduling fields to v1beta1 only; the v1beta1 -> v1alpha1 conversion
# never touches them, so a round trip through v1alpha1 drops them silently.
_SHIPWRIGHT_V1ALPHA1 = (
    "; shipwright.io/v1alpha1 has no nodeSelector, tolerations or schedulerName fields (and "
    "converting to v1alpha1 drops them), so no scheduling policy can apply: write it as "
    "shipwright.io/v1beta1"
)


def _check_duplicates(frame: rlist.Frame, ctx: Context) -> None:
    """Two runs (or builds) of one kind with one namespace and name: the objects generated
    for them would have the same names too, so one run would silently lose its assistant."""
    first: dict[tuple[str, str, str, str], rlist.Item] = {}
    for item in frame.items:
        m = item.meta
        if (m.group, m.kind) not in KNOWN_KINDS or not m.name or _skipped(item):
            continue
        key = (m.group, m.kind, m.namespace, m.name)
        other = first.setdefault(key, item)
        if other is item:
            continue
        path, _ = ctx.file_of(other)
        where = f"items[{other.pos}]" + (f" in {path}" if path else "")
        ctx.error(
            item,
            "metadata.name",
            f"the input has this {m.kind} twice (also {where}); Kubernetes keeps one object per "
            "name, and the objects generated for both would collide: give each its own name or "
            "namespace, or render them separately (one run of the function per environment)",
        )


def _skipped(item: rlist.Item) -> bool:
    m = item.meta
    if m.kind == "Kptfile" and m.group == "kpt.dev":
        return True
    return str(m.annotations.get(LOCAL_CONFIG, "")).lower() == "true"


class Outcome(Record):
    __slots__ = ("item_texts", "generated_texts", "results", "plans", "positions")

    def __init__(
        self,
        item_texts: list[str],
        generated_texts: list[str],
        results: list[Result],
        plans: list[Plan],
        positions: list[int] | None = None,
    ) -> None:
        self.item_texts = item_texts
        self.generated_texts = generated_texts
        self.results = results
        self.plans = plans
        # frame.items position of each entry of item_texts (a stale generated item has none)
        self.positions: list[int] = [] if positions is None else positions

    @property
    def exit_code(self) -> int:
        return 1 if has_error(self.results) else 0


def process(frame: rlist.Frame, policy_override: Any = None) -> Outcome:
    """Run the policy over a parsed ResourceList and decide every item's output text."""
    fc = frame.function_config if policy_override is None else policy_override
    if _is_placeholder(fc):
        fc = None
    policy, cfg_results = config_mod.load(fc)
    if policy is None:
        return _unchanged(frame, cfg_results, [])
    ctx = Context(policy, frame.items)
    rtedit.PENDING.clear()
    ctx.results.extend(cfg_results)
    from krm_fn import scheduling  # the policy's own scheduling values, checked once per run

    scheduling.validate_policy(ctx)
    table: dict[tuple[str, str], Handler] | None = None
    versions: dict[str, set[str]] = {}
    for item in frame.items:
        m = item.meta
        if not m.is_mapping:
            ctx.error(None, f"items[{item.pos}]", f"items[{item.pos}] is not a mapping; every item must be a Kubernetes object")
            continue
        if item.complex_meta and item.node is None:
            try:
                item.load()
            except rlist.YamlSyntaxError:
                raise
            except rlist.InputError as e:
                ctx.error(None, f"items[{item.pos}]", f"items[{item.pos}]: {e}")
                continue
            except Exception as e:  # noqa: BLE001 - parser errors
                ctx.error(None, f"items[{item.pos}]", f"items[{item.pos}] is not valid YAML: {_short(e)}")
                continue
            item.meta = rlist.meta_of(item.node)
            if not item.meta.is_mapping:
                ctx.error(None, f"items[{item.pos}]", f"items[{item.pos}] is not a mapping; every item must be a Kubernetes object")
                continue
        if not m.kind and item.meta.is_mapping and not item.meta.kind:
            ctx.error(None, f"items[{item.pos}].kind", f"items[{item.pos}] has no kind; every item must be a Kubernetes object with apiVersion and kind")
            continue
        if item.node is not None:
            _check_identity_types(item, ctx)
    _check_duplicates(frame, ctx)
    if has_error(ctx.results):
        return _unchanged(frame, ctx.results, [])
    ctx._index = {}
    for it in frame.items:
        mm = it.meta
        ctx._index.setdefault((mm.group, mm.kind, mm.namespace, mm.name), it)
    for item in frame.items:
        m = item.meta
        key = (m.group, m.kind)
        if key not in KNOWN_KINDS or _skipped(item):
            continue
        if table is None:
            table, versions = _handlers()
        if m.version not in versions[m.group]:
            ctx.warning(
                item,
                "apiVersion",
                f"{m.api_version} is not supported for {m.kind}; supported: "
                + ", ".join(f"{m.group}/{v}" for v in sorted(versions[m.group]))
                + ". The object is left unchanged"
                + (_SHIPWRIGHT_V1ALPHA1 if key[0] == "shipwright.io" and m.version == "v1alpha1" else ""),
            )
            continue
        try:
            item.load()
        except rlist.YamlSyntaxError:
            raise
        except rlist.InputError as e:
            ctx.error(item, None, str(e))
            continue
        except Exception as e:  # noqa: BLE001
            ctx.error(item, None, f"cannot be parsed: {_short(e)}")
            continue
        if item.lite is None:
            _transform(table[key], item, ctx)
            continue
        # a light-path item takes plain dicts and lists. Its edit is written right away: when
        # the splicing writer is unsure of it, what the transform did is undone and the item
        # goes again on the round-trip path (transforms only append to ctx)
        marks = (len(ctx.results), len(ctx.generated), len(ctx.plans))
        yamlio.LITE = True
        try:
            _transform(table[key], item, ctx)
        finally:
            yamlio.LITE = False
        if item.changed and not rlist.prerender_light(item):
            del ctx.results[marks[0] :]
            del ctx.generated[marks[1] :]
            del ctx.plans[marks[2] :]
            item.reload_round_trip()
            _transform(table[key], item, ctx)
    _reconcile_generated(frame, ctx)
    results = ctx.results
    if has_error(results):
        return _unchanged(frame, results, ctx.plans)
    return _emit(frame, ctx)


def _short(e: Exception) -> str:
    return " ".join(str(e).split())[:400]


INTERNAL_HINT = "this is a bug in krm-coschedule: please report it with the input that caused it"


def internal_error_message(e: Exception) -> str:
    return f"internal error ({type(e).__name__}: {_short(e)}); {INTERNAL_HINT}"


def _transform(handler: Handler, item: rlist.Item, ctx: Context) -> None:
    """Check the object's shape, then run its transform."""
    if _check_object(item, ctx):
        _guarded(handler, item, ctx)


def _guarded(handler: Handler, item: rlist.Item, ctx: Context) -> None:
    """Run one transform; whatever it raises becomes an error result naming the object, so a
    bug in one handler never costs the user their list (all items leave unchanged, exit 1)."""
    try:
        handler(item, ctx)
    except rlist.YamlSyntaxError:
        raise
    except rlist.InputError as e:  # e.g. a referenced item that cannot be read
        ctx.error(item, None, str(e))
    except Exception as e:  # noqa: BLE001 - any bug, RecursionError and MemoryError included
        ctx.error(item, None, internal_error_message(e))


def _check_identity_types(item: rlist.Item, ctx: Context) -> None:
    """An item read by the full loader: apiVersion and kind must not be collections (the
    scanner hands `kind: [a]` over as unsure; a number reads as a string on both paths)."""
    node = item.node
    if not isinstance(node, dict):
        return
    for key in ("apiVersion", "kind"):
        v = node.get(key)
        if isinstance(v, (dict, list)):
            ctx.error(
                None,
                f"items[{item.pos}].{key}",
                f"items[{item.pos}]: {key} is a {rlist.type_name(v)}; it must be a string "
                "such as `apiVersion: tekton.dev/v1`, `kind: PipelineRun`",
            )


def _check_object(item: rlist.Item, ctx: Context) -> bool:
    """Shapes every transform relies on, checked once here: metadata a mapping with string
    name/namespace/generateName, spec a mapping. False (with an error) when broken."""
    node = item.node
    problems: list[tuple[str, str]] = []
    if not isinstance(node, dict):
        problems.append(("", "the object is not a mapping"))
    else:
        md = node.get("metadata")
        if not isinstance(md, dict):
            problems.append(("metadata", f"metadata is a {rlist.type_name(md)}; it must be a mapping with name and namespace"))
        else:
            for k in ("name", "namespace", "generateName"):
                v = md.get(k)
                if v is not None and not isinstance(v, str):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {rlist.type_name(v)}; it must be a string: quote it"))
            for k in ("labels", "annotations"):
                v = md.get(k)
                if v is not None and not isinstance(v, dict):
                    problems.append((f"metadata.{k}", f"metadata.{k} is a {rlist.type_name(v)}; it must be a mapping of strings"))
        spec = node.get("spec")
        if spec is not None and not isinstance(spec, dict):
            problems.append(("spec", f"spec is a {rlist.type_name(spec)}; it must be a mapping"))
    for path, msg in problems:
        if item.meta.name or item.meta.generate_name:
            ctx.error(item, path or None, msg)
        else:  # nothing to name it by but its place in the list
            where = f"items[{item.pos}]" + (f".{path}" if path else "")
            ctx.error(None, where, f"items[{item.pos}] ({item.meta.kind}): {msg}")
    return not problems


def _is_placeholder(fc: Any) -> bool:
    """kpt fn eval without arguments sends an empty ConfigMap named function-input."""
    if not isinstance(fc, dict) or fc.get("kind") != "ConfigMap":
        return False
    md = fc.get("metadata") or {}
    return isinstance(md, dict) and md.get("name") == "function-input" and not fc.get("data")


def _unchanged(frame: rlist.Frame, results: list[Result], plans: list[Plan]) -> Outcome:
    """All or nothing: on any error every item leaves as it came."""
    if frame.fast:
        texts = [it.text for it in frame.items if it.text is not None]
        positions = [it.pos for it in frame.items if it.text is not None]
    else:
        positions = [it.pos for it in frame.items]
        # the fallback mutated trees in place: re-read them from the document
        texts = []
        for it in frame.items:
            if it.before is not None:
                texts.append(rlist.indent_entry(yamlio.dump_block(it.before), 0))
            else:
                texts.append(rlist.render_full_item(it))
    # info results describe changes, and none is written: keep errors and warnings, and say so
    kept = [r for r in results if r.severity != "info"]
    n = sum(1 for r in results if r.severity == "error")
    kept.append(Result("info", f"krm-coschedule: {n} error(s); nothing was changed (all or nothing)"))
    return Outcome(texts, [], sorted_results(kept), plans, positions)


def _reconcile_generated(frame: rlist.Frame, ctx: Context) -> None:
    """Match generated objects with earlier generated copies in the input."""
    owners = {(g.owner.meta.kind, g.owner.meta.namespace, g.owner.meta.name) for g in ctx.generated}
    wanted = {g.key for g in ctx.generated}
    present_owners = {
        (it.meta.kind, it.meta.namespace, it.meta.name)
        for it in frame.items
        if (it.meta.group, it.meta.kind) in KNOWN_KINDS
    }
    for it in frame.items:
        owner = it.meta.annotations.get(OWNER_ANNOTATION)
        if not owner:
            continue
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
            ctx.info(
                it,
                None,
                f"removed: {okind} {oname} no longer needs this assistant under coschedule "
                f"mode {ctx.policy.mode}",
            )


def _emit(frame: rlist.Frame, ctx: Context) -> Outcome:
    rtedit.flush()
    by_key: dict[tuple[str, str, str, str], rlist.Item] = {}
    for it in frame.items:
        if OWNER_ANNOTATION in it.meta.annotations:
            by_key[(it.meta.api_version, it.meta.kind, it.meta.namespace, it.meta.name)] = it
    replaced: dict[int, str] = {}
    appended: list[str] = []
    next_index: dict[str, int] = {}
    for it in frame.items:
        path, idx = ctx.file_of(it)
        if path is not None:
            next_index[path] = max(next_index.get(path, 0), (idx or 0) + 1)
    seen: set[tuple[str, str, str, str]] = set()
    unsafe_warned: set[int] = set()
    for g in ctx.generated:
        if g.key in seen:
            continue
        seen.add(g.key)
        existing = by_key.get(g.key)
        ann = g.obj["metadata"].setdefault("annotations", {})
        if existing is not None:
            for k in (*PATH_ANNOTATIONS, *INDEX_ANNOTATIONS):
                if k in existing.meta.annotations:
                    ann[k] = existing.meta.annotations[k]
            node = existing.load()
            old_ann = (node.get("metadata") or {}).get("annotations") or {}
            for k, v in old_ann.items():
                if str(k).startswith(("internal.", "config.k8s.io/", "kustomize.config.k8s.io/")) and k not in ann:
                    ann[str(k)] = str(v)
            if yamlio.to_plain(node) == g.obj:
                continue
            replaced[existing.pos] = _entry(g.obj, frame)
            continue
        opath, _ = ctx.file_of(g.owner)
        if opath is not None and not _safe_path(opath):
            if id(g.owner) not in unsafe_warned:
                unsafe_warned.add(id(g.owner))
                key = next(k for k in PATH_ANNOTATIONS if k in g.owner.meta.annotations)
                ctx.warning(
                    g.owner,
                    f"metadata.annotations.{key}",
                    f"path annotation {opath!r} is "
                    + ("absolute" if _is_absolute(opath) else "outside the package (`..`)")
                    + "; the objects generated for this run get no path, so kpt picks one "
                    "inside the package. Give the run a relative path within the package",
                )
            opath = None
        if opath is not None:
            n = next_index.get(opath, 0)
            next_index[opath] = n + 1
            ann["internal.config.kubernetes.io/path"] = opath
            ann["internal.config.kubernetes.io/index"] = str(n)
            if any(k in g.owner.meta.annotations for k in ("config.kubernetes.io/path",)):
                ann["config.kubernetes.io/path"] = opath
                ann["config.kubernetes.io/index"] = str(n)
        appended.append(yamlio.dump_block(g.obj))
        kind = g.obj["kind"]
        ctx.info(
            g.owner,
            None,
            f"generated {kind} {g.obj['metadata']['name']}; it is not owned by the run (the UID "
            "is unknown at render time): it goes away when the run's manifest leaves Git, or "
            f"with `kubectl delete statefulset -l tekton.dev/{_label_kind(g.owner)}={g.owner.meta.name}`",
        )
    texts: list[str] = []
    positions: list[int] = []
    for it in frame.items:
        if it.pos in ctx.stale:
            continue
        positions.append(it.pos)
        if it.pos in replaced:
            texts.append(replaced[it.pos])
            continue
        if frame.fast:
            text, faithful = rlist.render_item_verified(it, frame.items_indent)  # or lite.Bail
        else:
            text, faithful = rlist.render_full_item_verified(it)
        texts.append(text)
        if not faithful:
            ctx.warning(
                it,
                None,
                "the comment-preserving YAML writer could not write this object without changing "
                "its data, so it was written as plain block YAML: its comments and quoting are "
                "lost (the data is exact); please report the object's layout",
            )
    changed = sum(1 for it in frame.items if it.changed)
    ctx.results.append(
        Result(
            "info",
            f"krm-coschedule: {changed} object(s) changed, {len(appended)} generated, "
            f"{len(replaced)} regenerated (coschedule mode {ctx.policy.mode})",
        )
    )
    return Outcome(texts, appended, sorted_results(ctx.results), ctx.plans, positions)


def _is_absolute(path: str) -> bool:
    drive = len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "/\\"
    return path.startswith(("/", "\\")) or drive


def _safe_path(path: str) -> bool:
    """A path kpt may write a generated item to: relative, never climbing out with `..`
    (kpt refuses `../x.yaml`; an absolute path would write outside the package)."""
    if not path or _is_absolute(path):
        return False
    return ".." not in path.replace("\\", "/").split("/")


def _label_kind(item: rlist.Item) -> str:
    return "pipelineRun" if item.meta.kind == "PipelineRun" else "taskRun"


def _entry(obj: dict[str, Any], frame: rlist.Frame) -> str:
    return rlist.indent_entry(yamlio.dump_block(obj), frame.items_indent if frame.fast else 0)


def run_resource_list(data: bytes) -> tuple[str, Outcome | None, int]:
    """KRM mode: bytes of one ResourceList in, (output text, outcome, exit code) out."""
    try:
        text = rlist.decode(data)
        frame = rlist.parse(text)
    except rlist.InputError as e:
        return error_list(str(e)), None, 1
    try:
        frame, outcome = run_frame(text, frame)
        rlist.check_untouched(frame)
        if frame.fast and _doubtful_split(outcome):
            try:
                whole = rlist.parse_whole(text)
            except rlist.InputError:
                whole = None
            if whole is not None and len(whole.items) != len(frame.items):
                frame, outcome = whole, _process_guarded(whole)
    except rlist.YamlSyntaxError:
        # an item the scanner sliced out does not parse alone. Either the input is not YAML
        # (say where, in the input's own line numbers), or the item leans on the rest of the
        # document (an alias to an anchor in another item): then read the input whole.
        try:
            frame = rlist.parse_whole(text)
        except rlist.InputError as whole:
            return error_list(str(whole)), None, 1
        outcome = _process_guarded(frame)
    out = rlist.render(frame, outcome.item_texts, outcome.generated_texts, [r.as_dict() for r in outcome.results])
    return out, outcome, outcome.exit_code


def _doubtful_split(outcome: Outcome) -> bool:
    """An item that is not a mapping or has no kind, on the fast path: either the input
    really has one, or a quoted string ran on over a line that looked like a new item (its
    continuation in the dash's column). Only reading the input whole tells; when it is real,
    the whole reading reports the same error."""
    return any(
        r.severity == "error" and r.resource is None and (r.field_path or "").startswith("items[")
        for r in outcome.results
    )


LIGHT_ENV = "KRM_COSCHEDULE_LIGHT"  # "0": always take the round-trip path (tests compare both)


def light_allowed() -> bool:
    import os

    return os.environ.get(LIGHT_ENV) != "0"


def process_light(frame: rlist.Frame) -> Outcome:
    """process() with the light path on: items in plain block form are read and rewritten
    without the round-trip loader (krm_fn.lite). An edit the splicing writer refuses is
    redone on the round-trip path inside process(); lite.Bail escapes only if a written
    edit changed afterwards, and then the caller reads its input again and calls process(),
    so the output is always the round-trip path's."""
    if not light_allowed():
        return process(frame)
    rlist.LIGHT = True
    try:
        return process(frame)
    finally:
        rlist.LIGHT = False


def run_frame(text: str, frame: rlist.Frame) -> tuple[rlist.Frame, Outcome]:
    """KRM mode's process(): the light path first (a fast-path frame), else or on lite.Bail
    the round-trip path over the input read again."""
    if frame.fast:
        try:
            return frame, _process_guarded(frame, process_light)
        except lite.Bail:
            frame = rlist.parse(text)
    return frame, _process_guarded(frame)


def _process_guarded(frame: rlist.Frame, run: Callable[[rlist.Frame], Outcome] = process) -> Outcome:
    try:
        return run(frame)
    except rlist.YamlSyntaxError:
        raise
    except Exception as e:  # noqa: BLE001 - a bug outside the handlers: keep the items
        return _unchanged(frame, [Result("error", internal_error_message(e))], [])


def error_list(message: str) -> str:
    """A complete ResourceList that carries one error result (unreadable input)."""
    res = [Result("error", message).as_dict()]
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n" + yamlio.dump_block(res)
