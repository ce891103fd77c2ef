"""Output width (:func:`output_width`) and the stream under the consoles (:class:`StrippedLines`)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterator
from typing import Any, TextIO

CI_WIDTH = 100  # a CI log has no width; 100 columns stay readable in every log viewer
MIN_WIDTH = 40
# the units the reports print after a number: "3.1 s", "12 ms", "4.4 MB", "2 MiB"
UNITS = ("ms", "s", "min", "h", "B", "kB", "KB", "MB", "GB", "KiB", "MiB", "GiB", "bytes")
# the space and unit after a number's last digit: a wrap keeps a number and its unit on one line
UNIT_AFTER = r" (?:" + "|".join(UNITS) + r")(?!\w)"
# a count and what it counts ("0 invalid", "16 object(s)"): the space after a whole number
COUNT_BEFORE = r"(?<![^\s(])\d+ (?=[A-Za-z(])"
# a name and the count that ends its list item ("Secret 2", "Issuer 4,"): the space before it
COUNT_AFTER = r" (?=\d+(?:,(?=\s|$)|$))"


def env_positive(name: str) -> int | None:
    """``$name`` when it is a positive whole number in ASCII digits (``str.isdigit`` takes ``²``, ``int`` not)."""
    value = os.environ.get(name, "").strip()
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


def drop_unreadable_size() -> None:
    """Remove ``$COLUMNS`` and ``$LINES`` unless each is a positive whole number in ASCII digits: rich (every
    console, typer's help too) reads them with ``str.isdigit`` then ``int``, and ``COLUMNS=²`` raised."""
    for name in ("COLUMNS", "LINES"):
        if name in os.environ and env_positive(name) is None:
            del os.environ[name]


def output_width(is_terminal: bool) -> int:
    """The width output may use: ``$COLUMNS``, else the terminal's width, else :data:`CI_WIDTH`."""
    if (columns := env_positive("COLUMNS")) is not None:
        return max(columns, MIN_WIDTH)
    return max(shutil.get_terminal_size((CI_WIDTH, 24)).columns, MIN_WIDTH) if is_terminal else CI_WIDTH


class StrippedLines:
    """A text stream that drops spaces before each line end (rich pads and wraps with them); ``isatty``,
    ``fileno``, ``buffer`` and ``encoding`` are the wrapped stream's."""

    def __init__(self, stream: TextIO | None, name: str = "stdout") -> None:
        self.stream: Any = stream if stream is not None else _Closed()
        self.name = name
        self.pending = ""
        self.gone = False  # the reader closed the pipe: nothing more is written

    def write(self, text: str) -> int:
        """Write ``text``, its trailing spaces held until it is known whether a line end follows. Raises
        :class:`~gsvendor.errors.OutputError` (exit 2) when the stream cannot be written (on stderr the text is
        dropped: no error could be shown); after a broken pipe (``gsvendor verify | head``) writes are dropped."""
        if self.gone:
            return len(text)
        *lines, tail = (self.pending + text).split("\n")
        stripped = tail.rstrip(" ")
        self.pending = tail[len(stripped) :]
        out = "".join(f"{line.rstrip(' ')}\n" for line in lines) + stripped
        with self._reported():
            self.stream.write(out)
        return len(text)

    def verbatim(self, text: str) -> None:
        """Write and flush ``text`` unstripped (a diff's trailing spaces are part of it); errors as :meth:`write`."""
        if isinstance(self.stream, StrippedLines):
            self.stream.verbatim(text)
        elif not self.gone:
            with self._reported():
                self.stream.write(text)
                self.stream.flush()

    def flush(self) -> None:
        """Flush the stream (pending spaces stay); errors as :meth:`write`."""
        if not self.gone:
            with self._reported():
                self.stream.flush()

    @contextlib.contextmanager
    def _reported(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            # the descriptor to /dev/null: what is still buffered and Python's flush at exit are lost quietly
            self.gone = True
            with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor (a test's StringIO)
                fd = self.stream.fileno()
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)
        except OSError as exc:
            if self.name == "stderr":  # nowhere to say so: lost, as with 2>&-; the exit codes stay
                return
            from gsvendor.errors import OutputError

            raise OutputError(f"{self.name}: cannot write the output: {exc.strerror or exc}") from None

    def __getattr__(self, name: str) -> Any:
        if name in ("isatty", "fileno", "buffer", "encoding"):  # only these: click picks its stream by "errors"
            return getattr(self.stream, name)
        raise AttributeError(name)


class _Closed:
    """What Python leaves as ``sys.stdout`` when descriptor 1 is closed (``gsvendor … >&-``): writes fail."""

    encoding = "utf-8"

    def write(self, *_: object) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    fileno = write

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
