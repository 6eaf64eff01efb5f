"""`krm-coschedule explain`: the plan from process(), as a table or a Mermaid diagram."""
from __future__ import annotations

import io
from pathlib import Path

import fake_transform
import pytest
from files_util import PIPELINE_BUILD  # type: ignore[import-not-found]
from shared import ROOT

from krm_fn.cli import main
from krm_fn.core.results import ResourceRef
from krm_fn.modes import explain
from krm_fn.orchestration import process
from krm_fn.transforms.context import Plan

PLANS = [
    Plan(
        ResourceRef("tekton.dev/v1", "PipelineRun", "build-1", "ci"),
        "workspaces",
        [
            {
                "name": "affinity-assistant-0123456789",
                "tasks": ["fetch", "build"],
                "claims": [
                    {"template": "pvc-aaaaaaaaaa", "claim": "pvc-aaaaaaaaaa-affinity-assistant-0123456789-0", "bindings": ["spec.workspaces[0]"]},
                ],
                "volumes": [],
            },
            {"name": "affinity-assistant-9876543210", "tasks": ["report"], "claims": [], "volumes": ["build-cache"]},
        ],
    ),
    Plan(ResourceRef("tekton.dev/v1", "PipelineRun", "quiet"), "disabled", []),
]

TABLE = """\
RUN                     MODE        ASSISTANT                      TASKS           CLAIM                                           TEMPLATE          BOUND BY
PipelineRun ci/build-1  workspaces  affinity-assistant-0123456789  fetch, build    pvc-aaaaaaaaaa-affinity-assistant-0123456789-0  pvc-aaaaaaaaaa    spec.workspaces[0]
                                    affinity-assistant-9876543210  report          build-cache                                     (existing claim)
PipelineRun quiet       disabled    -                              (no assistant)

2 placeholder pod(s) request 100m CPU and 200Mi memory in all and hold 1 claim(s) they create and 1 existing one(s), on their nodes, until their runs' manifests leave Git (finished runs too).
"""

MERMAID = """\
flowchart LR
  subgraph r0["PipelineRun ci/build-1 · workspaces"]
    r0a0{{"assistant affinity-assistant-0123456789"}}
    r0a0t0["task fetch"] --> r0a0
    r0a0t1["task build"] --> r0a0
    r0a0 -- "spec.workspaces[0]" --> r0a0c0[("pvc-aaaaaaaaaa-affinity-assistant-0123456789-0 (template pvc-aaaaaaaaaa)")]
    r0a1{{"assistant affinity-assistant-9876543210"}}
    r0a1t0["task report"] --> r0a1
    r0a1 -.-> r0a1v0[("build-cache (existing claim)")]
  end
  subgraph r1["PipelineRun quiet · disabled"]
    r1none["no assistant"]
  end
"""


def test_table() -> None:
    assert explain.table(PLANS) == TABLE


def test_mermaid() -> None:
    assert explain.mermaid(PLANS) == MERMAID


def test_empty_plan() -> None:
    assert explain.table([]).startswith("No run is coscheduled")
    assert explain.mermaid([]) == 'flowchart LR\n  none["no run is coscheduled"]\n'


def test_mermaid_escapes_quotes() -> None:
    p = Plan(ResourceRef("tekton.dev/v1", "PipelineRun", 'x"<y>'), "pipelineruns", [])
    assert '"PipelineRun x#quot;#lt;y#gt; · pipelineruns"' in explain.mermaid([p])


POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: workspaces\n"
PIPELINE = PIPELINE_BUILD
RUN = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: build-1
  namespace: ci
spec:
  pipelineRef:
    name: build
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
"""


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The fake transform, and a record of every process.process() call."""

    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), fake_transform.handle_pipelinerun)
    calls: list[int] = []
    real = process.process

    def counting(*a, **kw):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(process, "process", counting)
    return calls


def test_explain_files(spy: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("policy.yaml").write_text(POLICY)
    Path("pipeline.yaml").write_text(PIPELINE)
    Path("run.yaml").write_text(RUN)
    assert main(["explain", "--config", "policy.yaml", "pipeline.yaml", "run.yaml"]) == 0
    out = capsys.readouterr().out
    assert spy, "explain must go through process.process()"
    assert out.splitlines()[0].split() == ["RUN", "MODE", "ASSISTANT", "TASKS", "CLAIM", "TEMPLATE", "BOUND", "BY"]
    assert "PipelineRun ci/build-1" in out and "spec.workspaces[0]" in out
    assert Path("run.yaml").read_text() == RUN  # explain never writes
    assert main(["explain", "--format", "mermaid", "--config", "policy.yaml", "pipeline.yaml", "run.yaml"]) == 0
    assert capsys.readouterr().out.startswith("flowchart LR\n  subgraph r0[\"PipelineRun ci/build-1 · workspaces\"]")


def test_explain_stdin(spy: list[int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    for doc in (PIPELINE, RUN):
        rl += "".join(("- " if i == 0 else "  ") + line for i, line in enumerate(doc.splitlines(True)))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(rl.encode())))
    assert main(["explain"]) == 0
    assert spy
    assert "affinity-assistant-" in capsys.readouterr().out


def test_explain_errors(spy: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("policy.yaml").write_text(POLICY)
    Path("run.yaml").write_text(RUN)
    assert main(["explain", "--config", "policy.yaml", "run.yaml"]) == 1  # the Pipeline is missing
    cap = capsys.readouterr()
    assert cap.out == ""
    assert "run.yaml: [error] tekton.dev/v1/PipelineRun/ci/build-1 spec.pipelineRef.name" in cap.err


def test_explain_bad_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"kind: Deployment\n")))
    assert main(["explain"]) == 1
    assert "expected one ResourceList" in capsys.readouterr().err


def test_explain_bad_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["explain", "--format", "svg"])
    assert e.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_explain_real_transform_names_every_binding(capsys: pytest.CaptureFixture[str]) -> None:
    # no stand-in: the Tekton transform's own plan for the workspaces example
    ex = ROOT / "examples" / "coschedule-workspaces"
    files = [str(ex / "coschedule-policy.yaml"), str(ex / "pipeline.yaml"), str(ex / "pipelinerun.yaml")]
    assert main(["explain", "--config", files[0], *files[1:]]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert rows[0][-3:] == ["pvc-e814206922-affinity-assistant-e814206922-0", "pvc-e814206922", "source"]
    assert "fetch," in rows[0] and "build" in rows[0]
    assert rows[1] == ["affinity-assistant-c2170d7ad1", "report", "build-cache", "(existing", "claim)", "cache"]
    assert main(["explain", "--format", "mermaid", "--config", files[0], *files[1:]]) == 0
    assert 'r0a1 -. "cache" .-> r0a1v0[("build-cache (existing claim)")]' in capsys.readouterr().out
