"""KRM mode: the bytes of one ResourceList in, the text of one ResourceList out."""
from __future__ import annotations

import os

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.results import Result
from krm_fn.io import resourcelist
from krm_fn.orchestration.process import Outcome
from krm_fn.orchestration.process import PausedGC
from krm_fn.orchestration.process import process_guarded
from krm_fn.orchestration.process import unchanged
from krm_fn.yaml import emitter

# The user's escape hatch: KRM_COSCHEDULE_LIGHT=0 takes the round-trip path for every item
# (same bytes, slower). Read here only; everything below takes `light` as a parameter.
LIGHT_ENV = "KRM_COSCHEDULE_LIGHT"


def light_default() -> bool:
    return os.environ.get(LIGHT_ENV) != "0"


def run_resource_list(data: bytes, light: bool | None = None) -> tuple[str, Outcome | None, int]:
    """(output text, outcome, exit code). The output is always a complete ResourceList:
    unreadable input gives one with a single error result (outcome None)."""
    parts, outcome, code = run_resource_list_parts([data], light)
    return "".join(parts), outcome, code


def run_resource_list_parts(source: list[bytes], light: bool | None = None) -> tuple[list[str], Outcome | None, int]:
    """run_resource_list, with the output in the pieces it is made of (the command writes
    them one by one: joined and then encoded whole, a large list's output was held three
    times over at the end). `source` holds the input's bytes, and is emptied once they are
    decoded (so that they are not held through the run)."""
    with PausedGC():
        return _run_resource_list(source, light)


def _run_resource_list(source: list[bytes], light: bool | None) -> tuple[list[str], Outcome | None, int]:
    if light is None:
        light = light_default()
    text = ""  # not decoded: no kpt annotations to read either
    try:
        text = resourcelist.decode(source.pop())
        rl = resourcelist.parse(text)
    except InputError as e:
        return [error_list(*_kpt_terms(str(e), text))], None, 1
    try:
        outcome = process_guarded(rl, light=light and rl.fast)
        try:
            resourcelist.check_untouched(rl)
        except YamlSyntaxError:
            raise
        except InputError as e:
            outcome = unchanged(rl, [*outcome.results, Result("error", str(e))])
        if rl.fast and _doubtful_split(outcome) and _item_count(text) != len(rl.items):
            whole = _parse_whole_or_none(text)
            if whole is not None and len(whole.items) != len(rl.items):
                rl, outcome = whole, process_guarded(whole)
    except YamlSyntaxError:
        # an item the scanner sliced out does not parse alone. Either the input is not YAML
        # (say where, in the input's own line numbers), or the item leans on the rest of the
        # document (an alias to an anchor in another item): then read the input whole.
        try:
            rl = resourcelist.parse_whole(text)
        except InputError as whole_error:
            return [error_list(*_kpt_terms(str(whole_error), text))], None, 1
        outcome = process_guarded(rl)
    for it in rl.items:
        it.doc = None  # every text is decided: the objects read can go before the output is built
    results = outcome.results
    if any(r.severity != "info" for r in results):  # placed in the user's terms (locate_krm)
        from krm_fn.modes.locate import locate_krm

        results = locate_krm(results, rl, text)
    out = resourcelist.render_parts(rl, outcome.item_texts, outcome.generated_entries(rl.items_indent if rl.fast else 0), [r.as_dict() for r in results])
    return out, outcome, outcome.exit_code


# kpt's annotation of where an object came from (keys.PATH_ANNOTATIONS), as a line of text
_PATH_LINE = r"(?m)^[ \t]+(?:internal\.)?config\.kubernetes\.io/path:[ \t]*['\"]?([^'\"\n#]+?)['\"]?[ \t]*$"


def _kpt_terms(message: str, text: str) -> tuple[str, str | None]:
    """An error about the input in kpt's terms: (message, file). kpt wrote the stream (it
    marks objects with their files' paths): its line numbers are those of its own
    serialization, not of any file the user has, so they are dropped (in_file_lines without
    a first line); an error in the functionConfig names the config's file instead."""
    if patterns.search(r"config\.kubernetes\.io/path:", text) is None:
        from krm_fn.modes.locate import syntax_located

        return syntax_located(message, text), None  # not from kpt: the input's own lines are the user's
    from krm_fn.io.items import in_file_lines

    message = in_file_lines(message, None)
    if not message.startswith("functionConfig"):
        return message, None
    start = patterns.search(r"(?m)^functionConfig:", text)
    if start is None:
        return message, None
    end = patterns.search(r"(?m)^\S", text[start.end():])
    section = text[start.start(): start.end() + (end.start() if end else len(text))]
    m = patterns.search(_PATH_LINE, section)
    if m is None:
        return message, None
    path = m.group(1).strip()
    return f"{path}: {message}", path  # kpt prints a result's message, not its file


def _parse_whole_or_none(text: str) -> resourcelist.ResourceList | None:
    try:
        return resourcelist.parse_whole(text)
    except InputError:
        return None


def _item_count(text: str) -> int | None:
    """How many items libyaml's composer (C) finds in the input's `items`, or None when it
    cannot say (not YAML to it, nesting too deep for it, no items list). Counting is all a
    doubtful split needs to be settled: the round-trip loader read the whole input for it,
    about 0.2 ms an item (500,000 items `- {}`: 44 s, now 9 s)."""
    from krm_fn.yaml import guards
    from krm_fn.yaml import libyaml

    if not guards.flow_nesting_within_limit(text):
        return None
    root = libyaml.compose(text)
    if not libyaml.is_mapping(root):
        return None
    for key, value in root.value:
        if libyaml.is_scalar(key) and key.value == "items":
            return len(value.value) if libyaml.is_sequence(value) else None
    return None


def _doubtful_split(outcome: Outcome) -> bool:
    """An item that is not a mapping or has no kind, on the fast path: either the input
    really has one, or a quoted string ran on over a line that looked like a new item (its
    continuation in the dash's column). Only reading the input whole tells; when it is real,
    the whole reading reports the same error."""
    return any(
        r.severity == "error" and r.resource is None and (r.field_path or "").startswith("items[")
        for r in outcome.results
    )


def error_list(message: str, file_path: str | None = None) -> str:
    """A complete ResourceList that carries one error result (unreadable input, or a bug),
    about `file_path` when known."""
    res = [Result("error", message, file_path=file_path, file_index=0 if file_path else None).as_dict()]
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n" + emitter.dump_block(res)
