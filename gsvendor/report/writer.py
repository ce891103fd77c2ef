"""The one console every command writes through: rich's, with user text made safe in one place.

:func:`open_console` makes the console of stdout or stderr, :func:`~gsvendor.report.layout.output_width`
wide, its lines stripped of trailing spaces. :class:`Writer` is rich's ``Console`` with three rules
applied to everything it prints, so no call site escapes by hand:

- a control character (ESC, BEL, CR, DEL, C1; not tab or line feed) in any printed text, a table's
  cell too, is shown as ``\\xNN``, a bidirectional control (U+202E) as ``\\uNNNN``: a chart's or a
  registry's text is never a terminal's escape sequence, nor shown reordered; emoji codes
  (``:smile:``) are never read;
- :meth:`Writer.say` takes markup with ``{}`` holes for user text; each value is quoted once (its
  markup escaped, credentials in URLs redacted, line breaks shown as ``\\x0a``/``\\u2028``: a file
  name with a line feed stays in its line), and :meth:`Writer.labelled` prints an ``error:`` /
  ``warning:`` line the same way, reading no markup at all;
- a wrapped line never parts a number from its unit (``3.1 s``) or a count from its noun.

Give user text as a string (or a :meth:`Writer.say` value), not as a ``rich.text.Text`` made at the
call site: making a ``Text`` drops BEL, BS, VT, FF and CR unseen, before the writer could show them.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape as markup_escape
from rich.segment import Segment
from rich.text import Text

from gsvendor.errors import CONTROL as _CONTROL
from gsvendor.errors import MAX_LINE_CHARS, escape_controls, escape_line_breaks, redact, shorten
from gsvendor.report.layout import COUNT_AFTER, COUNT_BEFORE, UNIT_AFTER, StrippedLines, output_width

# rich._wrap's word (leading blanks, the word, its trailing blanks), but a number and its unit
# ("3.1 s:"), a count and its noun ("0 invalid,") and a name and its count ("Secret 2,") are one word
_GLUED = rf"\S*\d{UNIT_AFTER}\S*|{COUNT_BEFORE}\S+|[A-Za-z]\S*{COUNT_AFTER}\S+"
_WORD = re.compile(rf"\s*(?:{_GLUED}|\S+)\s*")
_UNIT_GAP = re.compile(rf"\d{UNIT_AFTER}|{COUNT_BEFORE}|[A-Za-z]{COUNT_AFTER}")


def quote(value: object) -> str:
    """``value`` (user text: a path, a tag, a registry's reason) as markup that prints it as one
    line: credentials redacted, line breaks escaped, ``[`` escaped, cut at :data:`MAX_LINE_CHARS`."""
    return markup_escape(shorten(escape_line_breaks(redact(str(value))), MAX_LINE_CHARS))


def one_line(text: str) -> str:
    """``text`` as one printable line, no markup read: credentials redacted, control characters and
    line breaks escaped (``\\xNN``), at most :data:`MAX_LINE_CHARS` characters."""
    return shorten(escape_line_breaks(escape_controls(redact(text))), MAX_LINE_CHARS)


def _safe_text(text: Text, console: Console) -> Text:
    """``text`` with its control characters escaped, its styles kept (rebuilt from its segments)."""
    if not _CONTROL.search(text.plain):
        return text
    pieces = [(escape_controls(s.text), s.style) for s in text.render(console, end="") if not s.control]
    safe = Text.assemble(*pieces, end=text.end, no_wrap=text.no_wrap, overflow=text.overflow)
    safe.justify = text.justify
    return safe


def wrap_offsets(line: str, width: int) -> list[int]:
    """Where rich 13-15 (``rich._wrap.divide_line``, folding) breaks ``line`` at ``width`` cells,
    except that a number and its unit, a count and its noun, stay together."""
    breaks: list[int] = []
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:  # fold the word across lines
            pieces = [word[i : i + width] for i in range(0, len(word), width)]
            for piece in pieces[:-1]:
                if start:
                    breaks.append(start)
                start += len(piece)
            if start:
                breaks.append(start)
            offset = len(pieces[-1])
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    return breaks


class Writer(Console):
    """rich's ``Console`` that escapes control characters in all it prints and keeps units on their line.

    Also has :meth:`say` (markup with quoted user text) and :meth:`labelled` (``error:`` lines).
    Emoji codes are off unless a caller passes ``emoji=True``: ``:smile:`` in a tag prints as written.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """rich's ``Console(*args, **kwargs)``, ``emoji=False`` by default."""
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def print(self, *objects: Any, **options: Any) -> None:
        """rich's ``Console.print`` (``out`` too: it prints through here), control characters of
        strings and ``Text`` escaped first."""
        safe = tuple(
            escape_controls(o) if isinstance(o, str) else _safe_text(o, self) if isinstance(o, Text) else o
            for o in objects
        )
        super().print(*self._units_kept(safe, options), **options)

    def say(self, markup: str, *values: object, **options: Any) -> None:
        """Print ``markup`` with each ``{}`` filled by :func:`quote` of the next of ``values``."""
        self.print(markup.format(*(quote(value) for value in values)), **options)

    def labelled(self, label: str, style: str, text: str) -> None:
        """One line ``label text``: ``label`` in ``style`` on a terminal, ``text`` as :func:`one_line`
        shows it (no markup or emoji codes read: ``[red]`` and ``:smile:`` print as written), not wrapped."""
        self.print(Text.assemble((label, style), " ", one_line(text)), soft_wrap=True)

    def unlabelled(self, text: str) -> None:
        """``text`` as :func:`one_line` shows it, unlabelled: no markup or emoji read, not wrapped."""
        self.print(one_line(text), markup=False, emoji=False, soft_wrap=True)

    def errors(self, problems: list[str]) -> None:
        """One ``error:`` line per problem (a :class:`~gsvendor.errors.GsvendorError`'s ``problems``)."""
        for problem in problems:
            self.labelled("error:", "red", problem)

    def render_str(self, text: str, **options: Any) -> Text:
        """rich's ``render_str``, control characters escaped first: every string rich renders (a
        table's cell, a column's header) passes here, and a ``Text`` made of it would drop CR, BEL,
        BS, VT and FF unseen."""
        return super().render_str(escape_controls(text), **options)

    def _render_buffer(self, buffer: Any) -> str:
        # the net under print(): a renderable built of anything else (a table's cell) is escaped here
        safe = (
            Segment(escape_controls(s.text), s.style, s.control) if not s.control and _CONTROL.search(s.text) else s
            for s in buffer
        )
        return super()._render_buffer(safe)

    def _units_kept(self, objects: tuple[Any, ...], options: dict[str, Any]) -> tuple[Any, ...]:
        """``objects`` for rich's ``print``: a string rich would wrap between a number and its unit
        becomes a ``Text`` broken where :func:`wrap_offsets` breaks it (rich then wraps no further)."""
        if len(objects) != 1 or not isinstance(objects[0], str) or not _UNIT_GAP.search(objects[0]):
            return objects
        if options.get("soft_wrap") or options.get("highlight") or not set(options) <= {"markup", "emoji", "end"}:
            return objects
        from rich.cells import cell_len

        markup, emoji = options.get("markup"), options.get("emoji")
        text = self.render_str(objects[0], markup=markup, emoji=emoji, highlight=False)
        if any(cell_len(character) != 1 for character in text.plain.replace("\n", "")):
            return objects  # a tab, a wide or a zero-width character: rich's cells, not characters
        lines = [
            part
            for line in text.split("\n", allow_blank=True)
            for part in line.divide(wrap_offsets(line.plain, self.width))
        ]
        return (Text("\n").join(lines),)


def open_console(stream: TextIO | None, name: str) -> Writer:
    """The :class:`Writer` on ``stream`` (``sys.stdout``/``sys.stderr``, named ``name`` in its
    write errors), as wide as :func:`~gsvendor.report.layout.output_width` says; no line ends in spaces."""
    lines = StrippedLines(stream, name=name)
    return Writer(file=lines, highlight=False, width=output_width(is_terminal=lines.isatty()))
