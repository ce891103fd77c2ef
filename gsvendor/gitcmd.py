"""git as a child process, run one way by every caller: its own process group, killed whole past ``timeout``
or on an interrupt; no prompts; the C locale (callers parse its messages); without a git hook's repository
variables (callers name it by ``cwd``). ``isolated`` runs also drop every other ``GIT_*`` variable and the
user's and system's git configuration (what a clean build sees)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from gsvendor.errors import ToolError


class GitTimeout(ToolError):
    """git ran longer than its ``timeout`` seconds and was stopped (its process group killed)."""

    def __init__(self, args: Sequence[str], seconds: float) -> None:
        super().__init__(f"git {args[0] if args else ''} took longer than {seconds:g} s")


# git rev-parse --local-env-vars (git 2.39)
_REPO_VARIABLES = frozenset(
    {
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_OBJECT_DIRECTORY",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_GRAFT_FILE",
        "GIT_INDEX_FILE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_REPLACE_REF_BASE",
        "GIT_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
        "GIT_SHALLOW_FILE",
        "GIT_COMMON_DIR",
    }
)


def environment(isolated: bool) -> dict[str, str]:
    """The environment git runs with; see the module docstring."""
    env = {k: v for k, v in os.environ.items() if not (k.startswith("GIT_") if isolated else k in _REPO_VARIABLES)}
    env.update(LC_ALL="C", LANGUAGE="C", GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true")
    env["GIT_OPTIONAL_LOCKS"] = "0"  # reads leave the index alone
    if isolated:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def run(
    args: Sequence[str],
    cwd: str | Path | None = None,
    *,
    timeout: float,
    isolated: bool = False,
    track: Callable[[str, int], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``git *args`` in ``cwd`` for at most ``timeout`` seconds; stdout and stderr as UTF-8 text (other
    bytes as surrogates: :func:`readable`), a non-zero exit the caller's to judge. ``track`` is told
    ``("+", pid)`` and ``("-", pid)`` around the run; such a git dies with gsvendor. Raises :class:`ToolError`
    when git cannot start, :class:`GitTimeout` past ``timeout``."""
    if timeout <= 0:
        raise GitTimeout(args, 0)
    try:
        process = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            env=environment(isolated),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: killed whole on timeout
            preexec_fn=_die_with_parent if track is not None else None,
        )
    except FileNotFoundError:
        raise ToolError("git: not found on PATH (install git)") from None
    except OSError as exc:
        raise ToolError(f"cannot run git: {exc.strerror or exc}") from None
    if track is not None:
        track("+", process.pid)
    try:
        out, err = process.communicate(timeout=timeout)
    except BaseException as exc:  # out of time, or interrupted: the whole group goes
        with contextlib.suppress(OSError):  # the group is gone already
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        if isinstance(exc, subprocess.TimeoutExpired):
            raise GitTimeout(args, timeout) from None
        raise
    finally:
        if track is not None:
            track("-", process.pid)
    decode = {"encoding": "utf-8", "errors": "surrogateescape"}
    return subprocess.CompletedProcess(["git", *args], process.returncode, out.decode(**decode), err.decode(**decode))


def readable(text: str) -> str:
    """``text`` from :func:`run` with undecodable bytes shown as U+FFFD: safe for JSON, XML and terminals."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _die_with_parent() -> None:
    """Before exec: SIGKILL when gsvendor dies (Linux only), so no git outlives it holding its URL's credentials."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # prctl(PR_SET_PDEATHSIG = 1, …)
        if os.getppid() == 1:  # the parent already died before the death signal was set
            os._exit(1)
