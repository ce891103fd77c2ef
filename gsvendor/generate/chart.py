"""Generating one chart's files in memory: values.schema.json and README.md from the chart's own files."""

from __future__ import annotations

import posixpath
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from gsvendor.config import Config, GenerateSettings
from gsvendor.errors import ConfigError

if TYPE_CHECKING:
    from gsvendor.generate.schema.config import Reader


def generate_chart(
    files: dict[str, bytes],
    *,
    chart_dir: str = "/chart",
    outside: Reader | None = None,
    project_root: str | None = None,
    settings: GenerateSettings | None = None,
) -> dict[str, bytes]:
    """A copy of ``files`` (chart-relative path → bytes) with the schema named in ``.schema.yaml`` (if any),
    then README.md in every folder with a Chart.yaml and a values.yaml, regenerated. ``chart_dir``: the
    chart's absolute folder; ``project_root``: where Giant Swarm's pre-commit runs the tools (default: the
    chart folder); ``outside`` reads absolute paths outside the chart. Raises
    :class:`~gsvendor.generate.schema.model.SchemaError` or :class:`~gsvendor.generate.readme.chart.ReadmeError`
    (exit 2) naming the file and key at fault."""
    # the generators load here: a run whose charts come from the cache (generate/cache.py) needs none
    from gsvendor.generate.readme.template import render_readme
    from gsvendor.generate.schema.config import CONFIG_FILE as SCHEMA_CONFIG
    from gsvendor.generate.schema.output import generate_schema

    settings = settings or GenerateSettings()
    out = dict(files)
    parsed: dict[bytes, Any] = {}  # values.yaml parsed once: the schema reads the tree, then the README
    if SCHEMA_CONFIG in files:
        path, data = generate_schema(
            files, chart_dir, outside, cwd=project_root, normalize=settings.normalize, parsed=parsed
        )
        out[path] = data
    # helm-docs documents every folder below its search root that holds a Chart.yaml: the chart and
    # any chart inside it (charts/<sub>/), each from the files as they were before any README is written
    before = dict(out)
    # .ChartDirectory: relative to where helm-docs runs (the chart folder by default), as given when outside it
    chart, root = PurePosixPath(chart_dir), PurePosixPath(chart_dir if project_root is None else project_root)
    folder = chart.relative_to(root).as_posix() if chart.is_relative_to(root) else chart_dir
    for prefix in chart_folders(before):
        inner = {p[len(prefix) :]: d for p, d in before.items() if p.startswith(prefix)} if prefix else before
        text = render_readme(inner, None, posixpath.normpath(posixpath.join(folder, prefix)), parsed, settings)
        if text is not None:
            out[f"{prefix}README.md"] = text
    return out


def chart_folders(files: dict[str, bytes]) -> list[str]:
    """The folders of ``files`` holding a Chart.yaml as sorted path prefixes (``""``, ``charts/b/``)."""
    return sorted(p[: -len("Chart.yaml")] for p in files if p == "Chart.yaml" or p.endswith("/Chart.yaml"))


def refuse_unemulated(config: Config) -> None:
    """Raise :class:`~gsvendor.errors.ConfigError` (exit 2) for a ``.helmdocsignore`` in the project root:
    helm-docs skips the chart folders it names, which gsvendor does not emulate."""
    if (config.root / ".helmdocsignore").exists():
        raise ConfigError(
            ".helmdocsignore: helm-docs' ignore file is not emulated: gsvendor documents every chart "
            "folder of the configured charts; remove it"
        )


def exact_readme(config: Config, path: str) -> bool:
    """Whether the generated ``path`` is written as helm-docs wrote it: a README.md under ``whitespace: helm-docs``."""
    return config.generate.whitespace == "helm-docs" and (path == "README.md" or path.endswith("/README.md"))


def generated_paths(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The paths :func:`generate_chart` added or changed, sorted."""
    return sorted(p for p in after if before.get(p) != after[p])


def project_reader(config: Config) -> Reader:
    """A reader for files outside a chart (``$ref`` bundling, ``localRefs``): project files only;
    paths inside any chart's output folder read as absent (a build never depends on a previous sync)."""
    root = config.root.resolve()
    outputs = [(config.root / spec.dest).resolve() for spec in config.charts]

    def read(path: str) -> bytes | None:
        candidate = Path(path).resolve()
        if not candidate.is_relative_to(root) or any(candidate.is_relative_to(o) for o in outputs):
            return None
        return candidate.read_bytes() if candidate.is_file() else None

    return read
