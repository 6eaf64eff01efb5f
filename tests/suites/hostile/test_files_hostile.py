"""Files mode on hostile and unusual files: every file it writes must read back as the
intended documents, generated objects go into their own run's file whatever the spelling of
the path, and one file's error never fails another file (issue: files it writes into users'
repositories are never damaged)."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from files_util import PIPELINE  # type: ignore[import-not-found]
from files_util import cli  # type: ignore[import-not-found]
from files_util import kinds  # type: ignore[import-not-found]
from files_util import run_doc  # type: ignore[import-not-found]


def test_generated_objects_go_into_their_runs_file_however_the_path_is_spelled(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "pipeline.yaml").write_text(PIPELINE)
    (pkg / "a.yaml").write_text(run_doc("a"))
    (tmp_path / "ci.yml").write_text("on: push\njobs: {}\n")  # named last, holds no object
    code, _, err = cli(pkg, str(pkg / "a.yaml"), "../pkg/pipeline.yaml", "../ci.yml")
    assert code == 1, err  # files changed
    assert kinds(pkg / "a.yaml") == ["PipelineRun", "StatefulSet"]
    assert (tmp_path / "ci.yml").read_text() == "on: push\njobs: {}\n"
    assert "absolute" not in err and "outside the package" not in err
    # and the second run is at rest
    code, _, err = cli(pkg, str(pkg / "a.yaml"), "../pkg/pipeline.yaml", "../ci.yml")
    assert code == 0, err


@pytest.mark.parametrize(
    "head, tail",
    [
        ("--- !!map\n", ""),
        ("--- &run\n", ""),
        ("%YAML 1.2\n---\n", "...\n"),
        ("# leading comment\n---\n", "---\n"),
        ("", "...\n# the end\n"),
    ],
    ids=["tag-on-marker", "anchor-on-marker", "directive-and-end-marker", "trailing-marker", "end-marker-comment"],
)
def test_markers_and_directives_read_back(tmp_path: Path, head: str, tail: str) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(head + run_doc("r") + tail)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1, err
    assert kinds(tmp_path / "run.yaml") == ["PipelineRun", "StatefulSet"]
    code, _, err = cli(tmp_path, "--check", "pipeline.yaml", "run.yaml")
    assert code == 0, err


def test_flow_document_on_the_marker_line(tmp_path: Path) -> None:
    doc = yaml.safe_load(run_doc("flow"))
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text("--- " + json.dumps(doc) + "\n")
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1, err
    assert kinds(tmp_path / "run.yaml") == ["PipelineRun", "StatefulSet"]


def test_json_file_is_refused_not_turned_into_yaml(tmp_path: Path) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    text = json.dumps(yaml.safe_load(run_doc("js")), indent=2) + "\n"
    (tmp_path / "run.json").write_text(text)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.json")
    assert code == 1
    assert "run.json: [error] is JSON" in err and "convert it to YAML" in err
    assert (tmp_path / "run.json").read_text() == text


def test_one_files_error_does_not_fail_another_file(tmp_path: Path) -> None:
    """A valid run renders as it does alone when another file fails (before: the second pass
    saw the run as edited by the first and called its claim orphaned)."""
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "a.yaml").write_text(run_doc("a"))
    (tmp_path / "b.yaml").write_text(run_doc("b").replace("  name: b\n", "  name: b_not_a_name\n"))
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "pipeline.yaml").write_text(PIPELINE)
    (alone / "a.yaml").write_text(run_doc("a"))
    cli(alone, "pipeline.yaml", "a.yaml")
    code, _, err = cli(tmp_path, "pipeline.yaml", "a.yaml", "b.yaml")
    assert code == 1
    assert "b.yaml" in err and "b_not_a_name" in err
    assert "a.yaml: [error]" not in err
    assert (tmp_path / "a.yaml").read_text() == (alone / "a.yaml").read_text()
    assert "1 file(s) rewritten, 1 failed, 1 unchanged" in err


def test_an_object_without_identity_fails_only_its_file(tmp_path: Path) -> None:
    """An item error that has no object to name (empty metadata, not a mapping) still names
    its file, so only that file fails."""
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "a.yaml").write_text(run_doc("a"))
    (tmp_path / "m.yaml").write_text("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\nspec: {}\n")
    code, _, err = cli(tmp_path, "pipeline.yaml", "a.yaml", "m.yaml")
    assert code == 1
    # named by its document in its file, at the field (issue 33): `items[N]` was its place in
    # the package's combined list, which changed with the files named
    assert "m.yaml:3:1: [error] metadata: document 1 (PipelineRun): metadata is a null" in err, err
    assert kinds(tmp_path / "a.yaml") == ["PipelineRun", "StatefulSet"]
    assert (tmp_path / "m.yaml").read_text().startswith("apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n")
    assert "1 file(s) rewritten, 1 failed, 1 unchanged" in err


def test_a_missing_document_marker_is_an_error_not_a_skipped_run(tmp_path: Path) -> None:
    """A ConfigMap glued onto a PipelineRun (no `---`): kpt keeps the first kind, others the
    last; the object is refused, naming the keys it has twice."""
    glued = run_doc("r") + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(glued)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert "run.yaml:1:1: [error]" in err and "duplicate key 'apiVersion' at apiVersion (lines 1 and 16)" in err
    assert "a missing `---` between two documents?" in err
    assert (tmp_path / "run.yaml").read_text() == glued


def test_a_file_with_cr_line_ends_is_rendered_and_keeps_them(tmp_path: Path) -> None:
    """Lines ended by a lone CR (classic Mac OS) are lines to a YAML reader: the file is
    rendered as its LF twin is and written back with CR line ends. Before, its first comment
    line hid the whole file (the run was passed over, exit 0), and a file without one was
    rewritten with LF line ends throughout."""
    text = "# the nightly build\n" + run_doc("r")
    for name, ends in (("lf", "\n"), ("cr", "\r")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pipeline.yaml").write_text(PIPELINE)
        (tmp_path / name / "run.yaml").write_bytes(text.replace("\n", ends).encode())
        code, _, err = cli(tmp_path / name, "pipeline.yaml", "run.yaml")
        assert code == 1, err
        assert kinds(tmp_path / name / "run.yaml") == ["PipelineRun", "StatefulSet"]
    out = (tmp_path / "cr" / "run.yaml").read_bytes()
    assert out == (tmp_path / "lf" / "run.yaml").read_bytes().replace(b"\n", b"\r")
    code, _, err = cli(tmp_path / "cr", "--check", "pipeline.yaml", "run.yaml")
    assert code == 0, err


_CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"


def test_a_document_behind_a_lone_cr_in_a_comment_line_is_read(tmp_path: Path) -> None:
    """A document whose lines end in lone CRs, in a file of LF lines, starting with a comment:
    the comment's line holds the whole document for a splitter that breaks lines at LF only
    (before: passed over as comments, its run left unrendered). It is read and rendered, and
    the documents around it keep their bytes. (The run is written whole, with the file's
    CRLF line ends: its last CR and the LF after it make one.)"""
    run = ("# the nightly build\n" + run_doc("r")).replace("\n", "\r")
    text = _CONFIGMAP + "---\n" + run + "\n---\n" + _CONFIGMAP.replace(": c", ": d")
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_bytes(text.encode())
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1, err
    out = (tmp_path / "run.yaml").read_bytes().decode()
    assert yaml.safe_load(out.split("---\n")[1])["spec"]["workspaces"][0]["persistentVolumeClaim"]
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["ConfigMap", "PipelineRun", "ConfigMap", "StatefulSet"]
    assert out.startswith(_CONFIGMAP + "---\n") and ("\n---\n" + _CONFIGMAP.replace(": c", ": d") + "---") in out


@pytest.mark.parametrize("brk", ["\x85", "\u2028", "\u2029"], ids=["NEL", "LS", "PS"])
def test_a_document_behind_a_unicode_line_break_is_an_error_that_names_it(tmp_path: Path, brk: str) -> None:
    """NEL and the line and paragraph separators break lines for libyaml (YAML 1.1), not for
    the round-trip reader (YAML 1.2): a document behind one in a comment line is no longer
    passed over as comments, and as the readers disagree the file fails, naming the
    character and what to write instead; it is left unchanged."""
    text = _CONFIGMAP + "---\n" + ("# the nightly build\n" + run_doc("r")).replace("\n", brk) + "\n"
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(text)
    assert [d["kind"] for d in yaml.load_all(text, Loader=yaml.CSafeLoader)] == ["ConfigMap", "PipelineRun"]
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert "run.yaml:1:51: [error] document 2 is not valid YAML" in err and f"(U+{ord(brk):04X}), a line break to YAML 1.1 readers" in err
    assert "write a newline there" in err
    assert (tmp_path / "run.yaml").read_text() == text


def test_diff_headers_quote_odd_file_names(tmp_path: Path) -> None:
    name = "run\n+++ evil.yaml"
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / name).write_text(run_doc("r"))
    code, out, _ = cli(tmp_path, "--diff", "pipeline.yaml", name)
    assert code == 1
    headers = [x for x in out.splitlines() if x.startswith(("---", "+++"))]
    assert headers == ['--- "a/run\\n+++ evil.yaml"', '+++ "b/run\\n+++ evil.yaml"']


def test_control_characters_in_a_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \x1b[2J\n")
    code, _, err = cli(tmp_path, "--check", "cm.yaml")
    assert code == 1
    assert "cm.yaml:6:6: [error] contains the control character U+001B;" in err
    assert "\x1b" not in err


def test_a_hard_linked_file_is_replaced_whole_and_keeps_its_owner(tmp_path: Path) -> None:
    """Issue 31: a file with several hard links is replaced by a rename like every other
    (written in place, a full disk or a SIGKILL left it torn); its other name keeps the old
    text, and a warning says so (tests/unit/io/test_writer.py has the rest)."""
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    run = tmp_path / "run.yaml"
    run.write_text(run_doc("r"))
    os.link(run, tmp_path / "link.yaml")
    if os.geteuid() == 0:
        os.chown(run, 4321, 4321)
    before = run.stat()
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1, err
    after = run.stat()
    assert after.st_ino != before.st_ino and after.st_nlink == 1
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert kinds(run) == ["PipelineRun", "StatefulSet"]
    assert (tmp_path / "link.yaml").read_text() == run_doc("r")
    assert "run.yaml: [warning] had 2 hard links" in err


def test_owner_is_kept_when_the_file_is_replaced(tmp_path: Path) -> None:
    """Root rewriting another user's file keeps it theirs (CI runs as root)."""
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    run = tmp_path / "run.yaml"
    run.write_text(run_doc("r"))
    if os.geteuid() == 0:
        os.chown(run, 4321, 4322)
    owner = (run.stat().st_uid, run.stat().st_gid)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1, err
    assert (run.stat().st_uid, run.stat().st_gid) == owner
    assert kinds(run) == ["PipelineRun", "StatefulSet"]


# --------------------------------------------------------------------------- the deferred syntax check

_BROKEN_CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  a: "never closed\n  b: [1, 2\n'


@pytest.mark.parametrize(
    "files, broken",
    [
        # a run's file with an object no transform reads that is not YAML
        ({"run.yaml": run_doc("r") + "---\n" + _BROKEN_CONFIGMAP, "pipeline.yaml": PIPELINE}, "run.yaml"),
        # the broken object alone in a file the runs do not need
        ({"run.yaml": run_doc("r"), "pipeline.yaml": PIPELINE, "cm.yaml": _BROKEN_CONFIGMAP}, "cm.yaml"),
        # the Pipeline's file holds it: the runs read the Pipeline, not its neighbour
        ({"run.yaml": run_doc("r"), "pipeline.yaml": PIPELINE + "---\n" + _BROKEN_CONFIGMAP}, "pipeline.yaml"),
        # a document that is no object (a plain list), a flow document on its marker line
        ({"run.yaml": run_doc("r") + "---\n- a\n- [b\n", "pipeline.yaml": PIPELINE}, "run.yaml"),
        ({"run.yaml": run_doc("r") + "--- {a: [1}\n", "pipeline.yaml": PIPELINE}, "run.yaml"),
        # a broken policy document beside the runs
        (
            {
                "run.yaml": run_doc("r"),
                "pipeline.yaml": PIPELINE,
                "policy.yaml": "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec: {coschedule: [\n",
            },
            "policy.yaml",
        ),
        # all well: a directive and end markers, comments between the documents
        ({"run.yaml": "%YAML 1.2\n---\n" + run_doc("r") + "...\n", "pipeline.yaml": PIPELINE}, None),
        ({"run.yaml": run_doc("r") + "---\n# a comment\n...\n", "pipeline.yaml": PIPELINE + "--- # next\n" + run_doc("s")}, None),
    ],
    ids=["run-file", "own-file", "pipeline-file", "not-an-object", "flow-marker", "policy", "directive", "clean"],
)
def test_the_deferred_syntax_check_decides_as_the_eager_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], broken: str | None
) -> None:
    """Files mode reads the files without the syntax check of each document, and checks
    after the first pass only the documents nothing read (streams.check_deferred); when
    that or the pass finds anything wrong, the package is rendered again with every file
    checked as it is read. Either way the outcome is the eager reading's: the same files
    written with the same text, the same exit code and the same messages, on the first
    render and on the re-render of what it wrote."""
    outcomes = _deferred_and_eager(tmp_path, monkeypatch, files)
    code, _out, err, after = outcomes[True][0]
    if broken is None:
        assert code == 1 and after["run.yaml"] != files["run.yaml"], err  # rendered
    else:
        assert re.search(rf"^{re.escape(broken)}:\d+:\d+: \[error\] document", err, re.M) and "is not valid YAML" in err and after[broken] == files[broken], err


def _deferred_and_eager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], *args: str) -> dict[bool, list[Any]]:
    """The package rendered twice (the first render, then the re-render of what it wrote),
    read with the deferred syntax check and with the eager one: asserts the two outcomes
    (exit codes, output, messages, every file's text) are the same, and returns them."""
    from krm_fn.modes import files as files_mod

    real = files_mod._run_package
    outcomes = {}
    for defer in (True, False):
        d = tmp_path / ("deferred" if defer else "eager")
        d.mkdir()
        for name, text in files.items():
            (d / name).write_text(text)
        seen = []
        for _ in range(2):
            with monkeypatch.context() as m:
                m.setattr(files_mod, "_run_package", lambda pkg, o, light, defer=True, on=defer, tick=None, pre=None: real(pkg, o, light, defer and on, tick, pre))
                code, out, err = cli(d, *args, ".")
            seen.append((code, out, err.replace(str(d), "<dir>"), {p.name: p.read_text() for p in sorted(d.iterdir())}))
        outcomes[defer] = seen
    assert outcomes[True] == outcomes[False]
    return outcomes


_NO_PIPELINE = run_doc("lost").replace("name: p\n", "name: gone\n", 1)


@pytest.mark.parametrize(
    "files, failed",
    [
        # a run whose Pipeline is missing, beside a run that renders
        ({"run.yaml": run_doc("r"), "lost.yaml": _NO_PIPELINE, "pipeline.yaml": PIPELINE}, ["lost.yaml"]),
        # the same in one file: the file fails whole, its other run is context
        ({"run.yaml": run_doc("r") + "---\n" + _NO_PIPELINE, "pipeline.yaml": PIPELINE}, ["run.yaml"]),
        # and beside a file that is not YAML: that one decides (the eager reading again)
        ({"run.yaml": run_doc("r"), "lost.yaml": _NO_PIPELINE, "pipeline.yaml": PIPELINE, "cm.yaml": _BROKEN_CONFIGMAP}, ["cm.yaml", "lost.yaml"]),
    ],
    ids=["own-file", "shared-file", "and-a-broken-file"],
)
def test_an_error_in_valid_yaml_is_decided_without_reading_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], failed: list[str]
) -> None:
    """An error the pass reports (not a file that is not YAML) needs no eager reading when
    every file passes the deferred check: the eager reading would make the same items. The
    outcome is the eager reading's all the same, and the files are read once (they were read
    and rendered again, a second and a third time with the file that failed as context)."""
    from krm_fn.modes import files as files_mod

    outcomes = _deferred_and_eager(tmp_path, monkeypatch, files)
    code, _out, err, after = outcomes[True][0]
    assert code == 1 and "is not in the input" in err, err
    for name in failed:
        assert after[name] == files[name] and f"{name}:" in err, err
    if "run.yaml" not in failed:
        assert after["run.yaml"] != files["run.yaml"]  # the other run is rendered
    d = tmp_path / "again"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text)
    from krm_fn.io import streams
    from krm_fn.yaml import libyaml

    reads, checked = [], []
    real, real_check = files_mod.read_files, libyaml.reads
    monkeypatch.setattr(
        files_mod, "read_files",
        lambda names, defer=False, tick=None, pre=None, real=None, read=real: reads.append(defer) or read(names, defer, tick, pre, real),
    )
    monkeypatch.setattr(streams, "_LIGHT_CHECK_BUDGET", [0])  # every file's check by libyaml, counted
    monkeypatch.setattr(libyaml, "reads", lambda text: checked.append(text) or real_check(text))
    cli(d, ".")
    assert reads == ([True, True, False, False] if "cm.yaml" in failed else [True, True])  # the given files, the context
    if "cm.yaml" not in failed:
        # every document was read by the first pass, so no input file needs the syntax check:
        # not in check_deferred, nor when the items are made again for the pass after a
        # failure (what is written is read back, as always)
        assert [t for t in checked if t in files.values()] == []


# --------------------------------------------------------------------------- as people write them

_HEADER = "\n# Copyright 2026 ACME Corp. \n# SPDX-License-Identifier: Apache-2.0\n\n# the nightly build\n"


def _written_as_people_write(name: str) -> str:
    """A run with a license header (a blank line inside the head comment) and text in
    other scripts than ASCII, plain and quoted."""
    return _HEADER + run_doc(name).replace(
        "metadata:\n", "metadata:\n  annotations:\n    description: 'nächtlicher Build — 夜間'\n    owner: Zoë\n", 1
    )


def _render_on_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, str]:
    """The run file `text` (with PIPELINE) rendered on the light path ("1": nothing read with
    the round-trip loader) and on the round-trip path ("0"), each then re-rendered with
    --check, which must change nothing: the rendered run files, by path."""
    from krm_fn.yaml.roundtrip import loader

    outs = {}
    for light in ("1", "0"):
        d = tmp_path / light
        d.mkdir()
        (d / "pipeline.yaml").write_text(PIPELINE)
        (d / "run.yaml").write_text(text)
        loads: list[int] = []
        real = loader.rt_load
        with monkeypatch.context() as m:
            m.setenv("KRM_COSCHEDULE_LIGHT", light)
            m.setattr(loader, "rt_load", lambda *a, r=real, seen=loads, **k: seen.append(1) or r(*a, **k))
            code, _, err = cli(d, "pipeline.yaml", "run.yaml")
            assert code == 1, err
            outs[light] = (d / "run.yaml").read_text()
            assert light == "0" or not loads  # read and written by the light path
            code, _, err = cli(d, "--check", "pipeline.yaml", "run.yaml")
            assert code == 0, err
    return outs


def test_a_run_as_people_write_it_is_read_and_written_by_the_light_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run with a license header (a blank line inside its head comment), text in other
    scripts than ASCII, a folded scalar, an escape, a URL in a flow mapping and a comment at
    the end of the file: the light path reads and writes it
    (no round-trip load), the first render changes the run's spec only (the header keeps its
    blank line where it is: the round-trip path moved it to the top of the file), and the
    round-trip path writes the same bytes."""

    text = _written_as_people_write("r").replace(
        "spec:\n",
        'spec:\n  params:\n  - {name: url, value: https://git.example.com:8443/x.git}\n  - name: note\n'
        '    value: >-\n      folded\n      text\n  - name: tab\n    value: "a\\tb"\n',
        1,
    ) + "# end of file\n"
    outs = _render_on_both_paths(tmp_path, monkeypatch, text)
    out = outs["1"]
    assert out == outs["0"]
    assert out.startswith(text[: text.index("  workspaces:")]), out
    assert out.split("\n---\n")[0].endswith("# end of file")
    assert kinds(tmp_path / "1" / "run.yaml") == ["PipelineRun", "StatefulSet"]
    run = next(yaml.safe_load_all(out))
    assert run["metadata"]["annotations"]["owner"] == "Zoë"
    assert [p["value"] for p in run["spec"]["params"]] == ["https://git.example.com:8443/x.git", "folded text", "a\tb"]


def test_a_license_header_in_a_resource_list_is_the_same_on_both_paths() -> None:
    """In KRM mode too, the light and round-trip paths write the same bytes for an item whose
    head comment holds a blank line and text in other scripts."""
    from krm_fn.modes.krm import run_resource_list
    from krm_fn.yaml.layout import entry_of

    items = entry_of(_written_as_people_write("r")) + entry_of(PIPELINE)
    data = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items).encode()
    light, full = run_resource_list(data, light=True), run_resource_list(data, light=False)
    assert light[0] == full[0] and light[2] == full[2] == 0
    assert "items:\n\n- # Copyright 2026 ACME Corp. \n  # SPDX-License-Identifier: Apache-2.0\n\n  # the nightly build\n" in light[0]


def test_a_value_tagged_str_is_a_string(tmp_path: Path) -> None:
    """`name: !!str r` and `mode: !!str 0755` are strings to every YAML reader; the
    round-trip loader gives tagged scalars, which were refused as not strings (found by an
    audit of runs as people write them). Now the run renders in both modes, its text keeps
    the tags, and the placeholder gets the label as the string it is."""
    from krm_fn.modes.krm import run_resource_list
    from krm_fn.yaml.layout import entry_of

    text = run_doc("r").replace("  name: r\n", "  name: !!str r\n  labels:\n    mode: !!str 0755\n", 1)
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(text)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1 and " 0 error(s)" in err, err
    out = (tmp_path / "run.yaml").read_text()
    assert out.startswith(text[: text.index("  workspaces:")])
    run, sts = yaml.safe_load_all(out)
    assert run["metadata"]["name"] == "r" and sts["metadata"]["annotations"]["krm-coschedule.dev/owner"] == "PipelineRun/r"
    assert sts["metadata"]["labels"]["mode"] == "0755"
    assert cli(tmp_path, "--check", "pipeline.yaml", "run.yaml")[0] == 0
    data = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + entry_of(text) + entry_of(PIPELINE)).encode()
    light, full = run_resource_list(data, light=True), run_resource_list(data, light=False)
    assert light[0] == full[0] and light[2] == 0, light[0]
    assert "  name: !!str r\n" in light[0] and '    mode: "0755"\n' in light[0]


def test_a_binding_written_name_last_is_bound_on_the_light_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`- volumeClaimTemplate: ...` then `name: src`: binding the claim replaces the entry's
    first key, on the dash line. The light writer replaces those lines and keeps the dash
    (it stepped aside before: a round-trip load per run on every first render); the bytes
    are the round-trip path's."""

    text = run_doc("r").replace(
        "  - name: src\n    volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n"
        "        resources:\n          requests:\n            storage: 1Gi\n",
        "  - volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n"
        "        resources:\n          requests:\n            storage: 1Gi\n    name: src\n",
    )
    assert "    name: src\n" in text
    outs = _render_on_both_paths(tmp_path, monkeypatch, text)
    assert outs["1"] == outs["0"]
    run = next(yaml.safe_load_all(outs["1"]))
    assert list(run["spec"]["workspaces"][0]) == ["persistentVolumeClaim", "name"]
    assert "  - persistentVolumeClaim:\n      claimName: " in outs["1"]


def test_comments_inside_a_bound_claim_template_go_with_it_on_the_light_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Binding a volumeClaimTemplate to its claim drops the template's lines, comments and
    blank lines inside them too, as the round-trip splice does (yaml/splice: drop_comments);
    the light writer stepped aside for them (a round-trip load per run on the first
    render). A comment after the binding stays where it is."""
    text = run_doc("r").replace(
        "    volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n",
        "    volumeClaimTemplate:  # one claim per run\n      spec:\n\n        # the clone and the cache\n"
        "        accessModes: [ReadWriteOnce]\n",
    ).replace("            storage: 1Gi\n", "            storage: 1Gi  # enough for now\n  # scratch space\n  - name: out\n    emptyDir: {}\n")
    assert text.count("#") == 4
    outs = _render_on_both_paths(tmp_path, monkeypatch, text)
    assert outs["1"] == outs["0"]
    assert "one claim per run" not in outs["1"] and "enough for now" not in outs["1"]
    assert "      claimName: " in outs["1"] and "\n  # scratch space\n  - name: out\n" in outs["1"]


@pytest.mark.parametrize("where", ["after-marker", "mid-mapping", "crlf"])
def test_a_byte_order_mark_inside_a_file_is_refused_at_its_place(tmp_path: Path, where: str) -> None:
    """libyaml skips a BOM at a line start in some places and fails on it in others; the file
    was rewritten and stayed unreadable (issue 25). It is refused, path:line:col, unchanged."""
    if where == "after-marker":
        text, line = run_doc("a") + "---\n\ufeff" + run_doc("b"), 17
    elif where == "mid-mapping":
        text, line = run_doc("a").replace("spec:", "\ufeffspec:"), 5
    else:
        text, line = (run_doc("a") + "---\n\ufeff" + run_doc("b")).replace("\n", "\r\n"), 17
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_bytes(text.encode())
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert f"run.yaml:{line}:1: a byte order mark (U+FEFF) starts this line" in err, err
    assert (tmp_path / "run.yaml").read_bytes() == text.encode()


def test_a_byte_order_mark_inside_a_value_or_at_the_start_is_kept(tmp_path: Path) -> None:
    text = "\ufeff" + run_doc("a").replace("  name: a\n", "  name: a\n  annotations:\n    note: x\ufeffy\n")
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(text)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1 and "failed" in err and "0 failed" in err, err
    out = (tmp_path / "run.yaml").read_text()
    assert out.startswith("\ufeffapiVersion") and "    note: x\ufeffy\n" in out


def test_odd_line_breaks_in_untouched_entries_of_an_edited_object_keep_their_bytes(tmp_path: Path) -> None:
    """`"v\\u2028x"` was written `"v\\Lx"` (issue 25): the document is read and edited with
    stand-ins for the breaks inside its scalars, and each is put back when it is written."""
    entries = '    l: "v\u2028x"\n    n: "c\u2029d"\n    q: \'p\x85q\'\n'
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(run_doc("r").replace("  name: r\n", "  name: r\n  annotations:\n" + entries))
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1 and "0 failed" in err, err
    out = (tmp_path / "run.yaml").read_text()
    assert entries in out and kinds(tmp_path / "run.yaml") == ["PipelineRun", "StatefulSet"]
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 0 and (tmp_path / "run.yaml").read_text() == out, err


def test_a_copied_value_holding_an_odd_line_break_is_refused(tmp_path: Path) -> None:
    text = run_doc("r").replace("storage: 1Gi", 'storage: "1Gi\u2028"')
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(text)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1
    assert "run.yaml: [error] a value the function copies holds a line break other than LF" in err, err
    assert (tmp_path / "run.yaml").read_text() == text


@pytest.mark.parametrize("handle, use", [("!e!", "!e!foo"), ("!", "!foo")], ids=["named-handle", "primary-handle"])
def test_a_tag_directive_before_a_later_document_is_read(tmp_path: Path, handle: str, use: str) -> None:
    """`%TAG` binds the document after it; each document was read alone and its tag handle
    was undefined (issue 25). Its tags are read verbatim and written back as they were."""
    later = run_doc("b").replace("  name: b\n", f"  name: b\n  annotations:\n    x: {use} bar\n")
    text = run_doc("a") + f"...\n%TAG {handle} tag:example.com,2000:\n---\n" + later
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    (tmp_path / "run.yaml").write_text(text)
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 1 and "0 failed" in err, err
    out = (tmp_path / "run.yaml").read_text()
    assert f"%TAG {handle} tag:example.com,2000:\n---\n" in out and f"    x: {use} bar\n" in out
    events = list(yaml.parse(out, Loader=yaml.CSafeLoader))
    assert sum(1 for e in events if isinstance(e, yaml.ScalarEvent) and e.tag == "tag:example.com,2000:foo") == 1
    code, _, err = cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert code == 0 and (tmp_path / "run.yaml").read_text() == out, err
