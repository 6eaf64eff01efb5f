"""Files mode's verdict cache (issue 34): a package found clean before with the same bytes is
answered from the cache, with the output, messages and exit code of a render; every edit
(a run, the Pipeline, the policy, a context file, the Kptfile, a file added or removed, the
function's version), a corrupt entry and runs at once give what they give without it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from files_util import PIPELINE
from files_util import cli
from files_util import run_doc

from krm_fn.io import cache as cache_mod
from krm_fn.io import reader
from krm_fn.modes import files

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
pipeline:
  mutators:
  - image: ghcr.io/example/krm-coschedule:v0.1.0
    configPath: policy.yaml
"""
POLICY = """\
apiVersion: fn.kpt.dev/v1alpha1
kind: CoschedulePolicy
metadata:
  name: policy
spec:
  coschedule: workspaces
"""
# Tekton's own assistant left on: a warning on every render (a clean verdict with a warning)
FLAGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: feature-flags
  namespace: tekton-pipelines
data:
  coschedule: workspaces
"""
CONTEXT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: "1"
"""


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    """A package rendered once (without the cache): clean from now on."""
    root = tmp_path / "pkg"
    (root / "runs").mkdir(parents=True)
    (root / "Kptfile").write_text(KPTFILE)
    (root / "policy.yaml").write_text(POLICY)
    (root / "pipeline.yaml").write_text(PIPELINE)
    (root / "flags.yaml").write_text(FLAGS)
    (root / "settings.yaml").write_text(CONTEXT)
    for n in ("r1", "r2", "r3"):
        (root / "runs" / f"{n}.yaml").write_text(run_doc(n))
    code, _out, err = cli(tmp_path, "--no-cache", "pkg")
    assert code == 1 and "3 file(s) rewritten" in err, err
    return root


def _entries(cache_home: Path) -> list[Path]:
    return sorted(cache_home.glob("krm-coschedule/*/*.json"))


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The packages rendered (not answered from the cache) in this test, by root."""
    seen: list[str] = []
    real = files._run_package

    def counted(pkg, *a, **kw):  # type: ignore[no-untyped-def]
        seen.append(pkg.root.name)
        return real(pkg, *a, **kw)

    monkeypatch.setattr(files, "_run_package", counted)
    return seen


ARGS = [
    ("--check", "pkg"),
    ("pkg",),
    ("--check", "-v", "pkg"),
    ("--check", "-q", "pkg"),
    ("--check", "--diff", "pkg"),
    ("--check", "--format", "json", "pkg"),
    ("--check", "--files", "pkg/runs/r2.yaml"),
    ("--check", "--config", "pkg/policy.yaml", "pkg/runs/r1.yaml", "pkg/pipeline.yaml"),
]


@pytest.mark.parametrize("args", ARGS)
def test_a_warm_cache_answers_with_what_a_render_says(pkg: Path, renders: list[str], _private_cache: Path, args: tuple[str, ...]) -> None:
    here = pkg.parent
    rendered = cli(here, "--no-cache", *args)
    assert rendered[0] == 0 and renders == ["pkg"] and _entries(_private_cache) == []
    first = cli(here, *args)  # a miss: rendered, and the clean verdict kept
    assert first == rendered and renders == ["pkg", "pkg"] and len(_entries(_private_cache)) == 1
    warm = cli(here, *args)  # a hit: not rendered
    assert warm == rendered and renders == ["pkg", "pkg"]
    if "-q" not in args and "json" not in args:
        assert "feature-flags" in warm[2] and "placeholders rendered" in warm[2]  # the warning and the note kept
    if "-v" in args:
        assert "info" in warm[2]


def _edit_run(pkg: Path) -> None:
    p = pkg / "runs" / "r2.yaml"
    p.write_text(p.read_text().replace("storage: 1Gi", "storage: 2Gi"))


def _unpin_run(pkg: Path) -> None:
    p = pkg / "runs" / "r2.yaml"
    p.write_text(p.read_text().replace("pipelineTaskName: build", "pipelineTaskName: lint"))


def _edit_pipeline(pkg: Path) -> None:
    p = pkg / "pipeline.yaml"
    p.write_text(p.read_text().replace("name: lint", "name: vet"))


def _lint_uses_the_workspace(pkg: Path) -> None:
    p = pkg / "pipeline.yaml"
    p.write_text(p.read_text().replace("  - name: lint\n", "  - name: lint\n    workspaces:\n    - name: src\n      workspace: src\n"))


def _edit_policy(pkg: Path) -> None:
    p = pkg / "policy.yaml"
    p.write_text(p.read_text().replace("coschedule: workspaces", "coschedule: disabled"))


def _edit_context(pkg: Path) -> None:
    (pkg / "settings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n")


def _flags_off(pkg: Path) -> None:
    (pkg / "flags.yaml").write_text(FLAGS.replace("coschedule: workspaces", "coschedule: disabled"))


def _edit_kptfile(pkg: Path) -> None:
    (pkg / "Kptfile").write_text(KPTFILE.replace("policy.yaml", "other.yaml"))
    (pkg / "other.yaml").write_text(POLICY.replace("coschedule: workspaces", "coschedule: pipelineruns"))


def _kptfile_config_map(pkg: Path) -> None:
    """The Kptfile alone changes (no file added): its configMap is a second policy."""
    (pkg / "Kptfile").write_text(KPTFILE.replace("configPath: policy.yaml", "configMap:\n      coschedule: disabled"))


def _add_run(pkg: Path) -> None:
    (pkg / "runs" / "r4.yaml").write_text(run_doc("r4"))


def _remove_flags(pkg: Path) -> None:
    (pkg / "flags.yaml").unlink()


def _whitespace(pkg: Path) -> None:
    p = pkg / "runs" / "r1.yaml"
    p.write_text(p.read_text() + "\n")


def _symlink_swapped(pkg: Path) -> None:
    (pkg / "runs" / "r3.yaml").rename(pkg / "r3.real")
    (pkg / "runs" / "r3.yaml").symlink_to(pkg / "r3.real")


EDITS = [_edit_run, _unpin_run, _edit_pipeline, _lint_uses_the_workspace, _edit_policy, _edit_context, _flags_off, _edit_kptfile, _kptfile_config_map, _add_run, _remove_flags, _whitespace, _symlink_swapped]


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("args", [("--check", "pkg"), ("--check", "--files", "pkg/runs/r2.yaml")])
def test_an_edit_after_a_clean_verdict_is_caught_as_without_the_cache(pkg: Path, renders: list[str], edit: object, args: tuple[str, ...]) -> None:
    here = pkg.parent
    assert cli(here, *args)[0] == 0  # the clean verdict kept
    assert cli(here, *args)[0] == 0 and renders == ["pkg"]  # and answered from
    edit(pkg)  # type: ignore[operator]
    expected = cli(here, "--no-cache", *args)
    assert cli(here, *args) == expected
    assert renders == ["pkg", "pkg", "pkg"]  # rendered again, not answered from the cache


def test_another_version_of_the_function_trusts_no_verdict(pkg: Path, renders: list[str], monkeypatch: pytest.MonkeyPatch, _private_cache: Path) -> None:
    here = pkg.parent
    assert cli(here, "--check", "pkg")[0] == 0
    import krm_fn

    monkeypatch.setattr(krm_fn, "__version__", "9.9.9")
    assert cli(here, "--check", "pkg")[0] == 0
    assert renders == ["pkg", "pkg"] and len({p.parent for p in _entries(_private_cache)}) == 2


def test_an_edited_source_file_changes_the_fingerprint(tmp_path: Path) -> None:
    """An editable install (no RECORD beside krm_fn): every source file's bytes count."""
    src = tmp_path / "krm_fn"
    (src / "io").mkdir(parents=True)
    (src / "__init__.py").write_text("__version__ = '0.1.0'\n")
    (src / "io" / "cache.py").write_text("x = 1\n")
    before = cache_mod.fingerprint(src)
    assert cache_mod.fingerprint(src) == before
    (src / "io" / "cache.py").write_text("x = 2\n")
    assert cache_mod.fingerprint(src) != before


def test_a_regular_install_is_fingerprinted_by_its_record(tmp_path: Path) -> None:
    src = tmp_path / "krm_fn"
    src.mkdir()
    (src / "__init__.py").write_text("")
    dist = tmp_path / "krm_coschedule-0.1.0.dist-info"
    dist.mkdir()
    (dist / "RECORD").write_text("krm_fn/__init__.py,sha256=abc,0\n")
    before = cache_mod.fingerprint(src)
    (src / "__init__.py").write_text("# the RECORD says what was installed\n")
    assert cache_mod.fingerprint(src) == before
    (dist / "RECORD").write_text("krm_fn/__init__.py,sha256=abd,0\n")
    assert cache_mod.fingerprint(src) != before


CORRUPT = [
    b"",
    b"\xff\xfe not UTF-8",
    b'{"format": 1, "key": ',
    b"[" * 100_000,
    b'{"format": 1, "key": "KEY", "verdict": {"files": "pkg", "results": [], "placeholders": true, "assistant_off": false}}',
    b'{"format": 1, "key": "KEY", "verdict": {"files": [], "results": [["error", "x", null, null, null, null, [], null, null]], "placeholders": true, "assistant_off": false}}',
    b'{"format": 1, "key": "KEY", "verdict": {"files": [], "results": [["info", "x", "abcd", null, null, null, [], null, null]], "placeholders": true, "assistant_off": false}}',
    b'{"format": 1, "key": "KEY", "verdict": {"files": [], "results": [["info", "x", null, null, null, null, "ab", null, null]], "placeholders": 1, "assistant_off": false}}',
]


@pytest.mark.parametrize("data", CORRUPT, ids=range(len(CORRUPT)))
def test_a_corrupt_entry_is_a_miss_and_is_replaced(pkg: Path, renders: list[str], _private_cache: Path, data: bytes) -> None:
    here = pkg.parent
    expected = cli(here, "--no-cache", "--check", "pkg")
    assert cli(here, "--check", "pkg") == expected
    [entry] = _entries(_private_cache)
    key = json.loads(entry.read_bytes())["key"]
    entry.write_bytes(data.replace(b"KEY", key.encode()))
    assert cli(here, "--check", "pkg") == expected  # rendered: the entry is not believed
    assert json.loads(entry.read_bytes())["key"] == key  # and replaced by a good one
    assert cli(here, "--check", "pkg") == expected
    assert renders == ["pkg", "pkg", "pkg"]


def test_an_unreadable_or_unwritable_cache_is_no_cache(pkg: Path, renders: list[str], _private_cache: Path) -> None:
    here = pkg.parent
    expected = cli(here, "--no-cache", "--check", "pkg")
    (_private_cache / "krm-coschedule").write_text("a file where the cache's directory goes")
    assert cli(here, "--check", "pkg") == expected
    assert cli(here, "--check", "pkg") == expected
    assert renders == ["pkg", "pkg", "pkg"]
    (_private_cache / "krm-coschedule").unlink()
    assert cli(here, "--check", "pkg") == expected
    [entry] = _entries(_private_cache)
    entry.unlink()
    entry.mkdir()  # a directory where the entry goes: refused by the reader, not replaceable
    assert cli(here, "--check", "pkg") == expected


def test_what_fails_or_changes_is_never_kept(pkg: Path, renders: list[str], _private_cache: Path) -> None:
    here = pkg.parent
    _add_run(pkg)
    assert cli(here, "--check", "pkg")[0] == 1
    _edit_context(pkg)
    (pkg / "runs" / "r1.yaml").write_text("kind: PipelineRun\nmetadata: {name: [x\n")
    assert cli(here, "--check", "pkg")[0] == 1
    assert _entries(_private_cache) == []


def test_no_cache_flag_and_env_neither_read_nor_write(pkg: Path, renders: list[str], monkeypatch: pytest.MonkeyPatch, _private_cache: Path) -> None:
    here = pkg.parent
    assert cli(here, "--no-cache", "--check", "pkg")[0] == 0
    monkeypatch.setenv("KRM_COSCHEDULE_NO_CACHE", "1")
    assert cli(here, "--check", "pkg")[0] == 0
    assert _entries(_private_cache) == []
    monkeypatch.delenv("KRM_COSCHEDULE_NO_CACHE")
    assert cli(here, "--check", "pkg")[0] == 0  # kept
    _add_run(pkg)  # the entry now answers for other bytes only: --no-cache reads none anyway
    assert cli(here, "--no-cache", "--check", "pkg")[0] == 1
    monkeypatch.setenv("KRM_COSCHEDULE_NO_CACHE", "1")
    assert cli(here, "--check", "pkg")[0] == 1
    assert renders == ["pkg"] * 5


def test_krm_mode_keeps_nothing(pkg: Path, _private_cache: Path) -> None:
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
        "- " + doc.replace("\n", "\n  ").rstrip() + "\n" for doc in (PIPELINE, run_doc("r1"))
    )
    for _ in range(2):
        p = subprocess.run([sys.executable, "-m", "krm_fn"], input=rl, capture_output=True, text=True, check=False)
        assert p.returncode == 0, p.stderr
    assert not (_private_cache / "krm-coschedule").exists()


def test_the_cache_lives_under_xdg_cache_home_else_the_home_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_mod.directory() == tmp_path / "xdg" / "krm-coschedule"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if sys.platform.startswith("linux"):
        assert cache_mod.directory() == tmp_path / "home" / ".cache" / "krm-coschedule"


def test_a_miss_reads_each_file_once(pkg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's bytes are the ones rendered: the cache costs a miss its hashing, not a
    second read."""
    reads: list[str] = []
    real = reader.read_bytes

    def counted(path, name=None, limit=None):  # type: ignore[no-untyped-def]
        reads.append(os.path.basename(os.fspath(path)))
        return real(path, name, limit)

    monkeypatch.setattr(reader, "read_bytes", counted)
    assert cli(pkg.parent, "--check", "pkg")[0] == 0
    yaml_reads = [r for r in reads if r.endswith(".yaml") and r != "policy.yaml"]
    assert sorted(yaml_reads) == sorted(["r1.yaml", "r2.yaml", "r3.yaml", "pipeline.yaml", "flags.yaml", "settings.yaml"])
    # the policy the Kptfile names and the Kptfile are read again by path (a few hundred
    # bytes): by the render, and to see they did not change before the verdict is kept
    assert reads.count("policy.yaml") <= 4 and reads.count("Kptfile") <= 4


SCRIPT = "import sys; from krm_fn.cli import main; sys.exit(main(sys.argv[1:]))"


def test_runs_at_once_each_see_a_whole_entry_or_none(pkg: Path, _private_cache: Path) -> None:
    here = pkg.parent
    expected = subprocess.run([sys.executable, "-c", SCRIPT, "--no-cache", "--check", "pkg"], cwd=here, capture_output=True, text=True, check=False)
    procs = [
        subprocess.Popen([sys.executable, "-c", SCRIPT, "--check", "pkg"], cwd=here, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert (p.returncode, out, err) == (expected.returncode, expected.stdout, expected.stderr)
    [entry] = _entries(_private_cache)
    assert len(json.loads(entry.read_bytes())["verdict"]["files"]) == 7  # whole: the package's YAML files
    assert not list(entry.parent.glob("*.krm-tmp"))


def test_the_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 8)
    c = cache_mod.Cache(tmp_path)
    for i in range(20):
        assert c.put(f"slot{i}", "k", {"i": i})
    left = sorted(c.dir.glob("*.json"))
    assert 6 <= len(left) <= 9 and c.get("slot19", "k") == {"i": 19}
    assert reader.read_bytes(c.dir / "slot19.json")[0]


@pytest.mark.parametrize("what", ["policy", "kptfile"])
def test_a_file_edited_while_the_package_renders_keeps_no_verdict(
    pkg: Path, monkeypatch: pytest.MonkeyPatch, _private_cache: Path, what: str
) -> None:
    """The render reads the Kptfile and the file its configPath names again by path: one
    edited between the probe and the render would give a verdict for other bytes than the
    key's. None is kept then; the next run renders the edited package."""
    real = files._run_package
    edit = _edit_policy if what == "policy" else _kptfile_config_map

    def edited_meanwhile(p, *a, **kw):  # type: ignore[no-untyped-def]
        edit(pkg)
        return real(p, *a, **kw)

    with monkeypatch.context() as m:
        m.setattr(files, "_run_package", edited_meanwhile)
        cli(pkg.parent, "--check", "pkg")
    assert _entries(_private_cache) == []
    assert cli(pkg.parent, "--check", "pkg") == cli(pkg.parent, "--no-cache", "--check", "pkg")


@pytest.mark.parametrize("edit", [_edit_policy, _kptfile_config_map], ids=["policy", "kptfile"])
def test_a_probe_keeps_no_verdict_once_a_file_read_again_changed(pkg: Path, monkeypatch: pytest.MonkeyPatch, _private_cache: Path, edit: object) -> None:
    from krm_fn.io import packages
    from krm_fn.modes import verdicts

    monkeypatch.chdir(pkg.parent)
    [package] = packages.group(packages.expand(["pkg"]))
    clean = verdicts.Verdict(["pkg/runs/r1.yaml"], [], True, False)
    store = cache_mod.open_cache()
    assert store is not None
    assert verdicts.probe(store, package, None, True).remember(clean)
    probe = verdicts.probe(store, package, None, True)
    edit(pkg)  # type: ignore[operator]
    assert not probe.remember(clean)


@pytest.mark.parametrize("raw", [b"bad\xffrun.yaml", b"caf\xe9.yaml"])
def test_a_file_name_that_is_not_utf8_is_keyed_and_kept(pkg: Path, renders: list[str], _private_cache: Path, raw: bytes) -> None:
    """A name that is not UTF-8 (read as surrogate escapes) is hashed by its bytes and kept in
    an entry as JSON escapes: both were internal errors once issue 31's names met the cache."""
    src = pkg / "runs" / "r3.yaml"
    os.rename(src, os.fsdecode(bytes(pkg / "runs") + b"/" + raw))
    here = pkg.parent
    rendered = cli(here, "--no-cache", "--check", "pkg")
    assert rendered[0] == 0 and "internal error" not in rendered[2], rendered[2]
    first = cli(here, "--check", "pkg")  # a miss: the key takes the name's bytes
    assert first == rendered and len(_entries(_private_cache)) == 1
    warm = cli(here, "--check", "pkg")  # a hit: the entry read back with the name as it was
    assert warm == rendered and renders == ["pkg", "pkg"]


def test_an_entry_is_private_unsynced_and_whole(pkg: Path, _private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the cache writes through the one atomic writer, asked not to sync: an entry may be lost
    # in a crash (then it is a miss), and a verdict costs no fsync
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    assert cli(pkg.parent, "--check", "pkg")[0] == 0
    [entry] = _entries(_private_cache)
    assert entry.stat().st_mode & 0o777 == 0o600 and synced == []
    assert json.loads(entry.read_text())["format"]
    entry.chmod(0o644)  # replaced: private again, and no temp file left beside it
    (pkg / "runs" / "r1.yaml").write_text((pkg / "runs" / "r1.yaml").read_text() + "# touched\n")
    assert cli(pkg.parent, "--check", "pkg")[0] == 0
    assert _entries(_private_cache) == [entry]  # the package's slot, replaced
    assert entry.stat().st_mode & 0o777 == 0o600 and synced == []
    assert not [p for p in entry.parent.iterdir() if not p.name.endswith(".json")]
