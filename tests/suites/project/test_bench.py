"""Smoke test of bench/: the generator makes a valid ResourceList and the runner's table code
works on a tiny input. No timing is asserted (the benchmark's numbers live in bench/README.md)."""
from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from shared import ROOT

from krm_fn.io import resourcelist

sys.path.insert(0, str(ROOT / "bench"))
import floors  # noqa: E402
import gen  # noqa: E402
import run  # noqa: E402


@pytest.fixture(autouse=True)
def _bench_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner keeps the verdict cache of its commands in a directory of its own (removed
    by main() at the end); these tests call its pieces, so it goes under pytest's tmp."""
    monkeypatch.setattr(run, "CACHE_HOME", tmp_path_factory.mktemp("bench-cache"))


def test_generator_makes_a_valid_resource_list() -> None:
    text = gen.generate(40, 0.2, seed=3)
    assert text == gen.generate(40, 0.2, seed=3)  # deterministic per seed
    doc = yaml.safe_load(text)
    assert doc["kind"] == "ResourceList" and doc["functionConfig"]["kind"] == "CoschedulePolicy"
    kinds = Counter(item["kind"] for item in doc["items"])
    assert sum(kinds.values()) == 40
    assert sum(kinds[k] for k in gen.TARGET_KINDS) == 8
    assert {"Deployment", "Service", "ConfigMap", "PipelineRun", "TaskRun", "BuildRun"} <= set(kinds)
    for item in doc["items"]:
        ann = item["metadata"]["annotations"]
        assert ann["internal.config.kubernetes.io/path"].endswith(".yaml")
    pr = next(i for i in doc["items"] if i["kind"] == "PipelineRun")
    assert pr["spec"]["workspaces"][0]["volumeClaimTemplate"]["spec"]["accessModes"] == ["ReadWriteOnce"]
    # the fast path reads every identity without the round-trip loader
    frame = resourcelist.parse(text)
    assert frame.fast and not any(it.complex_meta for it in frame.items)
    assert [it.meta.kind for it in frame.items] == [i["kind"] for i in doc["items"]]
    assert "# Deployment" in text and "# nightly build" in text  # comments to carry


def test_runner_measures_and_tabulates_a_tiny_input(tmp_path: Path) -> None:
    cases = [run.Input("1 PipelineRun", 1, gen.generate(1, 1.0)), run.Input("3 items", 3, gen.generate(3, 0.34))]
    rows = run.run(cases, repeat=1, workdir=tmp_path)
    assert [r.label for r in rows] == ["1 PipelineRun", "3 items"]
    for r in rows:
        for name in ("fn", "libyaml", "python"):
            assert r.wall(name) > 0 and r.rss_mb(name) > 1
    text = run.table(rows, 1)
    assert text.count("\n| ") == 1 + len(rows)  # header + one row per input
    assert "| 1 PipelineRun |" in text and "Growth from 3 to 3 items" not in text


def test_table_ratios() -> None:
    def row(label: str, items: int, fn: float, ly: float, py: float) -> run.Row:
        s = lambda t: [run.Sample(t, t, 50 * 1024)]  # noqa: E731
        return run.Row(label, items, 1000, {"fn": s(fn), "libyaml": s(ly), "python": s(py)})

    text = run.table([row("a", 1000, 0.5, 1.0, 0.02), row("b", 10000, 4.0, 12.0, 0.02)], 1)
    assert "| 0.50x (0.50x) | 25.0x (25.0x) | 50 MB | 50 MB |" in text
    assert "krm-coschedule 8.0x (8.0x), libyaml round trip 12.0x (12.0x)" in text


def test_package_generator_makes_a_kpt_package(tmp_path: Path) -> None:
    files = gen.package(4, seed=2)
    assert files == gen.package(4, seed=2)
    runs = [p for p in files if p.startswith("runs/")]
    assert len(runs) == 4 and {"Kptfile", "coschedule-policy.yaml", "pipeline.yaml"} <= set(files)
    docs = {p: list(yaml.safe_load_all(t)) for p, t in files.items()}
    for p in runs:
        (run_,) = docs[p]
        assert run_["kind"] == "PipelineRun" and run_["spec"]["pipelineRef"] == {"name": "build-and-test"}
        assert [w for w in run_["spec"]["workspaces"] if "volumeClaimTemplate" in w]
    assert any("\n  - name: revision" in files[p] for p in runs) and any("\n    - name: revision" in files[p] for p in runs)
    gen.write_package(files, tmp_path)
    assert gen.read_package(tmp_path) == files
    # the same package as kpt hands it over: every document an item, with its path and index
    rl = yaml.safe_load(gen.package_resource_list(files))
    assert rl["functionConfig"]["kind"] == "CoschedulePolicy"
    assert len(rl["items"]) == sum(len(d) for d in docs.values())
    paths = [i["metadata"]["annotations"]["internal.config.kubernetes.io/path"] for i in rl["items"]]
    assert sorted(set(paths)) == sorted(files)
    frame = resourcelist.parse(gen.package_resource_list(files))
    assert frame.fast and len(frame.items) == len(rl["items"])


def test_package_cases_render_then_change_nothing(tmp_path: Path) -> None:
    """The files and KRM workloads on a tiny package: the runner's own checks (the first
    render changes the runs, the re-render changes nothing) pass, and every row is timed."""
    cases = run.package_cases([2], seed=1, workdir=tmp_path)
    assert [c.group for c in cases] == [
        "files-first", "files-again", "files-warm", "files-empty", "files-one", "files-one-warm", "krm-first", "krm-again"
    ]
    rows = run.measure_cases(cases, repeat=1)
    for r in rows:
        assert r.wall("fn") > 0 and r.wall("libyaml") > 0
    # the first render's command starts from the package as generated, every time
    first = cases[0]
    run.measure(first.fn)
    work = Path(first.fn.argv[-1])
    assert "affinity-assistant" in (work / "runs" / "nightly-00000.yaml").read_text()
    text = run.table(rows, 1) + run.targets(rows)
    # rows, and the targets: issue 13's four, issue 34's (first render, --check with the cache
    # off, warm and empty, one staged file)
    assert text.count("| package of 2 PipelineRun files") == 8 + 4 + 5


def test_targets_say_met_or_missed() -> None:
    def row(label: str, group: str, items: int, fn: float, ly: float) -> run.Row:
        s = lambda t: [run.Sample(t, t, 100 * 1024)]  # noqa: E731
        return run.Row(label, items, 1000, {"fn": s(fn), "libyaml": s(ly), "python": s(0.02)}, group)

    rows = [row("a", "list", 1000, 0.2, 1.0), row("b", "list", 10000, 0.9, 10.0), row("c", "files-first", 150, 0.5, 1.0)]
    text = run.targets(rows)
    assert "| b | <= 0.1x libyaml | 0.09x (0.09x CPU) | met |" in text
    assert "| b | peak RSS < 150 MB at 10,000 items | 100 MB | met |" in text
    assert "| b | 1,000 -> 10,000: time grows <= 10x | 4.5x (4.5x CPU) | met |" in text
    assert "| c | <= 0.3x libyaml | 0.50x (0.50x CPU) | missed |" in text
    # issue 34's first-render target is against libyaml on what it writes (a baseline of its own)
    assert "what it writes" not in text  # no such baseline measured: no such target shown
    c = rows[2]
    c.runs["written"] = [run.Sample(2.0, 2.0, 100 * 1024)]
    text = run.targets(rows)
    assert "| c | <= 0.5x libyaml on what it writes | 0.25x (0.25x CPU) | met |" in text
    # where the first render's CPU goes: the system part, and the ratio of user CPU alone
    assert "system time 0.00 s of the function's 0.50 s CPU; user CPU alone 0.25x" in text
    c.runs["fn"] = [run.Sample(0.5, 0.5, 50 * 1024, 0.2)]
    assert "system time 0.20 s of the function's 0.50 s CPU; user CPU alone 0.15x" in run.targets(rows)
    assert "| 0.25x (0.25x) |" in run.table(rows, 1)


def test_people_cases_render_then_change_nothing(tmp_path: Path) -> None:
    """The package as people write it (gen.people_run), in both modes: the runner's checks
    pass, every row is timed and has a target."""
    cases = run.package_cases([8], seed=1, workdir=tmp_path, people=True)
    assert [c.group for c in cases] == ["people-files-first", "people-files-again", "people-krm-first", "people-krm-again"]
    rows = run.measure_cases(cases, repeat=1)
    text = run.table(rows, 1) + run.targets(rows)
    assert text.count("| package of 8 PipelineRun files as people write them") == 4 + 4
    runs = gen.package(8, seed=1, people=True)
    assert any(t.startswith("# Copyright") for t in runs.values()) and any(">-" in t for t in runs.values())


def test_floors_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert floors.main(["--files", "2", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    figures = re.findall(r"^(.+?) (\d+\.\d\d)x .*\((\d+\.\d+) (?:ms|s)", out, re.M)
    assert [f[0].split(":")[0] for f in figures] == ["files mode, first render"] * 4 + ["one ResourceList, first render"] * 2 + ["files mode, --check"] * 2 + ["cold start"]
    assert all(float(ratio) > 0 for _what, ratio, _t in figures)
    assert "replacing the 2 files it changes atomically" in out  # the two run files


def test_floors_replace_atomically_leaves_the_new_bytes_and_no_temp_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_bytes(b"old: 1\n")
    floors.replace_atomically({a: b"new: 1\n", b: b"new: 2\n"})
    assert a.read_bytes() == b"new: 1\n" and b.read_bytes() == b"new: 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]


def test_floors_own_reading_reads_runs_and_peeks_placeholders(tmp_path: Path) -> None:
    """What the --check floor counts: a rendered package read without the round-trip loader,
    its placeholders' claim templates by peek (which raises when unsure, failing this)."""
    files = gen.package(3, 1)
    gen.write_package(files, tmp_path)
    subprocess.run([*run.fn_command(), "--config", str(tmp_path / "coschedule-policy.yaml"), str(tmp_path)], capture_output=True, check=False)
    assert "kind: StatefulSet" in (tmp_path / "runs" / "nightly-00000.yaml").read_text()
    from krm_fn.io import items

    loads: list[bool] = []
    real = items.Item.load

    def counting(self: items.Item, light: bool = False, positions: bool = True) -> object:
        loads.append(light)
        return real(self, light, positions)

    items.Item.load = counting  # type: ignore[method-assign]
    try:
        floors.own_reading(tmp_path)
    finally:
        items.Item.load = real  # type: ignore[method-assign]
    assert loads and all(loads)
    assert len(loads) == sum(t.count("\nkind: ") + t.startswith("kind: ") for p, t in files.items() if p.endswith(".yaml") or p == "Kptfile")  # not the placeholders


def test_stream_cases_render_check_and_diff(tmp_path: Path) -> None:
    """The one-file workload: the first render, --check of the rendered file (exit 0) and
    --check --diff of the file as generated (exit 1), each run with its expected exit code."""
    cases = run.stream_cases([40], seed=1, workdir=tmp_path)
    assert [c.group for c in cases] == ["stream-first", "stream-again", "stream-diff"]
    rows = run.measure_cases(cases, repeat=1)
    assert all(r.wall("fn") > 0 for r in rows)
    out = run.capture(cases[2].fn).decode()
    assert out.startswith("--- a/") and "+kind: StatefulSet\n" in out


def test_a_command_s_environment_reaches_it_and_the_cache_is_off_by_default() -> None:
    """Cmd.env goes through the launcher (the cache rows turn the verdict cache on); every
    other command runs with it off, in the benchmark's own cache directory."""
    probe = "import os, sys; sys.exit(0 if os.environ['KRM_COSCHEDULE_NO_CACHE'] == sys.argv[1] and os.environ['XDG_CACHE_HOME'] == sys.argv[2] else 3)"
    home = str(run.CACHE_HOME)  # this test's (the fixture above)
    run.measure(run.Cmd([sys.executable, "-c", probe, "1", home]))
    run.measure(run.Cmd([sys.executable, "-c", probe, "0", home], env=run.CACHE_ON))
    run.capture(run.Cmd([sys.executable, "-c", probe, "0", home], env=run.CACHE_ON))
    with pytest.raises(SystemExit):
        run.measure(run.Cmd([sys.executable, "-c", probe, "0", home]))


def test_restore_moves_the_spent_copy_aside(tmp_path: Path) -> None:
    """Each restore puts a fresh copy of the package in place and keeps the spent one: deleting
    it just before a timed run would charge the kernel's scan of recently deleted inodes (ext4
    without a journal) to the function's next file creations."""
    orig, work = tmp_path / "orig", tmp_path / "work"
    orig.mkdir()
    (orig / "a.yaml").write_text("a: 1\n")
    restore = run._restore(orig, work)
    restore()
    (work / "a.yaml").write_text("a: 2\n")  # what a render does to the copy
    spent_inode = (work / "a.yaml").stat().st_ino
    restore()
    assert (work / "a.yaml").read_text() == "a: 1\n"
    aside = tmp_path / "work.spent-1" / "a.yaml"
    assert aside.read_text() == "a: 2\n" and aside.stat().st_ino == spent_inode  # moved, not copied or deleted
    restore()
    assert (tmp_path / "work.spent-2").is_dir()
