"""check-images: every image reference of the rendered charts and of their values.yaml judged by
the project's "Images" rule: every image the charts reference by default or with a feature switch
on is a ``gsoci.azurecr.io/`` reference (manifests, ConfigMap JSON blocks, values.yaml)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from gsvendor.images.documents import scan_manifests
from gsvendor.images.find import Found, Skipped, values_references
from gsvendor.images.reference import ImageReference, InvalidReference, parse
from gsvendor.images.render import Consumer, RenderedVariant, Rendering, render_charts
from gsvendor.images.variants import VALUES, ChartTarget, ImagesConfig, Variant

# Statuses of a reference. Templated and empty strings cannot be judged; they are listed, not failed.
ALLOWED, OFFENDER, INVALID, TEMPLATED, EMPTY = "allowed", "offender", "invalid", "templated", "empty"


def matches_prefix(text: str, prefix: str) -> bool:
    """Whether ``text`` starts with ``prefix`` at a name boundary (``/``, ``:``, ``@`` or the end), so
    ``gsoci.azurecr.io`` does not admit ``gsoci.azurecr.io.evil.com/x``."""
    rest = text[len(prefix) :]
    return text.startswith(prefix) and (prefix.endswith(("/", ":", "@")) or rest[:1] in ("", "/", ":", "@"))


@dataclass(frozen=True)
class Checked:
    """A found reference judged: ``status`` (above); ``reference`` when it parsed, else the parser's ``message``."""

    found: Found
    status: str
    reference: ImageReference | None = None
    message: str | None = None

    @property
    def normalized(self) -> str | None:
        """``docker.io/kserve/agent:v0.20.0``; ``None`` when it did not parse."""
        return self.reference.normalized if self.reference else None


def judge(found: Found, allow: Sequence[str]) -> Checked:
    """Parse ``found.written``; it is allowed when its normalized form (what the kubelet pulls) or its
    written form (so ``--allow kserve/`` means what it says) starts with a prefix of ``allow``."""
    try:
        reference = parse(found.written)
    except InvalidReference as exc:
        return Checked(found, exc.reason, message=str(exc))
    allowed = any(matches_prefix(reference.normalized, p) or matches_prefix(found.written, p) for p in allow)
    return Checked(found, ALLOWED if allowed else OFFENDER, reference)


@dataclass
class VariantResult:
    """One variant of one chart (or its values.yaml): the render's fields as :class:`RenderedVariant`'s (``problem``
    also a rendered document not read: its images unchecked), ``documents`` rendered, ``crds`` (not searched)."""

    chart: ChartTarget
    variant: Variant
    references: list[Checked] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    rendered: bool = False
    error: str | None = None
    expected_failure: bool = False
    problem: str | None = None
    documents: int = 0
    crds: int = 0
    seconds: float = 0.0

    @property
    def name(self) -> str:
        """The variant name."""
        return self.variant.name

    @property
    def failing(self) -> list[Checked]:
        """Offenders and invalid references."""
        return [c for c in self.references if c.status in (OFFENDER, INVALID)]

    @property
    def ok(self) -> bool:
        """No problem and no failing reference."""
        return self.problem is None and not self.failing


@dataclass
class CheckResult:
    """Everything check-images found: ``results`` in chart order, each chart's variants then values.yaml."""

    allow: tuple[str, ...]
    charts: list[ChartTarget]
    results: list[VariantResult]
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the check passes (exit 0)."""
        return all(r.ok for r in self.results)

    @property
    def references(self) -> int:
        """References checked, values.yaml included."""
        return sum(len(r.references) for r in self.results)

    @property
    def variants_rendered(self) -> int:
        """helm renders run (successful or not)."""
        return sum(1 for r in self.results if r.name != VALUES)

    def count(self, status: str) -> int:
        """References with ``status``."""
        return sum(1 for r in self.results for c in r.references if c.status == status)

    @property
    def problems(self) -> list[VariantResult]:
        """Variants that failed to render, or rendered against their declaration."""
        return [r for r in self.results if r.problem]


def images_consumer(settings: ImagesConfig, allow: Sequence[str] | None = None) -> Consumer:
    """check-images' consumer of :func:`render_charts` (under ``"images"``): a render → its :class:`VariantResult`."""
    prefixes = tuple(allow) if allow else settings.allow

    def judge_render(rendered: RenderedVariant) -> VariantResult:
        start = time.perf_counter()
        result = VariantResult(variant=rendered.variant, **rendered.verdict())
        if rendered.rendered:
            found, result.skipped, result.documents, result.crds = scan_manifests(rendered.manifests, rendered.chunks)
            result.references = [judge(item, prefixes) for item in found]
            result.problem = result.problem or next((s.reason for s in result.skipped if s.path == "(document)"), None)
        result.seconds = rendered.seconds + time.perf_counter() - start
        return result

    return judge_render


def images_result(rendering: Rendering, settings: ImagesConfig, allow: Sequence[str] | None = None) -> CheckResult:
    """check-images' result from a rendering made with :func:`images_consumer`, each chart's values.yaml judged too."""
    prefixes = tuple(allow) if allow else settings.allow
    results: list[VariantResult] = []
    for chart, values in zip(rendering.charts, rendering.values, strict=True):
        results += [r.outputs["images"] for r in rendering.variants if r.chart is chart]
        references = [judge(item, prefixes) for item in values_references(values.data, VALUES, values.lines)]
        results.append(VariantResult(chart, Variant(VALUES), references, problem=values.error))
    return CheckResult(allow=prefixes, charts=list(rendering.charts), results=results, seconds=rendering.seconds)


def check_images(
    charts: Sequence[ChartTarget], settings: ImagesConfig, helm: str, allow: Sequence[str] | None = None
) -> CheckResult:
    """Render every variant of every chart (one per CPU in parallel) and judge every image reference;
    ``allow`` (``--allow``) replaces ``settings.allow``. Raises :class:`~gsvendor.errors.ToolError`
    when helm cannot run."""
    rendering = render_charts(charts, settings, helm, {"images": images_consumer(settings, allow)})
    return images_result(rendering, settings, allow)
