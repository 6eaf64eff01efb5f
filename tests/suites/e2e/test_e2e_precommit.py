"""End-to-end with the real pre-commit: `pre-commit try-repo` of this repository (the
hooks in .pre-commit-hooks.yaml, installed by pre-commit itself) in a throwaway git
repository, and the same hook definition run through `pre-commit run` with a stand-in
transform. Regenerate expected files with KRM_UPDATE_EXPECTED=1."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import fake_transform
import pytest
from conftest import ROOT
from conftest import require_tool
from e2e_util import check_expected
from e2e_util import documents
from e2e_util import normalized
from e2e_util import snapshot
from e2e_util import stdin_objects

from krm_fn.yaml import emitter
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

pytestmark = pytest.mark.e2e

EXAMPLE = ROOT / "examples" / "pre-commit"
MANIFESTS = ["manifests/pipeline.yaml", "manifests/pipelinerun.yaml"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo, check=True, capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    require_tool("git")
    r = tmp_path / "repo"
    (r / "manifests").mkdir(parents=True)
    for m in MANIFESTS:
        shutil.copy(EXAMPLE / m, r / m)
    shutil.copy(EXAMPLE / "coschedule-policy.yaml", r / "coschedule-policy.yaml")
    _git(r, "init", "-q")
    _git(r, "add", "-A")
    _git(r, "commit", "-qm", "init")
    return r


def _pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = require_tool("pre-commit")
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(home)
    env.pop("PRE_COMMIT_ALLOW_NO_CONFIG", None)
    return subprocess.run([exe, *args, "--color", "never"], cwd=repo, capture_output=True, text=True, env=env, check=False)


def test_try_repo(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    before = snapshot(repo / "manifests")
    p = _pre_commit(repo, home, "try-repo", str(ROOT), "krm-coschedule", "--all-files")
    after = snapshot(repo / "manifests")
    out = p.stdout + p.stderr
    changed = after != before
    assert p.returncode == (1 if changed else 0), out
    assert ("files were modified by this hook" in out) == changed, out
    for rel, data in after.items():
        check_expected(EXAMPLE / ".expected" / "manifests" / rel, data.decode())
    assert sorted(after) == sorted(before)
    # the hook runs without --config: the defaults, which the example policy spells out
    assert to_plain(loader.rt_load((repo / "coschedule-policy.yaml").read_text()))["spec"] == {"coschedule": "workspaces"}
    got = normalized([d for m in MANIFESTS for d in documents((repo / m).read_text())])
    assert got == stdin_objects([EXAMPLE / m for m in MANIFESTS], EXAMPLE / "coschedule-policy.yaml")
    # second run: nothing left to do
    p = _pre_commit(repo, home, "try-repo", str(ROOT), "krm-coschedule", "--all-files")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(repo / "manifests") == after
    # the check hook agrees, and changes nothing
    p = _pre_commit(repo, home, "try-repo", str(ROOT), "krm-coschedule-check", "--all-files")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Passed" in p.stdout


def _local_config(repo: Path, entry: str, hook_id: str = "krm-coschedule") -> None:
    """The hook as .pre-commit-hooks.yaml declares it, with `entry` as the command."""
    hooks = to_plain(loader.rt_load((ROOT / ".pre-commit-hooks.yaml").read_text()))
    hook = dict(next(h for h in hooks if h["id"] == hook_id))
    assert hook["entry"].startswith("krm-coschedule ")
    hook["entry"] = entry + hook["entry"][len("krm-coschedule"):]
    hook["language"] = "system"  # already installed: the stand-in wrapper
    hook["args"] = ["--config", "coschedule-policy.yaml"]
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(emitter.dump_block(config))
    _git(repo, "add", "-A")


def test_hook_with_a_transform_that_generates(repo: Path, tmp_path: Path) -> None:
    wrapper = fake_transform.write_wrapper(tmp_path / "bin")
    _local_config(repo, str(wrapper))
    home = tmp_path / "pre-commit-home"
    p = _pre_commit(repo, home, "run", "--all-files")
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "files were modified by this hook" in out
    assert "rewrote manifests/pipelinerun.yaml" in out
    run = (repo / "manifests" / "pipelinerun.yaml").read_text()
    assert run.startswith("# A run of build-and-test")
    assert "\n---\napiVersion: apps/v1\nkind: StatefulSet\n" in run
    assert (repo / "manifests" / "pipeline.yaml").read_bytes() == (EXAMPLE / "manifests" / "pipeline.yaml").read_bytes()
    after = snapshot(repo)
    p = _pre_commit(repo, home, "run", "--all-files")
    assert p.returncode == 0, p.stdout + p.stderr
    assert snapshot(repo) == after


def test_check_hook_reports_and_changes_nothing(repo: Path, tmp_path: Path) -> None:
    wrapper = fake_transform.write_wrapper(tmp_path / "bin")
    _local_config(repo, str(wrapper), "krm-coschedule-check")
    before = snapshot(repo)
    p = _pre_commit(repo, tmp_path / "home", "run", "--all-files")
    assert p.returncode == 1
    assert "+kind: StatefulSet" in p.stdout  # the diff is shown
    assert "would rewrite manifests/pipelinerun.yaml" in p.stdout + p.stderr
    assert snapshot(repo) == before


def _hook_repo(tmp_path: Path) -> tuple[Path, str]:
    """This repository as it is now (uncommitted work included), committed in a clone, as
    pre-commit's `repo:` + `rev:` need."""
    hook = tmp_path / "hook-repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(hook)], check=True, capture_output=True)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (hook / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, hook / rel)
    _git(hook, "add", "-A")
    _git(hook, "commit", "-qm", "work tree", "--allow-empty")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook, check=True, capture_output=True, text=True).stdout.strip()
    return hook, rev


PIPELINE = """\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
  - name: src
  tasks:
  - name: build
    workspaces:
    - name: src
      workspace: src
    taskRef:
      name: t
"""


def _run_doc(name: str) -> str:
    return (
        f"apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: {name}\nspec:\n  pipelineRef:\n    name: p\n"
        "  workspaces:\n  - name: src\n    volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n"
    )


def _git_out(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=False,
    )


def test_real_git_commit_through_the_installed_hook(tmp_path: Path) -> None:
    """As users run it: `pre-commit install`, stage only a new PipelineRun whose Pipeline is
    in another file of its package, `git commit` fails with "files were modified", `git add`,
    `git commit` passes. One hook entry serves two packages, each with its own policy (a
    Kptfile configPath in dev/, a CoschedulePolicy file in prod/). Then the Pipeline alone
    is edited and staged: the same, for the run that uses it."""
    require_tool("git")
    exe = require_tool("pre-commit")
    hook, rev = _hook_repo(tmp_path)
    user = tmp_path / "user"
    for env in ("dev", "prod", "ci"):  # ci: no policy, the defaults (coschedule: workspaces)
        (user / env).mkdir(parents=True)
        (user / env / "pipeline.yaml").write_text(PIPELINE)
    (user / "dev" / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: dev\n  annotations:\n"
        '    config.kubernetes.io/local-config: "true"\npipeline:\n  mutators:\n  - exec: krm-coschedule\n'
        "    configPath: policy.yaml\n"
    )
    for env, mode in (("dev", "pipelineruns"), ("prod", "disabled")):
        name = "policy.yaml" if env == "dev" else "coschedule-policy.yaml"
        (user / env / name).write_text(
            "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\n  annotations:\n"
            f'    config.kubernetes.io/local-config: "true"\nspec:\n  coschedule: {mode}\n'
        )
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hook}\n  rev: {rev}\n  hooks:\n  - id: krm-coschedule\n"
    )
    _git(user, "init", "-q")
    _git(user, "add", "-A")
    _git(user, "commit", "-qm", "init")
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    subprocess.run([exe, "install"], cwd=user, check=True, capture_output=True, env=env)
    (user / "dev" / "run.yaml").write_text(_run_doc("r"))
    (user / "prod" / "run.yaml").write_text(_run_doc("r"))
    (user / "ci" / "run.yaml").write_text(_run_doc("r"))
    _git(user, "add", "dev/run.yaml", "prod/run.yaml", "ci/run.yaml")
    first = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "add runs"],
        cwd=user, capture_output=True, text=True, env=env,
    )
    out = first.stdout + first.stderr
    assert first.returncode == 1, out
    assert "files were modified by this hook" in out, out
    assert "Traceback" not in out
    dev_run = (user / "dev" / "run.yaml").read_text()
    assert "kind: StatefulSet" in dev_run and "affinity-assistant-" in dev_run
    assert (user / "prod" / "run.yaml").read_text() == _run_doc("r")  # prod: coschedule disabled
    ci_run = (user / "ci" / "run.yaml").read_text()
    assert "kind: StatefulSet" in ci_run
    _git(user, "add", "dev/run.yaml", "ci/run.yaml")
    second = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "add runs"],
        cwd=user, capture_output=True, text=True, env=env,
    )
    assert second.returncode == 0, second.stdout + second.stderr
    assert _git_out(user, "status", "--porcelain").stdout == ""

    # the Pipeline edited and staged alone: its runs re-render, the commit fails, and passes
    # once they are staged (a run pinned to the old tasks was committed stale, issue 24)
    (user / "ci" / "pipeline.yaml").write_text(
        PIPELINE + "  - name: test\n    workspaces:\n    - name: src\n      workspace: src\n    taskRef:\n      name: t\n"
    )
    _git(user, "add", "ci/pipeline.yaml")
    third = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a task more"],
        cwd=user, capture_output=True, text=True, env=env,
    )
    out = third.stdout + third.stderr
    assert third.returncode == 1, out
    assert "files were modified by this hook" in out and "rewrote ci/run.yaml" in out, out
    assert "Traceback" not in out
    assert (user / "ci" / "run.yaml").read_text() != ci_run
    assert _git_out(user, "status", "--porcelain").stdout == "M  ci/pipeline.yaml\n M ci/run.yaml\n"
    _git(user, "add", "ci/run.yaml")
    fourth = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a task more"],
        cwd=user, capture_output=True, text=True, env=env,
    )
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert _git_out(user, "status", "--porcelain").stdout == ""


def test_hooks_skip_helm_templates(tmp_path: Path) -> None:
    """Both hooks exclude files under a `templates/` directory (Helm chart templates are not
    YAML until Helm renders them): a run there is left as it is, even one the hook would
    render, while the run beside the chart directory is rendered."""
    require_tool("git")
    user = tmp_path / "user"
    (user / "deploy" / "templates").mkdir(parents=True)
    (user / "deploy" / "pipeline.yaml").write_text(PIPELINE)
    (user / "deploy" / "run.yaml").write_text(_run_doc("r"))
    (user / "deploy" / "templates" / "run.yaml").write_text(_run_doc("t"))
    helm = "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n"
    (user / "deploy" / "templates" / "configmap.yaml").write_text(helm)
    _git(user, "init", "-q")
    _git(user, "add", "-A")
    _git(user, "commit", "-qm", "init")
    home = tmp_path / "pre-commit-home"
    templates = snapshot(user / "deploy" / "templates")
    p = _pre_commit(user, home, "try-repo", str(ROOT), "krm-coschedule-check", "--all-files")
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "would rewrite deploy/run.yaml" in out and "templates" not in out, out
    p = _pre_commit(user, home, "try-repo", str(ROOT), "krm-coschedule", "--all-files")
    out = p.stdout + p.stderr
    assert p.returncode == 1 and "files were modified by this hook" in out, out
    assert "kind: StatefulSet" in (user / "deploy" / "run.yaml").read_text()
    assert "templates" not in out, out
    assert snapshot(user / "deploy" / "templates") == templates
