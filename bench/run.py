"""Benchmark krm-coschedule against a plain libyaml round trip and a bare interpreter.

Every command runs as a subprocess with the same interpreter and the same stdin file, one
after another inside each repetition (so machine noise hits all of them alike); the table
reports medians, ratios and each command's peak RSS (os.wait4 rusage of that very child).

    python bench/run.py                       # 1 PipelineRun, 1,000 and 10,000 items, 5% targets
    python bench/run.py --sizes 1000 --repeat 3 --markdown out.md
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (bench/ is a directory of scripts, not a package)

LIBYAML_SCRIPT = (
    "import sys, yaml\n"
    "data = yaml.load(sys.stdin.buffer, Loader=yaml.CSafeLoader)\n"
    "yaml.dump(data, sys.stdout, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False)\n"
)


@dataclasses.dataclass
class Input:
    label: str
    items: int
    text: str


@dataclasses.dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds of the child
    rss_kb: int  # peak resident set size


@dataclasses.dataclass
class Row:
    label: str
    items: int
    size: int
    runs: dict[str, list[Sample]]  # "fn", "libyaml", "python"

    def wall(self, name: str) -> float:
        return statistics.median(s.wall for s in self.runs[name])

    def cpu(self, name: str) -> float:
        return statistics.median(s.cpu for s in self.runs[name])

    def rss_mb(self, name: str) -> float:
        return max(s.rss_kb for s in self.runs[name]) / 1024


def child_env() -> dict[str, str]:
    """The children's environment: bytecode caching on (an installed package has its .pyc
    files; without them every start recompiles krm_fn, ~40 ms)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def fn_command() -> list[str]:
    """The installed console script next to this interpreter (else the one on PATH)."""
    here = Path(sys.executable).parent / "krm-coschedule"
    if here.exists():
        return [str(here)]
    found = shutil.which("krm-coschedule")
    if not found:
        raise SystemExit("krm-coschedule is not installed: pip install -e . first")
    return [found]


def measure(cmd: Sequence[str], stdin_path: Path) -> Sample:
    """Wall time, CPU time and peak RSS of one run of `cmd` < stdin_path > /dev/null (from
    os.wait4: the rusage of that very child, not a running maximum over all children)."""
    with open(stdin_path, "rb") as fin, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(list(cmd), stdin=fin, stdout=subprocess.DEVNULL, stderr=err, env=child_env())
        _pid, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {err.read().decode()[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss))


def inputs(sizes: Sequence[int], targets: float, seed: int) -> list[Input]:
    out = [Input("1 PipelineRun", 1, gen.generate(1, 1.0, seed))]
    for n in sizes:
        out.append(Input(f"{n:,} items, {targets:.0%} targets", n, gen.generate(n, targets, seed)))
    return out


def run(cases: Sequence[Input], repeat: int, workdir: Path) -> list[Row]:
    fn = fn_command()
    libyaml = [sys.executable, "-c", LIBYAML_SCRIPT]
    bare = [sys.executable, "-c", "pass"]
    rows = []
    for case in cases:
        path = workdir / f"input-{case.items}.yaml"
        path.write_text(case.text)
        # warm-up (page cache, .pyc files), and a check that the function accepts the input
        with open(path, "rb") as fin:
            check = subprocess.run(fn, stdin=fin, capture_output=True, env=child_env())
        if check.returncode != 0 or not check.stdout.startswith(case.text.split("items:", 1)[0].encode()):
            raise SystemExit(f"krm-coschedule failed on {case.label}: {check.stderr.decode()[-2000:]}")
        runs: dict[str, list[Sample]] = {"fn": [], "libyaml": [], "python": []}
        for _ in range(repeat):
            for name, cmd in (("fn", fn), ("libyaml", libyaml), ("python", bare)):
                runs[name].append(measure(cmd, path))
        rows.append(Row(case.label, case.items, len(case.text.encode()), runs))
    return rows


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    where = subprocess.run(
        [sys.executable, "-c", "import krm_fn; print(krm_fn.__file__)"],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    ).stdout.strip()
    install = "regular install" if "site-packages" in where else "editable install (adds ~25 ms to every start)"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} CPUs ({cpu}), load average {load:.1f} at start; Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}; krm_fn: {install}"
    )


def table(rows: Sequence[Row], repeat: int) -> str:
    """The results as one markdown table plus the growth line."""
    out = [
        f"Medians of {repeat} runs; wall and CPU (user + system) seconds; the ratios divide medians; "
        "RSS is the peak resident memory of one run.",
        "",
        "| input | size | krm-coschedule wall (CPU) | libyaml round trip wall (CPU) | `python -c pass` wall (CPU) "
        "| fn / libyaml wall (CPU) | fn / python wall (CPU) | fn peak RSS | libyaml peak RSS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.label} | {_size(r.size)} "
            f"| {r.wall('fn'):.3f} ({r.cpu('fn'):.3f}) "
            f"| {r.wall('libyaml'):.3f} ({r.cpu('libyaml'):.3f}) "
            f"| {r.wall('python'):.3f} ({r.cpu('python'):.3f}) "
            f"| {r.wall('fn') / r.wall('libyaml'):.2f}x ({r.cpu('fn') / r.cpu('libyaml'):.2f}x) "
            f"| {r.wall('fn') / r.wall('python'):.1f}x ({r.cpu('fn') / r.cpu('python'):.1f}x) "
            f"| {r.rss_mb('fn'):.0f} MB | {r.rss_mb('libyaml'):.0f} MB |"
        )
    big = [r for r in rows if r.items > 1]
    if len(big) >= 2:
        a, b = big[0], big[-1]
        out.append("")
        out.append(
            f"Growth from {a.items:,} to {b.items:,} items ({b.items / a.items:.0f}x the input), wall (CPU): "
            f"krm-coschedule {b.wall('fn') / a.wall('fn'):.1f}x ({b.cpu('fn') / a.cpu('fn'):.1f}x), "
            f"libyaml round trip {b.wall('libyaml') / a.wall('libyaml'):.1f}x "
            f"({b.cpu('libyaml') / a.cpu('libyaml'):.1f}x)."
        )
    return "\n".join(out) + "\n"


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KB"
    return f"{n} B"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--targets", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--markdown", type=Path, help="also write the report to this file")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="krm-bench-") as d:
        rows = run(inputs(a.sizes, a.targets, a.seed), a.repeat, Path(d))
    report = (
        f"Machine: {machine()}\n"
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n\n"
        + table(rows, a.repeat)
    )
    sys.stdout.write(report)
    if a.markdown:
        a.markdown.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
