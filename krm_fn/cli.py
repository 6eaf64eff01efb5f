"""Entry points. Only this module touches stdin, stdout (through io.stdio, which reads and
writes their descriptors whole whatever their mode), argv and files."""
from __future__ import annotations

import gc
import os
import sys

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.errors import KrmError
from krm_fn.core.errors import internal_error_message
from krm_fn.core.results import Result
from krm_fn.core.results import result_line
from krm_fn.core.results import summary_line
from krm_fn.core.signals import SIGNAL_NAMES
from krm_fn.core.signals import Held
from krm_fn.core.signals import on_termination
from krm_fn.core.signals import restore_handlers
from krm_fn.core.signals import written

_EPIPE = 32  # errno.EPIPE on Linux, macOS, the BSDs and Windows, without `import errno` at start (issue 34)
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from collections.abc import Sequence
    from typing import Any

USAGE = """\
krm-coschedule: render Tekton coscheduling (TEP-0135) and Shipwright scheduling policy
into manifests at render time.

Usage:
  krm-coschedule                          KRM function: ResourceList on stdin -> stdout
                                          (kpt fn eval --exec, kpt fn render --allow-exec,
                                          container image, kustomize --enable-exec)
  krm-coschedule CONFIG                   kustomize exec plugin: YAML stream on stdin -> stdout
  krm-coschedule [--config POLICY] [--check] [--diff] [--files] [--no-cache] [--format text|json] [-q|-v] FILE|DIR...
                                          rewrite YAML files in place (pre-commit), each with
                                          its package (the directory up to the nearest
                                          Kptfile): the package's other files are context and
                                          its policy is its own unless --config is given.
                                          Besides the files given, only files that depend on
                                          the change are rendered (runs of a changed Pipeline
                                          or Build; every run for a changed policy or
                                          Kptfile; runs whose names could collide with a
                                          changed run's), written only when their render
                                          changed, each said with why; a problem of theirs
                                          the change did not cause (the files given as at
                                          git HEAD give it too) is a warning, not a failure.
                                          Exit 1 when a file changed
      --check                             change nothing; exit 1 when something would change
      --diff                              print a unified diff instead of writing
      --files                             the arguments are files (implied by the flags above)
      --no-cache                          render every package, even one found clean before
                                          with the same bytes (also KRM_COSCHEDULE_NO_CACHE=1)
      --format json                       files, results (with file, line and column) and
                                          integer counts as one JSON object on stdout
      -q, --quiet                         print errors only
      -v, --verbose                       print the info results too
  krm-coschedule explain [--format table|mermaid|json] [--config POLICY] [FILE|DIR...]
                                          print the coscheduling plan (a ResourceList on stdin
                                          when no FILE is given)
  krm-coschedule install-kustomize-plugin [--plugin-home DIR]
                                          install the kustomize plugin executable under
                                          DIR/fn.kpt.dev/v1alpha1/coschedulepolicy/
  krm-coschedule --help | --version

functionConfig: fn.kpt.dev/v1alpha1 CoschedulePolicy, or a ConfigMap with Tekton's keys:
{keys}.
Without one the defaults apply (coschedule: workspaces). kpt's imperative form
`kpt fn eval --exec krm-coschedule DIR -- coschedule=pipelineruns` passes such a ConfigMap.
Every subcommand has --help.
Exit status: 0, or 1 when any error result exists or anything failed (files mode: also when
a file changed); 2 for bad arguments.
"""


def usage() -> str:
    """USAGE with every ConfigMap key, from the table the parser reads (policy.configmap.CONFIGMAP_KEYS)."""
    import textwrap

    from krm_fn.policy.configmap import CONFIGMAP_KEYS

    keys = textwrap.fill(", ".join(CONFIGMAP_KEYS), width=92, break_on_hyphens=False)
    return USAGE.replace("{keys}", keys)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        return _guarded(lambda: _print(usage()))
    if args and args[0] == "--version":
        from krm_fn import __version__

        return _guarded(lambda: _print(f"krm-coschedule {__version__}\n"))
    if not args:
        return _guarded(_krm, krm=True)
    if args[0] == "explain":
        return _guarded(lambda: _explain(args[1:]))
    if args[0] == "install-kustomize-plugin":
        return _guarded(lambda: _install_plugin(args[1:]))
    if len(args) == 1 and not args[0].startswith("-") and not _is_dir(args[0]) and os.path.lexists(args[0]):
        # a path that does not exist is taken as a file to render (files mode says it is
        # missing), not as a plugin config that "cannot be read"
        return _guarded(lambda: _plugin(args[0]))
    return _guarded(lambda: _files(args))


# --------------------------------------------------------------------------- standard streams
#
# Output is UTF-8 whatever the locale (the objects are UTF-8; a POSIX locale would make
# Python refuse them). Text for people (stderr, explain) has its control characters escaped,
# so no object name can drive a terminal. A closed, full or broken stdout is one line on
# stderr and exit 1; stderr itself failing never changes the outcome.


_CONTROL = None  # compiled on first use: most runs print nothing that needs it


def printable(text: str) -> str:
    """`text` with every control character but newline and tab written as an escape."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text  # nothing to escape (most text): the pattern below costs 0.3 ms to compile
    global _CONTROL
    if _CONTROL is None:
        _CONTROL = patterns.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _is_dir(path: str) -> bool:
    """A package directory as the only argument means files mode, not a plugin config."""
    return os.path.isdir(path)


class _Answer:
    """Whether KRM mode has started its answer on stdout (then no second list is written)."""

    started = False


class _Stream:
    """sys.stdout or sys.stderr, looked up at each write (tests replace them), written as
    UTF-8 bytes when it has a binary buffer."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> None:
        stream = getattr(sys, self.name)
        if stream is None:
            raise _closed(self.name)
        from krm_fn.io import stdio

        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a file name that is not UTF-8: its bytes as \xNN
            from krm_fn.core.paths import escaped

            text = escaped(text)
            data = text.encode("utf-8")
        buf = getattr(stream, "buffer", None)
        fd = stdio.fileno(stream)
        try:
            if fd is not None:
                # the descriptor itself, written whole whatever its mode (io.stdio); anything
                # written through the text layer (argparse) goes first
                stdio.flush(stream, fd)
                stdio.write_all(fd, data)
            elif buf is None:
                stream.write(text)
            else:
                stream.flush()
                stdio.write_buffer(buf, data)
        except OSError as e:
            raise _output_failed(e) from None

    def flush(self) -> None:
        from krm_fn.io import stdio

        stream = getattr(sys, self.name)
        if stream is None:
            return
        fd = stdio.fileno(stream)
        try:
            if fd is None:
                stream.flush()
            else:
                stdio.flush(stream, fd)
        except OSError as e:
            raise _output_failed(e) from None


class _People(_Stream):
    """stderr: control characters escaped; a failure to write it is ignored (the exit code
    and, in KRM mode, the results still say everything)."""

    def write(self, text: str) -> None:
        self.write_raw(printable(text))

    def write_raw(self, text: str) -> None:
        """Our own terminal control (the progress line), not escaped."""
        if getattr(sys, self.name) is None:
            return
        try:
            super().write(text)
        except (OSError, ValueError, AttributeError, KrmError):
            pass

    def flush(self) -> None:
        try:
            super().flush()
        except (OSError, ValueError, AttributeError, KrmError):
            pass


_OUT = _Stream("stdout")
_ERR = _People("stderr")


def _read_stdin() -> bytes:
    """All of stdin (io/stdio.read_stdin: the one reader of KRM, plugin and explain mode)."""
    from krm_fn.io import stdio

    if sys.stdin is None:
        raise _closed("stdin")
    return stdio.read_stdin(sys.stdin)


def _closed(name: str) -> Exception:
    return KrmError(f"{name} is closed: nothing to {'write the output to' if name == 'stdout' else 'read'}")


def _write_parts(parts: list[str]) -> None:
    """The output, about a MiB at a time, each piece let go of once written (joined and
    encoded whole, a large output was held three times over)."""
    parts.reverse()
    chunk: list[str] = []
    size = 0
    while parts:
        p = parts.pop()
        chunk.append(p)
        size += len(p)
        if size >= 1 << 20:
            _OUT.write("".join(chunk))
            chunk, size = [], 0
    if chunk:
        _OUT.write("".join(chunk))


def _print(text: str) -> int:
    _OUT.write(text)
    _OUT.flush()
    return 0


def _output_failed(e: OSError) -> Exception:
    """The error for stdout failing, after pointing stdout at /dev/null so that Python's own
    flush at exit does not fail again with a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(e, BrokenPipeError) or e.errno == _EPIPE:
        return KrmError("the reader of stdout closed it before the output was complete (broken pipe)")
    return KrmError(f"cannot write the output to stdout: {e.strerror or e}")


def _guarded(mode: Callable[[], int], krm: bool = False) -> int:
    """The one failure path of every mode (pre-commit's error_handler): a KrmError is one
    line and exit 1; an interrupt (SIGINT, and SIGTERM and SIGHUP the same way) one line and
    exit 128 + the signal's number (130, 143, 129); stdout failing one line and exit 1; anything
    else is a bug: one line that says so and where to report it, exit 1. KRM mode still
    answers with a complete ResourceList carrying the error, so kpt shows it as a result."""
    _Answer.started = False
    previous: dict[int, object] = {}
    try:
        with Held():  # installed together, inside the try: a signal now is one line, not a traceback
            previous.update(on_termination())
        return mode()
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", 2)  # SIGINT, or the signal Terminated carries
        how = "interrupted" if signum == 2 else f"terminated ({SIGNAL_NAMES[signum]})"
        n = written()
        _ERR.write(f"krm-coschedule: {how}; " + (f"after writing {n} file(s)\n" if n else "nothing was written\n"))
        return 128 + signum  # the shell's convention: 130, 143, 129
    except Exception as e:  # noqa: BLE001 - the top of every mode: no traceback reaches the user
        msg = str(e) if isinstance(e, KrmError) else internal_error_message(e)
        if krm and not _Answer.started:
            from krm_fn.modes.krm import error_list

            try:
                _OUT.write(error_list(msg))
                _OUT.flush()
            except (OSError, ValueError, KrmError):
                pass
        _ERR.write(f"krm-coschedule: {msg}\n")
        return 1
    finally:
        with Held():  # put back together; one pending then gets the handler it finds
            restore_handlers(previous)


class _Loading:
    """`with _Loading():` around a mode's first imports of the package: the cyclic collector
    stays off while the modules load (they make tens of thousands of objects and free none:
    it walked them again and again), and what exists then is frozen (gc.freeze, as
    process.PausedGC does at the end of a run), so the run's own collection walks the run's
    objects, not the modules'. 1 ms of a one-PipelineRun start. Left as found when the
    collector was off."""

    __slots__ = ("was",)

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.freeze()
            gc.enable()


def _krm() -> int:
    if _is_terminal("stdin"):
        # a person typed the bare command: say what it waits for instead of hanging silently
        _ERR.write(
            "krm-coschedule: reading a ResourceList (KRM function input) on stdin; end it with "
            "Ctrl-D, or see `krm-coschedule --help` (to rewrite files: `krm-coschedule FILE|DIR...`)\n"
        )
    with _Loading():
        from krm_fn.modes.krm import light_default
        from krm_fn.modes.krm import run_resource_list_parts

    parts, outcome, code = run_resource_list_parts([_read_stdin()], light_default())
    _Answer.started = True
    _write_parts(parts)
    _OUT.flush()
    # the results are in the output, and kpt prints them: stderr gets the human summary only,
    # without a final newline unless a person reads it (kpt shows one as an empty line)
    end = "\n" if _is_terminal("stderr") else ""
    if outcome is None:
        _ERR.write(f"krm-coschedule: input rejected (see the results){end}")
    else:
        from krm_fn.transforms.prerequisite import note

        tail = " (see the results)" if code else ""
        needs = note(outcome.plans, command=False, assistant_off=outcome.assistant_off)
        tail += f"; {needs}" if needs else ""
        _ERR.write(f"krm-coschedule: {summary_line(outcome.results)}{tail}{end}")
    return code


# --------------------------------------------------------------------------- other modes


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    """argparse for the non-KRM modes (imported here: the KRM path starts without it);
    `--help` prints the mode's own help."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            self.exit(2, f"krm-coschedule: {message}\n(see `{self.prog} --help`)\n")

    return Parser(prog=prog, description=description)


def _is_terminal(name: str) -> bool:
    stream = getattr(sys, name)
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def _colour(name: str) -> bool:
    """Colour on a terminal, unless NO_COLOR is set (no-color.org)."""
    return _is_terminal(name) and not os.environ.get("NO_COLOR")


def _progress() -> Callable[[int, int, str], None] | None:
    """A progress line on stderr when it is a terminal (rewritten in place), else nothing."""
    if not _is_terminal("stderr"):
        return None

    def show(done: int, total: int, what: str) -> None:
        if done >= total:
            _ERR.write_raw("\r\x1b[K")
        else:
            _ERR.write_raw(f"\rkrm-coschedule: {printable(what)} {done + 1}/{total}\x1b[K")
        _ERR.flush()

    return show


def _load_config(path: str | None) -> Any:
    """The functionConfig node of --config POLICY, or None. The node is annotated with its
    file, so results about the policy name it. Raises InputError."""
    return None if path is None else _read_config(path)[0]


def _read_config(path: str) -> tuple[Any, str]:
    """(_load_config's node, the file's text). Raises InputError."""
    from krm_fn.io import reader
    from krm_fn.io import streams

    try:
        text = reader.read_text(path)
    except reader.FileRefused as e:
        raise InputError(f"cannot read --config {path}: {e.detail}") from None
    try:
        fc = streams.read_config(text, path)
    except InputError as e:
        from krm_fn.core.results import location

        if location(str(e))[0] is None:
            raise InputError(f"--config {e}") from None
        # a place in the policy: the `path:line:col:` line editors and CI link, then the outcome
        _ERR.write(result_line(Result("error", str(e), file_path=path, file_index=0)) + "\n")
        raise InputError(f"--config {path} cannot be read (the error above); nothing was changed") from None
    if fc is not None:
        from krm_fn.modes.package_policy import annotate_config

        annotate_config(fc, path)
    return fc, text


_RENDERED_KINDS = frozenset({"PipelineRun", "TaskRun", "Pipeline", "Task", "Build", "BuildRun", "TriggerTemplate"})


def _top_kinds(path: str) -> list[str]:
    """The top-level `kind:` values of a file, cheaply (no parse); [] when it cannot be read."""
    from krm_fn.io import reader

    try:
        data, _st = reader.read_bytes(path)  # a FIFO or a device is refused here, not waited on
    except reader.FileRefused:
        return []  # the plugin's own reading says why
    return patterns.findall(r"(?m)^kind:[ \t]*[\"']?([A-Za-z0-9]+)", data[: 1 << 20].decode("utf-8", "replace"))


def _plugin(config_path: str) -> int:
    # the file's content decides, not whether stdin is a terminal: `krm-coschedule run.yaml`
    # in CI gets the hint as in a terminal, not "unsupported functionConfig PipelineRun". A
    # manifest the function renders or reads is a usage mistake (2), any other kind bad input (1)
    kinds = _top_kinds(config_path)
    manifest = any(k in _RENDERED_KINDS for k in kinds)
    if manifest or _is_terminal("stdin"):
        what = (
            f"{config_path} holds a {next(k for k in kinds if k in _RENDERED_KINDS)}, not a "
            "functionConfig: " if manifest else ""
        )
        _ERR.write(
            f"krm-coschedule: {what}with one argument the function runs as a kustomize plugin "
            "whose argument is its config (a CoschedulePolicy or a ConfigMap) and reads a YAML "
            "stream on stdin; to rewrite a file use `krm-coschedule --files FILE` (its package's "
            "policy) or `krm-coschedule --config POLICY FILE`\n"
        )
        return 2
    with _Loading():
        from krm_fn.modes.krm import light_default
        from krm_fn.modes.kustomize import run_plugin

    out, results, code = run_plugin(config_path, _read_stdin(), light_default())
    _OUT.write(out)
    _OUT.flush()
    for r in results:
        if r.severity in ("error", "warning"):
            _ERR.write(result_line(r) + "\n")
    _ERR.write(f"krm-coschedule: {summary_line(results)}\n")
    if code:
        _ERR.write("krm-coschedule: nothing was changed (errors above)\n")
    return code


def _files(argv: list[str]) -> int:
    with _Loading():
        from krm_fn.io.cache import NO_CACHE_ENV
        from krm_fn.io.cache import open_cache
        from krm_fn.modes import files
        from krm_fn.modes.krm import light_default
    p = _parser(
        "krm-coschedule",
        "Rewrite YAML files in place (pre-commit). Each FILE is rendered with its package (the "
        "directory up to the nearest Kptfile, else its own directory), whose other YAML files are "
        "read as context and whose policy is its own unless --config is given. Besides the FILEs, "
        "only the package's files that depend on the change are rendered: the runs of a changed "
        "Pipeline or Build, every run for a changed policy or Kptfile, the runs whose names could "
        "collide with a changed run's. Such a file is written only when its render changed, and "
        "said with why; a problem of its own that the change did not cause is a warning naming "
        "it, not a failure. Exit 1 when a file changed (or would) or anything failed.",
    )
    p.add_argument("--config", metavar="POLICY", help="one policy for every package (a CoschedulePolicy or a ConfigMap file)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 when something would change")
    p.add_argument("--diff", action="store_true", help="print a unified diff instead of writing (coloured on a terminal; NO_COLOR turns it off)")
    p.add_argument("--files", action="store_true", help="the arguments are files (needed for a single FILE argument)")
    p.add_argument(
        "--no-cache", action="store_true",
        help=f"render every package, even one found clean before with the same bytes (also {NO_CACHE_ENV}=1)",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text",
        help="json: the files, the results (with file, line and column) and integer counts as one JSON object on stdout",
    )
    loud = p.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true", help="print errors only (no warnings, no summary)")
    loud.add_argument("-v", "--verbose", action="store_true", help="print the info results too")
    p.add_argument("paths", nargs="*", metavar="FILE", help="YAML files, or package directories")
    ns = p.parse_args(argv)
    fc, text = (None, "") if ns.config is None else _read_config(ns.config)
    cache = open_cache(off=ns.no_cache)
    policy = None if ns.config is None else (ns.config, text.encode("utf-8"))
    outcome = files.run(list(ns.paths), fc, light_default(), None if ns.quiet else _progress(), cache, policy)
    return files.commit(
        outcome, write=not (ns.check or ns.diff), diff=ns.diff, out=_OUT, err=_ERR,
        as_json=ns.format == "json", colour=_colour("stdout"), verbosity=-1 if ns.quiet else 1 if ns.verbose else 0,
    )


def _explain(argv: list[str]) -> int:
    from krm_fn.modes import explain
    from krm_fn.modes.krm import light_default

    p = _parser(
        "krm-coschedule explain",
        "Print the coscheduling plan: which tasks are pinned to which assistant and which claims "
        "each assistant creates, from the same code path as the rendering. Reads a ResourceList "
        "on stdin when no FILE is given.",
    )
    p.add_argument("--format", choices=explain.FORMATS, default="table", help="table (default), mermaid, or json")
    p.add_argument("--config", metavar="POLICY", help="one policy for every package (default: each package's own)")
    p.add_argument("paths", nargs="*", metavar="FILE", help="YAML files, or package directories")
    ns = p.parse_args(argv)
    fc = _load_config(ns.config)
    results: Sequence[Result]
    if not ns.paths and _is_terminal("stdin"):
        # said at once, as the bare command does: it waited silently for stdin
        _ERR.write(
            "krm-coschedule explain: reading a ResourceList on stdin; end it with Ctrl-D, or name "
            "files or a package directory (`krm-coschedule explain DIR`)\n"
        )
    if ns.paths:
        from krm_fn.modes import files

        fo = files.run(list(ns.paths), fc, light_default(), _progress())
        plans, results, failed = fo.plans, fo.results, fo.has_error
    else:
        from krm_fn.io import resourcelist
        from krm_fn.orchestration import process as process_mod

        rl = resourcelist.parse(resourcelist.decode(_read_stdin()))
        outcome = process_mod.process(rl, fc)
        plans, results, failed = outcome.plans, outcome.results, outcome.exit_code != 0
    if failed:
        for r in results:
            if r.severity == "error":
                _ERR.write(result_line(r) + "\n")
        _ERR.write("krm-coschedule: no plan (errors above)\n")
        return 1
    _OUT.write(printable(explain.render(plans, ns.format)))
    _OUT.flush()
    return 0


def _install_plugin(argv: list[str]) -> int:
    import shlex
    from pathlib import Path

    from krm_fn.modes import kustomize

    p = _parser(
        "krm-coschedule install-kustomize-plugin",
        "Install the kustomize exec plugin executable for the CoschedulePolicy kind, which runs "
        "this krm-coschedule.",
    )
    p.add_argument(
        "--plugin-home", metavar="DIR",
        help="default: $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin, else ~/.config/kustomize/plugin",
    )
    ns = p.parse_args(argv)
    home = Path(ns.plugin_home) if ns.plugin_home else kustomize.default_plugin_home()
    try:
        written = kustomize.install(home.absolute())
    except OSError as e:
        raise KrmError(f"cannot install the plugin under {home}: {e}") from None
    for w in written:
        _OUT.write(printable(f"installed {w}\n"))
    _OUT.write(
        f"run: KUSTOMIZE_PLUGIN_HOME={shlex.quote(str(home.absolute()))} "
        "kubectl kustomize --enable-alpha-plugins DIR\n"
    )
    return 0
