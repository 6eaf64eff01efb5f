"""Costs that grow with the input grow linearly, checked at n and 4n in the same run, never
against a wall clock: the work itself where it can be counted (calls of the function that
was called once per pair before: exact, no noise), else CPU time (best of three,
alternating) as a ratio. Quadratic work gives about 16x; the bounds are 5x for counts and 8x
for times."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from krm_fn import names
from krm_fn import scheduling
from krm_fn.cli import main
from krm_fn.krm import run_resource_list

BOUND = 8.0


def ratio(make: Callable[[int], Callable[[], object]], n: int) -> float:
    small, large = make(n), make(4 * n)
    small()  # warm imports and caches
    best = {1: float("inf"), 4: float("inf")}
    for _ in range(3):
        for k, fn in ((1, small), (4, large)):
            t = time.process_time()
            fn()
            best[k] = min(best[k], time.process_time() - t)
    return best[4] / max(best[1], 1e-6)


def _resource_list(items: list[dict], config: dict | None = None) -> bytes:
    doc: dict = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if config is not None:
        doc["functionConfig"] = config
    return yaml.safe_dump(doc, sort_keys=False).encode()


def _run_with_workspaces(n: int) -> dict:
    ws = [{"name": f"w{i}"} for i in range(n)]
    tasks = [{"name": f"t{i}", "taskRef": {"name": "x"}, "workspaces": [{"name": "s", "workspace": f"w{i}"}]} for i in range(n)]
    binds = [
        {"name": f"w{i}", "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}
        for i in range(n)
    ]
    return {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "metadata": {"name": "big"},
            "spec": {"pipelineSpec": {"workspaces": ws, "tasks": tasks}, "workspaces": binds}}


def calls(monkeypatch: pytest.MonkeyPatch, module: object, name: str, run: Callable[[], object]) -> int:
    """How often `module.name` is called while `run` runs."""
    real = getattr(module, name)
    count = [0]

    def counted(*a: object, **k: object) -> object:
        count[0] += 1
        return real(*a, **k)

    with monkeypatch.context() as m:
        m.setattr(module, name, counted)
        run()
    return count[0]


def test_claim_workspaces_of_one_run_are_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every assistant name a run can have was computed again for each of its bindings."""
    def work(n: int) -> int:
        data = _resource_list([_run_with_workspaces(n)])
        return calls(monkeypatch, names, "h10", lambda: run_resource_list(data))

    assert work(200) / work(50) < 5


def test_claim_workspaces_of_one_run_take_linear_time() -> None:
    def make(n: int) -> Callable[[], object]:
        data = _resource_list([_run_with_workspaces(n)])
        return lambda: run_resource_list(data)

    assert ratio(make, 100) < BOUND


def test_workspace_references_are_read_in_linear_time() -> None:
    """A script of many `$(workspaces` openings that never close (or close on a later line):
    a backtracking reader looks for the closing again from every opening."""
    from krm_fn.tekton_workspaces import references

    def make(n: int) -> Callable[[], object]:
        text = "$(workspaces.a" * n + '$(workspaces["b' * n + "\n)\"])" + "$(workspaces.c" * n
        return lambda: references(text)

    assert ratio(make, 20000) < BOUND


def test_rendering_again_is_linear_in_the_assistants() -> None:
    def make(n: int) -> Callable[[], object]:
        rendered, _, code = run_resource_list(_resource_list([_run_with_workspaces(n)]))
        assert code == 0
        data = rendered.split("\nresults:\n")[0].encode() + b"\n"
        return lambda: run_resource_list(data)

    assert ratio(make, 100) < BOUND


def _tolerations_list(n: int) -> bytes:
    tols = [{"key": f"k{i}", "operator": "Exists", "effect": "NoSchedule"} for i in range(n)]
    runs = [{"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "metadata": {"name": f"r{i}"},
             "spec": {"pipelineRef": {"name": "p"}, "taskRunTemplate": {"podTemplate": {"tolerations": tols[: n // 2]}}}}
            for i in range(3)]
    cfg = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "p"},
           "spec": {"coschedule": "disabled", "scheduling": {"tolerations": tols}}}
    return _resource_list(runs, cfg)


def test_policy_tolerations_are_compared_linearly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each policy toleration was compared with every toleration of the manifest."""
    def work(n: int) -> int:
        data = _tolerations_list(n)
        return calls(monkeypatch, scheduling, "_tol_norm", lambda: run_resource_list(data))

    assert work(400) / work(100) < 5


def test_documents_appended_to_one_file_are_linear(tmp_path: Path) -> None:
    """Files mode: many runs in one file, each getting its assistant appended."""
    def make(n: int) -> Callable[[], object]:
        d = tmp_path / str(n)
        d.mkdir()
        runs = [{**_run_with_workspaces(1), "metadata": {"name": f"r{i}"}} for i in range(n)]
        text = yaml.safe_dump_all(runs, sort_keys=False)
        path = d / "runs.yaml"
        policy = d / "policy.yaml"
        policy.write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: pipelineruns\n")

        def go() -> object:
            path.write_text(text)
            return main(["--check", "--config", str(policy), str(path)])

        return go

    assert ratio(make, 40) < BOUND


def test_steady_state_regenerates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rendered package, rendered again in files mode: every generated object equals what
    is there, so none is written again (it was re-emitted each time: its in-memory location
    annotations made it differ)."""
    from krm_fn import yamlio

    (tmp_path / "policy.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: pipelineruns\n"
    )
    for i in range(5):
        (tmp_path / f"run{i}.yaml").write_text(yaml.safe_dump({**_run_with_workspaces(1), "metadata": {"name": f"r{i}"}}))
    args = ["--config", str(tmp_path / "policy.yaml"), *(str(p) for p in sorted(tmp_path.glob("run*.yaml")))]
    assert main(args) == 1  # first render
    assert calls(monkeypatch, yamlio, "dump_block", lambda: main(["--check", *args])) == 0
