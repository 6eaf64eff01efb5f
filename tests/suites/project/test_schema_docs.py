"""schemas/coschedulepolicy.schema.json documents itself: every property has a description
(an editor's language server shows it on hover), every `default` is valid for its property,
and writing a default explicitly resolves to the same policy as leaving the field out."""
from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from shared import ROOT

from krm_fn.policy import config
from krm_fn.transforms.tekton import assistant

SCHEMA_PATH = ROOT / "schemas" / "coschedulepolicy.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def properties(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], bool, dict[str, Any]]]:
    """(path, reachable through objects only, property schema) for every property at any
    depth, including those of array items (the path then skips the array step)."""
    yield from _walk(schema, path, True)


def _walk(schema: Any, path: tuple[str, ...], plain: bool) -> Iterator[tuple[tuple[str, ...], bool, dict[str, Any]]]:
    if not isinstance(schema, dict):
        return
    for name, sub in (schema.get("properties") or {}).items():
        yield (*path, name), plain, sub
        yield from _walk(sub, (*path, name), plain)
    if isinstance(schema.get("items"), dict):
        yield from _walk(schema["items"], path, False)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _walk(schema["additionalProperties"], path, False)


def undocumented(schema: Any) -> list[str]:
    return [".".join(p) for p, _, sub in properties(schema) if not str(sub.get("description") or "").strip()]


def invalid_defaults(schema: Any) -> list[str]:
    out = []
    for p, _, sub in properties(schema):
        if "default" in sub:
            errors = list(jsonschema.Draft202012Validator(sub).iter_errors(sub["default"]))
            out += [f"{'.'.join(p)}: {e.message}" for e in errors]
    return out


def test_the_walk_sees_every_level() -> None:
    seen = {".".join(p) for p, _, _ in properties(SCHEMA)}
    assert {"apiVersion", "spec.coschedule", "spec.assistant.podTemplate.tolerations.key",
            "spec.assistant.topologySpreadConstraints.labelSelector.matchExpressions.values",
            "spec.assistant.schedulingGates.name", "spec.hardening.allowNodeSelectorKeys"} <= seen
    assert len(seen) >= 63


def test_every_property_has_a_description() -> None:
    assert undocumented(SCHEMA) == []


def test_every_default_is_valid_for_its_property() -> None:
    assert invalid_defaults(SCHEMA) == []


def test_the_checks_can_fail() -> None:
    broken = copy.deepcopy(SCHEMA)
    tsc = broken["properties"]["spec"]["properties"]["assistant"]["properties"]["topologySpreadConstraints"]
    del tsc["items"]["properties"]["maxSkew"]["description"]
    broken["properties"]["spec"]["properties"]["hardening"]["properties"]["action"]["default"] = "block"
    broken["properties"]["spec"]["properties"]["tektonVersion"]["default"] = "latest"
    assert undocumented(broken) == ["spec.assistant.topologySpreadConstraints.maxSkew"]
    assert [m.split(":")[0] for m in invalid_defaults(broken)] == ["spec.tektonVersion", "spec.hardening.action"]


def test_the_id_is_a_urn_not_an_address() -> None:
    # no server publishes the schema: an https $id would send editors to a page that does not exist
    assert SCHEMA["$id"].startswith("urn:krm-coschedule:")
    assert SCHEMA["title"] and SCHEMA["description"]


def _typed(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": config.POLICY_API_VERSION, "kind": config.POLICY_KIND, "metadata": {"name": "ci"}, "spec": spec}


def _spec_defaults() -> list[tuple[tuple[str, ...], Any]]:
    return [(p[1:], sub["default"]) for p, plain, sub in properties(SCHEMA) if plain and p[0] == "spec" and "default" in sub]


@pytest.mark.parametrize(
    ("path", "default"), [pytest.param(p, d, id=".".join(("spec", *p))) for p, d in _spec_defaults()]
)
def test_an_explicit_default_resolves_like_an_absent_field(path: tuple[str, ...], default: Any) -> None:
    doc = _typed({})
    del doc["spec"]
    node = doc
    full = ("spec", *path)
    for part in full[:-1]:
        node = node.setdefault(part, {})
    node[full[-1]] = copy.deepcopy(default)
    implicit, implicit_results = config.load(_typed({}))
    explicit, results = config.load(doc)
    assert implicit_results == []
    assert explicit is not None, results
    assert explicit == implicit
    # a set legacy flag is ignored from Tekton v1.0.0 on, and says so
    assert [r.severity for r in results] == (["warning"] if path == ("disableAffinityAssistant",) else [])


def test_every_spec_field_with_a_code_default_declares_it() -> None:
    declared = {p for p, _ in _spec_defaults()}
    assert {("coschedule",), ("tektonVersion",), ("assistant", "image"), ("assistant", "pvcRetentionPolicy"),
            ("scheduling", "onConflict"), ("hardening", "action"), ("generateName",),
            ("defaultServiceAccount",)} <= declared


def test_the_topology_spread_selector_default_is_the_one_applied() -> None:
    items = SCHEMA["properties"]["spec"]["properties"]["assistant"]["properties"]["topologySpreadConstraints"]["items"]
    declared = items["properties"]["labelSelector"]["default"]
    constraint = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}
    assert assistant.topology_spread([constraint])[0]["labelSelector"] == declared
