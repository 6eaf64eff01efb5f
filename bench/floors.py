"""Lower bounds under issue 13's missed targets, measured on this machine in one run.

`run.py` times the function against a libyaml load+dump of the same YAML. Some of its targets
ask for less than parts of the job cost on their own, whoever does them. This script times
those parts, as ratios to the same baselines `run.py` uses:

- first render (files mode and one ResourceList): libyaml's C emitter, and the function's own
  emitter (emitter.dump_block), writing only the data the function's output holds (no input
  read, nothing transformed), the function's reading of the input, and (files mode) replacing
  the files it changes as any safe writer must (temp file, rename), against the load+dump of
  the input. The output is about seven times the input: every run gets its placeholder
  StatefulSets, and the results list what was done.
- re-render with `--check`: libyaml loading the rendered package alone, and the function's
  own reading of it (every file read and split, every object read by its light reader but
  the placeholders, of which the claim templates are read; nothing transformed or
  compared), against the load+dump of the rendered package.
- cold start: `python -c "import re"` against `python -c pass`. The console script pip writes
  for `krm-coschedule` imports `re` before it calls the function.

    python bench/floors.py                    # 1,500 PipelineRun files, 3 repetitions
    python bench/floors.py --files 150 --repeat 5
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (bench/ is a directory of scripts, not a package)
from run import child_env  # noqa: E402
from run import fn_command  # noqa: E402
from run import machine  # noqa: E402

DUMP: dict[str, Any] = {"Dumper": yaml.CSafeDumper, "default_flow_style": False, "sort_keys": False}


def best(f: Callable[[], object], repeat: int, collector: bool = True, prepare: Callable[[], object] | None = None) -> float:
    """The shortest of `repeat` timings of f, in seconds. `collector`: with the cyclic garbage
    collector on, as in the libyaml baselines of run.py; the function's own parts run without
    it, as the function does (cli and process turn it off while they work). `prepare`: an
    untimed step before each timing."""
    times = []
    for _ in range(repeat):
        if prepare is not None:
            prepare()
        gc.collect()
        if not collector:
            gc.disable()
        try:
            start = time.perf_counter()
            f()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def yaml_files(root: Path) -> list[Path]:
    """The files the function and the libyaml baseline read, in run.py's order."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out += [Path(d) / f for f in sorted(files) if f == "Kptfile" or f.endswith((".yaml", ".yml"))]
    return out


def load_all(paths: list[Path]) -> list[list[object]]:
    return [list(yaml.load_all(p.read_bytes(), Loader=yaml.CSafeLoader)) for p in paths]


def round_trip(paths: list[Path]) -> None:
    for docs in load_all(paths):
        yaml.dump_all(docs, **DUMP)


def dump_only(data: list[list[object]]) -> None:
    for docs in data:
        yaml.dump_all(docs, **DUMP)


def replace_atomically(texts: dict[Path, bytes]) -> None:
    """Each file replaced as a safe writer must (a temp file beside it, then a rename: a
    crash never leaves it half written), without even an fsync."""
    for path, data in texts.items():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)


def own_dump(data: list[list[object]]) -> None:
    from krm_fn.yaml import emitter

    for docs in data:
        for doc in docs:
            emitter.dump_block(doc)


def own_reading(root: Path) -> None:
    """What the function reads of a rendered package, and nothing else: every file read and
    split into objects, every object read but the placeholders it generated, and of those
    their claim templates only (the rest of a placeholder is compared as text)."""
    from krm_fn.core.keys import OWNER_ANNOTATION
    from krm_fn.modes import files as kfiles
    from krm_fn.yaml.light import peek

    # deferred, as the function reads a package: the syntax check is left to the documents
    # nothing reads, and a placeholder whose text is the emitter's own needs none
    states, _results = kfiles.read_files([str(p) for p in yaml_files(root)], defer=True)
    for f in states:
        assert f.stream is not None
        for item in f.stream.items:
            if OWNER_ANNOTATION in item.meta.annotations and item.text is not None:
                peek.field(item.text, item.document, ("spec", "volumeClaimTemplates"))
            else:
                item.load(light=True)


def cold(argv: list[str], runs: int) -> float:
    """Median wall time of `runs` starts of argv, stdin /dev/null."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, env=child_env())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def files_first(orig: Path, rendered: Path, scratch: Path, repeat: int) -> list[str]:
    """The files-mode first render's figures (`rendered`: the package after it)."""
    base = best(lambda: round_trip(yaml_files(orig)), repeat)
    data = load_all(yaml_files(rendered))
    emit = best(lambda: dump_only(data), repeat)
    own = best(lambda: own_dump(data), repeat, collector=False)
    read = best(lambda: own_reading(orig), repeat, collector=False)
    changed = {p: p.read_bytes() for p in yaml_files(rendered) if p.read_bytes() != (orig / p.relative_to(rendered)).read_bytes()}
    targets = {scratch / p.relative_to(rendered): b for p, b in changed.items()}
    before = {t: (orig / p.relative_to(rendered)).read_bytes() for t, p in zip(targets, changed, strict=True)}

    def put_back() -> None:  # the files as they were, on disk: a render replaces them
        for t, b in before.items():
            t.parent.mkdir(parents=True, exist_ok=True)
            t.write_bytes(b)
        os.sync()

    write = best(lambda: replace_atomically(targets), repeat, prepare=put_back)
    what = "files mode, first render:"
    return [
        f"{what} libyaml dumping the rendered package's data {emit / base:.2f}x the input's load+dump ({emit:.2f} s / {base:.2f} s)",
        f"{what} the function's own emitter dumping it {own / base:.2f}x ({own:.2f} s)",
        f"{what} the function's own reading of the input {read / base:.2f}x ({read:.2f} s)",
        f"{what} replacing the {len(changed):,} files it changes atomically, no fsync {write / base:.2f}x ({write:.2f} s)",
    ]


def krm_first(rl: Path, out: bytes, repeat: int) -> list[str]:
    """The first render of one ResourceList `rl` (`out`: the function's output)."""
    base = best(lambda: yaml.dump(yaml.load(rl.read_bytes(), Loader=yaml.CSafeLoader), **DUMP), repeat)
    output = yaml.load(out, Loader=yaml.CSafeLoader)
    emit = best(lambda: yaml.dump(output, **DUMP), repeat)
    own = best(lambda: own_dump([[output]]), repeat, collector=False)
    what = "one ResourceList, first render:"
    return [
        f"{what} libyaml dumping the output's data {emit / base:.2f}x the input's load+dump ({emit:.2f} s / {base:.2f} s)",
        f"{what} the function's own emitter dumping it {own / base:.2f}x ({own:.2f} s)",
    ]


def files_check(rendered: Path, repeat: int) -> list[str]:
    base = best(lambda: round_trip(yaml_files(rendered)), repeat)
    load = best(lambda: load_all(yaml_files(rendered)), repeat)
    own = best(lambda: own_reading(rendered), repeat, collector=False)
    return [
        f"files mode, --check: libyaml loading the rendered package {load / base:.2f}x its load+dump ({load:.2f} s / {base:.2f} s)",
        f"files mode, --check: the function's own reading of it {own / base:.2f}x ({own:.2f} s)",
    ]


def cold_start() -> str:
    py = [sys.executable, "-c", "pass"]
    re_ = [sys.executable, "-c", "import re"]
    bare, with_re = [], []
    for _ in range(4):  # alternating, as the machine's load drifts
        bare.append(cold(py, 5))
        with_re.append(cold(re_, 5))
    b, r = statistics.median(bare), statistics.median(with_re)
    return f'cold start: python -c "import re" {r / b:.2f}x python -c pass ({1000 * r:.1f} ms / {1000 * b:.1f} ms)'


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--files", type=int, default=1500, help="PipelineRun files of the package")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    fn = fn_command()
    lines = [f"Machine: {machine()}", f"Package: {a.files:,} PipelineRun files (bench/gen.py, seed {a.seed}); best of {a.repeat}", ""]
    with tempfile.TemporaryDirectory(prefix="krm-floors-") as d:
        orig, rendered = Path(d) / "orig", Path(d) / "rendered"
        files = gen.package(a.files, a.seed)
        gen.write_package(files, orig)
        gen.write_package(files, rendered)
        subprocess.run([*fn, "--config", str(rendered / "coschedule-policy.yaml"), str(rendered)], capture_output=True, check=False)
        rl = Path(d) / "list.yaml"
        rl.write_text(gen.package_resource_list(files))
        with rl.open("rb") as stdin:
            out = subprocess.run(fn, stdin=stdin, capture_output=True, check=True).stdout
        # one part at a time: the data each loads is off the heap before the next
        lines += files_first(orig, rendered, Path(d) / "scratch", a.repeat)
        lines += krm_first(rl, out, a.repeat)
        lines += files_check(rendered, a.repeat)
    lines.append(cold_start())
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
