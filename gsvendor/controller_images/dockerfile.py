"""The Dockerfile questions gsvendor asks: which upstream version is pinned (``ARG KSERVE_VERSION=…``, on
which line, under which ``# renovate:`` comment) and which base image every stage builds ``FROM`` once
ARGs are substituted (``golang:${GO_VERSION}``).

Parsing is e2b-dockerfile-utils' port of BuildKit's parser (parser directives, continuations with
comment and blank lines inside, heredocs, unknown instructions refused) and of its shell lexer
(``$VAR``, ``${VAR:-word}``, ``${VAR:+word}``, quotes). dockerfile-parse 2.0.1 does not do: it reads
heredoc bodies as instructions, ends a continuation at a blank line and leaves ``${VAR:-word}`` as
written. Added here: the comments above an ARG (BuildKit drops them), the stages with their ARGs, and
the global ARGs as the only scope of ``FROM``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from e2b_dockerfile_utils import DockerfileInstruction, DockerfileSyntaxError, ShellLex, parse_dockerfile_ast

from gsvendor.errors import ConfigError, shorten
from gsvendor.images import reference
from gsvendor.images.reference import ImageReference
from gsvendor.yamlio import read_text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# BuildKit sets these for every build; they are usable in FROM without an ARG declaring them.
AUTOMATIC_ARGS = frozenset(
    f"{kind}{part}" for kind in ("BUILD", "TARGET") for part in ("PLATFORM", "OS", "ARCH", "VARIANT")
)


@dataclass(frozen=True)
class Arg:
    """``ARG name[=default]``: ``default`` is ``None`` when the ARG declares none; ``comments`` the comment
    lines directly above the instruction (no blank line between), without ``#``."""

    name: str
    default: str | None
    line: int
    comments: tuple[str, ...] = ()

    @property
    def renovate(self) -> str | None:
        """The ``renovate: …`` annotation directly above this ARG (without ``renovate:``), if any."""
        found = [c.strip()[len("renovate:") :].strip() for c in self.comments if c.strip().startswith("renovate:")]
        return found[0] if found else None


@dataclass(frozen=True)
class Stage:
    """One build stage: the ``FROM`` line and the ARGs declared in the stage.

    ``base_raw`` is the image as written; ``base`` with ARGs substituted; ``base_stage`` the name
    of an earlier stage when the stage builds on one (``FROM builder``), else ``None``;
    ``unresolved`` names the variables of ``base_raw`` looked up without a value (they expand to
    the empty string, or to the word of ``${VAR:-word}``), BuildKit's automatic ARGs left out.
    """

    index: int
    name: str | None
    base_raw: str
    base: str
    platform: str | None
    line: int
    args: tuple[Arg, ...] = ()
    base_stage: str | None = None
    unresolved: tuple[str, ...] = ()

    @property
    def image(self) -> ImageReference | None:
        """The base image by the distribution grammar (:func:`gsvendor.images.reference.parse`); ``None``
        when the stage builds on an earlier stage or on ``scratch``, or ``base`` is no reference
        (``golang:`` of an unset ARG)."""
        if self.base_stage is not None or self.base == "scratch":
            return None
        try:
            return reference.parse(self.base)
        except reference.InvalidReference:
            return None


@dataclass(frozen=True)
class Dockerfile:
    """A parsed Dockerfile. ``label`` names it in messages (a project-relative path); ``instructions`` are
    BuildKit's (upper-case ``name``, the joined line ``original``, ``flags``, ``args``, ``heredocs``,
    1-based ``start_line``/``end_line``)."""

    label: str
    instructions: tuple[DockerfileInstruction, ...]
    global_args: tuple[Arg, ...]
    stages: tuple[Stage, ...]

    def global_arg(self, name: str) -> Arg | None:
        """The global ARG (declared before the first ``FROM``) called ``name``; the last one wins."""
        return next((arg for arg in reversed(self.global_args) if arg.name == name), None)

    def pin(self, name: str) -> Arg | None:
        """Where ``name`` is pinned: the global ARG with a default, else the first stage ARG with one.

        ``None`` when no ARG of that name carries a default.
        """
        arg = self.global_arg(name)
        if arg is not None and arg.default is not None:
            return arg
        stage_args = (a for stage in self.stages for a in stage.args if a.name == name and a.default is not None)
        return next(stage_args, None)


def expand(text: str, values: Mapping[str, str | None], escape: str = "\\") -> tuple[str, tuple[str, ...]]:
    """Substitute ``$VAR``, ``${VAR}`` and ``${VAR:-w}``, ``${VAR:+w}``, ``${VAR-w}``, ``${VAR+w}`` in ``text``
    as BuildKit's shell lexer does (quotes removed, ``escape`` before ``$`` keeps it literal).

    ``values`` maps names to values; ``None`` is a declared ARG without a value (unset). Returns the
    text and the names looked up without a value. Raises :class:`ValueError` for a malformed
    substitution (``${A``, ``${ A}``).
    """
    missing: list[str] = []

    class Recording(dict[str, str | None]):
        def get(self, name: str, default: object = None) -> str | None:  # type: ignore[override]
            value = super().get(name)
            if value is None:
                missing.append(name)
            return value

    result = ShellLex(escape, env=Recording(values), skip_unset_env=False).process_word(text)
    return result, tuple(dict.fromkeys(missing))


def parse(text: str, label: str = "Dockerfile", build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Parse Dockerfile ``text``; ``build_args`` override ARG defaults (as ``--build-arg`` does).

    Base images are substituted with the global ARGs (the only ones in scope for ``FROM``), their
    defaults replaced by ``build_args``; names of earlier stages are recognised. Raises
    :class:`ConfigError` ``label:line: …`` for text BuildKit refuses (an unknown instruction, an
    unterminated heredoc, an escape directive other than ``\\`` or `````) and an ARG or FROM it
    cannot read.
    """
    try:
        return _parse(text, label, dict(build_args or {}))
    except RecursionError:
        # the parser reads a JSON-form instruction with json.loads, which recurses per "[": ``RUN [[[…``
        # (BuildKit's Go decoder stops at 10,000 levels and takes the line as shell form)
        message = f"{label}: nested too deeply to parse (a JSON array of thousands of '[')"
        raise ConfigError(message, file=label) from None


def _word_error(label: str, where: str, word: str, exc: ValueError) -> ConfigError:
    """The error for the ARG or FROM ``word`` the shell lexer refused: its reason first, the word cut, so a
    100 KiB word does not push the reason past the end of the printed line."""
    reason = str(exc).removeprefix(f"failed to process {word!r}: ")
    if "recursion" in reason:  # the lexer recurses per ${…:-…} level
        reason = "${…} substitutions nested too deeply"
    return ConfigError(f"{where}: {reason}: {shorten(word, 80)!r}", file=label, value=shorten(word))


def _parse(text: str, label: str, build_args: dict[str, str]) -> Dockerfile:
    """:func:`parse`, but for a RecursionError of the parser."""
    try:
        ast = parse_dockerfile_ast(text)
    except DockerfileSyntaxError as exc:
        raise ConfigError(f"{label}:{exc.line or 1}: {str(exc).split(': ', 1)[-1]}", file=label) from None
    lines = text.removeprefix("\ufeff").split("\n")  # the parser's lines: comments are looked up in them
    lexer = ShellLex(ast.escape_token)  # dequotes ARG defaults; their $references stay as written
    global_args: list[Arg] = []
    scope: dict[str, str | None] = {}
    stages: list[Stage] = []
    stage_args: list[list[Arg]] = []  # each stage's ARGs, set once all are read
    earlier: dict[str, str] = {}  # the earlier stages' names, lower-cased (kept as they go: thousands of stages)
    for node in ast.instructions:
        where = f"{label}:{node.start_line}: {node.name}"
        if node.name == "ARG":
            if not node.args:
                raise ConfigError(f"{where} needs a name")
            above = node.start_line - 2
            while above >= 0 and lines[above].lstrip().startswith("#"):
                above -= 1
            comments = tuple(c.lstrip()[1:].strip() for c in lines[above + 1 : node.start_line - 1])
            args = []
            for word in node.args:
                try:
                    name, equals, default = lexer.process_word(word).partition("=")
                except ValueError as exc:
                    raise _word_error(label, where, word, exc) from None
                if not _NAME.fullmatch(name):
                    raise ConfigError(f"{where}: {name!r} is not a valid name")
                args.append(Arg(name, default if equals else None, node.start_line, comments))
            if not stages:
                global_args.extend(args)
                scope.update((arg.name, build_args.get(arg.name, arg.default)) for arg in args)
            else:
                stage_args[-1] += args
        elif node.name == "FROM":
            if len(node.args) not in (1, 3) or (len(node.args) == 3 and node.args[1].upper() != "AS"):
                raise ConfigError(f"{where}: expected 'FROM [--platform=…] image [AS name]'")
            raw, name = node.args[0], node.args[2] if len(node.args) == 3 else None
            platforms = [flag.partition("=")[2] for flag in node.flags if flag.startswith("--platform=")]
            try:
                base, unresolved = expand(raw, scope, ast.escape_token)
            except ValueError as exc:
                raise _word_error(label, where, raw, exc) from None
            stages.append(
                Stage(
                    index=len(stages),
                    name=name,
                    base_raw=raw,
                    base=base,
                    platform=platforms[-1] if platforms else None,
                    line=node.start_line,
                    base_stage=earlier.get(base.lower()),
                    # BuildKit fills the platform ARGs itself; only other gaps are worth reporting
                    unresolved=tuple(u for u in unresolved if u not in AUTOMATIC_ARGS),
                )
            )
            stage_args.append([])
            if name:
                earlier[name.lower()] = name
    return Dockerfile(
        label=label,
        instructions=tuple(ast.instructions),
        global_args=tuple(global_args),
        stages=tuple(replace(s, args=s.args + tuple(a)) if a else s for s, a in zip(stages, stage_args, strict=True)),
    )


def read(path: Path, label: str | None = None, build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Read and :func:`parse` the Dockerfile at ``path``.

    Raises :class:`ConfigError` ``label: not found`` / ``cannot read`` and parse errors.
    """
    label = label or path.name
    return parse(read_text(path, label), label, build_args)
