"""The generate workflow: regenerate the generated files of the vendored charts on disk (or check them)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from gsvendor.config import ChartSpec, Config
from gsvendor.errors import GsvendorError
from gsvendor.files import normalize_whitespace, read_tree, write_whole
from gsvendor.generate.cache import GenerateCache
from gsvendor.generate.chart import exact_readme, generated_paths, project_reader, refuse_unemulated


@dataclass
class ChartGeneration:
    """One chart's generation: ``desired``, the bytes of each generated file that differs from (or is
    missing on) the disk, by chart-relative path."""

    spec: ChartSpec
    desired: dict[str, bytes]

    @property
    def stale(self) -> list[str]:
        """The project-relative paths of ``desired``."""
        return [f"{self.spec.dest}/{path}" for path in self.desired]


def plan(config: Config, charts: list[str] | None = None) -> list[ChartGeneration]:
    """Regenerate the charts (``charts``, default all) from the disk, writing nothing. Raises
    :class:`~gsvendor.errors.ConfigError` for an unknown chart, ``NotSyncedError`` for a missing folder."""
    specs = [config.chart(name) for name in dict.fromkeys(charts)] if charts else list(config.charts)
    config.require_outputs([spec.name for spec in specs])
    refuse_unemulated(config)
    results = []
    generate = partial(GenerateCache(config.stamps).generate, outside=project_reader(config), settings=config.generate)
    for spec in specs:
        files = read_tree(config.root, spec.dest)
        try:
            generated = generate(
                files, chart_dir=(config.root / spec.dest).as_posix(), project_root=config.root.as_posix()
            )
        except GsvendorError as exc:
            raise type(exc)(f"{spec.dest}: {exc}") from None
        changed = generated_paths(files, generated)
        # sync writes files after pre-commit's whitespace fixes; do the same here
        fixed = {p: generated[p] if exact_readme(config, p) else normalize_whitespace(generated[p]) for p in changed}
        results.append(ChartGeneration(spec, {p: data for p, data in fixed.items() if files.get(p) != data}))
    return results


def generate(config: Config, charts: list[str] | None = None, *, check: bool = False) -> list[ChartGeneration]:
    """``gsvendor generate``: rewrite the stale generated files (with ``check``: none), as :func:`plan`."""
    results = plan(config, charts)
    for result in [] if check else results:
        for path, data in result.desired.items():
            write_whole(config.root / result.spec.dest / path, data)
    return results
