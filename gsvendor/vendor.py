"""Planning: upstream snapshot + overlays → the exact bytes of every vendored file.

Pure code (no disk writes): :func:`build` is what ``sync``, ``verify`` and ``diff`` share, so
the three can never disagree about what the output should be.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gsvendor.config import ChartSpec, Config
from gsvendor.errors import SourceError
from gsvendor.overlays import AppliedOperation, Overlay, apply_overlays
from gsvendor.upstream import UpstreamSnapshot, Wanted


@dataclass
class ChartBuild:
    """One chart's result. ``upstream`` and ``files`` map chart-relative paths to bytes.

    ``normalized`` lists the files whose whitespace was fixed as pre-commit's
    trailing-whitespace and end-of-file-fixer hooks would fix it; ``generated`` the files
    :func:`gsvendor.generate.generate_chart` wrote (values.schema.json, README.md).
    """

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

    def touched_by(self, path: str) -> list[str]:
        """``overlay operations[i] (kind)`` labels of every operation that touched ``path``."""
        return [f"{a.overlay} {a.operation}" for a in self.applied if path in a.files]


@dataclass
class Build:
    """The whole result of vendoring ``snapshot`` (one upstream tag) with the overlays."""

    snapshot: UpstreamSnapshot
    charts: list[ChartBuild]

    @property
    def tag(self) -> str:
        """The upstream tag built."""
        return self.snapshot.tag

    def desired(self) -> dict[str, dict[str, bytes]]:
        """Destination folder (project-relative) → chart-relative path → bytes."""
        return {c.spec.dest: c.files for c in self.charts}


def wanted_for(config: Config) -> Wanted:
    """The upstream paths ``sync`` reads: each chart's folder and ``go.mod``."""
    return Wanted(folders=tuple(c.upstream_path for c in config.charts), files=("go.mod",))


def normalize_whitespace(data: bytes) -> bytes:
    """Fix whitespace the way pre-commit-hooks' ``trailing-whitespace`` and ``end-of-file-fixer`` do.

    Trailing ASCII whitespace is stripped from every line (line endings kept); a non-empty file
    ends with exactly one line ending; a file of only line endings becomes empty. Binary files
    (holding a NUL byte) are returned unchanged, as those hooks skip them.
    """
    if b"\0" in data or not data:
        return data
    lines = data.splitlines(keepends=True)
    out = []
    for line in lines:
        if line.endswith(b"\r\n"):
            body, eol = line[:-2], b"\r\n"
        elif line.endswith(b"\n"):
            body, eol = line[:-1], b"\n"
        else:
            body, eol = line, b""
        out.append(body.rstrip() + eol)
    text = b"".join(out)
    stripped = text.rstrip(b"\r\n")
    if not stripped:
        return b""
    eol = b"\r\n" if text[len(stripped) :].startswith(b"\r\n") else b"\n"
    return stripped + eol


def chart_files(snapshot: UpstreamSnapshot, spec: ChartSpec) -> dict[str, bytes]:
    """The upstream files of one chart, chart-relative. Raises :class:`SourceError` when absent."""
    prefix = spec.upstream_path.rstrip("/") + "/"
    files = {p[len(prefix) :]: d for p, d in snapshot.files.items() if p.startswith(prefix)}
    if not files:
        raise SourceError(
            f"{snapshot.location}: upstream {snapshot.tag} has no {spec.upstream_path}/ (chart {spec.name})"
        )
    return files


def build(config: Config, snapshot: UpstreamSnapshot, overlays: list[Overlay]) -> Build:
    """Vendor every configured chart of ``snapshot`` and apply ``overlays``.

    Generated files (values.schema.json, README.md) are regenerated after the overlays and
    before the whitespace fixes (:func:`gsvendor.generate.generate_chart`).

    Raises :class:`SourceError` when a chart is missing upstream,
    :class:`~gsvendor.errors.OverlayApplyError` when an overlay no longer applies, and the
    schema or README generation errors (naming the chart folder).
    """
    from gsvendor.errors import GsvendorError
    from gsvendor.generate import generate_chart, generated_paths, project_reader

    charts = []
    outside = project_reader(config)
    for spec in config.charts:
        upstream = chart_files(snapshot, spec)
        result = apply_overlays(spec.name, upstream, overlays, snapshot.tag)
        try:
            overlaid = generate_chart(result.files, chart_dir=(config.root / spec.dest).as_posix(), outside=outside)
        except GsvendorError as exc:
            raise type(exc)(f"{spec.dest}: {exc}") from None
        generated = generated_paths(result.files, overlaid)
        files: dict[str, bytes] = {}
        normalized = []
        for path in sorted(overlaid):
            data = normalize_whitespace(overlaid[path])
            if data != overlaid[path]:
                normalized.append(path)
            files[path] = data
        charts.append(
            ChartBuild(
                spec=spec,
                upstream=upstream,
                files=files,
                applied=result.applied,
                skipped=result.skipped,
                normalized=normalized,
                generated=generated,
            )
        )
    return Build(snapshot=snapshot, charts=charts)
