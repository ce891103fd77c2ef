"""The Dockerfile questions gsvendor asks: which upstream version is pinned (``ARG KSERVE_VERSION=…``, on
which line, under which ``# renovate:`` comment) and which base image every stage builds ``FROM`` once
the global ARGs are substituted (``golang:${GO_VERSION}``). Parsing is e2b-dockerfile-utils' port of
BuildKit's parser and shell lexer (heredocs, ``${VAR:-word}``), which dockerfile-parse gets wrong."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from e2b_dockerfile_utils import DockerfileInstruction, DockerfileSyntaxError, ShellLex, parse_dockerfile_ast

from gsvendor.errors import ConfigError, shorten
from gsvendor.images import reference
from gsvendor.yamlio import read_text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Arg:
    """``ARG name[=default]``: ``default`` is ``None`` when the ARG declares none; ``renovate`` the
    ``# renovate: …`` annotation in the comment lines directly above it (without ``renovate:``)."""

    name: str
    default: str | None
    line: int
    renovate: str | None = None


@dataclass(frozen=True)
class Stage:
    """One build stage: ``base`` is the ``FROM`` image with global ARGs substituted, ``base_stage`` the
    name of the earlier stage it builds on (``FROM builder``), else ``None``; ``args`` its ARGs."""

    index: int
    name: str | None
    base: str
    line: int
    base_stage: str | None = None
    args: list[Arg] = field(default_factory=list)

    @property
    def image(self) -> reference.ImageReference | None:
        """The base image by the distribution grammar (:func:`gsvendor.images.reference.parse`); ``None``
        for an earlier stage, ``scratch`` or no reference (``golang:`` of an unset ARG)."""
        with contextlib.suppress(reference.InvalidReference):
            return None if self.base_stage is not None or self.base == "scratch" else reference.parse(self.base)
        return None


@dataclass(frozen=True)
class Dockerfile:
    """A parsed Dockerfile. ``instructions`` are BuildKit's (upper-case ``name``, the joined line
    ``original``, ``flags``, ``args``, ``heredocs``, 1-based ``start_line``/``end_line``)."""

    instructions: tuple[DockerfileInstruction, ...]
    global_args: tuple[Arg, ...]
    stages: tuple[Stage, ...]

    def pin(self, name: str, label: str = "Dockerfile") -> Arg | None:
        """Where ``name`` is pinned: the last global ARG of that name if it has a default, else the first stage ARG
        with one, else ``None``. Raises :class:`ConfigError` naming ``label`` when two ARGs pin different values."""
        named = [a for a in (*self.global_args, *(a for s in self.stages for a in s.args)) if a.name == name]
        pins = {a.line: a.default.strip() for a in named if a.default and a.default.strip()}
        if len(set(pins.values())) > 1:
            pinned = ", ".join(f"{value} (line {line})" for line, value in pins.items())
            raise ConfigError(f"{label}: ARG {name} pins {pinned}: keep one", file=label)
        if (arg := next((a for a in reversed(self.global_args) if a.name == name), None)) and arg.default is not None:
            return arg
        return next((a for stage in self.stages for a in stage.args if a.name == name and a.default is not None), None)


def expand(text: str, values: Mapping[str, str | None], escape: str = "\\") -> str:
    """Substitute ``$VAR``, ``${VAR}``, ``${VAR:-w}``, ``${VAR:+w}``, ``${VAR-w}``, ``${VAR+w}`` in ``text`` as
    BuildKit's shell lexer does (quotes removed; ``None`` is an ARG without a value). Raises
    :class:`ValueError` for a malformed substitution (``${A``, ``${ A}``)."""
    return ShellLex(escape, env=values, skip_unset_env=False).process_word(text)


def _word(process: Callable[[str], str], word: str, label: str, where: str) -> str:
    """``process(word)``; a refusal as ConfigError, the reason before the word cut (a 100 KiB word stays short)."""
    try:
        return process(word)
    except ValueError as exc:
        reason = str(exc).removeprefix(f"failed to process {word!r}: ")
        if "recursion" in reason:  # the lexer recurses per ${…:-…} level
            reason = "${…} substitutions nested too deeply"
        raise ConfigError(f"{where}: {reason}: {shorten(word, 80)!r}", file=label, value=shorten(word)) from None


def parse(text: str, label: str = "Dockerfile") -> Dockerfile:
    """Parse Dockerfile ``text``; ``FROM`` sees only the global ARGs (BuildKit's scope). Raises
    :class:`ConfigError` ``label:line: …`` for text BuildKit refuses (an unknown instruction, an
    unterminated heredoc, a bad escape directive) and an ARG or FROM it cannot read."""
    try:
        ast = parse_dockerfile_ast(text)
    except DockerfileSyntaxError as exc:
        raise ConfigError(f"{label}:{exc.line or 1}: {str(exc).split(': ', 1)[-1]}", file=label) from None
    except RecursionError:  # json.loads recurses per "[" of a JSON-form RUN [[[… (BuildKit reads it as shell form)
        message = f"{label}: nested too deeply to parse (a JSON array of thousands of '[')"
        raise ConfigError(message, file=label) from None
    lines = text.removeprefix("\ufeff").split("\n")  # the parser's lines: comments are looked up in them
    lexer = ShellLex(ast.escape_token)  # dequotes ARG defaults; their $references stay as written
    global_args: list[Arg] = []
    scope: dict[str, str | None] = {}
    stages: list[Stage] = []
    earlier: dict[str, str] = {}  # the earlier stages' names, lower-cased (kept as they go: thousands of stages)
    for node in ast.instructions:
        where = f"{label}:{node.start_line}: {node.name}"
        if node.name == "ARG":
            if not node.args:
                raise ConfigError(f"{where} needs a name")
            above = node.start_line - 2
            while above >= 0 and lines[above].lstrip().startswith("#"):
                above -= 1
            comments = (c.lstrip()[1:].strip() for c in lines[above + 1 : node.start_line - 1])
            renovate = next((c[len("renovate:") :].strip() for c in comments if c.startswith("renovate:")), None)
            args = []
            for word in node.args:
                name, equals, default = _word(lexer.process_word, word, label, where).partition("=")
                if not _NAME.fullmatch(name):
                    raise ConfigError(f"{where}: {name!r} is not a valid name")
                args.append(Arg(name, default if equals else None, node.start_line, renovate))
            (stages[-1].args if stages else global_args).extend(args)
            if not stages:
                scope.update((arg.name, arg.default) for arg in args)
        elif node.name == "FROM":
            if len(node.args) not in (1, 3) or (len(node.args) == 3 and node.args[1].upper() != "AS"):
                raise ConfigError(f"{where}: expected 'FROM [--platform=…] image [AS name]'")
            name = node.args[2] if len(node.args) == 3 else None
            base = _word(lambda word: expand(word, scope, ast.escape_token), node.args[0], label, where)
            stages.append(Stage(len(stages), name, base, node.start_line, earlier.get(base.lower())))
            if name:
                earlier[name.lower()] = name
    return Dockerfile(tuple(ast.instructions), tuple(global_args), tuple(stages))


def read(path: Path, label: str | None = None) -> Dockerfile:
    """:func:`parse` the Dockerfile at ``path``; raises :class:`ConfigError` (not found, cannot read, parse)."""
    label = label or path.name
    return parse(read_text(path, label), label)
