"""This machine's pip configuration, for the pip install inside an image build.

    python3 tests/container/pipconf.py OUT.conf

writes OUT.conf, one pip configuration file with every setting pip uses here (its config
files and PIP_* variables, as `pip config list` shows them, with pip's precedence: a
variable beats a file, a command's section beats [global]), and prints the host paths the
settings name, one per line, for build.sh to mount read-only at the same paths. Which
settings name paths, and how each is carried, is the table PATH_OPTIONS: the CA bundle and
client certificate, constraints and requirements files, find-links, file:// indexes (for a
local index ROOT/simple, the whole ROOT: its pages link the files relatively). So pip in
the build uses the same index, mirror, CA bundle and constraints as pip here (a network
with TLS interception included) and nothing of them goes into the Dockerfile or the image.

A value that cannot be carried (a relative path, a file missing here, a URL where only a
file can be mounted) is left out of OUT.conf, with one line on stderr naming the option
and why: pip in the build would fail on it ("Could not open requirements file").

When pip has no `cert`, the CA bundle named by REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE or
SSL_CERT_FILE is used, else the system bundle, as pip here would trust it.
Only the standard library: it runs with any python3.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote
from urllib.parse import urlparse

SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

# How each pip option that names a place on this host is carried into the build, by pip's
# long option name (as config files spell it; PIP_CONSTRAINT is `constraint`):
FILE = "file"  # a file pip reads (a path or file:// URL): mounted at the same path
LOCATION = "location"  # a local file or directory (mounted), or a URL pip fetches itself
INDEX = "index"  # as LOCATION; a local ROOT/simple mounts ROOT
HOST = "host"  # where pip installs, on this host: never carried (the build installs into the image's venv)
PATH_OPTIONS = {
    "cert": FILE,
    "client-cert": FILE,
    "constraint": FILE,
    "requirement": FILE,
    "build-constraint": FILE,  # pip >= 25.3; an older pip ignores it
    "find-links": LOCATION,
    "index-url": INDEX,
    "extra-index-url": INDEX,
    "python": HOST,
    "target": HOST,
    "prefix": HOST,
    "root": HOST,
}
# the options pip reads as several whitespace-separated values (its action="append")
MULTI = {"constraint", "requirement", "build-constraint", "find-links", "extra-index-url"}


def pip_settings(python: str) -> tuple[dict[str, dict[str, str]], set[str]]:
    """({section: {key: value}} as pip resolves them, the keys set by PIP_* variables);
    a variable's value replaces the key everywhere and goes to [global]."""
    out = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True).stdout
    sections: dict[str, dict[str, str]] = {}
    env: dict[str, str] = {}
    for line in out.splitlines():
        name, sep, raw = line.partition("=")
        if not sep:
            continue
        section, _, key = name.rpartition(".")
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        if section == ":env:":
            env[key] = str(value)
        else:
            sections.setdefault(section, {})[key] = str(value)
    for key, value in env.items():
        for settings in sections.values():
            settings.pop(key, None)
        sections.setdefault("global", {})[key] = value
    return sections, set(env)


def _local(word: str) -> tuple[str | None, str]:
    """(the absolute local path a value names, "") or (None, why it names none); a URL
    other than file:// is (None, "")."""
    if word.startswith("file:"):
        url = urlparse(word)
        if url.netloc not in ("", "localhost"):
            return None, f"a file URL on another host ({url.netloc})"
        word = unquote(url.path)
    elif "://" in word:
        return None, ""
    if not os.path.isabs(word):
        return None, "a relative path, which pip in the build would look up in its own working directory"
    return word, ""


def carry(key: str, word: str) -> tuple[str | None, str]:
    """(the host path to mount for one value of a path option, ""), ("", "") for a URL
    pip fetches itself, or (None, why the value cannot be carried)."""
    kind = PATH_OPTIONS[key]
    if kind == HOST:
        return None, "a place on this host; pip in the build installs into the image's venv"
    path, why = _local(word)
    if path is None:
        if why:
            return None, why
        if kind == FILE:
            return None, "a URL; the build mounts only local files"
        return "", ""
    if kind == FILE and not os.path.isfile(path):
        return None, "no such file here" if not os.path.exists(path) else "not a file"
    if not os.path.exists(path):
        return None, "no such file or directory here"
    if kind == INDEX and os.path.basename(path.rstrip("/")) == "simple":
        path = os.path.dirname(path.rstrip("/"))  # ROOT/simple links its files as ROOT/files...
    if ":" in path:
        return None, "podman cannot mount a path with ':' in it"
    return path, ""


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write(__doc__ or "")
        return 2
    sections, from_env = pip_settings(sys.executable)  # the python that runs this: the venv's, in build.sh
    glob = sections.setdefault("global", {})
    if not any("cert" in s for s in sections.values()):
        for var in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"):
            if os.environ.get(var) and Path(os.environ[var]).is_file():
                glob["cert"] = os.environ[var]
                break
        else:
            if Path(SYSTEM_BUNDLE).is_file():
                glob["cert"] = SYSTEM_BUNDLE
    mounts: list[str] = []
    lines = []
    for section, settings in sections.items():
        lines.append(f"[{section}]")
        for key, value in settings.items():
            if key not in PATH_OPTIONS:
                lines.append(f"{key} = {value}")
                continue
            kept = []
            for word in value.split() if key in MULTI else [value]:
                path, why = carry(key, word)
                if path is None:
                    where = f"PIP_{key.upper().replace('-', '_')}" if key in from_env else f"[{section}] in a pip config file"
                    sys.stderr.write(f"pipconf.py: {key} = {word} ({where}) is left out of the build's pip configuration: {why}\n")
                    continue
                kept.append(word)
                if path and path not in mounts:
                    mounts.append(path)
            if kept:
                lines.append(f"{key} = " + "\n    ".join(kept))
    Path(argv[1]).write_text("\n".join(lines) + "\n")
    sys.stdout.write("".join(m + "\n" for m in mounts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
