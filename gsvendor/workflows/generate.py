"""The generate workflow: regenerate the generated files of the vendored charts on disk (or check them)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor.config import ChartSpec, Config
from gsvendor.errors import GsvendorError
from gsvendor.files import normalize_whitespace, read_tree
from gsvendor.generate.cache import GenerateCache
from gsvendor.generate.chart import exact_readme, generated_paths, project_reader, refuse_unemulated


@dataclass
class ChartGeneration:
    """One chart's generation on disk: ``stale`` lists project-relative paths that differ (or are missing)."""

    spec: ChartSpec
    stale: list[str] = field(default_factory=list)


def plan(config: Config, charts: list[str] | None = None) -> list[tuple[ChartGeneration, dict[str, bytes]]]:
    """Regenerate the configured charts (or ``charts``) from what is on disk; nothing is written.

    Returns per chart the result and the desired bytes of each stale file (chart-relative).
    Raises :class:`~gsvendor.errors.ConfigError` for an unknown chart and
    :class:`~gsvendor.errors.NotSyncedError` for a chart folder that does not exist.
    """

    specs = [config.chart(name) for name in dict.fromkeys(charts)] if charts else list(config.charts)
    config.require_outputs([spec.name for spec in specs])
    refuse_unemulated(config)
    results = []
    generator = GenerateCache(config.stamps)
    for spec in specs:
        folder = config.root / spec.dest
        files = read_tree(config.root, spec.dest)
        try:
            generated = generator.generate(
                files,
                chart_dir=folder.as_posix(),
                outside=project_reader(config),
                project_root=config.root.as_posix(),
                settings=config.generate,
            )
        except GsvendorError as exc:
            raise type(exc)(f"{spec.dest}: {exc}") from None
        result = ChartGeneration(spec)
        desired: dict[str, bytes] = {}
        for path in generated_paths(files, generated):
            # sync writes files after pre-commit's whitespace fixes; do the same here
            data = generated[path] if exact_readme(config, path) else normalize_whitespace(generated[path])
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
