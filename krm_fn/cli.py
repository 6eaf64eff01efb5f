"""Entry points. Only this module touches stdin, stdout, argv and files."""
from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = """\
krm-coschedule: render Tekton coscheduling (TEP-0135) and Shipwright scheduling policy
into manifests at render time.

Usage:
  krm-coschedule                         KRM function: ResourceList on stdin -> stdout
  krm-coschedule CONFIG                  kustomize exec plugin: stream on stdin -> stdout
  krm-coschedule --config POLICY FILE... rewrite YAML files in place (pre-commit)
        [--check] [--diff]
  krm-coschedule explain [--format table|mermaid] [--config POLICY FILE...]
  krm-coschedule --help | --version

functionConfig: fn.kpt.dev/v1alpha1 CoschedulePolicy, or a ConfigMap with Tekton's keys
(coschedule, disable-affinity-assistant, set-security-context,
default-affinity-assistant-pod-template, default-pod-template, tekton-version, nop-image).
Exit status: 0, or 1 when any error result exists or anything failed.
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
    sys.stderr.write(f"krm-coschedule: unsupported arguments {args!r}\n\n{USAGE}")
    return 2


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
