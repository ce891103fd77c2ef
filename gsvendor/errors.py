"""Typed errors, each carrying the exit code the CLI maps it to: 1 a check failed, 2 usage or input error."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path


class GsvendorError(Exception):
    """Base class of every error gsvendor reports to a user: ``problems``, one ``error:`` line each (its line
    breaks escaped); ``file``, ``key``, ``value``: what it is about; ``code``: the kind, for scripts."""

    exit_code: int = 2
    code: str = "error"

    def __init__(self, *problems: str, file: str | None = None, key: str | None = None, value: object = None) -> None:
        super().__init__(*problems)
        self.problems = [str(problem) for problem in problems] or [type(self).__name__]
        self.file, self.key, self.value = file, key, value

    def __str__(self) -> str:
        return "\n".join(self.problems)

    def as_json(self) -> dict[str, object]:
        """``--json``'s error: ``code``, ``exitCode``, ``problems`` (each cut at :data:`MAX_LINE_CHARS`), and ``file``,
        ``key``, ``value`` where set (cut at :data:`MAX_SHOWN_CHARS`); credentials redacted before the cut."""
        data: dict[str, object] = {
            "code": self.code,
            "exitCode": self.exit_code,
            "problems": [shorten(redact(problem), MAX_LINE_CHARS) for problem in self.problems],
        }
        for name in ("file", "key", "value"):
            if (value := getattr(self, name)) is not None:
                data[name] = shorten(redact(value if isinstance(value, str) else repr(value)))
        return data


class UsageError(GsvendorError):
    """Bad arguments or options on the command line (exit 2)."""

    code = "usage"


class ConfigError(GsvendorError):
    """The configuration file is missing, not YAML, or breaks its schema (exit 2): ``file[:line]: key: what``."""

    code = "config"


class NotSyncedError(GsvendorError):
    """A chart output folder a command reads does not exist: the project was not synced (exit 2)."""

    code = "not-synced"


class SourceError(GsvendorError):
    """The upstream source cannot be read: unknown tag, HTTP error, corrupt or unsafe archive (exit 2)."""

    code = "source"


class IncompleteSourceError(SourceError):
    """The upstream source lacks what a command reads: patch-verify's files in a charts-only archive (exit 2)."""

    code = "source-incomplete"


class OverlayDefinitionError(GsvendorError):
    """An overlay file under overlays/ is malformed: not YAML, unknown operation, missing key (exit 2)."""

    code = "overlay-definition"


class OverlayApplyError(GsvendorError):
    """A declared overlay no longer applies to upstream: its anchor is gone or matched a wrong count (exit 1)."""

    code = "overlay-apply"
    exit_code = 1


class LockError(GsvendorError):
    """The lock file is missing or unreadable where a command needs it (exit 2)."""

    code = "lock"


class HandEditError(GsvendorError):
    """The output tree holds changes that neither the lock nor the overlays explain (exit 1)."""

    code = "hand-edit"
    exit_code = 1


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

# C0/C1 controls but tab and line feed; bidirectional controls (UAX #9, "Trojan Source", CVE-2021-42574);
# U+2028/9, line breaks to Python; a name's undecodable byte as os.fsdecode gives it (0x9b, a CSI: U+DC9B)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\udc80-\udcff]")
# a URL's user info: "user@", or "user:password@" up to the last "@" whatever the password holds, "/"
# and "@" too (a ":" followed by a port and "/" is a host's; over-redacting is safe, printing a password not)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)(?:[^/\s@:'\"]*:(?!\d*(?:[/\s'\"]|$))[^\s'\"]*@|[^/\s'\"]*@)")
# a URL's query: every value is redacted (a ':' ending it is the message's: ``url?sig=x: HTTP 404``)
_QUERY = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s?#'\"]*\?)((?:[^\s#'\"]*[^\s#'\":])?)")
_QUERY_VALUE = re.compile(r"=[^&;]*")


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and at most 19 of its causes: ``__cause__``, ``__context__`` and exception arguments followed
    (httpx → httpcore → the socket or TLS error)."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < 20:
        item = todo.pop()
        seen.append(item)
        nested = (item.__cause__, item.__context__, *getattr(item, "args", ()))
        todo += [nxt for nxt in nested if isinstance(nxt, BaseException) and nxt not in seen]
    return seen


def shorten(value: object, limit: int = MAX_SHOWN_CHARS) -> str:
    """``value`` as text of at most ``limit`` characters (cut with "…"), for quoting in a message."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def redact(text: str) -> str:
    """``text`` with every URL's user info (``user:password@``) removed and every query value replaced by
    ``REDACTED``, whatever the names or characters."""
    return _QUERY.sub(lambda m: m.group(1) + _QUERY_VALUE.sub("=REDACTED", m.group(2)), _USERINFO.sub(r"\1", text))


def escape_controls(text: str) -> str:
    """``text`` with its :data:`CONTROL` characters escaped as ``\\xNN`` or ``\\uNNNN``: an escape
    sequence in a chart's text (a name, an image, helm's message) reaches no terminal."""
    return CONTROL.sub(_escaped, text)


_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # where str.splitlines breaks


def escape_line_breaks(text: str) -> str:
    """``text`` with each character ``str.splitlines`` breaks at escaped (``\\x0a``, ``\\u2028``)."""
    return _LINE_BREAK.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 256 else f"\\u{point:04x}"


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` closest to a misspelt ``value`` (difflib's ratio ≥ 0.6), else ``None``
    (always for a value longer than :data:`MAX_SHOWN_CHARS`)."""
    if len(value) > MAX_SHOWN_CHARS:
        return None
    return next(iter(difflib.get_close_matches(value, [c for c in choices if isinstance(c, str)], n=1)), None)


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """``"; did you mean X?"`` with X :func:`closest` to ``value``, else ``""``."""
    return f"; did you mean {close}?" if (close := closest(value, choices)) else ""


def write_failure(path: object, exc: OSError) -> str:
    """Why the file ``path`` could not be written: ``cannot write: <reason>``, or which folder could not
    be made when a file stands where a folder on its way should be (mkdir's error on another name)."""
    target = Path(str(path))
    if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename and Path(exc.filename) != target:
        return f"cannot make its folder {target.parent}: a file is in the way"
    return f"cannot write: {exc.strerror or exc}"
