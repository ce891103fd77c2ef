"""Go text/template (Go 1.22, as helm-docs v1.14.2 runs it): lexer and parser."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TRIM_SPACE = " \t\r\n"
MAX_DEPTH = 100  # nested {{template}} calls (Go allows 100000; a Python stack does not)


class TemplateError(Exception):
    """A parse or execution error: ``template: NAME:LINE: message``."""


class _NoValue:
    """What a missing map key evaluates to; prints as Go's ``<no value>``."""

    def __repr__(self) -> str:
        return "<no value>"


NO_VALUE = _NoValue()


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


# matched at a position, never on a slice: slicing the rest of the text at each token is quadratic
_TRIM_CLOSE = re.compile(r"[ \t\r\n]+-}}")


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
            if _TRIM_CLOSE.match(text, after):
                trim_right = True
                after = text.index("-}}", after) + 3
            elif text.startswith("}}", after):
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
            match_trim = _TRIM_CLOSE.match(text, cursor)
            if match_trim:
                line += match_trim.group(0).count("\n")
                cursor = match_trim.end()
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
        elif nxt in _HEX_DIGITS:  # \xHH, \uHHHH, \UHHHHHHHH: exactly that many hex digits
            digits = body[i + 2 : i + 2 + _HEX_DIGITS[nxt]]
            if len(digits) != _HEX_DIGITS[nxt] or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError(f"invalid escape \\{nxt}{digits}")
            code = int(digits, 16)
            if nxt != "x" and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):  # not a Unicode code point
                raise ValueError(f"invalid code point \\{nxt}{digits}")
            out.append(chr(code))
            i += 2 + len(digits)
        elif nxt in "01234567":  # \OOO: three octal digits, at most 255
            digits = body[i + 1 : i + 4]
            if len(digits) != 3 or not all(c in "01234567" for c in digits) or int(digits, 8) > 255:
                raise ValueError(f"invalid escape \\{digits}")
            out.append(chr(int(digits, 8)))
            i += 4
        else:
            raise ValueError(f"invalid escape \\{nxt}")
    return "".join(out)


_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def _number(text: str) -> int | float:
    """A number constant as text/template reads it: an int (int64 or uint64), else a float written
    with ``.``, ``e`` or ``p``; ``ValueError`` for what Go refuses (``1e400``, complex ``1i``, or an
    integer past uint64, which Go's exec reports as overflowing int)."""
    clean = text.replace("_", "")
    if clean.lower().endswith("i") and not clean.lower().startswith("0x"):
        raise ValueError(f"illegal number syntax: {text} (complex constants are not emulated)")
    octal = re.fullmatch(r"[+-]?0[0-7]+", clean)  # Go's leading-zero octal (07), which int(…, 0) refuses
    try:
        number = int(clean, 8 if octal else 0) if len(clean) <= 40 else None
    except ValueError:
        number = None
    if number is not None:
        if not -(2**63) <= number < 2**64:
            raise ValueError(f"{text} overflows int")
        return number
    lower = clean.lower().lstrip("+-")
    if not any(c in lower for c in ".ep") or (lower.startswith("0x") and "p" not in lower):
        raise ValueError(f"{text} overflows int" if clean.lstrip("+-").isdigit() else f"illegal number syntax: {text}")
    try:
        value = float.fromhex(clean) if clean.lower().lstrip("+-").startswith("0x") else float(clean)
    except (ValueError, OverflowError):
        raise ValueError(f"illegal number syntax: {text}") from None
    if math.isinf(value):
        raise ValueError(f"illegal number syntax: {text}")
    return value


def parse_tree(name: str, text: str, funcs: dict[str, Callable[..., Any]]) -> tuple[list[Any], dict[str, list[Any]]]:
    """Parse ``text`` as Go's text/template does: (the top-level nodes, each ``define``'s nodes by
    name). ``funcs`` names the functions a command may call (any other name is a parse error, as in
    Go). Raises :class:`TemplateError` on a syntax error."""
    parser = _Parser(name, text, funcs)
    body = parser.parse()
    return body, parser.defines


class _Parser:
    def __init__(self, name: str, text: str, funcs: dict[str, Callable[..., Any]]) -> None:
        self.name = name
        self.tokens = _lex(name, text)
        self.pos = 0
        self.funcs = funcs
        self.defines: dict[str, list[Any]] = {}
        self.vars: list[list[str]] = [["$"]]
        self.range_depth = 0

    def unquote(self, tok: _Tok) -> str:
        """The value of string token ``tok``; a malformed one is Go's parse error."""
        try:
            return go_unquote(tok.value)
        except (ValueError, IndexError):
            raise self.error(f"bad string syntax: {tok.value}", tok.line) from None

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
                name = self.unquote(self.expect("string", "define clause"))
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
                name = self.unquote(name_tok)
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
        pipe = self.pipeline(kind)
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

    def pipeline(self, context: str) -> _Pipe:
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
            try:
                node = _Literal(_number(tok.value))
            except ValueError as exc:
                raise self.error(str(exc), tok.line) from None
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
