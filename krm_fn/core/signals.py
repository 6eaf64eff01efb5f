"""SIGTERM and SIGHUP handled as SIGINT is: raised where the program is, as a
KeyboardInterrupt that carries the signal, so every path that cleans up after an interrupt
does the same for them; and Held, which makes a few steps complete together whichever of
them arrives.

It uses `_signal`, the C module that `signal` wraps (built in, and loaded by the interpreter
at its start): `signal` only adds enums of the signals, handlers and mask actions, built at
its import (3.3 M instructions, as much as ten of this package's modules: issue 34). The
functions and constants are the same ones, and take and give the same integers.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    import signal  # (the same functions, as typeshed describes them)
    from typing import Any
else:
    import _signal as signal


SIGNAL_NAMES = {15: "SIGTERM", 1: "SIGHUP"}


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, as SIGINT raises KeyboardInterrupt: every
    path that cleans up after an interrupt (files mode removes its temp files and puts back
    what it wrote) does the same for them. CI runners and pre-commit send SIGTERM on cancel
    or timeout; without this the default action left staged temp files in the repository."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, _frame: object) -> None:
    for s in SIGNAL_NAMES:  # once: a second signal must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    raise Terminated(signum)


class _Written:
    """How many files this run has replaced for good (files mode's commit), for the message
    of an interrupt that comes after it: then the files are written, not put back."""

    files = 0


def files_written(n: int) -> None:
    """Files mode has replaced `n` files and will not put them back (writer.write_files)."""
    _Written.files = n


def written() -> int:
    """The files replaced for good since on_termination() (0: nothing was written)."""
    return _Written.files


def on_termination() -> dict[int, Any]:
    """SIGTERM and SIGHUP handled as SIGINT is; the handlers they had (to put back). A new
    run: nothing written yet."""
    _Written.files = 0
    previous: dict[int, Any] = {}
    try:
        for s in SIGNAL_NAMES:
            if signal.getsignal(s) != signal.SIG_IGN:  # nohup's ignored SIGHUP stays ignored
                previous[s] = signal.signal(s, _terminate)
    except ValueError:  # not the main thread (main() called from a thread): defaults stay
        pass
    return previous


def restore_handlers(previous: dict[int, Any]) -> None:
    for s, handler in previous.items():
        signal.signal(s, handler)


STOPS = (2, *SIGNAL_NAMES)  # SIGINT, and the signals handled as it


class Held:
    """`with Held():` SIGINT, SIGTERM and SIGHUP wait (blocked, pending) until the
    block ends: the steps in it complete together, so an interrupt (on_termination turns SIGTERM
    and SIGHUP into one) never lands between making a temp file and noting it for removal, or
    between replacing a file and noting it to be put back. Each block is one file's step."""

    __slots__ = ("held",)

    def __enter__(self) -> None:
        self.held = False
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
            self.held = True

    def __exit__(self, *exc: object) -> None:
        if self.held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)  # a pending signal is delivered here
