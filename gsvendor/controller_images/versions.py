"""Where the upstream version is written, and whether every place agrees with the source of truth: ``ARG
KSERVE_VERSION=<tag>`` in the pin Dockerfile (``pinDockerfile``), which Renovate bumps. The other places: ``ARG
KSERVE_VERSION`` of the other ``dockerfiles``; each vendored chart's ``Chart.yaml`` ``appVersion`` and
``values.yaml`` ``kserve.version`` (sync's chart-metadata overlay writes them); the lock's ``tag``. The Go check
holds each ``golang`` builder image to upstream's go.mod at the pinned tag (:func:`judge_go`)."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gsvendor.config import DEFAULT_DOCKERFILES, DEFAULT_PATCHES, DEFAULT_PIN_DOCKERFILE, Config
from gsvendor.controller_images import dockerfile
from gsvendor.errors import ConfigError, UsageError, shorten
from gsvendor.validation import line_of
from gsvendor.vendoring import lock as lockfile
from gsvendor.yamlio import load_yaml_document

PIN_ARG = "KSERVE_VERSION"


# Place statuses (only DIFFERS and MISSING are problems), then the Go check's.
PIN, AGREES, DIFFERS, MISSING, NOT_SYNCED = "pin", "agrees", "differs", "missing", "not synced"
GO_OK, GO_WARN, GO_FAIL = "ok", "warn", "fail"
_ABSENT = object()  # a key the YAML does not have


@dataclass(frozen=True)
class BuildInputs:
    """The build files of the project, from ``gsvendor.yaml`` or the defaults: ``dockerfiles`` (the pin
    Dockerfile included), ``pin_dockerfile`` and ``patches`` as POSIX paths relative to ``Config.root``."""

    dockerfiles: tuple[str, ...]
    pin_dockerfile: str
    patches: str


def build_inputs(config: Config) -> BuildInputs:
    """Read ``dockerfiles``, ``pinDockerfile`` and ``patches`` from the configuration (schema-checked)."""
    raw = config.raw or {}
    pin = str(PurePosixPath(str(raw.get("pinDockerfile", DEFAULT_PIN_DOCKERFILE))))
    files = [str(PurePosixPath(str(f))) for f in raw.get("dockerfiles", DEFAULT_DOCKERFILES)]
    patches = str(PurePosixPath(str(raw.get("patches", DEFAULT_PATCHES))))
    return BuildInputs(tuple(dict.fromkeys([*files, pin])), pin, patches)  # the pin Dockerfile last unless listed


@dataclass(frozen=True)
class Pin:
    """The pinned upstream version: ``value`` of ``ARG KSERVE_VERSION`` at ``file:line``."""

    file: str
    line: int
    value: str
    renovate: str | None = None


def read_pin(config: Config, tag_hint: str | None = None) -> Pin:
    """The tag the pin Dockerfile pins (``ARG KSERVE_VERSION=<tag>``), naming ``tag_hint`` (``--tag TAG``) when it
    is missing. Raises :class:`ConfigError` (exit 2): missing, unreadable, or no ARG KSERVE_VERSION with a value."""
    label = build_inputs(config).pin_dockerfile
    path = config.root / label
    if not os.path.lexists(path):  # a folder or a fifo in its place: dockerfile.read says "not a regular file"
        instead = f"give the tag ({tag_hint}) or " if tag_hint else ""
        pins = f"its ARG {PIN_ARG} pins the upstream version"
        raise ConfigError(f"{label}: not found; {pins}: {instead}set pinDockerfile in gsvendor.yaml")
    arg = dockerfile.read(path, label).pin(PIN_ARG, label)
    if arg is None or not (arg.default or "").strip():
        raise ConfigError(f"{label}: no ARG {PIN_ARG}=<tag> (the pinned upstream version)")
    return Pin(file=label, line=arg.line, value=str(arg.default).strip(), renovate=arg.renovate)


def pinned_tag(config: Config, tag_hint: str) -> str:
    """The pinned tag (:func:`read_pin`), checked against ``upstream.tagPattern``: a pin that breaks
    it is a :class:`ConfigError` naming the Dockerfile line (the user gave no tag to correct)."""
    pin = read_pin(config, tag_hint)
    try:
        config.check_tag(pin.value)
    except UsageError as exc:
        raise ConfigError(f"{pin.file}:{pin.line}: ARG {PIN_ARG}={pin.value}: {exc}") from None
    return pin.value


@dataclass(frozen=True)
class Place:
    """One place the upstream version is written: ``file`` project-relative, ``line`` 1-based or ``None``, ``key``
    what holds the version, ``value`` (``None`` when absent), ``status`` one of the place statuses above."""

    file: str
    line: int | None
    key: str
    value: str | None
    status: str
    note: str = ""

    @property
    def where(self) -> str:
        """``file:line`` (or ``file``)."""
        return f"{self.file}:{self.line}" if self.line else self.file


def _compare(pin: Pin, file: str, line: int | None, key: str, value: Any) -> Place:
    text = None if value is None else str(value)
    if text == pin.value:
        return Place(file, line, key, text, AGREES)
    return Place(file, line, key, text, DIFFERS, f"{pin.file}:{pin.line} pins {pin.value}")


def _yaml_place(pin: Pin, folder: Path, dest: str, name: str, keys: list[str]) -> Place | None:
    """The place of ``keys`` in ``dest/name``; ``None`` when the file or the key is absent."""
    path = folder / name
    document = value = load_yaml_document(path, f"{dest}/{name}") if path.is_file() else None
    for key in keys:
        value = value.get(key, _ABSENT) if isinstance(value, dict) else _ABSENT
    return None if value is _ABSENT else _compare(pin, f"{dest}/{name}", line_of(document, keys), ".".join(keys), value)


def version_places(config: Config, pin: Pin) -> list[Place]:
    """Every place the upstream version is written, compared with ``pin`` (see the module doc). Raises
    :class:`ConfigError` for a Dockerfile or chart YAML it cannot parse, :class:`LockError` for a bad lock."""
    places: list[Place] = []
    key = f"ARG {PIN_ARG}"
    for label in build_inputs(config).dockerfiles:
        path = config.root / label
        if label == pin.file:
            places.append(Place(label, pin.line, key, pin.value, PIN, "the source of truth (Renovate bumps it)"))
        elif not path.is_file():
            places.append(Place(label, None, key, None, MISSING, "file not found"))
        elif (arg := dockerfile.read(path, label).pin(PIN_ARG, label)) is None:
            places.append(Place(label, None, key, None, MISSING, f"no ARG {PIN_ARG}=<tag>"))
        else:
            places.append(_compare(pin, label, arg.line, key, arg.default))
    for chart in config.charts:
        folder = config.root / chart.dest
        if not folder.is_dir():
            places.append(
                Place(f"{chart.dest}/", None, "Chart.yaml appVersion", None, NOT_SYNCED, "chart not vendored")
            )
            continue
        app = _yaml_place(pin, folder, chart.dest, "Chart.yaml", ["appVersion"])
        if app is None or app.value is None:
            app = Place(f"{chart.dest}/Chart.yaml", None, "appVersion", None, MISSING, "no appVersion")
        values = _yaml_place(pin, folder, chart.dest, "values.yaml", ["kserve", "version"])
        places += [app, values] if values else [app]
    lock_label = config.lock_path.relative_to(config.root).as_posix()
    if not config.lock_path.exists():
        places.append(Place(lock_label, None, "tag", None, NOT_SYNCED, "no lock file: charts not synced yet"))
    else:
        lock = lockfile.read(config.lock_path, config.stamps)
        line = line_of(load_yaml_document(config.lock_path, lock_label), ["tag"])
        places.append(_compare(pin, lock_label, line, "tag", lock.tag))
    return places


@dataclass(frozen=True, order=True)
class GoVersion:
    """A Go version, ordered as Go orders them (``1.21`` < ``1.21beta1`` < ``1.21rc1`` < ``1.21.0``): ``key``
    ``(major, minor, stage, n)``, stage 0 a bare ``major.minor`` (``golang:1.25`` floats), 1 ``betaN``, 2
    ``rcN``, 3 ``major.minor.N``; ``text`` as written, without ``go``."""

    key: tuple[int, int, int, int]
    text: str = field(compare=False)

    def __str__(self) -> str:
        return self.text


# at most 18 digits a number: no Go version comes near, and int() refuses past 4300 digits
_GO_VERSION = re.compile(r"^(?:go)?(\d{1,18})\.(\d{1,18})(?:\.(\d{1,18})|(beta|rc)(\d{1,18}))?$")


def parse_go_version(text: str | None) -> GoVersion | None:
    """``1.25.8``, ``go1.25.8``, ``1.25``, ``1.25rc1`` → :class:`GoVersion`; anything else → ``None``."""
    match = _GO_VERSION.match((text or "").strip())
    if not match:
        return None
    major, minor, patch, pre, number = match.groups()
    stage = 3 if patch is not None else {"beta": 1, "rc": 2}.get(pre or "", 0)
    return GoVersion((int(major), int(minor), stage, int(patch or number or 0)), text.strip().removeprefix("go"))


def image_go_version(tag: str | None) -> GoVersion | None:
    """The Go version of a ``golang`` image tag: ``1.25.8-bookworm`` → 1.25.8; ``latest`` → ``None``."""
    return parse_go_version((tag or "").split("-", 1)[0])


@dataclass(frozen=True)
class GoMod:
    """The ``go`` and ``toolchain`` lines of a go.mod, as written."""

    go: str | None
    toolchain: str | None


def judge_go(builder: GoVersion | None, mod: GoMod) -> tuple[str, str]:
    """Judge a builder's Go version against upstream's go.mod: ``(ok|warn|fail, reason)``. Older than the ``go``
    line fails (the golang images set ``GOTOOLCHAIN=local``: Go refuses the module), older than ``toolchain`` too
    (upstream's binaries carry its fixes); the same major.minor at or above both passes (a floating
    ``golang:1.25`` too); a newer minor warns (it builds, but not with the Go upstream releases with)."""
    minimum, toolchain = parse_go_version(mod.go), parse_go_version(mod.toolchain)
    preferred = max(minimum, toolchain) if minimum and toolchain else minimum
    if minimum is None or preferred is None:
        return GO_WARN, f"upstream go.mod has no readable go line ({shorten(mod.go, 40)!r})"
    if builder is None:
        return GO_WARN, "cannot tell the Go version from the image tag"
    # a floating golang:1.25 (stage 0) pulls the newest 1.25.x: above every 1.25 version (stage 4)
    floating = builder.key[2] == 0
    newest = GoVersion((*builder.key[:2], 4, 0), builder.text) if floating else builder
    if newest < minimum:
        return GO_FAIL, f"older than upstream's go {mod.go}: go.mod requires at least {minimum}"
    if newest < preferred:  # the toolchain line: preferred is the newer of the two lines
        return GO_FAIL, f"older than upstream's toolchain {mod.toolchain}"
    if builder.key[:2] > preferred.key[:2]:
        return GO_WARN, f"newer minor than upstream's {preferred}: builds, but not with the Go upstream releases with"
    if floating:
        return GO_OK, f"floats to the newest {builder}.x (upstream needs {preferred} or later)"
    return GO_OK, f"matches upstream's {preferred}" if builder == preferred else f"at or above upstream's {preferred}"


@dataclass(frozen=True)
class GoBuilder:
    """One ``golang`` build stage and its verdict against upstream's go.mod."""

    file: str
    line: int
    stage: str
    image: str
    version: str | None
    status: str
    reason: str

    @property
    def where(self) -> str:
        """``file:line`` of the FROM line."""
        return f"{self.file}:{self.line}"


def go_builders(config: Config, mod: GoMod) -> list[GoBuilder]:
    """Every stage of every configured Dockerfile whose base image is ``golang`` (any registry), judged; a
    missing Dockerfile (the version table reports it) is skipped. A ``golang`` base that is no valid image
    reference (``golang:1.25.8@sha256:zzz``) fails: docker would refuse to build it."""
    found: list[GoBuilder] = []
    for label in build_inputs(config).dockerfiles:
        path = config.root / label
        for stage in dockerfile.read(path, label).stages if path.is_file() else ():
            name = stage.name or f"#{stage.index}"
            if (image := stage.image) is None:
                last = re.split(r"[@:]", stage.base.rsplit("/", 1)[-1])[0]  # the name before its tag or digest
                if stage.base_stage is None and last.lower() == "golang":
                    reason = "not a valid image reference (docker refuses to build it)"
                    found.append(GoBuilder(label, stage.line, name, stage.base, None, GO_FAIL, reason))
                continue
            if image.repository.rsplit("/", 1)[-1] != "golang":
                continue
            version = image_go_version(image.tag)
            shown = str(version) if version else None
            found.append(GoBuilder(label, stage.line, name, stage.base, shown, *judge_go(version, mod)))
    return found


@dataclass
class VersionsReport:
    """The result of ``gsvendor versions``: ``go_mod`` is ``None`` when the Go check was skipped;
    ``go_source`` where go.mod was read (``go_from_lock``: the lines the lock recorded at sync)."""

    pin: Pin
    places: list[Place]
    go_mod: GoMod | None = None
    go_source: str | None = None
    go_from_lock: bool = False
    builders: list[GoBuilder] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stale_lock: str | None = None  # the lock's tag when it is not the pin: the charts need a sync

    @property
    def problems(self) -> list[str]:
        """One line per place that disagrees with the pin, per failing Go builder, then the stale lock's fix."""
        # a place that differs notes the pin ("file:line pins tag")
        lines = [
            f"{p.where}: {p.key} is {p.value}, but {p.note}" if p.status == DIFFERS else f"{p.where}: {p.key}: {p.note}"
            for p in self.places
            if p.status in (DIFFERS, MISSING)
        ]
        lines += [f"{b.where}: {b.image} ({b.stage}): {b.reason}" for b in self.builders if b.status == GO_FAIL]
        if self.stale_lock is not None:
            pin = self.pin
            lines.append(f"helm/ and the lock are at {self.stale_lock}, {pin.file} pins {pin.value}: run gsvendor sync")
        return lines

    @property
    def warnings(self) -> list[str]:
        """One line per Go builder that builds but differs from upstream's Go."""
        return [f"{b.where}: {b.image} ({b.stage}): {b.reason}" for b in self.builders if b.status == GO_WARN]

    def as_json(self) -> dict[str, Any]:
        """The machine-readable form (``--json``)."""
        mod = self.go_mod
        go = mod and {"source": self.go_source, "goMod": asdict(mod), "builders": [asdict(b) for b in self.builders]}
        return {
            "pin": {"file": self.pin.file, "line": self.pin.line, "value": self.pin.value},
            "ok": not self.problems,
            "places": [asdict(p) for p in self.places],
            "go": go,
            "problems": self.problems,
            "warnings": self.warnings,
            "notes": self.notes,
        }
