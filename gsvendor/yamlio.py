"""The one boundary for YAML gsvendor reads (configuration, overlays, lock, upstream values, Chart.yaml,
rendered manifests). libyaml composes recursively in C, so :func:`check_text` first bounds each text's size,
depth, nodes and alias expansion (:class:`YamlLimits`), by cheap upper bounds else by streaming parse events:
too much ends as one :class:`YamlLimitError` (exit 2) naming the file, in linear time."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gsvendor.errors import ConfigError, shorten
from gsvendor.stamps import read_stamp, stamp_path, write_stamp
from gsvendor.validation import line_of, validate

T = TypeVar("T")

MAX_DEPTH = 200  # nesting levels; no chart, CRD or configuration comes near (yaml.v3 allows 10,000)
ALIAS_BUDGET = 100_000  # values aliases may add beyond those written (or as many as written, if more)


@dataclass(frozen=True)
class YamlLimits:
    """What one kind of YAML text may hold: ``max_bytes`` characters, ``max_nodes`` written (scalars and
    collections, not aliases) and ``max_depth`` levels."""

    max_bytes: int
    max_nodes: int
    max_depth: int = MAX_DEPTH


# gsvendor.yaml, overlays, the lock, validation stamps' texts
USER_FILE = YamlLimits(16 * 1024 * 1024, 200_000)
# upstream values.yaml and Chart.yaml, helm's rendered manifests: CRDs reach megabytes
UPSTREAM = YamlLimits(64 * 1024 * 1024, 1_000_000)


class YamlLimitError(ConfigError):
    """A YAML text over its kind's limits (exit 2); the message names the file and the limit."""

    code = "yaml-limit"


def alias_budget(written: int) -> int:
    """How many values a document's aliases may add beyond the ``written`` ones (yaml.v3's rule of
    "excessive aliasing", shared with :mod:`gsvendor.generate.golang.yaml_limits`)."""
    return max(ALIAS_BUDGET, written)


# a flow collection that is not empty ("[]" and "{}" hold no nesting); it opens where a node may
# start: at a line start or break, after one of _BEFORE_FLOW, or after a property (&anchor, !tag)
_OPENER = re.compile(r"\[(?!\])|\{(?!\})")
_BEFORE_FLOW = frozenset("\n\r\x85\u2028\u2029:-,[{?")
_OPENERS_LOOKED_AT = 20_000  # "[" and "{" looked at in Python; past them the text is scanned
_PROPERTY_LOOKBACK = 256  # characters searched back for a property's start; none found counts as one
_TOKEN_BOUNDARY = " \t\n\r[]{},"
_LONE_CR = re.compile("\r(?!\n)")
# an anchor's or alias's name; it counts where a token starts (checked in _aliased: a regular
# expression starting with an alternation would try it at every character of megabytes of CRDs)
_ANCHOR = re.compile(r"&([^\s\[\]{},]+)")
_ALIAS = re.compile(r"\*([^\s\[\]{},]+)")
_TOKEN_START = frozenset(" \t\n\r[{,:")  # ":" for a JSON-like key's value: {"k":*a}
_NAMES_LOOKED_AT = 1000  # past as many names of either kind, the text is scanned


def check_text(text: str, label: str, limits: YamlLimits = UPSTREAM) -> None:
    """Raise :class:`YamlLimitError` (``label: …``) when ``text`` is over ``limits`` or its aliases add
    more values than :func:`alias_budget` allows. Invalid YAML is left to the parser that reads it next."""
    if len(text) > limits.max_bytes:
        raise YamlLimitError(f"{label}: larger than {limits.max_bytes // 1024 // 1024} MiB")
    if _may_exceed(text, limits):
        _scan(text, label, limits)


def _may_exceed(text: str, limits: YamlLimits) -> bool:
    """Whether the cheap upper bounds leave ``text`` possibly over ``limits`` (or aliased)."""
    lines = text.count("\n") + text.count("\r") + 1
    if 2 * (lines + sum(text.count(c) for c in ":-,[{?")) + 2 > limits.max_nodes:
        return True
    flows = _flow_opens(text, limits.max_depth)
    indent = limits.max_depth - flows - 2  # block nesting takes a column per level at least
    # lines broken where indentation is not measured: a lone CR, NEL, LS or PS
    if indent <= 0 or any(c in text for c in "\x85\u2028\u2029") or ("\r" in text and _LONE_CR.search(text)):
        return True
    run = rf"[ \t?:-]{{{indent}}}"  # "\n" first: the regular expression engine then skips to each line
    return bool(re.match(run, text) or re.search(rf"\n{run}", text)) or _aliased(text)


def _flow_opens(text: str, most: int) -> int:
    """An upper bound (capped at ``most``) on ``text``'s flow nesting: the flow collections opening where a node may."""
    count = 0
    for looked, match in enumerate(_OPENER.finditer(text)):
        if looked >= _OPENERS_LOOKED_AT:
            return most
        i = match.start() - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i < 0 or text[i] in _BEFORE_FLOW or _after_property(text, i):
            count += 1
            if count >= most:
                break
    return count


def _after_property(text: str, end: int) -> bool:
    """Whether the token ending at ``end`` may be a property (``&anchor``, ``!tag``, verbatim ``!<a,b>``)."""
    if text[end] == ">":
        return True
    start = max(0, end + 1 - _PROPERTY_LOOKBACK)
    boundary = max(text.rfind(c, start, end + 1) for c in _TOKEN_BOUNDARY)
    if boundary < 0:  # no boundary in the window: the token may be a long property
        return start > 0 or text[0] in "&!"
    return boundary < end and text[boundary + 1] in "&!"


def _aliased(text: str) -> bool:
    """Whether an alias of ``text`` may name one of its anchors (or too many names to tell cheaply)."""
    if "*" not in text or "&" not in text:
        return False
    aliases, anchors = (
        {m[1] for m in regex.finditer(text) if m.start() == 0 or text[m.start() - 1] in _TOKEN_START}
        for regex in (_ALIAS, _ANCHOR)
    )
    return len(aliases) > _NAMES_LOOKED_AT or len(anchors) > _NAMES_LOOKED_AT or bool(aliases & anchors)


def _scan(text: str, label: str, limits: YamlLimits) -> None:
    """Stream ``text``'s parse events, counting nodes, depth and expanded sizes; raise at the first limit."""
    from ruamel.yaml import YAML
    from ruamel.yaml import events as ev
    from ruamel.yaml.error import YAMLError

    starts, ends = (ev.MappingStartEvent, ev.SequenceStartEvent), (ev.MappingEndEvent, ev.SequenceEndEvent)
    cap = 1 << 62  # expanded sizes stop growing here (an alias chain doubles them per level)
    nodes = written = 0
    stack: list[list[Any]] = []  # per open collection: [expanded size so far, anchor]
    sizes: dict[Any, int] = {}  # anchor → expanded size of its node
    try:
        # libyaml's events where it reads the text as ruamel's own parser does
        for event in YAML(typ="safe", pure=libyaml_differs(text)).parse(text):
            kind = type(event)
            if kind in starts or kind is ev.ScalarEvent:
                nodes += 1
                written += 1
                if nodes > limits.max_nodes:
                    raise YamlLimitError(f"{label}: more than {limits.max_nodes} YAML nodes")
            if kind in starts:
                stack.append([1, event.anchor])
                if len(stack) > limits.max_depth:
                    line = event.start_mark.line + 1
                    raise YamlLimitError(f"{label}:{line}: nested more than {limits.max_depth} levels deep")
                continue
            if kind is ev.ScalarEvent:
                size, anchor = 1, event.anchor
            elif kind is ev.AliasEvent:
                if any(entry[1] == event.anchor for entry in stack):  # yaml.v3: "value contains itself"
                    raise YamlLimitError(f"{label}: the alias *{shorten(event.anchor)} is inside the node it names")
                size, anchor = sizes.get(event.anchor, 1), None
            elif kind in ends:
                size, anchor = stack.pop()
            else:
                if kind is ev.DocumentStartEvent:
                    sizes.clear()
                    written = 0
                continue
            if anchor is not None:
                sizes[anchor] = size
            if stack:
                stack[-1][0] = min(cap, stack[-1][0] + size)
            elif size - written > alias_budget(written):
                most = alias_budget(written) + written
                raise YamlLimitError(f"{label}: its aliases expand to more than {most} values (an alias bomb?)")
    except (YAMLError, ValueError, AssertionError, IndexError, KeyError, TypeError):
        return  # invalid: the parser reading it next says where and why


def read_text(path: Path, label: str) -> str:
    """The UTF-8 text of a user file. Raises :class:`ConfigError` ``label: not found`` / ``label: cannot read: …``."""
    try:
        if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
            raise ConfigError(f"{label}: not a regular file", file=label)
        if path.stat().st_size > USER_FILE.max_bytes:
            raise ConfigError(f"{label}: larger than {USER_FILE.max_bytes // 1024 // 1024} MiB", file=label)
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{label}: not found", file=label) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{label}: cannot read: {' '.join(str(exc).split())}", file=label) from None


def load_yaml_document(path: Path, label: str) -> Any:
    """``path`` as one round-trip YAML document (keys keep line numbers); raises :class:`ConfigError`."""
    return _parse_round_trip(read_text(path, label), label)


def invalid_yaml(exc: Exception, label: str) -> str:
    """The one-line message of ruamel's ``YAMLError`` ``exc``: ``label[:line]: invalid YAML: problem``."""
    from ruamel.yaml.error import MarkedYAMLError

    if isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        return f"{label}{line}: invalid YAML: {exc.problem or exc.context or 'syntax error'}"
    return f"{label}: invalid YAML: {shorten(' '.join(str(exc).split()))}"


def _parse_round_trip(text: str, label: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    check_text(text, label, USER_FILE)
    try:
        with constructing():
            return YAML(typ="rt", pure=True).load(text)
    except RecursionError:
        raise ConfigError(f"{label}: nested too deeply", file=label) from None
    except YAMLError as exc:
        raise ConfigError(invalid_yaml(exc, label), file=label) from None


@contextlib.contextmanager
def constructing() -> Iterator[None]:
    """Raise ``YAMLError`` for what ruamel raises on a scalar its tag or form cannot construct (2001-02-30,
    ``!!int abc``, 5000 digits: ``ValueError`` and kin) and for its own slips on odd text (an assertion, or
    ``NotImplementedError`` moving a comment before U+2028), so every reader words it as invalid YAML."""
    from ruamel.yaml.error import YAMLError

    try:
        yield
    except (AssertionError, NotImplementedError) as exc:
        raise YAMLError(f"ruamel cannot read it ({type(exc).__name__})") from None
    except (ValueError, KeyError, IndexError, TypeError, OverflowError) as exc:
        detail = shorten(" ".join(str(exc)[:1000].split()))
        raise YAMLError(f"a value that cannot be read ({type(exc).__name__}: {detail})") from None


def load_plain(text: str, label: str = "YAML text", limits: YamlLimits = UPSTREAM) -> Any:
    """``text`` as ``YAML(typ="safe").load`` gives it: by libyaml (~8× faster) where it reads it as ruamel does,
    else by the pure-Python parser, which words ``YAMLError``; :class:`YamlLimitError` over ``limits``."""
    from ruamel.yaml import YAML

    check_text(text, label, limits)
    if not libyaml_differs(text):
        with contextlib.suppress(Exception):  # else the pure-Python parser decides, and words the error
            return YAML(typ="safe").load(text)
    with constructing():
        return YAML(typ="safe", pure=True).load(text)


def load_all_safe(text: str, label: str = "rendered manifests") -> list[Any]:
    """Every document of ``text`` as ``YAML(typ="safe").load_all`` gives them (a duplicate key is an error).
    Raises :class:`YamlLimitError` naming ``label`` over :data:`UPSTREAM`, ``YAMLError`` for invalid YAML."""
    from ruamel.yaml import YAML

    check_text(text, label)
    with constructing():
        return list(YAML(typ="safe").load_all(text))


def load_single_safe(text: str, inspect: Callable[[Any], T], label: str) -> tuple[Any, T]:
    """``(YAML(typ="safe").load(text), inspect(root node or None))`` from one parse, the node read before its
    merge keys are rewritten. Raises what ``inspect`` raises, and as :func:`load_all_safe` does."""
    from ruamel.yaml import YAML

    check_text(text, label)
    yaml = YAML(typ="safe")
    node = yaml.compose(text)
    seen = inspect(node)
    with constructing():
        return (None if node is None else yaml.constructor.construct_document(node)), seen


# after a blank, a flow indicator or the colon of a JSON-like key ({"a":!!str 3})
_TAG = re.compile(r"(?:^|[\s\[{,:])!")


def libyaml_differs(text: str) -> bool:
    """Whether libyaml may read ``text`` otherwise than ruamel's pure-Python parser: tabs (libyaml accepts some),
    NEL, LS and PS (line breaks in YAML 1.1, not 1.2), byte-order marks (not counted in marks), directives."""
    return any(c in text for c in "\t\ufeff\x85\u2028\u2029") or text.startswith("%") or "\n%" in text


@dataclass
class YamlFile:
    """A validated user YAML file: ``data`` (plain, :func:`to_plain`) and key lines for messages, from a
    round-trip parse made on the first :meth:`line_of` call (a stamped file that loads costs one libyaml parse)."""

    label: str
    text: str
    data: Any
    _document: Any = None

    def line_of(self, path: list[Any]) -> int | None:
        """1-based line of the key at ``path`` (``['charts', 2, 'name']``), ``None`` when not found."""
        if self._document is None:
            self._document = _parse_round_trip(self.text, self.label)
        return line_of(self._document, path)

    def where(self, path: list[Any], suffix: str = "") -> str:
        """``file:line<suffix>`` for a message about the key at ``path``."""
        return f"{self.label}:{self.line_of(path) or '?'}{suffix}"


def load_validated(path: Path, schema: dict[str, Any], label: str, stamps: Path | None = None) -> YamlFile:
    """Read ``path`` as one YAML document valid against ``schema``; raises :class:`ConfigError` as
    :func:`load_yaml_document` and :func:`validate` do, and ``label: the file is empty``. A text stamped
    in ``stamps`` (:mod:`gsvendor.stamps`) is read from it or by libyaml (no jsonschema import: ~70 ms)."""
    text = read_text(path, label)
    stamp = stamp_path(stamps, json.dumps(schema, sort_keys=True), text)
    # an explicit tag (!!str 3) is a TaggedScalar round-trip and a plain value to libyaml
    held = None if "!" in text and _TAG.search(text) else read_stamp(stamp)
    if held is not None and "data" in held:
        return YamlFile(label, text, held["data"])
    if held is not None:
        with contextlib.suppress(Exception):  # else the full path words the error (and checks the limits again)
            if (data := load_plain(text, label, USER_FILE)) is not None:
                return YamlFile(label, text, to_plain(data))
    document = _parse_round_trip(text, label)
    if document is None:
        raise ConfigError(f"{label}: the file is empty", file=label)
    validate(document, schema, label)
    plain = to_plain(document)
    write_stamp(stamp, plain)
    return YamlFile(label, text, plain, document)


def to_plain(node: Any) -> Any:
    """A ruamel round-trip value as plain dicts, lists and scalars."""
    if isinstance(node, dict):
        return {str(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if type(node).__name__ == "ScalarBoolean":  # an anchored boolean (&on true), an int underneath
        return bool(node)
    return next((kind(node) for kind in (bool, int, float, str) if isinstance(node, kind)), node)
