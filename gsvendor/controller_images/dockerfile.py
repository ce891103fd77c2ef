"""A small Dockerfile reader: instructions, ARGs, stages and their base images.

Enough of the Dockerfile syntax (https://docs.docker.com/reference/dockerfile/) to answer the
questions gsvendor asks of ``Dockerfile`` and ``Dockerfile.llmisvc``: which upstream version is
pinned (``ARG KSERVE_VERSION=…``, on which line, under which ``# renovate:`` comment) and which
base image every stage builds ``FROM`` once ARGs are substituted (``golang:${GO_VERSION}``).

Handled: parser directives (``# escape=`` changes the line continuation character), comments,
line continuations (comment and blank lines inside one are dropped, as BuildKit does), heredocs
(``RUN <<EOF`` … ``EOF``; their bodies are not instructions), ``ARG`` with and without default and
several names on one line, global ARGs before the first ``FROM``, ``FROM [--platform=…] image
[AS name]``, and ``$VAR``, ``${VAR}``, ``${VAR:-word}``, ``${VAR:+word}``, ``${VAR-word}``,
``${VAR+word}`` in ``FROM``. Instructions are not otherwise validated.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from gsvendor.errors import ConfigError
from gsvendor.yamlio import read_text

_DIRECTIVE = re.compile(r"^#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(.*?)\s*$")
_HEREDOC = re.compile(r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# BuildKit sets these for every build; they are usable in FROM without an ARG declaring them.
AUTOMATIC_ARGS = frozenset(
    {
        "BUILDPLATFORM",
        "BUILDOS",
        "BUILDARCH",
        "BUILDVARIANT",
        "TARGETPLATFORM",
        "TARGETOS",
        "TARGETARCH",
        "TARGETVARIANT",
    }
)


@dataclass(frozen=True)
class Instruction:
    """One instruction, continuations joined.

    ``keyword`` is upper-case (``FROM``, ``ARG`` …); ``value`` the text after it with continuation
    characters and newlines removed; ``line``/``end_line`` the 1-based first and last physical
    lines (a heredoc body included); ``comments`` the comment lines directly above it (no blank
    line between), without ``#``; ``heredocs`` the bodies of its heredocs.
    """

    keyword: str
    value: str
    line: int
    end_line: int
    comments: tuple[str, ...] = ()
    heredocs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Arg:
    """``ARG name[=default]``: ``default`` is ``None`` when the ARG declares none."""

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
    directives: dict[str, str] = field(default_factory=dict)

    def global_arg(self, name: str) -> Arg | None:
        """The global ARG (declared before the first ``FROM``) called ``name``; the last one wins."""
        found = None
        for arg in self.global_args:
            if arg.name == name:
                found = arg
        return found

    def pin(self, name: str) -> Arg | None:
        """Where ``name`` is pinned: the global ARG with a default, else the first stage ARG with one.

        ``None`` when no ARG of that name carries a default.
        """
        arg = self.global_arg(name)
        if arg is not None and arg.default is not None:
            return arg
        for stage in self.stages:
            for stage_arg in stage.args:
                if stage_arg.name == name and stage_arg.default is not None:
                    return stage_arg
        return None


def parse_image_ref(reference: str) -> ImageRef:
    """Split ``reference`` into repository, tag and digest (``golang:1.25.8@sha256:…``).

    A ``:`` after the last ``/`` separates the tag; one before it is a registry port.
    """
    rest, _, digest = reference.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        repository, tag = rest[:colon], rest[colon + 1 :]
    else:
        repository, tag = rest, None
    return ImageRef(repository=repository, tag=tag or None, digest=digest or None)


def expand(text: str, values: Mapping[str, str | None], escape: str = "\\") -> tuple[str, tuple[str, ...]]:
    """Substitute ``$VAR``/``${VAR}`` and the ``${VAR:-w}``, ``${VAR:+w}``, ``${VAR-w}``, ``${VAR+w}`` forms.

    ``values`` maps names to values; ``None`` is a declared ARG without a value (unset). The
    escape character before ``$`` keeps it literal. Returns the text and the names that were
    used without a value (those expand to ``""`` as in Docker).
    """
    out: list[str] = []
    unresolved: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == escape and i + 1 < len(text) and text[i + 1] == "$":
            out.append("$")
            i += 2
            continue
        if char != "$":
            out.append(char)
            i += 1
            continue
        if text.startswith("${", i):
            end = text.find("}", i + 2)
            if end < 0:
                out.append(text[i:])
                break
            body = text[i + 2 : end]
            i = end + 1
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])(.*))?", body, re.S)
            if not match:
                out.append("${" + body + "}")
                continue
            name, operator, word = match.group(1), match.group(2), match.group(3) or ""
            value = values.get(name)
            if operator in (":-", "-"):
                use_word = value is None or (operator == ":-" and value == "")
                if use_word:
                    word_value, missing = expand(word, values, escape)
                    unresolved.extend(missing)
                    out.append(word_value)
                else:
                    out.append(value or "")
            elif operator in (":+", "+"):
                use_word = value is not None and (operator == "+" or value != "")
                if use_word:
                    word_value, missing = expand(word, values, escape)
                    unresolved.extend(missing)
                    out.append(word_value)
            else:
                if value is None:
                    unresolved.append(name)
                out.append(value or "")
            continue
        match = _NAME.match(text, i + 1)
        if not match:
            out.append("$")
            i += 1
            continue
        name = match.group(0)
        value = values.get(name)
        if value is None:
            unresolved.append(name)
        out.append(value or "")
        i = match.end()
    return "".join(out), tuple(dict.fromkeys(unresolved))


def _split_directives(lines: list[str]) -> tuple[dict[str, str], int]:
    """Parser directives: ``# key=value`` lines at the very top, before any other line.

    Returns the directives (keys lower-case) and the index of the first line after them.
    """
    directives: dict[str, str] = {}
    for index, line in enumerate(lines):
        match = _DIRECTIVE.match(line.strip())
        if not match or match.group(1).lower() in directives:
            return directives, index
        directives[match.group(1).lower()] = match.group(2)
    return directives, len(lines)


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _continues(line: str, escape: str) -> tuple[bool, str]:
    """Whether ``line`` ends in the escape character (trailing blanks allowed); the line without it."""
    stripped = line.rstrip(" \t\r")
    if stripped.endswith(escape):
        return True, stripped[: -len(escape)]
    return False, line.rstrip("\r")


def parse_instructions(text: str, label: str = "Dockerfile") -> tuple[dict[str, str], list[Instruction]]:
    """Split Dockerfile ``text`` into parser directives and instructions (see :class:`Instruction`).

    Raises :class:`ConfigError` (``label:line: …``) when the escape directive is not ``\\`` or
    ````` or a heredoc is not terminated.
    """
    lines = text.splitlines()
    directives, index = _split_directives(lines)
    escape = directives.get("escape", "\\")
    if escape not in ("\\", "`"):
        raise ConfigError(f"{label}:1: escape directive must be \\ or `, not {escape!r}")
    instructions: list[Instruction] = []
    comments: list[str] = []
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            comments = []  # a blank line detaches the comments above it
            index += 1
            continue
        if _is_comment(line):
            comments.append(line.lstrip()[1:].strip())
            index += 1
            continue
        start = index
        parts: list[str] = []
        more, body = _continues(line, escape)
        parts.append(body)
        index += 1
        while more and index < len(lines):
            line = lines[index]
            index += 1
            if not line.strip() or _is_comment(line):
                continue  # BuildKit drops comment and empty lines inside a continuation
            more, body = _continues(line, escape)
            parts.append(body)
        logical = "".join(parts).strip()
        keyword, _, value = logical.partition(" ")
        if "\t" in keyword:
            keyword, _, rest = keyword.partition("\t")
            value = f"{rest} {value}".strip()
        keyword = keyword.upper()
        heredocs: list[str] = []
        if keyword in ("RUN", "COPY", "ADD"):
            for match in _HEREDOC.finditer(value):
                strip_tabs, terminator = match.group(1) == "-", match.group(3)
                body_lines: list[str] = []
                while True:
                    if index >= len(lines):
                        raise ConfigError(f"{label}:{start + 1}: heredoc {terminator} is not terminated")
                    current = lines[index]
                    index += 1
                    candidate = current.lstrip("\t") if strip_tabs else current
                    if candidate.rstrip("\r") == terminator:
                        break
                    body_lines.append(candidate)
                heredocs.append("\n".join(body_lines))
        instructions.append(
            Instruction(
                keyword=keyword,
                value=value.strip(),
                line=start + 1,
                end_line=index,
                comments=tuple(comments),
                heredocs=tuple(heredocs),
            )
        )
        comments = []
    return directives, instructions


def _parse_args(instruction: Instruction, label: str) -> list[Arg]:
    """The ARGs of one ``ARG`` instruction (``ARG A``, ``ARG A=1``, ``ARG A=1 B="x y"``)."""
    try:
        tokens = shlex.split(instruction.value, posix=True)
    except ValueError as exc:
        raise ConfigError(f"{label}:{instruction.line}: ARG: {exc}") from None
    if not tokens:
        raise ConfigError(f"{label}:{instruction.line}: ARG needs a name")
    args = []
    for token in tokens:
        name, equals, default = token.partition("=")
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{label}:{instruction.line}: ARG: {name!r} is not a valid name")
        args.append(
            Arg(name=name, default=default if equals else None, line=instruction.line, comments=instruction.comments)
        )
    return args


def _parse_from(instruction: Instruction, label: str) -> tuple[str, str | None, str | None]:
    """``FROM [--flag=value …] image [AS name]`` → (image, platform, name)."""
    tokens = instruction.value.split()
    platform = None
    while tokens and tokens[0].startswith("--"):
        flag, _, value = tokens.pop(0).partition("=")
        if flag == "--platform":
            platform = value
    if len(tokens) == 1:
        return tokens[0], platform, None
    if len(tokens) == 3 and tokens[1].upper() == "AS":
        return tokens[0], platform, tokens[2]
    raise ConfigError(f"{label}:{instruction.line}: FROM: expected 'FROM [--platform=…] image [AS name]'")


def parse(text: str, label: str = "Dockerfile", build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Parse Dockerfile ``text``; ``build_args`` override ARG defaults (as ``--build-arg`` does).

    Base images are substituted with the global ARGs (the only ones in scope for ``FROM``), their
    defaults replaced by ``build_args``; names of earlier stages are recognised. Raises
    :class:`ConfigError` ``label:line: …`` for an ARG or FROM it cannot read.
    """
    build_args = dict(build_args or {})
    directives, instructions = parse_instructions(text, label)
    escape = directives.get("escape", "\\")
    global_args: list[Arg] = []
    scope: dict[str, str | None] = {}
    stages: list[Stage] = []
    stage_args: list[list[Arg]] = []  # each stage's ARGs, set once all are read
    earlier: dict[str, str] = {}  # the earlier stages' names, lower-cased (kept as they go: thousands of stages)
    for instruction in instructions:
        if instruction.keyword == "ARG":
            args = _parse_args(instruction, label)
            if not stages:
                global_args.extend(args)
                scope.update((arg.name, build_args.get(arg.name, arg.default)) for arg in args)
            else:
                stage_args[-1] += args
        elif instruction.keyword == "FROM":
            raw, platform, name = _parse_from(instruction, label)
            base, unresolved = expand(raw, scope, escape)
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
        directives=directives,
    )


def read(path: Path, label: str | None = None, build_args: Mapping[str, str] | None = None) -> Dockerfile:
    """Read and :func:`parse` the Dockerfile at ``path``.

    Raises :class:`ConfigError` ``label: not found`` / ``cannot read`` and parse errors.
    """

    label = label or path.name
    return parse(read_text(path, label), label, build_args)
