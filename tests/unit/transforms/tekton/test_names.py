"""Name formulas against every literal value the reference lists (tekton-affinity-assistant.md §1)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from krm_fn.transforms.tekton import names

PER_RUN = [
    ("test-pipelinerun", "622aca4516"),
    ("pipelinerun-with-volumeClaimTemplate", "426b306c50"),
    ("pipelinerun-with-volumeClaimTemplate-and-pvc", "5bf44db4a8"),
    ("pipelinerun-with-emptyDir", "c655a0c8a2"),
    ("pipelinerun-with-windows", "01cecfbdec"),
    ("my-pipelinerun", "0b79942a50"),
    ("test-pipelinerun-volumeclaimtemplate", "62843d388a"),
    ("", "e3b0c44298"),
]
PER_WORKSPACE = [
    ("source", "my-pipelinerun", "835c6588ed"),
    ("cache", "my-pipelinerun", "825fce59e2"),
    ("test-workspace-pvc", "test-pipelinerun", "ac9f8fc5ee"),
    ("test-workspace-vct", "pipelinerun-with-volumeClaimTemplate", "4cf1a1c468"),
    ("test-workspace-vct", "pipelinerun-with-volumeClaimTemplate-and-pvc", "6c87e714a0"),
    ("test-workspace-pvc", "pipelinerun-with-volumeClaimTemplate-and-pvc", "6399c93362"),
    ("my-ws", "my-pipelinerun", "315f58d30d"),
    ("volumeClaimTemplate workspace 1", "test-pipelinerun-volumeclaimtemplate", "9d8b15fa2e"),
    ("volumeClaimTemplate workspace 2", "test-pipelinerun-volumeclaimtemplate", "39883fc3b2"),
    ("ws-1", "test-pipeline-run-variable-substitution", "0358aabfa2"),
]
# (vct name, binding, owner) -> PVC name; Tekton's owner is the UID
PVC = [
    ("", "source", "0d1b6f0e-6a55-4c39-9a3e-2f0c7b1e5a11", "pvc-153c1c6cfa"),
    ("cache", "source", "0d1b6f0e-6a55-4c39-9a3e-2f0c7b1e5a11", "cache-153c1c6cfa"),
    ("", "test-workspace-vct", "", "pvc-b9eea16dce"),
    ("", "volumeClaimTemplate workspace 1", "", "pvc-a12c589442"),
    ("", "volumeClaimTemplate workspace 2", "", "pvc-5ce7cd98c5"),
    ("", "foo", "", "pvc-2c26b46b68"),
    ("pvc1", "myws1", "taskrun1", "pvc1-ad02547921"),
    ("", "ws-with-volume-claim-template-without-metadata", "taskrun1", "pvc-3fc56c2bb2"),
    ("", "ws-with-volume-claim-template", "taskrun1", "pvc-5435cf73f0"),
]


@pytest.mark.parametrize(("run", "expected"), PER_RUN)
def test_per_run_assistant_name(run: str, expected: str) -> None:
    name = names.assistant_name("", run)
    assert name == "affinity-assistant-" + expected
    assert len(name) == 29


@pytest.mark.parametrize(("ws", "run", "expected"), PER_WORKSPACE)
def test_per_workspace_assistant_name(ws: str, run: str, expected: str) -> None:
    assert names.assistant_name(ws, run) == "affinity-assistant-" + expected


@pytest.mark.parametrize(("vct", "binding", "owner", "expected"), PVC)
def test_pvc_name(vct: str, binding: str, owner: str, expected: str) -> None:
    assert names.pvc_name(vct, binding, owner) == expected


def test_claim_names_created_by_the_statefulset() -> None:
    aa = names.assistant_name("", "test-pipelinerun-volumeclaimtemplate")
    assert names.claim_name(names.pvc_name("", "volumeClaimTemplate workspace 1", ""), aa) == (
        "pvc-a12c589442-affinity-assistant-62843d388a-0"
    )
    assert names.claim_name(names.pvc_name("", "volumeClaimTemplate workspace 2", ""), aa) == (
        "pvc-5ce7cd98c5-affinity-assistant-62843d388a-0"
    )
    uid = "0d1b6f0e-6a55-4c39-9a3e-2f0c7b1e5a11"
    assert names.claim_name(names.pvc_name("", "source", uid), names.assistant_name("", "my-pipelinerun")) == (
        "pvc-153c1c6cfa-affinity-assistant-0b79942a50-0"
    )


def test_long_template_name_is_sanitised_like_tekton_v1_13() -> None:
    vct = "master-pipeline-700-generic-feature-execution-15943-error-handle"
    assert len(vct) == 64
    raw = names.pvc_name(vct, "my-workspace", "uid-1234")
    assert raw == vct + "-8494e35dae" and len(raw) == 75
    out = names.claim_template_name(vct, "my-workspace", "uid-1234")
    assert out == "master-pipeline-700-generic-feature-execution-15943--2d329a96ae"
    assert len(out) == 63


@pytest.mark.parametrize("n", [62, 63])
def test_sanitise_keeps_short_names(n: int) -> None:
    assert names.sanitize("a" * n) == "a" * n


def test_taskrun_assistant_cannot_collide_with_a_pipelinerun() -> None:
    name = names.taskrun_assistant_name("build")
    assert name == "affinity-assistant-" + names.h10("taskrun/build")
    assert name != names.assistant_name("", "build")


def test_pinned_assistant_recognises_only_our_exact_term() -> None:
    aa = names.assistant_name("", "x")
    assert names.pinned_assistant(names.pin_term(aa)) == aa
    other = names.pin_term(aa)
    other["topologyKey"] = "topology.kubernetes.io/zone"
    assert names.pinned_assistant(other) is None
    extra = names.pin_term(aa)
    extra["namespaces"] = ["ci"]
    assert names.pinned_assistant(extra) is None
    assert names.pinned_assistant(names.pin_term("my-own-cache")) is None
    assert names.pinned_assistant(None) is None


@pytest.mark.parametrize(
    "text", ["", "my-pipelinerun", "source" + "my-pipelinerun", "taskrun/x", "é-ü-名前", "x" * 10_000]
)
def test_builtin_sha256_matches_hashlib(text: str) -> None:
    # names.py avoids hashlib's OpenSSL load at start-up (#5); the digests must not change
    import hashlib

    data = text.encode("utf-8")
    assert names._sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert names.h10(text) == hashlib.sha256(data).hexdigest()[:10]


def test_names_does_not_load_openssl() -> None:
    # the point of the builtin module: a fresh interpreter importing names never loads _hashlib
    import subprocess
    import sys

    code = (
        "import importlib.util, sys; import krm_fn.transforms.tekton.names; "
        "has = any(importlib.util.find_spec(m) for m in ('_sha256', '_sha2')); "
        "print(has, '_hashlib' in sys.modules, 'hashlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "False"]


_PIECES = st.sampled_from(["affinity-assistant-", "0123456789", "abcdef0123", "ABCDEF0123", "012345678", "-0", "-", "a", "\n", "é", ""])


@given(st.lists(_PIECES, max_size=6).map("".join) | st.text(max_size=40))
def test_assistant_names_are_read_as_the_patterns_read_them(text: str) -> None:
    """is_assistant_name and claim_assistant use string operations, not patterns compiled at
    every start: the same answers as the patterns they replace."""
    assert names.is_assistant_name(text) == bool(re.fullmatch(r"affinity-assistant-[0-9a-f]{10}", text))
    m = re.fullmatch(r".+-(affinity-assistant-[0-9a-f]{10})-0", text)
    assert names.claim_assistant(text) == (m.group(1) if m else None)
