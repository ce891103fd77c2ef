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

:meth:`Writer.table` prints a ``rich.table.Table`` without box-drawing characters (a header, a
``---`` rule, rows), :meth:`Writer.hanging` a head and a text that continues under its start.

Give user text as a string (or a :meth:`Writer.say` value), not as a ``rich.text.Text`` made at the
call site: making a ``Text`` drops BEL, BS, VT, FF and CR unseen, before the writer could show them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from rich.box import Box
from rich.console import Console
from rich.markup import escape as markup_escape
from rich.segment import Segment
from rich.text import Text

from gsvendor.errors import CONTROL as _CONTROL
from gsvendor.errors import MAX_LINE_CHARS, escape_controls, escape_line_breaks, redact, shorten
from gsvendor.report.layout import COUNT_AFTER, COUNT_BEFORE, UNIT_AFTER, StrippedLines, env_columns, output_width

# rich._wrap's word (leading blanks, the word, its trailing blanks), but a number and its unit
# ("3.1 s:"), a count and its noun ("0 invalid,") and a name and its count ("Secret 2,") are one word,
# and a path's folder ("templates/") is a word of its own. The glued forms end a run of non-spaces, and
# each try scans to that end: tried only within 200 characters of it, or a 90 kB run of "ab/" (30,000
# words) took 90 s to wrap.
_NEAR_END = r"(?=\S{0,200}(?:\s|$))"
_GLUED = rf"{_NEAR_END}\S*\d{UNIT_AFTER}\S*|{COUNT_BEFORE}\S+|{_NEAR_END}[A-Za-z]\S*{COUNT_AFTER}\S+"
_WORD = re.compile(rf"\s*(?:{_GLUED}|[^\s/]*/+|\S+)\s*")
# a table's only box characters: a rule of "-" under the header, a blank between columns
_RULE = Box("    \n    \n -  \n    \n    \n    \n    \n    \n", ascii=True)
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


def _pieces(text: str) -> list[str]:
    """The parts of ``text`` no wrap breaks (:func:`wrap_offsets`' words: a path segment with its
    ``/``, a number with its unit)."""
    return [match.group(0).strip() for match in _WORD.finditer(text)]


def _narrowed(widths: dict[int, int], least: Sequence[int], groups: Sequence[list[int]], room: int) -> dict[int, int]:
    """Column widths (column index → cells) that fit ``room`` cells: the widest columns of the first
    group narrowed first, then of the next, none below its longest unbreakable piece (``least``), so
    words and path segments stay whole (rich's own narrowing ignores words). When the pieces alone
    are too wide, the widest of all columns are narrowed further, to one cell at least, and rich
    folds their words."""
    widths = dict(widths)
    one = [1] * len(least)
    for group, floors in [*((group, least) for group in groups), (list(widths), one)]:
        while (excess := sum(widths.values()) - room) > 0:
            narrowable = [i for i in group if widths[i] > floors[i]]
            if not narrowable:
                break
            top = max(widths[i] for i in narrowable)
            widest = [i for i in narrowable if widths[i] == top]
            floor = max([widths[i] for i in narrowable if widths[i] < top] + [floors[i] for i in widest])
            step = min(top - floor, -(-excess // len(widest)))
            for i in widest:
                widths[i] = max(floors[i], top - step)
    return widths


def wrap_offsets(line: str, width: int) -> list[int]:
    """Where rich 13-15 (``rich._wrap.divide_line``, folding) breaks ``line`` at ``width`` cells,
    except that a number and its unit, a count and its noun, stay together, and a path may break
    after a ``/``."""
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


class _Cell(Text):
    """A table cell: wrapped where :func:`wrap_offsets` breaks (after a ``/``, never inside a number and
    its unit), then by rich as any ``Text`` (cells, justification)."""

    def wrap(self, console: Console, width: int, **options: Any) -> Any:
        """rich's ``Text.wrap`` of the lines :func:`wrap_offsets` makes of each line."""
        parts = [part for line in self.split(allow_blank=True) for part in line.divide(wrap_offsets(line.plain, width))]
        return Text("\n").join(parts).wrap(console, width, **options)


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

    def hanging(self, head: str, text: str, style: str = "", head_style: str | None = None) -> None:
        """``head`` then ``text``, both as :func:`one_line` shows them, within the width: ``text`` breaks
        where :func:`wrap_offsets` says and continues under its start (a hanging indent).

        A head longer than four characters that leaves less room than ``text``'s longest word stands
        on a line of its own, the text following indented by four. ``head_style`` defaults to ``style``.
        """
        head, text = one_line(head), one_line(text)
        head_style = style if head_style is None else head_style
        if len(head) > 4 and self.width - len(head) < max(map(len, text.split()), default=0):
            self.print(Text(head.rstrip(), head_style), soft_wrap=True)
            head = "    "
        for number, part in enumerate(Text(text, style).divide(wrap_offsets(text, self.width - len(head)))):
            lead = head if number == 0 else " " * len(head)
            self.print(Text.assemble((lead, head_style), part), soft_wrap=True)

    def table(
        self,
        columns: Sequence[str],
        rows: Iterable[Sequence[object]],
        *,
        title: str = "",
        caption: str = "",
        right: Sequence[str] = (),
        below: Sequence[str] = (),
        keep: Sequence[str] = (),
        findings: bool = False,
    ) -> None:
        """Print ``rows`` (each cell ``str()``-ed, no markup read) under ``columns`` as a
        ``rich.table.Table`` within the width: a header, a rule of ``-``, no other box characters
        (a CI log shows them as they are); ``title`` and ``caption`` lines above and below.

        ``right``: right-aligned (numeric) columns. ``keep``: columns (a place) kept on one line when
        the others can wrap instead. ``below``: columns (a note most rows leave empty) that stay only
        when they fit beside every other column at its natural width (then they alone wrap); else a
        row's cell follows the table as ``  <keep cell>: <column>: <text>``. ``findings``: without a
        terminal and without ``$COLUMNS`` (a CI log) each row is one unwrapped line,
        ``title: column value, …`` (empty cells left out), so one finding is one line for grep.
        """
        from rich.table import Table

        # a tab too: rich expands it to spaces, and "agent\tx" showed as "agent    x", another value
        cells = [[escape_controls(str(cell)).replace("\t", "\\t") for cell in row] for row in rows]
        if findings and not self.is_terminal and env_columns() is None:
            head = f"{escape_controls(title)}: " if title else ""
            for row in cells:
                line = ", ".join(f"{name} {cell}" for name, cell in zip(columns, row, strict=True) if cell)
                self.print(Text(head + line), soft_wrap=True)
            return

        def longest(i: int, split: Any) -> int:
            return max(len(part) for cell in (columns[i], *(row[i] for row in cells)) for part in split(cell) or [""])

        every = range(len(columns))
        natural, word = [longest(i, lambda c: c.split("\n")) for i in every], [longest(i, _pieces) for i in every]

        def fits(fixed: list[int], loose: list[int]) -> bool:
            gaps = 2 * (len(fixed) + len(loose) - 1)
            return sum(natural[i] for i in fixed) + sum(word[i] for i in loose) + gaps <= self.width

        inline = [i for i in every if columns[i] not in below]
        notes = [i for i in every if i not in inline]
        shown = inline
        if any(row[i] for row in cells for i in notes) and fits(inline, notes):
            shown = list(every)
        # who gives way first: a shown note column alone, else every column but the kept ones, then those
        kept = inline if shown != inline else [i for i in inline if columns[i] in keep]
        loose = [i for i in shown if i not in kept]
        room = self.width - 2 * (len(shown) - 1)
        widths = _narrowed({i: natural[i] for i in shown}, word, (loose, kept), room)
        table = Table(box=_RULE, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
        for i in shown:
            justify = "right" if columns[i] in right else "left"
            table.add_column(columns[i], justify=justify, overflow="fold", width=widths.get(i))
        for row in cells:
            table.add_row(*(_Cell(row[i]) for i in shown))
        if title:
            self.say("[bold]{}[/]", title)
        self.print(table)
        if caption:
            self.say("{}", caption)
        key = next((i for i in every if columns[i] in keep), 0)
        for row in cells:
            for i in every:
                if i not in shown and row[i]:
                    self.hanging(f"  {row[key]}: {columns[i]}: ", row[i])

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
