#!/usr/bin/env bash
# Builds the function's image from the Dockerfile with podman:
#   tests/container/build.sh [--no-cache]   -> localhost/krm-coschedule:dev
#
# The base image (the Dockerfile's ARG BASE), first that applies:
#   1. KRM_COSCHEDULE_BASE, when set;
#   2. docker.io/library/python:3.12-slim-bookworm (the Dockerfile's default), when present;
#   3. localhost/krm-coschedule-base:bookworm, when present (an earlier build made it);
#   4. the default, pulled; where Docker Hub is unreachable (or the pull takes over 2
#      minutes), localhost/krm-coschedule-base:bookworm, built here once: Debian bookworm
#      from Debian's mirror (debootstrap, as root; DEBIAN_MIRROR to use another) with its
#      python3 (3.11) and venv. `podman rmi localhost/krm-coschedule-base:bookworm`
#      rebuilds it on the next run.
#
# pip inside the build uses this machine's pip configuration and CA bundle (see
# pipconf.py), mounted read-only for the RUN step only: nothing of them is in the
# Dockerfile or the image. Layers are cached by podman: a rebuild after a code change
# redoes only the pip install. The cache does not see the mounts, so a cached pip step
# can hide a build that fails on a fresh machine (it hid a constraints file pipconf.py
# did not mount): --no-cache redoes every step of the Dockerfile, as a fresh machine
# does (the base image is an image of its own and stays), and keeps no layer images
# (--layers=false: a layer cache nothing would use again). The image the name pointed
# to before is removed when nothing else holds it, so repeated builds do not pile up, and
# so are the build stage's images (labelled io.krm-coschedule.stage=build in the
# Dockerfile: the venv before it is copied into the final stage, about 165 MB that nothing
# uses once the image is built; a rebuild then redoes the pip install).
#
# KRM_COSCHEDULE_IMAGE names the image (it needs a slash: kpt rewrites a name without one
# to gcr.io/kpt-fn/NAME).
set -euo pipefail

cache=()
for arg in "$@"; do
    case $arg in
    --no-cache) cache=(--no-cache --layers=false) ;;
    *)
        echo "usage: $0 [--no-cache]" >&2
        exit 2
        ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IMAGE=${KRM_COSCHEDULE_IMAGE:-localhost/krm-coschedule:dev}
OFFICIAL=docker.io/library/python:3.12-slim-bookworm
LOCAL_BASE=localhost/krm-coschedule-base:bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { echo "build.sh: $*" >&2; }
die() {
    log "$*"
    exit 1
}

command -v podman >/dev/null || die "podman is not installed (as root: tests/container/setup-podman.sh, or apt-get install -y podman)"
[[ $IMAGE == */* ]] || die "image name $IMAGE has no slash: kpt would run gcr.io/kpt-fn/$IMAGE instead"

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/krm-coschedule-build.XXXXXX")
cleanup() {
    # debootstrap mounts /proc and /sys in the rootfs; never delete through a mount
    grep -o " $tmp/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

build_local_base() {
    [[ $(id -u) == 0 ]] || die "building $LOCAL_BASE needs root (debootstrap); or set KRM_COSCHEDULE_BASE to an image with python3 >= 3.10"
    command -v debootstrap >/dev/null || die "debootstrap is not installed (as root: apt-get install -y debootstrap)"
    log "building $LOCAL_BASE: Debian bookworm with python3 from $MIRROR (debootstrap, about a minute)"
    local rootfs=$tmp/rootfs
    if ! debootstrap --variant=minbase --include=python3,python3-venv,python-is-python3,ca-certificates \
        bookworm "$rootfs" "$MIRROR" >"$tmp/debootstrap.log" 2>&1; then
        tail -20 "$tmp/debootstrap.log" >&2
        die "debootstrap failed (above)"
    fi
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
    tar --numeric-owner -C "$rootfs" -c . | podman import -q \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'LABEL org.opencontainers.image.description="Debian bookworm minbase with python3, built by krm-coschedule tests/container/build.sh"' \
        --change 'CMD ["python3"]' \
        - "$LOCAL_BASE" >/dev/null
}

base=${KRM_COSCHEDULE_BASE:-}
if [[ -n $base ]]; then
    if [[ $base == "$LOCAL_BASE" ]] && ! podman image exists "$base"; then
        build_local_base
    fi
elif podman image exists "$OFFICIAL"; then
    base=$OFFICIAL
elif podman image exists "$LOCAL_BASE"; then
    base=$LOCAL_BASE
elif timeout 120 podman pull -q "$OFFICIAL" >/dev/null 2>"$tmp/pull.err"; then
    base=$OFFICIAL
else
    log "cannot pull $OFFICIAL: $(tail -1 "$tmp/pull.err")"
    build_local_base
    base=$LOCAL_BASE
fi

# the venv's python reads the same pip configuration as the one that installed the project
python=$ROOT/.venv/bin/python
[[ -x $python ]] || python=python3
mounts=(-v "$tmp/pip.conf:/etc/pip.conf:ro")
while IFS= read -r path; do
    mounts+=(-v "$path:$path:ro")
done < <("$python" "$ROOT/tests/container/pipconf.py" "$tmp/pip.conf")

old=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
log "building $IMAGE from $base${cache:+ (no layer cache)}"
podman build "${cache[@]}" --build-arg "BASE=$base" "${mounts[@]}" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT"
# without -f, podman keeps an image that has another name or a container
if [[ -n $old && $old != "$(podman image inspect --format '{{.Id}}' "$IMAGE")" ]]; then
    podman rmi "$old" >/dev/null 2>&1 || true
fi
# the build stage's images, untagged and used by nothing now (only this Dockerfile's: the label)
podman image prune -f --filter label=io.krm-coschedule.stage=build >/dev/null || log "could not remove the build stage's images (podman image prune above)"
