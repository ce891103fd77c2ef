"""The check-manifests workflow: render every chart in check-images' variants once, validate the custom
resources against the project's CRDs, and (with ``images``) run check-images on the same rendering."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gsvendor.config import Config
from gsvendor.errors import UsageError
from gsvendor.images.check import images_consumer, images_result
from gsvendor.images.render import render_charts
from gsvendor.manifests.check import CONSUMER, ManifestsResult, check_manifests, label_policy, parse_rendered
from gsvendor.manifests.schema import warm_up
from gsvendor.workflows import Progress, no_progress
from gsvendor.workflows.check_images import ImagesRun, render_inputs


@dataclass(frozen=True)
class ManifestsRun:
    """What ``gsvendor check-manifests`` found; ``images``: check-images' result on the same rendering
    (``--images``)."""

    result: ManifestsResult
    images: ImagesRun | None = None

    @property
    def ok(self) -> bool:
        """Both checks pass."""
        return self.result.ok and (self.images is None or self.images.ok)


def run(
    config: Config | None,
    chart_dirs: Sequence[Path],
    *,
    helm: str | None = None,
    images: bool = False,
    allow: Sequence[str] | None = None,
    progress: Progress = no_progress,
) -> ManifestsRun:
    """Render ``chart_dirs`` (as check-images) and check them, with ``images`` the image references too. Raises
    :class:`~gsvendor.errors.UsageError` for ``allow`` without ``images``, the domain's errors otherwise (exit 2)."""
    if allow is not None and not images:
        raise UsageError("--allow needs --images (it is check-images' policy)")
    charts, settings, helm_path = render_inputs(config, chart_dirs, helm)
    policy = label_policy(config)
    warm_up()
    consumers = {CONSUMER: parse_rendered} | ({"images": images_consumer(settings, allow)} if images else {})
    with progress(f"rendering {len(charts)} chart(s)"):
        rendering = render_charts(charts, settings, helm_path, consumers)
    with progress("validating against the CRDs"):
        result = check_manifests(rendering, policy)
    result.seconds += rendering.seconds
    return ManifestsRun(result, ImagesRun(images_result(rendering, settings, allow)) if images else None)
