"""Go text/template (Go 1.22, as helm-docs v1.14.2 runs it): execution."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from gsvendor.generate.golang.text_template.funcs import BUILTINS
from gsvendor.generate.golang.text_template.parse import (
    MAX_DEPTH,
    NO_VALUE,
    TemplateError,
    _Action,
    _Chain,
    _Command,
    _Dot,
    _Field,
    _Ident,
    _If,
    _Literal,
    _Loop,
    _Pipe,
    _TemplateCall,
    _Text,
    _Var,
    parse_tree,
)
from gsvendor.generate.golang.text_template.values import _MISSING, go_print, go_type, is_true
from gsvendor.generate.golang.text_template.values import PLAIN as _PLAIN

_TOO_DEEP = "nested too deeply for gsvendor (parentheses, pipelines or blocks inside each other)"


_MANY = 1 << 30
_ARITIES: dict[Callable[..., Any], tuple[int, int] | None] = {}


def _arity(func: Callable[..., Any]) -> tuple[int, int] | None:
    """(fewest, most) arguments ``func`` takes (``most`` :data:`_MANY` when variadic), as Go checks a
    function's arguments before calling it; ``None`` where Python cannot tell."""
    if func not in _ARITIES:
        try:
            params = inspect.signature(func).parameters.values()
        except (TypeError, ValueError):
            _ARITIES[func] = None
            return None
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        fewest = sum(1 for p in positional if p.default is p.empty)
        variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
        _ARITIES[func] = (fewest, _MANY if variadic else len(positional))
    return _ARITIES[func]


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Template:
    """A set of named templates parsed from one or more texts, executed against Python data.

    ``Template(name, funcs)`` then :meth:`parse` each text (later definitions of a name replace
    earlier ones; a text's own top-level body becomes ``name``'s body unless it is blank, as
    in Go), then :meth:`execute`.
    """

    def __init__(self, name: str, funcs: dict[str, Callable[..., Any]] | None = None) -> None:
        self.name = name
        self.funcs: dict[str, Callable[..., Any]] = {**BUILTINS, **(funcs or {})}
        # a name maps to parsed nodes, or to a Python function (data, render) -> text
        self.templates: dict[str, Any] = {}
        self._depth = 0

    def parse(self, text: str) -> Template:
        """Parse ``text``; raises :class:`TemplateError` on syntax errors and on nesting deeper than
        Python's stack reads (Go parses thousands of ``(`` or ``{{ if }}`` levels; gsvendor about 300)."""
        try:
            body, defines = parse_tree(self.name, text, self.funcs)
        except RecursionError:
            raise TemplateError(f"template: {self.name}: {_TOO_DEEP}") from None
        self.templates.update(defines)
        blank = all(isinstance(n, _Text) and not n.text.strip() for n in body)
        if not blank or self.name not in self.templates:
            self.templates[self.name] = body
        return self

    def execute(self, data: Any, name: str | None = None) -> str:
        """Run template ``name`` (default: the main one) with ``data`` as dot; returns the text."""
        out: list[str] = []
        name = name or self.name
        if name not in self.templates:
            raise TemplateError(f'template: no template "{name}" associated with template "{self.name}"')
        target = self.templates[name]
        if self._depth >= MAX_DEPTH:
            raise TemplateError(f"template: {name}: exceeded maximum template depth ({MAX_DEPTH})")
        self._depth += 1
        try:
            if callable(target):
                return str(target(data, self.execute_named))
            self._run(target, data, [{"$": data}], out, name)
        except RecursionError:
            raise TemplateError(f"template: {name}: {_TOO_DEEP}") from None
        finally:
            self._depth -= 1
        return "".join(out)

    def execute_named(self, name: str, data: Any) -> str:
        """Run the template called ``name`` with ``data`` (what ``{{ template "name" data }}`` does)."""
        return self.execute(data, name)

    # internals -----------------------------------------------------------------------------
    def _run(self, nodes: list[Any], dot: Any, scopes: list[dict[str, Any]], out: list[str], name: str) -> None:
        for node in nodes:
            if isinstance(node, _Text):
                out.append(node.text)
            elif isinstance(node, _Action):
                value = self._pipe(node.pipe, dot, scopes, name)
                if not node.pipe.decl:
                    out.append(go_print(value))
            elif isinstance(node, _If):
                self._control(node, dot, scopes, out, name)
            elif isinstance(node, _TemplateCall):
                if node.name not in self.templates:
                    raise TemplateError(f'template: {name}:{node.line}: no such template "{node.name}"')
                arg = self._pipe(node.pipe, dot, scopes, name) if node.pipe else None
                out.append(self.execute(arg, node.name))
            elif isinstance(node, _Loop):
                raise _Break() if node.kind == "break" else _Continue()

    def _control(self, node: _If, dot: Any, scopes: list[dict[str, Any]], out: list[str], name: str) -> None:
        scopes = [*scopes, {}]
        if node.kind == "range":
            value = self._pipe(node.pipe, dot, scopes, name, declare=False)
            entries: Iterable[tuple[Any, Any]]
            if isinstance(value, dict):
                entries = [(k, value[k]) for k in sorted(value)]
            elif isinstance(value, list | tuple):
                entries = list(enumerate(value))
            elif isinstance(value, int) and not isinstance(value, bool):
                # counted as it goes (Go 1.22's range over an int): {{ range 1000000000000 }} with a
                # {{ break }} ends at once, without a list of every number first
                entries = zip(range(value), range(value), strict=True) if value > 0 else []
            elif value is None or value is NO_VALUE:
                entries = []
            else:
                shown = go_print(value)  # the .Files object prints every file's bytes: one short line
                shown = shown if len(shown) <= 200 else f"{shown[:200]}… ({go_type(value)})"
                raise TemplateError(f"template: {name}:{node.pipe.line}: range can't iterate over {shown}")
            if entries == []:
                if node.else_body is not None:
                    self._run(node.else_body, dot, scopes, out, name)
                return
            for key, element in entries:
                if len(node.pipe.decl) == 1:
                    scopes[-1][node.pipe.decl[0]] = element
                elif len(node.pipe.decl) == 2:
                    scopes[-1][node.pipe.decl[0]] = key
                    scopes[-1][node.pipe.decl[1]] = element
                try:
                    self._run(node.body, element, scopes, out, name)
                except _Break:
                    break
                except _Continue:
                    continue
            return
        value = self._pipe(node.pipe, dot, scopes, name)
        if is_true(value):
            self._run(node.body, value if node.kind == "with" else dot, scopes, out, name)
        elif node.else_body is not None:
            self._run(node.else_body, dot, scopes, out, name)

    def _pipe(self, pipe: _Pipe, dot: Any, scopes: list[dict[str, Any]], name: str, declare: bool = True) -> Any:
        value: Any = _MISSING
        for command in pipe.commands:
            value = self._command(command, dot, scopes, name, value)
        if pipe.decl and declare:
            target = pipe.decl[0]
            if pipe.assign:
                for scope in reversed(scopes):
                    if target in scope:
                        scope[target] = value
                        break
            else:
                scopes[-1][target] = value
        return value

    def _command(self, command: _Command, dot: Any, scopes: list[dict[str, Any]], name: str, final: Any) -> Any:
        first = command.args[0]
        line = command.line
        if isinstance(first, _Ident) and first.name in ("and", "or"):
            return self._logic(first.name, command, dot, scopes, name, final)
        rest = [self._arg(a, dot, scopes, name) for a in command.args[1:]]
        if final is not _MISSING:
            rest.append(final)
        if isinstance(first, _Ident):
            func = self.funcs[first.name]
            arity = _arity(func)
            if arity is not None and not arity[0] <= len(rest) <= arity[1]:
                want = f"at least {arity[0]}" if arity[1] == _MANY else str(arity[0])
                raise TemplateError(
                    f"template: {name}:{line}: wrong number of args for {first.name}: want {want} got {len(rest)}"
                )
            try:
                return func(*rest)
            except TemplateError:
                raise
            except Exception as exc:  # a function's own failure, as Go reports it
                reason = "out of memory" if isinstance(exc, MemoryError) else exc
                raise TemplateError(f"template: {name}:{line}: error calling {first.name}: {reason}") from None
        if isinstance(first, _Field):
            return self._fields(dot, first.names, rest, name, line)
        if isinstance(first, _Var):
            base = self._lookup(first.name, scopes, name, line)
            return self._fields(base, first.names, rest, name, line) if first.names else base
        if isinstance(first, _Chain):
            base = self._arg(first.node, dot, scopes, name)
            return self._fields(base, first.names, rest, name, line)
        if rest:
            raise TemplateError(f"template: {name}:{line}: can't give argument to non-function")
        return self._arg(first, dot, scopes, name)

    def _logic(self, op: str, command: _Command, dot: Any, scopes: list[dict[str, Any]], name: str, final: Any) -> Any:
        # Go 1.18+: and/or stop evaluating at the first deciding argument
        args: list[Any] = list(command.args[1:])
        if final is not _MISSING:
            args.append(_Literal(final))
        if not args:
            message = f"wrong number of args for {op}: want at least 1 got 0"
            raise TemplateError(f"template: {name}:{command.line}: {message}")
        value = None
        for arg in args:
            value = self._arg(arg, dot, scopes, name)
            if is_true(value) == (op == "or"):
                return value
        return value

    def _arg(self, node: Any, dot: Any, scopes: list[dict[str, Any]], name: str) -> Any:
        if isinstance(node, _Literal):
            return node.value
        if isinstance(node, _Dot):
            return dot
        if isinstance(node, _Field):
            return self._fields(dot, node.names, [], name, 0)
        if isinstance(node, _Var):
            base = self._lookup(node.name, scopes, name, 0)
            return self._fields(base, node.names, [], name, 0) if node.names else base
        if isinstance(node, _Pipe):
            return self._pipe(node, dot, scopes, name)
        if isinstance(node, _Chain):
            return self._fields(self._arg(node.node, dot, scopes, name), node.names, [], name, 0)
        if isinstance(node, _Ident):
            return self.funcs[node.name]()
        raise TemplateError(f"template: {name}: cannot evaluate {node!r}")

    @staticmethod
    def _lookup(var: str, scopes: list[dict[str, Any]], name: str, line: int) -> Any:
        for scope in reversed(scopes):
            if var in scope:
                return scope[var]
        raise TemplateError(f'template: {name}:{line}: undefined variable "{var}"')

    @staticmethod
    def _fields(base: Any, names: list[str], args: list[Any], name: str, line: int) -> Any:
        value = base
        for index, field_name in enumerate(names):
            last = index == len(names) - 1
            if value is None or value is NO_VALUE:
                raise TemplateError(f"template: {name}:{line}: nil pointer evaluating interface {{}}.{field_name}")
            if isinstance(value, dict):
                value = value.get(field_name, NO_VALUE)
                if last and args:
                    raise TemplateError(f"template: {name}:{line}: {field_name} is not a method but has arguments")
                continue
            # Go's strings, numbers and slices have no fields or methods (Python's str.upper, list.clear …)
            if field_name.startswith("_") or isinstance(value, _PLAIN) or not hasattr(value, field_name):
                raise TemplateError(
                    f"template: {name}:{line}: can't evaluate field {field_name} in type {go_type(value)}"
                )
            attr = getattr(value, field_name)
            if callable(attr):
                given = args if last else []
                arity = _arity(attr)
                if arity is not None and not arity[0] <= len(given) <= arity[1]:
                    want = f"at least {arity[0]}" if arity[1] == _MANY else str(arity[0])
                    raise TemplateError(
                        f"template: {name}:{line}: wrong number of args for {field_name}: want {want} got {len(given)}"
                    )
                try:
                    value = attr(*given)
                except TypeError as exc:
                    raise TemplateError(
                        f"template: {name}:{line}: wrong arguments for method {field_name}: {exc}"
                    ) from None
            else:
                if last and args:
                    raise TemplateError(f"template: {name}:{line}: {field_name} is not a method but has arguments")
                value = attr
        return value
