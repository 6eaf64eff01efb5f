"""The console script: modes chosen by arguments, --help for `kpt fn doc`, the installer."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from conftest import VENV_BIN

from krm_fn.cli import main
from krm_fn.cli import usage
from krm_fn.modes import kustomize
from krm_fn.modes.krm import run_resource_list

EXE = VENV_BIN / "krm-coschedule"
QUICKSTART = ROOT / "examples" / "quickstart" / "resourcelist.yaml"
POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: workspaces\n"


def _run(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    assert EXE.exists(), f"{EXE} missing: pip install -e '.[test]' into the venv"
    return subprocess.run([str(EXE), *args], input=stdin, capture_output=True, cwd=cwd, check=False)


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_help_on_stdout(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([flag]) == 0
    cap = capsys.readouterr()
    assert cap.out == usage() and cap.err == ""
    for mode in ("krm-coschedule CONFIG", "--config POLICY", "explain", "install-kustomize-plugin"):
        assert mode in cap.out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("krm-coschedule 0.")


def test_krm_mode_is_the_resource_list_path() -> None:
    data = QUICKSTART.read_bytes()
    p = _run(stdin=data)
    out, _outcome, code = run_resource_list(data)
    assert p.returncode == code == 0
    assert p.stdout.decode() == out
    assert b"error(s)" in p.stderr


def test_krm_mode_error_still_prints_a_list() -> None:
    p = _run(stdin=b"kind: Deployment\n")
    assert p.returncode == 1
    assert p.stdout.startswith(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n")


def test_plugin_mode(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    stream = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n# keep\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
    p = _run(str(tmp_path / "policy.yaml"), stdin=stream)
    assert p.returncode == 0, p.stderr
    assert p.stdout == stream
    # kustomize passes a config file it wrote: a path that does not exist is a file named to
    # be rendered, and said missing (issue 33), not a plugin config that "cannot be read"
    p = _run(str(tmp_path / "missing.yaml"), stdin=stream)
    assert p.returncode == 1 and p.stdout == b""
    assert b"missing.yaml: [error] cannot be read: No such file or directory" in p.stderr


def test_bad_arguments() -> None:
    p = _run("--nope", "a.yaml")
    assert p.returncode == 2
    assert b"unrecognized arguments: --nope" in p.stderr


def test_files_mode_without_config_uses_defaults(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    p = _run("--files", "a.yaml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert b"0 file(s) rewritten" in p.stderr


def test_files_mode_bad_config(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("a: [\n")
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    p = _run("--config", "policy.yaml", "a.yaml", cwd=tmp_path)
    assert p.returncode == 1
    assert b"policy.yaml is not valid YAML" in p.stderr


def test_install_kustomize_plugin(tmp_path: Path) -> None:
    home = tmp_path / "plugins"
    p = _run("install-kustomize-plugin", "--plugin-home", str(home))
    assert p.returncode == 0, p.stderr
    exe = home / "fn.kpt.dev" / "v1alpha1" / "coschedulepolicy" / "CoschedulePolicy"
    assert f"installed {exe}" in p.stdout.decode()
    assert exe.stat().st_mode & 0o777 == 0o755
    text = exe.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert f'exec {EXE} "$@"\n' in text
    # idempotent, and the installed plugin really is the function
    assert _run("install-kustomize-plugin", "--plugin-home", str(home)).returncode == 0
    assert sorted(x.name for x in exe.parent.iterdir()) == ["CoschedulePolicy"]
    (tmp_path / "policy.yaml").write_text(POLICY)
    stream = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
    r = subprocess.run([str(exe), str(tmp_path / "policy.yaml")], input=stream, capture_output=True, check=False)
    assert r.returncode == 0 and r.stdout == stream


def test_default_plugin_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KUSTOMIZE_PLUGIN_HOME", str(tmp_path / "k"))
    assert kustomize.default_plugin_home() == tmp_path / "k"
    monkeypatch.delenv("KUSTOMIZE_PLUGIN_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "x"))
    assert kustomize.default_plugin_home() == tmp_path / "x" / "kustomize" / "plugin"


def test_plugin_script_quotes_paths() -> None:
    script = kustomize.plugin_script(["/opt/my venv/bin/krm-coschedule"])
    assert "exec '/opt/my venv/bin/krm-coschedule' \"$@\"\n" in script


def test_python_m_works() -> None:
    p = subprocess.run([str(VENV_BIN / "python"), "-m", "krm_fn", "--help"], capture_output=True, check=False, env={**os.environ})
    assert p.returncode == 0 and p.stdout.decode() == usage()


# Start-up (#5): what the KRM path imports before it reads stdin. Each of these costs 2 to 20 ms
# and a one-PipelineRun run needs none of them; import them inside the function that does.
HEAVY_AT_START = {
    "typing", "dataclasses", "inspect", "ast", "hashlib", "_hashlib", "datetime", "argparse",
    "pathlib", "tempfile", "difflib", "subprocess", "shlex", "importlib.resources", "jsonschema",
    "yaml", "ruamel.yaml", "json",
    "re", "enum", "functools", "collections",  # core/patterns imports re on first use (issue 34)
}
KRM_PATH_MODULES = (
    "krm_fn.cli", "krm_fn.orchestration.process", "krm_fn.policy.config", "krm_fn.io.resourcelist", "krm_fn.yaml.emitter", "krm_fn.transforms.tekton.handlers",
    "krm_fn.transforms.shipwright", "krm_fn.transforms.scheduling", "krm_fn.transforms.tekton.assistant", "krm_fn.transforms.tekton.names", "krm_fn.policy.validation",
    "krm_fn.policy.hardening", "krm_fn.yaml.roundtrip.comments", "krm_fn.core.results", "krm_fn.yaml.light.parser", "krm_fn.yaml.light.scalars", "krm_fn.modes.krm", "krm_fn.transforms.context",
    "krm_fn.yaml.document", "krm_fn.io.items", "krm_fn.io.scanner", "krm_fn.yaml.guards", "krm_fn.core.errors", "krm_fn.core.keys",
    "krm_fn.yaml.layout",
)


def test_krm_path_modules_import_nothing_heavy() -> None:
    import sys

    # -S: no site, so neither the editable-install finder nor .pth files add modules of their own
    code = (
        f"import importlib, sys; sys.path.insert(0, {str(ROOT)!r}); before = set(sys.modules)\n"
        f"for m in {KRM_PATH_MODULES!r}: importlib.import_module(m)\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert set(KRM_PATH_MODULES) <= loaded
    assert "itertools" in loaded  # the probe sees the stdlib modules the package does import
    assert sorted(loaded & HEAVY_AT_START) == []


# What a one-PipelineRun KRM run (the console script's main, as kpt starts it) must not load:
# the round-trip and schema libraries, json, the other modes' modules; and the patterns that
# are compiled on first use only. (The package's own small modules are imported at the top
# where they are used: each costs 0.1-0.6 ms, which a deferred import does not earn back.)
# (This probe imports `re` itself, to watch what is compiled: tests/suites/project/
# test_cold_start.py checks that a run without it loads none of what `re` brings.)
NOT_IN_A_ONE_RUN = (HEAVY_AT_START - {"re", "enum", "functools", "collections"}) | {
    "ruamel", "_ruamel_yaml", "krm_fn.modes.files", "krm_fn.io.streams", "krm_fn.io.packages", "krm_fn.modes.kustomize",
    "krm_fn.modes.explain",
    "copy", "weakref",  # core.data.copy_data copies the plain data transforms need
}


def test_a_one_pipelinerun_run_loads_and_compiles_only_what_it_uses() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import gen  # type: ignore[import-not-found]

    from krm_fn.io import items
    from krm_fn.io import resourcelist
    from krm_fn.io import scanner
    from krm_fn.policy import validation
    from krm_fn.yaml import emitter
    from krm_fn.yaml import guards

    data = gen.generate(1, 1.0, 1).encode()
    # -S and the source tree first, as above: no editable-install finder adds modules of its own
    code = (
        f"import re, sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "compiler = getattr(re, '_compiler', None) or __import__('sre_compile')\n"
        "compiled, real = [], compiler.compile\n"
        "def spy(p, flags=0):\n"
        "    compiled.append(p)\n"
        "    return real(p, flags)\n"
        "compiler.compile = spy\n"
        "sys.argv = ['krm-coschedule']\n"
        "from krm_fn import cli\n"
        "code = cli.main()\n"
        "sys.stderr.write('\\n@@' + repr((code, sorted(sys.modules), compiled, cli._CONTROL is None)))\n"
    )
    p = subprocess.run([sys.executable, "-S", "-c", code], input=data, capture_output=True, check=True)
    status, modules, compiled, no_control = eval(p.stderr.decode().split("\n@@")[1])  # noqa: S307 - our own repr
    assert status == 0 and p.stdout.decode() == run_resource_list(data)[0]
    assert "krm_fn.transforms.tekton.handlers" in modules and "re" in modules  # the probe sees what the run loads
    assert sorted(m for m in modules if m in NOT_IN_A_ONE_RUN or m.split(".")[0] in NOT_IN_A_ONE_RUN) == []
    lazy = {
        emitter._NUMBER, emitter._TIMESTAMP, resourcelist._NON_PRINTABLE, resourcelist._ALIAS, scanner._ALIAS_RE,
        guards._ANCHOR_RE, guards._BRACKET_RE, guards._SURROGATE_ESCAPE, guards._LONE_SURROGATE, items._AT_LINE,
        items._LINES, validation._DNS1123_LABEL_FMT, validation._DNS1123_SUBDOMAIN_FMT,
    }
    assert sorted(p for p in compiled if p in lazy) == []
    assert no_control  # nothing on stderr needed escaping: printable() compiled nothing


def test_help_names_every_configmap_key(capsys: pytest.CaptureFixture[str]) -> None:
    """From the table the parser reads: `--help` named 7 of the 11 keys."""
    from krm_fn.policy.configmap import CONFIGMAP_KEYS

    assert main(["--help"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert all(f"{k}," in flat or f"{k}." in flat for k in CONFIGMAP_KEYS)


KPT_POLICY_DUPLICATE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
    annotations:
      internal.config.kubernetes.io/path: 'c.yaml'
      internal.config.kubernetes.io/index: '0'
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata:
    name: coschedule
    annotations:
      config.kubernetes.io/local-config: "true"
      internal.config.kubernetes.io/path: 'coschedule-policy.yaml'
      config.kubernetes.io/path: 'coschedule-policy.yaml'
  spec:
    coschedule: workspaces
    strategy: auto
    coschedule: pipelineruns
"""


def test_under_kpt_a_policy_error_names_the_policy_file_not_kpts_lines() -> None:
    """kpt fn render passes the policy inside its own serialization: its lines (here 21 and
    23, or section-relative 11 and 13) are no file's; the result names the policy's file."""
    import yaml

    out, outcome, code = run_resource_list(KPT_POLICY_DUPLICATE.encode())
    assert code == 1 and outcome is None
    (r,) = yaml.safe_load(out)["results"]
    assert r["file"] == {"path": "coschedule-policy.yaml", "index": 0}
    assert r["message"].startswith("coschedule-policy.yaml: functionConfig is not valid YAML: duplicate key 'coschedule' at functionConfig.spec.coschedule")
    assert "line" not in r["message"]


def test_without_kpts_annotations_the_inputs_lines_stay() -> None:
    """A ResourceList a person wrote: its lines are theirs."""
    import yaml

    plain = "\n".join(ln for ln in KPT_POLICY_DUPLICATE.splitlines() if "config.kubernetes.io/path" not in ln) + "\n"
    (r,) = yaml.safe_load(run_resource_list(plain.encode())[0])["results"]
    assert "(lines " in r["message"] and "file" not in r
