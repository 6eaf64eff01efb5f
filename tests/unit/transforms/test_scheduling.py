"""Scheduling policy on Tekton pod templates (constrain_pod_template called directly, as the
Tekton transform does) and the policy's own check (policy/validation.check_policy)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from krm_fn.core.results import ResourceRef
from krm_fn.io import items as items_mod
from krm_fn.io.items import Item
from krm_fn.policy import validation
from krm_fn.policy.config import Policy
from krm_fn.transforms import scheduling
from krm_fn.transforms.context import Context
from krm_fn.yaml.document import RoundTripDocument
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

PR = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
  namespace: ci
spec:
  pipelineRef:
    name: p
  taskRunTemplate:
{tpl}
"""

POLICY = {
    "node_selector": {"pool": "ci", "zone": "on"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}],
    "scheduler_name": "volcano",
}


def _indent(text: str, n: int) -> str:
    return "".join(" " * n + line if line.strip() else line for line in text.splitlines(True))


def make(tpl: str | None, **policy: Any) -> tuple[Item, Context, Any]:
    """A v1 PipelineRun whose taskRunTemplate holds `tpl` (YAML text of the template's
    fields under `podTemplate:`, or None for no podTemplate)."""
    body = "    serviceAccountName: sa" if tpl is None else "    podTemplate:\n" + _indent(tpl, 6)
    node = loader.rt_load(PR.format(tpl=body))
    item = Item(pos=0, text=None, meta=items_mod.meta_of(node), doc=RoundTripDocument(node))
    ctx = Context(Policy(**policy), [item])
    return item, ctx, node["spec"]["taskRunTemplate"]


def run(tpl: str | None, only_set: bool = False, **policy: Any) -> tuple[Item, Context, Any]:
    item, ctx, parent = make(tpl, **policy)
    scheduling.constrain_pod_template(
        item, ctx, parent, "podTemplate", "spec.taskRunTemplate.podTemplate", only_set_fields=only_set
    )
    return item, ctx, parent


def plain_tpl(parent: Any) -> Any:
    return to_plain(parent.get("podTemplate"))


def severities(ctx: Context) -> list[tuple[str, str | None]]:
    return [(r.severity, r.field_path) for r in ctx.results if r.severity != "info"]


# ---------------------------------------------------------------- merge


def test_adds_missing_values_to_an_existing_template() -> None:
    item, ctx, parent = run(
        "nodeSelector:\n  disk: ssd\ntolerations:\n- key: gpu\n  operator: Exists\n", **POLICY
    )
    assert plain_tpl(parent) == {
        "nodeSelector": {"disk": "ssd", "pool": "ci", "zone": "on"},
        "tolerations": [
            {"key": "gpu", "operator": "Exists"},
            {"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"},
        ],
        "schedulerName": "volcano",
    }
    assert severities(ctx) == []
    assert [r.field_path for r in ctx.results] == ["spec.taskRunTemplate.podTemplate"]
    assert "scheduling policy applied" in ctx.results[0].message


def test_creates_the_template_when_absent() -> None:
    _, ctx, parent = run(None, **POLICY)
    assert plain_tpl(parent) == {
        "nodeSelector": {"pool": "ci", "zone": "on"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}],
        "schedulerName": "volcano",
    }
    # the YAML 1.1 boolean-looking value stays a string
    assert 'zone: "on"' in loader.rt_dump(parent)


def test_no_template_is_created_for_an_empty_policy_or_a_taskrunspec() -> None:
    _, ctx, parent = run(None)
    assert "podTemplate" not in parent and ctx.results == []
    _, ctx, parent = run(None, only_set=True, **POLICY)
    assert "podTemplate" not in parent and ctx.results == []


# (template, policy) pairs that must come out unchanged, with no warning or error
NOOP = [
    ("nodeSelector:\n  pool: ci\n", {"node_selector": {"pool": "ci"}}),
    ("nodeSelector:\n  pool: ci\n  other: x\n", {"node_selector": {"pool": "ci"}}),
    ("schedulerName: volcano\n", {"scheduler_name": "volcano"}),
    (
        # an omitted operator is Kubernetes' Equal
        "tolerations:\n- key: dedicated\n  value: ci\n  effect: NoSchedule\n",
        {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}]},
    ),
    (
        "tolerations:\n- {key: a, operator: Exists}\n- {key: b, operator: Equal, value: c}\n",
        {"tolerations": [{"key": "b", "operator": "Equal", "value": "c"}]},
    ),
    ("nodeSelector:\n  x: y\ntolerations: []\nschedulerName: s\n", {}),
    ("affinity: {}\n", {}),
    (
        "nodeSelector: {pool: ci, zone: 'on'}\ntolerations:\n- {key: dedicated, operator: Equal, value: ci, effect: NoSchedule}\nschedulerName: volcano\n",
        POLICY,
    ),
]


@pytest.mark.parametrize(("tpl", "policy"), NOOP)
@pytest.mark.parametrize("only_set", [False, True])
def test_noop(tpl: str, policy: dict[str, Any], only_set: bool) -> None:
    item, ctx, parent = run(tpl, only_set=only_set, **policy)
    assert not item.changed
    assert ctx.results == []


def test_tekton_toleration_identity_is_key_operator_value_effect() -> None:
    # same key, other value: not present, so added (Tekton has no merge by key); no conflict
    _, ctx, parent = run(
        "tolerations:\n- {key: dedicated, operator: Equal, value: other, effect: NoSchedule}\n", **POLICY
    )
    assert [t["value"] for t in plain_tpl(parent)["tolerations"]] == ["other", "ci"]
    assert severities(ctx) == []
    # other effect: added too
    _, _, parent = run("tolerations:\n- {key: dedicated, operator: Equal, value: ci}\n", **POLICY)
    assert len(plain_tpl(parent)["tolerations"]) == 2


def test_empty_scheduler_name_is_unset_in_tekton() -> None:
    _, ctx, parent = run("schedulerName: ''\n", **POLICY)
    assert plain_tpl(parent)["schedulerName"] == "volcano"
    assert severities(ctx) == []


def test_comments_and_existing_style_survive() -> None:
    item, ctx, parent = run("nodeSelector: # pinned\n  disk: ssd # fast\n", node_selector={"pool": "ci"})
    text = loader.rt_dump(item.node)
    assert "# pinned" in text and "# fast" in text
    assert "pool: ci" in text


# ---------------------------------------------------------------- conflicts


CONFLICTING = "nodeSelector:\n  pool: gpu\nschedulerName: default-scheduler\n"


def test_conflict_error() -> None:
    item, ctx, parent = run(CONFLICTING, node_selector={"pool": "ci"}, scheduler_name="volcano")
    errs = [r for r in ctx.results if r.severity == "error"]
    assert [r.field_path for r in errs] == [
        "spec.taskRunTemplate.podTemplate.nodeSelector[pool]",
        "spec.taskRunTemplate.podTemplate.schedulerName",
    ]
    assert (errs[0].current_value, errs[0].proposed_value) == ("gpu", "ci")
    assert (errs[1].current_value, errs[1].proposed_value) == ("default-scheduler", "volcano")
    assert '"gpu"' in errs[0].message and '"ci"' in errs[0].message
    assert "onConflict" in errs[0].message
    assert plain_tpl(parent) == {"nodeSelector": {"pool": "gpu"}, "schedulerName": "default-scheduler"}


def test_conflict_keep() -> None:
    item, ctx, parent = run(CONFLICTING, node_selector={"pool": "ci", "zone": "a"}, scheduler_name="volcano", on_conflict="keep")
    assert plain_tpl(parent) == {"nodeSelector": {"pool": "gpu", "zone": "a"}, "schedulerName": "default-scheduler"}
    warns = [r for r in ctx.results if r.severity == "warning"]
    assert [(r.field_path, r.current_value, r.proposed_value) for r in warns] == [
        ("spec.taskRunTemplate.podTemplate.nodeSelector[pool]", "gpu", "ci"),
        ("spec.taskRunTemplate.podTemplate.schedulerName", "default-scheduler", "volcano"),
    ]
    assert not any(r.severity == "error" for r in ctx.results)


def test_conflict_override() -> None:
    item, ctx, parent = run(CONFLICTING, node_selector={"pool": "ci"}, scheduler_name="volcano", on_conflict="override")
    assert plain_tpl(parent) == {"nodeSelector": {"pool": "ci"}, "schedulerName": "volcano"}
    warns = [r for r in ctx.results if r.severity == "warning"]
    assert [(r.field_path, r.current_value, r.proposed_value) for r in warns] == [
        ("spec.taskRunTemplate.podTemplate.nodeSelector[pool]", "gpu", "ci"),
        ("spec.taskRunTemplate.podTemplate.schedulerName", "default-scheduler", "volcano"),
    ]
    # second pass: nothing left to override
    ctx2 = Context(ctx.policy, [item])
    before = to_plain(item.node)
    scheduling.constrain_pod_template(item, ctx2, parent, "podTemplate", "spec.taskRunTemplate.podTemplate")
    assert to_plain(item.node) == before and ctx2.results == []


# ---------------------------------------------------------------- taskRunSpecs templates


def test_only_set_fields_touches_only_what_the_template_sets() -> None:
    _, ctx, parent = run("nodeSelector: {}\n", only_set=True, **POLICY)
    # a non-nil empty map replaces the run-level nodeSelector in Tekton, so it gets the keys
    assert plain_tpl(parent) == {"nodeSelector": {"pool": "ci", "zone": "on"}}
    _, ctx, parent = run("tolerations:\n- {key: a, operator: Exists}\naffinity: {}\n", only_set=True, **POLICY)
    assert plain_tpl(parent) == {
        "tolerations": [{"key": "a", "operator": "Exists"}, POLICY["tolerations"][0]],
        "affinity": {},
    }
    _, ctx, parent = run("schedulerName: other\n", only_set=True, **POLICY)
    assert [r.field_path for r in ctx.results if r.severity == "error"] == ["spec.taskRunTemplate.podTemplate.schedulerName"]


# ---------------------------------------------------------------- hardening in Tekton templates

RISKY = (
    "nodeSelector:\n  node-role.kubernetes.io/control-plane: ''\n"
    "tolerations:\n- {operator: Exists}\n- {key: node.kubernetes.io/not-ready, operator: Exists}\n"
    "- {key: node-role.kubernetes.io/master, operator: Exists, effect: NoSchedule}\n- {key: ok, operator: Exists}\n"
)
RISKY_PATHS = [
    "spec.taskRunTemplate.podTemplate.nodeSelector[node-role.kubernetes.io/control-plane]",
    "spec.taskRunTemplate.podTemplate.tolerations[0]",
    "spec.taskRunTemplate.podTemplate.tolerations[1]",
    "spec.taskRunTemplate.podTemplate.tolerations[2]",
]


@pytest.mark.parametrize("only_set", [False, True])
def test_hardening_deny(only_set: bool) -> None:
    _, ctx, _ = run(RISKY, only_set=only_set)
    assert sorted(severities(ctx)) == [("error", p) for p in RISKY_PATHS]
    assert all(dict(r.tags).get("hardening") for r in ctx.results)


def test_hardening_warn_and_off() -> None:
    _, ctx, _ = run(RISKY, hardening="warn")
    assert sorted(severities(ctx)) == [("warning", p) for p in RISKY_PATHS]
    _, ctx, _ = run(RISKY, hardening="off")
    assert ctx.results == []


def test_hardening_allow_lists() -> None:
    _, ctx, _ = run(
        RISKY,
        hardening_allow_toleration_keys=["node-role.kubernetes.io/master", ""],
        hardening_allow_node_selector_keys=["node-role.kubernetes.io/control-plane"],
    )
    assert severities(ctx) == [("error", "spec.taskRunTemplate.podTemplate.tolerations[1]")]


# ---------------------------------------------------------------- malformed templates


@pytest.mark.parametrize(
    ("tpl", "path"),
    [
        ("nodeSelector: [a]\n", "spec.taskRunTemplate.podTemplate.nodeSelector"),
        ("nodeSelector:\n  gpu: true\n", "spec.taskRunTemplate.podTemplate.nodeSelector[gpu]"),
        ("tolerations: {key: a}\n", "spec.taskRunTemplate.podTemplate.tolerations"),
        ("tolerations:\n- just-a-string\n", "spec.taskRunTemplate.podTemplate.tolerations[0]"),
    ],
)
def test_malformed_template_is_an_error_and_left_alone(tpl: str, path: str) -> None:
    item, ctx, _ = run(tpl, **POLICY)
    assert [(r.severity, r.field_path) for r in ctx.results] == [("error", path)]
    assert not item.changed


def test_template_that_is_not_a_map() -> None:
    item, ctx, parent = make(None, **POLICY)
    parent["podTemplate"] = "oops"
    scheduling.constrain_pod_template(item, ctx, parent, "podTemplate", "spec.podTemplate")
    assert [(r.severity, r.field_path) for r in ctx.results] == [("error", "spec.podTemplate")]


# ---------------------------------------------------------------- the policy's own values


def _validate_policy(ctx: Context) -> None:
    """What process does with the policy's own values: each finding a config result."""
    for sev, where, msg, tags in validation.check_policy(ctx.policy):
        ctx.config_result(sev, where, msg, tags=tags)


def policy_ctx(**kw: Any) -> Context:
    p = Policy(ref=ResourceRef("fn.kpt.dev/v1alpha1", "CoschedulePolicy", "ci"), **kw)
    return Context(p, [])


def test_valid_policy_has_no_results() -> None:
    ctx = policy_ctx(**copy.deepcopy(POLICY))
    _validate_policy(ctx)
    assert ctx.results == []


def test_policy_values_are_validated_with_the_shipwright_rules() -> None:
    ctx = policy_ctx(
        node_selector={"ok": "fine", "bad key!": "x"},
        tolerations=[
            {"key": "a", "operator": "Exists", "effect": "NoExecute"},
            {"key": "b", "operator": "Equal", "value": "x"},
            {"key": "b", "operator": "Exists"},
        ],
        scheduler_name="not valid!",
    )
    _validate_policy(ctx)
    got = [(r.severity, r.field_path, dict(r.tags).get("reason")) for r in ctx.results]
    assert got == [
        ("error", "spec.scheduling.nodeSelector[bad key!]", "NodeSelectorNotValid"),
        ("error", "spec.scheduling.tolerations[0].effect", "TolerationNotValid"),
        ("warning", "spec.scheduling.tolerations[2]", None),
        ("error", "spec.scheduling.schedulerName", "SchedulerNameNotValid"),
    ]
    assert all(r.resource is not None and r.resource.kind == "CoschedulePolicy" for r in ctx.results)
    assert ctx.results[1].message == "Only the 'NoSchedule' toleration effect is supported. (got \"NoExecute\")"


def test_policy_hardening() -> None:
    risky = {
        "node_selector": {"node-role.kubernetes.io/control-plane": ""},
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
    }
    ctx = policy_ctx(**risky)
    _validate_policy(ctx)
    assert [(r.severity, r.field_path) for r in ctx.results] == [
        ("error", "spec.scheduling.tolerations[0]"),
        ("error", "spec.scheduling.nodeSelector[node-role.kubernetes.io/control-plane]"),
    ]
    ctx = policy_ctx(hardening="warn", **risky)
    _validate_policy(ctx)
    assert {r.severity for r in ctx.results} == {"warning"}
    ctx = policy_ctx(
        hardening_allow_toleration_keys=["node.kubernetes.io/*"],
        hardening_allow_node_selector_keys=["node-role.kubernetes.io/control-plane"],
        **risky,
    )
    _validate_policy(ctx)
    assert ctx.results == []


# ---------------------------------------------------------------- call sites


def _load(text: str) -> tuple[Item, Any]:
    node = loader.rt_load(text)
    item = Item(pos=0, text=None, meta=items_mod.meta_of(node), doc=RoundTripDocument(node))
    return item, node


def test_dotted_key_creates_the_missing_maps_only_when_needed() -> None:
    item, node = _load("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata: {name: pr}\nspec:\n  pipelineRef: {name: p}\n")
    ctx = Context(Policy(node_selector={"pool": "ci"}), [item])
    scheduling.constrain_pod_template(item, ctx, node["spec"], "taskRunTemplate.podTemplate", "spec.taskRunTemplate.podTemplate")
    assert to_plain(node["spec"]) == {"pipelineRef": {"name": "p"}, "taskRunTemplate": {"podTemplate": {"nodeSelector": {"pool": "ci"}}}}
    item, node = _load("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata: {name: pr}\nspec:\n  pipelineRef: {name: p}\n")
    ctx = Context(Policy(), [item])
    scheduling.constrain_pod_template(item, ctx, node["spec"], "taskRunTemplate.podTemplate", "spec.taskRunTemplate.podTemplate")
    assert not item.changed
    item, node = _load("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata: {name: pr}\nspec:\n  taskRunTemplate: []\n")
    ctx = Context(Policy(node_selector={"pool": "ci"}), [item])
    scheduling.constrain_pod_template(item, ctx, node["spec"], "taskRunTemplate.podTemplate", "spec.taskRunTemplate.podTemplate")
    assert [(r.severity, r.field_path) for r in ctx.results] == [("error", "spec.taskRunTemplate")]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("apiVersion: tekton.dev/v1beta1\nkind: PipelineRun\nmetadata: {name: pr}\nspec:\n  pipelineRef: {name: p}\n", "spec.podTemplate"),
        ("apiVersion: tekton.dev/v1\nkind: TaskRun\nmetadata: {name: tr}\nspec:\n  taskRef: {name: t}\n", "spec.podTemplate"),
    ],
)
def test_v1beta1_and_taskrun_templates(text: str, path: str) -> None:
    item, node = _load(text)
    ctx = Context(Policy(**POLICY), [item])
    scheduling.constrain_pod_template(item, ctx, node["spec"], "podTemplate", path)
    assert to_plain(node["spec"]["podTemplate"]) == {
        "nodeSelector": {"pool": "ci", "zone": "on"},
        "tolerations": POLICY["tolerations"],
        "schedulerName": "volcano",
    }
    assert [r.field_path for r in ctx.results] == [path]


def test_taskrunspecs_templates_are_hardened_and_constrained_when_they_set_fields() -> None:
    text = (
        "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata: {name: pr}\nspec:\n"
        "  taskRunSpecs:\n  - pipelineTaskName: build\n    podTemplate:\n"
        "      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]\n"
        "  - pipelineTaskName: test\n    podTemplate: {nodeSelector: {disk: ssd}}\n"
    )
    item, node = _load(text)
    ctx = Context(Policy(**POLICY), [item])
    for i, spec in enumerate(node["spec"]["taskRunSpecs"]):
        scheduling.constrain_pod_template(item, ctx, spec, "podTemplate", f"spec.taskRunSpecs[{i}].podTemplate", only_set_fields=True)
    got = to_plain(node["spec"]["taskRunSpecs"])
    assert got[0]["podTemplate"] == {
        "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}, POLICY["tolerations"][0]]
    }
    assert got[1]["podTemplate"] == {"nodeSelector": {"disk": "ssd", "pool": "ci", "zone": "on"}}
    assert [(r.severity, r.field_path) for r in ctx.results if r.severity != "info"] == [
        ("error", "spec.taskRunSpecs[0].podTemplate.tolerations[0]")
    ]


# ---------------------------------------------------------------- required nodeAffinity


def _node_affinity(*terms: str) -> str:
    """A template whose required nodeAffinity holds `terms`, each a flow list of expressions."""
    body = "".join(f"      - matchExpressions: {t}\n" for t in terms)
    return "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n" + body


AFFINITY_PATH = "spec.taskRunTemplate.podTemplate.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

# (policy nodeSelector, the run's terms): no node can match both
CONTRADICTIONS = [
    pytest.param({"kubernetes.io/os": "linux"}, ["[{key: kubernetes.io/os, operator: In, values: [windows]}]"], id="In"),
    pytest.param({"pool": "ci"}, ["[{key: pool, operator: NotIn, values: [ci, gpu]}]"], id="NotIn"),
    pytest.param({"pool": "ci"}, ["[{key: pool, operator: DoesNotExist}]"], id="DoesNotExist"),
    pytest.param({"cores": "4"}, ["[{key: cores, operator: Gt, values: ['8']}]"], id="Gt"),
    pytest.param({"cores": "many"}, ["[{key: cores, operator: Gt, values: ['1']}]"], id="Gt-not-a-number"),
    pytest.param({"cores": "16"}, ["[{key: cores, operator: Lt, values: ['8']}]"], id="Lt"),
    # terms are ORed: every one of them must fail
    pytest.param(
        {"kubernetes.io/os": "linux"},
        ["[{key: kubernetes.io/os, operator: In, values: [windows]}]", "[{key: kubernetes.io/os, operator: DoesNotExist}]"],
        id="every-term",
    ),
    # expressions are ANDed: one failing expression fails the term
    pytest.param(
        {"kubernetes.io/os": "linux"},
        ["[{key: disk, operator: Exists}, {key: kubernetes.io/os, operator: NotIn, values: [linux]}]"],
        id="one-expression",
    ),
]

# the policy narrows the choice of nodes but leaves some: no conflict, the keys are added
COMPATIBLE = [
    pytest.param({"kubernetes.io/os": "linux"}, ["[{key: kubernetes.io/os, operator: In, values: [linux, windows]}]"], id="In"),
    pytest.param({"pool": "ci"}, ["[{key: pool, operator: NotIn, values: [gpu]}]"], id="NotIn"),
    pytest.param({"pool": "ci"}, ["[{key: pool, operator: Exists}]"], id="Exists"),
    pytest.param({"pool": "ci"}, ["[{key: other, operator: DoesNotExist}]"], id="DoesNotExist-other-key"),
    pytest.param({"cores": "16"}, ["[{key: cores, operator: Gt, values: ['8']}]"], id="Gt"),
    pytest.param({"cores": "4"}, ["[{key: cores, operator: Lt, values: ['8']}]"], id="Lt"),
    pytest.param(
        {"kubernetes.io/os": "linux"},
        ["[{key: kubernetes.io/os, operator: In, values: [windows]}]", "[{key: kubernetes.io/arch, operator: In, values: [arm64]}]"],
        id="another-term-fits",
    ),
]


@pytest.mark.parametrize(("policy", "terms"), CONTRADICTIONS)
def test_policy_node_selector_against_required_node_affinity_is_a_conflict(policy: dict[str, str], terms: list[str]) -> None:
    tpl = _node_affinity(*terms)
    item, ctx, parent = run(tpl, node_selector=policy)
    errs = [r for r in ctx.results if r.severity == "error"]
    assert [r.field_path for r in errs] == [AFFINITY_PATH]
    (key,) = policy
    assert errs[0].proposed_value == policy
    assert f'required nodeAffinity on "{key}"' in errs[0].message and "never be scheduled" in errs[0].message
    assert "onConflict" in errs[0].message
    assert "nodeSelector" not in plain_tpl(parent)  # error: nothing added


@pytest.mark.parametrize(("policy", "terms"), CONTRADICTIONS)
def test_node_affinity_conflict_keep(policy: dict[str, str], terms: list[str]) -> None:
    tpl = _node_affinity(*terms)
    item, ctx, parent = run(tpl, node_selector={**policy, "zone": "a"}, on_conflict="keep")
    assert [(r.severity, r.field_path) for r in ctx.results if r.severity != "info"] == [("warning", AFFINITY_PATH)]
    assert plain_tpl(parent)["nodeSelector"] == {"zone": "a"}
    assert plain_tpl(parent)["affinity"] == to_plain(loader.rt_load(tpl))["affinity"]


@pytest.mark.parametrize(("policy", "terms"), CONTRADICTIONS)
def test_node_affinity_conflict_override(policy: dict[str, str], terms: list[str]) -> None:
    item, ctx, parent = run(_node_affinity(*terms), node_selector=policy, on_conflict="override")
    assert [(r.severity, r.field_path) for r in ctx.results if r.severity != "info"] == [("warning", AFFINITY_PATH)]
    out = plain_tpl(parent)
    assert out["nodeSelector"] == policy
    (key,) = policy
    left = out.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    for term in (left or {}).get("nodeSelectorTerms", []):
        assert key not in [e["key"] for e in term.get("matchExpressions", [])]
    # the result is schedulable, and a second pass changes nothing
    ctx2 = Context(ctx.policy, [item])
    before = to_plain(item.node)
    scheduling.constrain_pod_template(item, ctx2, parent, "podTemplate", "spec.taskRunTemplate.podTemplate")
    assert to_plain(item.node) == before and ctx2.results == []


def test_override_keeps_the_rest_of_a_term() -> None:
    tpl = _node_affinity("[{key: disk, operator: Exists}, {key: kubernetes.io/os, operator: In, values: [windows]}]")
    _, _, parent = run(tpl, node_selector={"kubernetes.io/os": "linux"}, on_conflict="override")
    assert plain_tpl(parent)["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "disk", "operator": "Exists"}]}]
    }
    # a term that constrained only that key admits every node once it is gone: the requirement goes
    _, _, parent = run(_node_affinity("[{key: kubernetes.io/os, operator: In, values: [windows]}]"),
                       node_selector={"kubernetes.io/os": "linux"}, on_conflict="override")
    assert plain_tpl(parent) == {"nodeSelector": {"kubernetes.io/os": "linux"}}


@pytest.mark.parametrize(("policy", "terms"), COMPATIBLE)
def test_policy_node_selector_compatible_with_node_affinity(policy: dict[str, str], terms: list[str]) -> None:
    tpl = _node_affinity(*terms)
    _, ctx, parent = run(tpl, node_selector=policy)
    assert severities(ctx) == []
    assert plain_tpl(parent)["nodeSelector"] == policy


def test_node_affinity_conflict_counts_the_manifests_own_node_selector() -> None:
    # the template's nodeSelector already rules out the second term: the policy kills the first
    tpl = "nodeSelector:\n  kubernetes.io/arch: amd64\n" + _node_affinity(
        "[{key: kubernetes.io/os, operator: In, values: [windows]}]",
        "[{key: kubernetes.io/arch, operator: In, values: [arm64]}]",
    )
    _, ctx, _ = run(tpl, node_selector={"kubernetes.io/os": "linux"})
    assert severities(ctx) == [("error", AFFINITY_PATH)]
    # a manifest that is unschedulable on its own is not the policy's conflict
    tpl = "nodeSelector:\n  kubernetes.io/os: linux\n" + _node_affinity("[{key: kubernetes.io/os, operator: In, values: [windows]}]")
    _, ctx, _ = run(tpl, node_selector={"kubernetes.io/os": "linux"})
    assert severities(ctx) == []


@pytest.mark.parametrize(
    ("tol", "path", "fragments"),
    [
        ({"key": "a", "operator": "Equals"}, "spec.scheduling.tolerations[0].operator", ('"Equals"', "'Exists', 'Equal'")),
        ({"key": "a", "operator": "Equal", "effect": "NoSchedul"}, "spec.scheduling.tolerations[0].effect", ('"NoSchedul"', "NoSchedule")),
    ],
)
def test_an_enum_violation_names_the_value_and_the_allowed_ones(tol: dict[str, Any], path: str, fragments: tuple[str, ...]) -> None:
    from krm_fn.policy import config

    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": {"scheduling": {"tolerations": [tol]}}}
    p, res = config.load(fc)
    assert p is not None and res == []  # the schema leaves it to the Shipwright rules, beside the others
    ctx = Context(p, [])
    _validate_policy(ctx)
    (e,) = ctx.results
    assert e.field_path == path and all(f in e.message for f in fragments), e.message
