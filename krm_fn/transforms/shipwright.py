"""Shipwright Build / BuildRun scheduling policy and validation (SHIP-0039). SPEC §5.

The Shipwright controller checks nodeSelector, tolerations and schedulerName only after the
object is stored, and reports failures in status (there is no validating webhook, and the CRD
accepts anything of the right type). Here the same checks run at render time, with the
controller's reasons (as `tags.reason`) and message wording.
"""
from __future__ import annotations

from _collections_abc import Mapping
from _collections_abc import MutableMapping

from krm_fn.core.data import type_name
from krm_fn.io.items import Item
from krm_fn.policy import hardening
from krm_fn.policy import validation as v
from krm_fn.transforms import scheduling
from krm_fn.transforms.context import Context
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

GROUP = "shipwright.io"


def handle_build(item: Item, ctx: Context) -> None:
    """Validate and apply the scheduling policy to one Build."""
    spec = _map(item.node, "spec")
    if spec is None:
        return
    platforms = _platforms(spec)
    # the Build controller runs the Output validator (platform keys) before NodeSelector
    _own_platform_conflicts(ctx, item, spec, "spec", platforms)
    bad = _validate(ctx, item, spec, "spec")
    scheduling.report_hardening(
        ctx, item, "spec", spec.get("nodeSelector"), spec.get("tolerations"), bad
    )
    changes = scheduling.apply_policy(
        ctx, item, spec, "spec", scheduling.SHIPWRIGHT, platform_keys_blocked=bool(platforms)
    )
    scheduling.report_changes(ctx, item, "spec", changes)


def handle_buildrun(item: Item, ctx: Context) -> None:
    """Validate and apply the scheduling policy to one BuildRun."""
    spec = _map(item.node, "spec")
    if spec is None:
        return
    build = spec.get("build")
    if build is not None and not isinstance(build, dict):
        ctx.error(item, "spec.build", f"spec.build is a {type_name(build)}; it must be a mapping with name or spec")
        return
    build = build if isinstance(build, dict) else {}
    has_name = build.get("name") is not None
    embedded = build.get("spec")
    if embedded is not None and not isinstance(embedded, dict):
        ctx.error(
            item, "spec.build.spec",
            f"spec.build.spec is a {type_name(embedded)}; it must be a Build spec (a mapping with "
            "source, strategy and output), or use spec.build.name to reference a Build",
        )
        return
    if has_name and not isinstance(build.get("name"), str):
        ctx.error(item, "spec.build.name", f"spec.build.name is a {type_name(build.get('name'))}; it must be the name of a Build: quote it")
        return
    has_spec = embedded is not None
    # the BuildRun controller's field checks, in its order
    if not has_name and not has_spec:
        ctx.error(
            item,
            "spec.build",
            "no build referenced or specified, either 'buildRef' or 'buildSpec' has to be set "
            "(set spec.build.name or spec.build.spec)",
            tags={"reason": "BuildRunNoRefOrSpec"},
        )
    elif has_name and has_spec:
        ctx.error(
            item,
            "spec.build",
            "fields 'buildRef' and 'buildSpec' are mutually exclusive (keep spec.build.name or "
            "spec.build.spec)",
            tags={"reason": "BuildRunAmbiguousBuild"},
        )
    if has_spec:
        _override_forbidden(ctx, item, spec)
    if isinstance(embedded, dict):
        _buildrun_embedded(item, ctx, spec, embedded)
    else:
        _buildrun_referenced(item, ctx, spec, build)


def _buildrun_embedded(
    item: Item, ctx: Context, spec: MutableMapping[str, Any], embedded: MutableMapping[str, Any]
) -> None:
    """spec.build.spec: validated as a transient Build (failures make the BuildRun fail with
    BuildRegistrationFailed); the policy goes inside it, never at the top level (that would be
    BuildRunBuildFieldOverrideForbidden)."""
    path = "spec.build.spec"
    bad = _validate(ctx, item, embedded, path, embedded=True)
    # top-level values are already BuildRunBuildFieldOverrideForbidden (the controller stops
    # there); the effective values are the embedded spec's, output.platforms included
    platforms = _platforms(embedded)
    _own_platform_conflicts(ctx, item, embedded, path, platforms)
    scheduling.report_hardening(
        ctx, item, path, embedded.get("nodeSelector"), embedded.get("tolerations"), bad
    )
    changes = scheduling.apply_policy(
        ctx, item, embedded, path, scheduling.SHIPWRIGHT, platform_keys_blocked=bool(platforms)
    )
    scheduling.report_changes(ctx, item, path, changes)


def _buildrun_referenced(
    item: Item, ctx: Context, spec: MutableMapping[str, Any], build: Mapping[str, Any]
) -> None:
    bad = _validate(ctx, item, spec, "spec")
    inherited, build_spec = _inherited(item, ctx, build)
    # platform conflict on the effective values: the selector merged (BuildRun wins) and the
    # BuildRun's platforms, else the Build's (SHIP-0043, build#2127)
    own_platforms = _platforms(spec)
    build_platforms = _platforms(build_spec) if build_spec is not None else []
    platforms = own_platforms or build_platforms
    own_ns = _get_map(spec, "nodeSelector")
    inh_ns = inherited.node_selector if inherited is not None else {}
    if platforms:
        for k in v.PLATFORM_KEYS:
            if k in own_ns:
                extra = ""
                if not own_platforms and inherited is not None:
                    extra = f" (the effective spec.output.platforms come from {inherited.source})"
                _platform_error(ctx, item, f"spec.nodeSelector[{k}]", k, extra)
            elif k in inh_ns and own_platforms and inherited is not None:
                # the Build's selector meets the BuildRun's platforms; when both come from the
                # Build, the Build itself is invalid and reports it
                _platform_error(
                    ctx,
                    item,
                    "spec.output.platforms",
                    k,
                    f" (the effective nodeSelector inherits {k} from {inherited.source})",
                )
    scheduling.report_hardening(
        ctx, item, "spec", spec.get("nodeSelector"), spec.get("tolerations"), bad
    )
    if inherited is not None:
        _inherited_hardening(ctx, item, spec, inherited)
    changes = scheduling.apply_policy(
        ctx,
        item,
        spec,
        "spec",
        scheduling.SHIPWRIGHT,
        inherited=inherited,
        platform_keys_blocked=bool(platforms),
    )
    scheduling.report_changes(ctx, item, "spec", changes)


def _inherited(
    item: Item, ctx: Context, build: Mapping[str, Any]
) -> tuple[scheduling.Inherited | None, Mapping[str, Any] | None]:
    """The referenced Build's values as written, when the Build is in the input."""
    name = build.get("name")
    if not isinstance(name, str) or not name:
        return None, None
    bitem = ctx.find(GROUP, "Build", item.meta.namespace, name)
    if bitem is None:
        return None, None
    plain = bitem.before if bitem.before is not None else document.plain(bitem.node)
    bspec = plain.get("spec") if isinstance(plain, dict) else None
    if not isinstance(bspec, dict):
        return None, None
    ns = bspec.get("nodeSelector")
    tols = bspec.get("tolerations")
    src = f"Build {item.meta.namespace}/{name}" if item.meta.namespace else f"Build {name}"
    return (
        scheduling.Inherited(
            node_selector=ns if isinstance(ns, dict) else {},
            tolerations=list(tols) if isinstance(tols, list) else [],
            scheduler_name=bspec.get("schedulerName"),
            source=src,
            runtime_class_name=bspec.get("runtimeClassName"),
        ),
        bspec,
    )


def effective_values(build_spec: Mapping[str, Any] | None, run_spec: Mapping[str, Any]) -> dict[str, Any]:
    """What Shipwright puts into the TaskRun's pod template for a BuildRun of a named Build
    (resources/resource_builders.go; SHIP-0039 reference §4): nodeSelector is the union with
    the BuildRun winning per key; tolerations are the BuildRun's verbatim and in order, then
    each Build toleration whose key is not present yet (so a repeated Build key keeps its first
    occurrence), with empty effects set to NoSchedule; schedulerName is the BuildRun's, else
    the Build's. Empty results are left out, as the controller omits them."""
    b = build_spec or {}
    ns: dict[str, Any] = {**_get_map(b, "nodeSelector"), **_get_map(run_spec, "nodeSelector")}
    tols: list[dict[str, Any]] = [dict(t) for t in _get_list(run_spec, "tolerations") if isinstance(t, dict)]
    keys = {scheduling.tol_key(t) for t in tols}
    for t in _get_list(b, "tolerations"):
        if isinstance(t, dict) and scheduling.tol_key(t) not in keys:
            keys.add(scheduling.tol_key(t))
            tols.append(dict(t))
    for t in tols:
        if not t.get("effect"):
            t["effect"] = "NoSchedule"
    out: dict[str, Any] = {}
    if ns:
        out["nodeSelector"] = ns
    if tols:
        out["tolerations"] = tols
    sched = run_spec.get("schedulerName")
    if sched is None:
        sched = b.get("schedulerName")
    if sched is not None:
        out["schedulerName"] = sched
    runtime = run_spec.get("runtimeClassName")
    if runtime is None:
        runtime = b.get("runtimeClassName")
    if runtime is not None:
        out["runtimeClassName"] = runtime
    return out


def _inherited_hardening(
    ctx: Context, item: Item, spec: Mapping[str, Any], inherited: scheduling.Inherited
) -> None:
    """Hardening on the effective values: what the Build contributes to this BuildRun's pod
    (Build tolerations whose key the BuildRun does not set, first per key; Build selector keys
    the BuildRun does not override). Reported on the BuildRun at spec.build.name, naming the
    Build's field; the Build reports its own values too."""
    p = ctx.policy
    sev = hardening.severity(p.hardening)
    if sev is None:
        return
    seen = {scheduling.tol_key(t) for t in _get_list(spec, "tolerations") if isinstance(t, dict)}
    own_ns = _get_map(spec, "nodeSelector")
    found: list[tuple[str, str, str]] = []
    for i, t in enumerate(inherited.tolerations):
        if not isinstance(t, dict) or scheduling.tol_key(t) in seen:
            continue
        seen.add(scheduling.tol_key(t))
        if v.toleration_problem(t) is not None:
            continue  # the Build's own TolerationNotValid
        f = hardening.toleration_finding(t, p.hardening_allow_toleration_keys)
        if f is not None:
            found.append((f[0], f"spec.tolerations[{i}]", f[1]))
    for k in sorted(inherited.node_selector):
        if k in own_ns:
            continue
        f = hardening.node_selector_finding(k, p.hardening_allow_node_selector_keys)
        if f is not None:
            found.append((f[0], f"spec.nodeSelector[{k}]", f[1]))
    for rule, where, message in found:
        ctx.add(
            sev,
            item,
            "spec.build.name",
            f"inherits {where} of {inherited.source}, which {message} ({hardening.advice(rule)})",
            tags={"hardening": rule},
        )


# --------------------------------------------------------------------------- validation


def _validate(
    ctx: Context, item: Item, holder: Mapping[str, Any], path: str, embedded: bool = False
) -> frozenset[int]:
    """The controller's NodeSelector, Tolerations and SchedulerName validators on one set of
    values. Returns the indexes of invalid tolerations (kept out of the hardening report)."""

    def err(field: str, message: str, reason: str) -> None:
        tags = {"reason": reason}
        if embedded:
            tags["buildRunReason"] = v.BUILD_REGISTRATION_FAILED
            message += (
                f" (in spec.build.spec the BuildRun fails with reason {v.BUILD_REGISTRATION_FAILED} "
                "and this message)"
            )
        ctx.error(item, field, message, tags=tags)

    for k, msg in v.node_selector_problems(holder.get("nodeSelector")):
        err(f"{path}.nodeSelector" + (f"[{k}]" if k is not None else ""), msg, v.NODE_SELECTOR_NOT_VALID)
    bad: set[int] = set()
    tols = holder.get("tolerations")
    if tols is not None and not isinstance(tols, list):
        err(f"{path}.tolerations", "Tolerations not valid: must be a list of tolerations", v.TOLERATION_NOT_VALID)
    elif tols:
        for i, t in enumerate(tols):
            prob = v.toleration_problem(t)
            if prob is not None:
                bad.add(i)
                sub, msg = prob
                err(f"{path}.tolerations[{i}]" + (f".{sub}" if sub else ""), v.with_value(t, sub, msg), v.TOLERATION_NOT_VALID)
    if "schedulerName" in holder:
        msg_s = v.scheduler_name_problem(holder.get("schedulerName"))
        if msg_s is not None:
            err(f"{path}.schedulerName", msg_s, v.SCHEDULER_NAME_NOT_VALID)
    if "runtimeClassName" in holder:
        msg_r = v.runtime_class_name_problem(holder.get("runtimeClassName"))
        if msg_r is not None:
            err(f"{path}.runtimeClassName", msg_r, v.RUNTIME_CLASS_NAME_NOT_VALID)
    return frozenset(bad)


def _override_forbidden(ctx: Context, item: Item, spec: Mapping[str, Any]) -> None:
    """With spec.build.spec, top-level scheduling overrides are forbidden: a non-empty map or
    list, or any schedulerName including "" (a non-nil pointer)."""
    ns, tols = spec.get("nodeSelector"), spec.get("tolerations")
    present = {
        "nodeSelector": bool(ns) if isinstance(ns, (dict, list)) else ns is not None,
        "tolerations": bool(tols) if isinstance(tols, (dict, list)) else tols is not None,
        "schedulerName": spec.get("schedulerName") is not None,
        "runtimeClassName": spec.get("runtimeClassName") is not None,
    }
    for field in scheduling.FIELDS:
        if present[field]:
            ctx.error(
                item,
                f"spec.{field}",
                v.override_forbidden_message(field) + f"; move it into spec.build.spec.{field}",
                tags={"reason": v.OVERRIDE_FORBIDDEN},
            )


def _own_platform_conflicts(
    ctx: Context, item: Item, spec: Mapping[str, Any], path: str, platforms: list[Any]
) -> None:
    """NodeSelectorPlatformConflict on a spec's own values: os/arch keys with platforms set."""
    ns = spec.get("nodeSelector")
    if not platforms or not isinstance(ns, dict):
        return
    for k in v.PLATFORM_KEYS:
        if k in ns:
            _platform_error(ctx, item, f"{path}.nodeSelector[{k}]", k)


def _platform_error(ctx: Context, item: Item, path: str, key: str, extra: str = "") -> None:
    ctx.error(
        item,
        path,
        v.platform_conflict_message(key) + extra,
        tags={"reason": v.NODE_SELECTOR_PLATFORM_CONFLICT},
    )


def _platforms(spec: Mapping[str, Any]) -> list[Any]:
    out = spec.get("output")
    plats = out.get("platforms") if isinstance(out, dict) else None
    return list(plats) if isinstance(plats, list) else []


def _map(node: Any, key: str) -> MutableMapping[str, Any] | None:
    if not isinstance(node, dict):
        return None
    val = node.get(key)
    return val if isinstance(val, dict) else None


def _get_map(m: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    val = m.get(key)
    return val if isinstance(val, dict) else {}


def _get_list(m: Mapping[str, Any], key: str) -> list[Any]:
    val = m.get(key)
    return val if isinstance(val, list) else []
