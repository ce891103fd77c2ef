"""One command at a time per project: the project lock, then finishing what an interrupted sync left."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from gsvendor import journal_trust
from gsvendor.config import Config
from gsvendor.files import project_lock
from gsvendor.vendoring import journal


@contextlib.contextmanager
def exclusive(config: Config, timeout: float, say: Callable[[str], None]) -> Iterator[None]:
    """Hold the project lock for the block (waiting ``timeout`` seconds), after finishing an interrupted
    swap; ``say`` gets a line for the user. Raises :class:`~gsvendor.errors.GsvendorError` (exit 2) when
    the lock is not free in time or the swap cannot be finished or fails :mod:`gsvendor.journal_trust`."""
    with project_lock(config.lock_path.parent, timeout, say):
        dests = sorted({c.dest for c in config.charts} | {f.dest for f in config.files})
        scope = journal_trust.Scope(tuple(dests), config.lock_path.relative_to(config.root).as_posix())
        for line in journal.recover(config.root, scope):
            say(line)
        journal.remove_strays(config.root, dests)
        yield
