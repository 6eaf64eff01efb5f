"""The generated objects of a run of the function: placeholders already in the input are
reconciled with the runs that own them (kept, regenerated with the claim templates they hold,
or left with a warning when their run is gone), and each generated object is placed (its
file, from its run's) and written only when it differs from the copy already there.
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.keys import INDEX_ANNOTATIONS
from krm_fn.core.keys import INDEX_KEY
from krm_fn.core.keys import LEGACY_INDEX_KEY
from krm_fn.core.keys import LEGACY_PATH_KEY
from krm_fn.core.keys import LOCATION_KEYS
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.keys import PATH_ANNOTATIONS
from krm_fn.core.keys import PATH_KEY
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.io.items import meta_of
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Generated
from krm_fn.transforms.context import Plan
from krm_fn.transforms.context import file_of
from krm_fn.transforms.tekton import assistant as assistant_mod
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def reconcile(rl: ResourceList, ctx: Context, known_kinds: frozenset[tuple[str, str]]) -> None:
    """Match generated objects with earlier generated copies in the input (`known_kinds`:
    the (group, kind) of every object the function handles: a run among them owns its copies)."""
    owners = {(g.owner.meta.kind, g.owner.meta.namespace, g.owner.meta.name) for g in ctx.generated}
    wanted = {g.key for g in ctx.generated}
    present_owners = {
        (it.meta.kind, it.meta.namespace, it.meta.name)
        for it in rl.items
        if (it.meta.group, it.meta.kind) in known_kinds
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


def generated_objects(
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
            if _same_as_existing(g.obj, ann, existing, ctx.light, d, ctx.proven):
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


def _same_as_existing(
    obj: dict[str, Any], ann: dict[str, str], existing: Item, light: bool, d: int = 0, proven: set[int] | None = None
) -> bool:
    """Give a regenerated object the earlier copy's location and tool annotations; True when
    it then equals that copy. `proven`: gets the copy's position when its text is exactly
    what the object writes (Context.proven)."""
    for k in (*PATH_ANNOTATIONS, *INDEX_ANNOTATIONS):
        if k in existing.meta.annotations:
            ann[k] = existing.meta.annotations[k]
    if light and existing.doc is None and existing.text is not None and _same_text(obj, ann, existing, d, proven):
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


def _same_text(obj: dict[str, Any], ann: dict[str, str], existing: Item, d: int, proven: set[int] | None = None) -> bool:
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
    text = document.new_block(placed) if existing.document else document.new_entry(placed, d)
    if text == existing.text:
        existing.was_read = True  # the emitter's own text: YAML, no syntax check needed
        if proven is not None:
            proven.add(existing.pos)  # and every field read off it is the object's (peek.spot)
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
    after = patterns.compile(f"\n {{0,{c}}}[^ \n]").search(text, body)  # the line after metadata's
    md_end = after.start() if after else len(text)
    key = "\n" + " " * (c + 2) + "annotations:\n"
    start = text.find(key, body, md_end + 1)
    if start < 0:
        return None
    end = patterns.compile(f"\n {{0,{c + 2}}}[^ \n]").search(text, start + len(key) - 1)
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
    if any(p.resources for p in plans if p.strategy == "placeholder"):
        from krm_fn.policy import resources  # decimal: only set resources pay

        each = [resources.requests(p.resources) for p in plans if p.strategy == "placeholder" for _a in p.assistants]
        asked = resources.cost(each)
    else:
        cpu, mem = (int(assistant_mod.RESOURCES[k].rstrip("mMi")) for k in ("cpu", "memory"))
        asked = f"{n * cpu}m CPU and {n * mem}Mi memory"
    return (
        f"; {n} placeholder pod(s) request {asked} in all and hold "
        f"{made} claim(s) they create and {mounted} existing one(s), on their nodes, until their "
        "runs' manifests leave Git (finished runs too)"
    )
