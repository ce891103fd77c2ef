"""A subset of Go's ``text/template``: enough to run helm-docs' templates byte for byte.

Supported (semantics of Go 1.22 ``text/template``):

* text and actions ``{{ … }}`` with trim markers ``{{-`` / ``-}}`` and comments ``{{/* … */}}``;
* ``define``, ``template``, ``block``, ``if`` / ``else if`` / ``else``, ``range`` (slices, maps in
  key order, integers; ``$i, $v :=``; ``else``; ``break``/``continue``), ``with`` / ``else with``;
* pipelines with ``|``, parenthesised pipelines, variables (``$``, ``$x :=``, ``$x =``), field and
  key chains (``.A.B``, ``$x.A``, ``(…).A``), method calls with arguments, string/raw/char/number
  literals, ``true``/``false``/``nil``;
* the builtins (``and or not len index print printf println eq ne lt le gt ge``) and the Sprig
  functions helm-docs templates use (``default empty replace trim* has* upper lower title
  indent nindent quote squote toJson toPrettyJson fromJson toYaml join split* list dict …``).

Data is Python: dicts are Go maps (missing keys print ``<no value>``), other objects are Go
structs (fields are attributes; a missing one is an execution error), callables are methods.
Errors raise :class:`TemplateError` with the template name and line, like Go's messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gsvendor import gojson

TRIM_SPACE = " \t\r\n"
MAX_DEPTH = 100  # nested {{template}} calls (Go allows 100000; a Python stack does not)


class TemplateError(Exception):
    """A parse or execution error: ``template: NAME:LINE: message``."""


class _NoValue:
    """What a missing map key evaluates to; prints as Go's ``<no value>``."""

    def __repr__(self) -> str:
        return "<no value>"


NO_VALUE = _NoValue()


# --- lexing ------------------------------------------------------------------------------


@dataclass
class _Tok:
    kind: str  # text, open, close, ident, field, var, string, number, char, bool?, pipe, lparen, rparen,
    # declare, assign, comma, dot, space, eof
    value: str
    line: int


_ACTION_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n]+)
  | (?P<declare>:=)
  | (?P<assign>=)
  | (?P<pipe>\|)
  | (?P<lparen>\()
  | (?P<rparen>\))
  | (?P<comma>,)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<raw>`[^`]*`)
  | (?P<char>'(?:[^'\\\n]|\\.)+')
  | (?P<number>[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?)i?)
  | (?P<var>\$[A-Za-z0-9_]*)
  | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+)
  | (?P<dot>\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    """,
    re.VERBOSE,
)


def _lex(name: str, text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    line = 1
    while pos < len(text):
        start = text.find("{{", pos)
        if start == -1:
            tokens.append(_Tok("text", text[pos:], line))
            break
        body_start = start + 2
        trim_left = (
            text.startswith("-", body_start) and body_start + 1 < len(text) and text[body_start + 1] in " \t\r\n"
        )
        chunk = text[pos:start]
        if trim_left:
            chunk = chunk.rstrip(TRIM_SPACE)
            body_start += 1
        if chunk:
            tokens.append(_Tok("text", chunk, line))
        line += text[pos:start].count("\n")
        cursor = body_start
        # comment: {{/* … */}} (optionally with trim markers around it)
        probe = cursor
        while probe < len(text) and text[probe] in " \t\r\n" and trim_left:
            probe += 1
        if text.startswith("/*", probe):
            end = text.find("*/", probe + 2)
            if end == -1:
                raise TemplateError(f"template: {name}:{line}: unclosed comment")
            after = end + 2
            trim_right = False
            rest = text[after:]
            if rest.startswith(" -}}") or re.match(r"[ \t\r\n]+-}}", rest):
                trim_right = True
                after = text.index("-}}", after) + 3
            elif rest.startswith("}}"):
                after += 2
            else:
                raise TemplateError(f"template: {name}:{line}: comment ends before closing delimiter")
            line += text[start:after].count("\n")
            pos = after
            if trim_right:
                while pos < len(text) and text[pos] in TRIM_SPACE:
                    if text[pos] == "\n":
                        line += 1
                    pos += 1
            continue
        tokens.append(_Tok("open", "{{", line))
        trim_right = False
        while True:
            if cursor >= len(text):
                raise TemplateError(f"template: {name}:{line}: unclosed action")
            if text.startswith("}}", cursor):
                cursor += 2
                break
            match_trim = re.match(r"[ \t\r\n]+-}}", text[cursor:])
            if match_trim:
                line += match_trim.group(0).count("\n")
                cursor += match_trim.end()
                trim_right = True
                break
            match = _ACTION_TOKEN.match(text, cursor)
            if not match:
                raise TemplateError(f"template: {name}:{line}: unexpected {text[cursor]!r} in command")
            kind = match.lastgroup or ""
            value = match.group(0)
            if kind == "space":
                tokens.append(_Tok("space", value, line))
            elif kind == "raw":
                tokens.append(_Tok("string", value, line))
            else:
                tokens.append(_Tok(kind, value, line))
            line += value.count("\n")
            cursor = match.end()
        tokens.append(_Tok("close", "}}", line))
        pos = cursor
        if trim_right:
            while pos < len(text) and text[pos] in TRIM_SPACE:
                if text[pos] == "\n":
                    line += 1
                pos += 1
    tokens.append(_Tok("eof", "", line))
    return tokens


# --- AST ---------------------------------------------------------------------------------


@dataclass
class _Text:
    text: str


@dataclass
class _Field:
    names: list[str]


@dataclass
class _Var:
    name: str
    names: list[str] = field(default_factory=list)


@dataclass
class _Dot:
    pass


@dataclass
class _Ident:
    name: str


@dataclass
class _Literal:
    value: Any


@dataclass
class _Chain:
    node: Any
    names: list[str]


@dataclass
class _Command:
    args: list[Any]
    line: int


@dataclass
class _Pipe:
    decl: list[str]
    assign: bool
    commands: list[_Command]
    line: int


@dataclass
class _Action:
    pipe: _Pipe


@dataclass
class _If:
    kind: str  # if | with | range
    pipe: _Pipe
    body: list[Any]
    else_body: list[Any] | None


@dataclass
class _TemplateCall:
    name: str
    pipe: _Pipe | None
    line: int


@dataclass
class _Loop:
    kind: str  # break | continue


# --- parsing -----------------------------------------------------------------------------

_STRING_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def go_unquote(text: str) -> str:
    """A Go string literal (``\"…\"`` with Go escapes, or a raw `` `…` ``) → its value; ``ValueError`` if malformed."""
    if text.startswith("`"):
        return text[1:-1]
    body = text[1:-1]
    out = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES[nxt])
            i += 2
        elif nxt in "\"'":
            out.append(nxt)
            i += 2
        elif nxt == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "U":
            out.append(chr(int(body[i + 2 : i + 10], 16)))
            i += 10
        elif nxt in "01234567":
            out.append(chr(int(body[i + 1 : i + 4], 8)))
            i += 4
        else:
            raise ValueError(f"invalid escape \\{nxt}")
    return "".join(out)


def _number(text: str) -> int | float:
    clean = text.replace("_", "")
    try:
        return int(clean, 0)
    except ValueError:
        return float(clean)


class _Parser:
    def __init__(self, name: str, text: str, funcs: dict[str, Callable[..., Any]]) -> None:
        self.name = name
        self.tokens = _lex(name, text)
        self.pos = 0
        self.funcs = funcs
        self.defines: dict[str, list[Any]] = {}
        self.vars: list[list[str]] = [["$"]]
        self.range_depth = 0

    def error(self, message: str, line: int | None = None) -> TemplateError:
        tok = self.tokens[min(self.pos, len(self.tokens) - 1)]
        return TemplateError(f"template: {self.name}:{line or tok.line}: {message}")

    def peek(self, skip_space: bool = True) -> _Tok:
        pos = self.pos
        while skip_space and self.tokens[pos].kind == "space":
            pos += 1
        return self.tokens[pos]

    def next(self, skip_space: bool = True) -> _Tok:
        while skip_space and self.tokens[self.pos].kind == "space":
            self.pos += 1
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, kind: str, context: str) -> _Tok:
        tok = self.next()
        if tok.kind != kind:
            raise self.error(f"unexpected {tok.value or tok.kind!r} in {context}", tok.line)
        return tok

    # structure -------------------------------------------------------------------------
    def parse(self) -> list[Any]:
        body, end = self.list_until(top=True)
        if end is not None:
            raise self.error(f"unexpected {{{{{end}}}}}")
        return body

    def list_until(self, top: bool = False) -> tuple[list[Any], str | None]:
        """Parse nodes until ``{{end}}`` / ``{{else …}}``; returns the nodes and the keyword."""
        nodes: list[Any] = []
        while True:
            tok = self.next(skip_space=False)
            if tok.kind == "eof":
                if not top:
                    raise self.error("unexpected EOF")
                return nodes, None
            if tok.kind == "text":
                nodes.append(_Text(tok.value))
                continue
            # an action
            keyword = self.peek()
            if keyword.kind == "ident" and keyword.value in ("end", "else"):
                self.next()
                if keyword.value == "end":
                    self.expect("close", "end")
                return nodes, keyword.value
            node = self.action(top)
            if node is not None:
                nodes.append(node)

    def action(self, top: bool) -> Any:
        tok = self.peek()
        if tok.kind == "ident":
            word = tok.value
            if word == "define":
                self.next()
                if not top:
                    raise self.error("unexpected define in action")
                name = go_unquote(self.expect("string", "define clause").value)
                self.expect("close", "define clause")
                saved, self.vars = self.vars, [["$"]]
                body, end = self.list_until()
                self.vars = saved
                if end != "end":
                    raise self.error("unexpected {{else}} in define")
                self.defines[name] = body
                return None
            if word in ("if", "with", "range"):
                self.next()
                return self.control(word)
            if word in ("template", "block"):
                self.next()
                name_tok = self.next()
                if name_tok.kind != "string":
                    raise self.error(f"unexpected {name_tok.value!r} in {word} clause", name_tok.line)
                name = go_unquote(name_tok.value)
                pipe = None
                if self.peek().kind != "close":
                    pipe = self.pipeline(word)
                else:
                    self.next()
                if word == "block":
                    saved, self.vars = self.vars, [["$"]]
                    body, end = self.list_until()
                    self.vars = saved
                    if end != "end":
                        raise self.error("unexpected {{else}} in block")
                    self.defines[name] = body
                return _TemplateCall(name, pipe, name_tok.line)
            if word in ("break", "continue"):
                self.next()
                if not self.range_depth:
                    raise self.error(f"{{{{{word}}}}} outside {{{{range}}}}", tok.line)
                self.expect("close", word)
                return _Loop(word)
        return _Action(self.pipeline("command"))

    def control(self, kind: str) -> _If:
        self.vars.append([])
        pipe = self.pipeline(kind, allow_decl=True)
        self.range_depth += kind == "range"
        body, end = self.list_until()
        self.range_depth -= kind == "range"
        else_body = None
        if end == "else":
            following = self.peek()
            if following.kind == "ident" and following.value in ("if", "with") and following.value == kind:
                # {{else if …}} / {{else with …}}: a nested control that shares our {{end}}
                self.next()
                else_body = [self.control(kind)]
            else:
                self.expect("close", "else")
                else_body, end2 = self.list_until()
                if end2 != "end":
                    raise self.error("expected end; found {{else}}")
        self.vars.pop()
        return _If(kind, pipe, body, else_body)

    def pipeline(self, context: str, allow_decl: bool = False) -> _Pipe:
        line = self.peek().line
        decl: list[str] = []
        assign = False
        # variable declarations: $x := / $x = / $i, $v :=
        save = self.pos
        names = []
        tok = self.peek()
        if tok.kind == "var":
            self.next()
            names.append(tok.value)
            if self.peek().kind == "comma" and context == "range":
                self.next()
                second = self.expect("var", "range declaration")
                names.append(second.value)
            op = self.peek()
            if op.kind in ("declare", "assign"):
                self.next()
                decl = names
                assign = op.kind == "assign"
                if not assign:
                    self.vars[-1].extend(names)
            else:
                self.pos = save
        commands: list[_Command] = []
        while True:
            commands.append(self.command())
            tok = self.next()
            if tok.kind == "close" or tok.kind == "rparen":
                if tok.kind == "rparen":
                    self.pos -= 1
                break
            if tok.kind != "pipe":
                raise self.error(f"unexpected {tok.value!r} in {context}", tok.line)
        if not commands or not commands[0].args:
            raise self.error(f"missing value for {context}", line)
        return _Pipe(decl, assign, commands, line)

    def command(self) -> _Command:
        line = self.peek().line
        args: list[Any] = []
        while True:
            tok = self.peek(skip_space=True)
            if tok.kind in ("close", "pipe", "rparen", "eof"):
                break
            args.append(self.operand())
            following = self.peek(skip_space=False)
            if following.kind not in ("space", "close", "pipe", "rparen"):
                raise self.error(f"unexpected {following.value!r} in operand", following.line)
        if not args:
            raise self.error("empty command", line)
        return _Command(args, line)

    def operand(self) -> Any:
        tok = self.next()
        node: Any
        if tok.kind == "field":
            node = _Field(tok.value[1:].split("."))
        elif tok.kind == "dot":
            node = _Dot()
        elif tok.kind == "var":
            if not any(tok.value in scope for scope in self.vars):
                raise self.error(f'undefined variable "{tok.value}"', tok.line)
            node = _Var(tok.value)
        elif tok.kind == "string":
            try:
                node = _Literal(go_unquote(tok.value))
            except (ValueError, IndexError):
                raise self.error(f"bad string syntax: {tok.value}", tok.line) from None
        elif tok.kind == "char":
            try:
                char = go_unquote('"' + tok.value[1:-1].replace('"', '\\"') + '"')
            except (ValueError, IndexError):
                char = ""
            if len(char) != 1:
                raise self.error(f"malformed character constant: {tok.value}", tok.line)
            node = _Literal(ord(char))
        elif tok.kind == "number":
            node = _Literal(_number(tok.value))
        elif tok.kind == "ident":
            if tok.value in ("true", "false"):
                node = _Literal(tok.value == "true")
            elif tok.value == "nil":
                node = _Literal(None)
            else:
                if tok.value not in self.funcs:
                    raise self.error(f'function "{tok.value}" not defined', tok.line)
                node = _Ident(tok.value)
        elif tok.kind == "lparen":
            pipe = self.pipeline("parenthesized pipeline")
            self.expect("rparen", "parenthesized pipeline")
            node = pipe
        else:
            raise self.error(f"unexpected {tok.value or tok.kind!r} in operand", tok.line)
        following = self.peek(skip_space=False)
        if following.kind == "field" and not isinstance(node, _Ident | _Literal):
            self.next(skip_space=False)
            names = following.value[1:].split(".")
            if isinstance(node, _Var | _Field):
                node.names += names
            else:
                node = _Chain(node, names)
        return node


# --- execution ---------------------------------------------------------------------------


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def is_true(value: Any) -> bool:
    """Go template truth: false, 0, nil, empty string/slice/map are false; structs are true."""
    if value is None or value is NO_VALUE:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | tuple | dict | bytes):
        return len(value) > 0
    return True


def go_print(value: Any) -> str:
    """``fmt.Sprint`` of one value (the way an action prints its result)."""
    if value is NO_VALUE:
        return "<no value>"
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return gojson.format_float_g(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_print(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{go_print(k)}:{go_print(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, bytes):
        return "[" + " ".join(str(b) for b in value) + "]"
    to_string = getattr(value, "__go_string__", None)
    if callable(to_string):
        return str(to_string())
    return "{" + " ".join(go_print(v) for v in vars(value).values()) + "}"


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
        """Parse ``text``; raises :class:`TemplateError` on syntax errors."""
        parser = _Parser(self.name, text, self.funcs)
        body = parser.parse()
        self.templates.update(parser.defines)
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
            entries: list[tuple[Any, Any]]
            if isinstance(value, dict):
                entries = [(k, value[k]) for k in sorted(value)]
            elif isinstance(value, list | tuple):
                entries = list(enumerate(value))
            elif isinstance(value, int) and not isinstance(value, bool):
                entries = [(i, i) for i in range(value)]
            elif value is None or value is NO_VALUE:
                entries = []
            else:
                raise TemplateError(f"template: {name}:{node.pipe.line}: range can't iterate over {go_print(value)}")
            if not entries:
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
            try:
                return func(*rest)
            except TemplateError:
                raise
            except Exception as exc:  # a function's own failure, as Go reports it
                raise TemplateError(f"template: {name}:{line}: error calling {first.name}: {exc}") from None
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
            raise TemplateError(f"template: {name}:{command.line}: wrong number of args for {op}: want at least 1")
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
            if field_name.startswith("_") or not hasattr(value, field_name):
                raise TemplateError(
                    f"template: {name}:{line}: can't evaluate field {field_name} in type {type(value).__name__}"
                )
            attr = getattr(value, field_name)
            if callable(attr):
                try:
                    value = attr(*(args if last else []))
                except TypeError as exc:
                    raise TemplateError(
                        f"template: {name}:{line}: wrong arguments for method {field_name}: {exc}"
                    ) from None
            else:
                if last and args:
                    raise TemplateError(f"template: {name}:{line}: {field_name} is not a method but has arguments")
                value = attr
        return value


class _Missing:
    pass


_MISSING = _Missing()


# --- functions ---------------------------------------------------------------------------


def _eq(first: Any, *others: Any) -> bool:
    if not others:
        raise TemplateError("missing argument for comparison")
    return any(first == other for other in others)


def _index(item: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(item, dict):
            item = item.get(key, NO_VALUE)
        elif isinstance(item, list | tuple | str):
            if not isinstance(key, int) or not 0 <= key < len(item):
                raise TemplateError(f"index out of range: {key}")
            item = item[key]
        else:
            raise TemplateError(f"can't index item of type {type(item).__name__}")
    return item


def _printf(fmt: str, *args: Any) -> str:
    out = []
    args_iter = iter(args)
    i = 0
    while i < len(fmt):
        char = fmt[i]
        if char != "%":
            out.append(char)
            i += 1
            continue
        match = re.match(r"%([-+# 0]*)(\d*)(?:\.(\d+))?([vsdqfgtxX%])", fmt[i:])
        if not match:
            out.append(char)
            i += 1
            continue
        flags, width, precision, verb = match.groups()
        i += match.end()
        if verb == "%":
            out.append("%")
            continue
        value = next(args_iter, NO_VALUE)
        if verb in "vs":
            text = go_print(value)
        elif verb == "d":
            text = str(int(value))
        elif verb == "q":
            text = gojson.quote(str(value), escape_html=False)
        elif verb == "t":
            text = go_print(bool(value))
        elif verb in "xX":
            text = format(value, verb) if isinstance(value, int) else str(value).encode().hex()
            text = text.upper() if verb == "X" else text
        else:
            text = f"%{'.' + precision if precision else ''}{verb}" % value
        if width:
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width), "0" if "0" in flags else " ")
        out.append(text)
    return "".join(out)


def _empty(value: Any) -> bool:
    return not is_true(value)


def _default(default: Any, *given: Any) -> Any:
    if not given or _empty(given[0]):
        return default
    return given[0]


def _indent(spaces: int, text: str) -> str:
    pad = " " * spaces
    return pad + str(text).replace("\n", "\n" + pad)


def _to_json(value: Any) -> str:
    try:
        return gojson.dumps(value)
    except gojson.GoJSONError:
        return ""


def _to_pretty_json(value: Any) -> str:
    try:
        return gojson.dumps_indent(value, "  ")
    except gojson.GoJSONError:
        return ""


def _from_json(text: str) -> Any:
    try:
        return json.loads(text, parse_int=float)
    except ValueError:
        return None  # Sprig's fromJson swallows the error and returns nil


def _to_yaml(value: Any) -> str:
    from gsvendor import goyaml

    try:
        return goyaml.dump(value).removesuffix("\n")
    except (TypeError, ValueError):
        return ""  # helm-docs' toYaml swallows marshalling errors


def _from_yaml(text: str) -> Any:
    from gsvendor import goyaml

    try:
        value = goyaml.loads(text)
    except goyaml.YAMLError as exc:
        return {"Error": str(exc)}
    return value if isinstance(value, dict) else {}


def _title(text: str) -> str:
    return re.sub(r"(^|[^\w'])(\w)", lambda m: m.group(1) + m.group(2).upper(), text)


def _trunc(length: int, text: str) -> str:
    if length < 0:
        return text[length:] if -length < len(text) else text
    return text[:length]


def _require_str(value: Any) -> str:
    return value if isinstance(value, str) else go_print(value)


BUILTINS: dict[str, Callable[..., Any]] = {
    # text/template builtins
    "and": lambda *a: a[-1],
    "or": lambda *a: a[-1],
    "not": lambda value: not is_true(value),
    "len": lambda value: len(value),
    "index": _index,
    "print": lambda *a: "".join(
        (" " if i and not isinstance(a[i - 1], str) and not isinstance(v, str) else "") + go_print(v)
        for i, v in enumerate(a)
    ),
    "println": lambda *a: " ".join(go_print(v) for v in a) + "\n",
    "printf": _printf,
    "eq": _eq,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "html": lambda *a: (
        "".join(go_print(v) for v in a)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    ),
    "urlquery": lambda *a: __import__("urllib.parse").parse.quote_plus("".join(go_print(v) for v in a)),
    # Sprig (the functions helm-docs' own templates and common README templates use)
    "default": _default,
    "empty": _empty,
    "coalesce": lambda *a: next((v for v in a if is_true(v)), None),
    "ternary": lambda yes, no, cond: yes if cond else no,
    "replace": lambda old, new, text: _require_str(text).replace(old, new),
    "trim": lambda text: _require_str(text).strip(TRIM_SPACE + "\v\f"),
    "trimAll": lambda cutset, text: _require_str(text).strip(cutset),
    "trimPrefix": lambda prefix, text: _require_str(text).removeprefix(prefix),
    "trimSuffix": lambda suffix, text: _require_str(text).removesuffix(suffix),
    "hasPrefix": lambda prefix, text: _require_str(text).startswith(prefix),
    "hasSuffix": lambda suffix, text: _require_str(text).endswith(suffix),
    "contains": lambda sub, text: sub in _require_str(text),
    "upper": lambda text: _require_str(text).upper(),
    "lower": lambda text: _require_str(text).lower(),
    "title": lambda text: _title(_require_str(text)),
    "repeat": lambda count, text: _require_str(text) * count,
    "trunc": _trunc,
    "substr": lambda start, end, text: _require_str(text)[start : end if end >= 0 else None],
    "indent": _indent,
    "nindent": lambda spaces, text: "\n" + _indent(spaces, text),
    "quote": lambda *a: " ".join(gojson.quote(go_print(v), escape_html=False) for v in a if v is not None),
    "squote": lambda *a: " ".join("'" + go_print(v) + "'" for v in a if v is not None),
    "toString": go_print,
    "toJson": _to_json,
    "toPrettyJson": _to_pretty_json,
    "toRawJson": lambda value: gojson.dumps(value, escape_html=False),
    "fromJson": _from_json,
    "toYaml": _to_yaml,
    "fromYaml": _from_yaml,
    "join": lambda sep, items: sep.join(go_print(v) for v in items),
    "split": lambda sep, text: {f"_{i}": part for i, part in enumerate(_require_str(text).split(sep))},
    "splitList": lambda sep, text: _require_str(text).split(sep),
    "list": lambda *a: list(a),
    "dict": lambda *a: {go_print(a[i]): (a[i + 1] if i + 1 < len(a) else "") for i in range(0, len(a), 2)},
    "kindIs": lambda kind, value: _kind(value) == kind,
    "kindOf": lambda value: _kind(value),
    "first": lambda items: items[0] if items else None,
    "last": lambda items: items[-1] if items else None,
    "uniq": lambda items: list(dict.fromkeys(items)),
    "sortAlpha": lambda items: sorted(go_print(v) for v in items),
    "add": lambda *a: sum(a),
    "sub": lambda a, b: a - b,
    "mul": lambda *a: __import__("math").prod(a),
    "add1": lambda a: a + 1,
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "slice"
    if isinstance(value, dict):
        return "map"
    if value is None:
        return "invalid"
    return "struct"
