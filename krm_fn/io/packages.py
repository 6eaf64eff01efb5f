"""Packages, not file lists: in files mode (and so in the pre-commit hook) every FILE belongs
to a package, the directory up to the nearest Kptfile, else the file's own directory. The
other YAML files of the package are read as context (a Pipeline, an earlier generated
assistant), whether or not they were passed, and the package's policy comes from its Kptfile
(`configPath` or `configMap` of this function's step) or from a CoschedulePolicy file in it,
unless --config says otherwise. Each package is rendered on its own.

kpt's package rules hold here as they do under `kpt fn render`: a file the package's
`.krmignore` matches is not part of the package (neither rewritten nor read as context), and
a `configPath` that leaves the package is refused.
"""
from __future__ import annotations

import os
from pathlib import Path

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.keys import CONFIG_FIELD_KEY
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.record import Record
from krm_fn.core.results import Result
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

    __slots__ = ("root", "given", "context", "ignored", "unsearched", "real")

    def __init__(self, root: Path, given: list[str] | None = None, context: list[str] | None = None) -> None:
        self.root = root
        self.given: list[str] = [] if given is None else given
        self.context: list[str] = [] if context is None else context
        self.ignored: list[str] = []  # given files the package's .krmignore excludes
        self.unsearched: list[tuple[str, str]] = []  # (path, why) its search passed over
        self.real: dict[str, str] = {}  # name (given or context) -> its real path, as group() found it

    @property
    def kptfile(self) -> Path | None:
        k = self.root / "Kptfile"
        return k if reader.is_present(k) else None  # one that is no regular file is refused when read


def expand(
    names: list[str], empty: list[tuple[str, bool]] | None = None, unsearched: list[tuple[str, str]] | None = None
) -> list[str]:
    """The FILE arguments with every directory replaced by the YAML files under it (hidden
    directories skipped), in a stable order. `empty` gets (name, whether it holds anything
    at all) for each directory without a YAML file; `unsearched` gets (path, why) for each
    directory under them that could not be searched."""
    out: list[str] = []
    for name in names:
        if os.path.isdir(name):
            p = Path(name)
            found = [str(f) for f in _yaml_files(p, recursive=True, stop_at_packages=False, unsearched=unsearched)]
            if not found and empty is not None:
                empty.append((name, _holds_anything(p)))
            out.extend(found)
        else:
            out.append(name)
    return out


def nothing_there(name: str, holds: bool) -> str:
    """The error for a directory argument without a YAML file (`holds`: it holds other files)."""
    what = "holds no YAML file (*.yaml, *.yml)" if holds else "is empty"
    return f"{name}: {what}; nothing to render there: name a package directory or YAML files"


def _holds_anything(p: Path) -> bool:
    try:
        return any(True for _ in os.scandir(p))
    except OSError:
        return False


def unique(names: list[str]) -> tuple[list[str], dict[str, str]]:
    """The names, the same file twice (pre-commit never does this; users might) counted
    once; and the real path of each (for group() and files mode's read_files: none is
    resolved again)."""
    dirs: dict[str, str] = {}
    real = {n: realpath(n, dirs) for n in names}
    first: dict[str, str] = {}
    for n in names:
        first.setdefault(real[n], n)
    return list(first.values()), real


def group(names: list[str], known: dict[str, str] | None = None) -> list[Package]:
    """The packages of the given files (in order of first appearance), each with its context
    files: the package's other YAML files. `known`: real paths of the names resolved
    already (files mode's), not resolved again."""
    known = known or {}
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
        if os.path.isdir(pkg.root / "Kptfile"):  # no package root: the files are their directory's
            pkg.unsearched.append((str(pkg.root / "Kptfile"), "is a directory, not a Kptfile: it was not read (the package is its directory's files alone)"))
        ignore = krmignore(pkg.root)
        if ignore is not None:
            pkg.ignored = [n for n in pkg.given if ignore.excludes(_relative(known.get(n) or realpath(n, dirs), pkg.root))]
            pkg.given = [n for n in pkg.given if n not in pkg.ignored]
        pkg.real = {n: known.get(n) or realpath(n, dirs) for n in pkg.given}
        given = set(pkg.real.values())
        recursive = pkg.kptfile is not None
        here = os.getcwd()
        under = here.rstrip(os.sep) + os.sep
        for f, link in _yaml_paths(pkg.root, recursive, True, ignore, "", pkg.unsearched):
            # the search starts at the resolved root and enters no linked directory: a file
            # that is no symbolic link is its own real path (no lstat for each of 1,500 files)
            real = realpath(f, dirs) if link else f
            if real not in given:
                # shown(), by prefix: the paths found are absolute and normalized, as is `here`
                name = f[len(under):] if f.startswith(under) else shown(f, here)
                pkg.context.append(name)
                pkg.real[name] = real
    return [pkg for pkg in by_root.values() if pkg.given or not pkg.ignored]


def shown(path: str, here: str) -> str:
    """A context file's name as results and messages give it: relative to the working
    directory when it is under it (as pre-commit names files), else as found."""
    rel = os.path.relpath(path, here)
    return path if rel.startswith("..") else rel


def _relative(path: str, root: Path) -> str:
    """`path` relative to the package root, with `/` separators ("" when it is outside)."""
    rel = os.path.relpath(path, root)
    return "" if rel.startswith("..") else rel.replace(os.sep, "/")


class Ignore:
    """A `.krmignore`: gitignore-style patterns relative to the package root, as kpt reads
    them (kyaml's LocalPackageReader with go-gitignore): `#` comments, `!` to re-include,
    a trailing `/` for directories only, a `/` inside to anchor the pattern at the root (else
    it matches a name at any depth), `*`, `?`, `[...]` and `**`. A file under an excluded
    directory is excluded."""

    __slots__ = ("rules",)

    def __init__(self, text: str) -> None:
        self.rules: list[tuple[patterns.Pattern[str], bool, bool]] = []  # (pattern, negated, directories only)
        for raw in text.splitlines():
            line = raw.rstrip(" \t\r")
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            if negated or line.startswith("\\"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if line:
                self.rules.append((_gitignore_regex(line), negated, dir_only))

    def _matches(self, rel: str, is_dir: bool) -> bool:
        hit = False
        for pattern, negated, dir_only in self.rules:
            if (is_dir or not dir_only) and pattern.fullmatch(rel):
                hit = not negated
        return hit

    def excludes(self, rel: str, is_dir: bool = False) -> bool:
        """Whether the path (relative to the package root, `/` separators) is excluded."""
        if not rel:
            return False
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self._matches("/".join(parts[:i]), True):
                return True
        return self._matches(rel, is_dir)


def _gitignore_regex(pattern: str) -> patterns.Pattern[str]:
    anchored = "/" in pattern
    pattern = pattern.lstrip("/")
    out = [] if anchored else ["(?:.*/)?"]
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == len(pattern) and (i == 0 or pattern[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(patterns.escape(c))
            i += 1
    return patterns.compile("".join(out), patterns.DOTALL)


KRMIGNORE = ".krmignore"
MAX_KRMIGNORE_BYTES = 1024 * 1024


def krmignore(root: Path) -> Ignore | None:
    """The package's `.krmignore`, or None when it has none (or it is not a readable
    regular file of at most 1 MiB: kpt would fail on it; here it excludes nothing)."""
    path = root / KRMIGNORE
    if not reader.is_present(path):
        return None
    try:
        data, _st = reader.read_bytes(path, limit=MAX_KRMIGNORE_BYTES)  # a FIFO or a device is refused, never read
    except reader.FileRefused:
        return None
    return Ignore(data.decode("utf-8", "replace"))


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
    # os.path's tests, not Path's: they answer False for a path the system cannot look up
    # (longer than PATH_MAX, a component past NAME_MAX), which Path's raise for
    here = path.parent if not os.path.isdir(path) else path
    d = here.resolve()
    while True:
        if os.path.isfile(d / "Kptfile"):
            return d
        if os.path.lexists(d / ".git") or d.parent == d:
            return here.resolve()
        d = d.parent


def _yaml_files(
    root: Path, recursive: bool, stop_at_packages: bool, ignore: Ignore | None = None, rel: str = "",
    unsearched: list[tuple[str, str]] | None = None,
) -> list[Path]:
    """The YAML files under `root` (not hidden). A directory that cannot be listed (its path
    past PATH_MAX, no permission) is added to `unsearched` with why, and the search goes on."""
    return [Path(f) for f, _link in _yaml_paths(root, recursive, stop_at_packages, ignore, rel, unsearched)]


def _yaml_paths(
    root: str | Path, recursive: bool, stop_at_packages: bool, ignore: Ignore | None, rel: str,
    unsearched: list[tuple[str, str]] | None,
) -> list[tuple[str, bool]]:
    """_yaml_files as (path, whether it is a symbolic link), the path as os.scandir gives it
    (a Path apiece cost more than the search, for 1,500 files)."""
    out: list[tuple[str, bool]] = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError as err:
        if unsearched is not None and rel:  # the root itself is the caller's to report
            unsearched.append((str(root), _unsearchable(err)))
        return out
    for e in entries:
        if e.name.startswith("."):
            continue
        try:
            is_file = e.is_file()
        except OSError:  # a symbolic link loop: listed, refused when read (as context: a warning)
            is_file = True
        if is_file and e.name.endswith(YAML_SUFFIXES):
            if ignore is None or not ignore.excludes(rel + e.name):
                out.append((e.path, _is_link(e)))
        elif recursive and _is_dir(e):
            sub = e.path
            if stop_at_packages and os.path.isfile(os.path.join(sub, "Kptfile")):
                continue  # a nested package is a package of its own
            if ignore is not None and ignore.excludes(rel + e.name, is_dir=True):
                continue
            out.extend(_yaml_paths(sub, recursive, stop_at_packages, ignore, rel + e.name + "/", unsearched))
    return out


def _is_link(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_symlink()
    except OSError:  # cannot tell: resolved as any path is
        return True


def unsearched_warnings(unsearched: list[tuple[str, str]], packages: list[Package]) -> list[Result]:
    """A warning about each path a search passed over (a directory it could not enter, such
    as a deep vendor tree past PATH_MAX; a directory argument without YAML files; a Kptfile
    that is a directory), once, named relative to the working directory: the files found
    elsewhere are rendered all the same."""
    found = [*unsearched, *(u for pkg in packages for u in pkg.unsearched)]
    if not found:
        return []
    here = os.getcwd()
    seen = {os.path.abspath(path): why for path, why in found}
    return [Result("warning", f"{shown(path, here)}: {why}") for path, why in seen.items()]


def _is_dir(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _unsearchable(e: OSError) -> str:
    """Why a directory of the package was not searched for YAML files, and what to do."""
    import errno

    if e.errno == errno.ENAMETOOLONG:
        return (
            "its path is longer than the system allows (PATH_MAX); it was not searched for YAML "
            "files: exclude it in the package's .krmignore, or move what it holds up"
        )
    return f"cannot be listed ({e.strerror or e}); it was not searched for YAML files"


def kptfile_config(pkg: Package, text: str | None = None) -> tuple[Any, str | None, str | None]:
    """_kptfile_config as (node, path, None), or (None, None, why the Kptfile or its
    `configPath` cannot be taken): a package's policy says the problem on its files. `text`:
    the Kptfile's text as it was before the change (not read)."""
    try:
        node, source = _kptfile_config(pkg, text)
    except ValueError as e:
        return None, None, str(e)
    return node, source, None


def _kptfile_config(pkg: Package, text: str | None = None) -> tuple[Any, str | None]:
    """The function config the package's Kptfile gives this function: (a ConfigMap built from
    `configMap`, or the path of `configPath`) as (node, path); (None, None) when it gives none.
    Raises ValueError with the reason when the Kptfile cannot be read."""
    k = pkg.kptfile
    if k is None:
        return None, None
    try:
        # the guarded loader: a Kptfile is anyone's input (an alias bomb, nesting 10,000 deep)
        if text is None:
            text = reader.read_text(k)
        doc = guards.safe_load_guarded(text, str(k))
    except InputError as e:
        raise ValueError(str(e)) from None
    pipeline = doc.get("pipeline") if isinstance(doc, dict) else None
    steps: list[tuple[str, Any]] = []
    if isinstance(pipeline, dict):
        for key in ("mutators", "validators"):
            if isinstance(pipeline.get(key), list):
                steps.extend((f"pipeline.{key}[{i}]", step) for i, step in enumerate(pipeline[key]))
    for field, step in steps:
        if not isinstance(step, dict):
            continue
        ref = f"{step.get('image') or ''} {step.get('exec') or ''}"
        if FUNCTION not in ref:
            continue
        if isinstance(step.get("configPath"), str):
            return None, _config_path(pkg, k, text, f"{field}.configPath", step["configPath"])
        if isinstance(step.get("configMap"), dict):
            # annotated (in memory) with the Kptfile and the step's field: results name the key there
            where = {PATH_KEY: shown(str(k), os.getcwd()), CONFIG_FIELD_KEY: f"{field}.configMap"}
            cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input", "annotations": where}, "data": step["configMap"]}
            return cm, str(k)
    return None, None


def _config_path(pkg: Package, kptfile: Path, text: str, field: str, value: str) -> str:
    """The file a step's `configPath` names. kpt refuses a path that is absolute or leaves
    the package (kpt's validateFnConfigPathSyntax: "path must not be outside the package",
    so a package cannot make its consumer's machine read any YAML file); so does this, and
    so for a symbolic link that leads out. Raises ValueError with a located message."""
    clean = os.path.normpath(value)
    path = pkg.root / clean
    inside = not os.path.isabs(clean) and ".." not in clean.split(os.sep) and value.strip() != ""
    if inside:
        real, root = os.path.realpath(path), os.path.realpath(pkg.root)
        inside = real.startswith(root.rstrip(os.sep) + os.sep)
    if inside:
        return shown(str(path), os.getcwd())  # as results name it: relative where it can be
    line, col = _locate_value(text, "configPath", value)
    name = _kptfile_name(text)
    raise ValueError(
        f"{kptfile}:{line}:{col}: Kptfile {name}: {field} `{value}` is outside the package "
        f"{pkg.root}; kpt refuses it (a function config must be a file inside the package). "
        "Move the config into the package and give its path relative to the Kptfile's "
        "directory, or use `configMap`"
    )


def _locate_value(text: str, key: str, value: str) -> tuple[int, int]:
    """Line and column (1-based) of `key: value` in the text, else of the first `key:`."""
    first: tuple[int, int] | None = None
    for n, line in enumerate(text.splitlines(), 1):
        at = line.find(key + ":")
        if at < 0:
            continue
        first = first or (n, at + 1)
        if value in line[at:]:
            return n, at + 1
    return first or (1, 1)


def _kptfile_name(text: str) -> str:
    m = patterns.search(r"^metadata:\s*\n(?:[ \t].*\n)*?[ \t]+name:[ \t]*['\"]?([^'\"\s#]+)", text, patterns.M)
    return m.group(1) if m else "(unnamed)"
