"""Output width and plain tables that read well in a CI log and in 80 columns.

One place decides how wide output may be (:func:`output_width`): ``$COLUMNS`` when set, the
terminal's width on a terminal, else :data:`CI_WIDTH` (a CI log has no width; 100 columns stay
readable in every log viewer). :class:`PlainTable` lays a table out within that width, wrapping
cells at word or path-segment boundaries (never inside a word unless one segment is wider than
its column) and leaving no trailing spaces.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from gsvendor.errors import escape_controls

if TYPE_CHECKING:
    from rich.console import Console

CI_WIDTH = 100
MIN_WIDTH = 40
GAP = "  "
# the units the reports print after a number: "3.1 s", "12 ms", "4.4 MB", "2 MiB"
UNITS = ("ms", "s", "min", "h", "B", "kB", "KB", "MB", "GB", "KiB", "MiB", "GiB", "bytes")
# the space and unit after a number's last digit: every wrap keeps a number and its unit on one
# line ("… in 3.1" / "s: …" reads as two things)
UNIT_AFTER = r" (?:" + "|".join(UNITS) + r")(?!\w)"
# a count and what it counts ("0 invalid", "16 object(s)"): the space after a whole number
COUNT_BEFORE = r"(?<![^\s(])\d+ (?=[A-Za-z(])"
# a name and the count that ends its list item ("Secret 2", "Issuer 4,"): the space before it
COUNT_AFTER = r" (?=\d+(?:,(?=\s|$)|$))"
# a break is allowed after a space, or after a path or list separator (not inside file names),
# but never inside a number and its unit or a count and its noun or name
_PIECES = re.compile(
    rf"(?:[^ /,;=@-]*\d{UNIT_AFTER}|{COUNT_BEFORE}|[A-Za-z][^ /,;=@-]*{COUNT_AFTER})?[^ /,;=@-]*(?:[ /,;=@-]+|$)"
)
LAST_RESORT = 12  # a column is cut inside a word only below its longest piece, and not below this
HANGING_FALLBACK = 4  # the indent of a list whose head leaves less room than its longest item needs


def output_width(is_terminal: bool | None = None) -> int:
    """The width output may use: ``$COLUMNS``, else the terminal's width, else :data:`CI_WIDTH` (no TTY)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    if is_terminal is None:
        is_terminal = sys.stdout.isatty()
    if is_terminal:
        return max(shutil.get_terminal_size((CI_WIDTH, 24)).columns, MIN_WIDTH)
    return CI_WIDTH


def pieces(text: str) -> list[str]:
    """``text`` cut after each space and each path or list separator (``/ , ; = @ -``), except the
    space between a number and its unit (:data:`UNITS`), after a count before its noun ("0
    invalid") and before the count that ends a list item ("Secret 2,")."""
    return [piece for piece in _PIECES.findall(text) if piece]


def wrap(text: str, width: int, first: int | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces or separators; no trailing spaces.

    ``first``: the room on the first line, when it differs (text that follows a head, see :func:`hang`);
    a first piece too wide for it but not for ``width`` starts the second line, leaving the first empty.
    A piece wider than ``width`` on its own is cut (the only case a word is split).
    """
    width = max(width, 1)
    lines: list[str] = []

    def room() -> int:
        return max(first, 1) if first is not None and not lines else width

    for paragraph in text.splitlines() or [""]:
        line = ""
        for piece in pieces(paragraph):
            if len(line) + len(piece.rstrip()) > room() and (line.strip() or len(piece.rstrip()) <= width):
                lines.append(line.rstrip())
                line = ""
            if not line and piece.strip() == "":
                continue  # no line starts with the space it was broken at
            while len(piece.rstrip()) > room():
                cut = room() - len(line)
                lines.append((line + piece[:cut]).rstrip())
                line, piece = "", piece[cut:]
            line += piece
        lines.append(line.rstrip())
    return lines


def hang(head: str, text: str, width: int, indent: int | None = None) -> list[str]:
    """``head`` then ``text`` wrapped as :func:`wrap` wraps it, within ``width``.

    The head stays on the first line with the text's start (a marker with its path), and
    continuation lines are indented by ``indent`` (default: the head's length, so they align under
    the text). No line ends in spaces.
    """
    indent = len(head) if indent is None else indent
    first, *rest = wrap(text, width - indent, first=width - len(head))
    return [(head + first).rstrip()] + [" " * indent + line for line in rest]


def hanging(head: str, items: Sequence[str], width: int, separator: str = ", ") -> list[str]:
    """``head`` then ``items`` joined by ``separator``, in lines of at most ``width`` characters.

    Lines break only between items (after the separator's comma), and continuation lines are
    indented to align under the first item: a hanging indent. When ``head`` leaves less room than
    the longest item needs, the items continue indented by :data:`HANGING_FALLBACK` instead; an
    item wider than a whole line is cut as :func:`wrap` cuts. No line ends in spaces.
    """
    width = max(width, 1)
    glue, space = separator.rstrip(), separator[len(separator.rstrip()) :]
    tokens = [item + glue for item in items[:-1]] + list(items[-1:])
    longest = max(map(len, tokens), default=0)
    indent = len(head) if width - len(head) >= longest else min(len(head), HANGING_FALLBACK)
    pad = " " * indent
    lines: list[str] = []
    line, fresh = head, True  # fresh: no item on this line yet
    if len(head.rstrip()) > width:
        lines, line = wrap(head, width), pad
    for token in tokens:
        joined = line + ("" if fresh else space) + token
        if len(joined) <= width:
            line, fresh = joined, False
            continue
        if line.strip():
            lines.append(line.rstrip())
        if len(pad + token) <= width:
            line, fresh = pad + token, False
            continue
        *cut, last = wrap(token, width - indent)
        lines += [pad + piece for piece in cut]
        line, fresh = pad + last, False
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _longest_piece(text: str) -> int:
    return max((len(piece.rstrip()) for piece in pieces(text)), default=0)


@dataclass
class PlainTable:
    """A table of text cells; ``render`` lays it out within a width.

    ``right`` names the right-aligned (numeric) columns; ``title`` and ``caption`` are wrapped
    lines above and below. ``below`` names columns (a note most rows leave empty) that give way
    first: they are narrowed before any other column, and leave the table when even that would
    wrap another column; a row's cell is then a line under the row, ``  note: text``. ``keep`` names
    columns (a place that should stay on one line) narrowed only when no other column can give way.
    ``findings``: without a terminal or ``$COLUMNS`` (a CI log) each row is one line of its own, never
    wrapped (:meth:`print`), so that one finding is one line for grep.
    """

    columns: Sequence[str]
    title: str = ""
    caption: str = ""
    right: Sequence[str] = ()
    below: Sequence[str] = ()
    keep: Sequence[str] = ()
    rows: list[list[str]] = field(default_factory=list)
    findings: bool = False

    def __post_init__(self) -> None:

        # the title and caption quote the project's text too (a pin's value, a --source path)
        self.title, self.caption = escape_controls(self.title), escape_controls(self.caption)

    def add_row(self, *cells: str) -> None:
        """Append one row (``str`` of every cell, control characters escaped: a chart's text)."""

        self.rows.append([escape_controls(str(cell)) for cell in cells])

    def widths(self, width: int, columns: Sequence[int] | None = None) -> list[int]:
        """Widths of ``columns`` (indexes, default all) that fit ``width``.

        Natural widths first; then the ``below`` columns give way first, narrowed down to their
        longest unbreakable piece; then the widest column but the ``keep`` ones, then the widest of
        all, down to its longest unbreakable piece; only when that is not enough, below it (to
        :data:`LAST_RESORT`).
        """
        shown = list(range(len(self.columns))) if columns is None else list(columns)
        names = [self.columns[i] for i in shown]
        floor = [max([len(names[k])] + [_longest_piece(row[i]) for row in self.rows]) for k, i in enumerate(shown)]
        last = [min(f, max(LAST_RESORT, len(name))) for f, name in zip(floor, names, strict=True)]
        widths = [self._natural(i) for i in shown]
        budget = width - len(GAP) * (len(shown) - 1)
        first = [k for k, name in enumerate(names) if name in self.below]
        other = [k for k, name in enumerate(names) if name not in self.keep]
        every = range(len(shown))
        for limit, candidates in ((floor, first), (floor, other), (floor, every), (last, every)):
            while sum(widths) > budget:
                shrinkable = [k for k in candidates if widths[k] > limit[k]]
                if not shrinkable:
                    break
                widths[max(shrinkable, key=lambda k: widths[k])] -= 1
        return widths

    def layout(self, width: int) -> tuple[list[int], list[int]]:
        """The columns shown in the table (indexes) and their widths: the ``below`` columns leave it
        when no row has a note, or when keeping them would make another column narrower than its
        widest cell."""
        every = list(range(len(self.columns)))
        inline = [i for i in every if self.columns[i] not in self.below]
        if len(inline) == len(every):
            return every, self.widths(width)
        if not any(c[i] for c in self.rows for i in every if i not in inline):  # no note at all
            return inline, self.widths(width, inline)
        widths = self.widths(width)
        if all(widths[i] >= self._natural(i) for i in inline):
            return every, widths
        return inline, self.widths(width, inline)

    def render(self, width: int) -> list[str]:
        """The table's lines, none wider than ``width`` unless a single column cannot be narrower."""
        shown, widths = self.layout(width)
        names = [self.columns[i] for i in shown]
        lines: list[str] = []
        if self.title:
            lines += wrap(self.title, width)
        lines.append(self._line([[name] for name in names], widths, names)[0])
        lines.append(GAP.join("-" * w for w in widths))
        for row in self.rows:
            cells = [wrap(row[i], widths[k]) for k, i in enumerate(shown)]
            lines += self._line(cells, widths, names)
            for i, name in enumerate(self.columns):
                if i not in shown and row[i]:
                    lines += hang(f"  {name}: ", row[i], width)
        if self.caption:
            lines += wrap(self.caption, width)
        return lines

    def _natural(self, column: int) -> int:
        cells = [row[column] for row in self.rows]
        return max([len(self.columns[column])] + [len(line) for c in cells for line in c.splitlines()])

    def _line(self, cells: list[list[str]], widths: list[int], names: list[str]) -> list[str]:
        height = max(len(c) for c in cells)
        out = []
        for n in range(height):
            parts = []
            for i, cell in enumerate(cells):
                text = cell[n] if n < len(cell) else ""
                parts.append(text.rjust(widths[i]) if names[i] in self.right else text.ljust(widths[i]))
            out.append(GAP.join(parts).rstrip())
        return out

    def print(self, console: Console) -> None:
        """Print the table on ``console`` within its width, as plain text (no markup read from cells).

        A ``findings`` table without a terminal and without ``$COLUMNS`` (a CI log): one unwrapped line
        per row, ``title: column value, …`` (empty cells left out), however long."""
        from rich.text import Text

        if self.findings and not console.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
            head = f"{self.title}: " if self.title else ""
            for row in self.rows:
                cells = ", ".join(f"{name} {cell}" for name, cell in zip(self.columns, row, strict=True) if cell)
                console.print(Text(head + cells), soft_wrap=True)
            return

        lines = self.render(console.width)
        header = 1 + len(wrap(self.title, console.width)) if self.title else 1
        for number, line in enumerate(lines):
            bold = console.is_terminal and number < header
            console.print(Text(line, style="bold" if bold else ""), soft_wrap=True)


def raw_stream(stream: TextIO) -> Any:
    """``stream`` without the stripping of any :class:`StrippedLines` around it, for text that must
    stay as it is (a diff's body); write errors are reported as the :class:`StrippedLines` reports them."""
    if not isinstance(stream, StrippedLines):
        return stream
    inner = stream
    while isinstance(inner.stream, StrippedLines):
        inner = inner.stream
    return _Verbatim(inner)


class _Verbatim:
    """``write``/``flush`` straight to the stream a :class:`StrippedLines` wraps, its errors reported alike."""

    def __init__(self, lines: StrippedLines) -> None:
        self.lines = lines

    def write(self, text: str) -> int:
        """Write ``text`` as it is."""
        if self.lines.gone:
            return len(text)
        with self.lines._reported():
            self.lines.stream.write(text)
        return len(text)

    def flush(self) -> None:
        """Flush the stream."""
        self.lines.flush()


class StrippedLines:
    """A text stream that drops spaces before each line end (rich pads and word-wraps with them).

    Wraps ``sys.stdout``/``sys.stderr`` for the CLI's consoles; ``isatty`` and ``fileno`` are the
    stream's, so rich still knows whether it writes to a terminal.
    """

    def __init__(self, stream: TextIO | None, name: str = "stdout") -> None:
        self.stream: Any = stream if stream is not None else _Closed()
        self.name = name
        self.pending = ""
        self.gone = False  # the reader closed the pipe: nothing more is written

    def write(self, text: str) -> int:
        """Write ``text``; spaces at its end wait until it is known whether a line end follows.

        Raises :class:`~gsvendor.errors.OutputError` (exit 2) when the stream cannot be written;
        on stderr such text is dropped (``2> /dev/full``: no error could be shown, the exit code
        stays). Once the reader went away (``gsvendor verify | head``: a broken pipe) this and every
        later write is dropped, so the command ends with its own verdict.
        """
        if self.gone:
            return len(text)
        data = self.pending + text
        lines = data.split("\n")
        tail = lines.pop()
        stripped = tail.rstrip(" ")
        self.pending = tail[len(stripped) :]
        out = "".join(f"{line.rstrip(' ')}\n" for line in lines) + stripped
        with self._reported():
            self.stream.write(out)
        return len(text)

    def flush(self) -> None:
        """Flush the stream (pending spaces stay: they end a line or are dropped); errors as :meth:`write`."""
        if self.gone:
            return
        with self._reported():
            self.stream.flush()

    @contextlib.contextmanager
    def _reported(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            self._reader_gone()
        except OSError as exc:
            if self.name == "stderr":  # nowhere to say so: the messages are lost, as with 2>&-; the exit codes stay
                return
            from gsvendor.errors import OutputError

            raise OutputError(f"{self.name}: cannot write the output: {exc.strerror or exc}") from None

    def _reader_gone(self) -> None:
        """Drop what is left to write: the descriptor now points to /dev/null, so the text still
        buffered below, Python's flush at exit and any other writer lose their output quietly too."""
        self.gone = True
        try:
            fd = self.stream.fileno()
        except (OSError, ValueError, AttributeError):  # no descriptor (a test's StringIO): nothing else writes to it
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)

    def isatty(self) -> bool:
        """Whether the wrapped stream is a terminal."""
        return self.stream.isatty()

    def fileno(self) -> int:
        """The wrapped stream's file descriptor."""
        return self.stream.fileno()

    @property
    def buffer(self) -> object:
        """The wrapped stream's binary buffer (bytes bypass the stripping)."""
        return self.stream.buffer

    @property
    def encoding(self) -> str:
        """The wrapped stream's encoding."""
        return getattr(self.stream, "encoding", "utf-8")


class _Closed:
    """What Python leaves as ``sys.stdout`` when descriptor 1 is closed (``gsvendor … >&-``): writes fail."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        """Nothing to flush."""

    def isatty(self) -> bool:
        """No terminal."""
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
