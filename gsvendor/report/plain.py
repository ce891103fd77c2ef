"""A console that writes plain lines itself where rich would write them unchanged, and loads rich otherwise.

Importing rich's console costs ~25 ms, more than some commands spend on their own work (issue
19), though off a terminal most of what gsvendor prints reaches the stream as it was written: an
``ok:`` line, a summary, JSON. :class:`LazyConsole` writes such a line itself when rich provably
would write the same characters (rich 13-15's rules: no terminal, so no colour; markup of plain
style tags only; nothing rich's emoji codes, control-code stripping, tab expansion or wrapping
would change) and hands everything else to a real ``rich.console.Console``, created on first need.
One rule is gsvendor's, on both paths: a wrapped line never parts a number from its unit (``3.1 s``).
"""

from __future__ import annotations

import os
import re
from typing import Any, TextIO

from gsvendor.report.layout import COUNT_AFTER, COUNT_BEFORE, UNIT_AFTER

# rich.markup's tag syntax: backslashes (escapes), then [tag]
_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")
# the styles gsvendor's messages use; any other tag (links, @handlers, colour names with
# parameters) goes to rich
_STYLES = frozenset({"green", "red", "yellow", "bold", "dim", "cyan", "blue", "magenta", "italic"})
# rich's emoji codes (:name:, :name-emoji:): text holding anything like one goes to rich
_EMOJI_LIKE = re.compile(r":\S*?:")
# what rich writes as it is: printable ASCII, and line ends (no tabs, no control codes, no
# characters of another cell width)
_AS_IS = re.compile(r"[\x20-\x7e\n]*")


_ESCAPABLE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(text: str) -> str:
    """rich.markup's ``escape`` without loading rich: ``text`` printed with markup on reads as written.

    Each ``[`` that would open a tag gets a backslash (and the backslashes before it are doubled);
    a final lone backslash is doubled, so it escapes nothing that follows. Control characters (but
    tabs and line ends) are escaped as ``\\xNN``: the text is a chart's or a user's, never a
    terminal's escape sequence.
    """
    from gsvendor.errors import escape_controls

    escaped = _ESCAPABLE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", escape_controls(text))
    if escaped.endswith("\\") and not escaped.endswith("\\\\"):
        return escaped + "\\"
    return escaped


def strip_markup(text: str, emoji: bool = True) -> str | None:
    """``text`` without its markup as rich renders it, or ``None`` when rich must decide.

    ``None`` for a tag that is no plain style of :data:`_STYLES`, for a closing tag that closes
    nothing (rich raises MarkupError) and, with ``emoji``, for text with an emoji code. Escapes follow
    rich.markup: ``\\[`` is a literal ``[``, two backslashes before a tag are one backslash.
    """
    if "[" not in text:  # rich takes such text whole: no tag, no escape
        return None if emoji and _EMOJI_LIKE.search(text) else text
    out: list[str] = []
    position = 0
    opened: list[str] = []
    for match in _TAG.finditer(text):
        escapes, tag = match.group(1), match.group(2)
        start, end = match.span()
        out.append(text[position:start])
        position = end
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            out.append("\\" * backslashes)
            if escaped:
                out.append(f"[{tag}]")
                continue
        if tag == "/":
            if not opened:
                return None
            opened.pop()
        elif tag.startswith("/"):
            if tag[1:] not in opened:
                return None
            del opened[len(opened) - 1 - opened[::-1].index(tag[1:])]
        elif tag in _STYLES:
            opened.append(tag)
        else:
            return None
    out.append(text[position:])
    pieces = [piece.replace("\\[", "[") for piece in out]  # rich: an escaped [ that opens no tag
    if emoji and any(_EMOJI_LIKE.search(piece) for piece in pieces):
        return None
    return "".join(pieces)


def markup_plain(text: str) -> str:
    """rich's ``Text.from_markup(text).plain``: ``text`` without its markup, rich loaded only when needed."""
    plain = strip_markup(text)
    if plain is not None:
        return plain
    from rich.text import Text

    return Text.from_markup(text).plain


# rich._wrap's word (leading blanks, the word, its trailing blanks), but a number and its unit
# ("3.1 s:"), a count and its noun ("0 invalid,") and a name and its count ("Secret 2,") are one word
_GLUED = rf"\S*\d{UNIT_AFTER}\S*|{COUNT_BEFORE}\S+|[A-Za-z]\S*{COUNT_AFTER}\S+"
_WORD = re.compile(rf"\s*(?:{_GLUED}|\S+)\s*")
_UNIT_GAP = re.compile(rf"\d{UNIT_AFTER}|{COUNT_BEFORE}|[A-Za-z]{COUNT_AFTER}")


def rich_wrap(line: str, width: int) -> list[str]:
    """``line`` (printable ASCII, no line break) in the lines rich's ``Console.print`` wraps it to,
    except that a number and its unit (``3.1 s``, ``12 ms``) are never parted.

    rich 13-15 (``rich._wrap.divide_line`` with folding, then ``Text.rstrip_end`` and ``truncate``):
    a word (with the blanks after it) goes on the current line when the word without its blanks
    still fits; else a new line starts, and a word wider than ``width`` is cut into ``width``-wide
    pieces. A line keeps its trailing blanks up to ``width``. One ASCII character is one cell.
    """
    breaks = wrap_offsets(line, width)
    lines = [line[a:b] for a, b in zip([0, *breaks], [*breaks, len(line)], strict=True)]
    out = []
    for piece in lines:
        if len(piece) > width:  # rstrip_end: blanks past the width go, then the line is cut to it
            blanks = len(piece) - len(piece.rstrip())
            piece = piece[: len(piece) - min(blanks, len(piece) - width)][:width]
        out.append(piece)
    return out


def wrap_offsets(line: str, width: int) -> list[int]:
    """Where :func:`rich_wrap` breaks ``line`` (``rich._wrap.divide_line``'s offsets, units kept)."""
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


def plain_for_rich(environ: Any, stream: TextIO) -> bool:
    """Whether rich would see no terminal on ``stream`` (rich's ``Console.is_terminal``), so writes no colour."""
    tty_compatible = environ.get("TTY_COMPATIBLE", "")
    if tty_compatible in ("0", "1"):
        return tty_compatible == "0"
    force_color = environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color == ""
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed stream: rich says no terminal too
        return True


class LazyConsole:
    """The ``print``/``out`` of a ``rich.console.Console(file=file, highlight=False, width=width)``.

    A call rich would render unchanged is written to ``file`` directly; any other call, and
    every other attribute, goes to the rich console (created once, on first need, after which
    everything goes there, so the two never interleave). ``width`` ``None`` is rich's own
    (then only soft-wrapped lines are written directly).
    """

    def __init__(self, file: TextIO, width: int | None = None) -> None:
        self.file = file
        self._width = width
        self._rich: Any = None
        self._plain = plain_for_rich(os.environ, file)

    def rich(self) -> Any:
        """The real rich console (created on first call)."""
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(file=self.file, highlight=False, width=self._width)
        return self._rich

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich(), name)

    @property
    def is_terminal(self) -> bool:
        """rich's ``Console.is_terminal``, answered without loading rich until rich is loaded."""
        return bool(self._rich.is_terminal) if self._rich is not None else not self._plain

    def print(self, *objects: Any, **options: Any) -> None:
        """rich's ``Console.print``; a plain string is written as it is where rich would write it so."""
        text = self._as_written(objects, options)
        if text is None:
            self.rich().print(*self._units_kept(objects, options), **options)
            return
        self.file.write(text)
        self.file.flush()

    def out(self, *objects: Any, **options: Any) -> None:
        """rich's ``Console.out`` (no markup, no wrapping); plain text is written as it is."""
        plain = self._rich is None and self._plain and set(options) <= {"highlight", "end"}
        if plain and options.get("highlight") in (None, False) and all(isinstance(o, str) for o in objects):
            text, end = " ".join(objects), options.get("end", "\n")
            if _AS_IS.fullmatch(text) and _AS_IS.fullmatch(end):
                self.file.write(text + end)
                self.file.flush()
                return
        self.rich().out(*objects, **options)

    def labelled(self, label: str, style: str, text: str) -> None:
        """One line ``label text``, ``label`` in ``style`` on a terminal, ``text`` exactly as given.

        No markup, escapes or emoji codes are read in ``text`` (user text quoted in a message:
        ``[red]``, ``\\[``, ``:smile:`` print as they are); the line is not wrapped. Control
        characters are escaped (``\\xNN``): a file name's ESC is no terminal's escape sequence, and
        its line feed (or U+2028) starts no line of its own that reads as another ``error:``.
        """
        from gsvendor.errors import escape_controls, escape_line_breaks

        text = escape_line_breaks(escape_controls(text))
        line = f"{label} {text}"
        if self._rich is None and self._plain and _AS_IS.fullmatch(line) and "\n" not in line:
            self.file.write(line + "\n")
            self.file.flush()
            return
        from rich.text import Text

        self.rich().print(Text.assemble((label, style), " ", text), soft_wrap=True)

    def _units_kept(self, objects: tuple[Any, ...], options: dict[str, Any]) -> tuple[Any, ...]:
        """``objects`` for rich's ``print``: a string rich would wrap between a number and its unit
        becomes a ``Text`` broken where :func:`rich_wrap` breaks it (rich then wraps no further)."""
        if len(objects) != 1 or not isinstance(objects[0], str) or not _UNIT_GAP.search(objects[0]):
            return objects
        if options.get("soft_wrap") or options.get("highlight") or not set(options) <= {"markup", "emoji", "end"}:
            return objects
        from rich.cells import cell_len
        from rich.text import Text

        console = self.rich()
        markup, emoji = options.get("markup"), options.get("emoji")
        text = console.render_str(objects[0], markup=markup, emoji=emoji, highlight=False)
        if any(cell_len(character) != 1 for character in text.plain.replace("\n", "")):
            return objects  # a tab, a wide or a zero-width character: rich's cells, not characters
        lines = [
            part
            for line in text.split("\n", allow_blank=True)
            for part in line.divide(wrap_offsets(line.plain, console.width))
        ]
        return (Text("\n").join(lines),)

    def _as_written(self, objects: tuple[Any, ...], options: dict[str, Any]) -> str | None:
        """What rich's ``print`` would write for these arguments when it is the text itself, else ``None``."""
        if self._rich is not None or not self._plain or len(objects) != 1 or not isinstance(objects[0], str):
            return None
        if not set(options) <= {"soft_wrap", "markup", "highlight", "end", "emoji"} or options.get("highlight"):
            return None
        end, emoji = options.get("end", "\n"), options.get("emoji", True)
        text = strip_markup(objects[0], emoji) if options.get("markup", True) else objects[0]
        if text is None or not _AS_IS.fullmatch(text) or not _AS_IS.fullmatch(end):
            return None
        if emoji and not options.get("markup", True) and _EMOJI_LIKE.search(text):
            return None
        wraps = not options.get("soft_wrap", False)
        if not wraps or not any(len(line) > (self._width or 0) for line in (text + end).split("\n")):
            return text + end
        # rich wraps the text with its end (an end of spaces past the width is dropped): one
        # line ending in "\n" is wrapped here as rich wraps it, anything else goes to rich
        if self._width is None or end != "\n" or "\n" in text:
            return None
        return "\n".join(rich_wrap(text, self._width)) + end
