"""The Tekton Pipelines releases the function knows, as data: for each release line its
patch releases and what it changes for the affinity assistant, with the upstream tag or pull
request it comes from. Everything version-dependent about the assistant is read from here:
the nop image tag (`policy/nop.py`), the `set-security-context` default, the pod template
fields Tekton copies into the assistant. `markdown()` is the table in docs/tekton-releases.md
(tests/unit/policy/test_releases.py keeps the two equal).

Sources: tektoncd/pipeline's tags and history to 3ee1745ae (2026-08-20, newest tag
v1.15.0), and for v1.16.0 (released 2026-08-31) its pull requests: #9589 (set-security-context
on by default; it changes only the default, in pkg/apis/config/feature_flags.go, its docs and
tests) and #10680 (docs: the flag covers Tekton-injected containers and affinity assistants;
`set-security-context: "false"` rolls back). reference/tekton-affinity-assistant.md has the rest.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    pass

# (release line, its patch releases, what the line changes for the assistant, upstream source).
# Patches: "0-2" is .0 to .2, "0 2-5" is .0 and .2 to .5 (there is no v0.44.1). Lines that were
# never released (v0.67, v1.8) are absent. The nop image of a release is tagged with that
# release (tekton/publish.yaml: `ko resolve -t <tag>`); "" is a line with no assistant change.
LINES: tuple[tuple[str, str, str, str], ...] = (
    ("0.15", "0-2", "the assistant runs Tekton's nop image with args [tekton_run_indefinitely] (was nginx)", "cmd/nop a81f43d4d, tag v0.15.0"),
    ("0.16", "0-3", "", "tag v0.16.0"),
    ("0.17", "0-3", "", "tag v0.17.0"),
    ("0.18", "0-1", "", "tag v0.18.0"),
    ("0.19", "0", "", "tag v0.19.0"),
    ("0.20", "0-1", "", "tag v0.20.0"),
    ("0.21", "0", "", "tag v0.21.0"),
    ("0.22", "0", "", "tag v0.22.0"),
    ("0.23", "0", "claim names of volumeClaimTemplates hash the run's UID (the function hashes its name: the UID is unknown at render time)", "tag v0.23.0"),
    ("0.24", "0-3", "", "tag v0.24.0"),
    ("0.25", "0", "", "tag v0.25.0"),
    ("0.26", "0", "", "tag v0.26.0"),
    ("0.27", "0-3", "", "tag v0.27.0"),
    ("0.28", "0-3", "", "tag v0.28.0"),
    ("0.29", "0-1", "", "tag v0.29.0"),
    ("0.30", "0-4", "", "tag v0.30.0"),
    ("0.31", "0-4", "", "tag v0.31.0"),
    ("0.32", "0-4", "", "tag v0.32.0"),
    ("0.33", "0-4", "", "tag v0.33.0"),
    ("0.34", "0-1", "", "tag v0.34.0"),
    ("0.35", "0-1", "default-affinity-assistant-pod-template; imagePullSecrets copied", "tag v0.35.0"),
    ("0.36", "0-1", "", "tag v0.36.0"),
    ("0.37", "0-5", "", "tag v0.37.0"),
    ("0.38", "0-4", "", "tag v0.38.0"),
    ("0.39", "0", "", "tag v0.39.0"),
    ("0.40", "0-2", "TaskRun pod affinity merged with the pod template's (was replaced)", "PR #5306"),
    ("0.41", "0-3", "", "tag v0.41.0"),
    ("0.42", "0", "", "tag v0.42.0"),
    ("0.43", "0-2", "", "tag v0.43.0"),
    ("0.44", "0 2-5", "", "tag v0.44.0"),
    ("0.45", "0", "", "tag v0.45.0"),
    ("0.46", "0", "", "tag v0.46.0"),
    ("0.47", "0-9", "", "tag v0.47.0"),
    ("0.48", "0", "", "tag v0.48.0"),
    ("0.49", "0", "", "tag v0.49.0"),
    ("0.50", "0-6", "coschedule flag (per-run modes not implemented yet)", "tag v0.50.0"),
    ("0.51", "0", "pipelineruns and isolate-pipelinerun implemented", "tag v0.51.0"),
    ("0.52", "0-1", "", "tag v0.52.0"),
    ("0.53", "0-9", "", "tag v0.53.0"),
    ("0.54", "0-2", "", "tag v0.54.0"),
    ("0.55", "0", "", "tag v0.55.0"),
    ("0.56", "0-9", "", "tag v0.56.0"),
    ("0.57", "0", "", "tag v0.57.0"),
    ("0.58", "0", "", "tag v0.58.0"),
    ("0.59", "0-6", "", "tag v0.59.0"),
    ("0.60", "0-2", "", "tag v0.60.0"),
    ("0.61", "0-1", "", "tag v0.61.0"),
    ("0.62", "0-9", "", "tag v0.62.0"),
    ("0.63", "0", "pod securityContext copied; TaskRun pods labelled tekton.dev/pipelineRunUID", "PR #8176, tag v0.63.0"),
    ("0.64", "0", "container securityContext `{}`, restricted with set-security-context", "PR #8182"),
    ("0.65", "0-7", "priorityClassName copied", "tag v0.65.0"),
    ("0.66", "0", "", "tag v0.66.0"),
    ("0.68", "0-1", "", "tag v0.68.0"),
    ("0.69", "0-1", "set-security-context-read-only-root-filesystem", "tag v0.69.0"),
    ("0.70", "0", "", "tag v0.70.0"),
    ("1.0", "0-4", "disable-affinity-assistant removed (ignored); only coschedule counts", "tag v1.0.0"),
    ("1.1", "0", "", "tag v1.1.0"),
    ("1.2", "0-1", "", "tag v1.2.0"),
    ("1.3", "0-6", "", "tag v1.3.0"),
    ("1.4", "0", "", "tag v1.4.0"),
    ("1.5", "0", "", "tag v1.5.0"),
    ("1.6", "0-6", "", "tag v1.6.0"),
    ("1.7", "0", "", "tag v1.7.0"),
    ("1.9", "0-6", "serviceAccountName: the assistant template's, else the run's", "PR #9253"),
    ("1.10", "0-3", "", "tag v1.10.0"),
    ("1.11", "0-1", "tekton.dev/auto-cleanup-pvc annotation (only under coschedule: workspaces)", "issue #9284, tag v1.11.0"),
    ("1.12", "0-2", "", "tag v1.12.0"),
    ("1.13", "0-1", "claim-template names cut to 63 characters; tekton.dev/pipeline from generateName", "PR #9752, tag v1.13.0"),
    ("1.14", "0-1", "", "tag v1.14.0"),
    ("1.15", "0", "", "tag v1.15.0"),
    ("1.16", "0", "set-security-context on by default: the assistant container gets the restricted securityContext", "PR #9589, docs PR #10680, tag v1.16.0 (2026-08-31)"),
)

# what no source read here confirms, said in the table (docs/tekton-releases.md)
UNCONFIRMED: dict[tuple[int, int, int], str] = {
    (1, 16, 0): (
        "read from the pull requests, not from v1.16.0's source (the newest source read is "
        "3ee1745ae, before the release); its nop image tag follows the publish convention, its "
        "release manifest was not read"
    ),
}

# the pod template fields Tekton copies into the assistant, whole, from the run's pod template
# or else default-affinity-assistant-pod-template, and the release that started copying each
COPIED_SINCE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("nodeSelector", (0, 13, 0)),  # PR #2743
    ("tolerations", (0, 13, 0)),  # PR #2743
    ("imagePullSecrets", (0, 35, 0)),
    ("securityContext", (0, 63, 0)),  # pod level, PR #8176
    ("priorityClassName", (0, 65, 0)),
    ("serviceAccountName", (1, 9, 0)),  # PR #9253 (the template's wins over the run's)
)

# Tekton's DefaultSetSecurityContext (pkg/apis/config/feature_flags.go): false to v1.15, true
# from v1.16.0 (PR #9589)
SECURITY_CONTEXT_ON_BY_DEFAULT = (1, 16, 0)
# the container securityContext exists from v0.64.0 (PR #8182): before, the flag did not reach
# the assistant
CONTAINER_SECURITY_CONTEXT_SINCE = (0, 64, 0)

# the newest release of LINES (a constant, so start-up need not parse the table;
# tests/unit/policy/test_releases.py keeps it equal)
NEWEST = (1, 16, 0)

_RELEASES: list[tuple[int, int, int]] = []


def releases() -> list[tuple[int, int, int]]:
    """Every release of the table, sorted (parsed on first use)."""
    if not _RELEASES:
        for line, patches, _what, _source in LINES:
            major, minor = (int(x) for x in line.split("."))
            for part in patches.split():
                first, _, last = part.partition("-")
                _RELEASES.extend((major, minor, n) for n in range(int(first), int(last or first) + 1))
    return _RELEASES


def release(version: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """The newest release of the table not after `version` (None below v0.15.0). Read from
    the newest line down, so a run that asks about one version parses a line or two of the
    table, not its 224 releases (issue 34)."""
    for line, patches, _what, _source in reversed(LINES):
        major, minor = (int(x) for x in line.split("."))
        if (major, minor) > version[:2]:
            continue
        newest = -1
        for part in patches.split():
            first, _, last = part.partition("-")
            lo, hi = int(first), int(last or first)
            if (major, minor) < version[:2]:
                newest = max(newest, hi)
            elif lo <= version[2]:
                newest = max(newest, min(hi, version[2]))
        if newest >= 0:
            return (major, minor, newest)
    return None


def set_security_context_default(version: tuple[int, int, int]) -> bool:
    """Tekton's default for set-security-context in `version`."""
    return version >= SECURITY_CONTEXT_ON_BY_DEFAULT


def copied_fields(version: tuple[int, int, int]) -> tuple[str, ...]:
    """The pod template fields Tekton `version` copies into its assistant."""
    return tuple(field for field, since in COPIED_SINCE if version >= since)


def fmt(version: tuple[int, ...]) -> str:
    return "v" + ".".join(str(n) for n in version)


def markdown() -> str:
    """The table of docs/tekton-releases.md: one row per release line."""
    out = [
        "| Line | Releases (each tags its own nop image) | set-security-context default | "
        "Fields Tekton copies into the assistant | What changes for the assistant | Source |\n",
        "|---|---|---|---|---|---|\n",
    ]
    for line, patches, what, source in LINES:
        major, minor = (int(x) for x in line.split("."))
        first = (major, minor, int(patches.split()[0].partition("-")[0]))
        shown = ", ".join(
            f"v{line}.{a}" + (f" to v{line}.{b}" if b else "") for a, _, b in (p.partition("-") for p in patches.split())
        )
        note = UNCONFIRMED.get(first)
        what_text = (what or "-") + (f" (unconfirmed: {note})" if note else "")
        default = "true" if set_security_context_default(first) else "false"
        out.append(f"| v{line} | {shown} | {default} | {', '.join(copied_fields(first))} | {what_text} | {source} |\n")
    return "".join(out)
