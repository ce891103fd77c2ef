"""SIGINT, SIGTERM and SIGHUP: the last two end gsvendor as Ctrl-C does (``KeyboardInterrupt``); around a step
that must not be cut (the swap's renames, a helm start) all three are held back and acted on after it. A signal
ignored at start stays ignored (``nohup``: a handler would be reset to the default on exec, killing helm).
Handlers belong to the main thread; elsewhere these are no-ops."""

from __future__ import annotations

import signal
import threading
from typing import Any


def _live(*names: str) -> list[int]:
    """The numbers of ``names`` this platform has and the process does not ignore (main thread only)."""
    main = threading.current_thread() is threading.main_thread()
    numbers = [getattr(signal, name) for name in names if main and hasattr(signal, name)]
    return [number for number in numbers if signal.getsignal(number) is not signal.SIG_IGN]


def interrupt_on_termination() -> None:
    """Make SIGTERM and SIGHUP end the run as Ctrl-C does (``signal.default_int_handler``), unless ignored."""
    for number in _live("SIGTERM", "SIGHUP"):
        signal.signal(number, signal.default_int_handler)


def ignore() -> None:
    """Ignore SIGINT, SIGTERM and SIGHUP from now on (main thread only): once a command's exit code is decided,
    a late signal must not turn the exit into a traceback and a death by signal."""
    for number in _live("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(number, signal.SIG_IGN)


class Deferred:
    """A context holding SIGINT, SIGTERM and SIGHUP back while open, their numbers recorded in ``pending`` (in
    arrival order); on close the handlers come back and, with ``redeliver``, each pending signal is raised once."""

    def __init__(self, redeliver: bool = False) -> None:
        self.redeliver = redeliver
        self.pending: list[int] = []
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Deferred:
        for number in _live("SIGINT", "SIGTERM", "SIGHUP"):
            self._previous[number] = signal.signal(number, lambda signum, frame: self.pending.append(signum))
        return self

    def __exit__(self, *exc: object) -> None:
        previous, self._previous = self._previous, {}
        for number, handler in previous.items():
            signal.signal(number, handler)
        if self.redeliver and previous:
            for number in dict.fromkeys(self.pending):
                signal.raise_signal(number)
