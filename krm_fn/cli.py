"""Entry points. Only this module touches stdin, stdout, argv and files."""
from __future__ import annotations

import sys
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
        return _krm()
    if args[0] == "explain":
        return _explain(args[1:])
    if args[0] == "install-kustomize-plugin":
        return _install_plugin(args[1:])
    if len(args) == 1 and not args[0].startswith("-"):
        return _plugin(args[0])
    return _files(args)


def _krm() -> int:
    from krm_fn.process import run_resource_list
    from krm_fn.results import summary_line

    data = sys.stdin.buffer.read()
    try:
        out, outcome, code = run_resource_list(data)
    except Exception as e:  # noqa: BLE001 - a bug: still answer with a complete list
        from krm_fn.process import error_list

        msg = f"internal error ({type(e).__name__}: {e}); please report it with the input that caused it"
        sys.stdout.write(error_list(msg))
        sys.stderr.write(f"krm-coschedule: {msg}\n")
        return 1
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


def _result_line(r: Result) -> str:
    line = r.one_line()
    if r.file_path and not r.message.startswith(r.file_path):
        line = f"{r.file_path}: {line}"
    return line


def _report(results: Sequence[Result]) -> None:
    for r in results:
        if r.severity in ("error", "warning"):
            sys.stderr.write(_result_line(r) + "\n")


def _load_config(path: str | None) -> tuple[Any, int]:
    """(functionConfig node or None, 0) or (None, 1) after printing why. The node is
    annotated with its file, so results about the policy name it."""
    if path is None:
        return None, 0
    from pathlib import Path

    from krm_fn import streams

    try:
        text = Path(path).read_text(encoding="utf-8")
        fc = streams.read_config(text, path)
        if fc is not None:
            _annotate_config(fc, path)
        return fc, 0
    except (OSError, UnicodeError) as e:
        sys.stderr.write(f"krm-coschedule: cannot read --config {path}: {e}\n")
    except streams.DocError as e:
        sys.stderr.write(f"krm-coschedule: --config {e}\n")
    return None, 1


def _annotate_config(fc: Any, path: str) -> None:
    """In memory: results about the policy name its file."""
    md = fc.get("metadata") if isinstance(fc, dict) else None
    if isinstance(md, dict):
        ann = md.get("annotations")
        if ann is None or isinstance(ann, dict):
            md["annotations"] = {**(ann or {}), "internal.config.kubernetes.io/path": path}


def _plugin(config_path: str) -> int:
    if sys.stdin.isatty():
        sys.stderr.write(
            "krm-coschedule: with one argument the function runs as a kustomize plugin and reads "
            "a YAML stream on stdin; to rewrite a file use `krm-coschedule --config POLICY FILE`\n"
        )
        return 2
    from krm_fn.kustomize import run_plugin

    try:
        out, results, code = run_plugin(config_path, sys.stdin.buffer.read())
    except Exception as e:  # noqa: BLE001 - a bug: fail loudly, never half an output
        sys.stderr.write(
            f"krm-coschedule: internal error ({type(e).__name__}: {e}); please report it with "
            "the input that caused it\n"
        )
        return 1
    sys.stdout.write(out)
    sys.stdout.flush()
    _report(results)
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
    fc, code = _load_config(ns.config)
    if code:
        return code
    from krm_fn import files

    outcome = files.run(list(ns.paths), fc)
    _report(outcome.results)
    write = not (ns.check or ns.diff)
    for f in outcome.changed:
        if ns.diff:
            sys.stdout.write(files.unified_diff(f))
        if write and f.path.is_symlink():
            # os.replace would turn the link into a file; rewriting its target is not ours to do
            sys.stderr.write(f"{f.name}: is a symlink; not rewritten (pass the file it points to)\n")
            f.failed = True
            continue
        if write:
            try:
                files.write_atomic(f.path, f.new_text or "")
            except OSError as e:
                sys.stderr.write(f"{f.name}: cannot write: {e}\n")
                f.failed = True
                continue
            sys.stderr.write(f"krm-coschedule: rewrote {f.name}\n")
        else:
            sys.stderr.write(f"krm-coschedule: would rewrite {f.name}\n")
    sys.stdout.flush()
    failed = sum(1 for f in outcome.files if f.failed)
    verb = "rewritten" if write else "would be rewritten"
    sys.stderr.write(
        f"krm-coschedule: {len(outcome.changed)} file(s) {verb}, {failed} failed, "
        f"{len(outcome.files) - len(outcome.changed) - failed} unchanged; "
        f"{summary_line(outcome.results)}\n"
    )
    return 1 if (outcome.changed or outcome.has_error or failed) else 0


def _explain(argv: list[str]) -> int:
    from krm_fn import explain

    p = _parser("krm-coschedule explain")
    p.add_argument("--format", choices=explain.FORMATS, default="table")
    p.add_argument("--config", metavar="POLICY")
    p.add_argument("paths", nargs="*", metavar="FILE")
    ns = p.parse_args(argv)
    fc, code = _load_config(ns.config)
    if code:
        return code
    results: Sequence[Result]
    if ns.paths:
        from krm_fn import files

        fo = files.run(list(ns.paths), fc)
        plans, results, failed = fo.plans, fo.results, fo.has_error
    else:
        from krm_fn import process as process_mod
        from krm_fn import rlist

        try:
            frame = rlist.parse(rlist.decode(sys.stdin.buffer.read()))
        except rlist.InputError as e:
            sys.stderr.write(f"krm-coschedule: {e}\n")
            return 1
        outcome = process_mod.process(frame, fc)
        plans, results, failed = outcome.plans, outcome.results, outcome.exit_code != 0
    if failed:
        for r in results:
            if r.severity == "error":
                sys.stderr.write(_result_line(r) + "\n")
        sys.stderr.write("krm-coschedule: no plan (errors above)\n")
        return 1
    sys.stdout.write(explain.render(plans, ns.format))
    return 0


def _install_plugin(argv: list[str]) -> int:
    import shlex
    from pathlib import Path

    from krm_fn import kustomize

    p = _parser("krm-coschedule install-kustomize-plugin")
    p.add_argument("--plugin-home", metavar="DIR")
    ns = p.parse_args(argv)
    home = Path(ns.plugin_home) if ns.plugin_home else kustomize.default_plugin_home()
    try:
        written = kustomize.install(home.absolute())
    except OSError as e:
        sys.stderr.write(f"krm-coschedule: cannot install the plugin under {home}: {e}\n")
        return 1
    for w in written:
        sys.stdout.write(f"installed {w}\n")
    sys.stdout.write(
        f"run: KUSTOMIZE_PLUGIN_HOME={shlex.quote(str(home.absolute()))} "
        "kubectl kustomize --enable-alpha-plugins DIR\n"
    )
    return 0
