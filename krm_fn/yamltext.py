"""Line-level helpers for YAML text: lines split the way YAML splits them, indentation, the
dash line of a sequence entry, and a document turned into one `- ` entry."""
from __future__ import annotations

import re

DASH_RE = re.compile(r"( *)-(?=[ \n]|$)")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """Lines split on \\n only (str.splitlines also splits on \\x0c, \\x1c, \\u2028 and
    friends, which are ordinary characters inside YAML scalars). With `keepends`, each line
    keeps its \\n; without, a final empty line is dropped."""
    parts = text.split("\n")
    if not keepends:
        if parts and parts[-1] == "":
            parts.pop()
        return parts
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def dash_index(lines: list[str]) -> int:
    """The index of an entry's dash line: the first line that is a `-` and not a comment
    (head comments and blank lines may come before it). len(lines) when there is none."""
    for k, line in enumerate(lines):
        if DASH_RE.match(line) and not line.lstrip().startswith("#"):
            return k
    return len(lines)


def indent_entry(dumped: str, d: int) -> str:
    """Turn a top-level YAML document into one `- ` entry of a sequence at indent `d`."""
    pad = " " * (d + 2)
    out = []
    dashed = False
    for line in split_lines(dumped):
        if line.startswith("..."):
            continue
        if not line.strip():
            out.append("\n")
        elif not dashed:
            # a head comment goes after the dash (`- # comment`), as kpt sends it: before
            # the dash, kpt (yaml.v3) would give it to the previous item, i.e. another file
            out.append(" " * d + "- " + line)
            dashed = True
        else:
            out.append(pad + line)
    if not dashed:
        out.append(" " * d + "- {}\n")
    return "".join(out)
