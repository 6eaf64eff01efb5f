"""The conventions users and tools rely on: the catalog-style metadata.yaml, one repository
URL, the hooks' minimum pre-commit version, a README in every example package, and the
README's editor modeline pointing at the schema."""
from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

# the fields of a kpt functions catalog metadata.yaml, and its tag values
CATALOG_FIELDS = {"image", "description", "tags", "sourceURL", "examplePackageURLs", "emails", "license", "hidden"}
CATALOG_TAGS = {"mutator", "validator", "viewer", "generator"}
README = (ROOT / "README.md").read_text(encoding="utf-8")
METADATA = yaml.safe_load((ROOT / "metadata.yaml").read_text(encoding="utf-8"))
KPT_EXAMPLES = sorted(p.parent for p in (ROOT / "examples").glob("*/Kptfile"))
# every example package: a kpt package, a kustomization, a pre-commit setup or a ResourceList
EXAMPLE_DIRS = sorted(
    {p.parent for pattern in ("*/Kptfile", "**/kustomization.yaml", "*/.pre-commit-config.yaml", "*/resourcelist.yaml")
     for p in (ROOT / "examples").glob(pattern)}
)


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def test_metadata_has_the_catalog_fields() -> None:
    assert {"image", "description", "tags"} <= set(METADATA) <= CATALOG_FIELDS
    assert set(METADATA["tags"]) <= CATALOG_TAGS and METADATA["tags"]
    # kpt prefixes an image name without a slash with its own registry; the catalog omits the tag
    image = METADATA["image"]
    assert "/" in image and ":" not in image.rsplit("/", 1)[-1]
    assert METADATA["license"] == "Apache-2.0"
    assert 'license = {text = "Apache-2.0"}' in (ROOT / "pyproject.toml").read_text()


def test_metadata_lists_every_kpt_example() -> None:
    prefix = METADATA["sourceURL"] + "/tree/main/examples/"
    listed = METADATA["examplePackageURLs"]
    assert all(u.startswith(prefix) for u in listed)
    assert sorted(u.removeprefix(prefix) for u in listed) == sorted(p.name for p in KPT_EXAMPLES)


def test_one_repository_url_everywhere() -> None:
    url = METADATA["sourceURL"]
    config = yaml.safe_load((ROOT / "examples" / "pre-commit" / ".pre-commit-config.yaml").read_text())
    assert [r["repo"] for r in config["repos"]] == [url]
    snippet_repos = re.findall(r"^- repo: (\S+)", README, flags=re.MULTILINE)
    assert snippet_repos == [url]
    assert f"published at\n`{url}`" in README or f"published at `{url}`" in README


def test_every_hook_names_its_minimum_pre_commit_version() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks
    minimums = {h["id"]: h.get("minimum_pre_commit_version") for h in hooks}
    assert all(isinstance(v, str) and _version(v) >= (1, 13, 0) for v in minimums.values()), minimums  # require_serial
    assert len(set(minimums.values())) == 1
    # the pre-commit the end-to-end tests run is new enough for the hooks
    assert _version(version("pre-commit")) >= _version(next(iter(minimums.values())))
    assert f"pre-commit {next(iter(minimums.values()))} or\nnewer" in README


def test_examples_discovered() -> None:
    names = {p.relative_to(ROOT / "examples").as_posix() for p in EXAMPLE_DIRS}
    assert {"coschedule-workspaces", "shipwright-scheduling", "quickstart", "pre-commit",
            "kustomize/plugin", "kustomize/exec-function"} <= names


@pytest.mark.parametrize("example", EXAMPLE_DIRS, ids=[p.relative_to(ROOT / "examples").as_posix() for p in EXAMPLE_DIRS])
def test_every_example_has_a_readme(example: Path) -> None:
    readme = example / "README.md"
    assert readme.exists(), f"{readme.relative_to(ROOT)} missing"
    text = readme.read_text(encoding="utf-8")
    rel = example.relative_to(ROOT).as_posix()
    assert "## Run it" in text and "## Expected result" in text
    commands = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    assert any(rel in c for c in commands), f"no command in {rel}/README.md names {rel}"
    if (example / ".expected").is_dir():
        assert ".expected/" in text


def test_the_readme_modeline_points_at_the_schema() -> None:
    m = re.search(r"^# yaml-language-server: \$schema=(\S+)$", README, flags=re.MULTILINE)
    assert m, "README shows no yaml-language-server modeline"
    # resolved from the policy file's directory, as the README says: two levels below the root
    policy_dir = ROOT / "examples" / "coschedule-workspaces"
    assert (policy_dir / m.group(1)).resolve() == (ROOT / "schemas" / "coschedulepolicy.schema.json").resolve()
    assert "`./schemas/coschedulepolicy.schema.json`" in README and (ROOT / "schemas" / "coschedulepolicy.schema.json").is_file()
