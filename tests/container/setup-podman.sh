#!/usr/bin/env bash
# Makes this machine able to build and run the function's image with podman, the way the
# container end-to-end test (tests/suites/e2e/test_container_e2e.py) and kpt (KPT_FN_RUNTIME=podman)
# do. Idempotent and quiet; .ci/run calls it on every run.
#
# 1. As root, installs what is missing from Debian's packages: podman (with buildah), runc,
#    debootstrap (for the local base image, see build.sh).
# 2. Runs a tiny image the way kpt runs a function. Where that fails for a reason seen on
#    VMs and sandboxes, it writes a containers.conf drop-in that works around it, says so,
#    and tries again:
#    - "setrlimit RLIMIT_NOFILE/RLIMIT_NPROC: Operation not permitted": podman as root asks
#      for 1048576 open files and processes, which a machine without CAP_SYS_RESOURCE
#      cannot grant; the drop-in sets default_ulimits to this machine's hard limits.
#    - "cgroups in hybrid mode not supported": crun refuses a cgroup v1 + v2 hybrid whose
#      v2 side has controllers; the drop-in makes runc the runtime.
#
# Exits 1 with podman's own error when containers still cannot run.
set -euo pipefail

DROPIN=/etc/containers/containers.conf.d/50-krm-coschedule.conf
PROBE=localhost/krm-coschedule-probe:1

log() { echo "setup-podman: $*" >&2; }

missing=()
command -v podman >/dev/null || missing+=(podman buildah)
command -v runc >/dev/null || missing+=(runc)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
    if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
        log "missing: ${missing[*]}; install them (as root: apt-get install -y ${missing[*]})"
        exit 1
    fi
    log "installing ${missing[*]} from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# A probe image made from the host's /bin/true and the libraries it loads: no registry,
# no network. /etc/passwd so that `--user nobody` resolves, as it does in the real image.
probe_image() {
    podman image exists "$PROBE" && return
    local dir lib
    dir=$(mktemp -d)
    mkdir -p "$dir/bin" "$dir/etc" "$dir/tmp"
    cp /bin/true "$dir/bin/true"
    for lib in $(ldd /bin/true | grep -o '/[^ ]*'); do
        mkdir -p "$dir$(dirname "$lib")"
        cp -L "$lib" "$dir$lib"
    done
    echo 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$dir/etc/passwd"
    echo 'nogroup:x:65534:' >"$dir/etc/group"
    tar --numeric-owner -C "$dir" -c . | podman import -q - "$PROBE" >/dev/null
    rm -rf "$dir"
}

# how kpt runs a function, plus the read-only root the test adds
probe() {
    podman run --rm -i --network none --user nobody --security-opt=no-new-privileges \
        --read-only "$PROBE" /bin/true </dev/null 2>&1
}

probe_image
if err=$(probe); then
    exit 0
fi

if [[ $(id -u) != 0 ]]; then
    log "podman cannot run a container here: $err"
    exit 1
fi

# the fixes already in the drop-in (from an earlier run), then one more per failure
ulimits=0
runc=0
if [[ -f $DROPIN ]]; then
    grep -q '^default_ulimits' "$DROPIN" && ulimits=1
    grep -q '^runtime = "runc"' "$DROPIN" && runc=1
fi
first_err=$err
for _ in 1 2 3; do
    if [[ $err == *"setrlimit"*"Operation not permitted"* || $err == *"error setting rlimit"* ]] && ((!ulimits)); then
        ulimits=1
    elif [[ $err == *"cgroups in hybrid mode not supported"* ]] && ((!runc)); then
        runc=1
    else
        log "podman cannot run a container here: $err"
        exit 1
    fi
    nofile=$(ulimit -Hn)
    nproc=$(ulimit -Hu)
    # podman lowers its own process limit to 32768 when it cannot raise it (observed with
    # podman 4.3), and a container may not ask for more than podman has
    [[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
    [[ $nofile == unlimited ]] && nofile=1048576
    mkdir -p "$(dirname "$DROPIN")"
    {
        echo "# written by krm-coschedule's tests/container/setup-podman.sh: podman failed to run"
        echo "# a container on this machine with: $(head -1 <<<"$first_err")"
        if ((ulimits)); then
            echo "[containers]"
            echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
        fi
        if ((runc)); then
            echo "[engine]"
            echo 'runtime = "runc"'
        fi
    } >"$DROPIN"
    log "podman could not run a container ($(head -1 <<<"$err")); wrote $DROPIN"
    if err=$(probe); then
        exit 0
    fi
done
log "podman cannot run a container here: $err"
exit 1
