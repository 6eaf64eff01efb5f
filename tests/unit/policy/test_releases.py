"""Tekton releases as data (policy/releases.py): the table, what follows the version from
it (nop image, set-security-context default), the defaults (newest Tekton and Kubernetes),
the warning for a Tekton newer than the table, and docs/tekton-releases.md kept equal."""
from __future__ import annotations

from typing import Any

import pytest
from shared import ROOT

from krm_fn.policy import config
from krm_fn.policy import nop
from krm_fn.policy import releases
from krm_fn.policy.config import Policy
from krm_fn.transforms.tekton import assistant

DOC = ROOT / "docs" / "tekton-releases.md"
RESTRICTED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def typed(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": spec}


def cm(data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "feature-flags"}, "data": data}


def test_the_table_runs_from_v0_15_0_to_v1_16_0() -> None:
    r = releases.releases()
    assert r[0] == (0, 15, 0) and r[-1] == (1, 16, 0) == releases.NEWEST == config.NEWEST_TEKTON
    lines = [line for line, *_ in releases.LINES]
    assert len(lines) == len(set(lines)) and "0.67" not in lines and "1.8" not in lines
    assert all(source for *_, source in releases.LINES)  # every row names its upstream source


def test_v1_16_0_turns_set_security_context_on() -> None:
    assert releases.set_security_context_default((1, 15, 0)) is False
    assert releases.set_security_context_default((1, 16, 0)) is True
    assert releases.set_security_context_default((1, 17, 2)) is True


def test_copied_fields_by_release() -> None:
    assert releases.copied_fields((0, 15, 0)) == ("nodeSelector", "tolerations")
    assert releases.copied_fields((0, 63, 0))[-1] == "securityContext"
    assert releases.copied_fields((1, 9, 0))[-1] == "serviceAccountName"
    # the fields the renderer copies whole are the newest release's (serviceAccountName apart)
    assert releases.copied_fields(releases.NEWEST)[:-1] == assistant.COPIED_FIELDS


def test_defaults_are_the_newest_releases() -> None:
    p, res = config.load(None)
    assert p is not None and res == []
    assert p.tekton_version == (1, 16, 0) and p.kubernetes_version == (1, 37)
    assert p.assistant_image == f"{nop.NOP_REPOSITORY}:v1.16.0"
    assert p.set_security_context is True
    assert Policy().set_security_context is True
    assert Policy(tekton_version=(1, 15, 0)).set_security_context is False


@pytest.mark.parametrize(
    ("fc", "on"),
    [
        (typed({}), True),
        (typed({"tektonVersion": "v1.16.0"}), True),
        (typed({"tektonVersion": "v1.15.0"}), False),
        (typed({"tektonVersion": "v1.16.0", "assistant": {"setSecurityContext": False}}), False),  # the rollback
        (typed({"tektonVersion": "v1.15.0", "assistant": {"setSecurityContext": True}}), True),
        (cm({"tekton-version": "v1.15.0"}), False),
        (cm({"tekton-version": "v1.16.0"}), True),
        (cm({"tekton-version": "v1.16.0", "set-security-context": "false"}), False),
        (cm({}), True),
    ],
)
def test_set_security_context_follows_the_version(fc: dict[str, Any], on: bool) -> None:
    p, res = config.load(fc)
    assert p is not None and res == []
    assert p.set_security_context is on


def _assistant(policy: Policy, node_selector: dict[str, str] | None = None) -> dict[str, Any]:
    tpl: dict[str, Any] = {"nodeSelector": node_selector} if node_selector else {}
    spec = assistant.Spec(
        "affinity-assistant-0b79942a50", "ci", "PipelineRun", "my-pipelinerun", {}, tpl, "",
        frozenset(), [], [], False,
    )
    return assistant.statefulset(spec, policy)["spec"]["template"]["spec"]["containers"][0]


def test_v1_16_0_renders_what_its_assistant_writes() -> None:
    p, _ = config.load(typed({"tektonVersion": "v1.16.0"}))
    assert p is not None
    c = _assistant(p)
    assert c["image"] == f"{nop.NOP_REPOSITORY}:v1.16.0"
    assert c["securityContext"] == RESTRICTED
    assert _assistant(p, {"kubernetes.io/os": "windows"})["securityContext"] == {"runAsNonRoot": True}
    old, _ = config.load(typed({"tektonVersion": "v1.15.0"}))
    assert old is not None
    c = _assistant(old)
    assert c["image"] == f"{nop.NOP_REPOSITORY}:v1.15.0" and c["securityContext"] == {}


@pytest.mark.parametrize("version", ["v1.16.1", "v1.17.0", "2.0"])
def test_a_tekton_newer_than_known_warns_and_follows_the_newest(version: str) -> None:
    for fc, path in ((typed({"tektonVersion": version}), "spec.tektonVersion"), (cm({"tekton-version": version}), "data.tekton-version")):
        p, res = config.load(fc)
        assert p is not None
        (w,) = res
        assert w.severity == "warning" and w.field_path == path
        assert "newer than the newest Tekton release this function knows (v1.16.0)" in w.message
        assert "the output follows v1.16.0" in w.message
        assert p.assistant_image == f"{nop.NOP_REPOSITORY}:v1.16.0" and p.set_security_context is True


@pytest.mark.parametrize("version", ["v1.16.0", "v1.15.2", "v0.62.0"])
def test_a_known_version_does_not_warn(version: str) -> None:
    p, res = config.load(typed({"tektonVersion": version}))
    assert p is not None and res == []


def test_the_docs_table_is_the_data() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert releases.markdown() in text, "docs/tekton-releases.md: paste releases.markdown() in place of the table"
    assert "| v1.16 | v1.16.0 | true |" in text and "| v0.44 | v0.44.0, v0.44.2 to v0.44.5 | false |" in text


def test_release_is_the_newest_of_the_table_not_after_the_version() -> None:
    """release() reads the table from its newest line down (issue 34: a run asks about one
    version); its answer is the newest of every release not after the version, for versions
    below, inside, between and past the table's lines and patches (v0.44.1 and v1.8 were
    never released)."""
    table = releases.releases()
    assert table == sorted(table) and len(table) == len(set(table))
    majors = sorted({major for major, _, _ in table} | {2})
    for major in majors:
        for minor in range(80):
            for patch in range(12):
                v = (major, minor, patch)
                expected = max((r for r in table if r <= v), default=None)
                assert releases.release(v) == expected, v
