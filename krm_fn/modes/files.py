"""Files mode (pre-commit): `krm-coschedule --config POLICY FILE...` rewrites YAML files in
place. All files form one ResourceList (a PipelineRun in one file can use a Pipeline in
another); each file is all or nothing on its own.

The file contract lives here, in two steps: `run` reads every file and decides its new text
(writing nothing); `commit` writes the changed files (or prints their diffs), counts and
words the outcome, and gives the exit code.
"""
from __future__ import annotations

import os
from pathlib import Path

from krm_fn.core.errors import InputError
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.keys import CONFIG_FIELD_KEY
from krm_fn.core.keys import LOCAL_CONFIG
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.record import Record
from krm_fn.core.results import Result
from krm_fn.core.results import sorted_results
from krm_fn.io import packages
from krm_fn.io import reader
from krm_fn.io import resourcelist
from krm_fn.io import streams
from krm_fn.io import streamwrite
from krm_fn.io.textdiff import coloured
from krm_fn.io.writer import write_files
from krm_fn.modes import dependents
from krm_fn.modes import left_out
from krm_fn.modes import package_policy
from krm_fn.modes import report
from krm_fn.modes import verdicts
from krm_fn.modes.locate import locate
from krm_fn.orchestration import process as process_mod
from krm_fn.policy import config as config_mod
from krm_fn.transforms import prerequisite
from krm_fn.transforms.context import Plan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from typing import Protocol

    from krm_fn.io.cache import Cache
    from krm_fn.orchestration.process import Outcome


    class Writer(Protocol):
        def write(self, text: str, /) -> object: ...

        def flush(self) -> object: ...


class FileState(Record):
    __slots__ = ("path", "name", "stream", "failed", "new_text", "stat", "why", "raw")

    def __init__(
        self,
        path: Path,
        name: str,
        stream: streams.Stream | None = None,
        failed: bool = False,
        new_text: str | None = None,
        stat: os.stat_result | None = None,
    ) -> None:
        self.path = path
        self.name = name  # as given on the command line (and in results)
        self.stream = stream
        self.failed = failed
        self.new_text = new_text  # None: unchanged (or failed)
        self.stat = stat  # as read: a file that changes before it is written is not overwritten
        self.why: dependents.Why | None = None  # not named: rendered because it depends on the change
        self.raw: str | None = None  # the text of a file whose documents could not be read (left_out)


class FilesOutcome(Record):
    __slots__ = ("files", "results", "plans", "global_error", "assistant_off", "placeholders", "judged")

    def __init__(
        self,
        files: list[FileState],
        results: list[Result],
        plans: list[Plan],
        global_error: bool = False,
        assistant_off: bool = False,
    ) -> None:
        self.files = files
        self.results = results
        self.plans = plans
        self.global_error = global_error
        self.assistant_off = assistant_off  # a package's feature-flags turn Tekton's assistant off
        self.placeholders = False  # a package answered from the cache renders placeholders (it has no plans)
        # a brought-in file's errors were judged against the state before the change (or the
        # lack of one): not the package's bytes alone, so the verdict is not cached
        self.judged = False

    @property
    def changed(self) -> list[FileState]:
        return [f for f in self.files if f.new_text is not None]

    @property
    def has_error(self) -> bool:
        return self.global_error or any(f.failed for f in self.files)


def _file_error(name: str, message: str) -> Result:
    return Result("error", message, file_path=name, file_index=0)


# --------------------------------------------------------------------------- read and decide


def read_files(
    names: list[str], defer: bool = False, tick: Callable[[str], None] | None = None, pre: dict[str, Any] | None = None,
    real: dict[str, str] | None = None,
) -> tuple[list[FileState], list[Result]]:
    """Read, decode and split every file; a file that cannot be read fails on its own.
    `defer`: without the syntax check of the documents (streams.make_items). `tick` is
    called with each name as it is read (the progress line). `pre`: what the verdict cache's
    probe read of them (name -> (bytes, stat), or the refusal), not read again. `real`: their
    real paths as the package found them (Package.real), not resolved again."""
    real = real or {}
    files: list[FileState] = []
    results: list[Result] = []
    seen: set[str] = set()
    dirs: dict[str, str] = {}
    for name in names:
        path = Path(name)
        key = real.get(name) or packages.realpath(path, dirs)
        if key in seen:
            continue  # the same file twice (pre-commit never does this; users might)
        seen.add(key)
        if tick is not None:
            tick(name)
        f = FileState(path, name)
        files.append(f)
        try:
            data = _read(f, pre)
        except reader.FileRefused as e:
            f.failed = True
            results.append(_file_error(name, str(e)))
            continue
        text = None
        try:
            text = _decode(data)
            stream = streams.split(text, name)
            streams.make_items(stream, defer)
        except InputError as e:
            f.failed, f.raw = True, text
            message = f"{name}: {e}" if not str(e).startswith(name) else str(e)
            results.append(_file_error(name, f"{message}{left_out.LEFT_UNCHANGED}"))
            continue
        f.stream = stream
    return files, results


def _read(f: FileState, pre: dict[str, Any] | None = None) -> bytes:
    """The file's bytes, by the one reader of every file the function opens (krm_fn.io.reader:
    a regular file only, at most MAX_FILE_BYTES), or as the cache's probe read them (`pre`);
    its stat as read goes to f.stat. Raises reader.FileRefused."""
    got = None if pre is None else pre.get(f.name)
    if isinstance(got, reader.FileRefused):
        raise got
    data, f.stat = reader.read_bytes(f.path, f.name) if got is None else got
    return data


def _decode(data: bytes) -> str:
    if b"\x00" in data:
        raise InputError("contains NUL bytes (a binary file?)")
    text = reader.utf8(data)
    if not resourcelist.printable_ascii(data):
        resourcelist.check_printable(text, "")
    return text


def run(
    names: list[str], function_config: Any, light: bool = False, progress: Callable[[int, int, str], None] | None = None,
    cache: Cache | None = None, policy: tuple[str, bytes] | None = None,
) -> FilesOutcome:
    """Render the files package by package (krm_fn.io.packages): each package's other YAML
    files are read as context, and its policy is `function_config` (--config) when given,
    else its own. Decides every file's new text; writes nothing. `cache`: a package found
    clean before with the same bytes is answered from it (modes/verdicts; `policy`: the
    --config file's path and bytes)."""
    with process_mod.PausedGC():
        return _run(names, function_config, light, progress, cache, policy)


def _run(
    names: list[str], function_config: Any, light: bool, progress: Callable[[int, int, str], None] | None,
    cache: Cache | None, policy: tuple[str, bytes] | None,
) -> FilesOutcome:
    if not all(os.path.isabs(n) for n in names):
        try:
            os.getcwd()  # every relative path is resolved against it (packages.realpath)
        except FileNotFoundError:
            raise InputError(
                "the current directory no longer exists (it was removed after krm-coschedule was "
                "started there): run it again from an existing directory"
            ) from None
    empty: list[tuple[str, bool]] = []  # nothing to render is no success (it exited 0 without a word)
    unsearched: list[tuple[str, str]] = []  # directories that could not be searched: warnings
    names, real = packages.unique(packages.expand(names, empty, unsearched))
    groups = packages.group(names, real)
    errors = [_file_error(n, packages.nothing_there(n, holds)) for n, holds in empty]
    outcome = FilesOutcome([], [*errors, *packages.unsearched_warnings(unsearched, groups)], [], bool(empty))
    many = progress is not None and (len(names) >= 50 or len(groups) > 1)
    ticked: set[str] = set()
    for i, pkg in enumerate(groups):
        tick = None
        if many and progress is not None:
            show = progress
            where = f"package {i + 1}/{len(groups)}, file"

            def tick(name: str, where: str = where, show: Callable[[int, int, str], None] = show) -> None:
                # per file read (1,000 files in one package sat at 1/1); a re-read counts once
                if name not in ticked:
                    ticked.add(name)
                    show(len(ticked) - 1, len(names), where)

        part = _package_outcome(pkg, function_config, light, tick, cache, policy)
        outcome.files.extend(part.files)
        outcome.results.extend(part.results)
        outcome.plans.extend(part.plans)
        outcome.global_error = outcome.global_error or part.global_error
        outcome.assistant_off = outcome.assistant_off or part.assistant_off
        # a verdict from the cache has no plans, only whether it rendered placeholders; a rendered
        # package's plans say it (and the summary leaves out the runs of files that failed)
        outcome.placeholders = outcome.placeholders or (part.placeholders and not part.plans)
    if many and progress is not None:
        progress(len(groups), len(groups), "")
    by_name = {f.name: i for i, f in enumerate(outcome.files)}
    order = {n: i for i, n in enumerate(names)}
    outcome.files.sort(key=lambda f: order.get(f.name, len(order) + by_name[f.name]))
    outcome.results = sorted_results(outcome.results)
    return outcome


def _package_outcome(
    pkg: packages.Package, override: Any, light: bool, tick: Callable[[str], None] | None,
    cache: Cache | None, policy: tuple[str, bytes] | None,
) -> FilesOutcome:
    """One package's outcome, the files it reports (named, failed or changed): from the
    verdict cache when every byte is as when it was last found clean, else rendered (from the
    bytes the cache's probe read), and a clean outcome remembered."""
    probe = None if cache is None else verdicts.probe(cache, pkg, policy, light)
    hit = None if probe is None else probe.verdict()
    if hit is not None:
        outcome = FilesOutcome([FileState(Path(n), n) for n in hit.files], hit.results, [], assistant_off=hit.assistant_off)
        outcome.placeholders = hit.placeholders
        return outcome
    part = _run_package(pkg, override, light, tick=tick, pre=None if probe is None else probe.data)
    named = set(pkg.given)
    part.files = [f for f in part.files if f.name in named or f.failed or f.new_text is not None]
    part.placeholders = prerequisite.rendered(part.plans)
    if probe is not None and not (part.judged or part.has_error or part.changed or any(r.severity == "error" for r in part.results)):
        probe.remember(verdicts.Verdict([f.name for f in part.files], part.results, part.placeholders, part.assistant_off))
    return part


class _ReadEagerly(Exception):
    """The deferred reading met what only the eager one words (a file that fails the syntax
    check, an unreadable policy, a Tekton run that is not YAML): read the package again,
    every file checked as it is read."""


def _run_package(
    pkg: packages.Package, override: Any, light: bool, defer: bool = True, tick: Callable[[str], None] | None = None,
    pre: dict[str, Any] | None = None,
) -> FilesOutcome:
    """Render one package: the files named, and the package's files that depend on them
    (krm_fn.modes.dependents); a file that was not named is reported only when it changes or fails.
    `tick(name)`: called as each named file is read (the progress line).

    `defer`: the files are read without the syntax check of their documents, which is
    made after the first pass only of what nothing read (streams.check_deferred). Should a
    file fail the check, the package is read and rendered again with every file checked as
    it is read: the outcome, messages included, is then exactly that of the eager reading,
    which the deferred one only skips work of. `pre`: the files as the cache's probe read them."""
    if defer:
        try:
            return _render_package(pkg, override, light, True, tick, pre)
        except _ReadEagerly:
            pass
    return _render_package(pkg, override, light, False, tick, pre)


def _render_package(
    pkg: packages.Package, override: Any, light: bool, defer: bool, tick: Callable[[str], None] | None, pre: dict[str, Any] | None,
    kptfile: tuple[Any, str | None, str | None] | None = None, promote: bool = True,
) -> FilesOutcome:
    """One pass over the package: read it, decide every file's new text. Raises _ReadEagerly
    (only when `defer`). `kptfile`: the Kptfile's config as the state before the change had
    it, and `promote` False: only the files named are rendered (_before_errors)."""
    # the Kptfile's config for this function, read once for both uses: (node, path, problem)
    if kptfile is None:
        kptfile = packages.kptfile_config(pkg) if override is None else (None, None, None)
    files, context, errors, left = _read_package(pkg, dependents.config_file(*kptfile[:2]), defer, tick, pre, promote)
    if override is not None:
        policy: Any = override
    else:
        policy, problem = package_policy.find(pkg, files + context, kptfile, pre)
        if problem is not None:
            if defer:
                raise _ReadEagerly
            return _no_policy(pkg, files, errors, problem)
    live = [f for f in files if f.stream is not None]
    extra = [f for f in context if f.stream is not None]
    rendered = _render(files, live, extra, policy, light, defer, errors, left)
    if isinstance(rendered, FilesOutcome):
        rendered.results = sorted_results(locate(rendered.results, live + extra, _moved(kptfile[0])))
        return rendered  # an error for the whole package
    outcome, extra = rendered
    errors += left_out.warnings(outcome.missed, left)
    problems: dict[int, str] = {}
    try:
        texts = streamwrite.apply([f.stream for f in live + extra if f.stream is not None], outcome, problems)
    except InputError as e:
        errors.append(Result("error", str(e)))
        return FilesOutcome(files, sorted_results(errors), [], True)
    _decide(live, texts, problems, errors)
    kept = _shown_results(outcome.results, files, extra, policy)
    state = (pkg, override, light, kptfile)
    judged: list[str] = []

    def judge(brought: list[str]) -> tuple[frozenset[tuple[Any, ...]] | None, str]:
        judged.extend(brought)
        return _before_errors(state, files, brought)

    if any(f.failed and f.why is not None for f in files):  # a brought-in file failed: did the change cause it?
        from krm_fn.modes import before

        errors = before.not_part_of_the_change(files, errors, judge)
    located = locate(errors + kept, live + extra, _moved(kptfile[0]))
    done = FilesOutcome(files, sorted_results(located), outcome.plans, assistant_off=outcome.assistant_off)
    done.judged = bool(judged)
    return done


def _read_package(
    pkg: packages.Package, config: str | None, defer: bool, tick: Callable[[str], None] | None, pre: dict[str, Any] | None,
    promote: bool = True,
) -> tuple[list[FileState], list[FileState], list[Result], list[tuple[Result, str]]]:
    """(the files to render: the named ones and those that depend on them, the package's other
    files as context, the errors and warnings of reading them, the context files left out as
    not YAML: why and their text). `config`: the real path of the policy file the Kptfile
    names (dependents.config_file)."""
    files, read_errors = read_files(pkg.given, defer, tick, pre, pkg.real)
    context, unreadable = read_files(pkg.context, defer, pre=pre, real=pkg.real)  # what cannot be read is not context
    inodes = {(f.stat.st_dev, f.stat.st_ino) for f in files if f.stat is not None}
    # a hard link to a named file is that file, not another file of the package
    context = [f for f in context if f.stat is None or (f.stat.st_dev, f.stat.st_ino) not in inodes]
    promoted = dependents.promoted(files, context, config) if promote else []
    if promoted:
        for f, why in promoted:
            f.why = why
        files = files + [f for f, _why in promoted]
        context = [f for f in context if f.why is None]
    if defer and (read_errors or any(f.failed for f in context)):
        raise _ReadEagerly
    errors: list[Result] = list(read_errors)
    # a file the reader refused (a link loop, a FIFO...) is said; one that is no YAML (a Helm
    # template) is simply not context
    refused = {f.name for f in context if f.failed and f.stat is None}
    errors += [Result("warning", f"{r.message}; skipped as context", file_path=r.file_path) for r in unreadable if r.file_path in refused]
    raw = {f.name: f.raw for f in context if f.raw is not None}
    return files, context, errors, [(r, raw[r.file_path]) for r in unreadable if r.file_path in raw]


def _moved(node: Any) -> dict[str, str]:
    """{the Kptfile: where its step's configMap is} for a policy made of one (locate)."""
    ann = ((node or {}).get("metadata") or {}).get("annotations") or {}
    return {ann[PATH_KEY]: ann[CONFIG_FIELD_KEY]} if CONFIG_FIELD_KEY in ann else {}


def _before_errors(
    state: tuple[packages.Package, Any, bool, tuple[Any, str | None, str | None]], files: list[FileState], brought: list[str],
) -> tuple[frozenset[tuple[Any, ...]] | None, str]:
    """The errors (file, message, object, field) of the brought-in files `brought` rendered
    with the named files as they are at HEAD (absent when new), the package's other files as
    they are; (None, why not) when there is no state before the change (modes/before)."""
    pkg, override, light, kptfile = state
    from krm_fn.modes import before

    then = before.state_before(pkg, [f.name for f in files if f.why is None], brought, override is None, kptfile)
    if isinstance(then, str):
        return None, then
    try:
        outcome = _render_package(then[0], override, light, False, None, then[1], then[2], promote=False)
    except InputError as e:
        return None, f"the render before the change failed: {e}"
    return frozenset((r.file_path, r.message, r.resource, r.field_path) for r in outcome.results if r.severity == "error"), ""


def _no_policy(pkg: packages.Package, files: list[FileState], errors: list[Result], problem: str) -> FilesOutcome:
    """The package's policy cannot be read: every file fails, the problem said once."""
    kptfile = pkg.kptfile
    located = kptfile is not None and problem.startswith(f"{kptfile}:")
    if located:  # `Kptfile:line:col: ...`, said once for the package
        errors.append(_file_error(str(kptfile), problem))
    for f in files:
        if not f.failed:
            f.failed = True
            if not located:
                errors.append(_file_error(f.name, f"{f.name}: {problem}"))
    return FilesOutcome(files, errors, [])


def _render(
    files: list[FileState], live: list[FileState], extra: list[FileState], policy: Any, light: bool, defer: bool, errors: list[Result],
    left: list[tuple[Result, str]],
) -> tuple[Outcome, list[FileState]] | FilesOutcome:
    """Process the package's objects until no new file fails: (the outcome, the context files
    left), or the package's outcome when an error stops all of it. A file with an error is all
    or nothing on its own: the pass runs again with its objects kept for lookups only. Every
    pass starts from the files' text: a pass edits the objects it reads, and a run edited by
    the last pass would look rendered. A context file whose objects cannot be read leaves the
    context (its first error and its text go to `left`)."""
    by_name = {f.name: f for f in files}
    first = True
    missed: set[tuple[str, str, str]] = set()  # every pass's (a run failing in one looks nothing up in the next)
    while True:
        for group, lookups_only in ((live, False), (extra, True)):
            for f in group:  # by group: `f in extra` compares FileStates field by field
                assert f.stream is not None
                if not first:  # every stream passed the syntax check by now (read, or check_deferred)
                    streams.make_items(f.stream, checked=True)
                if f.failed or lookups_only:
                    _mark_context_only(f.stream)
        first = False
        try:
            outcome = process_mod.process(
                streams.resource_list_of([f.stream for f in live + extra if f.stream is not None], policy),
                light=light, speculate=defer,  # the eager reading (below) never speculates
            )
            missed |= outcome.missed
        except process_mod.Refuted:
            raise _ReadEagerly from None
        except YamlSyntaxError:
            # an object the deferred reading did not check (a Tekton run) is not YAML: the
            # eager reading names its file and place, as for any other file; one the check
            # passed fails (or leaves the context) on its own (left_out.unloadable)
            if defer:
                raise _ReadEagerly from None
            kept = left_out.set_aside_unloadable(live, extra, errors, left)
            if kept is None:
                raise
            extra = kept
            continue
        # the deferred reading differs from the eager one only in when the documents are
        # checked: when every file passes the check, the eager reading would have made the
        # same items, and this pass's outcome (errors included) is the eager one's. A context
        # file nothing read (no item looked up, not the policy's) is not checked (issue 34):
        # whether the eager reading would keep it or leave it out, nothing used it
        if defer and not all(streams.check_deferred(f.stream) for f in live + _read_context(extra, policy) if f.stream is not None):
            raise _ReadEagerly
        dropped = left_out.drop_broken(outcome.results, extra, left)
        if dropped:
            extra = [f for f in extra if f not in dropped]
            continue
        new_failures, global_error = _fail_files(outcome.results, by_name, errors)
        if global_error:  # the policy's, or no file's: no file is rendered, each has failed
            for f in files:
                f.failed = True
            return FilesOutcome(files, sorted_results(errors + _others(outcome.results)), [], True)
        if not new_failures:
            outcome.missed = frozenset(missed)
            return outcome, extra


def _read_context(extra: list[FileState], policy: Any) -> list[FileState]:
    """The context files a lookup read: one of their items was looked up (Item.looked_up),
    or they hold the policy."""
    path = config_mod.config_file(policy)
    real = None if path is None else os.path.realpath(path)

    def holds_policy(name: str) -> bool:
        return real is not None and os.path.basename(name) == os.path.basename(real) and os.path.realpath(name) == real

    return [
        f for f in extra
        if f.stream is not None and (holds_policy(f.name) or any(d.item is not None and d.item.looked_up for d in f.stream.docs))
    ]


def _decide(live: list[FileState], texts: dict[int, str], problems: dict[int, str], errors: list[Result]) -> None:
    """Each named file's new text, or its failure (a problem of writing it back, or JSON)."""
    for i, f in enumerate(live):
        assert f.stream is not None
        if f.failed or texts[i] == f.stream.raw and i not in problems:
            continue
        problem = problems.get(i) or _refuse_json(f)
        if problem is not None:
            f.failed = True
            errors.append(_file_error(f.name, problem))
            continue
        f.new_text = texts[i]


def _shown_results(results: list[Result], files: list[FileState], extra: list[FileState], policy: Any) -> list[Result]:
    """The results besides errors worth showing: not of a failed file, nor of a context file
    but for the package's policy (a key of it) and Tekton's feature-flags (about the cluster
    the package is rendered for)."""
    failed_names = {f.name for f in files if f.failed}
    context_names = {f.name for f in extra}
    policy_file = config_mod.config_file(policy)
    return [
        r for r in results
        if r.severity != "error" and r.file_path not in failed_names
        and (r.file_path not in context_names or r.file_path == policy_file or dict(r.tags).get("reason") == prerequisite.REASON)
    ]


def _refuse_json(f: FileState) -> str | None:
    """A JSON file is not rewritten: the new text would be YAML (and more documents)."""
    assert f.stream is not None
    body = f.stream.raw.lstrip("\ufeff \t\r\n")
    if f.name.endswith(".json") or body.startswith(("{", "[")):
        return (
            f"{f.name}: is JSON, and the function writes YAML (the run would change and gain "
            "generated documents); it is left unchanged: convert it to YAML to have it rendered"
        )
    return None


def _fail_files(results: list[Result], by_name: dict[str, FileState], errors: list[Result]) -> tuple[bool, bool]:
    """Mark the file of every error failed; (a file newly failed, an error names no file)."""
    new_failures = global_error = False
    for r in results:
        if r.severity != "error":
            continue
        target = by_name.get(r.file_path or "")
        if target is None:
            global_error = True
        elif not target.failed:
            target.failed = True
            new_failures = True
        if r not in errors:
            errors.append(r)
    return new_failures, global_error


def _others(results: list[Result]) -> list[Result]:
    return [r for r in results if r.severity != "error"]


def _mark_context_only(stream: streams.Stream | None) -> None:
    """Objects of a failed file stay in the list for lookups but are not transformed."""
    assert stream is not None
    for it in stream.items:
        it.lookup_only = True
        if it.meta.annotations.get(LOCAL_CONFIG) != "true":
            it.meta.annotations = {**it.meta.annotations, LOCAL_CONFIG: "true"}


# --------------------------------------------------------------------------- write and report


def commit(
    outcome: FilesOutcome, write: bool, diff: bool, out: Writer, err: Writer, as_json: bool = False,
    colour: bool = False, verbosity: int = 0,
) -> int:
    """Write the changed files (or print their diffs), say what happened on `err` (or as one
    JSON object on `out`), and give the exit code: 1 when a file changed (pre-commit's
    convention) or anything failed. `verbosity` (black's and ruff's habit): -1 errors only,
    0 errors, warnings, the files rewritten and the summary, 1 the infos too."""
    if not as_json:
        report.write_results(outcome.results, verbosity, err)
    changed = outcome.changed
    if diff and not as_json:
        for f in changed:
            out.write(coloured(report.diff(f)) if colour else report.diff(f))
    notes: list[Result] = []  # what a write could not keep (a hard link, an extended attribute)
    failures: list[tuple[FileState, str]] = write_files(changed, notes) if write else []
    outcome.results = [*outcome.results, *notes]
    code = 1 if (changed or outcome.has_error) else 0
    if as_json:
        out.write(report.json_report(outcome, write, diff, failures))
        out.flush()
        return code
    report.write_results(notes, verbosity, err)
    for f, reason in failures:
        err.write(f"{f.name}: {reason}\n")
    out.flush()
    if verbosity >= 0:
        report.write_summary(outcome, write, err)
    return code
