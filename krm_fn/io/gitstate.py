"""The state before the change: the named files' text at HEAD, when they are in a git work
tree and git is on PATH (files mode only: KRM mode is stateless). modes/files compares a
brought-in file's errors against a render of the package with the named files as they were
(issue 33). Git's output is read through reader.read_command: the size limit, UTF-8, and a
refusal that names what was read, never a traceback."""
from __future__ import annotations

import os

from krm_fn.core.errors import InputError
from krm_fn.io import reader

GIT_TIMEOUT = 10.0  # seconds each git command may take before the state is given up
# what points git at another repository than the files' own (a hook runs with some of them set)
_LOCATORS = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
)


class NoState(Exception):
    """There is no state before the change: str(e) says why (not a git work tree, no git,
    no commit yet, git failed or took too long)."""


def head_texts(root: str, names: list[str]) -> dict[str, str | None]:
    """{name: its text at HEAD, None when HEAD has no such file (a new file)} for the files
    `names` (as named, relative to the current directory or absolute) of the directory
    `root`. Raises NoState."""
    import shutil

    git = shutil.which("git")
    if git is None:
        raise NoState("git is not on PATH")
    env = {k: v for k, v in os.environ.items() if k not in _LOCATORS}
    env["LC_ALL"] = "C"
    top = os.path.abspath(root)
    rel = {n: os.path.relpath(os.path.abspath(n), top) for n in names}
    try:
        listing = reader.read_command(
            [git, "--literal-pathspecs", "ls-tree", "-z", "-l", "HEAD", "--", *rel.values()], "git ls-tree HEAD",
            cwd=top, env=env, timeout=GIT_TIMEOUT,
        )
    except reader.FileRefused as e:
        raise NoState(_why(e.detail)) from None
    blobs: dict[str, tuple[str, int]] = {}  # path relative to root -> (object, size)
    for entry in listing.split(b"\0"):
        head, _, path = entry.partition(b"\t")
        fields = head.split()
        if len(fields) != 4:
            continue
        mode, kind, oid, size = fields
        where = os.fsdecode(path)
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            raise NoState(f"{where} is not a regular file at HEAD")
        blobs[os.path.normpath(where)] = (oid.decode("ascii"), int(size))
    out: dict[str, str | None] = {}
    wanted: list[tuple[str, str, int]] = []
    for n, r in rel.items():
        got = blobs.get(os.path.normpath(r))
        if got is None:
            out[n] = None
            continue
        if got[1] > reader.MAX_FILE_BYTES:
            raise NoState(f"HEAD:{n}: is {got[1] // (1024 * 1024)} MiB; the function reads files of at most {reader.MAX_FILE_BYTES // (1024 * 1024)} MiB")
        wanted.append((n, *got))
    if not wanted:
        return out
    try:
        data = reader.read_command(
            [git, "cat-file", "--batch"], "git cat-file HEAD", stdin="".join(f"{oid}\n" for _n, oid, _s in wanted).encode("ascii"),
            cwd=top, env=env, timeout=GIT_TIMEOUT, limit=sum(s + 128 for _n, _oid, s in wanted),
        )
    except reader.FileRefused as e:
        raise NoState(e.detail) from None
    at = 0
    for n, oid_s, length in wanted:
        end = data.find(b"\n", at)
        header = data[at:end].split() if end >= 0 else []
        if len(header) != 3 or header[0].decode("ascii", "replace") != oid_s or int(header[2]) != length:
            raise NoState(f"git cat-file gave no copy of HEAD:{n}")
        body = data[end + 1 : end + 1 + length]
        at = end + 1 + length + 1
        out[n] = _text(body, f"HEAD:{n}")
    return out


def _why(detail: str) -> str:
    """git's refusal in the user's words where it is a common one."""
    if "not a git repository" in detail:
        return "not in a git work tree"
    if "Not a valid object name HEAD" in detail:
        return "no commit yet: HEAD is missing"
    return detail


def _text(data: bytes, name: str) -> str:
    """A file's bytes at HEAD as text, by the rules of every file files mode reads."""
    from krm_fn.io import resourcelist

    try:
        if b"\x00" in data:
            raise InputError("contains NUL bytes (a binary file?)")
        text = reader.utf8(data)
        if not resourcelist.printable_ascii(data):
            resourcelist.check_printable(text, "")
    except InputError as e:
        raise NoState(f"{name}: {e}") from None
    return text
