"""`--diff`: modes.diff.unified_diff writes a unified diff that reproduces the new text from the old
one (checked by applying it here, and with `git apply`), in time linear in a file changed in
many places (difflib alone took over ten minutes on the benchmark's file of 20,000 documents)."""
from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from pathlib import Path

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT
from suites.project.test_complexity import BOUND  # type: ignore[import-not-found]
from suites.project.test_complexity import ratio  # type: ignore[import-not-found]

from krm_fn.io import streams
from krm_fn.io.textdiff import unified_diff

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def diff(old: str, new: str, name: str = "f.yaml") -> str:
    return unified_diff(name, streams.split(old, name).raw, new)


def apply(old: str, patch: str) -> str:
    """The new text, by applying a unified diff to the old one (checking every context and
    removed line, and each hunk's counts)."""
    a = old.splitlines(keepends=True)
    lines = patch.splitlines(keepends=True)
    assert lines[0].startswith("--- a/") and lines[1].startswith("+++ b/")
    out: list[str] = []
    at = 0  # lines of `a` used
    k = 2
    while k < len(lines):
        m = HUNK.fullmatch(lines[k])
        assert m, lines[k]
        start, count = int(m[1]), int(m[2] if m[2] is not None else 1)
        first = start - 1 if count else start  # 0-based line the hunk starts at
        out += a[at:first]
        at = first
        k += 1
        seen_old = seen_new = 0
        while k < len(lines) and not lines[k].startswith("@@"):
            tag, text = lines[k][0], lines[k][1:]
            if k + 1 < len(lines) and lines[k + 1] == "\\ No newline at end of file\n":
                text = text[:-1]
                k += 1
            if tag in " -":
                assert a[at] == text, (at, a[at], text)
                at += 1
                seen_old += 1
            if tag in " +":
                out.append(text)
                seen_new += 1
            k += 1
        assert seen_old == count and seen_new == int(m[4] if m[4] is not None else 1)
    return "".join(out + a[at:])


LINES = st.lists(
    st.one_of(st.sampled_from(["a: 1\n", "- x\n", "---\n", "  b: 2\n", "\n"]), st.from_regex(r"[a-z]{1,6}: [0-9]{1,3}\n", fullmatch=True)),
    max_size=60,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LINES, LINES, st.booleans(), st.booleans())
def test_the_diff_reproduces_the_new_text(a: list[str], b: list[str], cut_a: bool, cut_b: bool) -> None:
    old, new = "".join(a), "".join(b)
    old, new = (old[:-1] if cut_a and old else old), (new[:-1] if cut_b and new else new)  # no final line end
    patch = diff(old, new)
    if old == new:
        assert patch == ""
        return
    assert apply(old, patch) == new


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LINES, st.lists(st.tuples(st.integers(0, 59), st.sampled_from(["del", "ins", "rep"]), LINES), max_size=6))
def test_a_few_edits_give_difflibs_diff(a: list[str], edits: list[tuple[int, str, list[str]]]) -> None:
    """A few edits of a text: both diffs reproduce the new text. They are often the same (in
    about 96 of 100 such texts, tried with 3,000); where not, the two match a changed region's
    repeated lines differently. On the benchmark's outputs (1,500 run files; one file of 2,000
    documents) they were the same byte for byte."""
    b = list(a)
    for at, how, lines in edits:
        at = min(at, len(b))
        if how == "del":
            del b[at : at + 2]
        elif how == "ins":
            b[at:at] = lines[:3]
        else:
            b[at : at + 1] = lines[:2]
    old, new = "".join(a), "".join(b)
    ours = diff(old, new)
    theirs = "".join(difflib.unified_diff(a, b, "a/f.yaml", "b/f.yaml"))
    if old == new:
        assert ours == theirs == ""
        return
    assert apply(old, ours) == new
    assert apply(old, theirs) == new  # the applier is right about difflib's too


def test_the_same_as_difflib_on_a_rendered_run() -> None:
    text = ROOT.joinpath("examples", "coschedule-workspaces", "pipelinerun.yaml").read_text()
    new = text.replace("volumeClaimTemplate:", "persistentVolumeClaim:\n      claimName: x\n    volumeClaimTemplate:", 1) + "---\nkind: StatefulSet\n"
    assert new != text
    expected = "".join(difflib.unified_diff(text.splitlines(True), new.splitlines(True), "a/f.yaml", "b/f.yaml"))
    assert diff(text, new) == expected


def test_git_applies_the_diff(tmp_path: Path) -> None:
    git = shutil.which("git")
    assert git, "git is needed to check the diff"
    old = "".join(f"- name: item-{i}\n  value: {i % 3}\n" for i in range(40)) + "end: true"  # no final line end
    new = old.replace("item-7\n", "item-7\n  extra: yes\n").replace("item-30\n  value: 0\n", "") + "\n---\nkind: Added\n"
    (tmp_path / "f.yaml").write_text(old)
    (tmp_path / "f.patch").write_text(diff(old, new))
    p = subprocess.run([git, "apply", "--no-index", "f.patch"], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "f.yaml").read_text() == new


def test_a_file_changed_in_many_places_is_diffed_in_linear_time() -> None:
    """Every document changed in its middle and as many appended: difflib alone compared the
    changed regions with each other (the benchmark's 20,000-document file: over ten minutes;
    now 1.75 s for the whole --check --diff)."""

    def make(n: int):  # type: ignore[no-untyped-def]
        doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: '1'\n  b: '2'\n  c: '3'\n"
        old = "---\n".join(doc.format(i=i) for i in range(n))
        new = "---\n".join(doc.format(i=i).replace("  b: '2'\n", f"  b: '{i}'\n  x: y\n") for i in range(n))
        new += "".join("---\n" + doc.format(i=f"new-{i}") for i in range(n))
        return lambda: diff(old, new)

    assert ratio(make, 300) < BOUND
