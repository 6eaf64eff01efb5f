"""The container image, built and run for real: tests/container/build.sh builds it from the
Dockerfile with podman (a local base where Docker Hub is unreachable), then it runs the way
kpt runs a function (`podman run --rm -i --network none --user nobody
--security-opt=no-new-privileges`, plus a read-only root), and under kpt itself
(`KPT_FN_RUNTIME=podman kpt fn eval --image` and a Kptfile `image:` with `kpt fn render`).
Every output is compared byte for byte with the exec run (the venv's krm-coschedule).

podman missing: the tests skip, and fail in CI (.ci/run installs it and configures it with
tests/container/setup-podman.sh). podman present but unable to build or run: they fail,
with podman's error.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES
from conftest import ROOT
from conftest import VENV_BIN
from conftest import require_tool
from e2e_util import copy_package
from e2e_util import package_diff
from e2e_util import snapshot

pytestmark = pytest.mark.e2e

IMAGE = os.environ.get("KRM_COSCHEDULE_IMAGE", "localhost/krm-coschedule:dev")
BUILD = ROOT / "tests" / "container" / "build.sh"
SETUP = ROOT / "tests" / "container" / "setup-podman.sh"
PIPCONF = ROOT / "tests" / "container" / "pipconf.py"
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
QUICKSTART = ROOT / "examples" / "quickstart" / "resourcelist.yaml"
EXAMPLES = sorted(p.parent for p in (ROOT / "examples").glob("*/Kptfile"))
CASES = sorted(p.parent for p in FIXTURES.glob("*/input.yaml"))
EXEC_LINE = "  - exec: krm-coschedule\n"
IMAGE_LINE = f"  - image: {IMAGE}\n"
# how kpt runs a function (kpt 1.0: `podman run --rm -i --network none --user nobody
# --security-opt=no-new-privileges --pull missing IMAGE`), with a read-only root as well
KPT_RUN = ["run", "--rm", "-i", "--network", "none", "--user", "nobody", "--security-opt=no-new-privileges", "--read-only"]


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@functools.cache
def _prepare() -> tuple[str, str]:
    """(podman's path, "") with the image built from the Dockerfile as it is now, else
    ("", why not). Done once per session, reported by every test. Built with --no-cache:
    a cached pip step would hide what fails on a fresh machine, as CI is (it hid a pip
    constraints file the build could not read); the base image stays cached."""
    path = shutil.which("podman")
    if path is None:
        return "", (
            "podman is not installed, so the container image cannot be built and run; "
            f"as root, {SETUP.relative_to(ROOT)} installs it from Debian's packages (.ci/run does)"
        )
    p = subprocess.run(["bash", str(BUILD), "--no-cache"], capture_output=True, text=True, timeout=1800, check=False)
    if p.returncode != 0:
        return "", f"{BUILD.relative_to(ROOT)} failed (exit {p.returncode}):\n{p.stderr[-4000:]}\n{p.stdout[-4000:]}"
    p = subprocess.run([path, *KPT_RUN, IMAGE, "--help"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)
    if p.returncode != 0:
        return "", (
            f"podman cannot run the image on this machine (exit {p.returncode}): {p.stderr.strip()}\n"
            f"as root, {SETUP.relative_to(ROOT)} configures podman where a known workaround exists"
        )
    return path, ""


def _podman() -> str:
    """podman, ready; the test fails (never skips in CI) when it is not, and says why."""
    path, why = _prepare()
    if path:
        return path
    if shutil.which("podman") is None and not _in_ci():
        pytest.skip(why)
    pytest.fail(why + (" [required in CI]" if _in_ci() else ""), pytrace=False)


def _container(podman: str, stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([podman, *KPT_RUN, IMAGE, *args], input=stdin, capture_output=True, timeout=120, check=False)


def _exec(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(VENV_BIN / "krm-coschedule"), *args], input=stdin, capture_output=True, timeout=120, check=False)


def _same_run(got: subprocess.CompletedProcess[bytes], want: subprocess.CompletedProcess[bytes]) -> None:
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr
    assert got.returncode == want.returncode


def test_quickstart_as_kpt_runs_it() -> None:
    podman = _podman()
    stdin = QUICKSTART.read_bytes()
    got = _container(podman, stdin)
    assert got.returncode == 0, got.stderr
    assert b"\nkind: ResourceList\n" in got.stdout
    _same_run(got, _exec(stdin))


def _resource_list(case: Path) -> bytes:
    """input.yaml (a ResourceList) with config.yaml, when there is one, as its functionConfig."""
    text = (case / "input.yaml").read_text()
    cfg = case / "config.yaml"
    if cfg.exists():
        body = "".join("  " + line if line.strip() else line for line in cfg.read_text().splitlines(True))
        text = text.rstrip("\n") + "\nfunctionConfig:\n" + body
    return text.encode()


def test_fixtures_as_kpt_runs_them() -> None:
    """Every fixture (errors and warnings included) gives the same bytes, stderr and exit
    code in the container as on the host."""
    podman = _podman()
    assert len(CASES) >= 20
    codes = set()
    for case in CASES:
        stdin = _resource_list(case)
        want = _exec(stdin)
        codes.add(want.returncode)
        try:
            _same_run(_container(podman, stdin), want)
        except AssertionError as e:
            raise AssertionError(f"fixture {case.name}: {e}") from e
    assert codes >= {0, 1}, "the fixtures should include failing runs"


def test_help_and_kpt_fn_doc() -> None:
    podman = _podman()
    _same_run(_container(podman, b"", "--help"), _exec(b"", "--help"))
    kpt = require_tool("kpt")
    p = subprocess.run([kpt, "fn", "doc", "--image", IMAGE], capture_output=True, text=True, env=_kpt_env(), timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    # kpt prints the function's --help stdout and a newline of its own
    assert p.stdout == _exec(b"", "--help").stdout.decode() + "\n"


def test_no_build_configuration_in_the_image(tmp_path: Path) -> None:
    """The pip configuration build.sh mounts for the build (pipconf.py's: pip.conf,
    constraints files, find-links, local indexes, a CA bundle) stays outside; the
    system CA bundle is the base image's own."""
    podman = _podman()
    mounts = subprocess.run([sys.executable, str(PIPCONF), str(tmp_path / "pip.conf")], capture_output=True, text=True, timeout=60, check=True).stdout
    paths = ["/etc/pip.conf", "/opt/krm-coschedule/pip.conf", *(m for m in mounts.splitlines() if m != SYSTEM_BUNDLE)]
    probe = "import os, sys; print([p for p in sys.argv[1:] if os.path.exists(p)])"
    p = subprocess.run(
        [podman, *KPT_RUN, "--entrypoint", "python", IMAGE, "-c", probe, *paths], capture_output=True, text=True, timeout=120, check=False
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == "[]\n"


def test_the_images_console_script_imports_no_re() -> None:
    """The Dockerfile upgrades pip before it installs krm_fn: pip before 25.2 wrote a console
    script that imports `re` first, a quarter of a small input's start-up (issue 34)."""
    podman = _podman()
    probe = "import sys; sys.stdout.write(open('/opt/krm-coschedule/bin/krm-coschedule').read())"
    p = subprocess.run([podman, *KPT_RUN, "--entrypoint", "python", IMAGE, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    assert "from krm_fn.cli import main" in p.stdout
    assert [line for line in p.stdout.splitlines() if line.strip() in ("import re", "import re, sys")] == []


def _kpt_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["KPT_FN_RUNTIME"] = "podman"
    return env


def _kpt(*args: str | Path) -> subprocess.CompletedProcess[str]:
    kpt = require_tool("kpt")
    return subprocess.run([kpt, *map(str, args)], capture_output=True, text=True, env=_kpt_env(), timeout=600, check=False)


def _results(results_dir: Path) -> dict:
    """kpt's results, the function named as the exec run names it. kpt strips the trailing
    newline of a container's stderr (not an exec's): that difference is kpt's."""
    data = yaml.safe_load((results_dir / "results.yaml").read_text())
    for item in data.get("items") or []:
        if item.pop("image", None) == IMAGE:
            item["exec"] = "krm-coschedule"
        if "stderr" in item:
            item["stderr"] = item["stderr"].rstrip("\n")
    return data


def _same_package(got: Path, want: Path) -> None:
    a, b = snapshot(got), snapshot(want)
    if "Kptfile" in a:
        a["Kptfile"] = a["Kptfile"].replace(IMAGE_LINE.encode(), EXEC_LINE.encode())
    assert a == b, package_diff(b, a)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_kpt_fn_eval_image(example: Path, tmp_path: Path) -> None:
    _podman()
    img = copy_package(example, tmp_path / "image" / example.name)
    exe = copy_package(example, tmp_path / "exec" / example.name)
    p = _kpt("fn", "eval", img, "--image", IMAGE, "--fn-config", img / "coschedule-policy.yaml", "--results-dir", tmp_path / "r-image")
    q = _kpt("fn", "eval", exe, "--exec", "krm-coschedule", "--fn-config", exe / "coschedule-policy.yaml", "--results-dir", tmp_path / "r-exec")
    assert q.returncode == 0, q.stderr
    assert p.returncode == 0, p.stderr
    assert snapshot(img) != snapshot(example) or example.name == "coschedule-disabled"
    _same_package(img, exe)
    assert _results(tmp_path / "r-image") == _results(tmp_path / "r-exec")


def _render_both(
    example: Path, tmp_path: Path, edit: Callable[[Path], None] | None = None
) -> tuple[Path, Path, subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    img = copy_package(example, tmp_path / "image" / example.name)
    exe = copy_package(example, tmp_path / "exec" / example.name)
    kptfile = (img / "Kptfile").read_text()
    assert EXEC_LINE in kptfile
    (img / "Kptfile").write_text(kptfile.replace(EXEC_LINE, IMAGE_LINE))
    if edit:
        edit(img)
        edit(exe)
    p = _kpt("fn", "render", img, "--results-dir", tmp_path / "r-image")
    q = _kpt("fn", "render", "--allow-exec", exe, "--results-dir", tmp_path / "r-exec")
    return img, exe, p, q


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_kptfile_image_render(example: Path, tmp_path: Path) -> None:
    _podman()
    img, exe, p, q = _render_both(example, tmp_path)
    assert q.returncode == 0, q.stderr
    assert p.returncode == 0, p.stderr
    assert f'[PASS] "{IMAGE}"' in p.stderr + p.stdout
    _same_package(img, exe)
    assert _results(tmp_path / "r-image") == _results(tmp_path / "r-exec")


def test_kptfile_image_render_error(tmp_path: Path) -> None:
    """A policy error: kpt fails the same way, with the same results, and writes nothing."""
    _podman()

    def bad_policy(pkg: Path) -> None:
        policy = pkg / "coschedule-policy.yaml"
        policy.write_text(policy.read_text().replace("coschedule: workspaces", "coschedule: sideways"))

    example = ROOT / "examples" / "coschedule-workspaces"
    img, exe, p, q = _render_both(example, tmp_path, bad_policy)
    assert q.returncode != 0
    assert p.returncode == q.returncode, p.stderr
    assert "sideways" in p.stderr + p.stdout
    _same_package(img, exe)
    assert _results(tmp_path / "r-image") == _results(tmp_path / "r-exec")
    assert any(i.get("exitCode") for i in _results(tmp_path / "r-image")["items"])
