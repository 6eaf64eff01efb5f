"""The one thing the cluster must have: Tekton's own affinity assistant off. A Tekton
`feature-flags` ConfigMap, or a Tekton operator `TektonConfig` (whose `spec.pipeline` the
operator writes into that ConfigMap, resetting it on upgrade), in the input or the package
that leaves it on is a warning naming the field and the value it needs; `note` is the line
the summaries add when placeholders are rendered."""
from __future__ import annotations

from krm_fn.core.errors import KrmError
from krm_fn.core.keys import is_local_config
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Plan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

FLAGS_NAME = "feature-flags"  # Tekton's ConfigMap (namespace tekton-pipelines as installed)
PATCH = (
    "kubectl patch configmap feature-flags -n tekton-pipelines --type merge "
    "-p '{\"data\":{\"coschedule\":\"disabled\"}}'"
)
# the operator's TektonConfig (cluster-scoped, always named `config`): operator installs set the
# flags here, and the operator puts them back into feature-flags on upgrade
# (tektoncd/pipeline#9174, tektoncd/operator#3010)
OPERATOR_API = "operator.tekton.dev/v1alpha1"
OPERATOR_KIND = "TektonConfig"
OPERATOR_PATCH = (
    "kubectl patch tektonconfig config --type merge "
    "-p '{\"spec\":{\"pipeline\":{\"coschedule\":\"disabled\"}}}'"
)
REASON = "TektonAffinityAssistantOn"  # the warning's tag (files mode shows it for context files)
_TRUE = ("1", "t", "T", "TRUE", "true", "True")  # Go strconv.ParseBool


def rendered(plans: list[Plan]) -> bool:
    """Whether the plans render placeholders (what `note` is said for)."""
    return any(p.strategy == "placeholder" and p.assistants for p in plans)


def note(plans: list[Plan], command: bool = True, assistant_off: bool = False, placeholders: bool = False) -> str:
    """The prerequisite, once, for the human summary when placeholders were rendered (by
    `plans`, or `placeholders`: a verdict from files mode's cache, which keeps no plans); ""
    otherwise, and when the input holds Tekton's feature-flags with the assistant off
    (`assistant_off`: Context.assistant_off; a pre-commit hook on a repository that manages
    its Tekton said it on every commit). `command`: with the kubectl command (not in kpt's
    output, which repeats it on every render)."""
    if assistant_off or not (placeholders or rendered(plans)):
        return ""
    return (
        'placeholders rendered: the cluster needs Tekton\'s feature-flags coschedule: "disabled" '
        '(below v1.0: disable-affinity-assistant: "true"), or Tekton creates its own assistants '
        "beside the rendered ones and adds its own affinity to the pinned pods" + (f" ({PATCH})" if command else "")
    )


def renders_coscheduling(plans: list[Plan]) -> bool:
    """Whether a run was given what Tekton's own assistant would undo or duplicate: a
    placeholder to be pinned to, or run-keyed affinity over its claims."""
    return any(p.assistants for p in plans)


def check_feature_flags(ctx: Context) -> None:
    """A warning for each Tekton feature-flags ConfigMap among the items (input or package
    context) whose values would make Tekton overwrite or duplicate what is rendered: from
    v1.0 only `coschedule` counts and must be `disabled`; before, `disable-affinity-assistant`
    must be "true" and, from v0.50, `coschedule` must not ask for a per-run assistant (the
    migration table: tekton-affinity-assistant.md). Nothing when nothing rendered is what
    Tekton's assistant would undo (no run given a placeholder or run-keyed affinity, as in a
    package of Tekton's own config with no runs): called after the transforms."""
    if ctx.policy.mode == "disabled" or not renders_coscheduling(ctx.plans):
        return
    for item in ctx.items:
        m = item.meta
        if m.kind == OPERATOR_KIND and m.api_version == OPERATOR_API:
            _check_tekton_config(item, ctx)
            continue
        if m.kind != "ConfigMap" or m.name != FLAGS_NAME or m.api_version != "v1" or not m.namespace:
            # without a namespace it is not the cluster's (tekton-pipelines as installed):
            # most likely a copy of its values used as this function's config (SPEC §3)
            continue
        try:
            data = item.load(ctx.light)
        except KrmError:
            continue  # unreadable: the item's own checks say so
        if _is_config(data):
            item.release()
            continue
        raw = data.get("data") if isinstance(data, dict) else None
        flags: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        item.release()  # read, not changed: written back as its text
        problems = _problems(flags, ctx.policy.tekton_version)
        ctx.assistant_off = ctx.assistant_off or not problems
        for key, want, why in problems:
            ctx.warning(
                item,
                f"data.{key}",
                f"{why}: Tekton then creates its own affinity assistants beside the rendered ones "
                f"and adds its own affinity to the pinned pods; set {key}: {want} in the cluster"
                + (f" ({PATCH})" if key == "coschedule" else ""),
                tags={"reason": REASON},
            )


def _check_tekton_config(item: Any, ctx: Context) -> None:
    """The same check on a TektonConfig's `spec.pipeline`, which holds the feature-flags keys
    by their ConfigMap names; the operator's default for `coschedule` is Tekton's."""
    try:
        data = item.load(ctx.light)
    except KrmError:
        return
    if _is_config(data):
        item.release()
        return
    spec = data.get("spec") if isinstance(data, dict) else None
    raw = spec.get("pipeline") if isinstance(spec, dict) else None
    flags: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    item.release()
    problems = _problems(flags, ctx.policy.tekton_version)
    ctx.assistant_off = ctx.assistant_off or not problems
    for key, want, why in problems:
        ctx.warning(
            item,
            f"spec.pipeline.{key}",
            f"{why.replace('coschedule is', 'spec.pipeline.coschedule is', 1)}: the Tekton operator writes "
            "spec.pipeline into Tekton's feature-flags (and puts it back on every upgrade, "
            "tektoncd/pipeline#9174), so Tekton creates its own affinity assistants beside the "
            f"rendered ones and adds its own affinity to the pinned pods; set spec.pipeline.{key}: "
            f"{want} in this TektonConfig" + (f" ({OPERATOR_PATCH})" if key == "coschedule" else ""),
            tags={"reason": REASON},
        )


def _is_config(data: Any) -> bool:
    """A function config, not a manifest: local-config as written (files mode marks the
    package's other files so in memory, not in the object read here)."""
    md = data.get("metadata") if isinstance(data, dict) else None
    ann = md.get("annotations") if isinstance(md, dict) else None
    return isinstance(ann, dict) and is_local_config(ann)


def _problems(flags: dict[str, Any], v: tuple[int, int, int]) -> list[tuple[str, str, str]]:
    """(key, the value it needs, what is wrong) for each flag that leaves Tekton's assistant on."""
    vs = "v{}.{}.{}".format(*v)
    mode = flags.get("coschedule")
    shown = f'coschedule is "{mode}"' if mode is not None else 'coschedule is not set (Tekton\'s default: "workspaces")'
    if v >= (1, 0, 0):
        if str(mode if mode is not None else "workspaces").lower() != "disabled":
            return [("coschedule", '"disabled"', f"{shown} (Tekton {vs})")]
        return []
    out = []
    disable = flags.get("disable-affinity-assistant")
    if str(disable) not in _TRUE:
        what = f'disable-affinity-assistant is "{disable}"' if disable is not None else "disable-affinity-assistant is not set"
        out.append(("disable-affinity-assistant", '"true"', f"{what} (Tekton {vs}, below v1.0)"))
    if v >= (0, 50, 0) and str(mode).lower() in ("pipelineruns", "isolate-pipelinerun"):
        out.append(("coschedule", '"disabled"', f"{shown} (Tekton {vs})"))
    return out
