"""The package's written state is read (issue 31, deliverable 4): a placeholder of a named
run that sits in another file of the package (read as context) is handled as when both
files are named, not left beside a second one; and every label value the function writes
is checked as the API server checks it, referenced names included (a pipelineRef to a
Pipeline named with more than 63 characters gave the placeholder a `tekton.dev/pipeline`
label the server refuses, with exit 0)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from files_util import cli  # type: ignore[import-not-found]
from files_util import kinds  # type: ignore[import-not-found]

CMD = [sys.executable, "-m", "krm_fn"]

PIPELINE = """\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: {name}
  namespace: ci
{labels}spec:
  workspaces:
  - name: src
  - name: cache
  tasks:
  - name: build
    workspaces:
    - name: src
      workspace: src
    taskRef:
      name: t
  - name: warm
    workspaces:
    - name: cache
      workspace: cache
    taskRef:
      name: w
"""

RUN = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: {name}
  namespace: ci
spec:
  pipelineRef:
    name: {pipeline}
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
        resources: {{requests: {{storage: 1Gi}}}}
  - name: cache
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
        resources: {{requests: {{storage: 1Gi}}}}
"""


def _policy(mode: str) -> str:
    return (
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\n  annotations:\n"
        f'    config.kubernetes.io/local-config: "true"\nspec:\n  coschedule: {mode}\n'
    )


def _statefulsets(d: Path) -> list[tuple[str, str]]:
    out = []
    for f in sorted(d.rglob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "StatefulSet":
                out.append((f.relative_to(d).as_posix(), doc["metadata"]["name"]))
    return out


def _rendered_then_moved(d: Path, mode: str, where: str) -> None:
    """A package rendered under `mode` with its placeholders moved out of the run's file
    into `where` (kpt users keep generated objects apart)."""
    (d / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n")
    (d / "pipeline.yaml").write_text(PIPELINE.format(name="p", labels=""))
    (d / "run.yaml").write_text(RUN.format(name="r", pipeline="p"))
    (d / "policy.yaml").write_text(_policy(mode))
    code, _, err = cli(d, "pipeline.yaml", "run.yaml")
    assert code == 1 and "StatefulSet" in kinds(d / "run.yaml"), err
    docs = (d / "run.yaml").read_text().split("\n---\n")
    (d / "run.yaml").write_text(docs[0] + "\n")
    (d / where).parent.mkdir(parents=True, exist_ok=True)
    (d / where).write_text("\n---\n".join(docs[1:]))


@pytest.mark.parametrize(
    "before, after",
    [("workspaces", "pipelineruns"), ("pipelineruns", "workspaces"), ("workspaces", "isolate-pipelinerun"), ("pipelineruns", "disabled")],
)
@pytest.mark.parametrize("where", ["assistants.yaml", "generated/assistants.yaml"])
def test_a_placeholder_moved_to_another_file_is_handled_as_when_both_are_named(
    tmp_path: Path, before: str, after: str, where: str
) -> None:
    alone, both = tmp_path / "alone", tmp_path / "both"
    for d in (alone, both):
        d.mkdir()
        _rendered_then_moved(d, before, where)
        (d / "policy.yaml").write_text(_policy(after))
    code_both, _, err_both = cli(both, "run.yaml", where)
    code, _, err = cli(alone, "--files", "run.yaml")  # pre-commit with only the run's file staged
    assert (code, _statefulsets(alone)) == (code_both, _statefulsets(both)), err
    for d in (alone, both):
        assert (d / "run.yaml").read_text() == (both / "run.yaml").read_text()
        assert (d / where).read_text() == (both / where).read_text()
    assert f"rewrote {where}" in err
    wanted = 0 if after == "disabled" else 1 if after != "workspaces" else 2
    assert len(_statefulsets(alone)) == wanted  # never the old and the new one side by side
    assert sorted(line.split(": ", 1)[1] for line in err.splitlines() if "removed" in line) == sorted(
        line.split(": ", 1)[1] for line in err_both.splitlines() if "removed" in line
    )
    assert cli(alone, "--check", "run.yaml")[0] == 0, cli(alone, "--check", "run.yaml")  # and at rest


def test_a_placeholder_in_another_file_that_is_current_stays_where_it_is(tmp_path: Path) -> None:
    _rendered_then_moved(tmp_path, "pipelineruns", "assistants.yaml")
    before = (tmp_path / "assistants.yaml").read_text()
    code, _, err = cli(tmp_path, "--check", "run.yaml")
    assert code == 0, err
    assert (tmp_path / "assistants.yaml").read_text() == before
    assert len(_statefulsets(tmp_path)) == 1


# --------------------------------------------------------------------------- label values


@pytest.mark.parametrize("length", [64, 70, 253])
def test_a_pipeline_name_too_long_for_a_label_is_a_located_error(tmp_path: Path, length: int) -> None:
    name = "p" * length
    (tmp_path / "pipeline.yaml").write_text(PIPELINE.format(name=name, labels=""))
    (tmp_path / "run.yaml").write_text(RUN.format(name="r", pipeline=name))
    before = (tmp_path / "run.yaml").read_text()
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert (
        f"run.yaml:8:5: [error] tekton.dev/v1/PipelineRun/ci/r spec.pipelineRef.name: \"{name}\" is not a valid label "
        "value: must be no more than 63 bytes; the StatefulSet generated for this run carries it as label "
        "tekton.dev/pipeline (from spec.pipelineRef.name)"
    ) in err, err
    assert (tmp_path / "run.yaml").read_text() == before


def test_a_pipeline_name_of_63_characters_is_a_label() -> None:
    name = "p" * 63
    data = _resource_list(PIPELINE.format(name=name, labels="") + "---\n" + RUN.format(name="r", pipeline=name))
    p = subprocess.run(CMD, input=data, capture_output=True, check=False)
    assert p.returncode == 0, p.stderr
    assert f"tekton.dev/pipeline: {name}".encode() in p.stdout


@pytest.mark.parametrize("value", ["has space", "-lead", "x" * 64, "trail."])
def test_a_pipeline_label_the_assistant_copies_is_checked(tmp_path: Path, value: str) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE.format(name="p", labels=f"  labels:\n    team: '{value}'\n"))
    (tmp_path / "run.yaml").write_text(RUN.format(name="r", pipeline="p"))
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert "run.yaml:8:5: [error] tekton.dev/v1/PipelineRun/ci/r spec.pipelineRef.name: " in err, err
    assert "carries it as label team (from label team of Pipeline p)" in err


def test_krm_mode_gives_the_label_error_as_a_result() -> None:
    name = "q" * 80
    data = _resource_list(PIPELINE.format(name=name, labels="") + "---\n" + RUN.format(name="r", pipeline=name))
    p = subprocess.run(CMD, input=data, capture_output=True, check=False)
    assert p.returncode == 1
    out = yaml.safe_load(p.stdout)
    errors = [r for r in out["results"] if r["severity"] == "error"]
    assert [(e["resourceRef"]["name"], e["field"]["path"]) for e in errors] == [("r", "spec.pipelineRef.name")]
    assert not any(i["kind"] == "StatefulSet" for i in out["items"])


def _resource_list(stream: str) -> bytes:
    items = [d for d in yaml.safe_load_all(stream) if d]
    return yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}).encode()
