"""Tekton's nop image, which the placeholder runs: the image of each Tekton release (its
repository and digest), the release a `tektonVersion` names, and Tekton's versions read
and compared.
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.policy.releases import NEWEST
from krm_fn.policy.releases import fmt
from krm_fn.policy.releases import release
from krm_fn.policy.releases import releases

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    pass


# The assistant's image: Tekton runs its nop image (the controller's -nop-image flag), which
# each release publishes as NOP_REPOSITORY:<release tag> (tekton/publish.yaml: `ko resolve
# --preserve-import-paths -t <tag>` into ghcr.io/tektoncd/pipeline, the registry named in
# tekton/release-cheat-sheet.md; releases first published to gcr.io/tekton-releases were all
# copied there in 2025, commit d30463ea6). The release manifest also pins a digest, which is
# not knowable offline. The releases are those of policy/releases.py, from v0.15.0, the first
# whose nop image runs `tekton_run_indefinitely` (cmd/nop, commit a81f43d4d).
NOP_REPOSITORY = "ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/nop"


DEFAULT_NOP_IMAGE = f"{NOP_REPOSITORY}:{fmt(NEWEST)}"


def parse_version(v: str) -> tuple[int, int, int]:
    m = patterns.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", v.strip())
    if not m:
        raise ValueError(v)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def nop_releases() -> list[tuple[int, int, int]]:
    """The releases with a nop image, sorted: those of policy/releases.py."""
    return releases()


def nop_release(version: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """The newest release with a nop image that is not after `version` (None below v0.15.0,
    whose assistant was not the nop image)."""
    return release(version)


def nop_image(version: tuple[int, int, int]) -> str:
    """The assistant image for a cluster that runs Tekton `version`: its release's nop image
    (for a version between releases or newer than the table, the newest release before it);
    below v0.15.0 the newest, since the placeholder needs the nop image's behaviour."""
    release = nop_release(version)
    return f"{NOP_REPOSITORY}:v{release[0]}.{release[1]}.{release[2]}" if release else DEFAULT_NOP_IMAGE


def nop_tag(image: str) -> tuple[int, int, int] | None:
    """The release in the tag of a nop image reference (any registry, so mirrors count:
    the repository's last path segment is `nop`), or None when the image is not one or has no
    version tag (a digest alone cannot be checked offline)."""
    name = image.split("@", 1)[0]
    last = name.rpartition("/")[2]
    segment, sep, tag = last.partition(":")
    if segment != "nop" or not sep:
        return None
    try:
        return parse_version(tag) if tag[:1] in "v0123456789" and tag.count(".") == 2 else None
    except ValueError:
        return None
