"""Every chart × variant rendered once with helm, in parallel (:func:`render_charts` → a
:class:`Rendering` of one :class:`RenderedVariant` each), shared by check-images and
check-manifests: each check is a consumer run on every render in the worker that made it, so
``gsvendor check-manifests --images`` runs helm once per variant for both."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.images import render
from gsvendor.images.documents import split_documents
from gsvendor.images.find import key_lines
from gsvendor.images.render import Renders, chart_size, renderable_copy
from gsvendor.images.variants import DEFAULTS, ChartTarget, ImagesConfig, Variant, discover_switches, plan_variants
from gsvendor.signals import Deferred
from gsvendor.yamlio import load_single_safe as load_single

if TYPE_CHECKING:
    from concurrent.futures import Future


@dataclass
class RenderedVariant:
    """One ``helm template`` run of a chart variant, shared by every check that reads manifests.

    ``manifests``: helm's output (empty when it failed); ``error``: helm's message, without its
    ``--debug`` advice; ``outcome``: the variant's verdict on the render itself —
    ``expected_failure`` when it failed as declared, ``problem`` when it failed undeclared, failed
    with another message, or rendered although declared to fail; ``outputs``: what each consumer
    of :func:`render_charts` made of it, by consumer name.
    """

    chart: ChartTarget
    variant: Variant
    manifests: str = ""
    error: str | None = None
    expected_failure: bool = False
    problem: str | None = None
    seconds: float = 0.0
    outputs: dict[str, Any] = field(default_factory=dict)
    _chunks: list[str] | None = field(default=None, repr=False)

    @property
    def rendered(self) -> bool:
        """Whether helm rendered without error."""
        return self.error is None

    def verdict(self) -> dict[str, Any]:
        """``chart``, ``rendered``, ``error``, ``expected_failure`` and ``problem``: the fields every
        check's per-variant result repeats from the render."""
        return {
            "chart": self.chart,
            "rendered": self.rendered,
            "error": self.error,
            "expected_failure": self.expected_failure,
            "problem": self.problem,
        }

    def chunks(self) -> list[str]:
        """``manifests`` split into YAML documents (:func:`split_documents`), once for every consumer."""
        if self._chunks is None:
            self._chunks = split_documents(self.manifests)
        return self._chunks


def render_one(
    helm: str, chart: ChartTarget, copy: Path, variant: Variant, consumers: Mapping[str, Consumer], group: Renders
) -> RenderedVariant:
    """Run helm for ``variant`` of ``chart`` on its renderable ``copy``, judge the render against
    ``expect_failure``, and run every consumer on it. ``group``: the renders an interrupt ends.
    Raises :class:`~gsvendor.errors.ToolError` only when helm cannot run at all.
    """
    start = time.perf_counter()
    output = render.template(
        helm,
        copy,
        values_files=variant.values_files,
        set_values=variant.set_values,
        set_json=variant.set_json,
        prepared=True,
        group=group,
    )
    result = RenderedVariant(chart=chart, variant=variant)
    expect = variant.expect_failure
    if not output.ok:
        # helm's advice to pass --debug concerns its own command line, not the check's
        result.error = (output.error or "").removesuffix(" Use --debug flag to render out invalid YAML")
        if expect is not None and expect.search(result.error):
            result.expected_failure = True
        elif expect is not None:
            result.problem = f"failed, but not as declared (expectFailure /{expect.pattern}/): {result.error}"
        else:
            result.problem = f"failed to render: {result.error}"
    else:
        result.manifests = output.manifests
        if expect is not None:
            result.problem = f"rendered, but is declared to fail (expectFailure /{expect.pattern}/)"
    result.seconds = time.perf_counter() - start
    for name, consume in consumers.items():
        result.outputs[name] = consume(result)
    return result


@dataclass(frozen=True)
class ChartValues:
    """A chart's values.yaml: ``data`` (plain Python, ``None`` when absent), ``lines`` (key path → line),
    ``error`` (``file:line: invalid YAML: …``) when it cannot be read."""

    data: Any = None
    lines: Mapping[tuple[str | int, ...], int] = field(default_factory=dict)
    error: str | None = None


def load_values(chart: ChartTarget) -> ChartValues:
    """Read ``values.yaml`` of ``chart`` with libyaml, once: the data, and the line of every key.

    Never raises for a broken file: a values.yaml that is not YAML is the chart's problem (exit 1),
    reported in its ``values.yaml`` group; helm fails on it in every variant too.
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    path = chart.path / "values.yaml"
    label = f"{chart.label}/values.yaml"
    if not path.is_file():
        return ChartValues()
    try:
        text = path.read_text(encoding="utf-8")
        data, lines = load_single(text, key_lines, label)  # one parse: the data and the key lines
        discover_switches(data)  # a recursive anchor or absurd nesting shows here, not mid-render
        return ChartValues(data=data, lines=lines)
    except RecursionError:
        return ChartValues(error=f"{label}: nested too deeply, a recursive alias, or an alias bomb")
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{label}:{mark.line + 1}" if mark else label
        return ChartValues(error=f"{where}: invalid YAML: {exc.problem or exc.context or 'syntax error'}")
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        return ChartValues(error=f"{label}: cannot read: {' '.join(str(exc).split())}")


Consumer = Callable[[RenderedVariant], Any]


@dataclass
class Rendering:
    """Every chart × variant rendered once: what check-images and check-manifests both read.

    ``variants`` in chart order, each chart's in plan order; ``values``: each chart's values.yaml
    (by chart index).
    """

    charts: list[ChartTarget]
    variants: list[RenderedVariant]
    values: list[ChartValues]
    seconds: float = 0.0

    def of(self, chart: ChartTarget) -> list[RenderedVariant]:
        """The renders of ``chart``."""
        return [r for r in self.variants if r.chart is chart]


def render_charts(
    charts: Sequence[ChartTarget],
    settings: ImagesConfig,
    helm: str,
    consumers: Mapping[str, Consumer] | None = None,
    jobs: int | None = None,
) -> Rendering:
    """Render every variant (:func:`plan_variants`) of every chart, in parallel, once.

    Each of ``consumers`` (name → function) runs on every render in the worker that rendered it,
    so its parsing overlaps the other helm processes; its return value lands in
    ``RenderedVariant.outputs[name]``. ``jobs``: parallel renders (default: one per CPU). Raises
    :class:`~gsvendor.errors.ToolError` when helm cannot run.
    """
    start = time.perf_counter()
    hooks = dict(consumers or {})
    workers = jobs or os.cpu_count() or 2
    # Longest first (the CRD charts render megabytes): the pool then finishes close to the longest render.
    order = sorted(range(len(charts)), key=lambda i: -chart_size(charts[i].path))
    futures: dict[tuple[int, str], Future[RenderedVariant]] = {}
    values: dict[int, ChartValues] = {}
    plans: dict[int, list[Variant]] = {}
    renders = Renders()
    with (
        ExitStack() as held,
        ExitStack() as copies,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="helm") as pool,
    ):
        try:
            # One renderable copy per chart, shared by its variants (helm only reads it), removed by the
            # worker that finishes the chart's last render (off the end of the run); whatever is left
            # (an error) is removed on the way out. defaults needs no values.yaml, so those renders start
            # before the values files are read.
            prepared: dict[int, Path] = {}
            done = _CopyRelease(len(charts))

            def submit(i: int, variant: Variant) -> None:
                futures[(i, variant.name)] = pool.submit(
                    render_one, helm, charts[i], prepared[i], variant, hooks, renders
                )
                futures[(i, variant.name)].add_done_callback(lambda _f: done.finished(i))

            for i in order:
                copies.callback(done.stacks[i].close)
                prepared[i] = done.stacks[i].enter_context(renderable_copy(charts[i].path))
                submit(i, Variant(DEFAULTS))
            for i in order:
                values[i] = load_values(charts[i])
                plans[i] = plan_variants(values[i].data, settings.chart(charts[i].name))
                for variant in plans[i][1:]:
                    submit(i, variant)
                done.planned(i, len(plans[i]))
            rendered = [futures[(i, variant.name)].result() for i in range(len(charts)) for variant in plans[i]]
        except BaseException as exc:  # Ctrl-C or an error: the renders not started yet are not run,
            # and a second signal cuts neither helm's end, the pool's wait nor a copy's removal (it
            # left a copy in TMPDIR, or the run waited for the helms); after an error it comes then
            held.enter_context(Deferred(redeliver=not isinstance(exc, KeyboardInterrupt)))
            pool.shutdown(wait=False, cancel_futures=True)
            renders.end()  # the running ones end now (the pool's exit waits for their workers)
            raise
    return Rendering(
        charts=list(charts),
        variants=rendered,
        values=[values[i] for i in range(len(charts))],
        seconds=time.perf_counter() - start,
    )


class _CopyRelease:
    """When a chart's renders are all done, its renderable copy goes (``stacks[i]`` holds it).

    ``planned(i, n)``: chart ``i`` has ``n`` renders; ``finished(i)``: one of them ended (from a
    worker thread, possibly before the plan). The call that settles the count closes the stack; the
    rendering's ExitStack closes every stack again on the way out (a no-op for a closed one).
    """

    def __init__(self, charts: int) -> None:
        self.stacks = [ExitStack() for _ in range(charts)]
        self._lock = threading.Lock()
        self._left = [0] * charts
        self._planned = [False] * charts

    def _count(self, chart: int, change: int, planned: bool = False) -> None:
        with self._lock:
            self._left[chart] += change
            self._planned[chart] |= planned
            last = self._planned[chart] and self._left[chart] == 0
        if last:
            with suppress(OSError):
                self.stacks[chart].close()

    def planned(self, chart: int, renders: int) -> None:
        """All ``renders`` of ``chart`` are submitted."""
        self._count(chart, renders, planned=True)

    def finished(self, chart: int) -> None:
        """A render of ``chart`` ended (rendered, failed or raised)."""
        self._count(chart, -1)
