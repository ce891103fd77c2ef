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


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_during_the_exit_neither_prints_a_traceback_nor_changes_the_exit_code(name: str) -> None:
    """A signal arriving once the command is done (here from an atexit handler, as late as it can come) is
    ignored: the output and exit code are the command's."""
    import subprocess
    import sys

    script = (
        "import atexit, os, signal, sys, time\n"
        f"atexit.register(lambda: (os.kill(os.getpid(), signal.{name}), time.sleep(0.05)))\n"
        "sys.argv = ['gsvendor', '--version']\n"
        "from gsvendor.__main__ import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("gsvendor ")
