"""A file brought in (modes/dependents) whose problem the change did not cause does not fail
the commit (issue 33). The rule: an error is the change's when the files passed, as they are at
git HEAD, do not give it (`state_before` sets that render up; files mode runs it, only when a
brought-in file has errors); where there is no such state (no git work tree, no commit, no git
on PATH, git failing), dependents.Why.caused judges by what the error names. KRM mode is
stateless and never runs git."""
from __future__ import annotations

from krm_fn.core.results import Result
from krm_fn.io import gitstate
from krm_fn.io import packages

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence
    from typing import Any
    from typing import Protocol

    from krm_fn.modes import dependents

    class _File(Protocol):
        name: str
        failed: bool
        new_text: str | None
        why: dependents.Why | None


def not_part_of_the_change(
    files: Sequence[_File], errors: list[Result], before: Callable[[list[str]], tuple[frozenset[tuple[Any, ...]] | None, str]],
) -> list[Result]:
    """A file not named, brought in (dependents), whose errors the change did not cause (a
    sibling whose name might collide, failing on its own problem): it is left unchanged and
    does not fail the commit; its errors are warnings that name it and say so. Naming the file,
    or the package, still fails on them.

    The change caused an error that the state before it does not give: `before(names)` renders
    the brought-in files `names` against the named files as they are at HEAD (only when one
    has an error: a commit that brings in nothing broken pays nothing) and gives the errors of
    that render, (file, message, object, field) each, or (None, why there is no state before
    the change), and then Why.caused judges by what the error names."""
    brought = [g for g in files if g.failed and g.why is not None]
    mine: dict[str, list[Result]] = {g.name: [] for g in brought}
    for r in errors:
        if r.severity == "error" and r.file_path in mine:
            mine[r.file_path].append(r)
    brought = [g for g in brought if mine[g.name]]
    if not brought:
        return errors
    was, why_not = before([g.name for g in brought])
    excused: dict[str, tuple[_File, str]] = {}
    for g in brought:
        assert g.why is not None
        if was is not None:
            if all((r.file_path, r.message, r.resource, r.field_path) in was for r in mine[g.name]):
                excused[g.name] = (g, "it fails the same way with the files passed as they are at HEAD, before the change")
        elif not any(g.why.caused(r) for r in mine[g.name]):
            excused[g.name] = (g, f"judged without the state before the change ({why_not}): the error names no file passed nor what changed")
    for g, _rule in excused.values():
        g.failed, g.new_text = False, None
    # an error the change caused reads as when the file is passed: its message is the same
    # whichever files are named (issue 33's stability across groupings)
    return _reworded(errors, excused)


def _reworded(errors: list[Result], excused: dict[str, tuple[_File, str]]) -> list[Result]:
    """The errors of the excused files as warnings that name the file, why it was rendered,
    and the rule that excused it."""
    out = []
    for r in errors:
        key = r.file_path or ""
        if r.severity == "error" and key in excused:
            f, rule = excused[key]
            assert f.why is not None
            r = _as(r, "warning", f"{r.message} ({f.name} is not part of the change, only rendered with it: {f.why.text}; {rule}; left unchanged)")
        out.append(r)
    return out


def _as(r: Result, severity: str, message: str) -> Result:
    return r.replace(severity=severity, message=message)


def state_before(
    pkg: packages.Package, named: list[str], brought: list[str], own_policy: bool, kptfile: tuple[Any, str | None, str | None],
) -> tuple[packages.Package, dict[str, Any], tuple[Any, str | None, str | None]] | str:
    """The render of the brought-in files `brought` against the state before the change:
    (the package to render, with `named` as they are at HEAD and absent when new, and
    `brought` named; the texts at HEAD as files mode's `pre`; the Kptfile's config as it was),
    or why there is no such state (io/gitstate.NoState). `own_policy`: the package's policy is
    its own (no --config), so a Kptfile passed is read as it was."""
    try:
        head = gitstate.head_texts(str(pkg.root), named)
    except gitstate.NoState as e:
        return str(e)
    pre: dict[str, Any] = {n: (t.encode("utf-8"), None) for n, t in head.items() if t is not None}
    k = pkg.kptfile
    if own_policy and k is not None:
        real = packages.realpath(k)
        was = next((head[n] for n in named if packages.realpath(n) == real), "")
        if was != "":  # the Kptfile is among the files passed: its config as it was
            kptfile = (None, None, None) if was is None else packages.kptfile_config(pkg, was)
    then = packages.Package(pkg.root, [n for n in named if head[n] is not None] + brought, [c for c in pkg.context if c not in brought])
    then.real = pkg.real
    return then, pre, kptfile
