"""Issue 31, deliverable 5: one exit code per kind of failure (a plugin config of the wrong
kind is an input error, 1, unless it is a manifest the function renders: a usage mistake,
2), every directory passed where files are read is reported, the summary speaks only of
placeholders that were written, and a `kind: List` wrapper holding runs is reported instead
of passed through unrendered with no word."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from files_util import PIPELINE  # type: ignore[import-not-found]
from files_util import cli  # type: ignore[import-not-found]
from files_util import run_doc  # type: ignore[import-not-found]
from shared import ROOT

CMD = [sys.executable, "-m", "krm_fn"]
STREAM = (ROOT / "examples" / "coschedule-pipelineruns" / "pipelinerun.yaml").read_text()


@pytest.mark.parametrize(
    "config",
    [
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: k\n",
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulPolicy\nmetadata:\n  name: typo\n",
        "kind: Coschedule-Policy\n",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
    ],
    ids=["kptfile", "typo", "bad-kind", "secret"],
)
def test_a_plugin_config_of_the_wrong_kind_is_an_input_error(tmp_path: Path, config: str) -> None:
    (tmp_path / "cfg.yaml").write_text(config)
    p = subprocess.run([*CMD, "cfg.yaml"], cwd=tmp_path, input=STREAM, capture_output=True, text=True, check=False)
    assert p.returncode == 1, p.stderr
    assert "unsupported functionConfig" in p.stderr and p.stdout == STREAM


@pytest.mark.parametrize("kind", ["PipelineRun", "Pipeline", "TaskRun", "BuildRun"])
def test_a_manifest_passed_as_the_plugin_config_is_a_usage_error(tmp_path: Path, kind: str) -> None:
    (tmp_path / "m.yaml").write_text(f"apiVersion: tekton.dev/v1\nkind: {kind}\nmetadata:\n  name: m\n")
    p = subprocess.run([*CMD, "m.yaml"], cwd=tmp_path, input=STREAM, capture_output=True, text=True, check=False)
    assert p.returncode == 2 and f"holds a {kind}, not a functionConfig" in p.stderr


# --------------------------------------------------------------------------- directories


@pytest.mark.parametrize("name", ["empty", "looks-like.yaml", "only-json"])
def test_a_directory_argument_without_yaml_files_is_reported(tmp_path: Path, name: str) -> None:
    (tmp_path / name).mkdir()
    if name == "only-json":
        (tmp_path / name / "a.json").write_text("{}")
        (tmp_path / name / "sub").mkdir()
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    code, _, err = cli(tmp_path, "--check", name, "pipeline.yaml")
    # nothing to render there is no success (issue 33): an error naming the directory, and the
    # other files still checked
    what = "holds no YAML file (*.yaml, *.yml)" if name == "only-json" else "is empty"
    assert f"{name}: [error] {what}; nothing to render there" in err, err
    assert "1 error(s)" in err and "1 unchanged" in err and code == 1


def test_a_kptfile_that_is_a_directory_is_reported(tmp_path: Path) -> None:
    (tmp_path / "Kptfile").mkdir()
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(run_doc("r"))
    code, _, err = cli(tmp_path, "--check", "pipeline.yaml", "run.yaml")
    assert code == 1  # the run would be rewritten
    assert "[warning] Kptfile: is a directory, not a Kptfile: it was not read" in err, err


# --------------------------------------------------------------------------- the summary


@pytest.mark.parametrize("runs", [1, 3])
def test_the_summary_speaks_of_no_placeholder_when_every_write_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs: int) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    names = []
    for i in range(runs):
        (tmp_path / f"run{i}.yaml").write_text(run_doc(f"r{i}"))
        names.append(f"run{i}.yaml")

    def replace(src: str, dst: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = cli(tmp_path, "pipeline.yaml", *names)
    assert code == 1
    assert f"0 file(s) rewritten, {runs} failed" in err
    assert "placeholders rendered" not in err, err


def test_the_summary_still_speaks_of_the_placeholders_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "a.yaml").write_text(run_doc("a"))
    (tmp_path / "b.yaml").write_text(run_doc("b"))
    real = os.replace

    def replace(src: str, dst: object) -> None:
        if str(dst).endswith("a.yaml"):
            raise OSError(errno.EROFS, "Read-only file system")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = cli(tmp_path, "pipeline.yaml", "a.yaml", "b.yaml")
    assert "1 file(s) rewritten, 1 failed" in err and "placeholders rendered" in err


# --------------------------------------------------------------------------- List wrappers

LIST = """\
apiVersion: v1
kind: {kind}
items:
{items}"""


def _entry(kind: str, name: str, api: str = "tekton.dev/v1") -> str:
    body = "\n".join("  " + line for line in run_doc(name).splitlines()[2:])
    return f"- apiVersion: {api}\n  kind: {kind}\n{body}\n"


@pytest.mark.parametrize(
    "kind, entries, named",
    [
        ("List", [("PipelineRun", "a")], "items[0] PipelineRun a"),
        ("List", [("ConfigMap", "c"), ("PipelineRun", "b")], "items[1] PipelineRun b"),
        ("PipelineRunList", [("PipelineRun", "x"), ("PipelineRun", "y")], "items[0] PipelineRun x, items[1] PipelineRun y"),
    ],
)
def test_a_list_wrapping_runs_is_reported(tmp_path: Path, kind: str, entries: list[tuple[str, str]], named: str) -> None:
    items = "".join(_entry(k, n, "v1" if k == "ConfigMap" else "tekton.dev/v1") for k, n in entries)
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "list.yaml").write_text(LIST.format(kind=kind, items=items))
    before = (tmp_path / "list.yaml").read_text()
    code, _, err = cli(tmp_path, "pipeline.yaml", "list.yaml")
    assert f"list.yaml:3:1: [warning] v1/{kind} items: this {kind} wraps {named}, which the function renders only" in err, err
    assert (tmp_path / "list.yaml").read_text() == before and code == 0
    # KRM mode: the same warning as a result
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [yaml.safe_load(PIPELINE), yaml.safe_load(before)]}
    p = subprocess.run(CMD, input=yaml.safe_dump(rl).encode(), capture_output=True, check=False)
    warnings = [r for r in yaml.safe_load(p.stdout)["results"] if r["severity"] == "warning"]
    assert [w["field"]["path"] for w in warnings] == ["items"] and named in warnings[0]["message"]


def test_a_list_without_runs_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(LIST.format(kind="List", items="- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: PipelineRun\n"))
    code, _, err = cli(tmp_path, "--check", "--files", "list.yaml")
    assert code == 0 and "[warning]" not in err


# --------------------------------------------------------------------------- odd line breaks

RUN_HEAD = "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: r\n  annotations:\n"
RUN_TAIL = (
    "spec:\n  pipelineRef:\n    name: p\n  workspaces:\n  - name: src\n    volumeClaimTemplate:\n      spec:\n"
    "        accessModes: [ReadWriteOnce]\n        resources:\n          requests:\n            storage: 1Gi\n"
)


@pytest.mark.parametrize(
    "values, newline",
    [
        (["v\r\x85"], "\r"),
        (["v\r\u2028"], "\r"),
        (["v\r\x85\r\u2029"], "\r"),
        (["v\r \x85"], "\r"),
        (["v", "w\r\x85", "x"], "\r"),
        (["v\r\x85"], "\r\n"),
    ],
)
def test_a_break_alone_on_its_line_in_an_untouched_entry_is_kept_byte_exact(tmp_path: Path, values: list[str], newline: str) -> None:
    """A NEL or a U+2028/U+2029 alone on its line (after a file's lone-CR line end) is a
    blank line to every reader; entry_of/unentry wrote it as an empty line (the NEL lost,
    `v<CR><NEL><CR>` became `v<CR><CR><CR>`) and a stand-in made it a line of content."""
    annotations = "".join(f"    k{i}: {v}\n" for i, v in enumerate(values)).replace("\n", newline)
    text = (RUN_HEAD.replace("\n", newline) + annotations + RUN_TAIL.replace("\n", newline))
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_bytes(text.encode())
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    out = (tmp_path / "run.yaml").read_bytes().decode()
    assert code == 1 and "StatefulSet" in out, err
    assert annotations in out, repr(out[:200])
    assert list(yaml.load_all(out, Loader=yaml.CSafeLoader))[0]["metadata"]["annotations"] == yaml.safe_load(text)["metadata"]["annotations"]
    assert cli(tmp_path, "pipeline.yaml", "run.yaml")[0] == 0
    assert (tmp_path / "run.yaml").read_bytes().decode() == out
