"""Tekton's nop image, which the placeholder runs: the image of each Tekton release (its
repository and digest), the release a `tektonVersion` names, and Tekton's versions read
and compared.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    pass


# The assistant's image: Tekton runs its nop image (the controller's -nop-image flag), which
# each release publishes as NOP_REPOSITORY:<release tag> (tekton/publish.yaml: `ko resolve
# --preserve-import-paths -t <tag>` into ghcr.io/tektoncd/pipeline, the registry named in
# tekton/release-cheat-sheet.md; releases first published to gcr.io/tekton-releases were all
# copied there in 2025, commit d30463ea6). The release manifest also pins a digest, which is
# not knowable offline. Releases: the stable tags of tektoncd/pipeline from v0.15.0, the first
# whose nop image runs `tekton_run_indefinitely` (cmd/nop, commit a81f43d4d), to v1.15.0
# (tags as of 3ee1745ae, 2026-08-20; there is no v0.44.1, v0.67 or v1.8). "X.Y.a-b" is the
# patch releases a to b.
NOP_REPOSITORY = "ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/nop"


NOP_RELEASES = """
0.15.0-2 0.16.0-3 0.17.0-3 0.18.0-1 0.19.0 0.20.0-1 0.21.0 0.22.0 0.23.0 0.24.0-3 0.25.0 0.26.0
0.27.0-3 0.28.0-3 0.29.0-1 0.30.0-4 0.31.0-4 0.32.0-4 0.33.0-4 0.34.0-1 0.35.0-1 0.36.0-1
0.37.0-5 0.38.0-4 0.39.0 0.40.0-2 0.41.0-3 0.42.0 0.43.0-2 0.44.0 0.44.2-5 0.45.0 0.46.0
0.47.0-9 0.48.0 0.49.0 0.50.0-6 0.51.0 0.52.0-1 0.53.0-9 0.54.0-2 0.55.0 0.56.0-9 0.57.0 0.58.0
0.59.0-6 0.60.0-2 0.61.0-1 0.62.0-9 0.63.0 0.64.0 0.65.0-7 0.66.0 0.68.0-1 0.69.0-1 0.70.0
1.0.0-4 1.1.0 1.2.0-1 1.3.0-6 1.4.0 1.5.0 1.6.0-6 1.7.0 1.9.0-6 1.10.0-3 1.11.0-1 1.12.0-2
1.13.0-1 1.14.0-1 1.15.0
"""


DEFAULT_NOP_IMAGE = f"{NOP_REPOSITORY}:v1.15.0"


def parse_version(v: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", v.strip())
    if not m:
        raise ValueError(v)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


_RELEASES: list[tuple[int, int, int]] = []


def nop_releases() -> list[tuple[int, int, int]]:
    """NOP_RELEASES as sorted versions (parsed on first use)."""
    if not _RELEASES:
        for token in NOP_RELEASES.split():
            major, minor, patches = token.split(".")
            first, _, last = patches.partition("-")
            _RELEASES.extend((int(major), int(minor), n) for n in range(int(first), int(last or first) + 1))
    return _RELEASES


def nop_release(version: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """The newest release with a nop image that is not after `version` (None below v0.15.0,
    whose assistant was not the nop image)."""
    found = None
    for release in nop_releases():
        if release > version:
            break
        found = release
    return found


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
