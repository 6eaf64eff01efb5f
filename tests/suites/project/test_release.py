"""What users copy stays in step (issue 33): the README's and the docs' pre-commit `rev:` and
install pin name the newest release of CHANGELOG.md, whose version is the package's; every
pointer in examples/ resolves."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from shared import ROOT

import krm_fn

PINNED = {
    "README.md": 2,  # the pre-commit snippet and the pipx install
    "docs/integrations/pre-commit.md": 1,
    "examples/pre-commit/.pre-commit-config.yaml": 1,
}


def _releases() -> list[tuple[str, str, str]]:
    """(version, date, commit) of each release in CHANGELOG.md, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text()
    out = []
    for m in re.finditer(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})\n\nCommit ([0-9a-f]{40}) ", text, re.M):
        out.append((m.group(1), m.group(2), m.group(3)))
    return out


def _pyproject_version(text: str) -> str:
    m = re.search(r'^version = "([^"]+)"', text, re.M)
    assert m, "no version in pyproject.toml"
    return m.group(1)


def test_changelog_keeps_a_changelog_layout() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    heads = re.findall(r"^## \[([^\]]+)\]", text, re.M)
    assert heads[0] == "Unreleased", "the first section is [Unreleased]"
    assert heads[1:] and [h for h in heads[1:]] == [r[0] for r in _releases()], "every release names its date and commit"
    for h in heads:
        assert re.search(rf"^\[{re.escape(h)}\]: https://", text, re.M), f"no link for [{h}]"


def test_the_version_is_the_newest_release() -> None:
    newest = _releases()[0][0]
    assert krm_fn.__version__ == newest
    assert _pyproject_version((ROOT / "pyproject.toml").read_text()) == newest


@pytest.mark.parametrize("path", sorted(PINNED))
def test_every_pin_is_the_newest_release(path: str) -> None:
    commit = _releases()[0][2]
    text = (ROOT / path).read_text()
    pins = re.findall(r"rev: *([0-9a-f]{7,40}|v\d+\.\d+\.\d+)", text) + re.findall(r"krm-coschedule@([0-9a-f]{7,40}|v\d+\.\d+\.\d+)", text)
    assert len(pins) == PINNED[path], pins
    assert set(pins) == {commit}, f"{path} pins {pins}; the newest release is {commit}"


def test_the_released_commit_carries_its_version() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("no git history here")  # CI runs from a clone
    version, _date, commit = _releases()[0]
    shown = subprocess.run([git, "show", f"{commit}:pyproject.toml"], capture_output=True, text=True, cwd=ROOT)
    assert shown.returncode == 0, f"{commit} is not in this repository's history: {shown.stderr}"
    assert _pyproject_version(shown.stdout) == version


# --------------------------------------------------------------------------- examples/ pointers

_HEADINGS: dict[Path, set[str]] = {}


def _anchors(md: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    if md not in _HEADINGS:
        slugs = set()
        for h in re.findall(r"^#+ +(.+?) *$", md.read_text(), re.M):
            slug = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
            slugs.add(slug)
        _HEADINGS[md] = slugs
    return _HEADINGS[md]


def _pointers() -> list[tuple[str, str, Path, str]]:
    """(file, pointer, the path it resolves to, anchor) of every pointer in examples/:
    Markdown links, repository paths in comments (docs/..., examples/...), `README "X"`
    references, the repository's GitHub tree URLs and kustomizations' files."""
    found = []
    for f in sorted((ROOT / "examples").rglob("*")):
        if not f.is_file() or ".expected" in f.parts:
            continue
        rel = str(f.relative_to(ROOT))
        text = f.read_text(errors="replace")
        if f.suffix == ".md":
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+://", target):
                    continue
                path, _, anchor = target.partition("#")
                found.append((rel, target, (f.parent / path).resolve() if path else f, anchor))
        for path, anchor in re.findall(r"(?<![\w/.])((?:docs|examples|schemas|fixtures)/[\w./-]*\w)(?:#([\w-]+))?", text):
            found.append((rel, path, ROOT / path, anchor))
        for section in re.findall(r'README "([^"]+)"', text):
            found.append((rel, f'README "{section}"', ROOT / "README.md", re.sub(r"[^\w\- ]", "", section.lower()).replace(" ", "-")))
        for path in re.findall(r"github\.com/krm-coschedule/krm-coschedule/(?:tree|blob)/main/([\w./-]+)", text):
            found.append((rel, path, ROOT / path, ""))
        if f.name == "kustomization.yaml":
            for path in re.findall(r"^- ([\w./-]+\.ya?ml)$", text, re.M):
                found.append((rel, path, f.parent / path, ""))
    return found


def test_there_are_pointers_to_check() -> None:
    assert len(_pointers()) > 20


@pytest.mark.parametrize(("where", "pointer", "path", "anchor"), [pytest.param(*p, id=f"{p[0]}:{p[1]}") for p in _pointers()])
def test_every_pointer_in_examples_resolves(where: str, pointer: str, path: Path, anchor: str) -> None:
    """Six example Kptfiles and a kustomization pointed at README sections that no longer
    existed (issue 33)."""
    assert path.exists(), f"{where}: {pointer} does not exist"
    if anchor:
        assert path.suffix == ".md" and anchor in _anchors(path), f"{where}: {pointer}: no heading #{anchor} in {path.name}"
