"""YAML as Go's ``gopkg.in/yaml.v3`` sees it: a node tree with resolved tags and attached comments.

helm-docs and helm-values-schema-json both walk ``yaml.Node`` trees, so their output depends
on yaml.v3 details that Python YAML libraries do not share:

* tag resolution (:func:`resolve`): YAML 1.2 core schema plus yaml.v3's extras (``0o17`` and
  ``017`` octals, ``0b101``, ``1_000``), ``yes``/``on`` stay strings, quoted scalars are strings;
* aliases stay alias nodes (``*x``), ``<<`` keys keep the ``!!merge`` tag;
* comments: ``head_comment`` (lines directly above a key or sequence item), ``line_comment``
  (same line; on the value when it is a scalar or a flow collection on that line, else on the
  key), ``foot_comment`` (a comment block right after an entry, before a blank line or a
  dedent, given to the entry whose indentation the comment has).

The structure comes from ruamel.yaml's event parser; comments are attributed from the source
lines following the rules observable in yaml.v3's own node tests (``node_test.go``, v3 branch).
Comments inside flow collections and document-level head/foot comments are not attached.
"""

from __future__ import annotations

import bisect
import calendar
import math
import re
from dataclasses import dataclass, field
from typing import Any

from gsvendor.generate.golang import yaml_limits as limits
from gsvendor.generate.golang import yaml_scan
from gsvendor.generate.golang.encoding_json import GoStruct, format_float_g
from gsvendor.generate.golang.yaml_scan import c_events as _c_events

# text whose libyaml verdict is not yaml.v3's: tabs yaml.v3 skips in comment runs, BOMs, directives
_VERDICT_UNSAFE = re.compile(r"[\t\ufeff]|^%", re.M)
DOCUMENT = "document"
MAPPING = "mapping"
SEQUENCE = "sequence"
SCALAR = "scalar"
ALIAS = "alias"

NULL_TAG = "!!null"
BOOL_TAG = "!!bool"
STR_TAG = "!!str"
INT_TAG = "!!int"
FLOAT_TAG = "!!float"
TIMESTAMP_TAG = "!!timestamp"
SEQ_TAG = "!!seq"
MAP_TAG = "!!map"
MERGE_TAG = "!!merge"
_LONG_PREFIX = "tag:yaml.org,2002:"


class YAMLError(ValueError):
    """The text is not YAML yaml.v3 accepts; ``line`` is 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.problem = message


@dataclass(eq=False)
class Node:
    """One ``yaml.Node``: ``kind`` is document/mapping/sequence/scalar/alias.

    ``tag`` is the short tag (``!!str``, ``!!int`` …, or an explicit custom tag); ``style`` is
    ``""`` (plain/block), ``single``, ``double``, ``literal``, ``folded`` or ``flow``; ``line`` and
    ``column`` are 1-based. ``content`` holds children (key, value, key, value … for mappings).
    """

    kind: str
    tag: str = ""
    value: str = ""
    style: str = ""
    anchor: str = ""
    alias: Node | None = None
    line: int = 0
    column: int = 0
    content: list[Node] = field(default_factory=list)
    head_comment: str = ""
    line_comment: str = ""
    foot_comment: str = ""
    explicit_tag: bool = False

    def short_tag(self) -> str:
        """``Node.ShortTag()``: the resolved tag; an alias reports its target's."""
        if self.kind == ALIAS:
            return self.alias.short_tag() if self.alias is not None else ""
        return self.tag

    def pairs(self) -> list[tuple[Node, Node]]:
        """The (key, value) pairs of a mapping node."""
        return [(self.content[i], self.content[i + 1]) for i in range(0, len(self.content) - 1, 2)]


# --- tag resolution (yaml.v3 resolve.go) -------------------------------------------------

_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _values, _tag, _value in (
    (("true", "True", "TRUE"), BOOL_TAG, True),
    (("false", "False", "FALSE"), BOOL_TAG, False),
    (("", "~", "null", "Null", "NULL"), NULL_TAG, None),
    ((".nan", ".NaN", ".NAN"), FLOAT_TAG, math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), FLOAT_TAG, math.inf),
    (("-.inf", "-.Inf", "-.INF"), FLOAT_TAG, -math.inf),
    (("<<",), MERGE_TAG, "<<"),
):
    for _v in _values:
        _RESOLVE_MAP[_v] = (_tag, _value)

_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_FLOAT = re.compile(
    r"^[-+]?(?:(?:[0-9](?:_?[0-9])*)?\.?(?:[0-9](?:_?[0-9])*)?(?:[eE][-+]?[0-9](?:_?[0-9])*)?|inf(?:inity)?|nan)$",
    re.IGNORECASE,
)
# yaml.v3 tries the layouts 2006-1-2T15:4:5.999999999Z07:00 (also with "t"), "2006-1-2 15:4:5.999999999"
# and 2006-1-2.
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?(Z|[-+]\d{2}:\d{2})"
    r"|[ ](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?()"
    r")?$"
)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _go_parse_int(text: str, base: int = 0) -> int | None:
    """strconv.ParseInt/ParseUint with base 0 (prefixes 0x, 0o, 0b, leading-0 octal); ``None`` when invalid."""
    if not text:
        return None
    sign = 1
    body = text
    if body[0] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    if base == 0:
        lower = body.lower()
        if lower.startswith("0x"):
            base, body = 16, body[2:]
        elif lower.startswith("0o"):
            base, body = 8, body[2:]
        elif lower.startswith("0b"):
            base, body = 2, body[2:]
        elif len(body) > 1 and body[0] == "0":
            base, body = 8, body[1:]
        else:
            base = 10
    if not body or not all(c in "0123456789abcdefABCDEF"[: base if base <= 10 else base + 6] for c in body):
        return None
    try:
        return sign * int(body, base)
    except ValueError:
        return None


def _int_in_range(value: int | None, text: str) -> int | None:
    if value is None:
        return None
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if 0 <= value <= _UINT64_MAX and not text.startswith("-"):
        return value
    return None


def _timestamp_parts(text: str) -> tuple[tuple[int, ...], str, str] | None:
    match = _TIMESTAMP.match(text)
    if not match:
        return None
    groups = match.groups()
    date = tuple(int(g) for g in groups[:3])
    if groups[3] is not None:
        clock, fraction, zone = groups[3:6], groups[6] or "", groups[7]
    elif groups[8] is not None:
        clock, fraction, zone = groups[8:11], groups[11] or "", "Z"
    else:
        clock, fraction, zone = ("0", "0", "0"), "", "Z"
    fields = date + tuple(int(g) for g in clock)
    year, month, day, hour, minute, second = fields
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        return None

    if day > calendar.monthrange(year, month)[1]:
        return None
    return fields, fraction, zone


def parse_timestamp(text: str) -> tuple[int, ...] | None:
    """The fields (year … second) of a yaml.v3 timestamp, or ``None`` when ``text`` is not one."""
    parts = _timestamp_parts(text)
    return parts[0] if parts else None


def resolve(value: str) -> tuple[str, Any]:
    """Resolve a plain scalar as yaml.v3 does: ``(tag, Go-like value)``.

    Ints are Python ints, floats Python floats, timestamps stay text; anything else is ``!!str``.
    """
    if value in _RESOLVE_MAP:
        return _RESOLVE_MAP[value]
    hint = value[:1]
    if hint == ".":
        number = _go_float(value.replace("_", "")) if _GO_FLOAT.match(value) else None
        return (STR_TAG, value) if number is None else (FLOAT_TAG, number)
    if hint and ((hint.isdigit() and hint.isascii()) or hint in "+-"):
        if parse_timestamp(value):
            return TIMESTAMP_TAG, value
        plain = value.replace("_", "")
        number = _int_in_range(_go_parse_int(plain), plain)
        if number is not None:
            return INT_TAG, number
        number = _go_float(plain) if _YAML_FLOAT.match(plain) else None
        if number is not None:
            return FLOAT_TAG, number
    return STR_TAG, value


def _go_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64) of a decimal float: ``None`` where Go errs, also on overflow
    (``1e400``: ErrRange, so yaml.v3 reads the scalar as a string; Python would give ``inf``)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return None if math.isinf(number) else number


def short_tag(tag: str) -> str:
    """``tag:yaml.org,2002:int`` → ``!!int``; other tags unchanged."""
    return "!!" + tag[len(_LONG_PREFIX) :] if tag.startswith(_LONG_PREFIX) else tag


# --- parsing -----------------------------------------------------------------------------


@dataclass
class _Record:
    kind: str  # blank | comment | content
    line: int
    col: int = 0
    text: str = ""


@dataclass
class _Item:
    line: int
    col: int
    node: Node


class _Builder:
    def __init__(self, text: str, recursive_aliases: bool = False) -> None:
        self.text = text
        self.recursive_aliases = recursive_aliases
        self.lines = text.split("\n")
        self.anchors: dict[str, Node] = {}
        self.items: list[_Item] = []
        # line → [(end column, node)] for nodes a same-line comment can belong to
        self.ends: dict[int, list[tuple[int, Node]]] = {}
        self.covered: set[int] = set()  # lines inside multi-line scalars or flow collections
        self.starts_multiline: dict[int, int] = {}  # line → column where a multi-line node starts
        self.block_headers: dict[int, tuple[int, Node]] = {}
        self.events: list[Any] = []
        self.pos = 0
        self.depth = 0
        self.open: set[int] = set()  # the anchored collections being built: an alias to one is a cycle

    # events ------------------------------------------------------------------------------
    def load_events(self) -> None:
        """The events of the first document: libyaml's (C) where they are provably the same, else ruamel's."""
        events = _c_events(self.text)
        if events is not None:
            self.events = events
            return
        self.load_events_pure()
        if not _VERDICT_UNSAFE.search(self.text) and self.text.endswith("\n"):
            # ruamel reads some text yaml.v3 (libyaml) refuses: a missing key (": x"), and a plain
            # scalar cut by NEL or U+2028/U+2029, line breaks to them (YAML 1.1), not to ruamel (1.2)
            refused = yaml_scan.libyaml_error(self.text)
            if refused is not None:
                raise YAMLError(*refused)

    def load_events_pure(self) -> None:
        """The events of the first document from ruamel's pure-Python parser (its errors are ours)."""
        from ruamel.yaml import YAML
        from ruamel.yaml.error import MarkedYAMLError
        from ruamel.yaml.error import YAMLError as RuamelError
        from ruamel.yaml.reader import ReaderError

        try:
            for event in YAML(typ="safe", pure=True).parse(self.text):
                self.events.append(event)
                if type(event).__name__ == "DocumentEndEvent":
                    break  # yaml.v3 Unmarshal reads the first document only
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            raise YAMLError(exc.problem or exc.context or "syntax error", mark.line + 1 if mark else 0) from None
        except ReaderError as exc:  # a character YAML does not allow (NUL, other C0 controls): yaml.v3's words
            line = self.text.count("\n", 0, exc.position) + 1
            raise YAMLError(f"control characters are not allowed (#x{exc.character:04x})", line) from None
        except RuamelError as exc:
            raise YAMLError(str(exc).replace("\n", " ")) from None

    def peek(self) -> Any:
        return self.events[self.pos] if self.pos < len(self.events) else None

    def next(self) -> Any:
        event = self.events[self.pos]
        self.pos += 1
        return event

    # nodes -------------------------------------------------------------------------------
    def _node(self, kind: str, event: Any) -> Node:
        mark = event.start_mark
        node = Node(kind=kind, line=mark.line + 1, column=mark.column + 1)
        anchor = getattr(event, "anchor", None)
        if anchor and kind != ALIAS:
            node.anchor = anchor
            self.anchors[anchor] = node
        return node

    def _tag(self, node: Node, event: Any, default: str) -> None:
        tag = getattr(event, "tag", None)
        if tag and tag != "!":
            node.tag = short_tag(tag)
            node.explicit_tag = True
        else:
            node.tag = default

    def _span(self, node: Node, start: Any, end: Any) -> None:
        if end.line > start.line:
            self.starts_multiline.setdefault(start.line, start.column)
            self.covered.update(range(start.line + 1, end.line))
        if end.column > 0 or end.line == start.line:
            self.ends.setdefault(end.line, []).append((end.column, node))

    def build(self) -> Node | None:
        kinds = [type(e).__name__ for e in self.events]
        if "DocumentStartEvent" not in kinds:
            return None
        while type(self.peek()).__name__ != "DocumentStartEvent":
            self.next()
        start = self.next()
        document = Node(kind=DOCUMENT, line=start.start_mark.line + 1, column=start.start_mark.column + 1)
        if self.peek() is not None and type(self.peek()).__name__ != "DocumentEndEvent":
            document.content.append(self.node())
        return document

    def node(self) -> Node:
        event = self.next()
        self.depth += 1
        try:  # every reader of the tree recurses: a deeper one is an error, not a RecursionError
            if self.depth > limits.MAX_DEPTH:
                raise YAMLError(f"exceeded max depth of {limits.MAX_DEPTH}", event.start_mark.line + 1)
            return self._event_node(event)
        finally:
            self.depth -= 1

    def _event_node(self, event: Any) -> Node:
        name = type(event).__name__
        if name == "AliasEvent":
            node = self._node(ALIAS, event)
            node.value = event.anchor
            node.alias = self.anchors.get(event.anchor)
            if node.alias is None:
                raise YAMLError(f"unknown anchor '{event.anchor}' referenced", event.start_mark.line + 1)
            if id(node.alias) in self.open:
                if not self.recursive_aliases:
                    raise YAMLError(f"anchor '{event.anchor}' value contains itself", event.start_mark.line + 1)
                node.alias = None  # kept unresolved: no cycle in the tree
            self._span(node, event.start_mark, event.end_mark)
            return node
        if name == "ScalarEvent":
            node = self._node(SCALAR, event)
            node.value = event.value
            style = event.style
            node.style = {"'": "single", '"': "double", "|": "literal", ">": "folded"}.get(style or "", "")
            if node.style:
                self._tag(node, event, STR_TAG)
            else:
                self._tag(node, event, "")
                if not node.tag:
                    node.tag = MERGE_TAG if node.value == "<<" else resolve(node.value)[0]
            zero_width = not node.value and not node.style and event.start_mark.index == event.end_mark.index
            if node.style in ("literal", "folded"):
                self.block_headers[event.start_mark.line] = (event.start_mark.column, node)
                self.covered.update(range(event.start_mark.line + 1, event.end_mark.line))
            elif not zero_width:
                self._span(node, event.start_mark, event.end_mark)
            return node
        if name == "SequenceStartEvent":
            node = self._node(SEQUENCE, event)
            self.open.add(id(node))
            self._tag(node, event, SEQ_TAG)
            flow = bool(event.flow_style)
            if flow:
                node.style = "flow"
            while type(self.peek()).__name__ != "SequenceEndEvent":
                child = self.node()
                node.content.append(child)
                if not flow:
                    line, col = self._dash(child)
                    self.items.append(_Item(line, col, child))
            end = self.next()
            self.open.discard(id(node))
            if flow:
                self._span(node, event.start_mark, end.end_mark)
            return node
        if name == "MappingStartEvent":
            node = self._node(MAPPING, event)
            self.open.add(id(node))
            self._tag(node, event, MAP_TAG)
            flow = bool(event.flow_style)
            if flow:
                node.style = "flow"
            while type(self.peek()).__name__ != "MappingEndEvent":
                key = self.node()
                if not flow:
                    self.items.append(_Item(key.line - 1, key.column - 1, key))
                value = self.node()
                node.content += [key, value]
            end = self.next()
            self.open.discard(id(node))
            if flow:
                self._span(node, event.start_mark, end.end_mark)
            return node
        raise YAMLError(f"unexpected {name}", event.start_mark.line + 1)

    def _dash(self, item: Node) -> tuple[int, int]:
        """Line and column (0-based) of the ``-`` that introduces a block sequence item."""
        line, col = item.line - 1, item.column - 1
        current = line
        while current >= 0:
            text = self.lines[current][:col] if current == line else _before_comment(self.lines[current])
            stripped = text.rstrip()
            if stripped:
                if stripped.endswith("-"):
                    return current, len(stripped) - 1
                break
            current -= 1
        return line, col

    # comments ----------------------------------------------------------------------------
    def records(self) -> list[_Record]:
        records: list[_Record] = []
        for index, text in enumerate(self.lines):
            if index in self.covered:
                records.append(_Record("content", index))
                continue
            stripped = text.strip()
            if not stripped:
                records.append(_Record("blank", index))
                continue
            if stripped.startswith("#") and index not in self.starts_multiline:
                col = len(text) - len(text.lstrip(" \t"))
                # yaml.v3 keeps a comment's trailing blanks (helm-docs' descriptions show them)
                records.append(_Record("comment", index, col, text[col:]))
                continue
            records.append(_Record("content", index))
            comment_col, owner = self._line_comment(index, text)
            if comment_col is None:
                continue
            comment = text[comment_col:]
            if owner is not None:
                # after a "key: &anchor  # text" comment handed to this node, yaml.v3 appends
                owner.line_comment = f"{owner.line_comment}\n{comment}" if owner.line_comment else comment
            elif text[:comment_col].strip().strip("-").strip():
                # "key: &anchor  # text" before a block collection: yaml.v3 makes the comment the
                # line comment of the collection's first entry (its key, or its first item)
                following = [item for item in self.items if item.line > index]
                if following:
                    first = min(following, key=lambda item: (item.line, item.col))
                    first.node.line_comment = first.node.line_comment or comment
            else:
                # "- # text": the comment heads the item's first nested entry
                records.append(_Record("comment", index, comment_col, comment))
        return records

    def _line_comment(self, index: int, text: str) -> tuple[int | None, Node | None]:
        ends = self.ends.get(index, [])
        start = 0
        owner = None
        if ends:
            start, owner = max(ends, key=lambda e: e[0])
        if index in self.block_headers:
            col, node = self.block_headers[index]
            if col >= start:
                cursor = col
                while cursor < len(text) and text[cursor] in "|>+-0123456789":
                    cursor += 1
                start, owner = cursor, node
        elif index in self.starts_multiline and self.starts_multiline[index] >= start:
            return None, None  # the rest of the line belongs to a multi-line scalar or flow collection
        position = _comment_start(text, start)
        if position is None:
            return None, None
        if owner is not None and index not in self.block_headers and _only_properties(text[start:position]):
            return position, None  # "key: &anchor  # text" before a block collection (see records)
        if owner is None and text[:position].strip().strip("-").strip():
            return None, None  # a line with content but nothing we can attach to (e.g. "---")
        return position, owner

    def attach_comments(self) -> None:
        records = self.records()
        # nested keys register before their sequence item; order everything by position
        items = sorted(self.items, key=lambda it: (it.line, it.col))
        starts = [(it.line, it.col) for it in items]
        pending: dict[int, list[tuple[str, bool, bool]]] = {}
        feet: dict[int, list[tuple[str, bool]]] = {}
        seen_content = False
        attached = False
        last_content = -1
        blank_since_last_comment = False
        index = 0
        while index < len(records):
            record = records[index]
            if record.kind == "content":
                seen_content, attached, last_content = True, True, record.line
                blank_since_last_comment = False
                index += 1
                continue
            if record.kind == "blank":
                attached = False
                blank_since_last_comment = True
                index += 1
                continue
            end = index
            while end < len(records) and records[end].kind == "comment" and records[end].col == record.col:
                end += 1
            run = records[index:end]
            text = "\n".join(r.text for r in run)
            column = record.col
            blank_after = end < len(records) and records[end].kind == "blank"
            after = end
            while after < len(records) and records[after].kind == "blank":
                after += 1
            next_record = records[after] if after < len(records) else None
            next_index = bisect.bisect_right(starts, (run[-1].line, 10**9))
            next_item = items[next_index] if next_index < len(items) else None
            target = None
            for candidate in range(bisect.bisect_right(starts, (last_content, 10**9)) - 1, -1, -1):
                if items[candidate].col <= column:
                    target = candidate
                    break
            separated = blank_since_last_comment
            if not seen_content:
                if (
                    next_record is not None
                    and next_record.kind == "content"
                    and not blank_after
                    and next_item is not None
                    and next_item.line == next_record.line
                ):
                    pending.setdefault(next_index, []).append((text, False, separated))
            elif next_item is not None and (
                next_item.col > column or (target is not None and next_item.col > items[target].col)
            ):
                pending.setdefault(next_index, []).append((text, blank_after, separated))
            elif attached and (blank_after or next_item is None or next_item.col < column):
                if target is not None:
                    feet.setdefault(target, []).append((text, separated))
            elif next_item is None:
                pass  # a document foot comment
            elif next_item.col < column:
                if target is not None:
                    feet.setdefault(target, []).append((text, separated))
            else:
                pending.setdefault(next_index, []).append((text, blank_after, separated))
            blank_since_last_comment = False
            index = end
        for item_index, parts in pending.items():
            out = ""
            for number, (text, _blank_after, separated) in enumerate(parts):
                if number:
                    out += "\n\n" if separated else "\n"
                out += text
            if parts[-1][1]:
                out += "\n"
            items[item_index].node.head_comment = out
        for item_index, parts in feet.items():
            out = ""
            for number, (text, separated) in enumerate(parts):
                if number:
                    out += "\n\n" if separated else "\n"
                out += text
            items[item_index].node.foot_comment = out


def _only_properties(between: str) -> bool:
    """Whether ``between`` (after a key, before a comment) holds ``:`` and node properties only."""
    words = between.strip().removeprefix(":").split()
    return bool(words) and all(word[0] in "&!" for word in words)


def _before_comment(line: str) -> str:
    position = _comment_start(line, 0)
    return line if position is None else line[:position]


def _comment_start(text: str, start: int) -> int | None:
    """Index of a ``#`` that starts a comment at or after ``start`` (at line start or after a blank)."""
    index = text.find("#", start)
    while index != -1:
        if index == 0 or text[index - 1] in " \t":
            return index
        index = text.find("#", index + 1)
    return None


def parse(text: str | bytes, *, recursive_aliases: bool = False) -> Node | None:
    """Parse the first YAML document of ``text`` into a yaml.v3-like node tree.

    Returns the document node, or ``None`` for a stream without documents (empty file or only
    comments). CRLF line endings are read as LF. Raises :class:`YAMLError` for invalid YAML.
    An alias inside the collection its anchor names (``a: &x {b: *x}``) is an error, as
    yaml.v3's decoder says; with ``recursive_aliases`` (yaml.v3's parser, which a reader that
    never follows aliases sees) it is an alias node whose ``alias`` is ``None``.
    """
    if isinstance(text, bytes):
        # yaml.v3's reader takes the encoding from a byte-order mark: UTF-16 LE or BE, else UTF-8
        encoding = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}.get(text[:2], "utf-8")
        try:
            text = text.decode(encoding).removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise YAMLError(f"invalid {encoding.upper()[:6]}: {exc}") from None
        if encoding != "utf-8" and "\r" in text:  # yaml.v3 then reads comments unlike its UTF-8 reading
            raise YAMLError("UTF-16 text with CR line ends is not emulated: convert it to UTF-8 or LF")
    text = text.replace("\r\n", "\n")
    try:
        builder, document = _built(text, recursive_aliases)
    except YAMLError as exc:
        # yaml.v3 skips tabs between comment lines and between tokens, ruamel refuses them
        spaced = yaml_scan.separator_tabs(yaml_scan.comment_tabs(text))
        if spaced == text:
            raise
        try:
            builder, document = _built(spaced, recursive_aliases)
        except YAMLError:
            raise exc from None
    if document is not None:
        limits.check_aliasing(document, YAMLError)
        builder.attach_comments()
    return document


def _built(text: str, recursive_aliases: bool) -> tuple[_Builder, Node | None]:
    builder = _Builder(text, recursive_aliases)
    builder.load_events()
    return builder, builder.build()


# --- decoding into Go-like values --------------------------------------------------------


def scalar_value(node: Node) -> Any:
    """The value yaml.v3 decodes a scalar into an ``interface{}``: None, bool, int, float or str.

    Timestamps decode to RFC 3339 text (what ``time.Time`` marshals to), binary to its text.
    """
    tag = node.short_tag()
    if node.kind == ALIAS and node.alias is not None:
        return scalar_value(node.alias)
    if tag == STR_TAG or node.style:
        return node.value
    if tag in ("", NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, TIMESTAMP_TAG):
        resolved_tag, value = resolve(node.value)
        if tag == FLOAT_TAG and resolved_tag == INT_TAG:
            return float(value)
        if resolved_tag == TIMESTAMP_TAG:
            return _rfc3339(node.value)
        if node.explicit_tag and tag != resolved_tag and not (tag == FLOAT_TAG and resolved_tag == INT_TAG):
            raise YAMLError(f"cannot decode {resolved_tag} `{node.value}` as a {tag}", node.line)
        return value
    return node.value


def _rfc3339(text: str) -> str:
    """A timestamp as Go's ``time.Time`` marshals to JSON (RFC 3339, fraction without trailing zeros)."""
    parts = _timestamp_parts(text)
    if parts is None:
        return text
    (year, month, day, hour, minute, second), fraction, zone = parts
    fraction = fraction.rstrip("0")
    if fraction == ".":
        fraction = ""
    if zone in ("+00:00", "-00:00"):
        zone = "Z"
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{fraction}{zone}"


def decode(node: Node | None) -> Any:
    """Decode a node into Go-like data as ``yaml.Unmarshal`` into ``interface{}`` does.

    Mappings become dicts (``<<`` merges applied, explicit keys winning), sequences lists,
    scalars :func:`scalar_value`. Non-string keys are turned into text only when every key is
    a string; otherwise :class:`YAMLError` (Go's JSON encoder cannot write such a map).
    """
    if node is None:
        return None
    if node.kind == DOCUMENT:
        return decode(node.content[0]) if node.content else None
    if node.kind == ALIAS:
        return decode(node.alias)
    if node.kind == SEQUENCE:
        return [decode(child) for child in node.content]
    if node.kind == MAPPING:
        out: dict[str, Any] = {}
        merges: list[Node] = []
        for key, value in node.pairs():
            if key.short_tag() == MERGE_TAG:
                merges.append(value)
                continue
            key_value = decode(key)
            if not isinstance(key_value, str):
                raise YAMLError(f"mapping key {key.value!r} is not a string", key.line)
            out[key_value] = decode(value)
        for merge in merges:
            target = merge.alias if merge.kind == ALIAS else merge
            sources = target.content if target is not None and target.kind == SEQUENCE else [target]
            for source in sources:
                resolved = decode(source)
                if isinstance(resolved, dict):
                    for k, v in resolved.items():
                        out.setdefault(k, v)
                else:
                    raise YAMLError("map merge requires map or sequence of maps as the value", merge.line)
        return out
    return scalar_value(node)


def loads(text: str | bytes) -> Any:
    """``yaml.Unmarshal`` into ``interface{}``: :func:`parse` then :func:`decode`."""
    return decode(parse(text))


# --- emitting (yaml.v3 Marshal, for helm-docs' toYaml / notation types) --------------------

_OLD_BOOLS = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"}
_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def _plain_allowed(text: str) -> bool:
    """A simplified form of libyaml's analysis of whether ``text`` can be written unquoted."""
    if not text or text != text.strip() or (text[0] in _INDICATORS and not (text[0] in "-?:" and len(text) > 1)):
        return False
    if text[0] in "-?:" and len(text) > 1 and text[1] == " ":
        return False
    return not (": " in text or " #" in text or text.endswith(":") or "\t" in text or "\n" in text)


def _double_quoted(text: str) -> str:
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or char == "\x7f":
            out.append(f"\\x{ord(char):02X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _string_scalar(text: str, indent: int) -> str:
    if "\n" in text:
        chomp = "" if text.endswith("\n") and not text.endswith("\n\n") else "-" if not text.endswith("\n") else "+"
        body = text[:-1] if text.endswith("\n") else text
        pad = " " * (indent + 4)
        return "|" + chomp + "".join("\n" + (pad + line if line else "") for line in body.split("\n"))
    if resolve(text)[0] != STR_TAG or text in _OLD_BOOLS or _BASE60.match(text):
        return _double_quoted(text)
    if _plain_allowed(text):
        return text
    return "'" + text.replace("'", "''") + "'"


def _scalar_text(value: Any, indent: int) -> str:

    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return format_float_g(value)
    return _string_scalar(str(value), indent)


def dump(value: Any, indent: int = 0) -> str:
    """YAML text of Go-like data as yaml.v3's ``Marshal`` lays it out (4-space indentation,
    map keys sorted, strings quoted only where needed). Simplified: libyaml's full scalar
    analysis is approximated."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}\n"
        out = ""
        for key in value if isinstance(value, GoStruct) else sorted(value, key=lambda k: str(k)):
            item = value[key]
            key_text = _scalar_text(key, indent)
            if isinstance(item, dict | list) and item:
                out += f"{pad}{key_text}:\n" + dump(item, indent + 4)
            else:
                out += f"{pad}{key_text}: " + dump(item, indent).lstrip(" ")
        return out
    if isinstance(value, list):
        if not value:
            return pad + "[]\n"
        out = ""
        for item in value:
            body = dump(item, indent + 2)
            out += f"{pad}- " + body[indent + 2 :]
        return out
    return pad + _scalar_text(value, indent) + "\n"
