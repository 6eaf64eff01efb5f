"""Which of a package's files are rendered with the ones named: a package ends as a full
render would leave it, whatever files are named (pre-commit names only the staged ones),
and a commit of one run file still reads the others only as context."""
from __future__ import annotations

import os

from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.io import packages
from krm_fn.io.items import Item
from krm_fn.orchestration import process as process_mod
from krm_fn.orchestration.collisions import TEKTON_RUNS
from krm_fn.policy import config as config_mod

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any
    from typing import Protocol
    from typing import TypeVar

    from krm_fn.io import streams

    class _File(Protocol):
        path: Path
        failed: bool
        stream: streams.Stream | None

    F = TypeVar("F", bound=_File)


_DEPENDED_ON = frozenset({("tekton.dev", "Pipeline"), ("shipwright.io", "Build"), ("kpt.dev", "Kptfile"), ("apps", "StatefulSet")})


def config_file(node: Any, source: str | None) -> str | None:
    """The real path of the file a package's Kptfile names as this function's config, from
    what packages.kptfile_config gave: (None, path, None) for a `configPath`."""
    return os.path.realpath(source) if source is not None and node is None else None


def promoted(files: list[F], context: list[F], config: str | None = None) -> list[F]:
    """The package's other files that must be rendered with the named ones, so that the
    package ends as a full render would leave it, whatever files were named (pre-commit
    names only the staged ones):

    - every file with an object the function handles, when a named file holds what runs
      are rendered from: a Pipeline, a Build, a StatefulSet that is not generated (it may
      take an assistant's name), the policy, the Kptfile or its config (`config`, a real
      path). A run pinned to the old Pipeline's tasks would be committed stale;
    - a file with a Tekton run of the same namespace whose name ends with a named run's name
      or is the end of it: the same name, or names that Tekton's hash of the workspace and
      run names (no separator) can make collide (`run1` + `source`, `cerun1` + `sour`), are
      judged with both runs rendered, as when both files are named.

    Otherwise the other files stay context only: a commit of one run file costs what it
    did (names are compared from the scanner's identities, nothing is parsed)."""
    if not context:
        return []
    named_runs, everything = _named(files, config)
    if everything:
        return [f for f in context if any((it.meta.group, it.meta.kind) in process_mod.KNOWN_KINDS for it in _items(f))]
    if not named_runs:
        return []
    # every end of every named name: a lookup per context run, whatever the number named
    ends = {ns: {n[i:] for n in names for i in range(len(n))} for ns, names in named_runs.items()}
    return [f for f in context if _may_collide(f, named_runs, ends)]


def _named(files: list[F], config: str | None) -> tuple[dict[str, set[str]], bool]:
    """({namespace: names of the named files' Tekton runs}, whether a named file holds what
    runs are rendered from)."""
    named_runs: dict[str, set[str]] = {}
    everything = False
    for f in files:
        if config is not None and not f.failed and packages.realpath(f.path) == config:
            everything = True
        for item in _items(f):
            m = item.meta
            if (m.group, m.kind) in TEKTON_RUNS and m.name:
                named_runs.setdefault(m.namespace, set()).add(m.name)
            elif m.kind == config_mod.POLICY_KIND or (
                (m.group, m.kind) in _DEPENDED_ON and OWNER_ANNOTATION not in m.annotations
            ):
                everything = True
    return named_runs, everything


def _may_collide(f: _File, named_runs: dict[str, set[str]], ends: dict[str, set[str]]) -> bool:
    """Whether a file holds a Tekton run whose name ends with a named run's name of its
    namespace, or is the end of one (`ends`: the ends of the named names)."""
    for item in _items(f):
        m = item.meta
        names = named_runs.get(m.namespace) if (m.group, m.kind) in TEKTON_RUNS and m.name else None
        if names is None:
            continue
        if m.name in ends[m.namespace] or any(m.name[i:] in names for i in range(len(m.name))):
            return True
    return False


def _items(f: _File) -> list[Item]:
    if f.stream is None:
        return []
    return [doc.item for doc in f.stream.docs if doc.item is not None]
