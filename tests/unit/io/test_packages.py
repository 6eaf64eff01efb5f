"""Packages, not file lists (krm_fn/io/packages.py): every FILE belongs to a package (up to the
nearest Kptfile, else its directory); the package's other YAML files are context; its policy
comes from its Kptfile or a CoschedulePolicy file in it; collisions are per package."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from files_util import PIPELINE  # type: ignore[import-not-found]
from files_util import cli  # type: ignore[import-not-found]
from files_util import kinds  # type: ignore[import-not-found]
from files_util import run_doc  # type: ignore[import-not-found]


def policy(mode: str, local: bool = True) -> str:
    ann = '  annotations:\n    config.kubernetes.io/local-config: "true"\n' if local else ""
    return f"apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\n{ann}spec:\n  coschedule: {mode}\n"


KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: krm-coschedule
{config}
"""


def package(d: Path, mode: str | None = None, kptfile: str | None = None) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "pipeline.yaml").write_text(PIPELINE)
    (d / "run.yaml").write_text(run_doc("r"))
    if mode is not None:
        (d / "coschedule-policy.yaml").write_text(policy(mode))
    if kptfile is not None:
        (d / "Kptfile").write_text(KPTFILE.format(config=kptfile))
    return d


def test_a_policy_among_the_files_is_the_packages_policy(tmp_path: Path) -> None:
    """explain pkg/*.yaml with a CoschedulePolicy in the glob plans with that policy."""
    pkg = package(tmp_path / "pkg", mode="pipelineruns")
    code, out, err = cli(pkg, "explain", "coschedule-policy.yaml", "pipeline.yaml", "run.yaml")
    assert code == 0, err
    assert "pipelineruns" in out and "workspaces" not in out.split("\n", 1)[1]
    code, out, err = cli(pkg, "explain", "run.yaml")  # the policy file is in the package
    assert code == 0, err
    assert "pipelineruns" in out


def test_kptfile_config_path_and_config_map(tmp_path: Path) -> None:
    a = package(tmp_path / "a", kptfile="    configPath: policy/cfg.yaml")
    (a / "policy").mkdir()
    (a / "policy" / "cfg.yaml").write_text(policy("isolate-pipelinerun"))
    code, out, err = cli(a, "explain", "run.yaml")
    assert code == 0, err
    assert "isolate-pipelinerun" in out
    b = package(tmp_path / "b", kptfile="    configMap:\n      coschedule: pipelineruns")
    code, out, err = cli(b, "explain", "run.yaml")
    assert code == 0, err
    assert "pipelineruns" in out


def test_two_policies_in_one_package_are_an_error(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg", mode="pipelineruns")
    (pkg / "other-policy.yaml").write_text(policy("workspaces"))
    code, _, err = cli(pkg, "--files", "run.yaml")
    assert code == 1
    assert "has two policies for krm-coschedule" in err and "coschedule-policy.yaml" in err and "other-policy.yaml" in err
    assert (pkg / "run.yaml").read_text() == run_doc("r")
    code, _, err = cli(pkg, "--config", "coschedule-policy.yaml", "run.yaml")  # --config decides
    assert code == 1 and "two policies" not in err
    assert kinds(pkg / "run.yaml") == ["PipelineRun", "StatefulSet"]


def test_a_directory_argument_is_its_package(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg", mode="pipelineruns", kptfile="    configPath: coschedule-policy.yaml")
    code, _, err = cli(tmp_path, "pkg")  # one argument, a directory: files mode, not a plugin config
    assert code == 1, err
    assert kinds(pkg / "run.yaml") == ["PipelineRun", "StatefulSet"]
    code, _, err = cli(tmp_path, "--check", "pkg")
    assert code == 0, err


def test_packages_each_with_their_own_policy_in_one_run(tmp_path: Path) -> None:
    dev = package(tmp_path / "dev", mode="pipelineruns")
    prod = package(tmp_path / "prod", mode="disabled")
    code, _, err = cli(tmp_path, "dev/run.yaml", "prod/run.yaml")
    assert code == 1, err
    assert kinds(dev / "run.yaml") == ["PipelineRun", "StatefulSet"]
    assert (prod / "run.yaml").read_text() == run_doc("r")  # disabled: nothing to add


def test_same_names_in_different_packages_are_no_collision(tmp_path: Path) -> None:
    build = "apiVersion: shipwright.io/v1beta1\nkind: Build\nmetadata:\n  name: app\nspec:\n  strategy:\n    name: buildah\n"
    for env in ("dev", "prod"):
        package(tmp_path / env, mode="pipelineruns")
        (tmp_path / env / "build.yaml").write_text(build)
    code, _, err = cli(tmp_path, "dev/run.yaml", "prod/run.yaml", "dev/build.yaml", "prod/build.yaml")
    assert "twice" not in err and "collide" not in err, err
    assert code == 1  # the runs were rendered
    assert kinds(tmp_path / "dev" / "run.yaml") == kinds(tmp_path / "prod" / "run.yaml") == ["PipelineRun", "StatefulSet"]


def test_nested_package_is_its_own(tmp_path: Path) -> None:
    outer = package(tmp_path / "outer", kptfile="    configPath: coschedule-policy.yaml", mode="pipelineruns")
    inner = package(outer / "inner", kptfile="    configPath: coschedule-policy.yaml", mode="disabled")
    code, _, err = cli(tmp_path, "outer/run.yaml", "outer/inner/run.yaml")
    assert code == 1, err
    assert kinds(outer / "run.yaml") == ["PipelineRun", "StatefulSet"]
    assert (inner / "run.yaml").read_text() == run_doc("r")


def test_realpath_with_a_memo_of_directories_is_os_realpath(tmp_path: Path) -> None:
    """packages.realpath resolves each directory once per memo; every path still resolves as
    os.path.realpath resolves it (links to files and directories, relative and dangling
    links, `..`, doubled slashes, the working directory)."""
    import os

    from krm_fn.io import packages

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.yaml").write_text("")
    (tmp_path / "lnk").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "s.yaml").symlink_to(tmp_path / "a" / "b" / "f.yaml")
    (tmp_path / "a" / "rel.yaml").symlink_to("b/f.yaml")
    (tmp_path / "a" / "dangling.yaml").symlink_to("nowhere")
    d = str(tmp_path)
    cases = [
        f"{d}/a/b/f.yaml", f"{d}/lnk/f.yaml", f"{d}/a/s.yaml", f"{d}/a/rel.yaml", f"{d}/a/dangling.yaml",
        f"{d}/a/../a/b/f.yaml", f"{d}/a/b/..", f"{d}/a/b/.", "f.yaml", "./x.yaml", f"{d}/nope/x.yaml",
        f"{d}//a//b//f.yaml", f"{d}/a/b/",
    ]
    dirs: dict[str, str] = {}
    for c in cases * 2:
        assert packages.realpath(c, dirs) == os.path.realpath(c), c


def test_each_file_is_resolved_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """packages.unique keeps the first name of each file (a link to a named file is that
    file) and gives every name's real path; group and files mode's read_files resolve none
    of them again (three resolutions a file before: an lstat each, for 1,500 files)."""
    import os

    from krm_fn.io import packages
    from krm_fn.modes import files

    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n")
    for n in ("a", "b"):
        (tmp_path / f"{n}.yaml").write_text(PIPELINE)
    (tmp_path / "l.yaml").symlink_to(tmp_path / "b.yaml")
    names = [str(tmp_path / x) for x in ("b.yaml", "a.yaml", "l.yaml", "a.yaml")]
    unique, real = packages.unique(names)
    assert unique == names[:2]
    assert real == {n: os.path.realpath(n) for n in names}
    calls: list[str] = []
    resolve = packages.realpath
    monkeypatch.setattr(packages, "realpath", lambda p, d=None: calls.append(str(p)) or resolve(p, d))
    [pkg] = packages.group(unique, real)
    assert not [c for c in calls if c in unique]
    read, errors = files.read_files(pkg.given, real=pkg.real)
    assert [f.name for f in read] == unique and not errors
    assert not [c for c in calls if c in unique]


def test_krmignore_excludes_files_from_rewriting_and_from_context(tmp_path: Path) -> None:
    """kpt reads a package without the files its `.krmignore` matches (gitignore-style,
    relative to the package root): such a file is neither rewritten, even when named, nor
    read as context (its Pipeline is not the package's)."""
    pkg = package(tmp_path / "pkg", kptfile="    configMap:\n      coschedule: pipelineruns")
    (pkg / "samples").mkdir()
    (pkg / "samples" / "run.yaml").write_text(run_doc("s"))
    (pkg / "scratch.yaml").write_text(run_doc("x"))
    (pkg / ".krmignore").write_text("# local only\n/samples/\nscratch.yaml\n")
    code, _, err = cli(pkg, "--files", "run.yaml", "samples/run.yaml", "scratch.yaml")
    assert code == 1, err
    assert kinds(pkg / "run.yaml") == ["PipelineRun", "StatefulSet"]
    assert (pkg / "samples" / "run.yaml").read_text() == run_doc("s")
    assert (pkg / "scratch.yaml").read_text() == run_doc("x")
    assert "scratch.yaml" not in err and "samples" not in err, err
    # an ignored policy file is not the package's policy: not read as context
    plain = package(tmp_path / "plain", mode="disabled")
    assert cli(plain, "--files", "run.yaml")[0] == 0
    (plain / ".krmignore").write_text("coschedule-policy.yaml\n")
    code, _, err = cli(plain, "--files", "run.yaml")
    assert code == 1, err
    assert kinds(plain / "run.yaml") == ["PipelineRun", "StatefulSet"]


def test_krmignore_patterns_read_as_gitignore() -> None:
    from krm_fn.io.packages import Ignore

    ig = Ignore("*.tmp.yaml\n/top.yaml\nbuild/\ndocs/**/x.yaml\n!keep.tmp.yaml\n\\#hash.yaml\n")
    assert ig.excludes("a.tmp.yaml") and ig.excludes("d/e/a.tmp.yaml")
    assert not ig.excludes("keep.tmp.yaml")
    assert ig.excludes("top.yaml") and not ig.excludes("sub/top.yaml")
    assert ig.excludes("build/run.yaml") and ig.excludes("a/build/run.yaml") and not ig.excludes("build.yaml")
    assert ig.excludes("docs/x.yaml") and ig.excludes("docs/a/b/x.yaml") and not ig.excludes("x.yaml")
    assert ig.excludes("#hash.yaml")
    assert not ig.excludes("run.yaml")


def test_a_config_path_outside_the_package_is_refused_as_kpt_refuses_it(tmp_path: Path) -> None:
    """kpt refuses a `configPath` that leaves the package (it would let a package read any
    YAML file of its consumer's machine); so does the function, with the Kptfile's line, the
    field and the fix, and it writes nothing."""
    (tmp_path / "outside.yaml").write_text(policy("isolate-pipelinerun"))
    for path in ("../outside.yaml", str(tmp_path / "outside.yaml"), "link.yaml"):
        pkg = package(tmp_path / "pkg", kptfile=f"    configPath: {path}")
        if path == "link.yaml":
            (pkg / "link.yaml").symlink_to(tmp_path / "outside.yaml")
        code, _, err = cli(pkg, "--files", "run.yaml")
        assert code == 1, err
        kptfile = pkg / "Kptfile"
        assert f"{kptfile}:10:5: Kptfile pkg: pipeline.mutators[0].configPath `{path}` is outside the package" in err, err
        assert "kpt refuses it" in err and "Move the config into the package" in err
        assert err.count("outside the package") == 1
        assert (pkg / "run.yaml").read_text() == run_doc("r")
        code, _, err = cli(pkg, "explain", "run.yaml")
        assert code == 1 and "outside the package" in err
        import shutil

        shutil.rmtree(pkg)


# --------------------------------------------------------------------------- the package ends rendered

LINT_USES_SRC = PIPELINE.replace("  - name: lint\n    taskRef:", "  - name: lint\n    workspaces:\n    - name: src\n      workspace: src\n    taskRef:")


def rendered_package(d: Path, mode: str | None = None) -> Path:
    """A package rendered whole, with a second run file and a file with nothing to render."""
    pkg = package(d, mode=mode)
    (pkg / "run2.yaml").write_text(run_doc("r2"))
    (pkg / "notes.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n")
    code, _, err = cli(pkg, "--files", *sorted(p.name for p in pkg.glob("*.yaml")))
    assert code == 1, err
    assert cli(pkg, "--files", "--check", *sorted(p.name for p in pkg.glob("*.yaml")))[0] == 0
    return pkg


def full_render(d: Path) -> dict[str, str]:
    """What a render of every file of the package writes (the reference)."""
    cli(d, "--files", *sorted(p.name for p in d.glob("*.yaml")))
    return {p.name: p.read_text() for p in sorted(d.glob("*.yaml"))}


def test_a_pipeline_named_alone_re_renders_the_runs_that_use_it(tmp_path: Path) -> None:
    """pre-commit names only the staged file: a Pipeline edit re-renders every run of the
    package that uses it (a run pinned to the old tasks would be committed stale), as a full
    render would, and writes only the files that change."""
    pkg = rendered_package(tmp_path / "pkg")
    ref = rendered_package(tmp_path / "ref")
    for d in (pkg, ref):
        (d / "pipeline.yaml").write_text(LINT_USES_SRC)
    want = full_render(ref)
    before = {p.name: p.stat().st_mtime_ns for p in pkg.glob("*.yaml")}
    code, _, err = cli(pkg, "--files", "--check", "pipeline.yaml")
    assert code == 1, err
    assert "would rewrite run.yaml" in err and "would rewrite run2.yaml" in err, err
    assert "notes.yaml" not in err
    assert {p.name: p.stat().st_mtime_ns for p in pkg.glob("*.yaml")} == before  # --check writes nothing
    code, _, err = cli(pkg, "--files", "pipeline.yaml")
    assert code == 1, err
    assert "2 file(s) rewritten, 0 failed, 1 unchanged" in err, err  # the Pipeline; the others unnamed, unchanged
    assert {p.name: p.read_text() for p in sorted(pkg.glob("*.yaml"))} == want
    assert "lint" in (pkg / "run.yaml").read_text()
    after = {p.name: p.stat().st_mtime_ns for p in pkg.glob("*.yaml")}
    assert after["notes.yaml"] == before["notes.yaml"] and after["pipeline.yaml"] == before["pipeline.yaml"]
    assert cli(pkg, "--files", "pipeline.yaml")[0] == 0


def test_a_policy_or_kptfile_named_alone_re_renders_every_run(tmp_path: Path) -> None:
    pkg = rendered_package(tmp_path / "pkg", mode="workspaces")
    (pkg / "coschedule-policy.yaml").write_text(policy("pipelineruns"))
    code, _, err = cli(pkg, "--files", "coschedule-policy.yaml")
    assert code == 1, err
    assert "rewrote run.yaml" in err and "rewrote run2.yaml" in err
    assert cli(pkg, "--files", "--check", "run.yaml", "run2.yaml", "pipeline.yaml")[0] == 0

    kpt = package(tmp_path / "kpt", kptfile="    configMap:\n      coschedule: workspaces")
    assert cli(kpt, "--files", "run.yaml", "pipeline.yaml")[0] == 1
    (kpt / "Kptfile").write_text(KPTFILE.format(config="    configMap:\n      coschedule: disabled"))
    code, _, err = cli(kpt, "--files", "Kptfile")
    assert code == 1, err
    assert kinds(kpt / "run.yaml") == ["PipelineRun"]  # disabled: the assistant is removed
    assert cli(kpt, "--files", "--check", "run.yaml")[0] == 0

    cfg = package(tmp_path / "cfg", kptfile="    configPath: cfg/policy.yaml")
    (cfg / "cfg").mkdir()
    (cfg / "cfg" / "policy.yaml").write_text(policy("workspaces"))
    assert cli(cfg, "--files", "run.yaml", "pipeline.yaml")[0] == 1
    (cfg / "cfg" / "policy.yaml").write_text(policy("disabled"))
    code, _, err = cli(cfg, "--files", "cfg/policy.yaml")
    assert code == 1, err
    assert kinds(cfg / "run.yaml") == ["PipelineRun"]


def test_a_run_named_alone_leaves_the_other_runs_as_context(tmp_path: Path) -> None:
    """One run file named: the package's other runs are read, not rendered, and not listed."""
    pkg = rendered_package(tmp_path / "pkg")
    (pkg / "run2.yaml").write_text(run_doc("r2"))  # stale, and not named
    code, _, err = cli(pkg, "--files", "--check", "run.yaml")
    assert code == 0, err
    assert "run2.yaml" not in err


# --------------------------------------------------------------------------- identity in a package


def test_a_claim_template_is_never_lost_to_a_run_of_the_same_name(tmp_path: Path) -> None:
    """x.yaml's run `r` is rendered (its placeholder holds the 1Gi claim); y.yaml has a run
    `r` too with a 5Gi claim template. Named alone, y.yaml was rewritten to bind x's 1Gi
    claim, no StatefulSet written, no word. Now the verdict is that of naming both files:
    an error on both, nothing written."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "pipeline.yaml").write_text(PIPELINE)
    (pkg / "x.yaml").write_text(run_doc("r"))
    assert cli(pkg, "--files", "x.yaml", "pipeline.yaml")[0] == 1
    y = run_doc("r").replace("1Gi", "5Gi")
    (pkg / "y.yaml").write_text(y)
    x = (pkg / "x.yaml").read_text()
    verdicts = []
    for named in (["y.yaml"], ["x.yaml", "y.yaml"], ["y.yaml", "x.yaml"], ["x.yaml"]):
        code, _, err = cli(pkg, "--files", *named)
        assert code == 1, err
        assert (pkg / "y.yaml").read_text() == y and (pkg / "x.yaml").read_text() == x
        # the same errors, whichever files are named (the list positions differ)
        lines = sorted(re.sub(r"items\[\d+\]", "items[N]", line) for line in err.splitlines() if "[error]" in line)
        assert len(lines) == 2 and all("PipelineRun twice" in line for line in lines), err
        verdicts.append(lines)
    assert all(v == verdicts[0] for v in verdicts)


def test_two_standalone_task_runs_of_one_name_are_a_warning(tmp_path: Path) -> None:
    """Nothing is generated for a TaskRun without claims: two `smoke` TaskRuns in two files
    are a warning on each (Kubernetes keeps one object per name), rendered, whichever file
    is named."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    smoke = "apiVersion: tekton.dev/v1\nkind: TaskRun\nmetadata:\n  name: smoke\nspec:\n  taskRef:\n    name: t\n"
    (pkg / "a.yaml").write_text(smoke)
    (pkg / "b.yaml").write_text(smoke)
    for named in (["a.yaml"], ["b.yaml"], ["a.yaml", "b.yaml"]):
        code, _, err = cli(pkg, "--files", *named)
        assert code == 0, err
        assert err.count("[warning]") == 2 and "TaskRun twice" in err, err
        assert "[error]" not in err


COLLIDING = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: {name}
spec:
  pipelineSpec:
    workspaces:
    - name: w
    tasks:
    - name: t
      workspaces:
      - name: w
        workspace: w
      taskSpec:
        steps:
        - image: busybox
          script: "true"
  workspaces:
  - name: {ws}
    volumeClaimTemplate:
      spec:
        resources:
          requests:
            storage: 1Gi
"""


def test_names_that_hash_alike_are_an_error_naming_both_runs(tmp_path: Path) -> None:
    """Tekton's assistant name hashes the workspace name and the run name with no separator:
    run `run1` with workspace `source` and run `cerun1` with workspace `sour` get one
    StatefulSet and one claim. An error on both runs, naming each other and the fix,
    whichever file is named, before or after either is rendered."""
    from krm_fn.transforms.tekton import names

    assert names.assistant_name("source", "run1") == names.assistant_name("sour", "cerun1")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    one = COLLIDING.format(name="run1", ws="source").replace("- name: w\n    tasks", "- name: source\n    tasks").replace("workspace: w", "workspace: source")
    two = COLLIDING.format(name="cerun1", ws="sour").replace("- name: w\n    tasks", "- name: sour\n    tasks").replace("workspace: w", "workspace: sour")
    (pkg / "one.yaml").write_text(one)
    (pkg / "two.yaml").write_text(two)
    for named in (["one.yaml"], ["two.yaml"], ["one.yaml", "two.yaml"]):
        code, _, err = cli(pkg, "--files", *named)
        assert code == 1, err
        assert (pkg / "one.yaml").read_text() == one and (pkg / "two.yaml").read_text() == two
        errors = [line for line in err.splitlines() if "[error]" in line]
        assert len(errors) == 2, err
        assert any("PipelineRun/run1" in e and "PipelineRun cerun1" in e for e in errors), err
        assert any("PipelineRun/cerun1" in e and "PipelineRun run1" in e for e in errors), err
        assert all("Rename a workspace binding or one of the runs" in e for e in errors)
    # one rendered alone first (in its own directory), then the two meet in one package
    (tmp_path / "solo").mkdir()
    (tmp_path / "solo" / "one.yaml").write_text(one)
    assert cli(tmp_path / "solo", "--files", "one.yaml")[0] == 1
    (pkg / "one.yaml").write_text((tmp_path / "solo" / "one.yaml").read_text())
    code, _, err = cli(pkg, "--files", "two.yaml")
    assert code == 1 and "[error]" in err and "run1" in err and "cerun1" in err, err
    assert (pkg / "two.yaml").read_text() == two


def test_a_krmignore_that_is_a_fifo_is_not_read(tmp_path: Path) -> None:
    """The package's .krmignore goes through the one reader like every other file: a FIFO
    there (anyone's repository can hold one) is refused at once, not waited on; it then
    excludes nothing."""
    import os
    import subprocess
    import sys

    (tmp_path / "run.yaml").write_text(run_doc("r"))
    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    os.mkfifo(tmp_path / ".krmignore")
    p = subprocess.run([sys.executable, "-m", "krm_fn", "--check", "run.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    assert "would rewrite run.yaml" in p.stderr, p.stderr


def test_a_krmignore_over_its_limit_is_not_read(tmp_path: Path) -> None:
    """A `.krmignore` over MAX_KRMIGNORE_BYTES excludes nothing, and the one reader refuses
    it by its size, before a byte is read."""
    from krm_fn.io import packages
    from krm_fn.io import reader

    (tmp_path / ".krmignore").write_text("scratch.yaml\n" + "#" * packages.MAX_KRMIGNORE_BYTES)
    assert packages.krmignore(tmp_path) is None
    try:
        reader.read_bytes(tmp_path / ".krmignore", limit=packages.MAX_KRMIGNORE_BYTES)
    except reader.FileRefused as e:
        assert "the function reads files of at most 1 MiB" in str(e)
    else:
        raise AssertionError("a file over the limit was read")
    (tmp_path / ".krmignore").write_text("scratch.yaml\n")
    ignore = packages.krmignore(tmp_path)
    assert ignore is not None and ignore.excludes("scratch.yaml")
