"""The one console every command writes through: :class:`Writer`, rich's ``Console`` escaping every control
character it prints, never wrapping a number apart from its unit. Give user text as a string: a
``rich.text.Text`` drops BEL, BS, VT, FF and CR unseen."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from rich.box import Box
from rich.console import Console
from rich.markup import escape as markup_escape
from rich.segment import Segment
from rich.text import Text

from gsvendor.errors import CONTROL, MAX_LINE_CHARS, escape_controls, escape_line_breaks, redact, shorten
from gsvendor.report.layout import COUNT_AFTER, COUNT_BEFORE, UNIT_AFTER, StrippedLines, env_positive, output_width

# rich._wrap's word, but "3.1 s:", "0 invalid," and "Secret 2," are one word and "templates/" is one;
# the glued forms are tried only within 200 characters of a run's end (a 90 kB run of "ab/" took 90 s)
_NEAR_END = r"(?=\S{0,200}(?:\s|$))"
_GLUED = rf"{_NEAR_END}\S*\d{UNIT_AFTER}\S*|{COUNT_BEFORE}\S+|{_NEAR_END}[A-Za-z]\S*{COUNT_AFTER}\S+"
_WORD = re.compile(rf"\s*(?:{_GLUED}|[^\s/]*/+|\S+)\s*")
_WHOLE_WORD = re.compile(rf"\s*(?:{_GLUED}|\S+)\s*")  # a path whole: it breaks only when longer than a line
# a dotted field path's parts ("spec.", "containers[manager].", "image"): each ends after its "."
_DOTTED = re.compile(r"[^.]*\.+(?=[^.\s])|.+", re.S)
_LEVELS = (_WHOLE_WORD, _WORD, _DOTTED)  # the words of a line, a path's pieces, a dotted piece's parts
# a table's only box characters: a rule of "-" under the header, a blank between columns
_RULE = Box("    \n    \n -  \n    \n    \n    \n    \n    \n", ascii=True)
_HANG = 2  # the indent of a hanging cell's continuation lines
_UNIT_GAP = re.compile(rf"\d{UNIT_AFTER}|{COUNT_BEFORE}|[A-Za-z]{COUNT_AFTER}")


def quote(value: object) -> str:
    """User text as one line of markup: credentials redacted, line breaks and ``[`` escaped, cut at MAX_LINE_CHARS."""
    return markup_escape(shorten(escape_line_breaks(redact(str(value))), MAX_LINE_CHARS))


def one_line(text: str) -> str:
    """``text`` as one printable line: credentials redacted, controls and line breaks escaped, cut at MAX_LINE_CHARS."""
    return shorten(escape_line_breaks(escape_controls(redact(text))), MAX_LINE_CHARS)


def _safe_text(text: Text, console: Console) -> Text:
    """``text`` with its control characters escaped, its styles kept."""
    if not CONTROL.search(text.plain):
        return text
    pieces = [(escape_controls(s.text), s.style) for s in text.render(console, end="") if not s.control]
    return Text.assemble(*pieces, justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap, end=text.end)


def _narrowed(widths: dict[int, int], least: Sequence[int], groups: Sequence[list[int]], room: int) -> dict[int, int]:
    """Column widths (index → cells) within ``room``: the widest of each group in turn narrowed, none below
    its longest word (``least``; rich's narrowing ignores words), then any column down to one cell."""
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
    """Where rich 13-15 (``rich._wrap.divide_line``, folding) breaks ``line`` at ``width`` cells, but
    never inside a number and its unit or a count and its noun; a path longer than a line breaks after
    a ``/`` (one that fits goes whole to the next line, to be copied in one piece), and a part of it still
    longer (a dotted field path: ``spec.template.spec.containers[manager].image``) starts a line and breaks
    after a ``.``."""
    breaks: list[int] = []
    offset = 0

    def place(start: int, word: str) -> None:
        nonlocal offset
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:  # fold the word across lines: a break before each piece of ``width``, not
            # before a word that starts a line already (a second break there was an empty line in the cell)
            breaks.extend(at for at in range(start, start + len(word), width) if at != start or offset)
            offset = (len(word) - 1) % width + 1
        elif offset and start:
            breaks.append(start)
            offset = len(word)

    def split(level: int, start: int, end: int) -> None:
        nonlocal offset
        for match in _LEVELS[level].finditer(line, start, end):
            at, word = match.start(), match.group(0)
            # a word longer than a line splits after its "/"s (a line's word) or else its "."s, then folds
            deeper = 1 if level == 0 and "/" in word else 2 if level < 2 and "." in word.rstrip() else 0
            if not deeper or len(word.rstrip()) <= width:
                place(at, word)
                continue
            if deeper == 2 and offset and at:  # a dotted part starts a line: not "values.yaml:61 kserve." then the rest
                breaks.append(at)
                offset = 0
            split(deeper, at, match.end())

    split(0, 0, len(line))
    return breaks


def _broken(text: Text, width: int) -> Text:
    """``text`` with each line broken where :func:`wrap_offsets` breaks it."""
    return Text("\n").join(
        part for line in text.split("\n", allow_blank=True) for part in line.divide(wrap_offsets(line.plain, width))
    )


class _Cell(Text):
    """A table cell: broken by :func:`wrap_offsets`, then wrapped by rich as any ``Text``."""

    def wrap(self, console: Console, width: int, **options: Any) -> Any:
        return _broken(self, width).wrap(console, width, **options)


class _HangingCell(_Cell):
    """A cell whose wrapped lines hang two cells in: a long file name's continuation, not another file."""

    def wrap(self, console: Console, width: int, **options: Any) -> Any:
        if width <= _HANG:
            return super().wrap(console, width, **options)
        lines: list[Text] = []
        for line in self.split("\n", allow_blank=True):
            first, *_ = wrap_offsets(line.plain, width) or [len(line)]
            head, rest = line[:first], line[first:]
            lines.append(head)
            if rest.plain:
                lines += [Text(" " * _HANG) + part for part in rest.divide(wrap_offsets(rest.plain, width - _HANG))]
        return Text("\n").join(lines).wrap(console, width, **options)


class Writer(Console):
    """rich's ``Console`` escaping control characters in all it prints, units kept on their line, emoji off."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def print(self, *objects: Any, **options: Any) -> None:
        """rich's ``Console.print`` (``out`` too), control characters of strings and ``Text`` escaped first."""
        safe = tuple(
            escape_controls(o) if isinstance(o, str) else _safe_text(o, self) if isinstance(o, Text) else o
            for o in objects
        )
        super().print(*self._units_kept(safe, options), **options)

    def say(self, markup: str, *values: object, **options: Any) -> None:
        """Print ``markup`` with each ``{}`` filled by :func:`quote` of the next of ``values``."""
        self.print(markup.format(*(quote(value) for value in values)), **options)

    def labelled(self, label: str, style: str, text: str) -> None:
        """One unwrapped line ``label text``, ``label`` in ``style``, ``text`` as :func:`one_line` (no markup read)."""
        self.print(Text.assemble((label, style), " ", one_line(text)), soft_wrap=True)

    def unlabelled(self, text: str) -> None:
        """``text`` as :func:`one_line`, unwrapped, no markup read."""
        self.print(one_line(text), markup=False, emoji=False, soft_wrap=True)

    def errors(self, problems: list[str]) -> None:
        """One ``error:`` line per problem (a :class:`~gsvendor.errors.GsvendorError`'s ``problems``)."""
        for problem in problems:
            self.labelled("error:", "red", problem)

    def hanging(self, head: str, text: str, style: str = "", head_style: str | None = None) -> None:
        """``head`` then ``text`` (both :func:`one_line`), ``text`` continued under its start; a head over four
        characters leaving less room than its longest word stands alone, the text following indented by four."""
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
        hang: Sequence[str] = (),
        findings: bool = False,
    ) -> None:
        """``rows`` (cells ``str()``-ed, no markup read) under ``columns`` within the width: a header, a rule of
        ``-``; ``title`` and ``caption`` lines above and below. ``right``: right-aligned columns; ``keep``: kept on
        one line while others wrap; ``below``: shown only when they fit beside the others at natural width, else
        each cell follows the table as ``  <keep cell>: <column>: <text>``; ``hang``: wrapped cells continue two
        cells in, line breaks escaped; ``findings``: in a CI log (no terminal, no ``$COLUMNS``) each row is one
        line ``title: column value, …`` for grep."""
        from rich.table import Table

        # a tab too: rich expands it to spaces, and "agent\tx" showed as "agent    x", another value; a hanging
        # column's cell is one name: a line feed in it started a line that read as another row
        lines = [escape_line_breaks if name in hang else str for name in columns]
        cells = [[lines[i](escape_controls(str(c)).replace("\t", "\\t")) for i, c in enumerate(row)] for row in rows]
        if findings and not self.is_terminal and env_positive("COLUMNS") is None:
            head = f"{escape_controls(title)}: " if title else ""
            for row in cells:
                line = ", ".join(f"{name} {cell}" for name, cell in zip(columns, row, strict=True) if cell)
                self.print(Text(head + line), soft_wrap=True)
            return

        def longest(i: int, split: Any) -> int:
            return max(len(part) for cell in (columns[i], *(row[i] for row in cells)) for part in split(cell) or [""])

        every = range(len(columns))
        natural = [longest(i, lambda c: c.split("\n")) for i in every]
        # the longest piece no wrap breaks (wrap_offsets' words), and a continuation's indent
        pieces = [longest(i, lambda c: [m.group(0).strip() for m in _WORD.finditer(c)]) for i in every]
        word = [n + _HANG * (columns[i] in hang) for i, n in enumerate(pieces)]

        inline = [i for i in every if columns[i] not in below]
        notes = [i for i in every if i not in inline]
        fits = sum(natural[i] for i in inline) + sum(word[i] for i in notes) + 2 * (len(every) - 1) <= self.width
        shown = list(every) if fits and any(row[i] for row in cells for i in notes) else inline
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
            table.add_row(*((_HangingCell if columns[i] in hang else _Cell)(row[i]) for i in shown))
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
        """rich's ``render_str`` (every string rich renders), control characters escaped first."""
        return super().render_str(escape_controls(text), **options)

    def _render_buffer(self, buffer: Any) -> str:
        # the net under print(): a renderable built of anything else (a table's cell) is escaped here
        safe = (
            Segment(escape_controls(s.text), s.style, s.control) if not s.control and CONTROL.search(s.text) else s
            for s in buffer
        )
        return super()._render_buffer(safe)

    def _units_kept(self, objects: tuple[Any, ...], options: dict[str, Any]) -> tuple[Any, ...]:
        """``objects``, a lone string rich would wrap inside a number and its unit made :func:`_broken`."""
        if len(objects) != 1 or not isinstance(objects[0], str) or not _UNIT_GAP.search(objects[0]):
            return objects
        if options.get("soft_wrap") or options.get("highlight") or not set(options) <= {"markup", "emoji", "end"}:
            return objects
        from rich.cells import cell_len

        markup, emoji = options.get("markup"), options.get("emoji")
        text = self.render_str(objects[0], markup=markup, emoji=emoji, highlight=False)
        if any(cell_len(character) != 1 for character in text.plain.replace("\n", "")):
            return objects  # a tab, a wide or a zero-width character: rich's cells, not characters
        return (_broken(text, self.width),)


def open_console(stream: TextIO | None, name: str) -> Writer:
    """The :class:`Writer` on ``stream`` (``name`` in write errors), :func:`output_width` wide, lines stripped."""
    lines = StrippedLines(stream, name=name)
    return Writer(file=lines, highlight=False, width=output_width(is_terminal=lines.isatty()))
