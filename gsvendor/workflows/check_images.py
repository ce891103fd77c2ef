"""The check-images workflow: render every chart in its variants, judge each image reference, and
(with --resolve) ask the registries that every allowed reference exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.config import Config
from gsvendor.images.check import CheckResult, check_images
from gsvendor.images.render import find_helm
from gsvendor.images.variants import ChartTarget, ImagesConfig, chart_targets, images_config
from gsvendor.workflows import Progress, no_progress

if TYPE_CHECKING:  # the registry client loads only with --resolve
    from gsvendor.images.resolve import ResolveReport


@dataclass(frozen=True)
class ImagesRun:
    """What ``gsvendor check-images`` found: the render-and-judge result and, with --resolve, the lookups."""

    result: CheckResult
    resolved: ResolveReport | None = None

    @property
    def ok(self) -> bool:
        """No offender, invalid reference or render failure, and (when asked) every lookup resolved."""
        return self.result.ok and (self.resolved is None or self.resolved.ok)


def render_inputs(
    config: Config | None, chart_dirs: Sequence[Path], helm: str | None
) -> tuple[list[ChartTarget], ImagesConfig, str]:
    """The charts to render (``chart_dirs``, default every configured chart's output), the ``images``
    settings and helm. Raises the domain's errors for helm/ not synced, a missing chart or helm (exit 2)."""
    if not chart_dirs and config and (vendored := [c.name for c in config.charts if c.render is None]):
        config.require_outputs(vendored)  # one line naming gsvendor sync, as every command that reads helm/
    charts = chart_targets(list(chart_dirs), config)
    settings = images_config(config)
    return charts, settings, find_helm(helm, project_root=config.root if config else Path.cwd())


def run(
    config: Config | None,
    chart_dirs: Sequence[Path],
    *,
    allow: Sequence[str] | None = None,
    helm: str | None = None,
    registry: dict[str, Any] | None = None,
    progress: Progress = no_progress,
) -> ImagesRun:
    """Render and judge every chart (as :func:`render_inputs`), ``allow`` replacing the configured
    prefixes; ``registry``: the keyword arguments of :func:`gsvendor.images.resolve.cli_options`. Raises
    the domain's errors for a missing chart, helm or registry configuration (exit 2)."""
    charts, settings, helm_path = render_inputs(config, chart_dirs, helm)
    options = None
    if registry and any(registry.values()):  # the registry client loads only for a registry option
        from gsvendor.images.resolve import cli_options  # it checks these options (they need --resolve)

        options = cli_options(config, **registry)
    with progress(f"rendering {len(charts)} chart(s)"):
        result = check_images(charts, settings, helm_path, allow=allow)
    if options is None:
        return ImagesRun(result)
    from gsvendor.images.resolve import resolve_check

    with progress("asking the registries"):
        return ImagesRun(result, resolve_check(result, options))
