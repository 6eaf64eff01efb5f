"""What the policy's version fields say: the coscheduling mode a Tekton release runs with
the policy's flags (Tekton's flag migration table), and the warnings for a version newer
than the function knows and for an assistant image of another release. Each is said as
(severity, field path, message); policy/config makes the results."""
from __future__ import annotations

from krm_fn.policy.nop import nop_image
from krm_fn.policy.nop import nop_release
from krm_fn.policy.nop import nop_tag
from krm_fn.policy.releases import NEWEST
from krm_fn.policy.releases import fmt

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Said = tuple[str, str, str]  # (severity, field path, message)

NEWEST_KUBERNETES = (1, 37)  # kubernetesVersion's default; newer is a warning


def newer_tekton(version: tuple[int, int, int], path: str) -> Said:
    """A tektonVersion newer than the newest release of policy/releases.py."""
    newest = fmt(NEWEST)
    return (
        "warning",
        path,
        f"{path} is {fmt(version)}, newer than the newest Tekton release this function knows "
        f"({newest}); the output follows {newest} (its nop image {nop_image(NEWEST)} and "
        f"its defaults). Check {newest}'s assistant against your release's notes, set "
        "assistant.image to your release's nop image, or update the function"
    )


def newer_kubernetes(version: tuple[int, int], path: str) -> Said:
    """As a newer tektonVersion: what the function knows of Kubernetes (matchLabelKeys from
    1.31, the scheduler's retry timing and queueing hints per release) stops at 1.37."""
    newest = "{}.{}".format(*NEWEST_KUBERNETES)
    return (
        "warning",
        path,
        "{} is {}.{}, newer than the newest Kubernetes release this function knows ({}); it is "
        "rendered as for {} (the scheduler's behaviour explain describes included). Check {}'s "
        "scheduler notes against your release's, or update the function".format(path, *version, newest, newest, newest)
    )


def image_version_check(image: str, version: tuple[int, int, int], where: Callable[..., str]) -> list[Said]:
    """A warning when a set image is a nop image of another release than tektonVersion's."""
    tag = nop_tag(image)
    release = nop_release(version)
    if tag is None or release is None or tag in (version, release):
        return []
    return [
        (
            "warning",
            where("assistant", "image"),
            f"{where('assistant', 'image')} {image} is the nop image of Tekton {fmt(tag)}, but "
            f"{where('tektonVersion')} is {fmt(version)}, whose assistant image is "
            f"{nop_image(version)}; use that image (or leave the image unset: it follows the "
            "Tekton version), or declare the Tekton version your cluster runs",
        )
    ]


def resolve_mode(spec: dict[str, Any], v: tuple[int, int, int], where: Callable[..., str]) -> tuple[str | None, list[Said]]:
    """The coscheduling mode Tekton `v` runs with these flags (its migration table), or None
    with the error for a combination Tekton refuses."""
    mode_given = "coschedule" in spec
    mode = spec.get("coschedule", "workspaces")
    disable_given = "disableAffinityAssistant" in spec
    disable = bool(spec.get("disableAffinityAssistant", False))
    vs = "v{}.{}.{}".format(*v)
    if v >= (1, 0, 0):
        if not disable_given:
            return mode, []
        return mode, [
            (
                "warning",
                where("disableAffinityAssistant"),
                f"disable-affinity-assistant is ignored from Tekton v1.0.0 on (tektonVersion "
                f"{vs}); only coschedule counts, so remove it (mode: {mode})",
            )
        ]
    if v < (0, 50, 0):
        if mode_given and mode != "workspaces":
            return None, [
                (
                    "error",
                    where("coschedule"),
                    f"Tekton {vs} has no coschedule flag (added in v0.50.0); use "
                    "disableAffinityAssistant, or set tektonVersion to the version you run",
                )
            ]
        return ("disabled" if disable else "workspaces"), []
    if not disable and mode != "workspaces":
        return None, [
            (
                "error",
                where("coschedule"),
                f"coschedule value {mode} is incompatible with disable-affinity-assistant "
                f"setting to false (Tekton {vs}, during the migration); set "
                "disableAffinityAssistant: true, or tektonVersion >= v1.0.0",
            )
        ]
    if not disable:
        return "workspaces", []
    resolved = "disabled" if mode in ("workspaces", "disabled") else mode
    if resolved in ("pipelineruns", "isolate-pipelinerun") and v < (0, 51, 0):
        return None, [
            (
                "error",
                where("coschedule"),
                f"affinity assistant behavior {resolved} is not implemented in Tekton {vs} "
                "(added in v0.51.0); use workspaces or disabled, or upgrade Tekton",
            )
        ]
    return resolved, []
