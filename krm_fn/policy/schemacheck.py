"""An exact check of the JSON Schema subset that schemas/coschedulepolicy.schema.json uses.

Importing jsonschema costs about 0.1 s, more than starting Python: most runs carry a valid
functionConfig, so `conforms` answers "valid" on its own and config.py asks jsonschema only
when `conforms` finds a problem (for its error messages) or meets a keyword it does not know.
tests/unit/policy/test_schemacheck.py checks with hypothesis that both agree."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.data import type_name
from krm_fn.core.errors import Unsure
from krm_fn.yaml.roundtrip import loader

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# keywords that only annotate
_IGNORED = frozenset({"$schema", "$id", "title", "description", "$comment", "examples", "default"})
_KNOWN = frozenset(
    {"type", "properties", "additionalProperties", "required", "const", "enum", "pattern",
     "minLength", "minimum", "items"}
) | _IGNORED


def conforms(schema: Any, instance: Any) -> bool | None:
    """True: valid; False: invalid; None: cannot tell (an unknown keyword or value type)."""
    try:
        return _check(schema, instance)
    except Unsure:  # a keyword or value this checker does not model: jsonschema decides
        return None


def _is_type(instance: Any, name: str) -> bool:
    # Draft 2020-12 as jsonschema implements it: bool is not a number, 1.0 is an integer
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if name == "integer":
        if isinstance(instance, bool):
            return False
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, (int, float)) and not isinstance(instance, bool)
    raise Unsure(name)


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, 1 equals 1.0, containers compare deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is None and b is None
    raise Unsure(type(a).__name__)


def _check(schema: Any, instance: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise Unsure("schema")
    for key in schema:
        if key not in _KNOWN:
            raise Unsure(key)
    if not isinstance(instance, (dict, list, str, bool, int, float)) and instance is not None:
        raise Unsure(type(instance).__name__)
    # every keyword is checked (no early return): an Unsure anywhere must surface
    ok = _check_value(schema, instance)
    if isinstance(instance, list) and "items" in schema:
        for v in instance:
            ok = _check(schema["items"], v) and ok
    if isinstance(instance, dict):
        ok = _check_object(schema, instance) and ok
    return ok


def _check_value(schema: dict[str, Any], instance: Any) -> bool:
    """The keywords on the instance itself: type, const, enum, and the string and number
    bounds."""
    ok = True
    t = schema.get("type")
    if t is not None:
        names = t if isinstance(t, list) else [t]
        if not any(_is_type(instance, n) for n in names):
            ok = False
    if "const" in schema and not _json_equal(instance, schema["const"]):
        ok = False
    if "enum" in schema and not any(_json_equal(instance, v) for v in schema["enum"]):
        ok = False
    if isinstance(instance, str):
        if "minLength" in schema and len(instance) < schema["minLength"]:
            ok = False
        if "pattern" in schema and not patterns.search(schema["pattern"], instance):
            ok = False
    if isinstance(instance, (int, float)) and not isinstance(instance, bool):
        if "minimum" in schema and instance < schema["minimum"]:
            ok = False
    return ok


def _check_object(schema: dict[str, Any], instance: dict[Any, Any]) -> bool:
    """required, properties and additionalProperties of a mapping."""
    ok = all(k in instance for k in schema.get("required", ()))
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for k, v in instance.items():
        if not isinstance(k, str):
            raise Unsure("key")
        ok = _check(props.get(k, extra), v) and ok
    return ok


# --------------------------------------------------------------------------- in the user's words


def left_to_shipwright(e: Any) -> bool:
    """An enum error of spec.scheduling.tolerations[i].operator or .effect: the schema names
    the values for editors, and the policy's check (validation.check_policy) reports it
    with Shipwright's rule and reason, beside every other problem of the scheduling values."""
    p = list(e.absolute_path)
    return (
        e.validator == "enum" and len(p) == 5 and p[:3] == ["spec", "scheduling", "tolerations"]
        and p[4] in ("operator", "effect")
    )


def _node_at(tree: Any, path: Any) -> Any:
    for part in path:
        try:
            tree = tree[part]
        except (KeyError, IndexError, TypeError):
            return None
    return tree


def message(e: Any, original: Any = None) -> str:
    """A schema violation in the user's words (`original`: the round-trip tree, for the
    spelling of a value YAML typed)."""
    if e.validator == "type" and e.validator_value == "string" and not isinstance(e.instance, (dict, list)):
        return f"must be a string, {quote_hint(e.instance, _node_at(original, e.absolute_path))}"
    if e.validator == "additionalProperties":
        return f"{e.message}; remove it or check its spelling"
    if e.validator == "enum":
        import json  # here and below: json costs ~1 ms to import, and only messages need it

        allowed = ", ".join(json.dumps(x) for x in e.validator_value)
        return f"{json.dumps(e.instance)} is not one of {allowed}"
    return str(e.message)


def quote_hint(value: Any, node: Any) -> str:
    """`but YAML read 1.30 as a number; quote it: "1.30"`, in the spelling of the source
    (`node`, the round-trip value) where there is one."""
    import json

    written = loader.source_text(node if node is not None else value)
    what = type_name(value)
    if what in ("number", "boolean", "null"):
        return f"but YAML read {written} as a {what if what != 'null' else 'null value'}; quote it: {json.dumps(written)}"
    return f"got a {what} {json.dumps(value)}; a ConfigMap value is text: quote it, or write YAML as a block string (`key: |`)"
