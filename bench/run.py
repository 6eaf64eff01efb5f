"""Benchmark krm-coschedule against a plain libyaml round trip and a bare interpreter.

Every workload is measured as subprocesses with the same interpreter, the function and its
baselines one after another inside each repetition (so machine noise hits all of them
alike); the report gives medians, ratios, each command's peak RSS (os.wait4 rusage of that
very child), growth from the smallest to the largest size of a workload, and the targets of
issue 13 with met or missed.

Workloads (`--workloads`, default all):

- `one`: one PipelineRun on stdin, against `python -c pass` (cold start);
- `list`: N items at 5% targets (`--sizes`), KRM mode;
- `list100`: N items at 100% targets (`--full-sizes`), KRM mode;
- `files`: a kpt package of N PipelineRun files (`--files`) in files mode: the first render
  (writes every run file), the re-render with `--check` (must change nothing, exit 0), and
  `--check` of one run file of the rendered package, the others read as context (what
  pre-commit runs for a commit that touches one file);
- `krm`: the same package as one ResourceList, KRM mode: first render, and the rendered
  output (results left out, as kpt reads the files again) fed back;
- `stream`: one file of N documents, 5% targets (`--documents`), in files mode: first render,
  re-render with `--check` (the cost of documents per file), and `--check --diff` of the file
  before its first render (pre-commit's check hook);
- `people`: the package of `files` and `krm` with what people put in their files
  (gen.people_run: license headers, non-ASCII text, folded scalars, escapes, flow style,
  trailing blanks, end-of-file comments), in both modes.

    python bench/run.py                                   # everything, 5 repetitions
    python bench/run.py --workloads files krm --files 150 1500 --repeat 3 --markdown out.md
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
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (bench/ is a directory of scripts, not a package)

LIBYAML_SCRIPT = (
    "import sys, yaml\n"
    "data = yaml.load(sys.stdin.buffer, Loader=yaml.CSafeLoader)\n"
    "yaml.dump(data, sys.stdout, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False)\n"
)

# the same job over a package: every file the function reads (its YAML files and the
# Kptfile), all documents loaded and dumped again; the text goes to stdout (/dev/null)
LIBYAML_FILES_SCRIPT = (
    "import os, sys, yaml\n"
    "for root, dirs, files in os.walk(sys.argv[1]):\n"
    "    dirs[:] = sorted(d for d in dirs if not d.startswith('.'))\n"
    "    for f in sorted(files):\n"
    "        if f == 'Kptfile' or f.endswith(('.yaml', '.yml')):\n"
    "            with open(os.path.join(root, f), 'rb') as fh:\n"
    "                docs = list(yaml.load_all(fh, Loader=yaml.CSafeLoader))\n"
    "            sys.stdout.write(yaml.dump_all(docs, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False))\n"
)

WORKLOADS = ("one", "list", "list100", "files", "krm", "stream", "people")


@dataclasses.dataclass
class Input:
    """A KRM-mode input: `items` objects as one ResourceList text."""

    label: str
    items: int
    text: str


@dataclasses.dataclass
class Cmd:
    """One command to time: argv, stdin file (None: /dev/null), the exit codes it may give,
    an untimed step before every run (putting a package back as it was), and environment
    variables set on top of child_env() (the verdict cache turned on)."""

    argv: list[str]
    stdin: Path | None = None
    ok: tuple[int, ...] = (0,)
    prepare: Callable[[], None] | None = None
    env: dict[str, str] | None = None


@dataclasses.dataclass
class Case:
    """One row: the function's command and its libyaml baseline on the same YAML. `group`
    names the workload (rows of one group at several sizes give the growth line)."""

    label: str
    group: str
    n: int  # items, or files in the package
    size: int  # bytes of YAML the function reads
    fn: Cmd
    libyaml: Cmd
    # the libyaml round trip of what the function writes (the first render's output), when that
    # is not its input: issue 34's first-render target is against it
    written: Cmd | None = None


@dataclasses.dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds of the child
    rss_kb: int  # peak resident set size
    sys: float = 0.0  # the system part of cpu (the kernel's work: file creation, fsync, page faults)


@dataclasses.dataclass
class Row:
    label: str
    items: int
    size: int
    runs: dict[str, list[Sample]]  # "fn", "libyaml", "python"
    group: str = "list"

    def wall(self, name: str) -> float:
        return statistics.median(s.wall for s in self.runs[name])

    def cpu(self, name: str) -> float:
        return statistics.median(s.cpu for s in self.runs[name])

    def sys(self, name: str) -> float:
        return statistics.median(s.sys for s in self.runs[name])

    def user(self, name: str) -> float:
        return statistics.median(s.cpu - s.sys for s in self.runs[name])

    def rss_mb(self, name: str) -> float:
        return max(s.rss_kb for s in self.runs[name]) / 1024


# (group, what is compared, bound): issue 13's targets; "libyaml" and "python" are ratios of
# the function's wall-time median to that baseline's, "rss" the peak in MB at 10,000 items,
# "growth" the function's time from the smallest to the largest size (10x the input)
TARGETS: tuple[tuple[str, str, float], ...] = (
    ("list", "libyaml", 0.1),
    ("list100", "libyaml", 0.5),
    ("files-first", "libyaml", 0.3),
    ("files-again", "libyaml", 0.3),
    ("krm-first", "libyaml", 0.3),
    ("krm-again", "libyaml", 0.3),
    ("one", "python", 2.0),
    # issue 34: the verdict cache warm and empty, one staged file, any input with untouched objects
    ("one", "python", 3.0),
    ("twenty", "python", 3.0),
    ("files-warm", "libyaml", 0.05),
    ("files-empty", "libyaml", 0.35),
    ("files-again", "libyaml", 0.35),
    ("files-first", "written", 0.5),
    ("files-one", "libyaml", 0.1),
    ("list", "rss", 150.0),
    ("list100", "rss", 150.0),
    ("list", "growth", 10.0),
    ("list100", "growth", 10.0),
    ("files-first", "growth", 10.0),
    ("files-again", "growth", 10.0),
    ("krm-first", "growth", 10.0),
    ("krm-again", "growth", 10.0),
    ("stream-first", "growth", 10.0),
    ("stream-again", "growth", 10.0),
    # not among issue 13's workloads: the same targets as the package's, on runs as people write them
    ("people-files-first", "libyaml", 0.3),
    ("people-files-again", "libyaml", 0.3),
    ("people-krm-first", "libyaml", 0.3),
    ("people-krm-again", "libyaml", 0.3),
)


# files mode's verdict cache (issue 34) of every run of the function: a directory of the
# benchmark's own (the user's cache is never touched), turned off but where a row says
# otherwise (CACHE_ON): the other rows measure the work itself, as before the cache
CACHE_HOME = Path(tempfile.gettempdir()) / f"krm-bench-cache-{os.getpid()}"
CACHE_ON = {"KRM_COSCHEDULE_NO_CACHE": "0"}


def child_env() -> dict[str, str]:
    """The children's environment: bytecode caching on (an installed package has its .pyc
    files; without them every start recompiles krm_fn, ~40 ms); the verdict cache off, kept
    in CACHE_HOME."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["XDG_CACHE_HOME"] = str(CACHE_HOME)
    env["KRM_COSCHEDULE_NO_CACHE"] = "1"
    return env


def _empty_cache() -> None:
    shutil.rmtree(CACHE_HOME / "krm-coschedule", ignore_errors=True)


def fn_command() -> list[str]:
    """The installed console script next to this interpreter (else the one on PATH)."""
    here = Path(sys.executable).parent / "krm-coschedule"
    if here.exists():
        return [str(here)]
    found = shutil.which("krm-coschedule")
    if not found:
        raise SystemExit("krm-coschedule is not installed: pip install . first")
    return [found]


# Every timed command is started by this small launcher, not by the runner itself: a child's
# peak RSS (ru_maxrss) starts at the peak of the process that spawned it (vfork and exec keep
# the spawner's high-water mark), and the runner holds the generated inputs (100 MB and more).
# The launcher imports nothing beyond os, sys and time: its own ~9 MB are the floor of every
# RSS figure, about that of `python -c pass`. One request per line: stdin, stderr file, the
# environment variables to set (`=` then NUL-separated K=V), argv, each in hex (an argument
# may hold newlines); one answer per line: wall, CPU, peak RSS (KB), exit code, system CPU.
LAUNCHER_SCRIPT = r"""
import os, sys, time
for line in sys.stdin:
    stdin, err, extra, *argv = [bytes.fromhex(f).decode() for f in line.split()]
    env = dict(os.environ)
    env.update(kv.split("=", 1) for kv in extra[1:].split("\0") if kv)
    acts = [(os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    sys.stdout.write(f"{wall} {ru.ru_utime + ru.ru_stime} {ru.ru_maxrss} {os.waitstatus_to_exitcode(status)} {ru.ru_stime}\n")
    sys.stdout.flush()
"""


class Launcher:
    """The launcher process (started on first use, kept for the whole run)."""

    proc: subprocess.Popen[str] | None = None

    @classmethod
    def run(
        cls, argv: Sequence[str], stdin: Path | None, err: Path, env: dict[str, str] | None = None
    ) -> tuple[float, float, int, int, float]:
        if cls.proc is None or cls.proc.poll() is not None:
            cls.proc = subprocess.Popen(
                [sys.executable, "-S", "-c", LAUNCHER_SCRIPT],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env(),
            )
        assert cls.proc.stdin is not None and cls.proc.stdout is not None
        extra = "=" + "\0".join(f"{k}={v}" for k, v in (env or {}).items())
        cls.proc.stdin.write(" ".join(f.encode().hex() for f in [str(stdin or os.devnull), str(err), extra, *argv]) + "\n")
        cls.proc.stdin.flush()
        wall, cpu, rss, code, system = cls.proc.stdout.readline().split()
        return float(wall), float(cpu), int(rss), int(code), float(system)


def measure(cmd: Cmd | Sequence[str], stdin_path: Path | None = None) -> Sample:
    """Wall time, CPU time and peak RSS of one run of `cmd` (stdout to /dev/null), from
    os.wait4 in the launcher: the rusage of that very child, not a running maximum over all
    children."""
    if not isinstance(cmd, Cmd):
        cmd = Cmd(list(cmd), stdin_path)
    if cmd.prepare is not None:
        cmd.prepare()
    with tempfile.TemporaryDirectory(prefix="krm-bench-err-") as d:
        err = Path(d) / "stderr"
        # the cache's variables with every request: the launcher's own environment is the
        # one it started with (CACHE_HOME may be another now)
        env = {"XDG_CACHE_HOME": str(CACHE_HOME), "KRM_COSCHEDULE_NO_CACHE": "1", **(cmd.env or {})}
        wall, cpu, rss, code, system = Launcher.run(cmd.argv, cmd.stdin, err, env)
        if code not in cmd.ok:
            text = err.read_text(errors="replace") if err.exists() else ""
            raise SystemExit(f"{' '.join(cmd.argv)} exited {code}: {text[-2000:]}")
    return Sample(wall, cpu, rss, system)


def capture(cmd: Cmd) -> bytes:
    """Run `cmd` once (untimed: warm-up and checks); its stdout."""
    if cmd.prepare is not None:
        cmd.prepare()
    with open(cmd.stdin or os.devnull, "rb") as fin:
        p = subprocess.run(cmd.argv, stdin=fin, capture_output=True, env={**child_env(), **(cmd.env or {})})
    if p.returncode not in cmd.ok:
        raise SystemExit(f"{' '.join(cmd.argv)} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
    return p.stdout


def inputs(sizes: Sequence[int], targets: float, seed: int) -> list[Input]:
    out = [Input("1 PipelineRun", 1, gen.generate(1, 1.0, seed))]
    for n in sizes:
        out.append(Input(f"{n:,} items, {targets:.0%} targets", n, gen.generate(n, targets, seed)))
    return out


def list_cases(lists: Sequence[Input], workdir: Path, group: str = "list") -> list[Case]:
    """KRM-mode cases: each input on stdin, against the libyaml round trip of that stdin."""
    fn = fn_command()
    out = []
    for inp in lists:
        path = workdir / f"{group}-{inp.items}.yaml"
        path.write_text(inp.text)
        g = "one" if inp.items == 1 and inp.label.startswith("1 ") else group
        out.append(Case(inp.label, g, inp.items, len(inp.text.encode()), Cmd(fn, path), _libyaml(path)))
    return out


def _libyaml(stdin: Path) -> Cmd:
    return Cmd([sys.executable, "-c", LIBYAML_SCRIPT], stdin)


def _libyaml_files(root: Path) -> Cmd:
    return Cmd([sys.executable, "-c", LIBYAML_FILES_SCRIPT, str(root)])


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _restore(orig: Path, work: Path) -> Callable[[], None]:
    """Put a fresh copy of `orig` at `work` before a timed run that rewrites it. The spent copy
    is moved aside, not deleted: the benchmark's temp directory goes at the end of the run.
    Deleting 1,500 files just before the run made the kernel pay for it inside the run: ext4
    without a journal scans past recently deleted inodes each time a file is created, and the
    function creates one temp file per file it writes (1.0-1.9 s of system time against
    0.6-0.7 s with the spent copy moved aside, on this machine). A user's package was not
    deleted and copied a moment before they render it."""
    spent = iter(range(1, 1 << 30))

    def go() -> None:
        if work.exists():
            while True:
                aside = work.with_name(f"{work.name}.spent-{next(spent)}")
                if not aside.exists():
                    break
            work.rename(aside)
        shutil.copytree(orig, work)

    return go


def package_cases(
    runs: Sequence[int], seed: int, workdir: Path, modes: Sequence[str] = ("files", "krm"), people: bool = False
) -> list[Case]:
    """For each size: the package in files mode (first render, re-render with --check) and as
    one ResourceList in KRM mode (first render, the output fed back). Checks that the first
    render changes the runs and the re-render changes nothing. `people`: the runs as
    gen.people_run writes them (groups `people-files-first`...)."""
    fn = fn_command()
    out: list[Case] = []
    prefix = "people-" if people else ""
    for n in runs:
        base = workdir / f"{prefix}pkg-{n}"
        files = gen.package(n, seed, people)
        orig, work, rendered = base / "orig", base / "work", base / "rendered"
        gen.write_package(files, orig)
        size = sum(len(t.encode()) for t in files.values())
        label = f"package of {n:,} PipelineRun files" + (" as people write them" if people else "")
        if "files" in modes:
            _restore(orig, rendered)()
            policy = rendered / "coschedule-policy.yaml"
            capture(Cmd([*fn, "--config", str(policy), str(rendered)], ok=(1,)))  # the rendering
            snapshot = _tree(rendered)
            if snapshot == _tree(orig):
                raise SystemExit(f"{label}: the first render changed nothing")
            first = Cmd([*fn, "--config", str(work / "coschedule-policy.yaml"), str(work)], ok=(1,), prepare=_restore(orig, work))
            again = Cmd([*fn, "--check", "--config", str(policy), str(rendered)], ok=(0,))
            capture(again)
            if _tree(rendered) != snapshot:
                raise SystemExit(f"{label}: the re-render with --check changed files")
            rsize = sum(len(b) for b in snapshot.values())
            out.append(Case(f"{label}: first render", prefix + "files-first", n, size, first, _libyaml_files(orig), _libyaml_files(rendered)))
            out.append(Case(f"{label}: re-render --check", prefix + "files-again", n, rsize, again, _libyaml_files(rendered)))
            if not people:
                # issue 34: the same --check with the verdict cache: warm (the warm-up run keeps
                # the clean verdict), and empty before every run (a miss that keeps one)
                warm = dataclasses.replace(again, env=CACHE_ON)
                empty = dataclasses.replace(again, env=CACHE_ON, prepare=_empty_cache)
                out.append(Case(f"{label}: re-render --check, cache warm", "files-warm", n, rsize, warm, _libyaml_files(rendered)))
                out.append(Case(f"{label}: re-render --check, cache empty", "files-empty", n, rsize, empty, _libyaml_files(rendered)))
                # what pre-commit runs when a commit touches one run file: that file given, the
                # rest of the package read as context (against the package's round trip)
                staged = sorted((rendered / "runs").iterdir())[n // 2]
                one = Cmd([*fn, "--check", "--config", str(policy), str(staged)], ok=(0,))
                capture(one)
                out.append(Case(f"{label}: --check of one staged run file", "files-one", n, rsize, one, _libyaml_files(rendered)))
                one_warm = dataclasses.replace(one, env=CACHE_ON)
                out.append(Case(
                    f"{label}: --check of one staged run file, cache warm", "files-one-warm", n, rsize, one_warm, _libyaml_files(rendered)
                ))
        if "krm" in modes:
            rl = base / "list.yaml"
            rl.write_text(gen.package_resource_list(files))
            first_k = Cmd(list(fn), rl)
            output = capture(first_k).decode()
            again_text = output.split("\nresults:\n", 1)[0] + "\n"
            if again_text == rl.read_text():
                raise SystemExit(f"{label}: KRM mode changed nothing")
            rl2 = base / "list-rendered.yaml"
            rl2.write_text(again_text)
            again_k = Cmd(list(fn), rl2)
            if capture(again_k).decode().split("\nresults:\n", 1)[0] + "\n" != again_text:
                raise SystemExit(f"{label}: the KRM re-render changed items")
            out.append(Case(f"{label}, one ResourceList: first render", prefix + "krm-first", n, len(rl.read_bytes()), first_k, _libyaml(rl)))
            out.append(Case(f"{label}, one ResourceList: re-render", prefix + "krm-again", n, len(again_text.encode()), again_k, _libyaml(rl2)))
    return out


def stream_cases(sizes: Sequence[int], seed: int, workdir: Path) -> list[Case]:
    """For each size: one file of that many documents in files mode, first render and
    re-render with --check."""
    fn = fn_command()
    out: list[Case] = []
    for n in sizes:
        base = workdir / f"stream-{n}"
        orig, work, rendered = base / "orig", base / "work", base / "rendered"
        for d in (orig, rendered):
            d.mkdir(parents=True)
            (d / "all.yaml").write_text(gen.documents(n, 0.05, seed))
            (d / "policy.yaml").write_text(gen.PACKAGE_POLICY)
        render = Cmd([*fn, "--config", str(rendered / "policy.yaml"), str(rendered / "all.yaml")], ok=(1,))
        capture(render)
        again = Cmd([*fn, "--check", "--config", str(rendered / "policy.yaml"), str(rendered / "all.yaml")], ok=(0,))
        first = Cmd([*fn, "--config", str(work / "policy.yaml"), str(work / "all.yaml")], ok=(1,), prepare=_restore(orig, work))
        label = f"one file of {n:,} documents, 5% targets"
        size = len((orig / "all.yaml").read_bytes())
        rsize = len((rendered / "all.yaml").read_bytes())
        out.append(Case(f"{label}: first render", "stream-first", n, size, first, _libyaml_files(orig)))
        out.append(Case(f"{label}: re-render --check", "stream-again", n, rsize, again, _libyaml_files(rendered)))
        # pre-commit's check hook (--check --diff) on the file before its first render
        diff = Cmd([*fn, "--check", "--diff", "--config", str(orig / "policy.yaml"), str(orig / "all.yaml")], ok=(1,))
        out.append(Case(f"{label}: --check --diff before the first render", "stream-diff", n, size, diff, _libyaml_files(orig)))
    return out


def measure_cases(cases: Sequence[Case], repeat: int) -> list[Row]:
    bare = Cmd([sys.executable, "-c", "pass"])
    rows = []
    for case in cases:
        capture(case.fn)  # warm-up (page cache, .pyc files), and a check that it runs
        cmds = [("fn", case.fn), ("libyaml", case.libyaml), ("python", bare)]
        if case.written is not None:
            cmds.append(("written", case.written))
        runs: dict[str, list[Sample]] = {name: [] for name, _cmd in cmds}
        for _ in range(repeat):
            for name, cmd in cmds:
                runs[name].append(measure(cmd))
        rows.append(Row(case.label, case.n, case.size, runs, case.group))
    return rows


def run(cases: Sequence[Input], repeat: int, workdir: Path) -> list[Row]:
    """KRM-mode rows for ResourceList inputs (the one-PipelineRun input and lists)."""
    return measure_cases(list_cases(cases, workdir), repeat)


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
    try:  # pip before 25.2 wrote a console script that imports `re` first (26 M instructions)
        if "\nimport re\n" in Path(fn_command()[0]).read_text(encoding="utf-8", errors="replace"):
            install += "; its console script imports `re` (pip before 25.2: upgrade pip, reinstall)"
    except (OSError, SystemExit):
        pass
    return (
        f"{os.cpu_count()} CPUs ({cpu}), load average {load():.1f} at start; Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}; krm_fn: {install}"
    )


def load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def table(rows: Sequence[Row], repeat: int) -> str:
    """The results as one markdown table plus the growth lines."""
    out = [
        f"Medians of {repeat} runs; wall and CPU (user + system) seconds; the ratios divide medians; "
        "RSS is the peak resident memory of one run.",
        "",
        "| input | size | krm-coschedule wall (CPU) | libyaml round trip wall (CPU) | `python -c pass` wall (CPU) "
        "| fn / libyaml wall (CPU) | fn / python wall (CPU) | fn peak RSS | libyaml peak RSS "
        "| fn / libyaml of what it writes wall (CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.label} | {_size(r.size)} "
            f"| {r.wall('fn'):.3f} ({r.cpu('fn'):.3f}) "
            f"| {r.wall('libyaml'):.3f} ({r.cpu('libyaml'):.3f}) "
            f"| {r.wall('python'):.3f} ({r.cpu('python'):.3f}) "
            f"| {r.wall('fn') / r.wall('libyaml'):.2f}x ({r.cpu('fn') / r.cpu('libyaml'):.2f}x) "
            f"| {r.wall('fn') / r.wall('python'):.1f}x ({r.cpu('fn') / r.cpu('python'):.1f}x) "
            f"| {r.rss_mb('fn'):.0f} MB | {r.rss_mb('libyaml'):.0f} MB "
            + (f"| {r.wall('fn') / r.wall('written'):.2f}x ({r.cpu('fn') / r.cpu('written'):.2f}x) |" if "written" in r.runs else "| |")
        )
    growth = [g for g in (_growth(rows, group) for group in _groups(rows)) if g is not None]
    if growth:
        out.append("")
        out.extend(line for _, _, line in growth)
    return "\n".join(out) + "\n"


def _groups(rows: Sequence[Row]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        if r.group not in seen:
            seen.append(r.group)
    return seen


def _growth(rows: Sequence[Row], group: str) -> tuple[float, float, str] | None:
    """(wall growth, CPU growth, sentence) of the function from the smallest to the largest
    size of `group`; None for fewer than two sizes."""
    big = sorted((r for r in rows if r.group == group), key=lambda r: r.items)
    if len(big) < 2 or big[0].items == big[-1].items:
        return None
    a, b = big[0], big[-1]
    unit = "files" if group.startswith(("files", "krm", "people")) else "documents" if group.startswith("stream") else "items"
    what = {"stream-first": " (one file, first render)", "stream-again": " (one file, re-render)", "stream-diff": " (one file, --check --diff)","files-first": " (files mode, first render)", "files-again": " (files mode, re-render)", "files-one": " (files mode, --check of one staged file)",
            "krm-first": " (package as one ResourceList, first render)", "krm-again": " (package as one ResourceList, re-render)",
            "list100": " (100% targets)", "files-warm": " (files mode, --check, cache warm)",
            "files-empty": " (files mode, --check, cache empty)", "files-one-warm": " (files mode, one staged file, cache warm)"}.get(group.removeprefix("people-"), "") + (" (as people write them)" if group.startswith("people-") else "")
    gw, gc = b.wall("fn") / a.wall("fn"), b.cpu("fn") / a.cpu("fn")
    line = (
        f"Growth from {a.items:,} to {b.items:,} {unit}{what} ({b.items / a.items:.0f}x the input), wall (CPU): "
        f"krm-coschedule {gw:.1f}x ({gc:.1f}x), "
        f"libyaml round trip {b.wall('libyaml') / a.wall('libyaml'):.1f}x "
        f"({b.cpu('libyaml') / a.cpu('libyaml'):.1f}x)."
    )
    return gw, gc, line


def targets(rows: Sequence[Row]) -> str:
    """Issue 13's targets against these rows: the largest size of each workload (ratios and
    RSS), growth from the smallest to the largest. A target without rows is left out."""
    out = ["| workload | target | result | |", "|---|---|---:|---|"]
    for group, what, bound in TARGETS:
        mine = sorted((r for r in rows if r.group == group), key=lambda r: r.items)
        if not mine:
            continue
        r = mine[-1]
        if what == "rss":
            if r.items < 10_000:
                continue
            value, shown, target = r.rss_mb("fn"), f"{r.rss_mb('fn'):.0f} MB", f"peak RSS < {bound:.0f} MB at {r.items:,} items"
            met = value < bound
        elif what == "growth":
            g = _growth(rows, group)
            if g is None:
                continue
            value, shown = g[0], f"{g[0]:.1f}x ({g[1]:.1f}x CPU)"
            target = f"{mine[0].items:,} -> {r.items:,}: time grows <= {bound:.0f}x"
            met = value <= bound
        else:
            if what not in r.runs:
                continue
            value = r.wall("fn") / r.wall(what)
            shown = f"{value:.2f}x ({r.cpu('fn') / r.cpu(what):.2f}x CPU)"
            base = {"libyaml": "libyaml", "written": "libyaml on what it writes"}.get(what, "`python -c pass`")
            target = f"<= {bound:g}x {base}"
            met = value <= bound
        out.append(f"| {r.label} | {target} | {shown} | {'met' if met else 'missed'} |")
    return "\n".join(out) + "\n" + _system_time(rows)


def _system_time(rows: Sequence[Row]) -> str:
    """For the rows that write files: how much of the function's CPU is system time (the
    kernel creating, syncing and renaming the temp files; on a file system without a journal,
    ext4 also scans past recently deleted inodes on every file it creates), and the ratio of
    user CPU alone. The targets stay on user + system: this says where the rest goes."""
    lines = [
        f"- {r.label}: system time {r.sys('fn'):.2f} s of the function's {r.cpu('fn'):.2f} s CPU; "
        f"user CPU alone {r.user('fn') / r.user('written'):.2f}x libyaml's on what it writes"
        for r in rows
        if "written" in r.runs and r.user("written") > 0
    ]
    return "\n" + "\n".join(lines) + "\n" if lines else ""


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KB"
    return f"{n} B"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="*", choices=WORKLOADS, default=list(WORKLOADS))
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000], help="items of the 5%% lists")
    ap.add_argument("--full-sizes", type=int, nargs="*", default=[1000, 10000], help="items of the 100%% lists")
    ap.add_argument("--files", type=int, nargs="*", default=[150, 1500], help="PipelineRun files of the packages")
    ap.add_argument("--documents", type=int, nargs="*", default=[2000, 20000], help="documents in one file")
    ap.add_argument("--targets", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--markdown", type=Path, help="also write the report to this file")
    a = ap.parse_args(argv)
    started = f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
    where = machine()
    with tempfile.TemporaryDirectory(prefix="krm-bench-") as d:
        work = Path(d)
        cases: list[Case] = []
        if "one" in a.workloads:
            cases += list_cases([Input("1 PipelineRun", 1, gen.generate(1, 1.0, a.seed))], work)
            # issue 34: a small mixed input (one target, 19 objects left untouched), cold start
            cases += list_cases([Input("20 items, 5% targets", 20, gen.generate(20, 0.05, a.seed))], work, "twenty")
        if "list" in a.workloads:
            cases += list_cases(inputs(a.sizes, a.targets, a.seed)[1:], work)
        if "list100" in a.workloads:
            full = [Input(f"{n:,} items, 100% targets", n, gen.generate(n, 1.0, a.seed)) for n in a.full_sizes]
            cases += list_cases(full, work, "list100")
        modes = [m for m in ("files", "krm") if m in a.workloads]
        if modes:
            cases += package_cases(a.files, a.seed, work, modes)
        if "stream" in a.workloads:
            cases += stream_cases(a.documents, a.seed, work)
        if "people" in a.workloads:
            cases += package_cases(a.files, a.seed, work, people=True)
        try:
            rows = measure_cases(cases, a.repeat)
        finally:
            shutil.rmtree(CACHE_HOME, ignore_errors=True)
    report = (
        f"Machine: {where}; load average {load():.1f} at the end\n"
        f"Date: {started}\n\n"
        + table(rows, a.repeat)
        + "\nTargets (issues 13 and 34):\n\n"
        + targets(rows)
    )
    sys.stdout.write(report)
    if a.markdown:
        a.markdown.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
