"""The conventions users and tools rely on: the catalog-style metadata.yaml, one repository
URL, the hooks' minimum pre-commit version, a pre-commit `rev` that exists, a README in every
example package, and the policy page's editor modeline pointing at the schema."""
from __future__ import annotations

import re
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

# the fields of a kpt functions catalog metadata.yaml, and its tag values
CATALOG_FIELDS = {"image", "description", "tags", "sourceURL", "examplePackageURLs", "emails", "license", "hidden"}
CATALOG_TAGS = {"mutator", "validator", "viewer", "generator"}
README = (ROOT / "README.md").read_text(encoding="utf-8")
PRE_COMMIT_DOC = (ROOT / "docs" / "integrations" / "pre-commit.md").read_text(encoding="utf-8")
POLICY_DOC = (ROOT / "docs" / "policy.md").read_text(encoding="utf-8")
DOCS = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").rglob("*.md"))}
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
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text()


def test_metadata_lists_every_kpt_example() -> None:
    prefix = METADATA["sourceURL"] + "/tree/main/examples/"
    listed = METADATA["examplePackageURLs"]
    assert all(u.startswith(prefix) for u in listed)
    assert sorted(u.removeprefix(prefix) for u in listed) == sorted(p.name for p in KPT_EXAMPLES)


def test_one_repository_url_everywhere() -> None:
    url = METADATA["sourceURL"]
    config = yaml.safe_load((ROOT / "examples" / "pre-commit" / ".pre-commit-config.yaml").read_text())
    assert [r["repo"] for r in config["repos"]] == [url]
    snippet_repos = [r for text in (README, *DOCS.values()) for r in re.findall(r"^- repo: (\S+)", text, flags=re.MULTILINE)]
    assert len(snippet_repos) >= 2 and set(snippet_repos) == {url}  # the README's first screen and the pre-commit page
    assert f"published at\n`{url}`" in PRE_COMMIT_DOC or f"published at `{url}`" in PRE_COMMIT_DOC
    assert f"pipx install git+{url}`" in README


def test_the_pre_commit_rev_exists() -> None:
    """The snippet's `rev` (and the example config's) is a commit of this repository, not a
    tag nobody published; skipped in a shallow clone, which may lack it."""
    git = shutil.which("git")
    if git is None or subprocess.run([git, "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                                     text=True, check=False).stdout.strip() != "false":
        pytest.skip("not a full git clone")
    config = yaml.safe_load((ROOT / "examples" / "pre-commit" / ".pre-commit-config.yaml").read_text())
    revs = re.findall(r"^  rev: (\S+)", PRE_COMMIT_DOC, flags=re.MULTILINE) + [r["rev"] for r in config["repos"]]
    assert revs and len(set(revs)) == 1, revs
    tags = subprocess.run([git, "tag"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert revs[0] in tags or re.fullmatch(r"[0-9a-f]{40}", revs[0]), revs[0]
    found = subprocess.run([git, "cat-file", "-e", f"{revs[0]}^{{commit}}"], cwd=ROOT, capture_output=True, check=False)
    assert found.returncode == 0, f"rev {revs[0]} is not a commit of this repository"


def test_every_hook_names_its_minimum_pre_commit_version() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks
    minimums = {h["id"]: h.get("minimum_pre_commit_version") for h in hooks}
    assert all(isinstance(v, str) and _version(v) >= (1, 13, 0) for v in minimums.values()), minimums  # require_serial
    assert len(set(minimums.values())) == 1
    # the pre-commit the end-to-end tests run is new enough for the hooks
    assert _version(version("pre-commit")) >= _version(next(iter(minimums.values())))
    assert f"pre-commit {next(iter(minimums.values()))} or\nnewer" in PRE_COMMIT_DOC


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


def test_the_policy_page_modeline_points_at_the_schema() -> None:
    m = re.search(r"^# yaml-language-server: \$schema=(\S+)$", POLICY_DOC, flags=re.MULTILINE)
    assert m, "docs/policy.md shows no yaml-language-server modeline"
    # resolved from the policy file's directory, as docs/policy.md says: two levels below the root
    policy_dir = ROOT / "examples" / "coschedule-workspaces"
    assert (policy_dir / m.group(1)).resolve() == (ROOT / "schemas" / "coschedulepolicy.schema.json").resolve()
    assert "`./schemas/coschedulepolicy.schema.json`" in POLICY_DOC and (ROOT / "schemas" / "coschedulepolicy.schema.json").is_file()


def test_the_policy_page_shows_every_field_of_the_schema() -> None:
    # the example of docs/policy.md is the reference users read: a field the schema has and the
    # page leaves out is a field nobody finds (setSecurityContextReadOnlyRootFilesystem was)
    import json

    schema = json.loads((ROOT / "schemas" / "coschedulepolicy.schema.json").read_text(encoding="utf-8"))
    example = POLICY_DOC.split("```yaml", 1)[1].split("```", 1)[0]
    shown = set(re.findall(r"^ *([A-Za-z]+):", example, flags=re.MULTILINE))

    def fields(node: dict, depth: int) -> set[str]:  # type: ignore[type-arg]
        out = set()
        for name, sub in (node.get("properties") or {}).items():
            out.add(name)
            # the pod templates' and resources' own fields are Kubernetes', not the policy's
            if depth < 1 and name not in ("podTemplate", "resources"):
                out |= fields(sub, depth + 1)
        return out

    missing = fields(schema["properties"]["spec"], 0) - shown
    assert not missing, f"docs/policy.md's example leaves out {sorted(missing)}"


def test_the_policy_page_lists_every_hardening_rule() -> None:
    from krm_fn.policy import hardening

    rules = {v for k, v in vars(hardening).items() if k.startswith("RULE_")}
    assert len(rules) == 4
    section = POLICY_DOC.split("## Hardening", 1)[1].split("\n## ", 1)[0]
    for rule in rules:
        assert f"| `{rule}` |" in section, f"docs/policy.md's hardening table leaves out {rule}"
