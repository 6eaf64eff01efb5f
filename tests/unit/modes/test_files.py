"""Files mode (pre-commit): in-place rewrites, --check, --diff, per-file all or nothing."""
from __future__ import annotations

import os
from pathlib import Path

import fake_transform
import pytest
from files_util import PIPELINE_BUILD  # type: ignore[import-not-found]

from krm_fn.cli import main
from krm_fn.io import streams
from krm_fn.modes import files
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: workspaces\n"
PIPELINE = PIPELINE_BUILD
RUN = """\
# leading comment of the file
---
apiVersion: tekton.dev/v1   # a comment that must stay
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
---
# the ConfigMap keeps its exact bytes
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ci}
data:
  on: "yes"
"""
NOT_KRM = "name: ci\non:\n  push: {}\njobs: {}\n"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.orchestration import process

    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), fake_transform.handle_pipelinerun)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(RUN)
    (tmp_path / "workflow.yaml").write_text(NOT_KRM)
    return tmp_path


def _cli(*args: str) -> int:
    return main(["--config", "policy.yaml", *args])


def _docs(path: Path) -> list[dict]:
    return [to_plain(loader.rt_load(d.body)) for d in streams.split(path.read_text()).docs]


def test_rewrites_in_place_then_nothing_to_do(fake: None, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("pipeline.yaml", "run.yaml", "workflow.yaml", "policy.yaml") == 1
    assert "rewrote run.yaml" in capsys.readouterr().err
    text = (repo / "run.yaml").read_text()
    # the untouched document and the file's head keep their bytes
    assert text.startswith("# leading comment of the file\n---\napiVersion: tekton.dev/v1   # a comment that must stay\n")
    assert RUN.split("---\n")[2] in text
    docs = _docs(repo / "run.yaml")
    assert [d["kind"] for d in docs] == ["PipelineRun", "ConfigMap", "StatefulSet"]
    assert docs[0]["spec"]["workspaces"][0]["persistentVolumeClaim"]["claimName"].endswith("-0")
    # location annotations are internal: never written
    assert "config.kubernetes.io" not in text
    assert (repo / "pipeline.yaml").read_text() == PIPELINE
    assert (repo / "workflow.yaml").read_text() == NOT_KRM
    # second run: updated in place, not duplicated; exit 0
    assert _cli("pipeline.yaml", "run.yaml", "workflow.yaml") == 0
    assert (repo / "run.yaml").read_text() == text


def test_pipeline_in_another_file_of_the_package_is_context(fake: None, repo: Path) -> None:
    """Only the run is named (pre-commit passes only the staged file): the Pipeline in the
    package's other file is read as context, and only the run's file is written."""
    pipeline = (repo / "pipeline.yaml").read_text()
    assert _cli("run.yaml") == 1
    assert "kind: StatefulSet" in (repo / "run.yaml").read_text()
    assert (repo / "pipeline.yaml").read_text() == pipeline


def test_pipeline_in_another_package_is_not_context(fake: None, repo: Path) -> None:
    # the fake transform, like workspaces mode, needs the referenced Pipeline
    (repo / "other").mkdir()
    (repo / "run.yaml").rename(repo / "other" / "run.yaml")
    assert _cli("other/run.yaml") == 1
    assert (repo / "other" / "run.yaml").read_text() == RUN


def test_check_and_diff_change_nothing(fake: None, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("--check", "pipeline.yaml", "run.yaml") == 1
    assert (repo / "run.yaml").read_text() == RUN
    assert "would rewrite run.yaml" in capsys.readouterr().err
    assert _cli("--diff", "pipeline.yaml", "run.yaml") == 1
    out = capsys.readouterr().out
    assert out.startswith("--- a/run.yaml\n+++ b/run.yaml\n")
    assert "-    volumeClaimTemplate:\n" in out and "+kind: StatefulSet\n" in out
    assert (repo / "run.yaml").read_text() == RUN
    assert _cli("pipeline.yaml", "run.yaml") == 1
    assert _cli("--check", "pipeline.yaml", "run.yaml") == 0
    assert _cli("--diff", "pipeline.yaml", "run.yaml") == 0
    assert capsys.readouterr().out == ""


def test_crlf_stays_crlf(fake: None, repo: Path) -> None:
    raw = RUN.replace("\n", "\r\n").encode()
    (repo / "run.yaml").write_bytes(raw)
    assert _cli("pipeline.yaml", "run.yaml") == 1
    out = (repo / "run.yaml").read_bytes()
    assert b"\n" not in out.replace(b"\r\n", b"")
    assert RUN.split("---\n")[2].replace("\n", "\r\n").encode() in out
    assert _cli("pipeline.yaml", "run.yaml") == 0
    assert (repo / "run.yaml").read_bytes() == out


def test_mode_kept_and_no_temp_files(fake: None, repo: Path) -> None:
    os.chmod(repo / "run.yaml", 0o640)
    assert _cli("pipeline.yaml", "run.yaml") == 1
    assert (repo / "run.yaml").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in repo.iterdir()) == ["pipeline.yaml", "policy.yaml", "run.yaml", "workflow.yaml"]


def test_each_file_is_all_or_nothing(fake: None, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = RUN.replace("  name: build-1\n", f"  name: build-2\n  annotations:\n    {fake_transform.ERROR_ANNOTATION}: x\n")
    (repo / "bad.yaml").write_text(bad)
    (repo / "broken.yaml").write_text("apiVersion: v1\nkind: [\n")
    assert _cli("pipeline.yaml", "bad.yaml", "broken.yaml", "run.yaml") == 1
    err = capsys.readouterr().err
    assert "fake error requested by the test" in err and "bad.yaml" in err
    assert "broken.yaml" in err
    assert (repo / "bad.yaml").read_text() == bad
    assert (repo / "broken.yaml").read_text() == "apiVersion: v1\nkind: [\n"
    assert "StatefulSet" in (repo / "run.yaml").read_text()


def test_config_error_changes_nothing(fake: None, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "policy.yaml").write_text(POLICY.replace("workspaces", "sometimes"))
    assert _cli("pipeline.yaml", "run.yaml") == 1
    assert (repo / "run.yaml").read_text() == RUN
    err = capsys.readouterr().err
    assert "policy.yaml" in err and "sometimes" in err


def test_nothing_written_outside_the_given_files(fake: None, repo: Path) -> None:
    sneaky = RUN.replace(
        "  namespace: ci\nspec:\n  pipelineRef",
        "  namespace: ci\n  annotations:\n    internal.config.kubernetes.io/path: ../evil.yaml\n"
        "    config.kubernetes.io/path: other.yaml\nspec:\n  pipelineRef",
    )
    (repo / "run.yaml").write_text(sneaky)
    assert _cli("pipeline.yaml", "run.yaml") == 1
    assert not (repo.parent / "evil.yaml").exists() and not (repo / "other.yaml").exists()
    docs = _docs(repo / "run.yaml")
    assert docs[-1]["kind"] == "StatefulSet"
    assert "annotations" in docs[0]["metadata"]  # the run's own annotations are its own business
    assert list(docs[-1]["metadata"]["annotations"]) == ["krm-coschedule.dev/owner"]


def test_bom_and_missing_final_newline(fake: None, repo: Path) -> None:
    (repo / "run.yaml").write_text("\ufeff" + RUN.rstrip("\n"))
    assert _cli("pipeline.yaml", "run.yaml") == 1
    text = (repo / "run.yaml").read_text()
    assert text.startswith("\ufeff# leading comment")
    assert 'on: "yes"\n---\napiVersion: apps/v1\n' in text
    assert _cli("pipeline.yaml", "run.yaml") == 0


def test_symlink_is_not_replaced(fake: None, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "link.yaml").symlink_to(repo / "run.yaml")
    assert _cli("pipeline.yaml", "link.yaml") == 1
    assert (repo / "link.yaml").is_symlink()
    assert (repo / "run.yaml").read_text() == RUN
    assert "symlink" in capsys.readouterr().err


def test_same_file_twice_and_no_files(fake: None, repo: Path) -> None:
    assert _cli("pipeline.yaml", "run.yaml", "./run.yaml") == 1
    assert [d["kind"] for d in _docs(repo / "run.yaml")].count("StatefulSet") == 1
    assert _cli() == 0


def test_unreadable_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "bin.yaml").write_bytes(b"\x00\x01")
    (repo / "latin1.yaml").write_bytes(b"a: \xe9\n")
    assert _cli("bin.yaml", "latin1.yaml", "missing.yaml", "pipeline.yaml") == 1
    err = capsys.readouterr().err
    assert "bin.yaml" in err and "NUL" in err
    assert "latin1.yaml" in err and "UTF-8" in err
    assert "missing.yaml" in err


# a run the default policy leaves alone: no PVC-backed workspace, so workspaces mode has
# nothing to coschedule and needs no Pipeline
RUN_NOOP = RUN.replace("volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n", "emptyDir: {}\n")
assert RUN_NOOP != RUN
# inputs files mode must leave alone, byte for byte
UNCHANGED = [RUN_NOOP, PIPELINE, NOT_KRM, "", "# only\n", "---\n---\n", RUN_NOOP.replace("\n", "\r\n"), "- a\n- b\n"]


@pytest.mark.parametrize("text", UNCHANGED)
def test_unchanged_inputs(repo: Path, text: str) -> None:
    # a package of its own: a Pipeline named in the repo's package re-renders its runs
    (repo / "alone").mkdir()
    (repo / "alone" / "x.yaml").write_text(text, newline="")
    assert _cli("alone/x.yaml") == 0
    assert (repo / "alone" / "x.yaml").read_bytes() == text.encode()


def test_run_reports_plans_from_process(fake: None, repo: Path) -> None:
    out = files.run(["pipeline.yaml", "run.yaml"], None)
    assert not out.has_error
    assert [p.run.name for p in out.plans] == ["build-1"]
    assert [f.name for f in out.changed] == ["run.yaml"]
    assert (repo / "run.yaml").read_text() == RUN  # run() never writes


def test_generated_object_removed_with_its_separator(fake: None, repo: Path) -> None:
    assert _cli("pipeline.yaml", "run.yaml") == 1
    (repo / "policy.yaml").write_text(POLICY.replace("workspaces", "disabled"))
    assert _cli("pipeline.yaml", "run.yaml") == 1
    text = (repo / "run.yaml").read_text()
    assert "StatefulSet" not in text
    assert text.endswith('data:\n  on: "yes"\n')
    assert _cli("pipeline.yaml", "run.yaml") == 0


@pytest.mark.parametrize("typo", ["  coschedul: pipelineruns\n", "  coschedule: sometimes\n"])
def test_a_package_policy_in_error_fails_every_file_named(repo: Path, capsys: pytest.CaptureFixture[str], typo: str) -> None:
    # the package's own policy (not --config) with a typo: the run was said "unchanged" and
    # counted so (json: status unchanged), though it was not rendered at all
    import json

    (repo / "policy.yaml").write_text(POLICY.replace("  coschedule: workspaces\n", typo))
    assert main(["--format", "json", "run.yaml"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["status"]) for f in report["files"]] == [("run.yaml", "failed")]
    assert report["summary"]["files_failed"] == 1 and report["summary"]["files_unchanged"] == 0
    assert [r["file"]["path"] for r in report["results"] if r["severity"] == "error"] == ["policy.yaml"]
    assert (repo / "run.yaml").read_text() == RUN
