"""Planning the output in memory: upstream bytes + overlays + generated files, per chart and destination."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from gsvendor.config import ChartSpec, Config, FileSpec, Selector
from gsvendor.errors import ConfigError, GsvendorError, OverlayDefinitionError, SourceError, ToolError
from gsvendor.files import holding_files, normalize_whitespace
from gsvendor.generate.cache import GenerateCache
from gsvendor.generate.chart import exact_readme, generated_paths, project_reader, refuse_unemulated
from gsvendor.overlays.crdfield import crd_field_lookup
from gsvendor.overlays.engine import AppliedOperation, Overlay, apply_overlays, check_scope
from gsvendor.upstream.source import UpstreamSnapshot, Wanted
from gsvendor.yamlio import check_text

# (chart spec, chart-relative files) → helm's rendered manifests; raises GsvendorError on failure
Renderer = Callable[[ChartSpec, dict[str, bytes]], str]


@dataclass
class ChartBuild:
    """One chart's result: ``upstream`` (a rendered chart's: rendered without overlays) and ``files``, path → bytes;
    ``normalized``: the files whose whitespace was fixed, ``generated``: those the generators wrote."""

    spec: ChartSpec
    upstream: dict[str, bytes]
    files: dict[str, bytes]
    applied: list[AppliedOperation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    normalized: list[str] = field(default_factory=list)
    generated: list[str] = field(default_factory=list)

    @property
    def overlays(self) -> list[str]:
        """Names of the overlays that changed this chart, in the order they applied."""
        return list(dict.fromkeys(a.overlay for a in self.applied))


@dataclass(frozen=True)
class FileCopy:
    """One upstream file copied verbatim to a project path."""

    spec: FileSpec
    data: bytes


@dataclass(frozen=True)
class Output:
    """Everything a build writes: whole ``folders`` (destination → relative path → bytes) and single ``files``."""

    folders: dict[str, dict[str, bytes]]
    files: dict[str, bytes]


@dataclass
class Build:
    """The whole result of vendoring ``snapshot`` (one upstream tag) with the overlays."""

    snapshot: UpstreamSnapshot
    charts: list[ChartBuild]
    copies: list[FileCopy] = field(default_factory=list)

    def output(self) -> Output:
        """The merged output (charts sharing a destination folder contribute their files to it).
        Raises :class:`ConfigError` when two charts would write the same file."""
        folders: dict[str, dict[str, bytes]] = {}
        owners: dict[str, str] = {}
        for chart in self.charts:
            folder = folders.setdefault(chart.spec.dest, {})
            for path, data in chart.files.items():
                key = f"{chart.spec.dest}/{path}"
                if key in owners:
                    raise ConfigError(f"gsvendor.yaml: charts {owners[key]} and {chart.spec.name} both write {key}")
                owners[key] = chart.spec.name
                folder[path] = data
        return Output(folders=folders, files={c.spec.dest: c.data for c in self.copies})


def wanted_for(config: Config) -> Wanted:
    """The upstream paths ``sync`` reads: each chart's folder, each copied file, and ``go.mod``."""
    return Wanted(tuple(c.upstream_path for c in config.charts), ("go.mod", *(f.source for f in config.files)))


def chart_files(snapshot: UpstreamSnapshot, spec: ChartSpec) -> dict[str, bytes]:
    """The upstream files of one chart, chart-relative. Raises :class:`SourceError` when absent."""
    prefix = spec.upstream_path.rstrip("/") + "/"
    files = {p[len(prefix) :]: d for p, d in snapshot.files.items() if p.startswith(prefix)}
    if not files:
        raise SourceError(
            f"{snapshot.location}: upstream {snapshot.tag} has no {spec.upstream_path}/ (chart {spec.name})"
        )
    return files


def _wanted(spec: ChartSpec, path: str | None = None, kind: str = "", name: str = "") -> bool:
    """Whether ``include`` selects a file (``path``) or document (all when empty) and ``exclude`` does not."""

    def selected(selectors: tuple[Selector, ...]) -> bool:
        return any(
            (path is not None and fnmatch.fnmatchcase(path, s.path))
            if s.path is not None
            else fnmatch.fnmatchcase(kind, s.kind or "*") and fnmatch.fnmatchcase(name, s.name or "*")
            for s in selectors
        )

    return (not spec.include or selected(spec.include)) and not selected(spec.exclude)


_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)
_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*):")


def _head(document: str) -> str:
    """Only the ``kind`` and ``metadata`` entries of a YAML document (CRDs are megabytes)."""
    kept, keep = [], False
    for line in document.splitlines():
        keep = match.group(1) in ("kind", "metadata") if (match := _TOP_KEY.match(line)) else keep
        kept += [line] if keep else []
    return "\n".join(kept) + "\n"


def split_documents(spec: ChartSpec, manifests: str) -> dict[str, bytes]:
    """Split helm's output into one file per selected document, named by ``render.fileName``, each the
    document as rendered without helm's ``# Source:`` comment. Raises :class:`ConfigError` when two
    documents get one name, :class:`SourceError` for a name that is not a plain file name."""
    from ruamel.yaml import YAML

    assert spec.render is not None
    yaml = YAML(typ="safe")
    files: dict[str, bytes] = {}
    for chunk in _SEPARATOR.split(manifests):
        text = "\n".join(line for line in chunk.splitlines() if not line.startswith("# Source: ")).strip("\n")
        if not text.strip():
            continue
        check_text(text, f"{spec.name}: rendered manifests")
        document = yaml.load(_head(text))
        if not isinstance(document, dict):
            continue
        kind = str(document.get("kind", ""))
        metadata = document.get("metadata") or {}
        name = str(metadata.get("name", ""))
        if not _wanted(spec, kind=kind, name=name):
            continue
        file_name = spec.render.file_name.format(
            kind=kind, kind_lower=kind.lower(), name=name, namespace=metadata.get("namespace", "")
        )
        if "/" in file_name or "\0" in file_name or file_name.strip(".") == "":
            # the name comes from upstream's manifest: it must not lead out of the destination
            raise SourceError(
                f"chart {spec.name}: {kind} {name!r} gives the file name {file_name!r}, not a plain file name"
            )
        if file_name in files:
            raise ConfigError(f"gsvendor.yaml: chart {spec.name}: two documents are named {file_name}")
        files[file_name] = (text + "\n").encode()
    return files


def _normalized(files: dict[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """``files`` with whitespace fixed, and the paths changed."""
    out = {path: normalize_whitespace(files[path]) for path in sorted(files)}
    return out, [path for path, data in out.items() if data != files[path]]


def build(
    config: Config, snapshot: UpstreamSnapshot, overlays: list[Overlay], renderer: Renderer | None = None
) -> Build:
    """Vendor every configured chart and file of ``snapshot``: ``overlays`` applied, then the generated files, then
    the whitespace fixes. Raises :class:`SourceError` (missing upstream), the overlays'
    :class:`~gsvendor.errors.OverlayApplyError`, :class:`ToolError` (a rendered chart without ``renderer``) and the
    generators' errors (naming the chart folder)."""
    refuse_unemulated(config)
    check_scope(overlays, [c.name for c in config.charts])
    charts = []
    outside = project_reader(config)
    generator = GenerateCache(config.stamps)
    crd_fields = crd_field_lookup(snapshot.files, config.stamps)  # every chart's CRDs, parsed when a condition asks
    for spec in config.charts:
        upstream = chart_files(snapshot, spec)
        result = apply_overlays(spec.name, upstream, overlays, snapshot.tag, crd_fields)
        try:
            overlaid = generator.generate(
                result.files,
                chart_dir=(config.root / spec.dest).as_posix(),
                outside=outside,
                project_root=config.root.as_posix(),
                settings=config.generate,
            )
        except GsvendorError as exc:
            raise type(exc)(f"{spec.dest}: {exc}") from None
        generated = generated_paths(result.files, overlaid)
        if spec.render is None:
            files, normalized = _normalized({p: d for p, d in overlaid.items() if _wanted(spec, p)})
            for path in [p for p in generated if p in files and exact_readme(config, p)]:
                files[path] = overlaid[path]  # generate.readme.whitespace: helm-docs, its bytes as they are
                normalized = [p for p in normalized if p != path]
            upstream = {p: d for p, d in upstream.items() if _wanted(spec, p)}
        else:
            if renderer is None:
                raise ToolError(f"chart {spec.name} is vendored rendered, which needs helm")
            rendered = split_documents(spec, renderer(spec, overlaid))
            files, normalized = _normalized(rendered)
            # "upstream" of a rendered chart: upstream's chart rendered without overlays
            upstream = split_documents(spec, renderer(spec, upstream)) if result.applied else rendered
        if (odd := holding_files(files, files)) is not None:  # the swap would write it over a folder and stop
            raise OverlayDefinitionError(
                f"{spec.dest}/{odd}: a file, yet the chart has files inside it (a copy's to:?)"
            )
        charts.append(ChartBuild(spec, upstream, files, result.applied, result.skipped, normalized, generated))
    for file_spec in config.files:
        if file_spec.source not in snapshot.files:
            raise SourceError(f"{snapshot.location}: upstream {snapshot.tag} has no {file_spec.source}")
    return Build(snapshot, charts, [FileCopy(copied, snapshot.files[copied.source]) for copied in config.files])
