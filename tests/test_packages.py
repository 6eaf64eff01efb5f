"""Packages, not file lists (krm_fn/io/packages.py): every FILE belongs to a package (up to the
nearest Kptfile, else its directory); the package's other YAML files are context; its policy
comes from its Kptfile or a CoschedulePolicy file in it; collisions are per package."""
from __future__ import annotations

from pathlib import Path

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
