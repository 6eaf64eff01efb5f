"""schemacheck.conforms must agree with jsonschema on every config it answers for."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT

from krm_fn.policy import config
from krm_fn.policy import schemacheck

sys.path.insert(0, str(ROOT / "tools"))
import gen_schemadata  # noqa: E402  (tools/gen_schemadata.py writes krm_fn/policy/schemadata.py)

SCHEMA = config._schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PKG = ROOT / "krm_fn"

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-2, 3)
    | st.sampled_from([0.0, 1.0, 2.5, -1.5])
    | st.text(max_size=4)
    | st.sampled_from(["v1.2", "1.2.3", "workspaces", "Delete", "deny", "x/y", "", "fn.kpt.dev/v1alpha1"])
)
ANY_JSON = st.recursive(
    _SCALARS,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=6,
)


def valid(schema: Any) -> st.SearchStrategy[Any]:
    """Instances the schema accepts (built from its own keywords)."""
    if schema is True or not schema:
        return ANY_JSON
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    t = schema.get("type")
    if t == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", ()))
        strat = st.fixed_dictionaries(
            {k: valid(props[k]) for k in sorted(required)},
            optional={k: valid(v) for k, v in props.items() if k not in required},
        )
        extra = schema.get("additionalProperties", True)
        if extra is not False:
            extra_strat = ANY_JSON if extra is True else valid(extra)
            keys = st.text(min_size=1, max_size=5).filter(lambda k: k not in props)
            strat = st.tuples(strat, st.dictionaries(keys, extra_strat, max_size=2)).map(lambda p: {**p[1], **p[0]})
        return strat
    if t == "array":
        return st.lists(valid(schema.get("items", True)), max_size=3)
    if t == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=8)
    if t == "integer":
        return st.integers(min_value=schema.get("minimum", -5), max_value=50)
    if t == "boolean":
        return st.booleans()
    return ANY_JSON


def mutated(schema: Any) -> st.SearchStrategy[Any]:
    """Mostly valid instances with wrong values, types and keys sprinkled in at any depth."""
    if not isinstance(schema, dict):
        return ANY_JSON
    t = schema.get("type")
    if t == "object" and "properties" in schema:
        props = schema["properties"]
        required = set(schema.get("required", ()))
        strat = st.fixed_dictionaries(
            {k: mutated(props[k]) for k in sorted(required)},
            optional={k: mutated(v) for k, v in props.items() if k not in required},
        )
        odd_keys = st.dictionaries(st.sampled_from(["extra", "spec", "image", "name"]), ANY_JSON, max_size=1)
        strat = st.tuples(strat, odd_keys).map(lambda p: {**p[1], **p[0]})
        return st.one_of(strat, strat, strat, ANY_JSON)
    if t == "array":
        return st.one_of(st.lists(mutated(schema.get("items", True)), max_size=3), ANY_JSON)
    return st.one_of(valid(schema), valid(schema), ANY_JSON)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.deferred(lambda: valid(SCHEMA)))
def test_valid_configs_are_valid_without_jsonschema(doc: Any) -> None:
    assert VALIDATOR.is_valid(doc)
    assert schemacheck.conforms(SCHEMA, doc) is True


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.deferred(lambda: mutated(SCHEMA)))
def test_conforms_agrees_with_jsonschema(doc: Any) -> None:
    answer = schemacheck.conforms(SCHEMA, doc)
    assert answer is not None  # every keyword of this schema is modelled
    assert answer == VALIDATOR.is_valid(doc)


def test_json_types_follow_jsonschema() -> None:
    integer = {"type": "integer", "minimum": 1}
    assert schemacheck.conforms(integer, 2.0) is True and VALIDATOR.is_type(2.0, "integer")
    assert schemacheck.conforms(integer, True) is False
    assert schemacheck.conforms({"const": 1}, True) is False
    assert schemacheck.conforms({"enum": [1]}, 1.0) is True
    assert schemacheck.conforms({"type": "string", "format": "email"}, "x") is None  # unknown: defer


def _imported_by_loading(spec: str, check: str, module: str) -> bool:
    """Whether loading a CoschedulePolicy with `spec` (Python source), in a fresh interpreter,
    imports `module`; `check` (Python source over policy and results) must hold."""
    code = (
        "import sys\n"
        "from krm_fn.policy import config\n"
        f"policy, results = config.load({{'apiVersion': 'fn.kpt.dev/v1alpha1', 'kind': 'CoschedulePolicy', 'spec': {spec}}})\n"
        f"assert {check}, results\n"
        f"print({module!r} in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out in ("True", "False"), out
    return out == "True"


def test_a_valid_config_never_imports_jsonschema() -> None:
    spec = "{'coschedule': 'pipelineruns', 'assistant': {'pvcRetentionPolicy': {'whenDeleted': 'Retain'}}}"
    assert not _imported_by_loading(spec, "policy is not None and policy.mode == 'pipelineruns'", "jsonschema")


def test_an_invalid_config_still_gets_jsonschema_messages() -> None:
    policy, results = config.load(
        {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "spec": {"coschedul": "x"}}
    )
    assert policy is None
    assert any("Additional properties are not allowed" in r.message and r.field_path == "spec" for r in results)


def test_the_schema_data_is_the_schema_file() -> None:
    assert (PKG / "policy" / "schemadata.py").read_text(encoding="utf-8") == gen_schemadata.text(), (
        f"krm_fn/policy/schemadata.py is not schemas/coschedulepolicy.schema.json: `{gen_schemadata.COMMAND}` writes it again"
    )
    assert gen_schemadata.main(["--check"]) == 0
    schema = json.loads((PKG / "schemas" / "coschedulepolicy.schema.json").read_text(encoding="utf-8"))
    assert schema == SCHEMA and json.dumps(SCHEMA) == json.dumps(schema)  # the same data, in the same order


def test_a_valid_config_never_imports_json() -> None:
    """The policy is checked against the schema as Python data (krm_fn/policy/schemadata.py): a run
    with a valid CoschedulePolicy imports no JSON module."""
    spec = "{'coschedule': 'workspaces', 'assistant': {'podTemplate': {'nodeSelector': {'pool': 'ci'}}}}"
    assert not _imported_by_loading(spec, "policy is not None and not results", "json")

