"""Name formulas of Tekton's affinity assistant (reference §1), reproduced at render time."""
from __future__ import annotations

from krm_fn.core.keys import RUN_NAME_KEY
from krm_fn.core.keys import RUN_UID_KEY

# hashlib loads OpenSSL (_hashlib, ~4-10 ms at start-up: #5) for one SHA-256 over a short name;
# CPython's builtin module gives the same digest (3.10/3.11: _sha256, 3.12+: _sha2)
try:
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - depends on the interpreter
    try:
        from _sha2 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256

ASSISTANT_PREFIX = "affinity-assistant-"
COMPONENT = "affinity-assistant"
LABEL_INSTANCE = "app.kubernetes.io/instance"
LABEL_COMPONENT = "app.kubernetes.io/component"
HOSTNAME = "kubernetes.io/hostname"
MAX_LABEL = 63
# r"affinity-assistant-[0-9a-f]{10}", checked with string operations (no pattern to compile
# at every start)
_HEX = frozenset("0123456789abcdef")


def h10(s: str) -> str:
    """First 10 hex characters of SHA-256(s)."""
    return _sha256(s.encode("utf-8")).hexdigest()[:10]


def assistant_name(workspace: str, run: str) -> str:
    """`affinity-assistant-` + h10(W + P): W is the PipelineRun workspace binding name in
    workspaces mode and "" in the per-run modes (Tekton's GetAffinityAssistantName)."""
    return ASSISTANT_PREFIX + h10(workspace + run)


def taskrun_assistant_name(taskrun: str) -> str:
    """A standalone TaskRun's assistant. Tekton gives TaskRuns none; the `taskrun/` prefix
    cannot come out of a PipelineRun name (no `/` in object names), so the two never clash."""
    return ASSISTANT_PREFIX + h10("taskrun/" + taskrun)


def is_assistant_name(name: str) -> bool:
    return len(name) == len(ASSISTANT_PREFIX) + 10 and name.startswith(ASSISTANT_PREFIX) and _HEX.issuperset(name[-10:])


def sanitize(name: str) -> str:
    """Tekton v1.13 (#9739, PR #9752): a claim-template name longer than 63 characters
    becomes its first 52 characters + `-` + h10(full name)."""
    if len(name) <= MAX_LABEL:
        return name
    return name[:52] + "-" + h10(name)


def pvc_name(vct_name: str, binding: str, owner: str) -> str:
    """Tekton's GeneratePVCNameFromWorkspaceBinding: `<vct name or "pvc">-` + h10(B + owner).
    Tekton hashes the owner's UID; at render time we hash the run name instead."""
    return (vct_name or "pvc") + "-" + h10(binding + owner)


def claim_template_name(vct_name: str, binding: str, run: str) -> str:
    """Name of the claim template inside the assistant StatefulSet (sanitised to 63)."""
    return sanitize(pvc_name(vct_name, binding, run))


def claim_name(template: str, assistant: str) -> str:
    """The PVC the StatefulSet controller creates for ordinal 0: `<template>-<sts>-0`."""
    return f"{template}-{assistant}-0"


def claim_assistant(claim: str) -> str | None:
    """The assistant whose claim template made `claim` (`<template>-<assistant>-0`), when the
    name has that shape; None for any other claim."""
    # re.fullmatch(r".+-(affinity-assistant-[0-9a-f]{10})-0", claim), in string operations
    head = claim[:-32]  # `.+`: at least one character, none a newline
    if not head or "\n" in head or claim[-32:-31] != "-" or not claim.endswith("-0"):
        return None
    name = claim[-31:-2]
    return name if is_assistant_name(name) else None


def fixed_labels(run_label_key: str, run_name: str, assistant: str) -> dict[str, str]:
    """The three labels Tekton sets on top of the run's labels (reference §2)."""
    return {run_label_key: run_name, LABEL_INSTANCE: assistant, LABEL_COMPONENT: COMPONENT}


def pin_term(assistant: str) -> dict[str, object]:
    """The required podAffinity term that puts a TaskRun pod next to its assistant."""
    return {
        "labelSelector": {"matchLabels": {LABEL_INSTANCE: assistant, LABEL_COMPONENT: COMPONENT}},
        "topologyKey": HOSTNAME,
    }


def anti_term(all_namespaces: bool = False) -> dict[str, object]:
    """The term that repels assistants from each other (one node per run or workspace).
    Tekton's has no namespace selector, so it sees the assistants of the run's namespace only
    (tektoncd/pipeline#9531); `all_namespaces` (isolationScope: cluster) adds
    `namespaceSelector: {}`, every namespace."""
    term: dict[str, object] = {"labelSelector": {"matchLabels": {LABEL_COMPONENT: COMPONENT}}}
    if all_namespaces:
        term["namespaceSelector"] = {}
    term["topologyKey"] = HOSTNAME
    return term


def pinned_assistant(term: object) -> str | None:
    """The assistant a podAffinity term pins to, when it is exactly our pinning term (a term
    of plain data or a round-trip tree: keys and values are compared as strings)."""
    # the key sets compared by size and membership: set(term) made two sets per term, and
    # every pinning term of every run is asked (18,000 in a re-render of 1,500 runs, issue 34)
    if not isinstance(term, dict) or len(term) != 2 or term.get("topologyKey") != HOSTNAME or "labelSelector" not in term:
        return None
    sel = term["labelSelector"]
    if not isinstance(sel, dict) or len(sel) != 1 or "matchLabels" not in sel:
        return None
    ml = sel["matchLabels"]
    if not isinstance(ml, dict) or len(ml) != 2 or LABEL_INSTANCE not in ml or LABEL_COMPONENT not in ml:
        return None
    inst = ml.get(LABEL_INSTANCE)
    if ml.get(LABEL_COMPONENT) != COMPONENT or not isinstance(inst, str) or not is_assistant_name(inst):
        return None
    return str(inst)


# --------------------------------------------------------------------------- run-keyed (§4b)

# the label the function puts on a run-keyed run (Tekton propagates it to its TaskRuns and
# pods); its value names the coschedule mode the run was rendered with
RUN_KEYED_LABEL = "krm-coschedule.dev/coschedule"
PIPELINE_TASK_LABEL = "tekton.dev/pipelineTask"
_RUN_KEYS = frozenset({RUN_UID_KEY, RUN_NAME_KEY})
_OURS = {"key": RUN_KEYED_LABEL, "operator": "Exists"}


def run_keyed_term(run_key: str, tasks: list[str] | None = None) -> dict[str, object]:
    """The required podAffinity term that keeps the live pods of one run (or, with `tasks`,
    of those pipeline tasks of one run) on one node: the API server adds `run_key in (<the
    pod's own value>)` to the selector when it admits each pod (KEP-3633)."""
    exprs: list[dict[str, object]] = [dict(_OURS)]
    if tasks is not None:
        exprs.append({"key": PIPELINE_TASK_LABEL, "operator": "In", "values": list(tasks)})
    return {"labelSelector": {"matchExpressions": exprs}, "matchLabelKeys": [run_key], "topologyKey": HOSTNAME}


def run_keyed_anti_term(run_key: str, all_namespaces: bool) -> dict[str, object]:
    """The podAntiAffinity term against the pods of every other run-keyed run (`run_key
    notin (<own value>)`); `all_namespaces`: in every namespace, not only the run's own."""
    term: dict[str, object] = {"labelSelector": {"matchExpressions": [dict(_OURS)]}, "mismatchLabelKeys": [run_key]}
    if all_namespaces:
        term["namespaceSelector"] = {}
    term["topologyKey"] = HOSTNAME
    return term


def assistant_repel_term(all_namespaces: bool = True) -> dict[str, object]:
    """isolate-pipelinerun, run-keyed: the podAntiAffinity term against placeholders of
    runs rendered with the placeholder strategy, in any namespace (symmetric: an assistant
    is not placed beside such a pod either), so runs of both strategies stay apart; without
    `all_namespaces` (isolationScope: namespace) in the run's namespace only, the very shape of
    the placeholders' own term."""
    return anti_term(all_namespaces)


# compared with, never handed out: both scopes' shapes are ours in a run's pod template, where
# nothing else puts them (Tekton's own term is the placeholder's, never the TaskRun pods')
_REPEL = (assistant_repel_term(True), assistant_repel_term(False))


def is_run_keyed_term(term: object) -> bool:
    """Whether a pod (anti-)affinity term, or a weighted preferred entry, is one of ours."""
    if isinstance(term, dict) and set(term) == {"weight", "podAffinityTerm"}:
        term = term["podAffinityTerm"]
    if term in _REPEL:
        return True
    if not isinstance(term, dict) or term.get("topologyKey") != HOSTNAME:
        return False
    if not set(term) <= {"labelSelector", "matchLabelKeys", "mismatchLabelKeys", "namespaceSelector", "topologyKey"}:
        return False
    keys = [*(term.get("matchLabelKeys") or []), *(term.get("mismatchLabelKeys") or [])]
    if len(keys) != 1 or keys[0] not in _RUN_KEYS:
        return False
    sel = term.get("labelSelector")
    exprs = sel.get("matchExpressions") if isinstance(sel, dict) and set(sel) == {"matchExpressions"} else None
    return isinstance(exprs, list) and bool(exprs) and exprs[0] == _OURS
