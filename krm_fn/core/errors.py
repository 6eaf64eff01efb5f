"""The exceptions of krm-coschedule, in one hierarchy.

`KrmError` and its subclasses carry a message for the user: what is wrong and what to do.
Each way of running catches them once, at the top (`cli.main`): KRM mode answers with an
error ResourceList, the other modes print one line and exit 1. Anything else that escapes a
mode is a bug, reported the same way with `internal_error_message`.

`Unsure` is not an error: a fast reader or writer (the item scanner, the light reader and
splicing writer) raises it when it is not certain to give what the exact path gives, and its
caller takes the exact path for that piece. It never reaches the user.
"""
from __future__ import annotations


class KrmError(Exception):
    """A problem the user can act on. str(e) is the whole message."""


class InputError(KrmError):
    """The input (a ResourceList, a YAML stream, a file, the policy file) cannot be read."""


class YamlSyntaxError(InputError):
    """Part of the input is not YAML at all, so the whole input is not: echoing it back would
    give an output no reader can parse, so the run refuses the input as a whole."""


class FieldError(KrmError):
    """A field a transform must read or write has the wrong type; `path` names it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


class Unsure(Exception):
    """A fast path is not sure of this input or edit: take the exact (slower) path."""


INTERNAL_HINT = "this is a bug in krm-coschedule: please report it with the input that caused it"


def short(e: BaseException, limit: int = 400) -> str:
    """An exception's text on one line, cut to `limit` characters."""
    return " ".join(str(e).split())[:limit]


def internal_error_message(e: BaseException) -> str:
    return f"internal error ({type(e).__name__}: {short(e)}); {INTERNAL_HINT}"
