"""What a chart's templates make of the image references in a chart file they read and rewrite by prefix (the
llmisvc presets pipe ``.Files.Get "files/llmisvcconfigs/resources.yaml"`` through ``replace "ghcr.io/llm-d/"
$registry``), read statically from each template's Go text/template tree: the top level, then each ``define`` (its
``.Values`` taken as the chart's). A replacement argument is resolved only when it is a literal, ``.Values.a.b``,
``$.Values.a.b``, ``$var`` or ``$var.a.b`` (``$var`` last set by ``:=``, or ``=`` at the same block level, to such
an operand), optionally with ``default "literal"``; anything else is unresolved: a function call, a parenthesized
pipeline, a variable set in a deeper branch, ``.Values`` under ``range`` or ``with``, a ``replace`` under ``if`` or
``with``, a non-string."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gsvendor.errors import ConfigError
from gsvendor.generate.golang.text_template import parse as go
from gsvendor.yamlio import load_plain

UNKNOWN: Any = object()  # a value that cannot be known without rendering
# an input bound on what the report parses: 256 KiB of actions parse in about half a second
MAX_TEMPLATE = 256 * 1024


class _AnyFunction(dict):  # type: ignore[type-arg]
    """The parser's function table: every name is a function (helm defines far more than are needed)."""

    def __contains__(self, name: object) -> bool:
        return True


@dataclass(frozen=True)
class Replacement:
    """One ``replace OLD NEW`` a template applies to a chart file: ``old`` the literal prefix, ``new`` what it
    becomes (``None``: not resolvable)."""

    old: str
    new: str | None


def _walk(node: Any, keys: list[str]) -> Any:
    """``node.a.b`` as helm reads it: a missing last key is nil, a missing or non-map step unknown."""
    for i, key in enumerate(keys):
        if not isinstance(node, Mapping):
            return UNKNOWN
        if key not in node:
            return None if i == len(keys) - 1 else UNKNOWN
        node = node[key]
    return node


def _empty(value: Any) -> bool:
    """sprig's ``empty``: nil, false, zero, "" and empty collections."""
    return value is None or value is False or value in ("", 0) or (isinstance(value, (Mapping, list)) and not value)


class _Walker:
    """Walks one template's tree, collecting the chart files it reads and the replacements it applies."""

    def __init__(self, values: Any) -> None:
        self.values = values
        self.reads: list[str] = []
        self.replacements: list[Replacement] = []
        # the variables in scope, innermost last, each scope with its block kind
        self.stack: list[tuple[str, dict[str, Any]]] = []

    def block(self, kind: str, nodes: list[Any] | None) -> None:
        self.stack.append((kind, {}))
        for node in nodes or ():
            if isinstance(node, go._Action):
                self.pipe(node.pipe)
            elif isinstance(node, go._TemplateCall) and node.pipe is not None:
                self.pipe(node.pipe, declare=False)
            elif isinstance(node, go._If):
                self.stack.append((node.kind, {}))
                self.pipe(node.pipe, value=UNKNOWN)  # a range's variables hold its elements
                self.block(node.kind, node.body)
                self.block(node.kind, node.else_body)  # what the branch before it declared is not in scope
                self.stack.pop()
        self.stack.pop()

    def pipe(self, pipe: go._Pipe, value: Any = None, declare: bool = True) -> None:
        """Collect the reads and replacements in ``pipe`` (nested pipelines too), then set its variables."""
        for command in pipe.commands:
            args = command.args
            for arg in args:
                if isinstance(arg, go._Pipe):
                    self.pipe(arg, declare=False)
            head, second = args[0], args[1].value if len(args) > 1 and isinstance(args[1], go._Literal) else None
            files = isinstance(head, go._Field) or (isinstance(head, go._Var) and head.name == "$")
            if files and head.names == ["Files", "Get"] and isinstance(second, str):
                self.reads.append(second)
            old = second if isinstance(head, go._Ident) and head.name == "replace" and len(args) > 2 else None
            if isinstance(old, str) and "/" in old:
                # under if or with it may not run at all: what renders depends on what only a render knows
                conditional = any(kind in ("if", "with") for kind, _ in self.stack)
                new = UNKNOWN if conditional else self.operand(args[2])
                self.replacements.append(Replacement(old, new if isinstance(new, str) else None))
        if not declare or not pipe.decl:
            return
        value = self.evaluate(pipe) if value is None else value
        for name in pipe.decl:
            if not pipe.assign:
                self.stack[-1][1][name] = value
                continue
            # set where declared; from inside a deeper block it may or may not run
            depth = next((d for d in range(len(self.stack) - 1, -1, -1) if name in self.stack[d][1]), None)
            if depth is not None:
                self.stack[depth][1][name] = value if depth == len(self.stack) - 1 else UNKNOWN

    def evaluate(self, pipe: go._Pipe) -> Any:
        """The value of ``pipe`` (the grammar in the module's docstring), :data:`UNKNOWN` otherwise."""
        commands = [c.args for c in pipe.commands]
        fallback: Any = UNKNOWN
        if len(commands) == 2 and len(commands[1]) == 2 and _is_default(commands[1]):
            commands, fallback = commands[:1], commands[1][1].value
        elif len(commands) == 1 and len(commands[0]) == 3 and _is_default(commands[0]):
            commands, fallback = [commands[0][2:]], commands[0][1].value
        if len(commands) != 1 or len(commands[0]) != 1:
            return UNKNOWN
        value = self.operand(commands[0][0])
        return fallback if fallback is not UNKNOWN and value is not UNKNOWN and _empty(value) else value

    def operand(self, node: Any) -> Any:
        """The value of one operand: a literal, ``.Values…`` (where the dot is the chart's), ``$.Values…``
        or a variable's value and the keys below it; :data:`UNKNOWN` for anything else."""
        if isinstance(node, go._Literal):
            return node.value
        dot_is_root = not any(kind in ("range", "with") for kind, _ in self.stack)
        if isinstance(node, go._Field) and node.names[0] == "Values" and dot_is_root:
            return _walk(self.values, node.names[1:])
        if isinstance(node, go._Var) and node.name == "$":
            return _walk(self.values, node.names[1:]) if node.names[:1] == ["Values"] else UNKNOWN
        if isinstance(node, go._Var):
            scope = next((s for _, s in reversed(self.stack) if node.name in s), {})
            return _walk(scope.get(node.name, UNKNOWN), node.names)
        return UNKNOWN


def _is_default(args: list[Any]) -> bool:
    return isinstance(args[0], go._Ident) and args[0].name == "default" and isinstance(args[1], go._Literal)


def template_rewrites(text: str, values: Any) -> tuple[list[str], list[Replacement]]:
    """The chart files one template reads literally and the prefix replacements it applies in order, resolved against
    ``values`` (or :data:`UNKNOWN`); ``([], [])`` when it does not parse, is too long or nests too deep."""
    if len(text) > MAX_TEMPLATE:
        return [], []
    walker = _Walker(values)
    try:
        body, defines = go.parse_tree("template", text, _AnyFunction())
        # the walk recurses too: a tree the parse just held (300 nested parentheses) may overflow in it
        walker.block("file", body)
        for nodes in defines.values():  # a define sees no variable declared outside it
            walker.block("define", nodes)
    except (go.TemplateError, RecursionError):
        return [], []
    return walker.reads, walker.replacements


def render_rewrites(files: Mapping[str, bytes]) -> dict[str, tuple[Replacement, ...]]:
    """Chart file → the prefix replacements (``replace`` of a literal holding ``/``) the ``templates/`` reading it
    apply, in order, resolved against values.yaml (read only when needed) where the module's grammar allows."""
    from ruamel.yaml.error import YAMLError

    out: dict[str, tuple[Replacement, ...]] = {}
    values: Any = None
    for path in sorted(files):
        data = files[path]
        if not path.startswith("templates/") or b".Files.Get" not in data or b"replace" not in data:
            continue
        if values is None:  # values.yaml as plain data; UNKNOWN when unreadable
            try:
                loaded = load_plain(files.get("values.yaml", b"").decode("utf-8", "replace"), "values.yaml")
            except (ConfigError, YAMLError, RecursionError, ValueError):
                loaded = UNKNOWN
            values = {} if loaded is None else loaded
        reads, replacements = template_rewrites(data.decode("utf-8", "replace"), values)
        for read in reads if replacements else ():
            out[read] = tuple(dict.fromkeys([*out.get(read, ()), *replacements]))
    return out


def render(written: str, replacements: Iterable[Replacement]) -> tuple[bool, str | None]:
    """``(rewritten, rendered)`` of ``written`` after ``replacements``, each on every occurrence (sprig's ``replace``):
    ``rewritten`` when one matched, ``rendered`` the result (``None`` when a matching one is unresolved)."""
    text, rewritten = written, False
    for replacement in replacements:
        if replacement.old in text:
            if replacement.new is None:
                return True, None
            text, rewritten = text.replace(replacement.old, replacement.new), True
    return rewritten, text
