"""When kube-scheduler may leave a coscheduled run waiting for its periodic flush of
unschedulable pods (5 minutes after the pod's last attempt by default, checked every 30 s;
`--pod-max-in-unschedulable-pods-duration`), by strategy, coschedule mode and Kubernetes
version. docs/strategies.md explains it; tests/scheduler_sim.py models it.

A pod that cannot be placed waits until an event that a queueing hint of the plugin that
rejected it acts on. InterPodAffinity's hint for a deleted pod (a finished pod counts as
deleted) looks only at required anti-affinity: up to 1.36 it requeues a waiting pod only when
the deleted pod matches *all* its required anti-affinity terms, or the reverse; from 1.37 *any*
(kubernetes/kubernetes#139161). It never looks at affinity (kubernetes/kubernetes#141354, open).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    pass

ANY_TERM_SINCE = (1, 37)  # kubernetes/kubernetes#139161

BEHIND_ITS_RUN = (
    "a task that waits behind its run's only live pod on a node that cannot take it starts at "
    "the flush after that pod ends, on every Kubernetes version (the delete hint never looks at "
    "affinity: kubernetes/kubernetes#141354)"
)
BEHIND_OTHER_RUN = (
    "a run that waits for another run's node starts at the flush after that run's pods end: "
    "its two anti-affinity terms (other runs; placeholders) are not both matched by a TaskRun "
    "pod, and Kubernetes {k8s} requeues only when all are (from 1.37 any: kubernetes/kubernetes#139161)"
)
PLACEHOLDER_BESIDE_RUN_KEYED = (
    "a placeholder that waits for a node held by a run-keyed isolate-pipelinerun run (strategy "
    "auto, a run without a name) starts at the flush after that run's pods end (Kubernetes "
    "{k8s}; from 1.37 at once: kubernetes/kubernetes#139161)"
)


def flush_waits(strategy: str, mode: str, kubernetes: tuple[int, int]) -> tuple[str, ...]:
    """Where a run of this strategy and mode may wait for the flush on Kubernetes `kubernetes`."""
    k8s = "{}.{}".format(*kubernetes)
    old = kubernetes < ANY_TERM_SINCE
    out = []
    if strategy == "run-keyed":
        if mode == "isolate-pipelinerun" and old:
            out.append(BEHIND_OTHER_RUN.format(k8s=k8s))
        out.append(BEHIND_ITS_RUN)
    elif strategy == "placeholder" and mode == "isolate-pipelinerun" and old:
        out.append(PLACEHOLDER_BESIDE_RUN_KEYED.format(k8s=k8s))
    return tuple(out)
