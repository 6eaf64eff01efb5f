"""A small model of the Kubernetes scheduler's inter-pod affinity rules: a test oracle.

No cluster is at hand, so the property tests feed the pods Tekton would create for rendered
runs (see ``tekton_pods.py``) into this model, start and finish them in random orders, and
check what must hold at every instant (see ``test_coschedule_sim.py``). The model is written
from the documented behaviour, not from Kubernetes source:

* kubernetes.io "Assigning Pods to Nodes" (inter-pod affinity and anti-affinity; "Scheduling a
  group of pods with inter-pod affinity to themselves");
* the PodAffinityTerm API reference and KEP-3633 (``matchLabelKeys`` / ``mismatchLabelKeys``;
  alpha 1.29, beta and on by default 1.31, GA 1.33);
* kubernetes/kubernetes#9601 and #96515 (terminated pods are not accounted for);
* kubernetes/kubernetes#130784 and the review of kubernetes/website#55968 (SIG Scheduling:
  several required podAffinity terms must all be matched by *one* existing pod; the API
  reference's "intersected" wording is not what the scheduler does);
* the storage docs on WaitForFirstConsumer binding, local volumes' node affinity and the
  ReadWriteOnce access mode (one node at a time; a second node gets a Multi-Attach error).

What it models
--------------

Nodes
    A name and labels; ``kubernetes.io/hostname`` = the name is always set. Other labels
    (a pool, a zone) may be given and used by nodeSelector, nodeAffinity and topologyKey.

Admission (``Cluster.create_pod``)
    * ``matchLabelKeys`` / ``mismatchLabelKeys`` of every pod (anti-)affinity term, required
      and preferred, are merged into the term's ``labelSelector`` as
      ``key In [the pod's value]`` / ``key NotIn [the pod's value]``. A key the pod's labels do
      not carry is ignored. The merged selector is what the scheduler sees from then on, for
      this pod and, symmetrically, when this pod is an existing pod.
    * validation of the term as written: a key in ``matchLabelKeys``/``mismatchLabelKeys``
      that also appears in the ``labelSelector`` (matchLabels or matchExpressions), or in both
      lists, or either list with no ``labelSelector``, is rejected (``AdmissionError``).
    * with ``match_label_keys=False`` (a cluster below 1.29, or 1.29/1.30 with the alpha gate
      off) the API server drops both fields: the term keeps its bare selector.
    * a term applies to the union of its ``namespaces`` and the namespaces its
      ``namespaceSelector`` selects (``{}``: all; namespace labels are given to the cluster, and
      every namespace has ``kubernetes.io/metadata.name``); neither set: the pod's own namespace.

Filtering (a node must pass all)
    * ``nodeSelector`` (every key/value on the node);
    * required ``nodeAffinity`` (terms ORed, expressions ANDed; In, NotIn, Exists,
      DoesNotExist, Gt, Lt);
    * volumes: every claim the pod uses must exist (else the pod waits, as for "persistentvolumeclaim
      not found"); a claim bound to a node-local volume admits only that node;
    * the incoming pod's required podAffinity: the existing pods that match *all* its required
      affinity terms are the candidates; a node passes when, for every term, the node has the
      term's topologyKey and a candidate runs in the same topology domain. **First-pod rule**:
      when no existing pod matches all the terms, a node that has every topologyKey passes if
      the incoming pod itself matches all its own terms (labels and namespace);
    * the incoming pod's required podAntiAffinity: no existing pod matching the term in the
      node's domain (a node without the topologyKey cannot violate the term);
    * **symmetric anti-affinity**: an existing pod's required anti-affinity term that matches
      the incoming pod keeps the incoming pod out of the existing pod's domain.

"Existing pods" are the pods bound to a node and not terminated. A pod that Succeeded or
Failed leaves the scheduler's view (and detaches its volumes); pending pods are not in it.

Scoring and choice
    ``choice="score"``: each feasible node scores the sum of the weights of the incoming pod's
    preferred podAffinity terms that some existing pod in the node's domain matches, minus those
    of its preferred podAntiAffinity terms; plus, symmetrically, the existing pods' preferred
    terms that match the incoming pod (affinity adds, anti-affinity subtracts, counted per
    existing pod), and ``hard_pod_affinity_weight`` (1, the scheduler's default) per existing
    pod whose required affinity term matches the incoming pod. The best score wins; ties go to a
    seeded RNG (``rng``) or, without one, to the first node by name.
    ``choice="any"``: a random feasible node, preferences ignored: in a real cluster other score
    plugins (resources, spreading, image locality) can outweigh preferences, so safety
    properties must not depend on them. Property tests use both.

Volumes (``Claim``)
    * ``access_modes``: ReadWriteOnce (default), ReadWriteMany, ReadOnlyMany.
    * ``local=True``: a node-local PV with WaitForFirstConsumer: the claim binds where its first
      pod lands, and from then on the PV's node affinity admits only that node.
    * ``local=False``: a network volume (one zone): a ReadWriteOnce volume may move between
      nodes but is attached to node X while any live pod on X uses it. The scheduler does *not*
      filter on attachment (it does not for ReadWriteOnce); when a pod is bound to a node while
      the volume is attached elsewhere, the model records a ``MultiAttach`` violation (the pod
      would hang in ContainerCreating). ``rwo_violations()`` checks the invariant at any instant.

The queue
    ``create_pod`` queues the pod; ``schedule_pending`` tries the queued pods in creation order,
    again and again until none moves (a bound placeholder can unblock the pods that follow it).
    ``unschedulable()`` lists the pods still pending.

    With ``kubernetes_version`` (``(1, 36)``, ``(1, 37)``, ...) the queue follows
    kube-scheduler's queueing hints (read from its source for issue 32; the model is ours):
    a pod that fails goes to the unschedulable pods with the plugins that rejected it
    (InterPodAffinity, NodeAffinity, VolumeBinding), and comes back only on an event one of
    them acts on, else at the periodic flush (``flush()``: in a real scheduler 5 minutes after
    the pod's last attempt, ``--pod-max-in-unschedulable-pods-duration``, checked every 30 s).
    ``schedule_pending`` flushes once when nothing else moves; the pods placed only after a
    flush are listed in ``waited_for_flush``. The events and what requeues:

    * an assigned pod added (bound): InterPodAffinity, when it matches *all* the waiting pod's
      required podAffinity terms (a pinned TaskRun pod when its placeholder is bound);
    * an assigned pod deleted (deleted, or terminated: the scheduler's informer turns a pod
      that Succeeded or Failed into a delete): InterPodAffinity, when it matches the waiting
      pod's required podAntiAffinity terms, or its own required podAntiAffinity terms match the
      waiting pod: *all* of them up to 1.36, *any* from 1.37 (kubernetes/kubernetes#139161). The
      deletion of a pod the waiting pod has *affinity* to never requeues it, on any version,
      although the first-pod rule may then admit it (kubernetes/kubernetes#141354, open);
    * a claim created: VolumeBinding; a node added (``add_node``): NodeAffinity and
      InterPodAffinity.

What it does NOT model
----------------------

* resources and capacity (CPU, memory, pod count, ephemeral storage, volume count limits,
  CSI node limits): every node fits every pod;
* taints and tolerations, ``spec.nodeName``, ``schedulerName`` (one scheduler),
  scheduling gates, pod priority and preemption, nominated pods, eviction, descheduling;
* ``topologySpreadConstraints`` (ignored, including the
  scheduler's default spreading), preferred nodeAffinity, other score plugins; the score is
  the documented preference sum, not the scheduler's normalised score;
* zones beyond what node labels express; zonal volume topology, Immediate binding, storage
  capacity, dynamic provisioning failures, ReadWriteOncePod;
* the scheduler's retry timing, unless ``kubernetes_version`` is given: then see "The queue";
  without it every pending pod is retried after every step, so "placed" means placed
  eventually. Backoff is never modelled (a requeued pod is retried at once), nor clock time:
  the flush is an event, not five minutes;
* timing and races: binding is instantaneous, a pod runs as soon as it is bound, the
  scheduler's cache and the informers are never stale, terminating (deleting) pods vanish at
  once; the API server's defaulting and the rest of its validation;
* pod label changes after creation (the merged selector is computed once, at creation, as the
  API server does).
"""
from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

HOSTNAME = "kubernetes.io/hostname"
RWO = "ReadWriteOnce"

PENDING = "Pending"
RUNNING = "Running"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
TERMINATED = (SUCCEEDED, FAILED)


class AdmissionError(ValueError):
    """The API server would reject the pod."""


class NotModeled(NotImplementedError):
    """The pod uses a field this model does not cover."""


@dataclasses.dataclass
class Node:
    name: str
    labels: dict[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.labels = {HOSTNAME: self.name, **self.labels}


@dataclasses.dataclass
class Claim:
    name: str
    namespace: str = "default"
    access_modes: tuple[str, ...] = (RWO,)
    local: bool = False
    bound_node: str | None = None  # the local PV's node, once bound

    @property
    def rwo(self) -> bool:
        return RWO in self.access_modes


@dataclasses.dataclass
class Pod:
    """A pod as created. ``affinity`` is the pod spec's ``affinity`` in Kubernetes' own shape."""

    name: str
    namespace: str = "default"
    labels: dict[str, str] = dataclasses.field(default_factory=dict)
    affinity: dict[str, Any] | None = None
    node_selector: dict[str, str] | None = None
    claims: tuple[str, ...] = ()
    # bookkeeping for the properties, not seen by the scheduler
    group: str | None = None  # e.g. the run a pod belongs to
    # set by the cluster
    phase: str = PENDING
    node: str | None = None
    seq: int = 0

    @property
    def live(self) -> bool:
        """Bound and not terminated: in the scheduler's view."""
        return self.node is not None and self.phase not in TERMINATED


@dataclasses.dataclass
class Violation:
    kind: str
    message: str


# --- label selectors ---------------------------------------------------------------------


def selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """A metav1.LabelSelector: null matches nothing, ``{}`` matches everything."""
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        if op == "In":
            ok = key in labels and labels[key] in values
        elif op == "NotIn":
            ok = key not in labels or labels[key] not in values
        elif op == "Exists":
            ok = key in labels
        elif op == "DoesNotExist":
            ok = key not in labels
        else:
            raise NotModeled(f"label selector operator {op!r}")
        if not ok:
            return False
    return True


def _node_requirement_matches(e: dict[str, Any], labels: dict[str, str]) -> bool:
    key, op, values = e["key"], e["operator"], e.get("values") or []
    if op in ("In", "NotIn", "Exists", "DoesNotExist"):
        return selector_matches({"matchExpressions": [e]}, labels)
    if op in ("Gt", "Lt"):
        if key not in labels:
            return False
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    raise NotModeled(f"node selector operator {op!r}")


def node_affinity_matches(affinity: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    required = ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return True
    for term in required.get("nodeSelectorTerms") or []:
        exprs = term.get("matchExpressions") or []
        if term.get("matchFields"):
            raise NotModeled("nodeAffinity matchFields")
        if exprs and all(_node_requirement_matches(e, labels) for e in exprs):
            return True
    return False


# --- admission: matchLabelKeys / mismatchLabelKeys ---------------------------------------

_TERM_LISTS = (
    ("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", False),
    ("podAffinity", "preferredDuringSchedulingIgnoredDuringExecution", True),
    ("podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", False),
    ("podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", True),
)


def _selector_keys(selector: dict[str, Any]) -> set[str]:
    keys = set((selector.get("matchLabels") or {}).keys())
    keys.update(e["key"] for e in selector.get("matchExpressions") or [])
    return keys


def validate_term(term: dict[str, Any]) -> None:
    """KEP-3633's validation of a term as written (before the merge)."""
    match = list(term.get("matchLabelKeys") or [])
    mismatch = list(term.get("mismatchLabelKeys") or [])
    if not match and not mismatch:
        return
    selector = term.get("labelSelector")
    if selector is None:
        raise AdmissionError("matchLabelKeys/mismatchLabelKeys cannot be set when labelSelector isn't set")
    both = set(match) & set(mismatch)
    if both:
        raise AdmissionError(f"key(s) {sorted(both)} in both matchLabelKeys and mismatchLabelKeys")
    in_selector = (set(match) | set(mismatch)) & _selector_keys(selector)
    if in_selector:
        raise AdmissionError(f"key(s) {sorted(in_selector)} in both matchLabelKeys/mismatchLabelKeys and labelSelector")


def merge_label_keys(term: dict[str, Any], pod_labels: dict[str, str], enabled: bool = True) -> dict[str, Any]:
    """The term as stored at pod creation: ``key In [v]`` / ``key NotIn [v]`` appended to the
    selector's matchExpressions for each listed key the pod carries; with the feature off, the
    two fields are dropped."""
    term = copy.deepcopy(term)
    match = term.pop("matchLabelKeys", None) or []
    mismatch = term.pop("mismatchLabelKeys", None) or []
    if not enabled or term.get("labelSelector") is None:
        return term
    extra = [{"key": k, "operator": "In", "values": [pod_labels[k]]} for k in match if k in pod_labels]
    extra += [{"key": k, "operator": "NotIn", "values": [pod_labels[k]]} for k in mismatch if k in pod_labels]
    if extra:
        selector = term["labelSelector"]
        selector["matchExpressions"] = list(selector.get("matchExpressions") or []) + extra
    return term


def namespace_labels(name: str, labels: dict[str, dict[str, str]]) -> dict[str, str]:
    """A namespace's labels; Kubernetes (1.21+) sets kubernetes.io/metadata.name on every one."""
    return {**labels.get(name, {}), "kubernetes.io/metadata.name": name}


class _Term:
    """A pod affinity term after admission, with its owner's namespace resolved: the union of
    ``namespaces`` and the namespaces ``namespaceSelector`` selects (``{}``: all); neither set
    means the owner's own namespace."""

    __slots__ = ("selector", "namespaces", "ns_selector", "ns_labels", "topology_key", "weight")

    def __init__(self, raw: dict[str, Any], owner_namespace: str, ns_labels: dict[str, dict[str, str]], weight: int = 0) -> None:
        self.selector = raw.get("labelSelector")
        self.ns_selector = raw.get("namespaceSelector")
        listed = raw.get("namespaces") or []
        self.namespaces = frozenset(listed or ([] if self.ns_selector is not None else [owner_namespace]))
        self.ns_labels = ns_labels
        self.topology_key = raw["topologyKey"]
        self.weight = weight

    def matches(self, pod: Pod) -> bool:
        in_scope = pod.namespace in self.namespaces or (
            self.ns_selector is not None and selector_matches(self.ns_selector, namespace_labels(pod.namespace, self.ns_labels))
        )
        return in_scope and selector_matches(self.selector, pod.labels)


class _Terms:
    __slots__ = ("req_aff", "pref_aff", "req_anti", "pref_anti")

    def __init__(self, affinity: dict[str, Any] | None, pod: Pod, enabled: bool, ns_labels: dict[str, dict[str, str]]) -> None:
        out: dict[tuple[str, str], list[_Term]] = {}
        for kind, field, preferred in _TERM_LISTS:
            terms = []
            for entry in ((affinity or {}).get(kind) or {}).get(field) or []:
                raw = entry["podAffinityTerm"] if preferred else entry
                validate_term(raw)
                merged = merge_label_keys(raw, pod.labels, enabled)
                terms.append(_Term(merged, pod.namespace, ns_labels, entry.get("weight", 0) if preferred else 0))
            out[(kind, field)] = terms
        self.req_aff = out[_TERM_LISTS[0][:2]]
        self.pref_aff = out[_TERM_LISTS[1][:2]]
        self.req_anti = out[_TERM_LISTS[2][:2]]
        self.pref_anti = out[_TERM_LISTS[3][:2]]


# --- the cluster -------------------------------------------------------------------------


class Cluster:
    def __init__(
        self,
        nodes: list[Node],
        *,
        choice: str = "score",
        rng: random.Random | None = None,
        match_label_keys: bool = True,
        hard_pod_affinity_weight: int = 1,
        namespaces: dict[str, dict[str, str]] | None = None,
        kubernetes_version: tuple[int, int] | None = None,
    ) -> None:
        if choice not in ("score", "any"):
            raise ValueError(choice)
        if choice == "any" and rng is None:
            rng = random.Random(0)
        self.nodes = {n.name: n for n in nodes}
        self.choice = choice
        self.rng = rng
        self.match_label_keys = match_label_keys
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.namespace_labels = namespaces or {}  # labels of namespaces, for namespaceSelector
        self.pods: dict[tuple[str, str], Pod] = {}
        self.claims: dict[tuple[str, str], Claim] = {}
        self.violations: list[Violation] = []
        self.log: list[str] = []
        self._terms: dict[tuple[str, str], _Terms] = {}
        self._seq = 0
        # queueing hints (None: every pending pod is retried after every step)
        self.kubernetes_version = kubernetes_version
        self._parked: dict[tuple[str, str], set[str]] = {}  # unschedulable pods: rejecting plugins
        self._flushed: set[tuple[str, str]] = set()  # back in the queue only by a flush
        self.waited_for_flush: list[Pod] = []  # placed only after a flush, in order

    # objects ---------------------------------------------------------------------------

    def create_claim(self, claim: Claim) -> Claim:
        """Create a claim unless one of that name exists (the StatefulSet controller and Tekton
        both reuse an existing claim)."""
        key = (claim.namespace, claim.name)
        if key not in self.claims:
            self.claims[key] = claim
            self.log.append(f"claim {claim.namespace}/{claim.name} created")
            self._requeue(lambda _pod, plugins: "VolumeBinding" in plugins)
        return self.claims[key]

    def add_node(self, node: Node) -> None:
        """A node joins (or is uncordoned): NodeAffinity and InterPodAffinity requeue."""
        self.nodes[node.name] = node
        self.log.append(f"node {node.name} added")
        self._requeue(lambda _pod, plugins: bool(plugins & {"NodeAffinity", "InterPodAffinity"}))

    def delete_claim(self, namespace: str, name: str) -> None:
        self.claims.pop((namespace, name), None)

    def create_pod(self, pod: Pod) -> Pod:
        """Admission (validation, label-key merge), then the scheduling queue."""
        key = (pod.namespace, pod.name)
        if key in self.pods:
            raise AdmissionError(f"pod {pod.namespace}/{pod.name} already exists")
        terms = _Terms(pod.affinity, pod, self.match_label_keys, self.namespace_labels)
        pod = dataclasses.replace(pod, phase=PENDING, node=None, seq=self._seq)
        self._seq += 1
        self.pods[key] = pod
        self._terms[key] = terms
        self.log.append(f"pod {pod.namespace}/{pod.name} created")
        return pod

    def finish_pod(self, pod: Pod, phase: str = SUCCEEDED) -> None:
        """The pod terminates: it leaves the scheduler's view and detaches its volumes."""
        assert phase in TERMINATED
        was_live = pod.live
        pod.phase = phase
        self.log.append(f"pod {pod.namespace}/{pod.name} {phase.lower()}")
        if was_live:
            self._deleted(pod)

    def delete_pod(self, pod: Pod) -> None:
        was_live = pod.live
        terms = self._terms.get((pod.namespace, pod.name))
        self.pods.pop((pod.namespace, pod.name), None)
        self._parked.pop((pod.namespace, pod.name), None)
        pod.phase = FAILED
        self.log.append(f"pod {pod.namespace}/{pod.name} deleted")
        if was_live and terms is not None:
            self._deleted(pod, terms)
        self._terms.pop((pod.namespace, pod.name), None)

    def get(self, namespace: str, name: str) -> Pod:
        return self.pods[(namespace, name)]

    def live_pods(self) -> list[Pod]:
        return [p for p in self.pods.values() if p.live]

    def pending(self) -> list[Pod]:
        return sorted((p for p in self.pods.values() if p.node is None and p.phase == PENDING), key=lambda p: p.seq)

    unschedulable = pending

    # scheduling ------------------------------------------------------------------------

    def feasible_nodes(self, pod: Pod) -> list[str]:
        return [n for n in sorted(self.nodes) if self._fits(pod, self.nodes[n])]

    def why_not(self, pod: Pod, node_name: str) -> str | None:
        """The first filter that rejects the node, or None when it fits (for messages)."""
        return self._filter(pod, self.nodes[node_name])

    def schedule(self, pod: Pod) -> str | None:
        """One scheduling attempt; the chosen node, or None (the pod stays pending)."""
        feasible = self.feasible_nodes(pod)
        if not feasible:
            return None
        if self.choice == "any":
            assert self.rng is not None
            node = self.rng.choice(feasible)
        else:
            scores = {n: self.score(pod, self.nodes[n]) for n in feasible}
            best = max(scores.values())
            top = [n for n in feasible if scores[n] == best]
            node = self.rng.choice(top) if self.rng is not None and len(top) > 1 else top[0]
        self._bind(pod, node)
        return node

    def schedule_pending(self, flush: bool = True) -> list[Pod]:
        """Try every pending pod in the queue, in creation order, until no pod moves; the pods
        bound. With queueing hints, a pod that fails waits for an event that requeues it, and
        when nothing moves the unschedulable pods are flushed back once (``flush``)."""
        bound: list[Pod] = []
        flushed = False
        while True:
            progress = True
            while progress:
                progress = False
                for pod in self.pending():
                    key = (pod.namespace, pod.name)
                    if key in self._parked:
                        continue
                    if self.schedule(pod) is not None:
                        bound.append(pod)
                        progress = True
                        if key in self._flushed:
                            self.waited_for_flush.append(pod)
                    elif self.kubernetes_version is not None:
                        self._parked[key] = self._rejecting_plugins(pod)
            if not flush or flushed or not self._parked:
                return bound
            self.flush()
            flushed = True

    def flush(self) -> None:
        """The periodic flush: every unschedulable pod goes back to the queue."""
        for key in self._parked:
            self._flushed.add(key)
            self.log.append(f"pod {key[0]}/{key[1]} flushed back to the queue")
        self._parked.clear()

    def waiting(self) -> list[Pod]:
        """Pending pods that wait for an event or the flush (queueing hints only)."""
        return [p for p in self.pending() if (p.namespace, p.name) in self._parked]

    # queueing hints ------------------------------------------------------------------------

    def _rejecting_plugins(self, pod: Pod) -> set[str]:
        plugins = set()
        for n in self.nodes:
            why = self.why_not(pod, n) or ""
            if why.startswith(("nodeSelector", "nodeAffinity")):
                plugins.add("NodeAffinity")
            elif why.startswith("claim"):
                plugins.add("VolumeBinding")
            elif why:
                plugins.add("InterPodAffinity")
        return plugins

    def _requeue(self, hint: Any) -> None:
        for key in list(self._parked):
            if hint(self.pods[key], self._parked[key]):
                del self._parked[key]
                self._flushed.discard(key)
                self.log.append(f"pod {key[0]}/{key[1]} requeued")

    def _match(self, terms: list[_Term], pod: Pod) -> bool:
        """Whether `pod` matches the terms as the hint of this version reads them: all of
        them up to 1.36, any from 1.37 (kubernetes/kubernetes#139161); never when none."""
        if not terms:
            return False
        version = self.kubernetes_version or (0, 0)
        return any(t.matches(pod) for t in terms) if version >= (1, 37) else all(t.matches(pod) for t in terms)

    def _added(self, pod: Pod) -> None:
        def hint(waiting: Pod, plugins: set[str]) -> bool:
            req = self._terms[(waiting.namespace, waiting.name)].req_aff
            return "InterPodAffinity" in plugins and bool(req) and all(t.matches(pod) for t in req)

        self._requeue(hint)

    def _deleted(self, pod: Pod, terms: _Terms | None = None) -> None:
        own = terms or self._terms[(pod.namespace, pod.name)]

        def hint(waiting: Pod, plugins: set[str]) -> bool:
            if "InterPodAffinity" not in plugins:
                return False
            anti = self._terms[(waiting.namespace, waiting.name)].req_anti
            return self._match(anti, pod) or self._match(own.req_anti, waiting)

        self._requeue(hint)

    def _bind(self, pod: Pod, node: str) -> None:
        for name in pod.claims:
            claim = self.claims[(pod.namespace, name)]
            if claim.local and claim.bound_node is None:
                claim.bound_node = node
            if not claim.local and claim.rwo:
                elsewhere = sorted({
                    other.node for other in self.live_pods()
                    if name in other.claims and other.namespace == pod.namespace and other.node != node
                })
                if elsewhere:
                    self.violations.append(Violation(
                        "MultiAttach",
                        f"pod {pod.namespace}/{pod.name} bound to {node} while ReadWriteOnce claim {name} is attached to {', '.join(elsewhere)}",
                    ))
        pod.node = node
        pod.phase = RUNNING
        self.log.append(f"pod {pod.namespace}/{pod.name} -> {node}")
        if self.kubernetes_version is not None:
            self._added(pod)

    def _fits(self, pod: Pod, node: Node) -> bool:
        return self._filter(pod, node) is None

    def _filter(self, pod: Pod, node: Node) -> str | None:
        for k, v in (pod.node_selector or {}).items():
            if node.labels.get(k) != v:
                return f"nodeSelector {k}={v}"
        if not node_affinity_matches(pod.affinity, node.labels):
            return "nodeAffinity"
        for name in pod.claims:
            claim = self.claims.get((pod.namespace, name))
            if claim is None:
                return f"claim {name} not found"
            if claim.local and claim.bound_node is not None and claim.bound_node != node.name:
                return f"claim {name}: volume node affinity ({claim.bound_node})"
        terms = self._terms[(pod.namespace, pod.name)]
        existing = [p for p in self.live_pods() if p is not pod]
        if not self._pod_affinity_ok(pod, terms.req_aff, node, existing):
            return "pod affinity"
        for t in terms.req_anti:
            if t.topology_key not in node.labels:
                continue
            for e in existing:
                if t.matches(e) and self._same_domain(e, node, t.topology_key):
                    return f"pod anti-affinity (existing pod {e.name})"
        for e in existing:
            for t in self._terms[(e.namespace, e.name)].req_anti:
                if t.matches(pod) and self._same_domain(e, node, t.topology_key):
                    return f"existing pod {e.name}'s anti-affinity"
        return None

    def _same_domain(self, existing: Pod, node: Node, key: str) -> bool:
        assert existing.node is not None
        there = self.nodes[existing.node].labels
        return key in node.labels and key in there and there[key] == node.labels[key]

    def _pod_affinity_ok(self, pod: Pod, req: list[_Term], node: Node, existing: list[Pod]) -> bool:
        if not req:
            return True
        if any(t.topology_key not in node.labels for t in req):
            return False
        # the candidates must match every term (one pod for all terms: kubernetes#130784)
        candidates = [e for e in existing if all(t.matches(e) for t in req)]
        if all(any(self._same_domain(e, node, t.topology_key) for e in candidates) for t in req):
            return True
        # first pod of a group that has affinity to itself
        return not candidates and all(t.matches(pod) for t in req)

    def score(self, pod: Pod, node: Node) -> int:
        terms = self._terms[(pod.namespace, pod.name)]
        existing = [p for p in self.live_pods() if p is not pod]
        total = 0
        for t in terms.pref_aff:
            if any(t.matches(e) and self._same_domain(e, node, t.topology_key) for e in existing):
                total += t.weight
        for t in terms.pref_anti:
            if any(t.matches(e) and self._same_domain(e, node, t.topology_key) for e in existing):
                total -= t.weight
        for e in existing:
            et = self._terms[(e.namespace, e.name)]
            for t in et.pref_aff:
                if t.matches(pod) and self._same_domain(e, node, t.topology_key):
                    total += t.weight
            for t in et.pref_anti:
                if t.matches(pod) and self._same_domain(e, node, t.topology_key):
                    total -= t.weight
            for t in et.req_aff:
                if t.matches(pod) and self._same_domain(e, node, t.topology_key):
                    total += self.hard_pod_affinity_weight
        return total

    # invariants ------------------------------------------------------------------------

    def rwo_violations(self) -> list[str]:
        """ReadWriteOnce claims whose live pods are on more than one node, right now."""
        out = []
        for (ns, name), claim in sorted(self.claims.items()):
            if not claim.rwo:
                continue
            nodes = sorted({p.node for p in self.live_pods() if p.namespace == ns and name in p.claims if p.node})
            if len(nodes) > 1:
                users = sorted(f"{p.name}@{p.node}" for p in self.live_pods() if p.namespace == ns and name in p.claims)
                out.append(f"ReadWriteOnce claim {ns}/{name} used on {len(nodes)} nodes at once: {', '.join(users)}")
        return out

    def shared_nodes(self) -> list[str]:
        """Nodes where live pods of more than one group (run) are, right now."""
        by_node: dict[str, set[str]] = {}
        for p in self.live_pods():
            if p.group is not None and p.node is not None:
                by_node.setdefault(p.node, set()).add(p.group)
        return [f"{n}: {', '.join(sorted(g))}" for n, g in sorted(by_node.items()) if len(g) > 1]
