"""The placeholder StatefulSet ("affinity assistant") of SPEC §4, as plain data in output order.

Everything taken from the run or the policy is plain data already: copied with
core.data.copy_data (new collections, shared immutable scalars), not copy.deepcopy, which
costs several times more per node (two StatefulSets per run)."""
from __future__ import annotations

from krm_fn.core.data import copy_data
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.record import Record
from krm_fn.policy import nodeaffinity
from krm_fn.policy.config import Policy
from krm_fn.transforms.tekton import names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

CONTAINER = "affinity-assistant"
ARGS = ["tekton_run_indefinitely"]
RESOURCES = {"cpu": "50m", "memory": "100Mi"}
# the five fields Tekton copies whole from the run's pod template, else from
# default-affinity-assistant-pod-template (reference §4)
COPIED_FIELDS = ("nodeSelector", "tolerations", "imagePullSecrets", "securityContext", "priorityClassName")
AFFINITY_KINDS = ("nodeAffinity", "podAffinity", "podAntiAffinity")
PIPELINE_LABEL = "tekton.dev/pipeline"


class Spec(Record):
    """What one assistant needs from its run."""

    __slots__ = (
        "name", "namespace", "owner_kind", "owner_name", "run_labels", "run_pod_template",
        "run_service_account", "own_assistants", "claim_templates", "claims", "isolate",
        "generate_name", "pipeline_ref", "embedded_pipeline", "pipeline_meta",
    )

    def __init__(
        self,
        name: str,
        namespace: str,
        owner_kind: str,
        owner_name: str,
        run_labels: dict[str, str],
        run_pod_template: dict[str, Any],
        run_service_account: str,
        own_assistants: frozenset[str],
        claim_templates: list[dict[str, Any]],
        claims: list[str],
        isolate: bool,
        generate_name: str = "",
        pipeline_ref: dict[str, Any] | None = None,
        embedded_pipeline: bool = False,
        pipeline_meta: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.namespace = namespace
        self.owner_kind = owner_kind  # PipelineRun | TaskRun
        self.owner_name = owner_name
        self.run_labels = run_labels
        self.run_pod_template = run_pod_template  # plain, after defaults and scheduling policy
        self.run_service_account = run_service_account
        self.own_assistants = own_assistants  # every assistant name this run can produce
        self.claim_templates = claim_templates  # plain, final names
        self.claims = claims  # user claims, one unmounted volume each
        self.isolate = isolate
        # a PipelineRun's pipeline, for the labels Tekton's reconciler adds to the run (plain)
        self.generate_name = generate_name
        self.pipeline_ref = pipeline_ref  # spec.pipelineRef
        self.embedded_pipeline = embedded_pipeline  # spec.pipelineSpec is set
        self.pipeline_meta = pipeline_meta  # metadata of the referenced Pipeline, when in the input


def statefulset(spec: Spec, policy: Policy) -> dict[str, Any]:
    label_key = "tekton.dev/pipelineRun" if spec.owner_kind == "PipelineRun" else "tekton.dev/taskRun"
    fixed = names.fixed_labels(label_key, spec.owner_name, spec.name)
    metadata: dict[str, Any] = {"name": spec.name}
    if spec.namespace:
        metadata["namespace"] = spec.namespace
    metadata["labels"] = {**reconciled_labels(spec, policy.tekton_version), **fixed}
    metadata["annotations"] = {OWNER_ANNOTATION: f"{spec.owner_kind}/{spec.owner_name}"}
    sts_spec: dict[str, Any] = {
        "replicas": 1,
        "selector": {"matchLabels": dict(fixed)},
        # no Service is needed, but the field is required by the schema up to Kubernetes 1.32
        "serviceName": spec.name,
        "template": {"metadata": {"labels": dict(fixed)}, "spec": pod_spec(spec, policy)},
    }
    if spec.claim_templates:
        sts_spec["volumeClaimTemplates"] = copy_data(spec.claim_templates)
    # Tekton leaves Retain/Retain and leaks the claims of a deleted run (#7618)
    sts_spec["persistentVolumeClaimRetentionPolicy"] = dict(policy.pvc_retention)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": metadata, "spec": sts_spec}


def reconciled_labels(spec: Spec, tekton_version: tuple[int, int, int]) -> dict[str, str]:
    """The run's labels as Tekton's PipelineRun reconciler holds them when it creates the
    assistant, which copies them all (v1.15.0, pkg/reconciler/pipelinerun/
    affinity_assistant.go:298-311). Before that it has added the Pipeline's labels under the
    run's own and `tekton.dev/pipeline` (pipelinerun.go:1804-1848, 1966-1973): see
    `pipeline_label`. A TaskRun's labels are taken as they are."""
    labels = dict(spec.run_labels)
    if spec.owner_kind != "PipelineRun":
        return labels
    meta = spec.pipeline_meta or {}
    raw = meta.get("labels")
    if isinstance(raw, dict):
        for key, value in raw.items():
            if isinstance(key, str) and isinstance(value, str):
                labels.setdefault(key, value)  # the run's own label wins
    value = pipeline_label(spec, labels.get(PIPELINE_LABEL), tekton_version)
    if value is not None:
        labels[PIPELINE_LABEL] = value
    return labels


def pipeline_label(spec: Spec, own: str | None, tekton_version: tuple[int, int, int]) -> str | None:
    """The value of `tekton.dev/pipeline` on a PipelineRun once its pipeline is resolved
    (None: unknown at render time, the run's own label stays as it is).

    Tekton sets it in two steps. First, only when the run lacks it: the pipelineRef name; for
    an embedded spec the run's name, or from v1.13.0 its generateName cut to a valid name;
    for a resolver the `name` param when a `kind` param is "pipeline". Then it overwrites it
    with the resolved Pipeline's name, except when that Pipeline has a generateName and the
    label is not empty (an exception added in v1.13.0). For an embedded spec the "resolved
    Pipeline" is the run itself, so a run without generateName always gets its own name."""
    ref = spec.pipeline_ref or {}
    ref_name = ref.get("name")
    if isinstance(ref_name, str) and ref_name:
        # fetched by this name; a Pipeline that is not in the input is taken to have no generateName
        generate = (spec.pipeline_meta or {}).get("generateName")
        pipeline_generate = generate if isinstance(generate, str) else ""
        return _resolved(ref_name, pipeline_generate, ref_name if own is None else own, tekton_version)
    if spec.embedded_pipeline:
        first = own
        if first is None:
            first = (restrict_length(spec.generate_name) or spec.owner_name) if spec.generate_name else spec.owner_name
        return _resolved(spec.owner_name, spec.generate_name, first, tekton_version)
    if ref.get("resolver"):
        raw = ref.get("params")
        params = {p["name"]: p.get("value") for p in (raw if isinstance(raw, list) else []) if isinstance(p, dict) and isinstance(p.get("name"), str)}
        name = params.get("name")
        if params.get("kind") == "pipeline" and isinstance(name, str) and name:
            # then the resolved Pipeline's name, which is this one for the cluster resolver
            # (it fetches the Pipeline by this name) and by convention for hub and bundles
            return name
    return None


def _resolved(name: str, generate_name: str, current: str, tekton_version: tuple[int, int, int]) -> str:
    """The second step: the resolved Pipeline's `name` replaces the label's `current` value."""
    if current and generate_name and tekton_version >= (1, 13, 0):
        return current
    return name or current


def restrict_length(base: str) -> str:
    """Tekton's RestrictLength (pkg/names/generate.go): at most 63 characters, then no
    trailing character that is not an ASCII letter or digit."""
    base = base[: names.MAX_LABEL]
    while base and not (base[-1].isascii() and base[-1].isalnum()):
        base = base[:-1]
    return base


def pod_spec(spec: Spec, policy: Policy) -> dict[str, Any]:
    run_tpl = spec.run_pod_template
    default = policy.assistant_pod_template
    merged: dict[str, Any] = {}
    for field in COPIED_FIELDS:
        value = run_tpl.get(field)
        if value is None:
            value = default.get(field)
        if value not in (None, "", [], {}):
            merged[field] = copy_data(value)
    if run_tpl.get("nodeSelector") is None and isinstance(merged.get("nodeSelector"), dict):
        # the policy's nodeSelector beside the run's own nodeAffinity: a key that leaves it no
        # node is not taken (scheduling.assistant_node_selector reported it)
        terms = nodeaffinity.required_terms(run_tpl)
        for key in nodeaffinity.conflicting_keys(terms, merged["nodeSelector"]) if terms else ():
            del merged["nodeSelector"][key]
        if not merged["nodeSelector"]:
            del merged["nodeSelector"]
    out: dict[str, Any] = {}
    # Tekton v1.9.0+ (PR #9253; v1.15.0 affinity_assistant.go:362-373): the
    # default-affinity-assistant-pod-template's SA, else the run's, which Tekton's defaulting
    # has set to default-service-account when the run names none (pipelinerun_defaults.go:64-67)
    sa = default.get("serviceAccountName") or spec.run_service_account or policy.default_service_account
    if sa:
        out["serviceAccountName"] = sa
    windows = (merged.get("nodeSelector") or {}).get("kubernetes.io/os") == "windows"
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": policy.assistant_image,
        "args": list(ARGS),
        # Tekton's fixed values, or the policy's (a departure until Tekton ships its own field)
        "resources": copy_data(policy.assistant_resources)
        if policy.assistant_resources
        else {"requests": dict(RESOURCES), "limits": dict(RESOURCES)},
        "securityContext": container_security_context(policy, windows),
    }
    if spec.claim_templates:
        # Tekton mounts each claim at a relative path equal to its template name
        container["volumeMounts"] = [
            {"name": t["metadata"]["name"], "mountPath": t["metadata"]["name"]} for t in spec.claim_templates
        ]
    out["containers"] = [container]
    out.update(merged)
    out["affinity"] = affinity(run_tpl.get("affinity"), spec.own_assistants, spec.isolate, policy.isolation_scope == "cluster")
    if policy.topology_spread:
        out["topologySpreadConstraints"] = topology_spread(policy.topology_spread)
    if policy.scheduling_gates:
        out["schedulingGates"] = copy_data(policy.scheduling_gates)
    if spec.claims:
        out["volumes"] = [
            {"name": f"workspace-{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(spec.claims)
        ]
    return out


def container_security_context(policy: Policy, windows: bool) -> dict[str, Any]:
    """`{}` unless set-security-context (v0.64+); Windows nodes get only runAsNonRoot."""
    if not policy.set_security_context:
        return {}
    if windows:
        return {"runAsNonRoot": True}
    sc: dict[str, Any] = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if policy.set_security_context_ro_rootfs:
        sc["readOnlyRootFilesystem"] = True
    return sc


def affinity(run_affinity: Any, own_assistants: Iterable[str], isolate: bool, all_namespaces: bool = False) -> dict[str, Any]:
    """The run's affinity (a deep copy: operator#2318) without our own pinning terms, plus
    the anti-affinity term: preferred weight 100, or required in isolate-pipelinerun; Tekton's
    (the run's namespace), or with `all_namespaces` (isolationScope: cluster) every namespace's."""
    own = set(own_assistants)
    aff = copy_data(run_affinity) if isinstance(run_affinity, dict) else {}
    pod_aff = aff.get("podAffinity")
    if isinstance(pod_aff, dict):
        req = pod_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(req, list):
            pod_aff["requiredDuringSchedulingIgnoredDuringExecution"] = [
                t for t in req if names.pinned_assistant(t) not in own
            ]
    aff = prune_empty(aff)
    anti = aff.setdefault("podAntiAffinity", {})
    if not isinstance(anti, dict):
        anti = aff["podAntiAffinity"] = {}
    if isolate:
        key, term = "requiredDuringSchedulingIgnoredDuringExecution", names.anti_term(all_namespaces)
    else:
        key, term = "preferredDuringSchedulingIgnoredDuringExecution", {"weight": 100, "podAffinityTerm": names.anti_term(all_namespaces)}
    terms = anti.get(key)
    if not isinstance(terms, list):
        terms = anti[key] = []
    if term not in terms:
        terms.append(term)
    return aff


def prune_empty(aff: dict[str, Any]) -> dict[str, Any]:
    """Drop empty affinity kinds and empty term lists (never inside a term: an empty
    labelSelector matches everything) so `podAffinity: {}` and an absent field give the
    same assistant: the second render must match the first."""
    out: dict[str, Any] = {}
    for kind, body in aff.items():
        if isinstance(body, dict):
            body = {k: v for k, v in body.items() if v not in ({}, [], None)}
        if body not in ({}, [], None):
            out[kind] = body
    return out


def topology_spread(constraints: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """KEP-895 constraints; without a selector they spread the assistants themselves."""
    out = []
    for c in constraints:
        c = copy_data(c)
        if "labelSelector" not in c:
            c["labelSelector"] = {"matchLabels": {names.LABEL_COMPONENT: names.COMPONENT}}
        out.append(c)
    return out
