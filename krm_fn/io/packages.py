"""Packages, not file lists: in files mode (and so in the pre-commit hook) every FILE belongs
to a package, the directory up to the nearest Kptfile, else the file's own directory. The
other YAML files of the package are read as context (a Pipeline, an earlier generated
assistant), whether or not they were passed, and the package's policy comes from its Kptfile
(`configPath` or `configMap` of this function's step) or from a CoschedulePolicy file in it,
unless --config says otherwise. Each package is rendered on its own.
"""
from __future__ import annotations

import os
from pathlib import Path

from krm_fn.core.errors import InputError
from krm_fn.core.record import Record
from krm_fn.io import reader
from krm_fn.yaml import guards

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

YAML_SUFFIXES = (".yaml", ".yml")
FUNCTION = "krm-coschedule"  # how a Kptfile step names this function (image or exec)


class Package(Record):
    """A package: its root, the files named on the command line (as named), and the other
    YAML files in it (context only)."""

    __slots__ = ("root", "given", "context")

    def __init__(self, root: Path, given: list[str] | None = None, context: list[str] | None = None) -> None:
        self.root = root
        self.given: list[str] = [] if given is None else given
        self.context: list[str] = [] if context is None else context

    @property
    def kptfile(self) -> Path | None:
        k = self.root / "Kptfile"
        return k if reader.is_present(k) else None  # one that is no regular file is refused when read


def expand(names: list[str]) -> list[str]:
    """The FILE arguments with every directory replaced by the YAML files under it (hidden
    directories skipped), in a stable order."""
    out: list[str] = []
    for name in names:
        p = Path(name)
        if p.is_dir():
            out.extend(str(f) for f in _yaml_files(p, recursive=True, stop_at_packages=False))
        else:
            out.append(name)
    return out


def group(names: list[str]) -> list[Package]:
    """The packages of the given files (in order of first appearance), each with its context
    files: the package's other YAML files."""
    by_root: dict[Path, Package] = {}
    roots: dict[str, Path] = {}  # by directory: the files of one directory share their root
    for name in names:
        where = os.path.dirname(name)
        root = roots.get(where)
        if root is None or os.path.isdir(name):
            root = root_of(Path(name))
            if not os.path.isdir(name):
                roots[where] = root
        pkg = by_root.get(root)
        if pkg is None:
            pkg = by_root[root] = Package(root)
        pkg.given.append(name)
    dirs: dict[str, str] = {}
    for pkg in by_root.values():
        given = {realpath(n, dirs) for n in pkg.given}
        recursive = pkg.kptfile is not None
        pkg.context = [
            str(f) for f in _yaml_files(pkg.root, recursive=recursive, stop_at_packages=True) if realpath(f, dirs) not in given
        ]
    return list(by_root.values())


def realpath(path: str | os.PathLike[str], dirs: dict[str, str] | None = None) -> str:
    """os.path.realpath(path), its directory resolved once per `dirs` (a run's memo): a file
    that is not a symbolic link resolves to its resolved directory and its own name (one
    lstat instead of one per component of the path, for 1,500 files of one directory)."""
    name = os.fspath(path)
    where, base = os.path.split(name)
    if dirs is None or base in ("", ".", ".."):
        return os.path.realpath(name)
    resolved = dirs.get(where)
    if resolved is None:
        resolved = dirs[where] = os.path.realpath(where or ".")
    full = os.path.join(resolved, base)
    return os.path.realpath(full) if os.path.islink(full) else full


def root_of(path: Path) -> Path:
    """The directory up to the nearest Kptfile (not above the repository's root), else the
    file's own directory."""
    here = path.parent if not path.is_dir() else path
    d = here.resolve()
    while True:
        if (d / "Kptfile").is_file():
            return d
        if (d / ".git").exists() or d.parent == d:
            return here.resolve()
        d = d.parent


def _yaml_files(root: Path, recursive: bool, stop_at_packages: bool) -> list[Path]:
    out: list[Path] = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        if e.name.startswith("."):
            continue
        try:
            is_file = e.is_file()
        except OSError:  # a symbolic link loop: listed, refused when read (as context: a warning)
            is_file = True
        if is_file and e.name.endswith(YAML_SUFFIXES):
            out.append(Path(e.path))
        elif recursive and e.is_dir(follow_symlinks=False):
            sub = Path(e.path)
            if stop_at_packages and (sub / "Kptfile").is_file():
                continue  # a nested package is a package of its own
            out.extend(_yaml_files(sub, recursive, stop_at_packages))
    return out


def kptfile_config(pkg: Package) -> tuple[Any, str | None]:
    """The function config the package's Kptfile gives this function: (a ConfigMap built from
    `configMap`, or the path of `configPath`) as (node, path); (None, None) when it gives none.
    Raises ValueError with the reason when the Kptfile cannot be read."""
    k = pkg.kptfile
    if k is None:
        return None, None
    try:
        # the guarded loader: a Kptfile is anyone's input (an alias bomb, nesting 10,000 deep)
        doc = guards.safe_load_guarded(reader.read_text(k), str(k))
    except InputError as e:
        raise ValueError(str(e)) from None
    pipeline = doc.get("pipeline") if isinstance(doc, dict) else None
    steps: list[Any] = []
    if isinstance(pipeline, dict):
        for key in ("mutators", "validators"):
            if isinstance(pipeline.get(key), list):
                steps.extend(pipeline[key])
    for step in steps:
        if not isinstance(step, dict):
            continue
        ref = f"{step.get('image') or ''} {step.get('exec') or ''}"
        if FUNCTION not in ref:
            continue
        if isinstance(step.get("configPath"), str):
            return None, str(pkg.root / step["configPath"])
        if isinstance(step.get("configMap"), dict):
            cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"}, "data": step["configMap"]}
            return cm, str(k)
    return None, None
