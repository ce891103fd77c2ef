"""Generated chart files: values.schema.json and README.md, in-process.

:func:`generate_chart` is pure (files in, files out) and is what ``sync`` (through
:func:`gsvendor.vendor.build`), ``verify`` and ``generate`` share, so the three always agree.
:func:`generate` is the ``gsvendor generate`` workflow on the charts on disk.

* values.schema.json: where the chart has ``.schema.yaml``, as helm-values-schema-json v2.5.0
  generates it and schemalint normalizes it (:mod:`gsvendor.schema`);
* README.md: where the chart has ``README.md.gotmpl``, as helm-docs v1.14.2 renders it
  (:mod:`gsvendor.readme`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor import readme, schema
from gsvendor.config import ChartSpec, Config
from gsvendor.errors import ConfigError, GsvendorError

README_TEMPLATE = readme.TEMPLATE_FILE
SCHEMA_CONFIG = schema.CONFIG_FILE


def generate_chart(
    files: dict[str, bytes], *, chart_dir: str = "/chart", outside: schema.Reader | None = None
) -> dict[str, bytes]:
    """Return ``files`` (chart-relative path → bytes) with the generated files regenerated.

    values.schema.json (the output named in ``.schema.yaml``) only where the chart has a
    ``.schema.yaml``; README.md only where it has a ``README.md.gotmpl`` (and a values.yaml, as
    helm-docs requires). The README sees the regenerated schema. ``chart_dir`` (absolute) and
    ``outside`` (a reader for absolute paths outside the chart) only matter for ``$ref`` bundling
    of files outside the chart. The input dict is not modified.

    Raises :class:`~gsvendor.schema.SchemaError` or :class:`~gsvendor.readme.ReadmeError` (exit 2)
    naming the file and key at fault.
    """
    out = dict(files)
    if SCHEMA_CONFIG in files:
        path, data = schema.generate_schema(files, SCHEMA_CONFIG, chart_dir, outside)
        out[path] = data
    if README_TEMPLATE in files:
        text = readme.render_readme(out, chart_dir=chart_dir)
        if text is not None:
            out["README.md"] = text
    return out


def generated_paths(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The paths :func:`generate_chart` added or changed, sorted."""
    return sorted(p for p in after if before.get(p) != after[p])


@dataclass
class ChartGeneration:
    """One chart's generation on disk: ``stale`` lists project-relative paths that differ (or are missing)."""

    spec: ChartSpec
    stale: list[str] = field(default_factory=list)


def project_reader(config: Config) -> schema.Reader:
    """A reader for files outside a chart (``$ref`` bundling, ``localRefs``): project files only.

    Paths outside the project and inside any chart's output folder read as absent, so that a
    build never depends on what a previous sync wrote.
    """
    root = config.root.resolve()
    outputs = [(config.root / spec.dest).resolve() for spec in config.charts]

    def read(path: str) -> bytes | None:
        candidate = Path(path).resolve()
        if not candidate.is_relative_to(root) or any(candidate.is_relative_to(o) for o in outputs):
            return None
        return candidate.read_bytes() if candidate.is_file() else None

    return read


def plan(config: Config, charts: list[str] | None = None) -> list[tuple[ChartGeneration, dict[str, bytes]]]:
    """Regenerate the configured charts (or ``charts``) from what is on disk; nothing is written.

    Returns per chart the result and the desired bytes of each stale file (chart-relative).
    Raises :class:`ConfigError` for an unknown chart or a chart folder that does not exist.
    """
    from gsvendor.vendor import normalize_whitespace
    from gsvendor.writer import read_tree

    specs = [config.chart(name) for name in dict.fromkeys(charts)] if charts else list(config.charts)
    results = []
    for spec in specs:
        folder = config.root / spec.dest
        if not folder.is_dir():
            raise ConfigError(f"chart {spec.name}: {spec.dest}/ does not exist (run gsvendor sync first)")
        files = read_tree(config.root, spec.dest)
        try:
            generated = generate_chart(files, chart_dir=folder.as_posix(), outside=project_reader(config))
        except GsvendorError as exc:
            raise type(exc)(f"{spec.dest}: {exc}") from None
        result = ChartGeneration(spec)
        desired: dict[str, bytes] = {}
        for path in generated_paths(files, generated):
            # sync writes files after pre-commit's whitespace fixes; do the same here
            data = normalize_whitespace(generated[path])
            if files.get(path) != data:
                result.stale.append(f"{spec.dest}/{path}")
                desired[path] = data
        results.append((result, desired))
    return results


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def generate(config: Config, charts: list[str] | None = None, *, check: bool = False) -> list[ChartGeneration]:
    """``gsvendor generate``: regenerate the charts' generated files on disk, or only check them.

    With ``check`` nothing is written. Returns every chart's result; ``stale`` names the files
    that were (or, with ``check``, would be) rewritten.
    """
    results = plan(config, charts)
    if not check:
        for result, desired in results:
            for path, data in desired.items():
                _write(config.root / result.spec.dest / path, data)
    return [result for result, _ in results]
