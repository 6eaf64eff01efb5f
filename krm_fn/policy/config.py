"""functionConfig: the typed CoschedulePolicy or a ConfigMap with Tekton's own keys,
validated against schemas/coschedulepolicy.schema.json and resolved into a Policy."""
from __future__ import annotations

from krm_fn.core.data import copy_data
from krm_fn.core.data import type_name
from krm_fn.core.errors import InputError
from krm_fn.core.keys import INDEX_KEY
from krm_fn.core.keys import LEGACY_INDEX_KEY
from krm_fn.core.keys import LEGACY_PATH_KEY
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.keys import RUN_NAME_KEY
from krm_fn.core.keys import RUN_UID_KEY
from krm_fn.core.record import Record
from krm_fn.core.results import ResourceRef
from krm_fn.core.results import Result
from krm_fn.policy import hardening
from krm_fn.policy import versions
from krm_fn.policy.configmap import BOOL_KEYS
from krm_fn.policy.configmap import CM_KEYS
from krm_fn.policy.configmap import PARSE_BOOL
from krm_fn.policy.configmap import YAML_KEYS
from krm_fn.policy.configmap import unknown_key
from krm_fn.policy.nop import DEFAULT_NOP_IMAGE
from krm_fn.policy.nop import nop_image
from krm_fn.policy.nop import parse_version
from krm_fn.policy.podtemplate import pod_template_problems
from krm_fn.policy.releases import NEWEST
from krm_fn.policy.releases import set_security_context_default
from krm_fn.yaml import guards
from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

POLICY_API_VERSION = "fn.kpt.dev/v1alpha1"
POLICY_KIND = "CoschedulePolicy"
ACCEPTED = f"`{POLICY_KIND}.v1alpha1.fn.kpt.dev` or `ConfigMap.v1`"
NEWEST_TEKTON = NEWEST  # the newest release of policy/releases.py
# the newest Shipwright release read (reference/shipwright-scheduling.md: tags to v0.20.0)
NEWEST_SHIPWRIGHT = (0, 20, 0)
# config-defaults default-service-account: Tekton's value when the key is absent
# (pkg/apis/config/default.go DefaultServiceAccountValue), also the shipped ConfigMap's
DEFAULT_SERVICE_ACCOUNT = "default"
MODES = ("workspaces", "pipelineruns", "isolate-pipelinerun", "disabled")
STRATEGIES = ("auto", "placeholder", "run-keyed")
# the newest Kubernetes release (1.37.0, with kubernetes/kubernetes#139161's queueing hint)
NEWEST_KUBERNETES = versions.NEWEST_KUBERNETES
# matchLabelKeys / mismatchLabelKeys in pod (anti-)affinity (KEP-3633): alpha 1.29 (gate off),
# beta and on by default 1.31, GA 1.33
RUN_KEYED_SINCE = (1, 31)


class Policy(Record):
    """The resolved policy every transform reads. Plain data only."""

    __slots__ = (
        "mode", "tekton_version", "assistant_image", "assistant_pod_template", "assistant_resources", "set_security_context",
        "set_security_context_ro_rootfs", "pvc_retention", "topology_spread", "scheduling_gates",
        "default_pod_template", "default_service_account", "node_selector", "tolerations", "scheduler_name", "runtime_class_name", "shipwright_version",
        "on_conflict",
        "hardening", "hardening_allow_toleration_keys", "hardening_allow_node_selector_keys",
        "generate_name", "strategy", "kubernetes_version", "isolation_scope", "ref", "file_path", "file_index",
        "field_prefix",
    )

    def __init__(
        self,
        mode: str = "workspaces",
        tekton_version: tuple[int, int, int] = NEWEST_TEKTON,
        assistant_image: str = DEFAULT_NOP_IMAGE,
        assistant_pod_template: dict[str, Any] | None = None,
        assistant_resources: dict[str, Any] | None = None,
        set_security_context: bool | None = None,
        set_security_context_ro_rootfs: bool = False,
        pvc_retention: dict[str, str] | None = None,
        topology_spread: list[dict[str, Any]] | None = None,
        scheduling_gates: list[dict[str, Any]] | None = None,
        default_pod_template: dict[str, Any] | None = None,
        default_service_account: str = DEFAULT_SERVICE_ACCOUNT,
        node_selector: dict[str, str] | None = None,
        tolerations: list[dict[str, Any]] | None = None,
        scheduler_name: str | None = None,
        runtime_class_name: str | None = None,
        shipwright_version: tuple[int, int, int] = NEWEST_SHIPWRIGHT,
        on_conflict: str = "error",
        hardening: str = "deny",
        hardening_allow_toleration_keys: list[str] | None = None,
        hardening_allow_node_selector_keys: list[str] | None = None,
        generate_name: str = "error",
        strategy: str = "auto",
        kubernetes_version: tuple[int, int] = NEWEST_KUBERNETES,
        isolation_scope: str | None = None,
        ref: ResourceRef | None = None,
        file_path: str | None = None,
        file_index: int | None = None,
        field_prefix: str = "spec",
    ) -> None:
        # None: a fresh empty value per policy (the dataclass's default_factory)
        self.mode = mode
        self.tekton_version = tekton_version
        self.assistant_image = assistant_image
        self.assistant_pod_template: dict[str, Any] = {} if assistant_pod_template is None else assistant_pod_template
        # None: Tekton's fixed requests = limits (assistant.RESOURCES)
        self.assistant_resources = assistant_resources
        # None: Tekton's default for the version (on from v1.16.0, PR #9589)
        self.set_security_context = (
            set_security_context_default(tekton_version) if set_security_context is None else set_security_context
        )
        self.set_security_context_ro_rootfs = set_security_context_ro_rootfs
        self.pvc_retention: dict[str, str] = (
            {"whenDeleted": "Delete", "whenScaled": "Delete"} if pvc_retention is None else pvc_retention
        )
        self.topology_spread: list[dict[str, Any]] = [] if topology_spread is None else topology_spread
        self.scheduling_gates: list[dict[str, Any]] = [] if scheduling_gates is None else scheduling_gates
        self.default_pod_template: dict[str, Any] = {} if default_pod_template is None else default_pod_template
        self.default_service_account = default_service_account
        self.node_selector: dict[str, str] = {} if node_selector is None else node_selector
        self.tolerations: list[dict[str, Any]] = [] if tolerations is None else tolerations
        self.scheduler_name = scheduler_name
        self.runtime_class_name = runtime_class_name
        self.shipwright_version = shipwright_version
        self.on_conflict = on_conflict
        self.hardening = hardening
        self.hardening_allow_toleration_keys: list[str] = (
            [] if hardening_allow_toleration_keys is None else hardening_allow_toleration_keys
        )
        self.hardening_allow_node_selector_keys: list[str] = (
            [] if hardening_allow_node_selector_keys is None else hardening_allow_node_selector_keys
        )
        self.generate_name = generate_name
        self.strategy = strategy  # auto | placeholder | run-keyed (SPEC §4b)
        self.kubernetes_version = kubernetes_version
        # namespace | cluster | None (each strategy's own: see `scope`)
        self.isolation_scope = isolation_scope
        # where the config came from, for results that point at it
        self.ref = ref
        self.file_path = file_path
        self.file_index = file_index
        self.field_prefix = field_prefix  # "spec" for the typed form, "data" for a ConfigMap


    @property
    def run_key(self) -> str:
        """The Tekton pod label run-keyed terms key on: the run's UID where Tekton sets it on
        TaskRuns and pods (v0.63.0 on), else its name."""
        return RUN_UID_KEY if self.tekton_version >= (0, 63, 0) else RUN_NAME_KEY

    def scope(self, strategy: str, mode: str) -> str:
        """Where the terms that keep runs (or workspaces) apart look for the others: the
        policy's isolationScope, else each strategy's own. A placeholder copies Tekton's repel
        term, which has no namespace selector: the run's namespace (tektoncd/pipeline#9531).
        Run-keyed isolate-pipelinerun repels every namespace's runs, run-keyed pipelineruns
        prefers to spread within the namespace. "" where nothing is kept apart (run-keyed
        workspaces mode, disabled)."""
        if mode == "disabled" or (strategy == "run-keyed" and mode not in ("pipelineruns", "isolate-pipelinerun")):
            return ""
        if self.isolation_scope:
            return self.isolation_scope
        return "cluster" if strategy == "run-keyed" and mode == "isolate-pipelinerun" else "namespace"

    @property
    def run_keyed_ok(self) -> bool:
        return self.kubernetes_version >= RUN_KEYED_SINCE


class _Source(Record):
    __slots__ = ("ref", "file_path", "file_index")

    def __init__(self, ref: ResourceRef | None, file_path: str | None, file_index: int | None) -> None:
        self.ref = ref
        self.file_path = file_path
        self.file_index = file_index


def _schema() -> dict[str, Any]:
    # schemas/coschedulepolicy.schema.json as Python data: reading the file needed json (~1 ms
    # to import) and importlib.resources (~7 ms); tests/unit/policy/test_schemacheck.py keeps them equal
    from krm_fn.policy.schemadata import SCHEMA

    return SCHEMA


def load(fc: Any) -> tuple[Policy | None, list[Result]]:
    """Resolve a functionConfig (round-trip tree or None). Policy is None on any error."""
    if fc is None:
        return Policy(), []
    if not isinstance(fc, dict):
        return None, [
            Result(
                "error",
                f"functionConfig is a {type_name(fc)}, not an object; expect {ACCEPTED}",
                field_path="functionConfig",
            )
        ]
    plain = to_plain(fc)
    src = _source(plain)
    kind = plain.get("kind")
    api_version = plain.get("apiVersion")
    if kind == "ConfigMap" and api_version == "v1":
        return _from_configmap(plain, src, fc)
    if kind == POLICY_KIND and api_version == POLICY_API_VERSION:
        errs = _validate(plain, src, _dotted, fc)
        if errs:
            return None, errs
        return _resolve(plain.get("spec") or {}, src, "spec", {})
    if kind in (POLICY_KIND, "ConfigMap") and api_version != (wanted := POLICY_API_VERSION if kind == POLICY_KIND else "v1"):
        # the kind is right and only its version is not: say it at the apiVersion, with the fix
        return None, [_err(src, "apiVersion", f"a {kind} is apiVersion {wanted}, not {api_version!r}; set apiVersion: {wanted}")]
    return None, [
        _err(
            src,
            "kind",
            f"unsupported functionConfig {kind}.{api_version}; expect {ACCEPTED} "
            "(see schemas/coschedulepolicy.schema.json)",
        )
    ]


def config_file(fc: Any) -> str | None:
    """The file a functionConfig's annotations name (kpt's, or files mode's annotate_config)."""
    return _source(fc).file_path if isinstance(fc, dict) else None


def _source(plain: dict[str, Any]) -> _Source:
    md_raw = plain.get("metadata")
    md: dict[str, Any] = md_raw if isinstance(md_raw, dict) else {}
    ann_raw = md.get("annotations")
    ann: dict[str, Any] = ann_raw if isinstance(ann_raw, dict) else {}
    path = ann.get(PATH_KEY) or ann.get(LEGACY_PATH_KEY)
    idx = ann.get(INDEX_KEY) or ann.get(LEGACY_INDEX_KEY)
    ref = ResourceRef(
        str(plain.get("apiVersion") or ""),
        str(plain.get("kind") or ""),
        str(md.get("name") or ""),
        str(md.get("namespace")) if md.get("namespace") else None,
    )
    try:
        index = int(idx) if idx is not None else None
    except ValueError:
        index = None
    return _Source(ref if ref.kind else None, str(path) if path else None, index)


def _err(src: _Source, path: str, message: str, severity: str = "error", tags: tuple[tuple[str, str], ...] = ()) -> Result:
    name = src.ref.display() if src.ref else "functionConfig"
    return Result(
        severity,
        f"{name}: {message}" if src.ref else message,
        resource=src.ref,
        field_path=path,
        file_path=src.file_path,
        file_index=src.file_index,
        tags=tags,
    )


def _said(src: _Source, said: list[tuple[str, str, str]]) -> list[Result]:
    """Results of what policy/versions says: (severity, field path, message) each."""
    return [_err(src, path, message, severity) for severity, path, message in said]


def _validate(doc: dict[str, Any], src: _Source, render_path: Any, original: Any = None) -> list[Result]:
    """Schema errors of `doc`; `original` is the round-trip tree it came from, whose
    scalars keep their spelling for the messages."""
    from krm_fn.policy import schemacheck

    if schemacheck.conforms(_schema(), doc) is True:
        return []  # exact for this schema's keywords; jsonschema (~0.1 s to import) not needed
    import jsonschema  # lazy: only invalid configs (for the messages) pay for it

    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    out = []
    for e in errors:
        if schemacheck.left_to_shipwright(e):
            continue
        if e.validator == "additionalProperties" and isinstance(e.instance, dict):
            # one error per unknown key, at the key (its line in the file), with the nearest
            # known key: a typo of the typed form is told as the ConfigMap form's is
            out.extend(_unknown_keys(e, src, render_path))
            continue
        path = render_path(list(e.absolute_path)) or "spec"
        out.append(_err(src, path, f"{schemacheck.message(e, original)} (schemas/coschedulepolicy.schema.json)"))
    return out


def _unknown_keys(e: Any, src: _Source, render_path: Any) -> list[Result]:
    from krm_fn.policy.configmap import did_you_mean

    known = e.schema.get("properties") or {}
    out = []
    for key in sorted((k for k in e.instance if k not in known), key=str):
        path = render_path([*e.absolute_path, key]) or "spec"
        near = did_you_mean(str(key), known)
        hint = f"did you mean {near!r}?" if near else "the keys here are " + ", ".join(known)
        out.append(_err(src, path, f"unknown key {key!r}; {hint} (schemas/coschedulepolicy.schema.json)"))
    return out


def _dotted(parts: list[str | int]) -> str:
    """spec.scheduling.tolerations[0].operator"""
    out = ""
    for x in parts:
        out += f"[{x}]" if isinstance(x, int) else (f".{x}" if out else x)
    return out


def _from_configmap(plain: dict[str, Any], src: _Source, fc: Any = None) -> tuple[Policy | None, list[Result]]:
    raw = fc.get("data") if isinstance(fc, dict) else None
    source: dict[Any, Any] = raw if isinstance(raw, dict) else {}
    data = plain.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, [_err(src, "data", "data must be a map of strings")]
    spec: dict[str, Any] = {}
    errors: list[Result] = []
    paths: dict[tuple[str, ...], str] = {}
    warnings: list[Result] = []
    for key in sorted(data):
        if key not in CM_KEYS:
            unknown = unknown_key(str(key))
            if unknown is not None:
                severity, message = unknown
                (errors if severity == "error" else warnings).append(_err(src, f"data.{key}", message, severity))
            continue
        value = data[key]
        fpath = f"data.{key}"
        if not isinstance(value, str):
            from krm_fn.policy import schemacheck

            errors.append(_err(src, fpath, f"must be a string, {schemacheck.quote_hint(value, source.get(key))}"))
            continue
        target = CM_KEYS[key]
        paths[target] = fpath
        parsed: Any
        if key in BOOL_KEYS:
            if value not in PARSE_BOOL:
                errors.append(
                    _err(src, fpath, f"{value!r} is not a boolean; use \"true\" or \"false\"")
                )
                continue
            parsed = PARSE_BOOL[value]
        elif key in YAML_KEYS:
            try:
                # bounded like the input itself: an alias bomb in a string is still a bomb
                parsed = guards.load_plain(value, f"{fpath}") if value.strip() else {}
            except InputError as e:
                errors.append(_err(src, fpath, str(e)))
                continue
            if parsed is None:
                parsed = {}
        elif key == "coschedule":
            parsed = value.lower()
            if parsed not in MODES:
                errors.append(
                    _err(
                        src,
                        fpath,
                        f'invalid value for feature flag "coschedule": "{value}"; use one of '
                        + ", ".join(MODES),
                    )
                )
                continue
        else:
            parsed = value
        node = spec
        for part in target[:-1]:
            node = node.setdefault(part, {})
        node[target[-1]] = parsed
    if errors:
        return None, errors + warnings
    typed = {"apiVersion": POLICY_API_VERSION, "kind": POLICY_KIND, "spec": spec}

    def render_path(parts: list[str | int]) -> str:
        p = [str(x) for x in parts]
        for n in range(len(p), 0, -1):
            head = tuple(p[1:n]) if p and p[0] == "spec" else tuple(p[:n])
            if head in paths:
                return ".".join([paths[head], *p[n:]])
        return "data"

    if spec:
        errs = _validate(typed, src, render_path)
        if errs:
            return None, errs + warnings
    policy, results = _resolve(spec, src, "data", paths)
    return policy, warnings + results


def _resolve(
    spec: dict[str, Any], src: _Source, prefix: str, cm_paths: dict[tuple[str, ...], str]
) -> tuple[Policy | None, list[Result]]:
    """A Policy from a validated spec: the coscheduling mode by Tekton's flag migration
    table, then the assistant, defaults, scheduling and hardening values as given."""
    p = Policy(ref=src.ref, file_path=src.file_path, file_index=src.file_index, field_prefix=prefix)
    if "tektonVersion" in spec:
        p.tekton_version = parse_version(spec["tektonVersion"])

    def where(*typed: str) -> str:
        return cm_paths.get(typed, ".".join((prefix, *typed)))

    mode, said = versions.resolve_mode(spec, p.tekton_version, where)
    results = _said(src, said)
    if p.tekton_version > NEWEST_TEKTON:
        results = [*_said(src, [versions.newer_tekton(p.tekton_version, where("tektonVersion"))]), *results]
    if mode is None:
        return None, results
    found = pod_template_problems(where("defaultPodTemplate"), spec.get("defaultPodTemplate"))
    assistant = spec.get("assistant")
    if isinstance(assistant, dict):
        found += pod_template_problems(where("assistant", "podTemplate"), assistant.get("podTemplate"))
    if isinstance(assistant, dict) and isinstance(assistant.get("resources"), dict):
        from krm_fn.policy import resources  # decimal: only a policy that sets resources pays

        found += resources.problems(where("assistant", "resources"), assistant["resources"])
    problems = [_err(src, path, message) for path, message in found]
    if problems:
        return None, results + problems
    p.mode = mode
    a = spec.get("assistant") or {}
    if "image" in a:
        p.assistant_image = a["image"]
        if "tektonVersion" in spec:
            results = results + _said(src, versions.image_version_check(a["image"], p.tekton_version, where))
    else:
        p.assistant_image = nop_image(p.tekton_version)
    _resolve_assistant(p, a)
    p.default_pod_template = copy_data(spec.get("defaultPodTemplate") or {})
    p.default_service_account = spec.get("defaultServiceAccount", DEFAULT_SERVICE_ACCOUNT)
    _resolve_scheduling(p, spec)
    h = spec.get("hardening") or {}
    p.hardening = h.get("action", "deny")
    p.hardening_allow_toleration_keys = list(h.get("allowTolerationKeys") or [])
    p.hardening_allow_node_selector_keys = list(h.get("allowNodeSelectorKeys") or [])
    results = results + _template_hardening(p, src, where)
    p.generate_name = spec.get("generateName", "error")
    p.strategy = spec.get("strategy", "auto")
    p.isolation_scope = spec.get("isolationScope")
    if "kubernetesVersion" in spec:
        major, minor, _patch = parse_version(spec["kubernetesVersion"])
        p.kubernetes_version = (major, minor)
        if p.kubernetes_version > NEWEST_KUBERNETES:
            results = [*results, *_said(src, [versions.newer_kubernetes(p.kubernetes_version, where("kubernetesVersion"))])]
    if p.strategy == "run-keyed" and not p.run_keyed_ok and p.mode != "disabled":
        return None, results + [
            _err(
                src,
                where("strategy"),
                "strategy run-keyed writes pod affinity with matchLabelKeys, which Kubernetes "
                "{}.{} does not apply (beta and on by default from 1.31; below, the API server drops "
                "the field and every pod of every run would have to share one node); set "
                "kubernetesVersion to the version your cluster runs if it is 1.31 or newer, or use "
                "strategy placeholder".format(*p.kubernetes_version),
            )
        ]
    return p, results


def _template_hardening(p: Policy, src: _Source, where: Callable[..., str]) -> list[Result]:
    """SHIP-0039's hardening rules on the pod templates the policy writes itself: the
    placeholder's (`assistant.podTemplate`, which takes the run's pods to the node it is
    placed on) and the one filled into runs (`defaultPodTemplate`). Said at the typed
    form's value, or inside the ConfigMap key's YAML string, as the template's other problems."""
    sev = hardening.severity(p.hardening)
    if sev is None:
        return []
    out: list[Result] = []
    for typed, what, tpl in (
        (("assistant", "podTemplate"), "the assistant's pod template", p.assistant_pod_template),
        (("defaultPodTemplate",), "the default pod template", p.default_pod_template),
    ):
        if not tpl:
            continue
        base = where(*typed)
        found = hardening.check(
            tpl.get("nodeSelector"), tpl.get("tolerations"), p.hardening_allow_toleration_keys, p.hardening_allow_node_selector_keys
        )
        for f in found:
            message = f"{what} {f.message} ({hardening.advice(f.rule)})"
            out.append(_err(src, f"{base}.{f.where}", message, sev, (("hardening", f.rule),)))
    return out


def _resolve_scheduling(p: Policy, spec: dict[str, Any]) -> None:
    s = spec.get("scheduling") or {}
    # sorted: the output must not depend on the order of keys in the config
    p.node_selector = dict(sorted((s.get("nodeSelector") or {}).items()))
    p.tolerations = copy_data(s.get("tolerations") or [])
    p.scheduler_name = s.get("schedulerName") or None
    p.runtime_class_name = s.get("runtimeClassName") or None
    if "shipwrightVersion" in spec:
        p.shipwright_version = parse_version(spec["shipwrightVersion"])
    p.on_conflict = s.get("onConflict", "error")


def _resolve_assistant(p: Policy, a: dict[str, Any]) -> None:
    """The assistant's fields but its image; setSecurityContext unset is Tekton's default for
    the version (on from v1.16.0)."""
    p.assistant_pod_template = copy_data(a.get("podTemplate") or {})
    p.assistant_resources = copy_data(a["resources"]) if a.get("resources") else None
    p.set_security_context = bool(a.get("setSecurityContext", set_security_context_default(p.tekton_version)))
    p.set_security_context_ro_rootfs = bool(a.get("setSecurityContextReadOnlyRootFilesystem", False))
    p.pvc_retention = {"whenDeleted": "Delete", "whenScaled": "Delete", **(a.get("pvcRetentionPolicy") or {})}
    p.topology_spread = copy_data(a.get("topologySpreadConstraints") or [])
    p.scheduling_gates = copy_data(a.get("schedulingGates") or [])
