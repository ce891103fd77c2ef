"""A fast, lazy loader for the block-style YAML controller-gen writes (CustomResourceDefinitions): the
2 MB LLMInferenceServiceConfig CRD in 0.03 s, not ruamel's 0.75 s (benchmarks/README.md). Anything outside
the subset raises :class:`NotSimple` and the caller falls back to ruamel; the result is always what
ruamel's safe loader gives (tests compare both on every upstream CRD)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any


class NotSimple(ValueError):
    """The text uses YAML this loader does not handle; parse it with a full YAML parser."""


_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*\Z")
# plain words YAML 1.1 or 1.2 resolves to something other than a string: handed to the real parser
_BASE_WORDS = ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
_WORDS = frozenset(w for base in _BASE_WORDS for w in (base, base.capitalize(), base.upper()))
_INDICATORS = frozenset("-?[]{}&*!|>%@`,#:")


@functools.lru_cache(maxsize=4096)
def scalar(text: str) -> Any:
    """The value of one plain or quoted scalar ``text`` as ruamel's safe loader resolves it; raises
    :class:`NotSimple` when ``text`` is not a scalar on its own (``a: b``, ``- x``, ``[1]``, …)."""
    if _PLAIN.match(text) and text not in _WORDS:
        return text
    if text in ("{}", "[]"):
        return {} if text == "{}" else []
    indicator = text[0] in _INDICATORS and not (text[0] in "-?:" and len(text) > 1 and text[1] != " ")
    if text[0] not in "'\"" and (": " in text or text.endswith(":") or " #" in text or indicator):
        raise NotSimple(text)
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe").load(text)
    except YAMLError:
        raise NotSimple(text) from None
    if isinstance(value, dict | list):
        raise NotSimple(text)
    return value


def plain(value: Any) -> Any:
    """``value`` with every :class:`LazyMap` in it read into a dict (raises :class:`NotSimple` as reading does)."""
    if isinstance(value, Mapping):
        return {key: plain(value[key]) for key in value}
    return [plain(item) for item in value] if isinstance(value, list) else value


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


class _Lines:
    """A document's lines (indentation, content) and, per line, the next one not deeper (``after``)."""

    def __init__(self, text: str) -> None:
        if "\t" in text:
            raise NotSimple("tab")
        raw = text.split("\n")
        stripped = [line.lstrip(" ") for line in raw]
        keep = [i for i, content in enumerate(stripped) if content and content[0] != "#"]
        self.indents = indents = [len(raw[i]) - len(stripped[i]) for i in keep]
        self.contents = [stripped[i].rstrip(" ") for i in keep]
        self.count = len(self.contents)
        self.after = [self.count] * self.count
        stack: list[int] = []
        for i, depth in enumerate(indents):
            while stack and indents[stack[-1]] >= depth:
                self.after[stack.pop()] = i
            stack.append(i)

    def end(self, start: int, indent: int) -> int:
        """The first line from ``start`` on that is not deeper than ``indent``."""
        j, indents, after = start, self.indents, self.after
        while j < self.count and indents[j] > indent:
            j = after[j]
        return j

    def node(self, i: int, end: int, indent: int, first: str | None = None) -> Any:
        """The node of lines ``[i, end)`` at ``indent``; ``first``: line ``i``'s content after ``- ``."""
        if _is_item(self.contents[i] if first is None else first):
            return self.sequence(i, end, indent, first)
        return LazyMap(self, i, end, indent, first)

    def sequence(self, i: int, end: int, indent: int, first: str | None = None) -> list[Any]:
        out: list[Any] = []
        j = i
        while j < end:
            content = first if (j == i and first is not None) else self.contents[j]
            if ((j != i or first is None) and self.indents[j] != indent) or not _is_item(content):
                raise NotSimple(content)
            stop = self.end(j + 1, indent)
            rest = content[1:].lstrip(" ")
            if not rest:
                out.append(self.node(j + 1, stop, self.indents[j + 1]) if j + 1 < stop else None)
            elif rest[0] in "'\"" or not (": " in rest or rest.endswith(":") or _is_item(rest)):
                if stop != j + 1:
                    raise NotSimple("multi-line scalar")
                out.append(scalar(rest))
            else:
                out.append(self.node(j, stop, indent + len(content) - len(rest), first=rest))
            j = stop
        return out


class LazyMap(Mapping):  # type: ignore[type-arg]
    """A block mapping whose keys are read at once and whose values are parsed on first access."""

    def __init__(self, lines: _Lines, i: int, end: int, indent: int, first: str | None) -> None:
        self._lines = lines
        self._entries: dict[Any, tuple[int, int, str, int]] = {}  # key → its value's lines, inline text, indent
        self._values: dict[Any, Any] = {}
        contents, indents = lines.contents, lines.indents
        j = i
        while j < end:
            content = first if (j == i and first is not None) else contents[j]
            if ((j != i or first is None) and indents[j] != indent) or content[0] in "'\"?-&*!{[|>%@`#":
                raise NotSimple(content)
            key, separator, rest = content.partition(": ")
            if not separator and not content.endswith(":"):
                raise NotSimple(content)
            key, rest = (key, rest.lstrip(" ")) if separator else (content[:-1], "")
            name = scalar(key)
            if isinstance(name, Mapping | list):
                raise NotSimple(content)
            stop = lines.end(j + 1, indent)
            same = not rest and stop < end and indents[stop] == indent and _is_item(contents[stop])
            if same:  # "key:" then "- item" lines at the key's own indentation
                start = stop
                while stop < end and indents[stop] == indent and _is_item(contents[stop]):
                    stop = lines.end(stop + 1, indent)
                self._entries[name] = (start, stop, "", indent)
            else:
                self._entries[name] = (j + 1, stop, rest, indents[j + 1] if j + 1 < stop else indent)
            j = stop

    def __getitem__(self, key: Any) -> Any:
        if key not in self._values:
            start, stop, rest, indent = self._entries[key]
            if rest and (rest[0] in "|>" or stop != start):
                raise NotSimple("block or multi-line scalar")
            self._values[key] = (
                scalar(rest) if rest else self._lines.node(start, stop, indent) if start < stop else None
            )
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[Any]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def load_lazy(text: str) -> Any:
    """Parse one YAML document of the controller-gen subset, every mapping a :class:`LazyMap` (one pass over
    the lines plus what is read; :func:`plain` reads it all): :class:`NotSimple` on anything else, which may
    surface when a value is first read."""
    lines = _Lines(text)
    if not lines.count:
        return None
    if lines.contents[0].startswith(("---", "...", "%")):
        raise NotSimple("document marker or directive")
    return lines.node(0, lines.count, lines.indents[0])
