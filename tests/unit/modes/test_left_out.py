"""A context file left out of the render (not YAML, or an object in it that cannot be read)
that holds an object a lookup missed is named, with where it breaks: the lookup's error alone
("Pipeline p is not in the input") sent the user looking for an object that is there."""
from __future__ import annotations

from pathlib import Path

import pytest
from files_util import PIPELINE
from files_util import cli
from files_util import run_doc

from krm_fn.core.results import Result
from krm_fn.modes import left_out

KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
HELM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n{{- toYaml .Values.data | nindent 2 }}\n"


def _package(tmp_path: Path, pipeline: str, **extra: str) -> Path:
    tree = {"Kptfile": KPTFILE, "pipeline.yaml": pipeline, "runs/r1.yaml": run_doc("r1"), "runs/r2.yaml": run_doc("r2"), **extra}
    for name, text in tree.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    code, _out, err = cli(tmp_path, "--no-cache", "runs")  # rendered with the Pipeline readable
    assert code == 1 and "left out" not in err, err
    return tmp_path


# the Pipeline's file broken four ways: not YAML at its head, not YAML further down, and
# YAML whose object cannot be read (a duplicate key: the file leaves the context in a pass)
BROKEN = {
    "unclosed-at-kind": (PIPELINE.replace("kind: Pipeline\n", "kind: Pipeline\n  bad: [unclosed\n"), "pipeline.yaml:3:6: [warning]"),
    "unclosed-in-spec": (PIPELINE.replace("spec:\n", "spec:\n  x: [unclosed\n", 1), "pipeline.yaml:"),
    "duplicate-key": (PIPELINE.replace("metadata:\n", "metadata:\n  labels: {}\n  labels: {}\n", 1), "pipeline.yaml:"),
    # the syntax check (libyaml's parser) passes an alias to no anchor; the loader refuses it
    "undefined-alias": (PIPELINE.replace("spec:\n", "spec:\n  x: *nowhere\n", 1), "pipeline.yaml:6:6: [warning] document 1"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_holding_the_missed_pipeline_is_named(tmp_path: Path, case: str) -> None:
    pkg = _package(tmp_path, PIPELINE)
    broken, where = BROKEN[case]
    (pkg / "pipeline.yaml").write_text(broken)
    code, _out, err = cli(pkg, "--no-cache", "--check", "runs/r1.yaml")
    assert code == 1
    assert "Pipeline p (namespace <none>) is not in the input" in err, err
    warning = next(line for line in err.splitlines() if "left out" in line)
    assert warning.startswith(where), warning
    assert "it seems to hold Pipeline p (namespace <none>), which the render looked up and did not find" in warning
    assert left_out.LEFT_UNCHANGED not in warning  # a context file is never going to be written


def test_a_template_that_holds_no_missed_object_is_not_named(tmp_path: Path) -> None:
    """A Helm template is not YAML and is no context, as before: a missed lookup of an object
    it does not name says nothing of it."""
    pkg = _package(tmp_path, PIPELINE, **{"templates/cm.yaml": HELM})
    (pkg / "pipeline.yaml").unlink()
    code, _out, err = cli(pkg, "--no-cache", "--check", "runs/r1.yaml")
    assert code == 1 and "is not in the input" in err, err
    assert "left out" not in err and "cm.yaml" not in err, err


def test_nothing_is_said_when_no_lookup_missed(tmp_path: Path) -> None:
    """A broken file naming a Pipeline that another, readable file holds: the lookup found it."""
    pkg = _package(tmp_path, PIPELINE, **{"old/pipeline.yaml": PIPELINE.replace("spec:\n", "spec:\n  x: [unclosed\n", 1)})
    code, _out, err = cli(pkg, "--no-cache", "--check", "runs/r1.yaml")
    assert code == 0, err
    assert "left out" not in err, err


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("kind: Pipeline\nmetadata:\n  name: p\n", True),
        ("kind: 'Pipeline'\nmetadata:\n  name: \"p\"  # the build\n", True),
        ("- kind: Pipeline\n  metadata:\n    name: p\n", True),
        ("kind: Pipeline\nmetadata:\n  name: p2\n", False),  # another name that starts alike
        ("kind: PipelineRun\nmetadata:\n  name: p\n", False),
        ("kind: Pipeline\nmetadata:\n  name: 'p\"\n", False),  # quotes that do not pair
        ("kind: Pipeline  # name: p\n", False),
    ],
)
def test_what_a_file_seems_to_hold(text: str, held: bool) -> None:
    why = Result("error", f"x.yaml:1:1: not valid YAML{left_out.LEFT_UNCHANGED}", file_path="x.yaml")
    got = left_out.warnings({("Pipeline", "", "p")}, [(why, text)])
    assert bool(got) is held
    if held:
        assert got[0].severity == "warning" and got[0].file_path == "x.yaml"
        assert got[0].message.startswith("x.yaml:1:1: not valid YAML; this file was left out")


def test_a_run_whose_alias_has_no_anchor_fails_alone_and_located(tmp_path: Path) -> None:
    """It stopped the whole package with "the object is not valid YAML: found undefined alias"
    and no file: the check passes it, the loader refuses it when the pass reads the run."""
    pkg = _package(tmp_path, PIPELINE)
    text = (pkg / "runs/r1.yaml").read_text()
    (pkg / "runs/r1.yaml").write_text(text.replace("spec:\n", "spec:\n  x: *nowhere\n", 1))
    for named in ("runs/r1.yaml", "."):
        code, _out, err = cli(pkg, "--no-cache", "--check", named)
        assert code == 1
        assert err.startswith("runs/r1.yaml:6:6: [error] document 1 is not valid YAML: found undefined alias 'nowhere'; the file is left unchanged\n"), err
        assert "1 failed" in err and ("1 failed, 0 unchanged" in err) is (named != "."), err
