"""gsvendor.signals: the ending signals held back and acted on later, ignored ones left ignored."""

from __future__ import annotations

import signal

import pytest

from gsvendor.signals import Deferred, interrupt_on_termination


@pytest.fixture
def restore_handlers():
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_held_back_signals_reach_their_handler_once_each_after_the_block(restore_handlers) -> None:
    got: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: got.append(signum))
    with Deferred(redeliver=True) as deferred:
        signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGTERM)
        assert (got, deferred.pending) == ([], [signal.SIGTERM, signal.SIGTERM])
    assert got == [signal.SIGTERM]


def test_without_redelivery_the_caller_reads_pending(restore_handlers) -> None:
    got: list[int] = []
    signal.signal(signal.SIGHUP, lambda signum, _frame: got.append(signum))
    with Deferred() as deferred:
        signal.raise_signal(signal.SIGHUP)
    assert (got, deferred.pending) == ([], [signal.SIGHUP])
    assert signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN  # the handler is back
    signal.raise_signal(signal.SIGHUP)
    assert got == [signal.SIGHUP]


def test_an_ignored_signal_stays_ignored(restore_handlers) -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    interrupt_on_termination()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signal.default_int_handler
    with Deferred(redeliver=True) as deferred:
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        signal.raise_signal(signal.SIGHUP)
    assert deferred.pending == []
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)
