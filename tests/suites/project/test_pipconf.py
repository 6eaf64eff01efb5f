"""tests/container/pipconf.py, driven with a pip configuration of the test's own (a config
file through PIP_CONFIG_FILE, PIP_* variables): what it writes for the build's pip and
which host paths it asks build.sh to mount. A path pip reads (a constraints or
requirements file) is mounted; one that cannot be (relative, missing, a URL) is left out
with a notice, since pip in the build would fail on it: this machine's
/etc/xdg/pip/pip.conf names a constraints file, and a cold build failed with "Could not
open requirements file"."""
from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PIPCONF = ROOT / "tests" / "container" / "pipconf.py"


def _run(tmp_path: Path, config: str = "", **env: str) -> tuple[configparser.ConfigParser, list[str], str]:
    """(the written configuration, the mounts, stderr). The host's pip configuration is
    kept out except /etc/pip.conf, which pip always reads."""
    (tmp_path / "given.conf").write_text(config)
    base = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    base.update(
        PIP_CONFIG_FILE=str(tmp_path / "given.conf"),
        XDG_CONFIG_DIRS=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
        HOME=str(tmp_path / "home"),
    )
    base.update(env)
    out = tmp_path / "out.conf"
    p = subprocess.run([sys.executable, str(PIPCONF), str(out)], capture_output=True, text=True, env=base, cwd=tmp_path, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    written = configparser.ConfigParser()
    written.read_string(out.read_text())
    mounts = p.stdout.splitlines()
    _every_local_path_is_mounted(written, mounts)
    return written, mounts, p.stderr


def _every_local_path_is_mounted(written: configparser.ConfigParser, mounts: list[str]) -> None:
    for section in written.sections():
        for key in ("cert", "client-cert", "constraint", "requirement", "build-constraint"):
            for word in written.get(section, key, fallback="").split():
                path = word.removeprefix("file://")
                assert os.path.isabs(path), f"{key} = {word} would be read relative to the build's directory"
                assert path in mounts, f"{key} = {word} is not mounted"


def _values(written: configparser.ConfigParser, key: str) -> list[str]:
    return written.get("global", key, fallback="").split()


@pytest.mark.parametrize("key", ["constraint", "requirement", "build-constraint"])
def test_a_file_option_is_mounted(tmp_path: Path, key: str) -> None:
    f = tmp_path / "pins.txt"
    f.write_text("pyyaml<99\n")
    written, mounts, err = _run(tmp_path, f"[global]\n{key} = {f}\n")
    assert _values(written, key) == [str(f)]
    assert str(f) in mounts
    assert key not in err


def test_a_missing_file_is_left_out_with_a_notice(tmp_path: Path) -> None:
    missing = tmp_path / "gone.txt"
    written, mounts, err = _run(tmp_path, f"[global]\nconstraint = {missing}\n")
    assert "constraint" not in written["global"]
    assert str(missing) not in mounts
    assert [line for line in err.splitlines() if "constraint" in line] == [
        f"pipconf.py: constraint = {missing} ([global] in a pip config file) is left out of the build's pip configuration: no such file here"
    ]


def test_a_relative_path_is_left_out_with_a_notice(tmp_path: Path) -> None:
    (tmp_path / "pins.txt").write_text("pyyaml<99\n")  # there in pip's directory here, not in the build's
    written, mounts, err = _run(tmp_path, "[install]\nrequirement = pins.txt\n")
    assert "requirement" not in written["install"]
    assert "requirement = pins.txt ([install] in a pip config file)" in err
    assert "a relative path" in err


def test_a_directory_is_not_a_constraints_file(tmp_path: Path) -> None:
    written, mounts, err = _run(tmp_path, f"[global]\nconstraint = {tmp_path}\n")
    assert "constraint" not in written["global"]
    assert str(tmp_path) not in mounts
    assert err.endswith(": not a file\n")


def test_several_values_from_a_variable(tmp_path: Path) -> None:
    """PIP_CONSTRAINT beats the config file; of its values the local files are kept and
    mounted, each value pip cannot read in the build is named on its own line."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("pyyaml<99\n")
    b.write_text("ruamel.yaml<99\n")
    value = f"{a} rel.txt file://{b} {tmp_path / 'gone.txt'} https://example.invalid/c.txt"
    written, mounts, err = _run(tmp_path, f"[global]\nconstraint = {tmp_path / 'other.txt'}\n", PIP_CONSTRAINT=value)
    assert _values(written, "constraint") == [str(a), f"file://{b}"]
    assert str(a) in mounts and str(b) in mounts
    notices = [line for line in err.splitlines() if "constraint" in line]
    assert [n.split(" (")[0] for n in notices] == [
        "pipconf.py: constraint = rel.txt",
        f"pipconf.py: constraint = {tmp_path / 'gone.txt'}",
        "pipconf.py: constraint = https://example.invalid/c.txt",
    ]
    assert all("(PIP_CONSTRAINT)" in n for n in notices)
    assert "other.txt" not in err  # the variable replaced the file's value, as in pip


def test_a_local_find_links_and_index_are_mounted(tmp_path: Path) -> None:
    """Each is a local path (mounted; a missing one left out) or a URL pip fetches itself."""
    (tmp_path / "wheels").mkdir()
    (tmp_path / "mirror" / "simple").mkdir(parents=True)
    written, mounts, err = _run(
        tmp_path,
        f"[global]\nfind-links = {tmp_path / 'wheels'} {tmp_path / 'gone'} https://example.invalid/links\nindex-url = file://{tmp_path / 'mirror' / 'simple'}\n",
    )
    assert _values(written, "find-links") == [str(tmp_path / "wheels"), "https://example.invalid/links"]
    assert str(tmp_path / "wheels") in mounts
    assert str(tmp_path / "mirror") in mounts  # ROOT/simple links its files as ROOT/files
    assert [line for line in err.splitlines() if "find-links" in line or "index-url" in line] == [
        f"pipconf.py: find-links = {tmp_path / 'gone'} ([global] in a pip config file) is left out of the build's pip configuration: no such file or directory here"
    ]


def test_where_pip_installs_here_is_not_carried(tmp_path: Path) -> None:
    written, mounts, err = _run(tmp_path, PIP_TARGET=str(tmp_path))
    assert "target" not in written["global"]
    assert "pipconf.py: target = " in err
