"""KRM mode: the bytes of one ResourceList in, the text of one ResourceList out."""
from __future__ import annotations

import os

from krm_fn.core.errors import InputError
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.results import Result
from krm_fn.io import resourcelist
from krm_fn.transforms.process import Outcome
from krm_fn.transforms.process import PausedGC
from krm_fn.transforms.process import process_guarded
from krm_fn.transforms.process import unchanged
from krm_fn.yaml import yamlio

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
    try:
        text = resourcelist.decode(source.pop())
        rl = resourcelist.parse(text)
    except InputError as e:
        return [error_list(str(e))], None, 1
    try:
        outcome = process_guarded(rl, light=light and rl.fast)
        try:
            resourcelist.check_untouched(rl)
        except YamlSyntaxError:
            raise
        except InputError as e:
            outcome = unchanged(rl, [*outcome.results, Result("error", str(e))])
        if rl.fast and _doubtful_split(outcome):
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
            return [error_list(str(whole_error))], None, 1
        outcome = process_guarded(rl)
    for it in rl.items:
        it.doc = None  # every text is decided: the objects read can go before the output is built
    out = resourcelist.render_parts(rl, outcome.item_texts, outcome.generated_entries(rl.items_indent if rl.fast else 0), [r.as_dict() for r in outcome.results])
    return out, outcome, outcome.exit_code


def _parse_whole_or_none(text: str) -> resourcelist.ResourceList | None:
    try:
        return resourcelist.parse_whole(text)
    except InputError:
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


def error_list(message: str) -> str:
    """A complete ResourceList that carries one error result (unreadable input, or a bug)."""
    res = [Result("error", message).as_dict()]
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n" + yamlio.dump_block(res)
