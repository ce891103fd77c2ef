"""The signals that end a run: SIGINT, SIGTERM and SIGHUP.

SIGTERM and SIGHUP end gsvendor as Ctrl-C does (a ``KeyboardInterrupt``, so every writer rolls
back or completes as for Ctrl-C); around a step that must not be cut (the swap's renames, a helm
start whose cleanup is not registered yet) the three are held back and acted on after it. A signal
that was ignored when gsvendor started stays ignored everywhere: ``nohup`` ignores SIGHUP and a
shell's background job SIGINT, and both must survive what they were shielded from (a handler
installed in their place would also be reset to the default in a child on exec, so helm would die
of it). Handlers belong to the main thread; elsewhere these are no-ops.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

ENDING = ("SIGINT", "SIGTERM", "SIGHUP")


def _live(names: tuple[str, ...]) -> list[int]:
    """The numbers of ``names`` this platform has and the process does not ignore."""
    numbers = [getattr(signal, name) for name in names if hasattr(signal, name)]
    return [number for number in numbers if signal.getsignal(number) is not signal.SIG_IGN]


def interrupt(signum: int, frame: Any) -> None:
    """A signal handler: end the run as Ctrl-C does. Raises ``KeyboardInterrupt``."""
    raise KeyboardInterrupt


def interrupt_on_termination() -> None:
    """Make SIGTERM and SIGHUP end the run as Ctrl-C does (:func:`interrupt`), unless ignored."""
    if threading.current_thread() is threading.main_thread():
        for number in _live(("SIGTERM", "SIGHUP")):
            signal.signal(number, interrupt)


class Deferred:
    """A context that holds SIGINT, SIGTERM and SIGHUP back while it is open: each is recorded in
    ``pending`` (signal numbers, in arrival order) instead of acted on, and the handlers it replaced
    come back when it closes. With ``redeliver``, the pending signals are then raised again, once
    each, to those handlers; without it the caller decides (the swap checks ``pending`` between
    its steps). Ignored signals stay ignored; outside the main thread it holds nothing back."""

    def __init__(self, redeliver: bool = False) -> None:
        self.redeliver = redeliver
        self.pending: list[int] = []
        self._previous: dict[int, Any] = {}

    def _record(self, signum: int, frame: Any) -> None:
        self.pending.append(signum)

    def __enter__(self) -> Deferred:
        if threading.current_thread() is threading.main_thread():
            for number in _live(ENDING):
                self._previous[number] = signal.signal(number, self._record)
        return self

    def __exit__(self, *exc: object) -> None:
        previous, self._previous = self._previous, {}
        for number, handler in previous.items():
            signal.signal(number, handler)
        if self.redeliver and previous:
            for number in dict.fromkeys(self.pending):
                signal.raise_signal(number)
