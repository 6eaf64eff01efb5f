"""This machine's pip configuration, for the pip install inside an image build.

    python3 tests/container/pipconf.py OUT.conf

writes OUT.conf, one pip configuration file with every setting pip uses here (its config
files and PIP_* variables, as `pip config list` shows them, with pip's precedence: a
variable beats a file, a command's section beats [global]), and prints the host paths the
settings name (CA bundle, client certificate, find-links directories, file:// indexes), one
per line, for build.sh to mount read-only at the same paths (for a local index
ROOT/simple, the whole ROOT: its pages link the files relatively). So pip in the build uses the
same index, mirror and CA bundle as pip here (a network with TLS interception included)
and nothing of them goes into the Dockerfile or the image.

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
PATH_KEYS = ("cert", "client-cert")
LIST_KEYS = ("find-links", "index-url", "extra-index-url")


def pip_settings(python: str) -> dict[str, dict[str, str]]:
    """{section: {key: value}} as pip resolves them; env values replace a key everywhere."""
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
    return sections


def local_path(value: str) -> str | None:
    """The absolute local path a setting names (a path or a file:// URL), else None."""
    if value.startswith("file:"):
        value = unquote(urlparse(value).path)
    elif "://" in value:
        return None
    return value if os.path.isabs(value) else None


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write(__doc__ or "")
        return 2
    sections = pip_settings(sys.executable)  # the python that runs this: the venv's, in build.sh
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
    for settings in sections.values():
        for key, value in settings.items():
            words = value.split() if key in LIST_KEYS else [value] if key in PATH_KEYS else []
            for word in words:
                path = local_path(word)
                if path and key.endswith("index-url") and os.path.basename(path.rstrip("/")) == "simple":
                    # a local index ROOT/simple links its files relatively (ROOT/files...)
                    path = os.path.dirname(path.rstrip("/"))
                if path and os.path.exists(path) and path not in mounts:
                    mounts.append(path)
    lines = []
    for section, settings in sections.items():
        lines.append(f"[{section}]")
        for key, value in settings.items():
            value = "\n    ".join(value.split()) if key in LIST_KEYS else value
            lines.append(f"{key} = {value}")
    Path(argv[1]).write_text("\n".join(lines) + "\n")
    sys.stdout.write("".join(m + "\n" for m in mounts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
