"""Context files the render left out, and the lookups they explain. A package's file that is
not YAML (a Helm template) is simply not context, and one whose objects cannot be read leaves
the context (modes/files): neither fails the commit, since nothing has to read it. But when a
lookup then finds nothing (Context.missed: a run's Pipeline "is not in the input") and a file
left out names that object, the broken file is the likely cause, and the error alone sends
the user looking for an object that is there: a warning names the file, where and why it was
left out, and what it seems to hold.

And files holding a document the round-trip loader refuses though the syntax check passed it
(an alias to an anchor the document does not define: libyaml's parser, which the check runs,
leaves aliases to its composer): found when a pass meets one (`unloadable`), each fails, or
leaves the context, on its own, located, as when the check refuses a document."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.results import Result
from krm_fn.io.items import in_file_lines

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Protocol
    from typing import TypeVar

    from krm_fn.io.streams import Stream

    class FileState(Protocol):  # modes/files.FileState, which imports this module
        name: str
        stream: Stream | None
        failed: bool

    F = TypeVar("F", bound=FileState)

# what the read of a file that failed adds to its message (modes/files.read_files)
LEFT_UNCHANGED = "; the file is left unchanged"


def warnings(missed: Iterable[tuple[str, str, str]], left_out: list[tuple[Result, str]]) -> list[Result]:
    """A warning for each file left out (`left_out`: why, as the result that said it, and the
    file's text) that names an object a lookup missed (`missed`: kind, namespace, name)."""
    wanted = sorted(set(missed))
    if not wanted:
        return []
    out = []
    for why, text in left_out:
        held = [m for m in wanted if _names(text, m)]
        if not held:
            continue
        what = ", ".join(f"{kind} {name} (namespace {ns or '<none>'})" for kind, ns, name in held)
        message = why.message.removesuffix(LEFT_UNCHANGED)
        out.append(why.replace(
            severity="warning",
            message=(
                f"{message}; this file was left out of the package's context, and it seems to hold {what}, "
                "which the render looked up and did not find: fix this file, and the lookup's error goes with it"
            ),
        ))
    return out


def drop_broken(results: list[Result], extra: list[F], left: list[tuple[Result, str]]) -> list[F]:
    """The context files an error names (an object that cannot be read): they leave the
    context (modes/files._render), each with its first error and its text added to `left`."""
    first: dict[str, Result] = {}
    for r in results:
        if r.severity == "error" and r.file_path is not None:
            first.setdefault(r.file_path, r)
    dropped = [f for f in extra if f.name in first]
    left += [(first[f.name], f.stream.raw) for f in dropped if f.stream is not None]
    return dropped


def set_aside_unloadable(
    live: list[F], extra: list[F], errors: list[Result], left: list[tuple[Result, str]],
) -> list[F] | None:
    """After a pass met an item that does not load (YamlSyntaxError): the files that hold one
    are set aside, a file rendered (`live`) failing with its error (taken out of `live`, its
    error added to `errors`), a context file (`extra`) leaving the context (added to `left`).
    The context files kept, or None when no file holds such an item."""
    culprits = _unloadable(live + extra)
    if not culprits:
        return None
    for f, why in culprits:
        if any(f is g for g in live):
            live[:] = [g for g in live if g is not f]
            f.failed = True
            errors.append(why)
        elif f.stream is not None:
            left.append((why, f.stream.raw))
    return [f for f in extra if all(f is not g for g, _ in culprits)]


def _unloadable(files: list[F]) -> list[tuple[F, Result]]:
    """The files of which a document's item does not load (YamlSyntaxError), each with its
    first such document's error, worded and located as the syntax check's (modes/files.read_files)."""
    out = []
    for f in files:
        for doc in [] if f.stream is None else f.stream.docs:
            it = doc.item
            if it is None or it.doc is not None or it.text is None:
                continue
            try:
                it.load()
            except YamlSyntaxError as e:
                head, sep, why = str(e).partition(" is not valid YAML: ")
                why = in_file_lines(why if sep else str(e), doc.line)
                message = f"{f.name}: document {doc.number + 1} is not valid YAML: {why}{LEFT_UNCHANGED}"
                out.append((f, Result("error", message, file_path=f.name, file_index=0)))
                break
    return out


def _names(text: str, missed: tuple[str, str, str]) -> bool:
    """Whether `text` has a `kind:` line of the missed kind and a `name:` line of its name
    (quoted or not): a broken file cannot be read for the object itself."""
    kind, _namespace, name = missed
    value = r"""\s*(['"]?){}\1\s*(?:#.*)?$"""
    return (
        patterns.search(r"^\s*(?:-\s+)?kind:" + value.format(patterns.escape(kind)), text, patterns.M) is not None
        and patterns.search(r"^\s*(?:-\s+)?name:" + value.format(patterns.escape(name)), text, patterns.M) is not None
    )
