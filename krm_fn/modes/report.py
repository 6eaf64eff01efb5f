"""How files mode tells its outcome: the results, one line each; the files rewritten (a
file not named says why it was rendered) and the counts; or all of it as one JSON object."""
from __future__ import annotations

from krm_fn.core.paths import escaped
from krm_fn.core.results import Result
from krm_fn.core.results import counts
from krm_fn.core.results import located_dict
from krm_fn.core.results import result_line
from krm_fn.core.results import summary_line
from krm_fn.io.textdiff import unified_diff
from krm_fn.transforms import prerequisite

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from typing import Protocol

    from krm_fn.io.streams import Stream
    from krm_fn.modes.dependents import Why
    from krm_fn.transforms.context import Plan

    # what files mode's FileState and FilesOutcome give (they are made there, told here)
    class FileState(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def failed(self) -> bool: ...
        @property
        def new_text(self) -> str | None: ...
        @property
        def stream(self) -> Stream | None: ...
        @property
        def why(self) -> Why | None: ...

    class FilesOutcome(Protocol):
        @property
        def files(self) -> Sequence[FileState]: ...
        @property
        def results(self) -> list[Result]: ...
        @property
        def plans(self) -> list[Plan]: ...
        @property
        def assistant_off(self) -> bool: ...
        @property
        def placeholders(self) -> bool: ...
        @property
        def changed(self) -> Sequence[FileState]: ...

    class Writer(Protocol):
        def write(self, text: str, /) -> object: ...


def write_results(results: list[Result], verbosity: int, err: Writer) -> None:
    shown = ("error",) if verbosity < 0 else ("error", "warning") if verbosity == 0 else ("error", "warning", "info")
    for r in results:
        if r.severity in shown:
            err.write(result_line(r) + "\n")


def write_summary(outcome: FilesOutcome, write: bool, err: Writer) -> None:
    """The files rewritten, one line each, the counts, and the cluster's prerequisite when
    placeholders were rendered."""
    changed = outcome.changed
    for f in changed:
        if not f.failed:
            # a file not named says why it was rendered (`run.yaml: re-rendered: runs Pipeline
            # build, changed in pipeline.yaml`)
            why = f": re-rendered: {f.why.text}" if f.why is not None else ""
            err.write(f"krm-coschedule: {'rewrote' if write else 'would rewrite'} {f.name}{why}\n")
    failed = sum(1 for f in outcome.files if f.failed)
    rewritten = sum(1 for f in changed if not f.failed)
    unchanged = sum(1 for f in outcome.files if f.new_text is None and not f.failed)
    verb = "rewritten" if write else "would be rewritten"
    err.write(
        f"krm-coschedule: {rewritten} file(s) {verb}, {failed} failed, {unchanged} unchanged; "
        f"{summary_line(outcome.results)}\n"
    )
    # the runs of a file that failed (not written) have no placeholder to speak of
    lost = {(it.meta.kind, it.meta.namespace or "", it.meta.name) for f in outcome.files if f.failed and f.stream for it in f.stream.items}
    plans = [p for p in outcome.plans if (p.run.kind, p.run.namespace or "", p.run.name) not in lost]
    needs = prerequisite.note(plans, assistant_off=outcome.assistant_off, placeholders=outcome.placeholders)
    if needs:
        err.write(f"krm-coschedule: {needs}\n")


def json_report(outcome: FilesOutcome, write: bool, with_diff: bool, failures: Sequence[tuple[FileState, str]]) -> str:
    """{files: [{path, status, reason?, why?, diff?}], results: [...KRM results], summary} for
    CI annotations. status: rewritten | would-rewrite | unchanged | failed; `why`: a file not
    named, rendered because it depends on the change (dependents.Why)."""
    import json

    reasons = {id(f): r for f, r in failures}
    rows = []
    for f in outcome.files:
        row: dict[str, Any] = {"path": f.name}
        if f.failed:
            row["status"] = "failed"
            if id(f) in reasons:
                row["reason"] = reasons[id(f)]
        elif f.new_text is not None:
            row["status"] = "rewritten" if write else "would-rewrite"
            if f.why is not None:
                row["why"] = f"re-rendered: {f.why.text}"
            if with_diff:
                row["diff"] = diff(f)
        else:
            row["status"] = "unchanged"
        rows.append(row)
    summary: dict[str, int] = counts(outcome.results)
    statuses = [row["status"] for row in rows]
    summary["files_changed"] = sum(1 for x in statuses if x in ("rewritten", "would-rewrite"))
    summary["files_failed"] = statuses.count("failed")
    summary["files_unchanged"] = statuses.count("unchanged")
    text = json.dumps({"files": rows, "results": [located_dict(r) for r in outcome.results], "summary": summary}, indent=2, ensure_ascii=False)
    return escaped(text, in_json=True) + "\n"  # a file name that is not UTF-8: its bytes as `\\xNN`


def diff(f: FileState) -> str:
    assert f.stream is not None and f.new_text is not None
    return unified_diff(f.name, f.stream.raw, f.new_text)
