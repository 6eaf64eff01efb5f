"""Validators against the exact apimachinery v0.36 / Shipwright strings
(reference/shipwright-scheduling.md §2-§4)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from krm_fn.policy import validation as v

NAME_REGEX_ERR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
PREFIX_ERR = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
SLASHES_ERR = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


# ---------------------------------------------------------------- apimachinery

VALID_QUALIFIED = [
    "validkey",
    "a",
    "My_Scheduler",
    "123-abc",
    "my.name",
    "example.com/MyName",
    "node-role.kubernetes.io/control-plane",
    "kubernetes.io/arch",
    "s" * 63,
    ("a" * 63 + ".") * 3 + "a" * 61 + "/x",  # prefix of exactly 253 bytes
]


@pytest.mark.parametrize("name", VALID_QUALIFIED)
def test_qualified_name_valid(name: str) -> None:
    assert v.qualified_name_errors(name) == []


@pytest.mark.parametrize(
    ("name", "errors"),
    [
        ("s" * 64, ["name part must be no more than 63 bytes"]),
        ("invalidkey!", [NAME_REGEX_ERR]),
        ("", ["name part must be non-empty", NAME_REGEX_ERR]),
        ("Example.com/x", [PREFIX_ERR]),
        ("/x", ["prefix part must be non-empty"]),
        ("x/", ["name part must be non-empty", NAME_REGEX_ERR]),
        ("a/b/c", [SLASHES_ERR]),
        ("-a", [NAME_REGEX_ERR]),
        ("a-", [NAME_REGEX_ERR]),
        # prefix errors first, then the name's length, then its regex
        ("Bad/" + "!" * 64, [PREFIX_ERR, "name part must be no more than 63 bytes", NAME_REGEX_ERR]),
        ("a" * 254 + "/x", ["prefix part must be no more than 253 bytes"]),
        # Go's `$` does not match before a trailing newline
        ("abc\n", [NAME_REGEX_ERR]),
        # bytes, not characters: 32 x 2-byte "é" is 64 bytes
        ("é" * 32, ["name part must be no more than 63 bytes", NAME_REGEX_ERR]),
    ],
)
def test_qualified_name_errors(name: str, errors: list[str]) -> None:
    assert v.qualified_name_errors(name) == errors


def test_bad_character_message_has_two_spaces_before_each_or() -> None:
    (msg,) = v.qualified_name_errors("invalidkey!")
    assert "'MyName',  or 'my.name',  or '123-abc', regex" in msg


@pytest.mark.parametrize("value", ["", "validvalue", "MyValue", "my_value", "12345", "a" * 63, "true"])
def test_label_value_valid(value: str) -> None:
    assert v.label_value_errors(value) == []


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("invalidvalue!", [VALUE_ERR]),
        ("a" * 64, ["must be no more than 63 bytes"]),
        ("-a", [VALUE_ERR]),
        ("a/b", [VALUE_ERR]),
        ("x\n", [VALUE_ERR]),
    ],
)
def test_label_value_errors(value: str, errors: list[str]) -> None:
    assert v.label_value_errors(value) == errors


@given(st.from_regex(r"\A[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z"))
def test_generated_names_pass(name: str) -> None:
    assert v.qualified_name_errors(name) == []
    assert v.label_value_errors(name) == []


# an independent, single-regex formulation of a qualified name (the schema of
# assistant.schedulingGates uses the same one)
_QUALIFIED = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
)


@given(st.one_of(st.text(max_size=80), st.text(alphabet="aZ9-_./!", max_size=80)))
def test_agrees_with_a_single_regex(text: str) -> None:
    expected_ok = bool(_QUALIFIED.fullmatch(text)) and len(text.partition("/")[0].encode()) <= 253
    assert (v.qualified_name_errors(text) == []) == expected_ok


@given(st.one_of(st.text(max_size=20), st.text(alphabet="az09-.\nA_", max_size=20)))
def test_dns1123_checks_agree_with_their_regexes(text: str) -> None:
    """The DNS-1123 checks are string operations (no pattern compiled at every start): the
    same answers as apimachinery's regexes, which the messages quote."""
    label = re.fullmatch(v._DNS1123_LABEL_FMT, text) is not None and len(text.encode()) <= 63
    assert (v.dns1123_label_errors(text) == []) == label
    subdomain = re.fullmatch(v._DNS1123_SUBDOMAIN_FMT, text) is not None and len(text.encode()) <= 253
    assert (v.dns1123_subdomain_errors(text) == []) == subdomain


@given(st.one_of(st.text(max_size=20), st.text(alphabet="aZ09-_.\n/é", max_size=20)))
def test_label_value_and_name_part_checks_agree_with_their_regexes(text: str) -> None:
    """Label values and a qualified name's name part are checked by string operations
    (issue 34: no pattern compiled at every start): the answers of apimachinery's regexes,
    which the messages quote."""
    value = re.fullmatch(v._LABEL_VALUE_FMT, text) is not None and len(text.encode()) <= 63
    assert (v.label_value_errors(text) == []) == value
    name = re.fullmatch(v._QUALIFIED_NAME_FMT, text) is not None and len(text.encode()) <= 63
    assert (v.qualified_name_errors(text) == []) == name or "/" in text


# ---------------------------------------------------------------- Shipwright rules (controller unit tests)


def test_controller_messages_for_64_bytes() -> None:
    s64 = "s" * 64
    assert v.node_selector_problems({s64: "x"}) == [
        (s64, "Node selector key not valid: name part must be no more than 63 bytes")
    ]
    assert v.toleration_problem({"key": s64, "operator": "Exists"}) == (
        "key",
        "Toleration key not valid: name part must be no more than 63 bytes",
    )
    assert v.scheduler_name_problem(s64) == "Scheduler name not valid: name part must be no more than 63 bytes"


@pytest.mark.parametrize(
    "tol",
    [
        {"key": "validkey", "operator": "Equal", "value": "validvalue"},  # empty effect
        {"key": "validkey", "operator": "Equal", "value": "validvalue", "effect": "NoSchedule"},
        {"key": "validkey", "operator": "Equal", "value": ""},
        {"key": "validkey", "operator": "Equal"},
        {"key": "validkey", "operator": "Exists"},
        {"key": "example.com/k", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "k", "operator": "Exists", "value": None},
    ],
)
def test_toleration_valid(tol: dict) -> None:  # type: ignore[type-arg]
    assert v.toleration_problem(tol) is None


@pytest.mark.parametrize(
    ("tol", "sub", "message"),
    [
        (
            {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute"},
            "effect",
            "Only the 'NoSchedule' toleration effect is supported.",
        ),
        (
            {"key": "k", "operator": "Equal", "value": "v", "effect": "PreferNoSchedule"},
            "effect",
            "Only the 'NoSchedule' toleration effect is supported.",
        ),
        (
            {"key": "k", "operator": "Equal", "value": "v", "tolerationSeconds": 10},
            "tolerationSeconds",
            "Specifying TolerationSeconds is not supported.",
        ),
        (
            {"key": "k", "operator": "Equal", "value": "v", "tolerationSeconds": 0},
            "tolerationSeconds",
            "Specifying TolerationSeconds is not supported.",
        ),
        (
            {"key": "k", "operator": "invalidoperator"},
            "operator",
            "Toleration operator not valid. Must be one of: 'Exists', 'Equal'",
        ),
        ({"key": "k"}, "operator", "Toleration operator not valid. Must be one of: 'Exists', 'Equal'"),
        ({"key": "k", "operator": "Lt", "value": "3"}, "operator", "Toleration operator not valid. Must be one of: 'Exists', 'Equal'"),
        ({"key": "k", "operator": "equal"}, "operator", "Toleration operator not valid. Must be one of: 'Exists', 'Equal'"),
        ({"key": "invalidkey!", "operator": "Equal"}, "key", "Toleration key not valid: " + NAME_REGEX_ERR),
        ({"key": "k", "operator": "Equal", "value": "invalidvalue!"}, "value", "Toleration value not valid: " + VALUE_ERR),
        # the first failure stops: key before operator before value before effect
        ({"key": "bad!", "operator": "Nope", "value": "bad!", "effect": "NoExecute"}, "key", "Toleration key not valid: " + NAME_REGEX_ERR),
        ({"key": "k", "operator": "Nope", "value": "bad!", "effect": "NoExecute"}, "operator", "Toleration operator not valid. Must be one of: 'Exists', 'Equal'"),
        ({"key": "k", "operator": "Equal", "value": "bad!", "effect": "NoExecute"}, "value", "Toleration value not valid: " + VALUE_ERR),
        ({"key": "k", "operator": "Equal", "effect": "NoExecute", "tolerationSeconds": 5}, "effect", "Only the 'NoSchedule' toleration effect is supported."),
    ],
)
def test_toleration_invalid(tol: dict, sub: str, message: str) -> None:  # type: ignore[type-arg]
    assert v.toleration_problem(tol) == (sub, message)


def test_empty_key_is_rejected() -> None:
    prob = v.toleration_problem({"operator": "Exists"})
    assert prob is not None and prob[0] == "key"
    assert "must be non-empty" in prob[1]
    assert prob[1].startswith("Toleration key not valid: name part must be non-empty, name part must consist of")


def test_exists_with_value_is_rejected_because_kubernetes_rejects_it() -> None:
    prob = v.toleration_problem({"key": "k", "operator": "Exists", "value": "v"})
    assert prob is not None
    assert prob[0] == "value"
    assert "value must be empty when `operator` is 'Exists'" in prob[1]
    assert "Kubernetes rejects" in prob[1]
    # Shipwright's own failures take precedence
    assert v.toleration_problem({"key": "k", "operator": "Exists", "value": "v", "effect": "NoExecute"}) == (
        "effect",
        "Only the 'NoSchedule' toleration effect is supported.",
    )


@pytest.mark.parametrize(
    "tol",
    [{"key": 5, "operator": "Exists"}, {"key": "k", "operator": "Equal", "value": True}, "not-a-map", None],
)
def test_toleration_wrong_types_are_problems(tol: object) -> None:
    prob = v.toleration_problem(tol)
    assert prob is not None and "not valid" in prob[1]


def test_node_selector_rules() -> None:
    assert v.node_selector_problems({"validkey": "validvalue"}) == []
    assert v.node_selector_problems({"validkey": ""}) == []
    assert v.node_selector_problems(None) == []
    assert v.node_selector_problems({}) == []
    assert v.node_selector_problems({"": "x"}) == [
        ("", "Node selector key not valid: name part must be non-empty, " + NAME_REGEX_ERR)
    ]
    # key before value: a bad key with a bad value reports the key only
    assert v.node_selector_problems({"invalidkey!": "invalidvalue!"}) == [
        ("invalidkey!", "Node selector key not valid: " + NAME_REGEX_ERR)
    ]
    assert v.node_selector_problems({"validkey": "invalidvalue!"}) == [
        ("validkey", "Node selector value not valid: " + VALUE_ERR)
    ]


def test_node_selector_reports_every_bad_entry_in_sorted_order() -> None:
    probs = v.node_selector_problems({"z!": "a", "ok": "fine", "a": "bad!", "m": True})
    assert [k for k, _ in probs] == ["a", "m", "z!"]
    assert probs[1][1] == "Node selector value not valid: must be a string, got true; quote it"


def test_node_selector_not_a_map() -> None:
    assert v.node_selector_problems(["a"]) == [(None, "Node selector not valid: must be a map of label keys to label values")]


@pytest.mark.parametrize("name", ["validname", "My_Scheduler", "example.com/sched", "volcano", None])
def test_scheduler_name_valid(name: str | None) -> None:
    assert v.scheduler_name_problem(name) is None


@pytest.mark.parametrize("name", ["", "invalidname!", "a/b/c", "-x", 5])
def test_scheduler_name_invalid(name: object) -> None:
    msg = v.scheduler_name_problem(name)
    assert msg is not None and msg.startswith("Scheduler name not valid: ")


def test_explicit_empty_scheduler_name_message() -> None:
    assert v.scheduler_name_problem("") == "Scheduler name not valid: name part must be non-empty, " + NAME_REGEX_ERR


def test_platform_and_override_messages() -> None:
    assert v.platform_conflict_message("kubernetes.io/os") == (
        'nodeSelector must not contain "kubernetes.io/os" when spec.output.platforms is set; '
        "the build controller manages os/arch scheduling"
    )
    assert v.override_forbidden_message("nodeSelector") == "cannot use 'nodeSelector' override and 'buildSpec' simultaneously"
    assert v.override_forbidden_message("tolerations") == "cannot use 'tolerations' override and 'buildSpec' simultaneously"
    assert v.override_forbidden_message("schedulerName") == "cannot use 'schedulerName' override and 'buildSpec' simultaneously"
