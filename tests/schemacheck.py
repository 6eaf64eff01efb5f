"""Is the output something Kubernetes accepts?

- Core objects (the placeholder StatefulSet, and Tekton pod templates embedded into a Pod)
  are validated against the Kubernetes OpenAPI schemas that the `kubernetes-validate`
  package ships (offline), in their strict form (unknown fields are errors, as with
  `kubectl apply`'s default `--validate=strict`), for Kubernetes `K8S_VERSION`.
- Shipwright Build/BuildRun are validated against the CRDs' v1beta1 openAPIV3Schema from
  `shared/crds/` (beside the repository in CI), with objects closed the same way.
- YAML 1.1 readers (kubectl's go-yaml v2 lineage) must read label and annotation values,
  selectors and ConfigMap data back as strings: `string_errors` checks a YAML-1.1 parse.

Every checker returns a list of messages (empty = valid) naming the field path.
"""
from __future__ import annotations

import copy
import functools
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from referencing import Registry
from referencing import Resource

K8S_VERSION = "1.32"  # serviceName is still required here (SPEC §4 relies on it)
ROOT = Path(__file__).resolve().parent.parent

# Tekton's pod.Template (the PodTemplate of runs); env goes to every step container
TEKTON_POD_TEMPLATE_FIELDS = frozenset({
    "nodeSelector", "env", "tolerations", "affinity", "securityContext", "volumes",
    "runtimeClassName", "automountServiceAccountToken", "dnsPolicy", "dnsConfig",
    "enableServiceLinks", "priorityClassName", "schedulerName", "imagePullSecrets",
    "hostAliases", "hostNetwork", "topologySpreadConstraints",
})


# --------------------------------------------------------------------------- Kubernetes


def _schema_dir() -> Any:
    base = resources.files("kubernetes_validate").joinpath("kubernetes-json-schema")
    d = base.joinpath(f"v{K8S_VERSION}.0-local-strict")
    if not d.is_dir():
        raise RuntimeError(f"kubernetes-validate ships no schemas for Kubernetes {K8S_VERSION}")
    return d


@functools.cache
def _definitions() -> Registry:
    defs = json.loads(_schema_dir().joinpath("_definitions.json").read_text())
    return Resource.from_contents(defs) @ Registry()  # type: ignore[no-any-return]


@functools.cache
def _k8s_validator(api_version: str, kind: str) -> jsonschema.protocols.Validator:
    # kubernetes-validate's file naming: apps/v1 -> apps-v1, rbac.authorization.k8s.io/v1 -> rbac-v1
    api = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    f = _schema_dir().joinpath(f"{kind.lower()}-{api}.json")
    if not f.is_file():
        raise KeyError(f"no Kubernetes {K8S_VERSION} schema for {kind} {api_version}")
    schema = json.loads(f.read_text())
    registry = Resource.from_contents(schema) @ _definitions()
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _messages(validator: Any, obj: Any, prefix: str = "") -> list[str]:
    out = []
    for e in sorted(validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path]):
        path = _dotted(e.absolute_path)
        out.append(f"{prefix}{path or '<root>'}: {e.message[:300]}")
    return out


def _dotted(parts: Any) -> str:
    s = ""
    for p in parts:
        s += f"[{p}]" if isinstance(p, int) else ("." if s else "") + str(p)
    return s


def k8s_errors(obj: dict[str, Any]) -> list[str]:
    """Validate a whole core manifest (apiVersion + kind) for K8S_VERSION, strictly."""
    return _messages(_k8s_validator(obj["apiVersion"], obj["kind"]), obj)


def pod_template_errors(template: Any, where: str = "podTemplate") -> list[str]:
    """A Tekton PodTemplate: only Tekton's fields, each valid as the PodSpec field it becomes
    (checked by embedding the template into a Pod, env into its container)."""
    if not isinstance(template, dict):
        return [f"{where}: is a {type(template).__name__}, not a mapping"]
    errors = [f"{where}.{k}: not a field of Tekton's PodTemplate" for k in template if k not in TEKTON_POD_TEMPLATE_FIELDS]
    spec = {k: copy.deepcopy(v) for k, v in template.items() if k in TEKTON_POD_TEMPLATE_FIELDS and k != "env"}
    container: dict[str, Any] = {"name": "step", "image": "busybox"}
    if "env" in template:
        container["env"] = copy.deepcopy(template["env"])
    spec["containers"] = [container]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "check"}, "spec": spec}
    for m in k8s_errors(pod):
        for inner, outer in (("spec.containers[0].env", f"{where}.env"), ("spec.", f"{where}."), ("spec:", f"{where}:")):
            if m.startswith(inner):
                m = outer + m[len(inner):]
                break
        errors.append(m)
    return errors


def tekton_pod_templates(run: dict[str, Any]) -> list[tuple[str, Any]]:
    """(field path, template) of every pod template a PipelineRun/TaskRun carries."""
    spec = run.get("spec") or {}
    if not isinstance(spec, dict):
        return []
    v1 = run.get("apiVersion") == "tekton.dev/v1"
    out: list[tuple[str, Any]] = []
    if run.get("kind") == "TaskRun":
        if "podTemplate" in spec:
            out.append(("spec.podTemplate", spec["podTemplate"]))
        return out
    if v1:
        trt = spec.get("taskRunTemplate") or {}
        if isinstance(trt, dict) and "podTemplate" in trt:
            out.append(("spec.taskRunTemplate.podTemplate", trt["podTemplate"]))
    elif "podTemplate" in spec:
        out.append(("spec.podTemplate", spec["podTemplate"]))
    key = "podTemplate" if v1 else "taskPodTemplate"
    for i, trs in enumerate(spec.get("taskRunSpecs") or []):
        if isinstance(trs, dict) and key in trs:
            out.append((f"spec.taskRunSpecs[{i}].{key}", trs[key]))
    return out


# --------------------------------------------------------------------------- Shipwright CRDs


def crds_dir() -> Path | None:
    """shared/crds beside the repository (CI clones it there), or KRM_CRDS_DIR."""
    for cand in (os.environ.get("KRM_CRDS_DIR"), ROOT.parent / "shared" / "crds", Path("/work/shared/crds")):
        if cand and Path(cand, "shipwright.io_builds.yaml").is_file():
            return Path(cand)
    return None


def _close(schema: Any) -> Any:
    """Unknown fields are errors (kubectl's strict field validation), unless the schema
    preserves them."""
    if isinstance(schema, dict):
        s = {k: _close(v) for k, v in schema.items()}
        if "properties" in s and "additionalProperties" not in s and not s.get("x-kubernetes-preserve-unknown-fields"):
            s["additionalProperties"] = False
        return s
    if isinstance(schema, list):
        return [_close(v) for v in schema]
    return schema


@functools.cache
def _crd_validator(kind: str, version: str) -> jsonschema.protocols.Validator:
    d = crds_dir()
    if d is None:
        raise FileNotFoundError("shared/crds not found beside the repository (set KRM_CRDS_DIR)")
    path = d / f"shipwright.io_{kind.lower()}s.yaml"
    crd = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            return jsonschema.Draft202012Validator(_close(v["schema"]["openAPIV3Schema"]))
    raise KeyError(f"{path.name} has no version {version}")


def shipwright_errors(obj: dict[str, Any]) -> list[str]:
    version = str(obj.get("apiVersion", "")).rpartition("/")[2]
    return _messages(_crd_validator(str(obj["kind"]), version), obj)


# --------------------------------------------------------------------------- strings


def load_yaml11(text: str) -> Any:
    """What a YAML 1.1 reader sees (PyYAML's loader resolves `on`, `0755`, `12:30`, dates)."""
    return yaml.load(text, Loader=yaml.SafeLoader)


_STRING_MAPS = ("labels", "annotations", "matchLabels", "nodeSelector")


def string_errors(obj: Any, path: str = "") -> list[str]:
    """Fields Kubernetes types as strings, read with YAML 1.1: label and annotation maps,
    selectors, ConfigMap/Secret data, env values, toleration fields."""
    out: list[str] = []

    def need_str(v: Any, where: str) -> None:
        if not isinstance(v, str):
            out.append(f"{where}: read as {type(v).__name__} {v!r} by a YAML 1.1 reader; quote it")

    def walk(node: Any, where: str, parent_key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                p = f"{where}.{k}" if where else str(k)
                if not isinstance(k, str):
                    out.append(f"{where or '<root>'}: key {k!r} read as {type(k).__name__} by a YAML 1.1 reader; quote it")
                if k in _STRING_MAPS and isinstance(v, dict):
                    for kk, vv in v.items():
                        need_str(kk, f"{p} key")
                        need_str(vv, f"{p}.{kk}")
                elif parent_key == "env" and k == "value" or parent_key == "tolerations" and k in ("key", "value", "operator", "effect"):
                    need_str(v, p)
                else:
                    walk(v, p, str(k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]", parent_key)

    if isinstance(obj, dict) and obj.get("kind") in ("ConfigMap", "Secret"):
        for key in ("data", "stringData", "binaryData"):
            data = obj.get(key)
            if isinstance(data, dict):
                for k, v in data.items():
                    need_str(k, f"{path}{key} key")
                    need_str(v, f"{path}{key}.{k}")
    walk(obj, path.rstrip("."), "")
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- one object


def object_errors(obj: Any) -> list[str]:
    """Everything this module knows how to check about one output object."""
    if not isinstance(obj, dict):
        return []
    api, kind = obj.get("apiVersion"), obj.get("kind")
    errors: list[str] = []
    if (api, kind) == ("apps/v1", "StatefulSet"):
        errors += k8s_errors(obj)
    elif str(api).startswith("tekton.dev/") and kind in ("PipelineRun", "TaskRun"):
        for where, pt in tekton_pod_templates(obj):
            errors += pod_template_errors(pt, where)
    elif api == "shipwright.io/v1beta1" and kind in ("Build", "BuildRun"):
        errors += shipwright_errors(obj)
    return errors


def assert_valid_object(obj: Any) -> None:
    errors = object_errors(obj)
    name = (obj.get("metadata") or {}).get("name") if isinstance(obj, dict) else None
    assert not errors, f"{obj.get('kind') if isinstance(obj, dict) else obj} {name}:\n  " + "\n  ".join(errors)
