"""Typed errors, each carrying the exit code the CLI maps it to.

Exit codes follow the project convention: 0 ok, 1 a check failed, 2 usage or input error.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path


class GsvendorError(Exception):
    """Base class of every error gsvendor reports to a user: data, rendered once by the CLI's writer.

    ``problems`` (one or more strings) are what is wrong, one ``error:`` line each; a line break
    inside one is shown escaped, never as a line of its own. ``file``, ``key`` and ``value`` name
    what the error is about when one thing is (the configuration file, the key path, the value
    given). ``code`` (a class attribute, e.g. ``"config"``) names the kind for scripts, and
    ``exit_code`` is the process exit code the CLI uses for it. ``str(exc)`` is the problems, one a line.
    """

    exit_code: int = 2
    code: str = "error"

    def __init__(self, *problems: str, file: str | None = None, key: str | None = None, value: object = None) -> None:
        super().__init__(*problems)
        self.problems = [str(problem) for problem in problems] or [type(self).__name__]
        self.file, self.key, self.value = file, key, value

    def __str__(self) -> str:
        return "\n".join(self.problems)

    def as_json(self) -> dict[str, object]:
        """The error as ``--json`` prints it: ``code``, ``exitCode``, ``problems`` and, where set,
        ``file``, ``key`` and ``value`` (as text, cut at :data:`MAX_SHOWN_CHARS`), each problem cut at
        :data:`MAX_LINE_CHARS` as its ``error:`` line is. Credentials in URLs are redacted before the
        cut, as on the ``error:`` lines (a cut first would leave a password whose ``@`` fell past it)."""
        data: dict[str, object] = {
            "code": self.code,
            "exitCode": self.exit_code,
            "problems": [shorten(redact(problem), MAX_LINE_CHARS) for problem in self.problems],
        }
        for name in ("file", "key", "value"):
            if getattr(self, name) is not None:
                value = getattr(self, name)
                data[name] = shorten(redact(value if isinstance(value, str) else repr(value)))
        return data


class UsageError(GsvendorError):
    """Bad arguments or options on the command line (exit 2)."""

    code = "usage"


class ConfigError(GsvendorError):
    """The configuration file is missing, not YAML, or breaks its schema (exit 2).

    The message reads ``file[:line]: key: what is wrong``.
    """

    code = "config"


class NotSyncedError(GsvendorError):
    """A chart output folder a command reads does not exist: the project was not synced (exit 2)."""

    code = "not-synced"


class SourceError(GsvendorError):
    """The upstream source cannot be read: unknown tag, HTTP error, corrupt or unsafe archive (exit 2)."""

    code = "source"


class IncompleteSourceError(SourceError):
    """The upstream source lacks what a command reads: patch-verify given a source that holds none
    of the files the patches touch, such as a charts-only archive (exit 2: not a patch failure)."""

    code = "source-incomplete"


class OverlayDefinitionError(GsvendorError):
    """An overlay file under overlays/ is malformed: not YAML, unknown operation, missing key (exit 2)."""

    code = "overlay-definition"


class OverlayApplyError(GsvendorError):
    """A declared overlay no longer applies to upstream: its anchor is gone or matched a wrong count (exit 1).

    The message names chart, file, overlay, operation and what it expected to find.
    """

    code = "overlay-apply"
    exit_code = 1


class LockError(GsvendorError):
    """The lock file is missing or unreadable where a command needs it (exit 2)."""

    code = "lock"


class HandEditError(GsvendorError):
    """The output tree holds changes that neither the lock nor the overlays explain (exit 1)."""

    code = "hand-edit"
    exit_code = 1

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message, value=paths)
        self.paths = paths


class ToolError(GsvendorError):
    """An external tool (helm, git) is missing or failed in a way that is not the user's input (exit 2)."""

    code = "tool"


class OutputError(GsvendorError):
    """stdout or stderr cannot be written: a full disk (``> /dev/full``), a closed descriptor (exit 2)."""

    code = "output"


class CheckFailed(GsvendorError):
    """A check ran and found problems; the report was already printed (exit 1)."""

    code = "check-failed"
    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP stopped a command; ``message`` says what state it left (exit 130)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


MAX_SHOWN_CHARS = 200  # a value quoted in an error message; longer ones are cut with "…"
MAX_LINE_CHARS = 2000  # one printed error line

# C0 and C1 controls but tab and line feed, and Unicode's bidirectional controls (UAX #9: LRM, RLM,
# ALM, the embeddings, overrides and isolates), which reorder what a terminal or a review page
# shows ("Trojan Source", CVE-2021-42574): a name holding U+202E reads backwards; and U+2028/U+2029,
# line breaks to Python, blanks that vanish to rich (tab and line feed are the printed text's own)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
# a URL's user info: "user@", or "user:password@" whatever the password holds ("/" and "@" too:
# up to the last "@", as URL parsers split it); a "host:port/path@x" is cut as well (over-redacting
# a message is safe, printing a password is not)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)(?:[^/\s'\"]*@|[^/\s@:'\"]*:[^\s'\"]*@)")
# a URL's query: every value is redacted, whatever its name
# (a ':' ending it is the message's, ``url?sig=x: HTTP 404``: redacted with the value it was lost)
_QUERY = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s?#'\"]*\?)((?:[^\s#'\"]*[^\s#'\":])?)")
_QUERY_VALUE = re.compile(r"=[^&;]*")


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it, at most 20: its ``__cause__``, ``__context__`` and exception
    arguments, followed (httpx → httpcore → the socket or TLS error)."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo and len(seen) < 20:
        item = todo.pop()
        seen.append(item)
        for nxt in (item.__cause__, item.__context__, *getattr(item, "args", ())):
            if isinstance(nxt, BaseException) and nxt not in seen:
                todo.append(nxt)
    return seen


def shorten(value: object, limit: int = MAX_SHOWN_CHARS) -> str:
    """``value`` as text of at most ``limit`` characters (cut with "…"), for quoting in a message."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def redact(text: str) -> str:
    """``text`` with the user info (``user:password@``) of every URL in it removed and every
    query value (``?pat=…&x=…``) replaced by ``REDACTED``: by rule, whatever the names or the
    characters (a ``/`` in a password) are."""
    text = _USERINFO.sub(r"\1", text)
    return _QUERY.sub(lambda m: m.group(1) + _QUERY_VALUE.sub("=REDACTED", m.group(2)), text)


def escape_controls(text: str) -> str:
    """``text`` with its control characters (but tabs and line ends, see :data:`CONTROL`) escaped as
    ``\\xNN`` (``\\uNNNN`` past U+00FF: U+202E, U+2028): an escape sequence in a chart's text (a name,
    an image, helm's message) reaches no terminal, and no U+202E shows it reversed."""
    return CONTROL.sub(_escaped, text)


_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # where str.splitlines breaks


def escape_line_breaks(text: str) -> str:
    """``text`` (a file name quoted in a message) with every character ``str.splitlines`` breaks at
    escaped (``\\x0a``, ``\\u2028``): a message's lines are its problems, one ``error:`` line each."""
    return _LINE_BREAK.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    """The matched character as ``\\xNN`` (below U+0100) or ``\\uNNNN``."""
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 256 else f"\\u{point:04x}"


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to a misspelt ``value`` (difflib's ratio ≥ 0.6), else
    ``None``; a value longer than :data:`MAX_SHOWN_CHARS` has none."""

    if len(value) > MAX_SHOWN_CHARS:
        return None
    close = difflib.get_close_matches(value, [c for c in choices if isinstance(c, str)], n=1)
    return close[0] if close else None


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """``"; did you mean X?"`` with X :func:`closest` to ``value``, else ``""``."""
    close = closest(value, choices)
    return f"; did you mean {close}?" if close else ""


def write_failure(path: object, exc: OSError) -> str:
    """Why the file ``path`` (a :class:`~pathlib.Path`) could not be written, for an ``error:`` line:
    ``cannot write: <reason>``, or, when a file stands where a folder on its way should be (mkdir's
    ``FileExistsError``/``NotADirectoryError`` on another name), which folder could not be made."""

    target = Path(str(path))
    if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename and Path(exc.filename) != target:
        return f"cannot make its folder {target.parent}: a file is in the way"
    return f"cannot write: {exc.strerror or exc}"
