"""The console entry point ends the process without the interpreter's teardown, losing nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import Cli, tarball

# buffered streams, as a user's terminal or pipe has them (the test environment may set PYTHONUNBUFFERED)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _script(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = "import atexit, sys, threading, time\nfrom gsvendor.__main__ import _exit_now\n" + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60, check=False
    )


def test_atexit_handlers_run_and_buffered_output_arrives(tmp_path: Path) -> None:
    result = _script(
        """
        atexit.register(lambda: open("handler-ran", "w").write("yes"))
        sys.stdout.write("x" * 1_000_000)  # buffered, never flushed by the script
        sys.stderr.write("last words")
        _exit_now(3)
        print("not reached")
        """,
        tmp_path,
    )
    assert result.returncode == 3
    assert result.stdout == "x" * 1_000_000
    assert result.stderr == "last words"
    assert (tmp_path / "handler-ran").read_text() == "yes"


def test_none_is_exit_code_zero(tmp_path: Path) -> None:
    result = _script("print('done')\n_exit_now(None)\nprint('not reached')", tmp_path)
    assert (result.returncode, result.stdout) == (0, "done\n")


def test_a_running_thread_or_a_message_leaves_the_exit_to_python(tmp_path: Path) -> None:
    result = _script(
        """
        def work():
            time.sleep(0.3)
            open("thread-finished", "w").write("yes")
        threading.Thread(target=work).start()
        _exit_now(0)
        print("returned")
        sys.exit(4)
        """,
        tmp_path,
    )
    # Python waited for the thread, as it does on a normal exit
    assert (result.returncode, result.stdout) == (4, "returned\n")
    assert (tmp_path / "thread-finished").read_text() == "yes"
    message = _script("_exit_now('a message')\nprint('returned')", tmp_path)
    assert (message.returncode, message.stdout) == (0, "returned\n")


def test_a_daemon_thread_does_not_hold_the_exit(tmp_path: Path) -> None:
    result = _script(
        "threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n_exit_now(1)\nprint('not reached')",
        tmp_path,
    )
    assert (result.returncode, result.stdout) == (1, "")


def test_an_unwritable_stdout_is_reported_as_python_reports_it(tmp_path: Path) -> None:
    code = "from gsvendor.__main__ import _exit_now\nprint('x' * 100)\n_exit_now(0)\nprint('returned')"
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-c", code],
            env=ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    # the flush failed, so _exit_now returned and Python's own exit reported the lost output
    assert result.returncode == 120
    assert "No space left on device" in result.stderr


@pytest.fixture
def synced_project(cli: Cli, project: Path) -> Path:
    """A project synced at v0.20.0."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    return project


def _closed_or_full(
    cli: Cli, cwd: Path, args: tuple[str, ...], stdout: str, stderr: str = "pipe"
) -> subprocess.CompletedProcess[str]:
    """The CLI with stdout or stderr ``"full"`` (``> /dev/full``), ``"closed"`` (``>&-``), ``"gone"``
    (a pipe whose reader closed it before the first write: ``| head -0``) or ``"pipe"``."""
    command = [sys.executable, "-m", "gsvendor", *args]
    closed = [fd for fd, how in ((1, stdout), (2, stderr)) if how == "closed"]
    if closed:  # the shell closes the descriptor, then execs gsvendor without it
        command = ["sh", "-c", 'exec "$@" ' + " ".join(f"{fd}>&-" for fd in closed), "sh", *command]
    reader, writer = os.pipe()
    os.close(reader)  # every write to `writer` fails with EPIPE
    try:
        with open("/dev/full", "w") as full:
            streams = {"pipe": subprocess.PIPE, "full": full, "closed": subprocess.DEVNULL, "gone": writer}
            return subprocess.run(
                command,
                cwd=cwd,
                env=cli.env,
                stdout=streams[stdout],
                stderr=streams[stderr],
                text=True,
                timeout=300,
                check=False,
            )
    finally:
        os.close(writer)


def test_output_that_cannot_be_written_is_one_error_line(cli: Cli, synced_project: Path) -> None:
    """``> /dev/full`` and ``>&-``: exit 2 with one line naming stdout (was a traceback, exit 1)."""
    for args in (("verify",), ("diff",), ("--help",), ("--version",)):
        for stdout, reason in (("full", "No space left on device"), ("closed", "Bad file descriptor")):
            result = _closed_or_full(cli, synced_project, args, stdout)
            assert (result.returncode, result.stderr) == (
                2,
                f"error: stdout: cannot write the output: {reason}\n",
            ), (args, stdout)
    # a closed stderr discards the messages, as 2>/dev/null would; the exit codes stay
    assert _closed_or_full(cli, synced_project, ("verify",), "pipe", "closed").returncode == 0
    assert _closed_or_full(cli, synced_project, ("sync", "--bogus"), "pipe", "closed").returncode == 2


def test_a_full_stderr_discards_the_messages_and_keeps_the_exit_codes(cli: Cli, synced_project: Path) -> None:
    """``2> /dev/full``: as ``2>&-``, the messages are lost and each run's exit code stays (was 1, a traceback)."""
    assert _closed_or_full(cli, synced_project, ("verify",), "pipe", "full").returncode == 0
    assert _closed_or_full(cli, synced_project, ("sync", "--bogus"), "pipe", "full").returncode == 2
    assert _closed_or_full(cli, synced_project, ("diff", "no-such-chart"), "pipe", "full").returncode == 2


def test_a_reader_that_goes_away_leaves_the_verdict(cli: Cli, synced_project: Path) -> None:
    """``gsvendor verify | head -0``: nothing more is written, no message, and the exit code is the
    command's own (was 1 for a passing verify: click's answer to a broken pipe)."""
    for args in (("verify",), ("verify", "--json"), ("diff",), ("--help",), ()):
        result = _closed_or_full(cli, synced_project, args, "gone")
        assert (result.returncode, result.stderr) == (0, ""), args
    failed = "error: verify failed: 1 file(s) differ from v0.20.0 + overlays: helm/kserve-crd/values.yaml\n"
    with (synced_project / "helm/kserve-crd/values.yaml").open("a") as values:
        values.write("# a hand edit\n")
    for args in (("verify",), ("verify", "--json")):
        result = _closed_or_full(cli, synced_project, args, "gone")
        assert (result.returncode, result.stderr) == (1, failed), args
    usage = _closed_or_full(cli, synced_project, ("verify", "--bogus"), "gone")
    assert (usage.returncode, usage.stderr) == (
        2,
        "error: No such option: --bogus (see: gsvendor verify --help)\n",
    )
    assert _closed_or_full(cli, synced_project, ("diff", "no-such-chart"), "gone").returncode == 2


def test_a_reader_of_stderr_that_goes_away_keeps_the_exit_codes(cli: Cli, synced_project: Path) -> None:
    """``2>&1 >/dev/null | head -0``: as ``2> /dev/full``, the messages are lost and the exit codes stay (was 1)."""
    ok = _closed_or_full(cli, synced_project, ("verify",), "pipe", "gone")
    assert (ok.returncode, ok.stdout) == (0, "ok: output is upstream v0.20.0 plus the declared overlays\n")
    assert _closed_or_full(cli, synced_project, ("sync", "--bogus"), "pipe", "gone").returncode == 2
    assert _closed_or_full(cli, synced_project, ("diff", "no-such-chart"), "pipe", "gone").returncode == 2


def test_an_error_document_that_cannot_be_written_keeps_the_errors_code_and_line(
    cli: Cli, synced_project: Path
) -> None:
    """``sync --json > /dev/full`` refusing a hand edit: exit 1 and its one line (was exit 2 and a
    second ``error: stdout: …`` line, the lost document taking the place of the error)."""
    with (synced_project / "helm/kserve-crd/values.yaml").open("a") as values:
        values.write("# a hand edit\n")
    refused = (
        "error: refusing to overwrite changes the lock and the overlays do not explain: helm/kserve-crd/values.yaml "
        "(declare them as an overlay, or re-run with --force to replace them and keep a backup)\n"
    )
    args = ("sync", "v0.20.0", "--json", "--source", str(tarball("v0.20.0")))
    for stdout in ("full", "closed"):
        result = _closed_or_full(cli, synced_project, args, stdout)
        assert (result.returncode, result.stderr) == (1, refused), stdout
