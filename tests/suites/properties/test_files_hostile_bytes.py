"""A hypothesis target for issue 25: hostile bytes (the line breaks only YAML 1.1 readers
know, lone CRs, BOMs, directive-like and marker-like text, control characters kept by
escapes) in the untouched entries of an object the function edits. The untouched text must
come out byte-exact, the file must read back (libyaml), and a second pass changes nothing;
whatever cannot be kept so is refused with the file left as it was."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import files_util  # type: ignore[import-not-found]
import yaml
from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

RUN_HEAD = "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: r\n  annotations:\n"
RUN_TAIL = (
    "spec:\n  pipelineRef:\n    name: p\n  workspaces:\n  - name: src\n    volumeClaimTemplate:\n      spec:\n"
    "        accessModes: [ReadWriteOnce]\n        resources:\n          requests:\n            storage: 1Gi\n"
)
HOSTILE = ["\x85", "\u2028", "\u2029", "\r", "\ufeff", "%TAG ! tag:x,2000:", "%YAML 1.1", "---", "...", "#", "\t", "\\x1b", "\\u2028", "\\x85", "\\r"]


@st.composite
def entries(draw: Any) -> str:
    """One annotation line `kN: <value>` whose value holds hostile characters, in one of the
    styles that can carry them."""
    parts = draw(st.lists(st.one_of(st.sampled_from(HOSTILE), st.text("abc xyz", min_size=1, max_size=3)), min_size=1, max_size=4))
    body = "".join(parts)
    style = draw(st.sampled_from(["plain", "double", "single"]))
    if style == "double":
        return '"' + body.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\x", "\\x").replace("\\\\u", "\\u").replace("\\\\r", "\\r") + '"'
    if style == "single":
        return "'" + body.replace("\\", "").replace("'", "''") + "'"
    # a tab inside a plain scalar is refused by the round-trip reader on its own account
    return "v" + body.replace("\\", "").replace("#", " #").replace(": ", ":").replace("\t", "")


def _reads(text: str) -> list[Any] | None:
    try:
        return list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(entries(), min_size=1, max_size=3), st.sampled_from(["\n", "\r\n", "\r"]))
@example(["k\x85x"], "\n")
@example(['"k\x85x"'], "\n")
@example(['"v\\u2028x"'], "\n")
@example(["va\u2028b"], "\n")
@example(["vx"], "\r")
def test_hostile_bytes_in_untouched_entries_survive_an_edit(values: list[str], newline: str) -> None:
    annotations = "".join(f"    k{i}: {v}\n" for i, v in enumerate(values))
    text = (RUN_HEAD + annotations + RUN_TAIL).replace("\n", newline)
    # a value ending in CR before an LF makes a CRLF line among LF ones: a file of mixed line
    # ends, whose untouched lines keep their own (streamwrite._line_ends_kept)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "pipeline.yaml").write_text(files_util.PIPELINE)
        (tmp / "run.yaml").write_bytes(text.encode())
        code, _, err = files_util.cli(tmp, "pipeline.yaml", "run.yaml")
        assert "internal error" not in err and "Traceback" not in err, err
        out = (tmp / "run.yaml").read_bytes().decode()
        if out == text:
            assert code == 1 or _reads(text) is not None, err  # unchanged: an unreadable input is an error
            return
        assert _reads(out) is not None, f"wrote a file libyaml cannot read: {out!r}"
        if _reads(text) is not None:  # else libyaml and YAML 1.2 disagree: written as both read it
            assert annotations.replace("\n", newline) in out, f"untouched entries changed: {out!r}"
        before = _reads(text)
        if before is not None:
            after = _reads(out)
            assert after is not None and after[0]["metadata"]["annotations"] == before[0]["metadata"]["annotations"]
        code, _, err = files_util.cli(tmp, "pipeline.yaml", "run.yaml")
        assert (tmp / "run.yaml").read_bytes().decode() == out, f"a second pass changed the file: {err}"


def test_a_document_of_mixed_line_ends_keeps_each_untouched_line_end(tmp_path: Path) -> None:
    """A run edited on two systems (some lines CRLF, some LF): the edit changes only the lines
    it needs, and each untouched line keeps its own line end (they all became CRLF, the
    file's, when the document changed). The new lines get the document's commoner end; the
    file reads back, and a second pass leaves it as it is."""
    lines = (RUN_HEAD + "    a: b\n" + RUN_TAIL).split("\n")
    text = "".join(x + ("\n" if i % 3 == 0 else "\r\n") for i, x in enumerate(lines[:-1]))
    assert "\r\n" in text and "\n" in text.replace("\r\n", "")
    (tmp_path / "pipeline.yaml").write_text(files_util.PIPELINE)
    (tmp_path / "run.yaml").write_bytes(text.encode())
    code, _, err = files_util.cli(tmp_path, "pipeline.yaml", "run.yaml")
    assert "rewrote run.yaml" in err, err
    out = (tmp_path / "run.yaml").read_bytes().decode()
    assert out != text and _reads(out) is not None
    old_lines = text.splitlines(keepends=True)
    k = next(i for i, x in enumerate(old_lines) if "volumeClaimTemplate" in x)
    untouched = "".join(old_lines[:k])  # the lines before the claim template the edit binds
    assert out.startswith(untouched), "an untouched line changed (its line end)"
    assert "\r\n" in untouched and "\n" in untouched.replace("\r\n", "")
    assert "0 file(s) rewritten" in files_util.cli(tmp_path, "pipeline.yaml", "run.yaml")[2]
    assert (tmp_path / "run.yaml").read_bytes().decode() == out
