"""The keys of the ConfigMap form of the policy (Tekton's own feature-flags and
config-defaults keys, and this function's): the one table the parser, the unknown-key check
and `--help` read.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable


# ConfigMap key -> path in the typed spec: the one table of the keys the function reads (the
# parser, the unknown-key warning and `--help` all use it)
CONFIGMAP_KEYS: dict[str, tuple[str, ...]] = {
    "coschedule": ("coschedule",),
    "disable-affinity-assistant": ("disableAffinityAssistant",),
    "set-security-context": ("assistant", "setSecurityContext"),
    "set-security-context-read-only-root-filesystem": (
        "assistant",
        "setSecurityContextReadOnlyRootFilesystem",
    ),
    "default-affinity-assistant-pod-template": ("assistant", "podTemplate"),
    "default-pod-template": ("defaultPodTemplate",),
    "default-service-account": ("defaultServiceAccount",),
    "tekton-version": ("tektonVersion",),
    "coschedule-strategy": ("strategy",),
    "kubernetes-version": ("kubernetesVersion",),
    "isolation-scope": ("isolationScope",),
    "shipwright-version": ("shipwrightVersion",),
    "nop-image": ("assistant", "image"),
}


CM_KEYS = CONFIGMAP_KEYS


# Tekton's own keys of feature-flags and config-defaults that the function does not read: a
# ConfigMap copied from the cluster holds them, and they are no typo (`_example` and other
# keys starting with `_` are comments by Tekton's convention)
_TEKTON_OTHER_KEYS = frozenset((
    "await-sidecar-readiness", "disable-creds-init", "disable-home-env-overwrite",
    "disable-inline-spec", "disable-working-directory-overwrite", "embedded-status",
    "enable-api-fields", "enable-artifacts", "enable-cel-in-whenexpression",
    "enable-concise-resolver-syntax", "enable-custom-tasks", "enable-keep-pod-on-cancel",
    "enable-kubernetes-sidecar", "enable-param-enum", "enable-provenance-in-status",
    "enable-spire", "enable-step-actions", "enable-tekton-oci-bundles",
    "enable-wait-exponential-backoff", "enforce-nonfalsifiability", "keep-pod-on-cancel",
    "max-result-size", "require-git-ssh-secret-known-hosts", "resource-verification-mode",
    "results-from", "running-in-environment-with-injected-sidecars",
    "scope-when-expressions-to-task", "send-cloudevents-for-runs",
    "trusted-resources-verification-no-match-policy", "verification-mode",
    "default-timeout-minutes", "default-managed-by-label-value", "default-cloud-events-sink",
    "default-task-run-workspace-binding", "default-max-matrix-combinations-count",
    "default-forbidden-env", "default-resolver-type", "default-imagepullbackoff-timeout",
    "default-maximum-resolution-timeout", "default-container-resource-requirements",
    "default-sidecar-log-polling-interval", "default-step-ref-concurrency-limit",
))


BOOL_KEYS = {
    "disable-affinity-assistant",
    "set-security-context",
    "set-security-context-read-only-root-filesystem",
}


YAML_KEYS = {"default-affinity-assistant-pod-template", "default-pod-template"}


# Go strconv.ParseBool
PARSE_BOOL = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


def unknown_key(key: str) -> tuple[str, str] | None:
    """(severity, message) for a ConfigMap key the function does not read; None for Tekton's
    other keys of feature-flags and config-defaults (and `_` comments). A key close to one it
    reads is an error, as an unknown key of the typed form is: the setting it misspells would
    silently stay at its default (`coschedle=pipelineruns` rendered the default mode). A key
    close to none is a warning: a ConfigMap may carry keys of other tools."""
    if key in CM_KEYS or key in _TEKTON_OTHER_KEYS or key.startswith("_"):
        return None
    near = did_you_mean(key, CM_KEYS)
    if near:
        return "error", (
            f"unknown key {key!r}; did you mean {near!r}? (a misspelt key would leave its setting "
            "at the default; Tekton's other feature-flags and config-defaults keys are accepted)"
        )
    return "warning", f"unknown key {key!r} is ignored; the keys read are " + ", ".join(CM_KEYS)


def did_you_mean(key: str, known: Iterable[str]) -> str | None:
    """The known key nearest to `key` (difflib's ratio, at least 0.6), or None."""
    import difflib

    near = difflib.get_close_matches(key, list(known), n=1)
    return near[0] if near else None
