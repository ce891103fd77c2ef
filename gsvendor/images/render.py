"""Rendering charts with the real helm binary: every chart × variant once, in parallel
(:func:`render_charts`), each check a consumer run on every render in the worker that made it.

Giant Swarm's Chart.yaml says ``version: "[[ .Version ]]"`` (the release pipeline fills it in),
which helm rejects: every render runs on a temporary copy with a valid version substituted."""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gsvendor.config import MATCH_SECONDS
from gsvendor.errors import ToolError
from gsvendor.files import leads_outside, write_tree
from gsvendor.images.documents import split_documents
from gsvendor.images.find import key_lines
from gsvendor.images.variants import DEFAULTS, ChartTarget, ImagesConfig, Variant, discover_switches, plan_variants
from gsvendor.overlays import yamledit
from gsvendor.signals import Deferred
from gsvendor.upstream.source import limit
from gsvendor.yamlio import UPSTREAM, invalid_yaml, load_single_safe

RENDER_VERSION = "0.0.0-gsvendor"


def find_helm(explicit: str | None = None, project_root: Path | None = None) -> str:
    """Locate helm: ``explicit`` (``--helm``), ``$GSVENDOR_HELM``, ``.tools/bin/helm`` in the project or a
    folder above it, then PATH. Raises :class:`ToolError` when none is found, or when ``--helm`` or
    ``$GSVENDOR_HELM`` is not an executable file (another helm further on is not what was asked for)."""
    given = [(explicit, "--helm "), (os.environ.get("GSVENDOR_HELM"), "GSVENDOR_HELM=")]
    candidates = [(candidate, label) for candidate, label in given if candidate]
    if project_root is not None:  # the project's tools folder, or one of an enclosing repository
        root = project_root.resolve()
        candidates += [(str(folder / ".tools" / "bin" / "helm"), None) for folder in (root, *root.parents)]
    for candidate, label in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        if label is not None:
            raise ToolError(f"{label}{candidate}: not an executable file")
    if found := shutil.which("helm"):
        return found
    raise ToolError("helm not found: run make tools (.tools/bin/helm), pass --helm or set GSVENDOR_HELM")


@contextmanager
def renderable_copy(chart_dir: Path) -> Iterator[Path]:
    """A temporary copy of ``chart_dir`` whose Chart.yaml version is valid SemVer (:data:`RENDER_VERSION`).
    Raises :class:`ToolError` for a link leading outside the chart (``-> /``: the copy read the whole disk)."""

    def refuse_outside(folder: str, names: list[str]) -> list[str]:
        for name in names:
            if os.path.islink(path := os.path.join(folder, name)) and leads_outside(Path(path), chart_dir):
                raise ToolError(f"{path}: a link to {os.readlink(path)}, outside the chart; remove it")
        return []

    with tempfile.TemporaryDirectory(prefix="gsvendor-render-") as tmp:
        # the folder's own name, also for `.` and `..` (whose `name` is "" and "..")
        copy = Path(tmp) / (os.path.basename(os.path.abspath(chart_dir)) or "chart")
        try:  # hard links cost nothing next to copying megabytes of CRDs
            shutil.copytree(chart_dir, copy, symlinks=False, ignore=refuse_outside, copy_function=_link_or_copy)
        except (shutil.Error, OSError) as exc:
            detail = exc.args[0][0][2] if isinstance(exc, shutil.Error) and exc.args and exc.args[0] else exc
            raise ToolError(f"{chart_dir}: cannot copy the chart to render it: {detail}") from None
        chart_yaml = copy / "Chart.yaml"
        text = chart_yaml.read_text(encoding="utf-8") if chart_yaml.is_file() else ""
        try:
            placeholder = "[[" in text and "[[" in str(yamledit.get_value(text, "/version"))
        except Exception:  # no version, or not YAML: helm words that error
            placeholder = False
        if placeholder:
            chart_yaml.unlink()  # a hard link: writing through it would change the original
            chart_yaml.write_text(yamledit.set_value(text, "/version", RENDER_VERSION), encoding="utf-8")
        yield copy


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@dataclass(frozen=True)
class Rendered:
    """The output of one ``helm template``: ``manifests`` as text, or ``error`` (helm's stderr)."""

    manifests: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether helm rendered without error."""
        return self.error is None


def template(
    helm: str,
    chart_dir: Path,
    *,
    prepared: bool = False,
    timeout: float = 120.0,
    group: Renders | None = None,
    release: str = "release",
    namespace: str = "default",
    values_files: Sequence[Path] = (),
    set_values: Sequence[str] = (),
    set_json: Sequence[str] = (),
) -> Rendered:
    """Run ``helm template`` on a renderable copy of ``chart_dir`` (``prepared``: it is one already) within
    ``timeout`` seconds; ``group``: the :class:`Renders` an interrupt ends. A timeout, an interrupt and a
    command line too long are errors of the :class:`Rendered`; raises :class:`ToolError` without helm."""
    group = group or Renders()
    with nullcontext(chart_dir) if prepared else renderable_copy(chart_dir) as copy:
        args = [helm, "template", release, str(copy), "--namespace", namespace]
        for flag, values in (("--values", values_files), ("--set", set_values), ("--set-json", set_json)):
            args += [part for value in values for part in (flag, str(value))]
        # the manifests go into an unnamed file (no pipe polled 32 KiB at a time); stderr stays a pipe,
        # whose end at helm's exit wakes communicate() at once (a timeout alone polls every 50 ms)
        with tempfile.TemporaryFile() as out:
            try:
                process = subprocess.Popen(
                    args, stdout=out, stderr=subprocess.PIPE, text=True, env=helm_environment(os.environ)
                )
            except FileNotFoundError:
                raise ToolError(f"{helm}: cannot run helm") from None
            except OSError as exc:  # e.g. E2BIG: more --set switches than a command line holds
                return Rendered("", f"helm could not be started: {exc.strerror or exc}")
            with process:  # closes the pipe and reaps helm, as subprocess.run does
                try:
                    if not group.add(process):
                        return Rendered("", "helm template was not run: the check was interrupted")
                    _, stderr = process.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    return Rendered("", f"helm template timed out after {timeout:g} s")
                finally:
                    if process.returncode is None:  # not run, timed out or interrupted
                        process.kill()
                    group.discard(process)
            if os.fstat(out.fileno()).st_size > (most := limit("GSVENDOR_MAX_RENDER_MIB", UPSTREAM.max_bytes)):
                return Rendered("", f"helm template wrote more than {most >> 20} MiB (GSVENDOR_MAX_RENDER_MIB)")
            out.seek(0)
            stdout = io.TextIOWrapper(out).read()  # as text=True reads a pipe: locale encoding, universal newlines
    if process.returncode != 0:
        # a Go runtime failure (a malformed GOMEMLIMIT): its message, not the goroutine stacks after it
        error = stderr.split("\nruntime stack:", 1)[0].split("\ngoroutine ", 1)[0]
        error = error.strip().replace(str(copy), copy.name)
        return Rendered(stdout, re.sub(r"\s+", " ", error))
    return Rendered(stdout)


# helm allocates ~2-4x its output: with the collector off it renders ~15% faster (xargs -P2 runs of the
# ten renders: 0.80 -> 0.67 s), and the soft limit still bounds it (kserve-crd peaks at 174 MB, not 96).
HELM_GC = {"GOGC": "off", "GOMEMLIMIT": "256MiB"}


def helm_environment(environ: Mapping[str, str]) -> dict[str, str] | None:
    """``environ`` with :data:`HELM_GC` for a ``helm template`` process, or ``None`` (inherit ``environ``)
    when the user set ``GOGC`` or ``GOMEMLIMIT`` (not empty): theirs win (https://pkg.go.dev/runtime)."""
    return None if any(environ.get(name) for name in HELM_GC) else {**environ, **HELM_GC}


class Renders:
    """The running helm processes of one :func:`render_charts`, so an interrupt ends them at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[str]] = set()
        self._ended = False

    def add(self, process: subprocess.Popen[str]) -> bool:
        """Track ``process``; ``False`` (not tracked) once :meth:`end` was called."""
        with self._lock:
            if not self._ended:
                self._running.add(process)
            return not self._ended

    def discard(self, process: subprocess.Popen[str]) -> None:
        """``process`` ended."""
        with self._lock:
            self._running.discard(process)

    def end(self) -> None:
        """Kill every running helm; a render started after this is not run (each worker reaps its own)."""
        with self._lock:
            self._ended = True
            running = list(self._running)
        for process in running:
            with suppress(OSError):
                process.kill()


def chart_renderer(helm: str, project_root: Path) -> Callable[[Any, dict[str, bytes]], str]:
    """A :data:`gsvendor.vendoring.Renderer`: ``helm template`` on in-memory chart files, with the chart
    spec's ``render`` settings. Raises :class:`ToolError` with helm's message when rendering fails."""

    def render(spec: Any, files: dict[str, bytes]) -> str:
        settings = spec.render
        with tempfile.TemporaryDirectory(prefix="gsvendor-chart-") as tmp:
            chart = Path(tmp) / spec.name
            write_tree(chart, files)
            values = [project_root / f for f in settings.values_files]
            for file, given in zip(values, settings.values_files, strict=True):
                if file.exists() and leads_outside(file, project_root):
                    raise ToolError(f"chart {spec.name}: render.valuesFiles: {given}: a link out of the project")
            if settings.values:
                inline = Path(tmp) / "inline-values.yaml"
                inline.write_text(json.dumps(settings.values))  # JSON is YAML
                values.append(inline)
            result = template(helm, chart, release=settings.release, namespace=settings.namespace, values_files=values)
        if not result.ok:
            raise ToolError(f"chart {spec.name}: helm template failed: {result.error}")
        return result.manifests

    return render


@dataclass
class RenderedVariant:
    """One ``helm template`` run of a chart variant: ``manifests`` (empty when it failed) or helm's ``error``;
    ``expected_failure``: it failed as declared; ``problem``: it failed otherwise, or rendered although
    declared to fail; ``outputs``: what each consumer of :func:`render_charts` made of it, by name."""

    chart: ChartTarget
    variant: Variant
    manifests: str = ""
    error: str | None = None
    expected_failure: bool = False
    problem: str | None = None
    seconds: float = 0.0
    outputs: dict[str, Any] = field(default_factory=dict)

    @property
    def rendered(self) -> bool:
        """Whether helm rendered without error."""
        return self.error is None

    def verdict(self) -> dict[str, Any]:
        """The fields every check's per-variant result repeats from the render."""
        return {name: getattr(self, name) for name in ("chart", "rendered", "error", "expected_failure", "problem")}

    @functools.cached_property
    def chunks(self) -> list[str]:
        """``manifests`` split into YAML documents, once for every consumer."""
        return split_documents(self.manifests)


def render_one(
    helm: str, chart: ChartTarget, copy: Path, variant: Variant, consumers: Mapping[str, Consumer], group: Renders
) -> RenderedVariant:
    """Render ``variant`` of ``chart`` on its renderable ``copy``, judge it against ``expect_failure``,
    and run every consumer on it. Raises :class:`~gsvendor.errors.ToolError` when helm cannot run."""
    start = time.perf_counter()
    flags = {name: getattr(variant, name) for name in ("values_files", "set_values", "set_json")}
    output = template(helm, copy, prepared=True, group=group, **flags)
    result = RenderedVariant(chart=chart, variant=variant)
    expect = variant.expect_failure()
    declared = f"expectFailure /{expect.pattern}/" if expect else ""
    if output.ok:
        result.manifests = output.manifests
        result.problem = f"rendered, but is declared to fail ({declared})" if expect else None
    else:
        # helm's advice to pass --debug concerns its own command line, not the check's
        result.error = (output.error or "").removesuffix(" Use --debug flag to render out invalid YAML")
        try:
            result.expected_failure = bool(expect and expect.search(result.error, timeout=MATCH_SECONDS))
        except TimeoutError:  # a pattern that backtracks exponentially, like (a+)+$
            declared += f" did not finish in {MATCH_SECONDS:g} s: write it without nested repetition"
        if not result.expected_failure:
            failed = f"failed, but not as declared ({declared})" if expect else "failed to render"
            result.problem = f"{failed}: {result.error}"
    result.seconds = time.perf_counter() - start
    result.outputs = {name: consume(result) for name, consume in consumers.items()}
    return result


@dataclass(frozen=True)
class ChartValues:
    """A chart's values.yaml: ``data`` (``None`` when absent), ``lines`` (key path → line), ``error``."""

    data: Any = None
    lines: Mapping[tuple[str | int, ...], int] = field(default_factory=dict)
    error: str | None = None


def load_values(chart: ChartTarget) -> ChartValues:
    """Read ``values.yaml`` of ``chart`` once: the data and the line of every key. A broken file is the
    chart's problem (exit 1, reported in its ``values.yaml`` group), never raised."""
    from ruamel.yaml.error import YAMLError

    path = chart.path / "values.yaml"
    label = f"{chart.label}/values.yaml"
    if not path.is_file():
        return ChartValues()
    try:
        data, lines = load_single_safe(path.read_text(encoding="utf-8"), key_lines, label)  # data, key lines at once
        discover_switches(data)  # a recursive anchor or absurd nesting shows here, not mid-render
        return ChartValues(data=data, lines=lines)
    except RecursionError:
        return ChartValues(error=f"{label}: nested too deeply, a recursive alias, or an alias bomb")
    except YAMLError as exc:
        return ChartValues(error=invalid_yaml(exc, label))
    except (OSError, UnicodeDecodeError) as exc:
        return ChartValues(error=f"{label}: cannot read: {' '.join(str(exc).split())}")


Consumer = Callable[[RenderedVariant], Any]


@dataclass
class Rendering:
    """Every chart × variant rendered once: ``variants`` in chart then plan order, ``values`` by chart index."""

    charts: list[ChartTarget]
    variants: list[RenderedVariant]
    values: list[ChartValues]
    seconds: float = 0.0


def render_charts(
    charts: Sequence[ChartTarget], settings: ImagesConfig, helm: str, consumers: Mapping[str, Consumer] | None = None
) -> Rendering:
    """Render every variant (:func:`plan_variants`) of every chart once, one per CPU in parallel; each of
    ``consumers`` runs on every render in its worker, its result in ``RenderedVariant.outputs[name]``.
    Raises :class:`~gsvendor.errors.ToolError` when helm cannot run."""
    start = time.perf_counter()
    # Largest chart first (the CRD charts render megabytes): the pool then finishes close to the longest render.
    sizes = [sum(f.stat().st_size for f in chart.path.rglob("*") if f.is_file()) for chart in charts]
    order = sorted(range(len(charts)), key=lambda i: -sizes[i])
    futures: list[list[Future[RenderedVariant]]] = [[] for _ in charts]
    values = [ChartValues()] * len(charts)
    renders = Renders()
    render = functools.partial(render_one, helm, consumers=consumers or {}, group=renders)
    with (
        ExitStack() as held,
        ExitStack() as copies,
        ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="helm") as pool,
    ):
        try:
            # one renderable copy per chart, shared by its variants; defaults (no values.yaml read) start first
            stacks = {i: copies.enter_context(ExitStack()) for i in order}
            prepared: dict[int, Path] = {}
            for i in order:
                prepared[i] = stacks[i].enter_context(renderable_copy(charts[i].path))
                futures[i].append(pool.submit(render, charts[i], prepared[i], Variant(DEFAULTS)))
            for i in order:
                values[i] = load_values(charts[i])
                for variant in plan_variants(values[i].data, settings.chart(charts[i].name))[1:]:
                    futures[i].append(pool.submit(render, charts[i], prepared[i], variant))
            for i in order:  # a chart's copy goes once its renders are done, while the others still render
                for future in futures[i]:
                    future.result()
                with suppress(OSError):
                    stacks[i].close()
            rendered = [future.result() for chart in futures for future in chart]
        except BaseException as exc:  # Ctrl-C or an error: renders not started are not run, and a
            # second signal cuts neither helm's end, the pool's wait nor a copy's removal
            held.enter_context(Deferred(redeliver=not isinstance(exc, KeyboardInterrupt)))
            pool.shutdown(wait=False, cancel_futures=True)
            renders.end()  # the running ones end now (the pool's exit waits for their workers)
            raise
    return Rendering(list(charts), rendered, values, seconds=time.perf_counter() - start)
