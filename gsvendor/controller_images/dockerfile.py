"""Dockerfile reading: instructions, ARGs, stages and their base images.

The syntax is BuildKit's own parser (the ``dockerfile`` package binds
github.com/moby/buildkit/frontend/dockerfile/parser): parser directives (``# escape=``),
comments, line continuations (comment and blank lines inside one dropped), heredocs (their bodies
are not instructions). On top of it, what gsvendor asks of ``Dockerfile`` and
``Dockerfile.llmisvc``: which upstream version is pinned (``ARG KSERVE_VERSION=…``, on which line,
under which ``# renovate:`` comment) and which base image every stage builds ``FROM`` once ARGs are
substituted (``golang:${GO_VERSION}``; ``$VAR``, ``${VAR}``, ``${VAR:-word}``, ``${VAR:+word}``,
``${VAR-word}``, ``${VAR+word}`` as BuildKit's shell lexer reads them). Instructions are not
otherwise validated.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import dockerfile as buildkit

from gsvendor.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = re.compile(r"\\\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
# BuildKit sets these for every build; they are usable in FROM without an ARG declaring them.
AUTOMATIC_ARGS = frozenset(at + part for at in ("BUILD", "TARGET") for part in ("PLATFORM", "OS", "ARCH", "VARIANT"))


@dataclass(frozen=True)
class Instruction:
    """One instruction, continuations joined.

    ``keyword`` is upper-case (``FROM``, ``ARG`` …); ``value`` the text after it (flags included,
    continuation characters and newlines removed, heredoc bodies left out); ``words`` its arguments
    as BuildKit splits them (flags left out, the exec form's JSON array read); ``flags`` the
    ``--name=value`` flags; ``line``/``end_line`` the 1-based first and last physical lines (a
    heredoc body included); ``heredocs`` the bodies of its heredocs.
    """

    keyword: str
    value: str
    words: tuple[str, ...]
    flags: tuple[str, ...]
    line: int
    end_line: int
    heredocs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Arg:
    """``ARG name[=default]``: ``default`` is ``None`` when the ARG declares none; ``comments`` the
    comment lines directly above it (no blank line between), without ``#``."""

    name: str
    default: str | None
    line: int
    comments: tuple[str, ...] = ()

    @property
    def renovate(self) -> str | None:
        """The ``renovate: …`` annotation directly above this ARG (without ``renovate:``), if any."""
        for comment in self.comments:
            text = comment.strip()
            if text.startswith("renovate:"):
                return text[len("renovate:") :].strip()
        return None


@dataclass(frozen=True)
class ImageRef:
    """A parsed image reference ``[registry/]path[:tag][@digest]``.

    ``repository`` is everything before the tag (registry included, as written); ``name`` its
    last path component (``golang`` for ``docker.io/library/golang``).
    """

    repository: str
    tag: str | None
    digest: str | None

    @property
    def name(self) -> str:
        """The last path component of the repository."""
        return self.repository.rsplit("/", 1)[-1]

    def __str__(self) -> str:
        return self.repository + (f":{self.tag}" if self.tag else "") + (f"@{self.digest}" if self.digest else "")


@dataclass(frozen=True)
class Stage:
    """One build stage: the ``FROM`` line and the ARGs declared in the stage.

    ``base_raw`` is the image as written; ``base`` with ARGs substituted; ``base_stage`` the name
    of an earlier stage when the stage builds on one (``FROM builder``), else ``None``;
    ``unresolved`` names the variables of ``base_raw`` that no ARG or build arg defines (they
    expand to the empty string, as in Docker).
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
    def image(self) -> ImageRef | None:
        """The parsed base image; ``None`` when the stage builds on an earlier stage or on ``scratch``."""
        if self.base_stage is not None or self.base == "scratch" or not self.base:
            return None
        return parse_image_ref(self.base)


@dataclass(frozen=True)
class Dockerfile:
    """A parsed Dockerfile. ``label`` names it in messages (a project-relative path)."""

    label: str
    instructions: tuple[Instruction, ...]
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
        stage_args = (a for stage in self.stages for a in stage.args)
        return next((a for a in stage_args if a.name == name and a.default is not None), None)


def parse_image_ref(reference: str) -> ImageRef:
    """Split ``reference`` into repository, tag and digest (``golang:1.25.8@sha256:…``).

    A ``:`` after the last ``/`` separates the tag; one before it is a registry port.
    """
    rest, _, digest = reference.partition("@")
    repository, colon, tag = rest.rpartition(":")
    if not colon or "/" in tag:
        repository, tag = rest, ""
    return ImageRef(repository=repository, tag=tag or None, digest=digest or None)


def expand(text: str, values: Mapping[str, str | None]) -> tuple[str, tuple[str, ...]]:
    """Substitute ``$VAR``/``${VAR}`` and the ``${VAR:-w}``, ``${VAR:+w}``, ``${VAR-w}``, ``${VAR+w}`` forms.

    ``values`` maps names to values; ``None`` is a declared ARG without a value (unset). ``\\$``
    keeps the ``$`` literal (an image reference holds no escape character, so the ``# escape=``
    directive does not matter here). Returns the text and the names that were used without a
    value (those expand to ``""`` as in Docker).
    """
    unresolved: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "\\$":
            return "$"
        name, operator, word = match.group(1) or match.group(4), match.group(2), match.group(3) or ""
        value = values.get(name)
        if operator is None:
            if value is None:
                unresolved.append(name)
            return value or ""
        if operator in (":-", "-"):
            if value is not None and (operator == "-" or value):
                return value
        elif value is None or (operator == ":+" and not value):
            return ""
        word_value, missing = expand(word, values)
        unresolved.extend(missing)
        return word_value

    return _VARIABLE.sub(substitute, text), tuple(dict.fromkeys(unresolved))


def parse_instructions(text: str, label: str = "Dockerfile") -> list[Instruction]:
    """Split Dockerfile ``text`` into instructions (see :class:`Instruction`) with BuildKit's parser.

    Raises :class:`ConfigError` (``label: …``, BuildKit's words) for an escape directive other than
    ``\\`` or ````` or a heredoc that is not terminated.
    """
    try:
        commands = buildkit.parse_string(text)
    except buildkit.GoParseError as exc:
        raise ConfigError(f"{label}: {exc}") from None
    return [
        Instruction(
            keyword=command.cmd.upper(),
            value=command.original.partition("\n")[0][len(command.cmd) :].strip(),
            words=command.value,
            flags=command.flags,
            line=command.start_line,
            end_line=command.end_line,
            heredocs=tuple(heredoc.content.removesuffix("\n") for heredoc in command.heredocs),
        )
        for command in commands
    ]


def _comments_above(lines: list[str], line: int) -> tuple[str, ...]:
    """The comment lines directly above 1-based ``line`` (no blank line between), without ``#``."""
    start = line - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return tuple(text.lstrip()[1:].strip() for text in lines[start : line - 1])


def _parse_args(instruction: Instruction, label: str, lines: list[str]) -> list[Arg]:
    """The ARGs of one ``ARG`` instruction (``ARG A``, ``ARG A=1``, ``ARG A=1 B="x y"``)."""
    try:
        tokens = shlex.split(instruction.value, posix=True)
    except ValueError as exc:
        raise ConfigError(f"{label}:{instruction.line}: ARG: {exc}") from None
    if not tokens:
        raise ConfigError(f"{label}:{instruction.line}: ARG needs a name")
    comments = _comments_above(lines, instruction.line)
    args = []
    for token in tokens:
        name, equals, default = token.partition("=")
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{label}:{instruction.line}: ARG: {name!r} is not a valid name")
        args.append(Arg(name=name, default=default if equals else None, line=instruction.line, comments=comments))
    return args


def _parse_from(instruction: Instruction, label: str) -> tuple[str, str | None, str | None]:
    """``FROM [--flag=value …] image [AS name]`` → (image, platform, name)."""
    platforms = [flag.partition("=")[2] for flag in instruction.flags if flag.startswith("--platform=")]
    words = instruction.words
    if len(words) == 1 or (len(words) == 3 and words[1].upper() == "AS"):
        return words[0], (platforms or [None])[-1], words[2] if len(words) == 3 else None
    raise ConfigError(f"{label}:{instruction.line}: FROM: expected 'FROM [--platform=…] image [AS name]'")


def parse(text: str, label: str = "Dockerfile", build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Parse Dockerfile ``text``; ``build_args`` override ARG defaults (as ``--build-arg`` does).

    Base images are substituted with the global ARGs (the only ones in scope for ``FROM``), their
    defaults replaced by ``build_args``; names of earlier stages are recognised. Raises
    :class:`ConfigError` ``label[:line]: …`` for text BuildKit cannot parse or an ARG or FROM this
    reader cannot read.
    """
    build_args = dict(build_args or {})
    instructions = parse_instructions(text, label)
    lines = text.split("\n")  # BuildKit's line numbers count "\n" (a "\r" before it is dropped)
    global_args: list[Arg] = []
    scope: dict[str, str | None] = {}
    stages: list[Stage] = []
    stage_args: list[list[Arg]] = []  # each stage's ARGs, set once all are read
    earlier: dict[str, str] = {}  # the earlier stages' names, lower-cased (kept as they go: thousands of stages)
    for instruction in instructions:
        if instruction.keyword == "ARG":
            args = _parse_args(instruction, label, lines)
            if not stages:
                global_args.extend(args)
                scope.update((arg.name, build_args.get(arg.name, arg.default)) for arg in args)
            else:
                stage_args[-1] += args
        elif instruction.keyword == "FROM":
            raw, platform, name = _parse_from(instruction, label)
            base, unresolved = expand(raw, scope)
            stages.append(
                Stage(
                    index=len(stages),
                    name=name,
                    base_raw=raw,
                    base=base,
                    platform=platform,
                    line=instruction.line,
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
        instructions=tuple(instructions),
        global_args=tuple(global_args),
        stages=tuple(replace(s, args=s.args + tuple(a)) if a else s for s, a in zip(stages, stage_args, strict=True)),
    )


def read(path: Path, label: str | None = None, build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Read and :func:`parse` the Dockerfile at ``path``.

    Raises :class:`ConfigError` ``label: not found`` / ``cannot read`` and parse errors.
    """
    from gsvendor.config import read_text

    label = label or path.name
    return parse(read_text(path, label), label, build_args)
