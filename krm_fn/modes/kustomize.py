"""kustomize: the legacy exec plugin (`krm-coschedule CONFIG`, a YAML stream on stdin and
stdout) and the command that installs the plugin executable under KUSTOMIZE_PLUGIN_HOME.

kustomize runs `$KUSTOMIZE_PLUGIN_HOME/<group>/<version>/<lowercase kind>/<Kind>` with the
path of a temp copy of the config as its only argument, in the kustomization directory, and
matches the objects it reads back by apiVersion/kind/namespace/name. It never shows
structured results, only stderr and the exit code.
"""
from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path

from krm_fn.core.errors import InputError
from krm_fn.core.results import Result
from krm_fn.core.results import has_error
from krm_fn.core.results import sorted_results
from krm_fn.io import reader
from krm_fn.io import streams
from krm_fn.io import streamwrite
from krm_fn.orchestration import process as process_mod
from krm_fn.policy import config as config_mod

# (group, version, kind) of every config kind the plugin answers to
PLUGIN_KINDS = (("fn.kpt.dev", "v1alpha1", config_mod.POLICY_KIND),)


def run_plugin(config_path: str, data: bytes, light: bool = False) -> tuple[str, list[Result], int]:
    """Plugin mode: (output stream, results, exit code). On any error the output is the
    input stream unchanged (all or nothing)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "", [Result("error", f"stdin is not UTF-8 text (offset {e.start})")], 1
    try:
        cfg_text = reader.read_text(config_path)
    except reader.FileRefused as e:
        return text, [Result("error", f"cannot read the plugin config {config_path}: {e.detail}")], 1
    try:
        fc = streams.read_config(cfg_text, config_path)
        stream = streams.split(text, None)
        streams.make_items(stream)
    except InputError as e:
        return text, [Result("error", str(e))], 1
    outcome = process_mod.process(streams.resource_list_of([stream], fc), light=light)
    if has_error(outcome.results):
        return text, outcome.results, 1
    try:
        out = streamwrite.apply([stream], outcome)[0]
    except InputError as e:
        return text, sorted_results([*outcome.results, Result("error", str(e))]), 1
    return out, outcome.results, 0


# --------------------------------------------------------------------------- installer


def default_plugin_home() -> Path:
    """kustomize's own default: $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin,
    else ~/.config/kustomize/plugin."""
    env = os.environ.get("KUSTOMIZE_PLUGIN_HOME")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "kustomize" / "plugin"


def own_command() -> list[str]:
    """The absolute command that runs this function: the console script next to the running
    interpreter when there is one, else `python -m krm_fn`."""
    exe = Path(sys.executable)
    for cand in (exe.parent / "krm-coschedule", Path(sys.argv[0]) if sys.argv and sys.argv[0] else None):
        if cand is not None and cand.name == "krm-coschedule" and cand.is_file() and os.access(cand, os.X_OK):
            return [str(cand.absolute())]
    return [str(exe.absolute()), "-m", "krm_fn"]


def plugin_script(command: list[str]) -> str:
    cmd = " ".join(shlex.quote(c) for c in command)
    return (
        "#!/bin/sh\n"
        "# kustomize legacy exec plugin for krm-coschedule, written by\n"
        "# `krm-coschedule install-kustomize-plugin`; run that again after moving the venv.\n"
        f'exec {cmd} "$@"\n'
    )


def install(plugin_home: Path, command: list[str] | None = None) -> list[Path]:
    """Write the plugin executable for every config kind; returns the paths written."""
    script = plugin_script(command or own_command())
    written = []
    for group, version, kind in PLUGIN_KINDS:
        d = plugin_home / group / version / kind.lower()
        d.mkdir(parents=True, exist_ok=True)
        target = d / kind
        fd, tmp = tempfile.mkstemp(prefix=f".{kind}.", dir=d)
        with os.fdopen(fd, "w") as fh:
            fh.write(script)
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
        written.append(target)
    return written
