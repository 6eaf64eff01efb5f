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
class Row:
    label: str
    items: int
    size: int
    fn: list[float]
    libyaml: list[float]
    python: list[float]
    fn_rss_kb: int
    libyaml_rss_kb: int
    python_rss_kb: int

    @property
    def fn_s(self) -> float:
        return statistics.median(self.fn)

    @property
    def libyaml_s(self) -> float:
        return statistics.median(self.libyaml)

    @property
    def python_s(self) -> float:
        return statistics.median(self.python)


def fn_command() -> list[str]:
    """The installed console script next to this interpreter (else the one on PATH)."""
    here = Path(sys.executable).parent / "krm-coschedule"
    if here.exists():
        return [str(here)]
    found = shutil.which("krm-coschedule")
    if not found:
        raise SystemExit("krm-coschedule is not installed: pip install -e . first")
    return [found]


def measure(cmd: Sequence[str], stdin_path: Path) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB, exit status) of one run of `cmd` < stdin_path."""
    with open(stdin_path, "rb") as fin, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(list(cmd), stdin=fin, stdout=subprocess.DEVNULL, stderr=err)
        _pid, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {err.read().decode()[-2000:]}")
    return wall, int(usage.ru_maxrss), p.returncode


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
        check = subprocess.run(fn, stdin=open(path, "rb"), capture_output=True)
        if check.returncode != 0:
            raise SystemExit(f"krm-coschedule failed on {case.label}: {check.stderr.decode()[-2000:]}")
        times: dict[str, list[float]] = {"fn": [], "libyaml": [], "python": []}
        rss = {"fn": 0, "libyaml": 0, "python": 0}
        for _ in range(repeat):
            for name, cmd in (("fn", fn), ("libyaml", libyaml), ("python", bare)):
                wall, peak, _code = measure(cmd, path)
                times[name].append(wall)
                rss[name] = max(rss[name], peak)
        rows.append(
            Row(case.label, case.items, len(case.text.encode()), times["fn"], times["libyaml"],
                times["python"], rss["fn"], rss["libyaml"], rss["python"])
        )
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
    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()} "
        f"({sys.executable}), {platform.system()} {platform.release()}"
    )


def table(rows: Sequence[Row], repeat: int) -> str:
    """The results as one markdown table plus the growth line."""
    out = [
        f"Median of {repeat} runs (seconds); ratios are medians divided; RSS is peak resident memory.",
        "",
        "| input | size | krm-coschedule | libyaml round trip | `python -c pass` | fn / libyaml | fn / python | fn peak RSS | libyaml peak RSS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.label} | {_size(r.size)} | {r.fn_s:.3f} | {r.libyaml_s:.3f} | {r.python_s:.3f} | "
            f"{r.fn_s / r.libyaml_s:.2f}x | {r.fn_s / r.python_s:.1f}x | "
            f"{r.fn_rss_kb / 1024:.0f} MB | {r.libyaml_rss_kb / 1024:.0f} MB |"
        )
    big = [r for r in rows if r.items > 1]
    if len(big) >= 2:
        a, b = big[0], big[-1]
        out.append("")
        out.append(
            f"Growth from {a.items:,} to {b.items:,} items ({b.items / a.items:.0f}x the input): "
            f"krm-coschedule {b.fn_s / a.fn_s:.1f}x, libyaml round trip {b.libyaml_s / a.libyaml_s:.1f}x."
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
