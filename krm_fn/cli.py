"""Entry points. Only this module touches stdin, stdout, argv and files."""
from __future__ import annotations

import sys
from collections.abc import Callable
from collections.abc import Sequence

from krm_fn.results import Result
from krm_fn.results import summary_line

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

USAGE = """\
krm-coschedule: render Tekton coscheduling (TEP-0135) and Shipwright scheduling policy
into manifests at render time.

Usage:
  krm-coschedule                          KRM function: ResourceList on stdin -> stdout
                                          (kpt fn eval --exec, kpt fn render --allow-exec,
                                          container image, kustomize --enable-exec)
  krm-coschedule CONFIG                   kustomize exec plugin: YAML stream on stdin -> stdout
  krm-coschedule [--config POLICY] [--check] [--diff] [--files] FILE...
                                          rewrite YAML files in place (pre-commit); all files
                                          form one ResourceList; exit 1 when a file changed
      --check                             change nothing; exit 1 when something would change
      --diff                              print a unified diff instead of writing
      --files                             the arguments are files (implied by the flags above)
  krm-coschedule explain [--format table|mermaid] [--config POLICY] [FILE...]
                                          print the coscheduling plan (a ResourceList on stdin
                                          when no FILE is given)
  krm-coschedule install-kustomize-plugin [--plugin-home DIR]
                                          install the kustomize plugin executable under
                                          DIR/fn.kpt.dev/v1alpha1/coschedulepolicy/
  krm-coschedule --help | --version

functionConfig: fn.kpt.dev/v1alpha1 CoschedulePolicy, or a ConfigMap with Tekton's keys
(coschedule, disable-affinity-assistant, set-security-context,
default-affinity-assistant-pod-template, default-pod-template, tekton-version, nop-image).
Without one the defaults apply (coschedule: workspaces).
Exit status: 0, or 1 when any error result exists or anything failed (files mode: also when
a file changed); 2 for bad arguments.
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if args and args[0] == "--version":
        from krm_fn import __version__

        sys.stdout.write(f"krm-coschedule {__version__}\n")
        return 0
    if not args:
        return _guarded(_krm, krm=True)
    if args[0] == "explain":
        return _guarded(lambda: _explain(args[1:]))
    if args[0] == "install-kustomize-plugin":
        return _guarded(lambda: _install_plugin(args[1:]))
    if len(args) == 1 and not args[0].startswith("-"):
        return _guarded(lambda: _plugin(args[0]))
    return _guarded(lambda: _files(args))


class _Answer:
    """Whether KRM mode has started its answer on stdout (then no second list is written)."""

    started = False


def _guarded(mode: Callable[[], int], krm: bool = False) -> int:
    """The one failure path of every mode (pre-commit's error_handler): a KrmError is one
    line and exit 1; an interrupt exit 130; anything else is a bug: one line that says so
    and where to report it, exit 1. KRM mode still answers with a complete ResourceList
    carrying the error, so kpt shows it as a result."""
    _Answer.started = False
    try:
        return mode()
    except KeyboardInterrupt:
        sys.stderr.write("krm-coschedule: interrupted; nothing was written\n")
        return 130
    except Exception as e:  # noqa: BLE001 - the top of every mode: no traceback reaches the user
        from krm_fn.errors import KrmError
        from krm_fn.errors import internal_error_message

        msg = str(e) if isinstance(e, KrmError) else internal_error_message(e)
        if krm and not _Answer.started:
            from krm_fn.krm import error_list

            sys.stdout.write(error_list(msg))
        sys.stderr.write(f"krm-coschedule: {msg}\n")
        return 1


def _krm() -> int:
    from krm_fn.krm import light_default
    from krm_fn.krm import run_resource_list

    data = sys.stdin.buffer.read()
    out, outcome, code = run_resource_list(data, light_default())
    _Answer.started = True
    sys.stdout.write(out)
    sys.stdout.flush()
    if outcome is None:
        sys.stderr.write("krm-coschedule: input rejected (see results)\n")
    else:
        for r in outcome.results:
            if r.severity in ("error", "warning"):
                sys.stderr.write(r.one_line() + "\n")
        sys.stderr.write(f"krm-coschedule: {summary_line(outcome.results)}\n")
    return code


# --------------------------------------------------------------------------- other modes


def _parser(prog: str) -> argparse.ArgumentParser:
    """argparse for the non-KRM modes (imported here: the KRM path starts without it)."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            self.exit(2, f"krm-coschedule: {message}\n\n{USAGE}")

    return Parser(prog=prog, add_help=False)


def _load_config(path: str | None) -> Any:
    """The functionConfig node of --config POLICY, or None. The node is annotated with its
    file, so results about the policy name it. Raises InputError."""
    if path is None:
        return None
    from pathlib import Path

    from krm_fn import streams
    from krm_fn.errors import InputError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as e:
        raise InputError(f"cannot read --config {path}: {e}") from None
    try:
        fc = streams.read_config(text, path)
    except InputError as e:
        raise InputError(f"--config {e}") from None
    if fc is not None:
        _annotate_config(fc, path)
    return fc


def _annotate_config(fc: Any, path: str) -> None:
    """In memory: results about the policy name its file."""
    from krm_fn.keys import PATH_KEY

    md = fc.get("metadata") if isinstance(fc, dict) else None
    if isinstance(md, dict):
        ann = md.get("annotations")
        if ann is None or isinstance(ann, dict):
            md["annotations"] = {**(ann or {}), PATH_KEY: path}


def _plugin(config_path: str) -> int:
    if sys.stdin.isatty():
        sys.stderr.write(
            "krm-coschedule: with one argument the function runs as a kustomize plugin and reads "
            "a YAML stream on stdin; to rewrite a file use `krm-coschedule --config POLICY FILE`\n"
        )
        return 2
    from krm_fn.files import result_line
    from krm_fn.krm import light_default
    from krm_fn.kustomize import run_plugin

    out, results, code = run_plugin(config_path, sys.stdin.buffer.read(), light_default())
    sys.stdout.write(out)
    sys.stdout.flush()
    for r in results:
        if r.severity in ("error", "warning"):
            sys.stderr.write(result_line(r) + "\n")
    sys.stderr.write(f"krm-coschedule: {summary_line(results)}\n")
    if code:
        sys.stderr.write("krm-coschedule: nothing was changed (errors above)\n")
    return code


def _files(argv: list[str]) -> int:
    p = _parser("krm-coschedule")
    p.add_argument("--config", metavar="POLICY")
    p.add_argument("--check", action="store_true")
    p.add_argument("--diff", action="store_true")
    p.add_argument("--files", action="store_true")
    p.add_argument("paths", nargs="*", metavar="FILE")
    ns = p.parse_args(argv)
    fc = _load_config(ns.config)
    from krm_fn import files
    from krm_fn.krm import light_default

    outcome = files.run(list(ns.paths), fc, light_default())
    return files.commit(outcome, write=not (ns.check or ns.diff), diff=ns.diff, out=sys.stdout, err=sys.stderr)


def _explain(argv: list[str]) -> int:
    from krm_fn import explain
    from krm_fn.files import result_line
    from krm_fn.krm import light_default

    p = _parser("krm-coschedule explain")
    p.add_argument("--format", choices=explain.FORMATS, default="table")
    p.add_argument("--config", metavar="POLICY")
    p.add_argument("paths", nargs="*", metavar="FILE")
    ns = p.parse_args(argv)
    fc = _load_config(ns.config)
    results: Sequence[Result]
    if ns.paths:
        from krm_fn import files

        fo = files.run(list(ns.paths), fc, light_default())
        plans, results, failed = fo.plans, fo.results, fo.has_error
    else:
        from krm_fn import process as process_mod
        from krm_fn import resourcelist

        rl = resourcelist.parse(resourcelist.decode(sys.stdin.buffer.read()))
        outcome = process_mod.process(rl, fc)
        plans, results, failed = outcome.plans, outcome.results, outcome.exit_code != 0
    if failed:
        for r in results:
            if r.severity == "error":
                sys.stderr.write(result_line(r) + "\n")
        sys.stderr.write("krm-coschedule: no plan (errors above)\n")
        return 1
    sys.stdout.write(explain.render(plans, ns.format))
    return 0


def _install_plugin(argv: list[str]) -> int:
    import shlex
    from pathlib import Path

    from krm_fn import kustomize
    from krm_fn.errors import KrmError

    p = _parser("krm-coschedule install-kustomize-plugin")
    p.add_argument("--plugin-home", metavar="DIR")
    ns = p.parse_args(argv)
    home = Path(ns.plugin_home) if ns.plugin_home else kustomize.default_plugin_home()
    try:
        written = kustomize.install(home.absolute())
    except OSError as e:
        raise KrmError(f"cannot install the plugin under {home}: {e}") from None
    for w in written:
        sys.stdout.write(f"installed {w}\n")
    sys.stdout.write(
        f"run: KUSTOMIZE_PLUGIN_HOME={shlex.quote(str(home.absolute()))} "
        "kubectl kustomize --enable-alpha-plugins DIR\n"
    )
    return 0
