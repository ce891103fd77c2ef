"""The declared configuration, ``gsvendor.yaml`` at the project root (its relative paths are relative to
its folder), validated with :data:`CONFIG_SCHEMA`; each mistake reported as ``file:line: key: what is wrong``."""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gsvendor.config_schema import CONFIG_SCHEMA, OUTSIDE
from gsvendor.errors import ConfigError, NotSyncedError, UsageError, closest, did_you_mean
from gsvendor.yamlio import YamlFile, load_validated

CONFIG_FILE = "gsvendor.yaml"

DEFAULT_ARCHIVE_URL = "https://github.com/${repository}/archive/refs/tags/${tag}.tar.gz"
# An upstream release tag: v<semver>, with an optional pre-release (v0.20.0, v0.21.0-rc1, v1.0.0-rc.1)
DEFAULT_TAG_PATTERN = r"^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"

# Build inputs read by `versions`, `patch-verify` and a TAG-less `sync` (gsvendor/versions.py).
DEFAULT_DOCKERFILES = ("Dockerfile", "Dockerfile.llmisvc")
DEFAULT_PIN_DOCKERFILE = "Dockerfile.llmisvc"
DEFAULT_PATCHES = "patches/llmisvc"
MATCH_SECONDS = 5.0  # one search of an overlay's or check variant's pattern (the regex module; re has no limit)
_REPEAT = re.compile(r"\{(\d{1,12})(?:,(\d{1,12}))?\}")  # longer: the regex module's own "repeat count too big"


def compile_pattern(text: str, flags: int = 0) -> Any:
    """``regex.compile(text, flags)`` (the module of every user pattern), refusing repeat counts that multiply past
    100,000: ``regex`` expands them while compiling (``(a|b){2000000000}`` took 23 GB). Raises ``regex.error``."""
    import regex  # ~12 ms to import: only where a pattern is used

    if math.prod(max(int(n or 0) for n in bounds) or 1 for bounds in _REPEAT.findall(text)) > 100_000:
        raise regex.error("its repeat counts multiply past 100000")
    return regex.compile(text, flags)


_Claims = dict[PurePosixPath, tuple[str, bool]]  # destination → what writes it, whether a folder


@dataclass(frozen=True)
class GenerateSettings:
    """``generate:`` of gsvendor.yaml. ``sort_values_order``: ``alphabetical`` (helm-docs v1.14.2's
    ``--sort-values-order alphanum``) or ``file``; ``normalize``: ``none`` (helm-values-schema-json v2.5.0)
    or ``schemalint`` (schemalint v2.6.1's ``normalize``); ``whitespace``: ``pre-commit`` (README.md after
    pre-commit-hooks' whitespace fixers) or ``helm-docs``; the other fields: helm-docs' flags of those names."""

    sort_values_order: str = "alphabetical"
    normalize: str = "none"
    template_files: tuple[str, ...] = ("README.md.gotmpl",)
    badge_style: str = "flat-square"
    skip_version_footer: bool = False
    ignore_non_descriptions: bool = False
    whitespace: str = "pre-commit"

    @property
    def helm_docs_sort_order(self) -> str:
        """The value of helm-docs' ``--sort-values-order`` flag."""
        return "file" if self.sort_values_order == "file" else "alphanum"


@dataclass(frozen=True)
class Selector:
    """Selects files (``path`` glob, charts vendored as source) or documents (``kind``/``name`` globs, rendered)."""

    path: str | None = None
    kind: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class RenderSpec:
    """Vendor a chart's rendered manifests (``helm template``), one document per file named by ``file_name``
    from ``{kind}``, ``{kind_lower}``, ``{name}`` and ``{namespace}``; ``values_files`` are project-relative."""

    release: str = "release"
    namespace: str = "default"
    values: dict[str, Any] = field(default_factory=dict)
    values_files: tuple[str, ...] = ()
    file_name: str = "{kind_lower}-{name}.yaml"


@dataclass(frozen=True)
class ChartSpec:
    """One vendored chart: ``upstream_path`` (upstream-relative) copied to ``dest`` (project-relative, may
    be shared by charts whose files do not collide), rendered when ``render``, filtered by ``include``/``exclude``."""

    name: str
    upstream_path: str
    dest: str
    render: RenderSpec | None = None
    include: tuple[Selector, ...] = ()
    exclude: tuple[Selector, ...] = ()


@dataclass(frozen=True)
class FileSpec:
    """One single upstream file (``source``, upstream-relative) copied to ``dest`` (project-relative)."""

    source: str
    dest: str


@dataclass(frozen=True)
class Config:
    """The parsed configuration. Paths are absolute; ``dest`` of charts stays project-relative."""

    path: Path
    root: Path
    repository: str
    archive_url: str
    git_url: str
    output: str
    overlays_dir: Path
    lock_path: Path
    charts: tuple[ChartSpec, ...]
    files: tuple[FileSpec, ...] = ()
    generate: GenerateSettings = field(default_factory=GenerateSettings)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    tag_pattern: str = DEFAULT_TAG_PATTERN
    source: YamlFile | None = field(default=None, compare=False, repr=False)
    # validation stamps (load_validated): where the overlays' stamps live too
    stamps: Path | None = field(default=None, compare=False, repr=False)

    def check_tag(self, tag: str) -> None:
        """Raise :class:`UsageError` unless ``tag`` matches ``upstream.tagPattern`` (hinting v0.20.0 for 0.20.0),
        or when a search takes :data:`MATCH_SECONDS` (``^(a|a)*$`` ran for ever)."""
        pattern = compile_pattern(self.tag_pattern)
        try:
            if pattern.search(tag, timeout=MATCH_SECONDS):
                return
            candidates = [f"v{tag}", tag.lower(), tag[1:] if tag[:1] in "vV" else tag]
            meant = next((c for c in candidates if c != tag and pattern.search(c, timeout=1)), None)
        except TimeoutError:
            raise UsageError(f"upstream.tagPattern: {self.tag_pattern!r} took too long on {tag!r}") from None
        hint = f"; did you mean {meant}?" if meant else ""
        wanted = (
            "v<major>.<minor>.<patch>[-<pre-release>]" if self.tag_pattern == DEFAULT_TAG_PATTERN else self.tag_pattern
        )
        raise UsageError(f"{tag!r} is not a release tag of {self.repository} (upstream.tagPattern: {wanted}){hint}")

    def chart(self, name: str) -> ChartSpec:
        """Return the chart called ``name``; raises :class:`ConfigError` naming the known charts."""
        known = [c.name for c in self.charts]
        if name in known:
            return self.charts[known.index(name)]
        hint = did_you_mean(name, known)
        raise ConfigError(f"{self.path.name}: charts: no chart named {name!r} (known: {', '.join(known)}){hint}")

    def holds(self, folder: Path) -> bool:
        """Whether ``folder`` (links followed) is in the project root, the output folder or a chart's
        ``dest``, each of which may be a link elsewhere (``helm -> /data/helm``: sync writes through it)."""
        return folder.resolve().is_relative_to(self.root.resolve()) or self.writes(folder)

    def writes(self, path: Path) -> bool:
        """Whether sync writes ``path`` (links followed): the lock, or in the output folder or a chart's ``dest``."""
        at, places = path.resolve(), [self.root / d for d in (self.output, *(c.dest for c in self.charts))]
        return at == self.lock_path.resolve() or any(at.is_relative_to(place.resolve()) for place in places)

    def require_outputs(self, names: list[str] | None = None) -> None:
        """Raise :class:`NotSyncedError` when a chart output folder is missing (one line, not a flood of diffs)."""
        specs = [self.chart(name) for name in dict.fromkeys(names)] if names else self.charts
        missing = list(dict.fromkeys(f"{s.dest}/" for s in specs if not (self.root / s.dest).is_dir()))
        if not missing:
            return
        output = f"{self.output.rstrip('/')}/"
        if len(missing) > 1 and not (self.root / output).is_dir() and all(m.startswith(output) for m in missing):
            raise NotSyncedError(f"{output} does not exist: run gsvendor sync")
        more = f" (and {len(missing) - 1} more chart folder(s))" if len(missing) > 1 else ""
        raise NotSyncedError(f"{missing[0]} does not exist{more}: run gsvendor sync{self._misspelt(missing[0])}")

    def _misspelt(self, missing: str) -> str:
        """A hint naming a folder of no configured chart, with a close name, beside the ``missing`` one, or ``""``."""
        folder = PurePosixPath(missing)
        configured = {os.path.normpath(self.root / chart.dest) for chart in self.charts}
        try:
            beside = [
                entry.name
                for entry in os.scandir(self.root / folder.parent)
                if entry.is_dir() and not entry.name.startswith(".") and os.path.normpath(entry.path) not in configured
            ]
        except OSError:
            return ""
        close = closest(folder.name, beside)
        return f" (or is the chart name in {self.path.name} misspelt: {folder.parent / close}/ exists)" if close else ""

    def archive_url_for(self, tag: str) -> str:
        """The tarball URL of ``tag`` (``archiveUrl`` with ``${repository}`` and ``${tag}`` expanded)."""
        return self.archive_url.replace("${repository}", self.repository).replace("${tag}", tag)


def find_config() -> Path:
    """The nearest ``gsvendor.yaml`` in the current folder or a parent; raises :class:`ConfigError` if none."""
    here = Path.cwd().resolve()
    for candidate in (folder / CONFIG_FILE for folder in (here, *here.parents)):
        if candidate.exists() or candidate.is_symlink():  # not a regular file: load_config says so
            return candidate
    raise ConfigError(
        f"{CONFIG_FILE}: not found in this folder or any parent (run gsvendor in a project, or give --config)"
    )


def load_config(path: Path | None = None, stamps: Path | None = None) -> Config:
    """The configuration at ``path``, or the nearest (:func:`find_config`), validated (``stamps``: see
    :func:`load_validated`). Raises :class:`ConfigError` for a missing file, invalid YAML, a schema
    violation or overlapping destinations, naming the file by ``path`` unless found or in this folder."""
    label = CONFIG_FILE if path is None else path.name if path.resolve().parent == Path.cwd().resolve() else str(path)
    path = (path or find_config()).resolve()
    file = load_validated(path, CONFIG_SCHEMA, label, stamps)
    data = file.data
    root = path.parent
    upstream = data["upstream"]
    output = str(data.get("output", "helm"))
    charts: list[ChartSpec] = []
    seen: _Claims = {}
    for index, entry in enumerate(data["charts"]):
        entry = {"name": entry} if isinstance(entry, str) else entry
        name = str(entry["name"])
        dest = str(PurePosixPath(entry.get("dest", f"{output}/{name}")))
        # the line is looked up (a round-trip parse) only for a message
        where = functools.partial(file.where, ["charts", index], f": charts[{index}]")
        if name in {c.name for c in charts}:
            raise ConfigError(f"{where()}: chart {name!r} is listed twice")
        render = None
        if "render" in entry:
            r = entry["render"]
            pattern, values = r.get("fileName", RenderSpec.file_name), r.get("values", {})
            try:  # every placeholder known, braces balanced, and no folder in the name
                probe = pattern.format(kind="K", kind_lower="k", name="n", namespace="ns")
            except (KeyError, ValueError, IndexError) as exc:
                raise ConfigError(
                    f"{where()}: render.fileName: {pattern!r} is not a file name pattern "
                    f"({type(exc).__name__}: {exc}; placeholders: {{kind}}, {{kind_lower}}, {{name}}, {{namespace}})"
                ) from None
            if "/" in probe or probe in (".", ".."):
                raise ConfigError(f"{where()}: render.fileName: {pattern!r} must name a file, not a path")
            try:  # written for helm as JSON (images/render.py): a date, !!binary or !!set cannot be
                json.dumps(values)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{where()}: render.values: a value helm cannot take as JSON ({exc})") from None
            render = RenderSpec(
                r.get("release", name), r.get("namespace", "default"), values, tuple(r.get("valuesFiles", ())), pattern
            )
        selectors = {}
        for key in ("include", "exclude"):
            items = tuple(
                Selector(path=i) if isinstance(i, str) else Selector(kind=i.get("kind"), name=i.get("name"))
                for i in entry.get(key, ())
            )
            if any((s.path is None) != (render is not None) for s in items):
                wanted = "{kind, name} selectors (the chart is rendered)" if render else "path globs"
                raise ConfigError(f"{where()}: {key}: use {wanted}")
            selectors[key] = items
        _claim(seen, dest, f"chart {name}", where, folder=True)
        charts.append(ChartSpec(name, str(entry.get("path", f"charts/{name}")), dest, render, **selectors))
    files = [
        FileSpec(str(PurePosixPath(entry["from"])), str(PurePosixPath(entry["to"]))) for entry in data.get("files", ())
    ]
    for index, spec in enumerate(files):
        where = functools.partial(file.where, ["files", index], f": files[{index}]")
        _claim(seen, spec.dest, f"files[{index}]", where, folder=False)
    lock = str(PurePosixPath(data.get("lock", "gsvendor.lock.yaml")))
    # what gsvendor writes stays in the project even when a planted validation stamp skipped the schema
    for written in (output, lock, *(c.dest for c in charts), *(f.dest for f in files)):
        if not written or re.search(OUTSIDE, written):
            raise ConfigError(f"{label}: {written!r} must be a relative path inside the project")
    for other, (owner, _) in seen.items():
        if PurePosixPath(lock) == other or other in PurePosixPath(lock).parents:
            raise ConfigError(f"{label}: lock: {lock} is inside {other}, which {owner} writes")
    overlays_dir = root / str(data.get("overlays", "overlays"))
    if "overlays" in data and not overlays_dir.is_dir():  # a typo must not drop every overlay
        raise ConfigError(f"{file.where(['overlays'])}: overlays: {overlays_dir} is not a folder")
    generate = _generate_settings(data.get("generate", {}), file)
    tag_pattern = str(upstream.get("tagPattern", DEFAULT_TAG_PATTERN))
    try:
        compile_pattern(tag_pattern)
    except Exception as exc:  # regex.error: its import waits for a pattern
        raise ConfigError(
            f"{file.where(['upstream', 'tagPattern'])}: upstream.tagPattern: {tag_pattern!r} "
            f"is not a regular expression ({exc})"
        ) from None
    return Config(
        path=path,
        root=root,
        repository=str(upstream["repository"]),
        archive_url=str(upstream.get("archiveUrl", DEFAULT_ARCHIVE_URL)),
        git_url=str(upstream.get("gitUrl", f"https://github.com/{upstream['repository']}.git")),
        output=output,
        overlays_dir=overlays_dir,
        lock_path=root / lock,
        charts=tuple(charts),
        files=tuple(files),
        generate=generate,
        raw=data,
        tag_pattern=tag_pattern,
        source=file,
        stamps=stamps,
    )


def _generate_settings(generate: dict[str, Any], file: YamlFile) -> GenerateSettings:
    """``generate:`` as :class:`GenerateSettings`; helm-docs options not emulated are refused by name."""
    readme = generate.get("readme", {})
    if readme.get("documentDependencyValues"):
        where = file.where(["generate", "readme", "documentDependencyValues"])
        raise ConfigError(
            f"{where}: generate.readme.documentDependencyValues: helm-docs' --document-dependency-values "
            "is not emulated (subcharts get README.md files of their own)"
        )
    for index, name in enumerate(readme.get("templateFiles", [])):
        if "/" in name or name in (".", ".."):
            where = file.where(["generate", "readme", "templateFiles", index])
            raise ConfigError(
                f"{where}: generate.readme.templateFiles[{index}]: {name!r}: only file names in the chart folder "
                "are emulated (helm-docs reads ./ and ../ paths from the search root)"
            )
    return GenerateSettings(
        sort_values_order=str(readme.get("sortValuesOrder", "alphabetical")),
        normalize=str(generate.get("schema", {}).get("normalize", "none")),
        template_files=tuple(str(name) for name in readme.get("templateFiles", ["README.md.gotmpl"])),
        badge_style=str(readme.get("badgeStyle", "flat-square")),
        skip_version_footer=bool(readme.get("skipVersionFooter", False)),
        ignore_non_descriptions=bool(readme.get("ignoreNonDescriptions", False)),
        whitespace=str(readme.get("whitespace", "pre-commit")),
    )


def _claim(seen: _Claims, dest: str, owner: str, where: Callable[[], str], *, folder: bool) -> None:
    """Register ``dest`` (a folder when ``folder``); folders may be shared by charts, nothing else may overlap."""
    path = PurePosixPath(dest)
    for other_path, (other, other_folder) in seen.items():
        charts = folder and other_folder
        if path == other_path and charts:
            continue  # charts sharing one folder: their files must not collide (checked when built)
        if path == other_path or path in other_path.parents or other_path in path.parents:
            # vendoring writes a chart's folder whole; generate documents the charts inside it
            outer = other if other_path in path.parents else owner
            hint = f" (a chart inside another chart's folder comes with it: list only {outer})" if charts else ""
            raise ConfigError(f"{where()}: destination {dest} overlaps {other_path} of {other}{hint}")
    seen[path] = (owner, folder)
