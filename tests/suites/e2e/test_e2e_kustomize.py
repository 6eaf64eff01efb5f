"""End-to-end with the real `kubectl kustomize --enable-alpha-plugins`: the legacy exec
plugin installed by `krm-coschedule install-kustomize-plugin`, and the KRM exec function
form that kubectl silently skips. Regenerate expected output with KRM_UPDATE_EXPECTED=1."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import fake_transform
import pytest
from conftest import ROOT
from conftest import VENV_BIN
from conftest import require_tool
from e2e_util import check_expected
from e2e_util import copy_package
from e2e_util import documents
from e2e_util import normalized
from e2e_util import stdin_objects

from krm_fn.modes import kustomize

pytestmark = pytest.mark.e2e

PLUGIN_EXAMPLE = ROOT / "examples" / "kustomize" / "plugin"
EXEC_EXAMPLE = ROOT / "examples" / "kustomize" / "exec-function"
RESOURCES = ["pipeline.yaml", "pipelinerun.yaml"]


def _kustomize(directory: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    kubectl = require_tool("kubectl")
    return subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(directory)],
        capture_output=True, text=True, env=env, check=False,
    )


def _env(plugin_home: Path, path_first: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["KUSTOMIZE_PLUGIN_HOME"] = str(plugin_home)
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_plugin_example(tmp_path: Path) -> None:
    home = tmp_path / "plugins"
    p = subprocess.run([str(VENV_BIN / "krm-coschedule"), "install-kustomize-plugin", "--plugin-home", str(home)], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    app = copy_package(PLUGIN_EXAMPLE, tmp_path / "app")
    p = _kustomize(app, _env(home))
    assert p.returncode == 0, p.stderr
    check_expected(PLUGIN_EXAMPLE / ".expected" / "build.yaml", p.stdout)
    # the same objects as the function makes of the same input on stdin
    assert normalized(documents(p.stdout)) == stdin_objects([app / r for r in RESOURCES], app / "coschedule-policy.yaml")


def test_plugin_with_a_transform_that_generates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "plugins"
    kustomize.install(home, [str(fake_transform.write_wrapper(tmp_path / "bin"))])
    app = copy_package(PLUGIN_EXAMPLE, tmp_path / "app")
    p = _kustomize(app, _env(home))
    assert p.returncode == 0, p.stderr
    docs = documents(p.stdout)
    kinds = sorted(d["kind"] for d in docs)
    assert kinds == ["Pipeline", "PipelineRun", "StatefulSet"]
    sts = next(d for d in docs if d["kind"] == "StatefulSet")
    assert sts["metadata"]["annotations"] == {"krm-coschedule.dev/owner": "PipelineRun/build-and-test-1"}
    from krm_fn.orchestration import process

    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), fake_transform.handle_pipelinerun)
    assert normalized(docs) == stdin_objects([app / r for r in RESOURCES], app / "coschedule-policy.yaml")


def test_plugin_error_fails_the_build(tmp_path: Path) -> None:
    home = tmp_path / "plugins"
    kustomize.install(home, [str(fake_transform.write_wrapper(tmp_path / "bin"))])
    app = copy_package(PLUGIN_EXAMPLE, tmp_path / "app")
    run = app / "pipelinerun.yaml"
    run.write_text(run.read_text().replace("  labels:\n", f"  annotations:\n    {fake_transform.ERROR_ANNOTATION}: x\n  labels:\n"))
    p = _kustomize(app, _env(home))
    assert p.returncode != 0
    assert "fake error requested by the test" in p.stderr
    assert "nothing was changed" in p.stderr
    assert p.stdout == ""


def test_kubectl_skips_exec_functions_silently(tmp_path: Path) -> None:
    """Documented in docs/integrations/kustomize-exec.md: kubectl has no --enable-exec, and with
    --enable-alpha-plugins it skips a `config.kubernetes.io/function` exec entry without a
    word. A `krm-coschedule` on PATH that would leave a mark proves it never ran."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "ran"
    exe = bin_dir / "krm-coschedule"
    exe.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    exe.chmod(0o755)
    app = copy_package(EXEC_EXAMPLE, tmp_path / "app")
    p = _kustomize(app, _env(tmp_path / "no-plugins", bin_dir))
    assert p.returncode == 0, p.stderr
    assert not marker.exists()
    assert sorted(d["kind"] for d in documents(p.stdout)) == ["Pipeline", "PipelineRun"]
    assert "volumeClaimTemplate" in p.stdout  # untouched
