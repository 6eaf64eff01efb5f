"""SIGTERM and SIGHUP handled as SIGINT is: raised where the program is, as a
KeyboardInterrupt that carries the signal, so every path that cleans up after an interrupt
does the same for them.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


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
    import signal

    for s in SIGNAL_NAMES:  # once: a second signal must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    raise Terminated(signum)


def on_termination() -> dict[int, Any]:
    """SIGTERM and SIGHUP handled as SIGINT is; the handlers they had (to put back)."""
    import signal

    previous: dict[int, Any] = {}
    try:
        for s in SIGNAL_NAMES:
            if signal.getsignal(s) != signal.SIG_IGN:  # nohup's ignored SIGHUP stays ignored
                previous[s] = signal.signal(s, _terminate)
    except ValueError:  # not the main thread (main() called from a thread): defaults stay
        pass
    return previous


def restore_handlers(previous: dict[int, Any]) -> None:
    import signal

    for s, handler in previous.items():
        signal.signal(s, handler)
