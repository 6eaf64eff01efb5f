"""krm_fn.io.reader, the one reader of every file the function opens: FILEs, context files,
--config (files mode and explain), the kustomize plugin's config, a Kptfile and its
configPath. Each is refused with a message naming the path and what it is when it is not a
regular file, and a Kptfile is parsed behind the depth and alias guards (issue 25)."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT

CMD = [sys.executable, "-m", "krm_fn"]
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: pipelineruns\n"


def _run(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # a FIFO read the old way blocks and a device never ends: the timeout makes that a failure
    p = subprocess.run([*CMD, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    # files mode tags each located line with its severity (`path: [error] ...`); these tests
    # check what is said and where, so the tag is left out
    p.stderr = re.sub(r": \[(?:error|warning|info)\] ", ": ", p.stderr)
    return p


def _kptfile(step: str) -> str:
    return f"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: k\npipeline:\n  mutators:\n  - image: krm-coschedule\n{step}"


@pytest.fixture
def fifo(tmp_path: Path) -> str:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "cm.yaml").write_text(CM)
    return "fifo.yaml"


_BAD = ["fifo.yaml", "/dev/zero", "/dev/urandom", "adir", "dangling.yaml", "loop.yaml"]


# a directory as the only argument is a package to render in files mode, not a plugin config
@pytest.mark.parametrize(
    "how, bad",
    [(how, bad) for how in ("--config", "explain --config", "plugin", "FILE") for bad in _BAD if bad != "adir" or how not in ("plugin", "FILE")],
)
def test_every_config_path_is_refused_unless_a_regular_file(tmp_path: Path, fifo: str, bad: str, how: str) -> None:
    (tmp_path / "adir").mkdir()
    os.symlink("nowhere.yaml", tmp_path / "dangling.yaml")
    os.symlink("loop.yaml", tmp_path / "loop.yaml")
    if how == "plugin":
        p = _run(tmp_path, bad, stdin=CM)
        assert p.stdout == CM  # the stream comes back unchanged
    elif how == "FILE":  # a directory as FILE is a package to render: not refused
        p = _run(tmp_path, "--check", bad, "cm.yaml")
        assert "1 failed, 1 unchanged" in p.stderr, p.stderr
    else:
        p = _run(tmp_path, *how.split(), bad, "--check" if how == "--config" else "cm.yaml", *(["cm.yaml"] if how == "--config" else []))
    assert p.returncode == 1
    what = {
        "fifo.yaml": "is a FIFO, not a regular file", "/dev/zero": "is a device, not a regular file",
        "/dev/urandom": "is a device, not a regular file", "adir": "is a directory",
        "dangling.yaml": "is a dangling symbolic link (to nowhere.yaml", "loop.yaml": "is a symbolic link loop",
    }[bad]
    assert f"{bad}: {what}" in p.stderr, p.stderr


def test_a_kptfile_config_path_that_is_a_fifo_is_refused(tmp_path: Path, fifo: str) -> None:
    (tmp_path / "Kptfile").write_text(_kptfile(f"    configPath: {fifo}\n"))
    p = _run(tmp_path, "--check", "cm.yaml")
    assert p.returncode == 1
    # named relative to the working directory, as the package's other files are (issue 33)
    assert f"cm.yaml: the package's policy {fifo}: is a FIFO, not a regular file" in p.stderr, p.stderr


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_kptfile_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    (tmp_path / "cm.yaml").write_text(CM)
    if kind == "fifo":
        os.mkfifo(tmp_path / "Kptfile")
    else:
        os.symlink("/dev/zero", tmp_path / "Kptfile")
    p = _run(tmp_path, "--check", "cm.yaml")
    assert p.returncode == 1
    assert f"{tmp_path / 'Kptfile'}: is a {'FIFO' if kind == 'fifo' else 'device'}, not a regular file" in p.stderr, p.stderr


def _alias_bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 12)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "body, says",
    [
        (_alias_bomb() + "    configMap: *a11\n", "expands to more than 200000 nodes through YAML aliases"),
        ("    configMap:\n      x: " + "[" * 10_000 + "]" * 10_000 + "\n", "nests deeper than 200 levels"),
    ],
    ids=["alias-bomb", "nested-10000"],
)
def test_a_hostile_kptfile_is_an_error_that_names_it(tmp_path: Path, body: str, says: str) -> None:
    (tmp_path / "cm.yaml").write_text(CM)
    head, _, tail = body.rpartition("    configMap")
    (tmp_path / "Kptfile").write_text(head + _kptfile("    configMap" + tail))
    p = _run(tmp_path, "--check", "cm.yaml")
    assert p.returncode == 1
    assert f"cm.yaml: {tmp_path / 'Kptfile'} {says}" in p.stderr, p.stderr


def test_a_symlink_loop_among_the_other_files_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "cm.yaml").write_text(CM)
    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    p = _run(tmp_path, "--check", "cm.yaml")
    assert p.returncode == 0, p.stderr
    assert "a.yaml: is a symbolic link loop" in p.stderr and "skipped as context" in p.stderr
    assert "0 failed, 1 unchanged" in p.stderr


def test_a_missing_plugin_config_directory_is_an_error(tmp_path: Path) -> None:
    # a path that does not exist is a file to render, said missing (issue 33): kustomize
    # always passes a config file it wrote
    p = _run(tmp_path, "missing/dir/config.yaml", stdin=CM)
    assert p.returncode == 1 and p.stdout == ""
    assert "missing/dir/config.yaml: cannot be read: No such file or directory" in p.stderr
    assert "plugin config" not in p.stderr


# --------------------------------------------------------------------------- no other way in

# (module, function) that open a file some other way, and why that is not a read of input
_WRITERS = {
    ("io/writer.py", "_sync_all"),  # opens a staged temp file to fsync it
    ("io/writer.py", "_stage"),  # writes a temp file
    ("io/writer.py", "_sync_directory"),  # opens a directory to fsync a rename in it
    ("cli.py", "_output_failed"),  # points stdout at /dev/null
}
_OPENERS = {"open", "fdopen", "read_text", "read_bytes", "safe_load", "full_load", "unsafe_load"}


def test_nothing_in_krm_fn_opens_a_file_but_the_reader() -> None:
    pkg = ROOT / "krm_fn"
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel == "io/reader.py":
            continue
        tree = ast.parse(path.read_text(), rel)
        tops = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        tops += [m for c in tree.body if isinstance(c, ast.ClassDef) for m in c.body if isinstance(m, ast.FunctionDef)]
        for fn in tops:
            for call in [c for c in ast.walk(fn) if isinstance(c, ast.Call)]:
                f = call.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                through_reader = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "reader"
                if name in _OPENERS and not through_reader and (rel, fn.name) not in _WRITERS:
                    found.append(f"{rel}:{call.lineno} {fn.name}: {name}(...)")
    assert not found, "read files through krm_fn.io.reader (regular files, the size limit):\n" + "\n".join(found)


@pytest.mark.parametrize("how", ["--config", "plugin"])
@pytest.mark.parametrize("depth", [10_000, 60_000])
def test_a_policy_nested_deep_is_refused_before_the_loader_recurses(tmp_path: Path, how: str, depth: int) -> None:
    """The round-trip loader recursed to its limit (10,000 levels: 14 s, then "not valid YAML:
    maximum recursion depth exceeded"); the event walk refuses it first and names the field."""
    (tmp_path / "cm.yaml").write_text(CM)
    (tmp_path / "deep.yaml").write_text(POLICY + "  x: " + "[" * depth + "]" * depth + "\n")
    p = _run(tmp_path, "deep.yaml", stdin=CM) if how == "plugin" else _run(tmp_path, "--config", "deep.yaml", "--check", "cm.yaml")
    assert p.returncode == 1
    assert "deep.yaml nests deeper than 200 levels (at spec.x[0][0]" in p.stderr, p.stderr


def test_a_current_directory_that_is_gone_is_an_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f"cd {gone} && rmdir {gone} && exec {sys.executable} -m krm_fn --check cm.yaml"
    p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    assert "the current directory no longer exists" in p.stderr
