"""What a chart's templates make of the image references in a chart file they read and rewrite by prefix.

The llmisvc presets' helper reads ``files/llmisvcconfigs/resources.yaml`` with ``.Files.Get`` and
pipes it through ``replace "ghcr.io/llm-d/" $registry | replace "docker.io/vllm/" "gsoci…/"``,
``$registry`` being ``$values.imageRegistry | default "ghcr.io/llm-d/"`` and ``$values``
``.Values.kserve.llmisvcConfigs``. Pure and static (no helm): the templates' actions are read in
order, and a replacement argument is resolved only when it is a quoted literal, ``.Values.a.b``,
``$.Values.a.b``, ``$var`` or ``$var.a.b``, where ``$var`` was last set (``{{ $var := EXPR }}``,
or ``=`` at the same block level) to an EXPR of that same grammar, optionally piped into
``default "literal"`` or called as ``default "literal" EXPR`` (sprig's rule: an empty value takes
the default). Anything else is unresolved: a function call, ``include``, a parenthesized
pipeline, a variable set in a deeper branch, ``.Values`` under ``range`` or ``with`` (where the
dot is another value), a ``replace`` under ``if`` or ``with`` (it may not run), a value that is
not a string. Then :attr:`Replacement.new` is ``None``, and what renders is for check-images to
judge. ``.Values`` inside a ``define`` is read as the chart's values, as the helpers that
``include "name" .`` assume.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gsvendor.errors import ConfigError
from gsvendor.yamlio import load_plain

# one template action from its "{{": a comment (text/template allows one only right after the "{{"),
# else quoted strings skipped whole (a "}}" inside a string ends nothing); matched at each "{{" once,
# in time linear in the action's length
_ACTION = re.compile(r'\{\{((?:-\s+)?/\*.*?\*/\s*-?\s*|(?:"(?:[^"\\]|\\.)*"|`[^`]*`|[^"`}]|\}(?!\}))*+)\}\}', re.S)
_FILES_GET = re.compile(r'\.Files\.Get\s+"([^"\\]+)"')
# sprig's replace OLD NEW with a quoted OLD holding a "/" (a registry or repository prefix), and its NEW
_REPLACE = re.compile(r'\breplace\s+"([^"\\\s]*/[^"\\\s]*)"\s+("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s|()]+|\([^|]*)')
_TRIM = re.compile(r"^-(?=\s)|(?<=\s)-$")  # the trim markers, "{{- " and " -}}"
_ASSIGN = re.compile(r"^\$(\w+)(?:\s*,\s*\$(\w+))?\s*(:?=)\s*(.*)$", re.S)  # range's "$i, $x :=" too
_BLOCK = re.compile(r"^(define|block|if|range|with|else|end)\b")
_PATH = r"(?:\.\w+)*"
_VALUES = re.compile(rf"^\$?\.Values({_PATH})$")
_VARIABLE = re.compile(rf"^\$(\w+)({_PATH})$")
_LITERAL = re.compile(r'^(?:"([^"\\]*)"|`([^`]*)`)$')
_DEFAULT_PIPED = re.compile(r'^(.*?)\s*\|\s*default\s+("[^"\\]*"|`[^`]*`)$', re.S)
_DEFAULT_CALLED = re.compile(r'^default\s+("[^"\\]*"|`[^`]*`)\s+(\S+)$', re.S)


class _Unknown:
    """A value that cannot be known without rendering."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_NIL: Any = None  # a missing map key: helm's nil, which ``default`` replaces


@dataclass(frozen=True)
class Replacement:
    """One ``replace OLD NEW`` a template applies to a chart file's text: ``old`` the quoted prefix,
    ``new`` what it becomes (``None``: not resolvable statically), ``argument`` NEW as written."""

    old: str
    new: str | None
    argument: str


def _literal(text: str) -> str | None:
    match = _LITERAL.match(text)
    if match is None:
        return None
    return match.group(1) if match.group(1) is not None else match.group(2)


def _walk(node: Any, path: str) -> Any:
    """``node.a.b`` as helm reads it: a missing last key is nil, a missing or non-map step is an error."""
    keys = [key for key in path.split(".") if key]
    for i, key in enumerate(keys):
        if node is UNKNOWN or not isinstance(node, Mapping):
            return UNKNOWN
        if key not in node:
            return _NIL if i == len(keys) - 1 else UNKNOWN
        node = node[key]
    return node


def _empty(value: Any) -> bool:
    """sprig's ``empty``: nil, false, zero, "" and empty collections."""
    if value is None or value is False or value == "":
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, (Mapping, list)) and not value


class _Scopes:
    """The variables in scope at one point of a template, innermost last, each scope with its block kind."""

    def __init__(self, values: Any) -> None:
        self.values = values
        self.stack: list[tuple[str, dict[str, Any]]] = [("file", {})]

    def push(self, kind: str) -> None:
        self.stack.append((kind, {}))

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()

    def restart(self) -> None:
        """An ``else``: what the branch before it declared is not in scope."""
        self.stack[-1][1].clear()

    def dot_is_root(self) -> bool:
        return not any(kind in ("range", "with", "block") for kind, _ in self.stack)

    def declare(self, name: str, value: Any) -> None:
        self.stack[-1][1][name] = value

    def assign(self, name: str, value: Any) -> None:
        """``$name = …``: set where declared; from inside a deeper block it may or may not run."""
        for depth, scope in self._visible():
            if name in scope:
                scope[name] = value if depth == len(self.stack) - 1 else UNKNOWN
                return

    def _visible(self) -> list[tuple[int, dict[str, Any]]]:
        """The scopes a variable is looked up in, innermost first: a ``define`` sees none outside it."""
        out = []
        for depth in range(len(self.stack) - 1, -1, -1):
            out.append((depth, self.stack[depth][1]))
            if self.stack[depth][0] == "define":
                break
        return out

    def lookup(self, name: str) -> Any:
        return next((scope[name] for _, scope in self._visible() if name in scope), UNKNOWN)

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` (the grammar in the module's docstring), :data:`UNKNOWN` otherwise."""
        text = expression.strip()
        fallback: str | None = None
        if (piped := _DEFAULT_PIPED.match(text)) is not None:
            text, fallback = piped.group(1).strip(), _literal(piped.group(2))
        elif (called := _DEFAULT_CALLED.match(text)) is not None:
            text, fallback = called.group(2), _literal(called.group(1))
        if (literal := _literal(text)) is not None:
            value: Any = literal
        elif (values := _VALUES.match(text)) is not None:
            root = self.values if text.startswith("$") or self.dot_is_root() else UNKNOWN
            value = _walk(root, values.group(1)) if values.group(1) else root
        elif (variable := _VARIABLE.match(text)) is not None:
            held = self.lookup(variable.group(1))
            value = _walk(held, variable.group(2)) if variable.group(2) else held
        else:
            return UNKNOWN
        if fallback is not None and value is not UNKNOWN and _empty(value):
            return fallback
        return value


def _replacements(action: str, scopes: _Scopes) -> list[Replacement]:
    out = []
    for old, argument in _REPLACE.findall(action):
        argument = argument.strip()
        # under if or with it may not run at all: what renders depends on what only a render knows
        conditional = any(kind in ("if", "with") for kind, _ in scopes.stack)
        value = UNKNOWN if argument.startswith("(") or conditional else scopes.evaluate(argument)
        out.append(Replacement(old, value if isinstance(value, str) else None, argument))
    return out


def _actions(text: str) -> Iterator[re.Match[str]]:
    """The actions of template ``text`` in order, up to the first ``{{`` that opens none: text/template
    fails there ("unclosed action"), so helm renders nothing of the file, and trying every later
    ``{{`` against the rest of the text took quadratic time (40 kB of ``{{`` ran for a minute)."""
    start = text.find("{{")
    while start >= 0:
        match = _ACTION.match(text, start)
        if match is None:
            return
        yield match
        start = text.find("{{", match.end())


def template_rewrites(text: str, values: Any) -> tuple[list[str], list[Replacement]]:
    """The chart files one template reads literally (``.Files.Get "files/…"``) and the prefix
    replacements it applies, in template order, resolved against ``values`` (the chart's
    values.yaml as plain data; :data:`UNKNOWN` when it could not be read)."""
    reads: list[str] = []
    replacements: list[Replacement] = []
    scopes = _Scopes(values)
    for match in _actions(text):
        action = _TRIM.sub("", match.group(1)).strip()
        if action.startswith("/*"):
            continue
        reads += _FILES_GET.findall(action)
        block = _BLOCK.match(action)
        keyword = block.group(1) if block else None
        if keyword == "end":
            scopes.pop()
            continue
        if keyword == "else":
            scopes.restart()
        elif keyword is not None:
            scopes.push(keyword)
        replacements += _replacements(action, scopes)
        pipeline = action[len(keyword) :].strip() if keyword else action
        assignment = _ASSIGN.match(pipeline)
        if assignment is None:
            continue
        name, second, operator, expression = assignment.groups()
        # a range's declared variables hold its elements: not values anyone reads statically
        value = UNKNOWN if keyword is not None or second else scopes.evaluate(expression)
        for each in (name, second) if second else (name,):
            if operator == ":=":
                scopes.declare(each, value)
            else:
                scopes.assign(each, value)
    return reads, replacements


def _values(files: Mapping[str, bytes]) -> Any:
    """The chart's values.yaml as plain data, read through the YAML boundary; :data:`UNKNOWN` when unreadable."""
    from ruamel.yaml.error import YAMLError

    if "values.yaml" not in files:
        return {}
    try:
        values = load_plain(files["values.yaml"].decode("utf-8", "replace"), "values.yaml")
    except (ConfigError, YAMLError, RecursionError, ValueError):
        return UNKNOWN
    return {} if values is None else values


def render_rewrites(files: Mapping[str, bytes]) -> dict[str, tuple[Replacement, ...]]:
    """Chart file → the prefix replacements that the templates reading it apply when rendering, in order.

    Read from each file under ``templates/`` that names a chart file literally
    (``.Files.Get "files/llmisvcconfigs/resources.yaml"``) and replaces a quoted string holding a
    ``/`` (``replace "ghcr.io/llm-d/" $registry``: a registry or repository prefix; ``replace "+" "_"``
    is not one); what each prefix becomes is resolved from the templates and ``files["values.yaml"]``
    where the module's grammar allows (:attr:`Replacement.new` ``None`` otherwise). values.yaml is
    read only when such a template exists.
    """
    out: dict[str, tuple[Replacement, ...]] = {}
    values: Any = None
    for path in sorted(files):
        data = files[path]
        if not path.startswith("templates/") or b".Files.Get" not in data or b"replace" not in data:
            continue
        text = data.decode("utf-8", "replace")
        if not re.search(r'\breplace\s+"[^"]*/', text):
            continue
        if values is None:
            values = _values(files)
        reads, replacements = template_rewrites(text, values)
        for read in reads if replacements else ():
            out[read] = tuple(dict.fromkeys([*out.get(read, ()), *replacements]))
    return out


def render(written: str, replacements: Iterable[Replacement]) -> tuple[bool, str | None]:
    """``(rewritten, rendered)`` of a reference ``written`` in a file that ``replacements`` rewrite.

    Each replacement applies in order to the text so far, as sprig's ``replace`` does (every
    occurrence). ``rewritten``: one of them matched; ``rendered``: the reference after all of them
    (``written`` when none matched), ``None`` when a matching one is unresolved.
    """
    text, rewritten = written, False
    for replacement in replacements:
        if replacement.old not in text:
            continue
        rewritten = True
        if replacement.new is None:
            return True, None
        text = text.replace(replacement.old, replacement.new)
    return rewritten, text
