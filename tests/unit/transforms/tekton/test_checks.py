"""tekton.dev/auto-cleanup-pvc (Tekton v1.11.0) does nothing under the coschedule: disabled
the function needs (issue 32, deliverable 4): a warning on the run that says what happens to
its claims instead and how to clean them up."""
from __future__ import annotations

from krm_fn.modes.krm import run_resource_list

PATH = "metadata.annotations.tekton.dev/auto-cleanup-pvc"


def _rl(meta: str, policy: str = "") -> str:
    rl = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n" + meta +
        "  spec:\n    pipelineSpec:\n      workspaces: [{name: src}]\n"
        "      tasks: [{name: t, taskRef: {name: x}, workspaces: [{name: s, workspace: src}]}]\n"
        "    workspaces:\n    - name: src\n      volumeClaimTemplate:\n        spec:\n"
        "          accessModes: [ReadWriteOnce]\n          resources: {requests: {storage: 1Gi}}\n"
    )
    if policy:
        rl += "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata: {name: c}\n  spec:\n" + policy
    return rl


def _warnings(rl: str) -> list[tuple[str, str]]:
    _out, outcome, code = run_resource_list(rl.encode())
    assert outcome is not None and code == 0, outcome
    return [(r.field_path or "", r.message) for r in outcome.results if r.severity == "warning"]


NAMED = "    name: build-1\n    namespace: ci\n    annotations: {tekton.dev/auto-cleanup-pvc: \"true\"}\n"
NAMELESS = "    generateName: build-\n    namespace: ci\n    annotations: {tekton.dev/auto-cleanup-pvc: \"true\"}\n"


def test_a_placeholder_run_is_told_its_claims_go_with_the_placeholder() -> None:
    (w,) = [w for w in _warnings(_rl(NAMED)) if w[0] == PATH]
    assert "does nothing" in w[1] and "coschedule: workspaces" in w[1]
    assert "claim templates of the placeholder affinity-assistant-" in w[1]
    assert "kubectl delete statefulset -n ci -l tekton.dev/pipelineRun=build-1" in w[1]


def test_retained_claims_are_deleted_by_hand() -> None:
    policy = "    assistant: {pvcRetentionPolicy: {whenDeleted: Retain}}\n"
    (w,) = [w for w in _warnings(_rl(NAMED, policy)) if w[0] == PATH]
    assert "stay when the placeholder is deleted" in w[1] and "kubectl delete pvc -n ci -l tekton.dev/pipelineRun=build-1" in w[1]


def test_a_run_keyed_run_is_told_tekton_deletes_its_claims_with_the_run() -> None:
    (w,) = [w for w in _warnings(_rl(NAMELESS)) if w[0] == PATH]
    assert "owned by the run and deletes them only with the run" in w[1]


def test_a_run_without_the_annotation_or_before_v1_11_is_quiet() -> None:
    assert [w for w in _warnings(_rl("    name: build-1\n    namespace: ci\n")) if w[0] == PATH] == []
    off = "    annotations: {tekton.dev/auto-cleanup-pvc: \"false\"}\n"
    assert [w for w in _warnings(_rl("    name: build-1\n" + off)) if w[0] == PATH] == []
    assert [w for w in _warnings(_rl(NAMED, "    tektonVersion: v1.10.0\n")) if w[0] == PATH] == []
