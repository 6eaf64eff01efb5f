"""Shipwright Build / BuildRun: policy merge, render-time validation with the controller's
reasons, SHIP-0039 hardening. Driven through krm.run_resource_list (the KRM path)."""
from __future__ import annotations

import dataclasses
import json
import textwrap
from typing import Any

import pytest
import yaml
from shared import DATA

from krm_fn.core.results import Result
from krm_fn.modes.krm import run_resource_list
from krm_fn.transforms import shipwright

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
SCHEMA = DATA / "shipwright-scheduling-fields.schema.json"


@dataclasses.dataclass
class Rendered:
    text: str
    doc: dict[str, Any]
    results: list[Result]
    code: int

    def obj(self, kind: str, name: str) -> dict[str, Any]:
        for it in self.doc["items"]:
            if it["kind"] == kind and it["metadata"]["name"] == name:
                return it  # type: ignore[no-any-return]
        raise KeyError((kind, name))

    def problems(self) -> list[tuple[str, str, str | None, str | None]]:
        """(severity, `Kind name`, field path, reason) of every error and warning."""
        return sorted(
            (
                (r.severity, f"{r.resource.kind} {r.resource.name}" if r.resource else "", r.field_path, dict(r.tags).get("reason"))
                for r in self.results
                if r.severity != "info"
            ),
            key=lambda t: tuple(x or "" for x in t),
        )


def policy(**scheduling: Any) -> str:
    hardening = scheduling.pop("hardening", None)
    spec: dict[str, Any] = {"scheduling": scheduling}
    if hardening:
        spec["hardening"] = hardening
    return yaml.safe_dump({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": spec})


def render(items: str, config: str | None = None) -> Rendered:
    text = HEAD + textwrap.dedent(items)
    if config:
        text += "functionConfig:\n" + textwrap.indent(config, "  ")
    out, outcome, code = run_resource_list(text.encode())
    assert outcome is not None
    return Rendered(out, yaml.safe_load(out), outcome.results, code)


def build(name: str = "b", **spec: Any) -> str:
    body = {"apiVersion": "shipwright.io/v1beta1", "kind": "Build", "metadata": {"name": name, "namespace": "ci"},
            "spec": {"strategy": {"name": "buildah", "kind": "ClusterBuildStrategy"}, "output": {"image": "registry.example.com/app"}, **spec}}
    return _entry(body)


def buildrun(name: str = "br", build_name: str | None = "b", embedded: dict[str, Any] | None = None, **spec: Any) -> str:
    b: dict[str, Any] = {}
    if build_name is not None:
        b["name"] = build_name
    if embedded is not None:
        b["spec"] = {"strategy": {"name": "buildah"}, "output": {"image": "registry.example.com/app"}, **embedded}
    body = {"apiVersion": "shipwright.io/v1beta1", "kind": "BuildRun", "metadata": {"name": name, "namespace": "ci"},
            "spec": {"build": b, **spec}}
    return _entry(body)


def _entry(body: dict[str, Any]) -> str:
    dumped = yaml.safe_dump(body, sort_keys=False)
    return textwrap.indent(dumped, "  ").replace("  ", "- ", 1)


POLICY = policy(
    nodeSelector={"pool": "ci"},
    tolerations=[{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}],
    schedulerName="volcano",
)
ADDED = {
    "nodeSelector": {"pool": "ci"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}],
    "schedulerName": "volcano",
}


def sched(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: spec[k] for k in ("nodeSelector", "tolerations", "schedulerName") if k in spec}


def again(r: Rendered) -> Rendered:
    """The output fed back in."""
    out, outcome, code = run_resource_list(r.text.encode())
    assert outcome is not None
    return Rendered(out, yaml.safe_load(out), outcome.results, code)


def items_of(text: str) -> str:
    return text.split("\nfunctionConfig:\n")[0].split("\nresults:\n")[0]


# ---------------------------------------------------------------- merge


def test_policy_lands_on_build_buildrun_and_embedded_spec() -> None:
    r = render(build() + buildrun("other", build_name="elsewhere") + buildrun("emb", build_name=None, embedded={}), POLICY)
    assert r.code == 0, r.problems()
    assert sched(r.obj("Build", "b")["spec"]) == ADDED
    assert sched(r.obj("BuildRun", "other")["spec"]) == ADDED
    emb = r.obj("BuildRun", "emb")["spec"]
    assert sched(emb) == {}  # never at the top level of a BuildRun with an embedded spec
    assert sched(emb["build"]["spec"]) == ADDED
    r2 = again(r)
    assert r2.code == 0 and items_of(r2.text) == items_of(r.text)
    assert [x for x in r2.results if "applied" in x.message] == []


# valid manifests that already satisfy the policy (or have nothing to do with it): unchanged
NOOP = [
    (build(nodeSelector={"pool": "ci", "disk": "ssd"}, tolerations=[{"key": "dedicated", "operator": "Equal", "value": "ci"}], schedulerName="volcano"), POLICY),
    (buildrun(nodeSelector={"pool": "ci"}, tolerations=[{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}], schedulerName="volcano"), POLICY),
    (buildrun("emb", build_name=None, embedded=ADDED), POLICY),
    (build(nodeSelector={"a": "b"}, tolerations=[{"key": "x", "operator": "Exists"}], schedulerName="s") + buildrun(), None),
    (build(output={"image": "x", "platforms": [{"os": "linux", "arch": "amd64"}]}), None),
    (build(nodeSelector={"node-role.kubernetes.io/control-plane": ""}), policy(hardening={"action": "off"})),
]


@pytest.mark.parametrize(("items", "config"), NOOP)
def test_noop(items: str, config: str | None) -> None:
    r = render(items, config)
    assert r.code == 0, r.problems()
    assert r.problems() == []
    assert items_of(r.text) == items_of((HEAD + textwrap.dedent(items)).rstrip("\n"))


def test_buildrun_of_a_compliant_build_gets_the_policy_too() -> None:
    """Each object is merged on its own values, so a BuildRun renders the same whether or not
    its Build is in the same input (the effective values are the same)."""
    items = build(nodeSelector={"pool": "ci"}, tolerations=ADDED["tolerations"], schedulerName="volcano") + buildrun()
    r = render(items, POLICY)
    assert r.code == 0 and r.problems() == []
    assert r.obj("Build", "b") == yaml.safe_load(items.split("- apiVersion: shipwright.io/v1beta1\n  kind: BuildRun")[0])[0]
    assert sched(r.obj("BuildRun", "br")["spec"]) == ADDED
    alone = render(buildrun(), POLICY)
    assert alone.obj("BuildRun", "br") == r.obj("BuildRun", "br")


def test_comments_and_quotes_survive_in_touched_objects() -> None:
    items = """\
    - apiVersion: shipwright.io/v1beta1
      kind: Build
      metadata: {name: b, namespace: ci}  # flow style stays
      spec:
        # the strategy
        strategy: {name: buildah}
        nodeSelector:
          disk: 'ssd'  # single quotes stay
    """
    r = render(items, policy(nodeSelector={"zone": "on"}))
    assert r.code == 0
    assert "metadata: {name: b, namespace: ci}  # flow style stays" in r.text
    assert "# the strategy" in r.text
    assert "disk: 'ssd'  # single quotes stay" in r.text
    assert 'zone: "on"' in r.text


# ---------------------------------------------------------------- Build -> BuildRun (reference §4)

# (Build spec, BuildRun spec, what Shipwright puts into the TaskRun pod template)
MERGE_TABLE = [
    ({}, {"nodeSelector": {"node-type": "buildrun-node"}}, {"nodeSelector": {"node-type": "buildrun-node"}}),
    ({"nodeSelector": {"node-type": "build-node"}}, {}, {"nodeSelector": {"node-type": "build-node"}}),
    ({"nodeSelector": {"node-type": "build-node"}}, {"nodeSelector": {"node-type": "buildrun-node"}}, {"nodeSelector": {"node-type": "buildrun-node"}}),
    ({"nodeSelector": {"build-key": "build-value"}}, {"nodeSelector": {"buildrun-key": "buildrun-value"}},
     {"nodeSelector": {"build-key": "build-value", "buildrun-key": "buildrun-value"}}),
    ({}, {"tolerations": [{"key": "buildrun-key", "operator": "Equal", "value": "buildrun-value", "effect": "NoSchedule"}]},
     {"tolerations": [{"key": "buildrun-key", "operator": "Equal", "value": "buildrun-value", "effect": "NoSchedule"}]}),
    ({"tolerations": [{"key": "build-key", "operator": "Equal", "value": "build-value", "effect": "NoSchedule"}]}, {},
     {"tolerations": [{"key": "build-key", "operator": "Equal", "value": "build-value", "effect": "NoSchedule"}]}),
    ({"tolerations": [{"key": "same-key", "operator": "Equal", "value": "build-value", "effect": "NoSchedule"}]},
     {"tolerations": [{"key": "same-key", "operator": "Equal", "value": "buildrun-value", "effect": "NoSchedule"}]},
     {"tolerations": [{"key": "same-key", "operator": "Equal", "value": "buildrun-value", "effect": "NoSchedule"}]}),
    ({}, {"tolerations": [{"key": "test-key", "operator": "Equal", "value": "test-value"}]},
     {"tolerations": [{"key": "test-key", "operator": "Equal", "value": "test-value", "effect": "NoSchedule"}]}),
    ({"schedulerName": "build-scheduler"}, {"schedulerName": "buildrun-scheduler"}, {"schedulerName": "buildrun-scheduler"}),
    ({"schedulerName": "build-scheduler"}, {}, {"schedulerName": "build-scheduler"}),
    ({}, {"schedulerName": "buildrun-scheduler"}, {"schedulerName": "buildrun-scheduler"}),
    ({"nodeSelector": {"build-node": "true"}, "tolerations": [{"key": "build-taint", "operator": "Exists"}], "schedulerName": "custom-scheduler"},
     {"nodeSelector": {"buildrun-node": "true"}},
     {"nodeSelector": {"build-node": "true", "buildrun-node": "true"},
      "tolerations": [{"key": "build-taint", "operator": "Exists", "effect": "NoSchedule"}], "schedulerName": "custom-scheduler"}),
    # v0.15.0: different keys, BuildRun first
    ({"tolerations": [{"key": "build-test-key", "operator": "Equal", "value": "build-test-value"}]},
     {"tolerations": [{"key": "buildrun-test-key", "operator": "Equal", "value": "buildrun-test-value"}]},
     {"tolerations": [{"key": "buildrun-test-key", "operator": "Equal", "value": "buildrun-test-value", "effect": "NoSchedule"},
                      {"key": "build-test-key", "operator": "Equal", "value": "build-test-value", "effect": "NoSchedule"}]}),
    # a repeated Build key keeps its first occurrence; BuildRun duplicates stay
    ({"tolerations": [{"key": "k", "operator": "Exists"}, {"key": "k", "operator": "Equal", "value": "2"}]},
     {"tolerations": [{"key": "r", "operator": "Exists"}, {"key": "r", "operator": "Exists"}]},
     {"tolerations": [{"key": "r", "operator": "Exists", "effect": "NoSchedule"}, {"key": "r", "operator": "Exists", "effect": "NoSchedule"},
                      {"key": "k", "operator": "Exists", "effect": "NoSchedule"}]}),
    ({}, {}, {}),
]


@pytest.mark.parametrize(("b", "br", "expected"), MERGE_TABLE)
def test_effective_values_match_the_controller(b: dict[str, Any], br: dict[str, Any], expected: dict[str, Any]) -> None:
    assert shipwright.effective_values(b, br) == expected


def test_buildrun_does_not_override_a_build_value_it_would_conflict_with() -> None:
    items = build(nodeSelector={"pool": "gpu"}, tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu"}], schedulerName="other") + buildrun()
    # error: reported once, on the Build (its own values); the BuildRun adds nothing that
    # would silently override the Build
    r = render(items, POLICY)
    assert r.code == 1
    assert r.problems() == [
        ("error", "Build b", "spec.nodeSelector[pool]", None),
        ("error", "Build b", "spec.schedulerName", None),
        ("error", "Build b", "spec.tolerations[0]", None),
    ]
    # keep: the Build keeps its values, and so does the effective BuildRun
    r = render(items, POLICY.replace("scheduling:", "scheduling:\n    onConflict: keep"))
    assert r.code == 0
    assert sched(r.obj("BuildRun", "br")["spec"]) == {}
    assert sched(r.obj("Build", "b")["spec"]) == {"nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu"}], "schedulerName": "other"}
    assert [p[:3] for p in r.problems()] == [
        ("warning", "Build b", "spec.nodeSelector[pool]"),
        ("warning", "Build b", "spec.schedulerName"),
        ("warning", "Build b", "spec.tolerations[0]"),
    ]
    # override: both carry the policy
    r = render(items, POLICY.replace("scheduling:", "scheduling:\n    onConflict: override"))
    assert r.code == 0
    assert sched(r.obj("Build", "b")["spec"]) == ADDED
    assert sched(r.obj("BuildRun", "br")["spec"]) == ADDED
    assert shipwright.effective_values(r.obj("Build", "b")["spec"], r.obj("BuildRun", "br")["spec"])["nodeSelector"] == {"pool": "ci"}


# ---------------------------------------------------------------- conflicts on the object's own values


@pytest.mark.parametrize("make", [lambda **s: build(**s), lambda **s: buildrun(build_name="x", **s), lambda **s: buildrun(build_name=None, embedded=s)])
def test_conflicts_each_on_conflict_value(make: Any) -> None:
    own = {"nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "dedicated", "operator": "Exists"}], "schedulerName": "default-scheduler"}
    items = make(**own)
    r = render(items, POLICY)
    assert r.code == 1
    errs = [x for x in r.results if x.severity == "error"]
    assert len(errs) == 3
    tol = next(x for x in errs if x.field_path and x.field_path.endswith("tolerations[0]"))
    assert tol.current_value == {"key": "dedicated", "operator": "Exists"}
    assert tol.proposed_value == ADDED["tolerations"][0]
    ns = next(x for x in errs if x.field_path and x.field_path.endswith("nodeSelector[pool]"))
    assert (ns.current_value, ns.proposed_value) == ("gpu", "ci")
    sch = next(x for x in errs if x.field_path and x.field_path.endswith("schedulerName"))
    assert (sch.current_value, sch.proposed_value) == ("default-scheduler", "volcano")
    # keep
    r = render(items, POLICY.replace("scheduling:", "scheduling:\n    onConflict: keep"))
    assert r.code == 0 and len([x for x in r.results if x.severity == "warning"]) == 3
    assert items_of(r.text) == items_of((HEAD + textwrap.dedent(items)).rstrip("\n"))
    # override: the policy's values replace them, a same-key toleration included
    r = render(items, POLICY.replace("scheduling:", "scheduling:\n    onConflict: override"))
    assert r.code == 0 and len([x for x in r.results if x.severity == "warning"]) == 3
    obj = r.doc["items"][0]["spec"]
    holder = obj["build"]["spec"] if "spec" in obj.get("build", {}) else obj
    assert sched(holder) == ADDED
    assert again(r).problems() == []


def test_same_key_toleration_with_an_empty_effect_is_the_same_in_shipwright() -> None:
    r = render(build(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "ci"}]), POLICY)
    assert r.code == 0
    assert r.obj("Build", "b")["spec"]["tolerations"] == [{"key": "dedicated", "operator": "Equal", "value": "ci"}]


# ---------------------------------------------------------------- validation reasons


INVALID = [
    (build(tolerations=[{"key": "invalidkey!", "operator": "Equal"}]), "Build b", "spec.tolerations[0].key", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Equal"}, {"operator": "Exists"}]), "Build b", "spec.tolerations[1].key", "TolerationNotValid"),
    (build(tolerations=[{"key": "k"}]), "Build b", "spec.tolerations[0].operator", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Gt", "value": "1"}]), "Build b", "spec.tolerations[0].operator", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Equal", "value": "x y"}]), "Build b", "spec.tolerations[0].value", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}]), "Build b", "spec.tolerations[0].value", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute"}]), "Build b", "spec.tolerations[0].effect", "TolerationNotValid"),
    (build(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 0}]), "Build b", "spec.tolerations[0].tolerationSeconds", "TolerationNotValid"),
    (build(nodeSelector={"s" * 64: "x"}), "Build b", f"spec.nodeSelector[{'s' * 64}]", "NodeSelectorNotValid"),
    (build(nodeSelector={"k": "invalidvalue!"}), "Build b", "spec.nodeSelector[k]", "NodeSelectorNotValid"),
    (build(nodeSelector={"gpu": True}), "Build b", "spec.nodeSelector[gpu]", "NodeSelectorNotValid"),
    (build(schedulerName=""), "Build b", "spec.schedulerName", "SchedulerNameNotValid"),
    (build(schedulerName="invalidname!"), "Build b", "spec.schedulerName", "SchedulerNameNotValid"),
    (build(output={"image": "x", "platforms": [{"os": "linux", "arch": "arm64"}]}, nodeSelector={"kubernetes.io/arch": "arm64"}),
     "Build b", "spec.nodeSelector[kubernetes.io/arch]", "NodeSelectorPlatformConflict"),
    (buildrun(tolerations=[{"key": "k", "operator": "Exists", "tolerationSeconds": 5}]), "BuildRun br", "spec.tolerations[0].tolerationSeconds", "TolerationNotValid"),
    (buildrun(nodeSelector={"a/b/c": "x"}), "BuildRun br", "spec.nodeSelector[a/b/c]", "NodeSelectorNotValid"),
    (buildrun(schedulerName="s" * 64), "BuildRun br", "spec.schedulerName", "SchedulerNameNotValid"),
    (buildrun(output={"image": "x", "platforms": [{"os": "linux", "arch": "amd64"}]}, nodeSelector={"kubernetes.io/os": "linux"}),
     "BuildRun br", "spec.nodeSelector[kubernetes.io/os]", "NodeSelectorPlatformConflict"),
    (buildrun(build_name=None, embedded={}, nodeSelector={"a": "b"}), "BuildRun br", "spec.nodeSelector", "BuildRunBuildFieldOverrideForbidden"),
    (buildrun(build_name=None, embedded={}, tolerations=[{"key": "a", "operator": "Exists"}]), "BuildRun br", "spec.tolerations", "BuildRunBuildFieldOverrideForbidden"),
    (buildrun(build_name=None, embedded={}, schedulerName=""), "BuildRun br", "spec.schedulerName", "BuildRunBuildFieldOverrideForbidden"),
    (buildrun(build_name=None, embedded={"tolerations": [{"key": "k", "operator": "Exists", "effect": "PreferNoSchedule"}]}),
     "BuildRun br", "spec.build.spec.tolerations[0].effect", "TolerationNotValid"),
    (buildrun(build_name=None, embedded={"nodeSelector": {"": "x"}}), "BuildRun br", "spec.build.spec.nodeSelector[]", "NodeSelectorNotValid"),
    (buildrun(build_name=None, embedded={"schedulerName": ""}), "BuildRun br", "spec.build.spec.schedulerName", "SchedulerNameNotValid"),
    (buildrun(build_name=None, embedded={"output": {"image": "x", "platforms": [{"os": "linux", "arch": "amd64"}]}, "nodeSelector": {"kubernetes.io/arch": "amd64"}}),
     "BuildRun br", "spec.build.spec.nodeSelector[kubernetes.io/arch]", "NodeSelectorPlatformConflict"),
    (buildrun(build_name=None), "BuildRun br", "spec.build", "BuildRunNoRefOrSpec"),
    (buildrun(embedded={}), "BuildRun br", "spec.build", "BuildRunAmbiguousBuild"),
]


@pytest.mark.parametrize(("items", "obj", "path", "reason"), INVALID)
@pytest.mark.parametrize("config", [None, POLICY])
def test_invalid_manifests(items: str, obj: str, path: str, reason: str, config: str | None) -> None:
    r = render(items, config)
    assert r.code == 1
    errors = [p for p in r.problems() if p[0] == "error" and p[3] is not None]
    assert errors == [("error", obj, path, reason)]
    # all or nothing: the items leave as they came
    assert items_of(r.text) == items_of((HEAD + textwrap.dedent(items)).rstrip("\n"))


def test_embedded_failures_name_build_registration_failed() -> None:
    r = render(buildrun(build_name=None, embedded={"tolerations": [{"key": "s" * 64, "operator": "Exists"}]}))
    (err,) = [x for x in r.results if x.severity == "error"]
    assert dict(err.tags) == {"reason": "TolerationNotValid", "buildRunReason": "BuildRegistrationFailed"}
    assert "Toleration key not valid: name part must be no more than 63 bytes" in err.message
    assert "BuildRegistrationFailed" in err.message


def test_override_forbidden_ignores_empty_map_and_list() -> None:
    r = render(buildrun(build_name=None, embedded={}, nodeSelector={}, tolerations=[]))
    assert r.code == 0 and r.problems() == []


def test_messages_carry_the_controller_wording() -> None:
    r = render(build(nodeSelector={"s" * 64: "x"}, tolerations=[{"key": "s" * 64, "operator": "Exists"}], schedulerName="s" * 64))
    msgs = sorted(x.message for x in r.results if x.severity == "error")
    assert msgs == [
        "Node selector key not valid: name part must be no more than 63 bytes",
        "Scheduler name not valid: name part must be no more than 63 bytes",
        "Toleration key not valid: name part must be no more than 63 bytes",
    ]
    r = render(buildrun(build_name=None, embedded={}, schedulerName="x"))
    assert any(
        x.message.startswith("cannot use 'schedulerName' override and 'buildSpec' simultaneously")
        for x in r.results
    )


# ---------------------------------------------------------------- platforms on the effective values

PLATFORMS = {"image": "x", "platforms": [{"os": "linux", "arch": "amd64"}, {"os": "linux", "arch": "arm64"}]}


def test_buildrun_selector_meets_build_platforms() -> None:
    r = render(build(output=PLATFORMS) + buildrun(nodeSelector={"kubernetes.io/arch": "amd64"}))
    assert r.problems() == [("error", "BuildRun br", "spec.nodeSelector[kubernetes.io/arch]", "NodeSelectorPlatformConflict")]
    (err,) = [x for x in r.results if x.severity == "error"]
    assert "spec.output.platforms come from Build ci/b" in err.message


def test_build_selector_meets_buildrun_platforms() -> None:
    r = render(build(nodeSelector={"kubernetes.io/os": "linux"}) + buildrun(output=PLATFORMS))
    assert r.problems() == [("error", "BuildRun br", "spec.output.platforms", "NodeSelectorPlatformConflict")]


def test_conflict_entirely_in_the_build_is_the_builds() -> None:
    r = render(build(output=PLATFORMS, nodeSelector={"kubernetes.io/os": "linux"}) + buildrun())
    assert r.problems() == [("error", "Build b", "spec.nodeSelector[kubernetes.io/os]", "NodeSelectorPlatformConflict")]


def test_policy_must_not_add_platform_keys() -> None:
    cfg = policy(nodeSelector={"kubernetes.io/arch": "amd64"})
    r = render(build(output=PLATFORMS) + buildrun("other", build_name="elsewhere"), cfg)
    assert r.problems() == [("error", "Build b", "spec.nodeSelector[kubernetes.io/arch]", "NodeSelectorPlatformConflict")]
    r = render(build(output=PLATFORMS) + buildrun("other", build_name="elsewhere"), cfg.replace("scheduling:", "scheduling:\n    onConflict: keep"))
    assert r.code == 0
    assert "nodeSelector" not in r.obj("Build", "b")["spec"]
    assert r.obj("BuildRun", "other")["spec"]["nodeSelector"] == {"kubernetes.io/arch": "amd64"}
    assert r.problems() == [("warning", "Build b", "spec.nodeSelector[kubernetes.io/arch]", "NodeSelectorPlatformConflict")]


# ---------------------------------------------------------------- hardening

RISKY_TOLS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "fine", "operator": "Exists"},
]
RISKY_NS = {"node-role.kubernetes.io/control-plane": ""}


def test_hardening_on_own_values() -> None:
    items = (
        build(tolerations=RISKY_TOLS, nodeSelector=RISKY_NS)
        + buildrun("r1", build_name="elsewhere", tolerations=RISKY_TOLS[:1])
        + buildrun("r2", build_name=None, embedded={"nodeSelector": {"node-role.kubernetes.io/master": ""}})
    )
    r = render(items)
    assert r.problems() == [
        ("error", "Build b", "spec.nodeSelector[node-role.kubernetes.io/control-plane]", None),
        ("error", "Build b", "spec.tolerations[0]", None),
        ("error", "Build b", "spec.tolerations[1]", None),
        ("error", "BuildRun r1", "spec.tolerations[0]", None),
        ("error", "BuildRun r2", "spec.build.spec.nodeSelector[node-role.kubernetes.io/master]", None),
    ]
    assert all("SHIP-0039" in x.message for x in r.results if x.severity == "error")
    r = render(items, yaml.safe_dump({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "p"}, "spec": {"hardening": {"action": "warn"}}}))
    assert r.code == 0 and {p[0] for p in r.problems()} == {"warning"} and len(r.problems()) == 5


def test_hardening_on_effective_values_names_the_build() -> None:
    items = build(tolerations=RISKY_TOLS) + buildrun(tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Equal", "value": "x"}])
    r = render(items)
    run_results = [x for x in r.results if x.resource and x.resource.kind == "BuildRun" and x.severity == "error"]
    # the BuildRun's own not-ready toleration, and the control-plane one it inherits (the
    # Build's not-ready one is shadowed by the BuildRun's same key)
    assert sorted(x.field_path or "" for x in run_results) == ["spec.build.name", "spec.tolerations[0]"]
    inherited = next(x for x in run_results if x.field_path == "spec.build.name")
    assert "spec.tolerations[1] of Build ci/b" in inherited.message


def test_hardening_allow_list() -> None:
    cfg = yaml.safe_dump({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "p"},
                          "spec": {"hardening": {"action": "deny", "allowTolerationKeys": ["node-role.kubernetes.io/control-plane", "node.kubernetes.io/*"],
                                                 "allowNodeSelectorKeys": ["node-role.kubernetes.io/control-plane"]}}})
    r = render(build(tolerations=RISKY_TOLS, nodeSelector=RISKY_NS) + buildrun(), cfg)
    assert r.code == 0 and r.problems() == []


def test_policy_values_are_checked_once_at_the_config() -> None:
    cfg = policy(tolerations=[{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}, {"key": "x", "operator": "Equal", "effect": "NoExecute"}])
    r = render(build() + build("b2") + buildrun(), cfg)
    assert r.problems() == [
        ("error", "CoschedulePolicy ci", "spec.scheduling.tolerations[0]", None),
        ("error", "CoschedulePolicy ci", "spec.scheduling.tolerations[1].effect", "TolerationNotValid"),
    ]


# ---------------------------------------------------------------- versions


def test_v1alpha1_warning_says_the_fields_do_not_exist() -> None:
    items = "- apiVersion: shipwright.io/v1alpha1\n  kind: Build\n  metadata: {name: old}\n  spec: {strategy: {name: buildah}}\n"
    r = render(items, POLICY)
    assert r.code == 0
    (w,) = [x for x in r.results if x.severity == "warning"]
    assert "v1alpha1 has no nodeSelector, tolerations or schedulerName" in w.message
    assert "drops them" in w.message
    assert items_of(r.text) == items_of((HEAD + items).rstrip("\n"))


# ---------------------------------------------------------------- CRD schema


def test_output_fits_the_crd_schema() -> None:
    """Written values keep the CRD's types (schema extracted from the v1beta1 CRDs)."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    cfg = policy(nodeSelector={"pool": "ci", "zone": "on", "n": "1"}, tolerations=[{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Equal", "value": "true", "effect": "NoSchedule"}], schedulerName="volcano")
    r = render(build() + buildrun("r", build_name="x") + buildrun("e", build_name=None, embedded={}), cfg)
    assert r.code == 0
    holders = [r.obj("Build", "b")["spec"], r.obj("BuildRun", "r")["spec"], r.obj("BuildRun", "e")["spec"]["build"]["spec"]]
    for h in holders:
        assert sched(h)
        jsonschema.validate(sched(h), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"nodeSelector": {"zone": True}}, schema)


@pytest.mark.parametrize("on_conflict", ["error", "keep", "override"])
def test_buildrun_before_its_build_renders_the_same(on_conflict: str) -> None:
    b = build(nodeSelector={"pool": "gpu"}, tolerations=[{"key": "dedicated", "operator": "Exists"}])
    cfg = POLICY.replace("scheduling:", f"scheduling:\n    onConflict: {on_conflict}")
    first, second = render(b + buildrun(), cfg), render(buildrun() + b, cfg)
    assert first.code == second.code
    if first.code == 0:
        for kind, name in (("Build", "b"), ("BuildRun", "br")):
            assert first.obj(kind, name) == second.obj(kind, name)
    assert first.problems() == second.problems()
