"""check-images: render every chart in its variants, find every image reference, apply the registry policy.

The rule comes from the project's "Images" section: every image the charts reference by default
or with a feature switch on is a ``gsoci.azurecr.io/`` reference — in the manifests, in the JSON
blocks of the ``inferenceservice-config`` ConfigMap and in values.yaml.

Variants of a chart, each one ``helm template`` run (in parallel, helm is a subprocess):

* ``defaults`` — the chart's own values;
* ``switches-on`` — every boolean ``enabled``/``create…`` key of values.yaml that is false set
  to true (``--set path=true``), plus the chart's ``switchValues`` files from the configuration;
* each variant declared in the configuration (values files, ``set``, optional ``expectFailure``).

``values.yaml`` is searched once per chart, as its own group.

The rendering is a step of its own (:func:`render_charts` → a :class:`Rendering` of one
:class:`RenderedVariant` per chart × variant), shared with check-manifests: each check is a
consumer run on every render in the worker that made it (:func:`images_consumer` here), so
``gsvendor check-manifests --images`` runs helm once per variant for both.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.errors import ConfigError, UsageError, did_you_mean
from gsvendor.files import leads_outside
from gsvendor.images.find import Found, Skipped, configmap_references, manifest_references, values_references
from gsvendor.images.reference import ImageReference, InvalidReference, parse

if TYPE_CHECKING:
    from concurrent.futures import Future

    from gsvendor.config import Config
    from gsvendor.images.headstart import HeadStart
    from gsvendor.images.render import Renders, Started


DEFAULT_ALLOW: tuple[str, ...] = ("gsoci.azurecr.io/",)
DEFAULTS = "defaults"
SWITCHES_ON = "switches-on"
VALUES = "values.yaml"
RESERVED_VARIANTS = frozenset({DEFAULTS, SWITCHES_ON, VALUES})


# Statuses of a reference. Templated and empty strings cannot be judged; they are listed, not failed.
ALLOWED, OFFENDER, INVALID, TEMPLATED, EMPTY = "allowed", "offender", "invalid", "templated", "empty"


FAILING_STATUSES = frozenset({OFFENDER, INVALID})


@dataclass(frozen=True)
class Variant:
    """One ``helm template`` run of a chart.

    ``values_files`` (``--values``), ``set_values`` (``--set``, the discovered switches),
    ``set_json`` (``--set-json``, a declared ``set`` keeps its YAML types), ``expect_failure``:
    a regex helm's error must match for the variant to fail as declared; ``switches``: the
    discovered switch paths (for the report).
    """

    name: str
    values_files: tuple[Path, ...] = ()
    set_values: tuple[str, ...] = ()
    set_json: tuple[str, ...] = ()
    expect_failure: re.Pattern[str] | None = None
    switches: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChartImages:
    """The ``images.charts.<name>`` entry: ``switch_values`` files and declared ``variants``."""

    switch_values: tuple[Path, ...] = ()
    variants: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class ImagesConfig:
    """The ``images`` section of gsvendor.yaml: allowed prefixes and per-chart variant settings."""

    allow: tuple[str, ...] = DEFAULT_ALLOW
    charts: Mapping[str, ChartImages] = field(default_factory=dict)

    def chart(self, name: str) -> ChartImages:
        """The settings of chart ``name`` (empty when the configuration names none)."""
        return self.charts.get(name, ChartImages())


def images_config(config: Config | None) -> ImagesConfig:
    """Read the ``images`` section of ``config`` (already schema-validated); ``None`` gives the defaults.

    Checks what the schema cannot: every chart named is a configured chart, variant names unique
    and not ``defaults``/``switches-on``/``values.yaml``, ``expectFailure`` a valid regex, every
    values file present. Raises
    :class:`ConfigError` ``gsvendor.yaml:line: images.charts.x.variants[0].name: …``.
    """
    if config is None:
        return ImagesConfig()
    from gsvendor.validation import format_path

    raw = config.raw.get("images") or {}
    label = config.path.name

    def fail(path: list[Any], message: str) -> ConfigError:
        line = config.line_of(path)
        return ConfigError(f"{label}{f':{line}' if line else ''}: {format_path(path)}: {message}")

    def files(entries: Iterable[Any], path: list[Any]) -> tuple[Path, ...]:
        result = []
        for index, entry in enumerate(entries):
            file = config.root / str(entry)
            if not file.is_file():
                raise fail([*path, index], f"{entry}: no such file (paths are relative to {label})")
            if leads_outside(file, config.root):
                raise fail([*path, index], f"{entry}: a link leading outside the project")
            result.append(file)
        return tuple(result)

    charts: dict[str, ChartImages] = {}
    known = [chart.name for chart in config.charts]
    for name, entry in (raw.get("charts") or {}).items():
        base = ["images", "charts", name]
        if name not in known:  # a typo would silently drop the chart's variants
            hint = did_you_mean(str(name), known)
            raise fail(base, f"no chart named {name!r} in charts (known: {', '.join(known)}){hint}")
        variants: list[Variant] = []
        for index, item in enumerate(entry.get("variants") or []):
            path = [*base, "variants", index]
            variant_name = str(item["name"])
            if variant_name in RESERVED_VARIANTS:
                raise fail([*path, "name"], f"{variant_name!r} is reserved (built-in variant)")
            if variant_name in {v.name for v in variants}:
                raise fail([*path, "name"], f"variant {variant_name!r} is declared twice")
            pattern = None
            if "expectFailure" in item:
                try:
                    pattern = re.compile(str(item["expectFailure"]))
                except re.error as exc:
                    raise fail([*path, "expectFailure"], f"not a valid regular expression: {exc}") from None
            try:
                set_json = tuple(
                    f"{key}={json.dumps(_json_value(value))}" for key, value in (item.get("set") or {}).items()
                )
            except (TypeError, ValueError) as exc:
                raise fail([*path, "set"], f"a value helm cannot take as JSON ({exc})") from None
            variants.append(
                Variant(
                    name=variant_name,
                    values_files=files(item.get("values") or [], [*path, "values"]),
                    set_json=set_json,
                    expect_failure=pattern,
                )
            )
        charts[str(name)] = ChartImages(
            switch_values=files(entry.get("switchValues") or [], [*base, "switchValues"]), variants=tuple(variants)
        )
    allow = tuple(str(prefix) for prefix in raw["allow"]) if "allow" in raw else DEFAULT_ALLOW
    return ImagesConfig(allow=allow, charts=charts)


@dataclass(frozen=True)
class ChartTarget:
    """A chart to check: ``name`` from its Chart.yaml, ``path`` its folder, ``label`` as shown (``helm/x``)."""

    name: str
    path: Path
    label: str


def chart_targets(chart_dirs: Sequence[Path], config: Config | None) -> list[ChartTarget]:
    """The charts to check: ``chart_dirs`` if given, else every configured chart's ``dest``.

    Raises :class:`UsageError` for a chart folder that does not exist or has no Chart.yaml (exit
    2), and when neither chart folders nor a configuration are given.
    """
    if chart_dirs:
        entries = [(path, str(path)) for path in chart_dirs]
    elif config is not None:
        # charts vendored as rendered manifests are not charts on disk; their images were rendered already
        entries = [(config.root / chart.dest, chart.dest) for chart in config.charts if chart.render is None]
        if not entries:
            raise UsageError("no charts to check: every configured chart is vendored rendered (pass CHART_DIR)")
    else:
        raise UsageError("no charts: pass CHART_DIR arguments or run where gsvendor.yaml is")
    targets = []
    for path, label in entries:
        chart_yaml = path / "Chart.yaml"
        if not chart_yaml.is_file():
            hint = "" if chart_dirs else "; run `gsvendor sync` first"
            if chart_dirs and not path.exists():
                raise UsageError(f"{label}: no such chart folder{_chart_folder_meant(path, config)}")
            raise UsageError(f"{label}: not a chart (no Chart.yaml){hint}")
        targets.append(ChartTarget(name=_chart_name(chart_yaml) or path.resolve().name, path=path, label=label))
    return targets


def _chart_folder_meant(path: Path, config: Config | None) -> str:
    """``"; did you mean helm/kserve-resources?"`` for a missing CHART_DIR whose last part is a
    configured chart's name or close to one (``check-images kserve-resources``, as ``diff`` takes
    it), when that chart's folder is synced; else ``""``."""
    from gsvendor.errors import closest

    if config is None:
        return ""
    folders = {c.name: config.root / c.dest for c in config.charts if c.render is None}
    name = closest(path.name, [name for name, folder in folders.items() if (folder / "Chart.yaml").is_file()])
    if name is None:
        return ""
    folder = folders[name]
    try:
        shown = os.path.relpath(folder)
    except ValueError:  # another drive (Windows)
        shown = str(folder)
    return f"; did you mean {str(folder) if shown.startswith('..') else shown}?"


def _chart_name(chart_yaml: Path) -> str | None:
    from ruamel.yaml.error import YAMLError

    from gsvendor.images.fastload import load_single

    try:
        data, _ = load_single(chart_yaml.read_text(encoding="utf-8"), lambda _node: None, str(chart_yaml))
        name = data.get("name") if isinstance(data, dict) else None
        return str(name) if name else None  # a name nested thousands deep: str() recurses too
    except RecursionError:
        raise UsageError(f"{chart_yaml}: nested too deeply, a recursive alias, or an alias bomb") from None
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        raise UsageError(f"{chart_yaml}: cannot read: {' '.join(str(exc).split())}") from None


def _escape_key(key: str) -> str:
    # helm's --set parser (strvals) splits keys at . [ = , ; a backslash makes them literal.
    if not _SET_SPECIAL.search(key):  # almost every key: no substitution to make
        return key
    return _SET_SPECIAL.sub(r"\\\1", key)


_SET_SPECIAL = re.compile(r"([\\.\[=,])")


def discover_switches(values: Any) -> list[str]:
    """``--set`` paths of every feature switch that is off in ``values`` (a parsed values.yaml).

    A switch is a boolean key named ``enabled`` or ``create…`` (``create``, ``createGateway``,
    ``createSharedResources``) at any depth, list items included (``a[0].enabled``). Only
    switches that are ``false`` are returned; keys with dots are escaped for helm. Raises
    ``RecursionError`` for a recursive alias, absurd nesting, or an expansion past 200,000 nodes.
    """
    switches: list[str] = []
    budget = [200_000]  # nodes; an alias bomb expands past this long before it matters

    def walk(node: Any, path: str) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise RecursionError("values.yaml expands to more than 200000 nodes")
        if isinstance(node, Mapping):
            for key, value in node.items():
                if not isinstance(key, str):
                    continue
                here = f"{path}.{_escape_key(key)}" if path else _escape_key(key)
                # ruamel round-trip loads an anchored boolean as ScalarBoolean (an int), hence the name check
                is_bool = isinstance(value, bool) or type(value).__name__ == "ScalarBoolean"
                if is_bool and (key == "enabled" or key.startswith("create")):
                    if not value:
                        switches.append(here)
                else:
                    walk(value, here)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")

    walk(values, "")
    return switches


def plan_variants(values: Any, settings: ChartImages) -> list[Variant]:
    """The variants of one chart: ``defaults``, ``switches-on`` (when there is a switch or a
    switch values file; otherwise it would render the defaults again), then the declared ones."""
    variants = [Variant(DEFAULTS)]
    switches = discover_switches(values)
    if switches or settings.switch_values:
        variants.append(
            Variant(
                SWITCHES_ON,
                values_files=settings.switch_values,
                set_values=tuple(f"{path}=true" for path in switches),
                switches=tuple(switches),
            )
        )
    variants.extend(settings.variants)
    return variants


def matches_prefix(text: str, prefix: str) -> bool:
    """Whether ``text`` starts with ``prefix`` at a name boundary.

    A prefix ending in ``/``, ``:`` or ``@`` matches plainly; any other must be followed by one of
    them (or the end), so ``gsoci.azurecr.io`` does not admit ``gsoci.azurecr.io.evil.com/x``.
    """
    if not text.startswith(prefix):
        return False
    return prefix.endswith(("/", ":", "@")) or len(text) == len(prefix) or text[len(prefix)] in "/:@"


@dataclass(frozen=True)
class Checked:
    """A found reference judged by the policy.

    ``status``: ``allowed``, ``offender`` (outside every allowed prefix), ``invalid`` (breaks the
    grammar), ``templated`` or ``empty`` (cannot be judged; listed, not failed); ``reference``
    and ``normalized`` when it parsed; ``message``: the parser's message otherwise.
    """

    found: Found
    status: str
    reference: ImageReference | None = None
    message: str | None = None

    @property
    def normalized(self) -> str | None:
        """The normalized form (``docker.io/kserve/agent:v0.20.0``), ``None`` when it did not parse."""
        return self.reference.normalized if self.reference else None


def judge(found: Found, allow: Sequence[str]) -> Checked:
    """Parse ``found.written`` and compare both the normalized and the written form with ``allow``.

    Either form starting with an allowed prefix admits the reference: the normalized one is what
    the kubelet pulls, the written one lets ``--allow kserve/`` mean what it says. Raises nothing.
    """
    try:
        reference = parse(found.written)
    except InvalidReference as exc:
        return Checked(found, exc.reason, message=str(exc))
    allowed = any(matches_prefix(reference.normalized, p) or matches_prefix(found.written, p) for p in allow)
    return Checked(found, ALLOWED if allowed else OFFENDER, reference)


@dataclass
class VariantResult:
    """The outcome of one variant of one chart (or of its values.yaml, ``variant == "values.yaml"``).

    ``error``: helm's message when it failed; ``expected_failure``: it failed as declared;
    ``problem``: why this variant fails the check apart from its references (render failure,
    unexpected success, wrong message); ``documents``: manifests rendered; ``crds``: of those,
    CustomResourceDefinitions (schemas, not searched).
    """

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
        return [c for c in self.references if c.status in FAILING_STATUSES]

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
        """How many references were checked, values.yaml included."""
        return sum(len(r.references) for r in self.results)

    @property
    def variants_rendered(self) -> int:
        """How many helm renders ran (successful or not)."""
        return sum(1 for r in self.results if r.name != VALUES)

    def count(self, status: str) -> int:
        """References with ``status``."""
        return sum(1 for r in self.results for c in r.references if c.status == status)

    @property
    def problems(self) -> list[VariantResult]:
        """Variants that failed to render, or rendered against their declaration."""
        return [r for r in self.results if r.problem]


_CONTENT = re.compile(r"^[ \t]*[^#\s]", re.M)
_SOURCE = re.compile(r"^# Source: (.+)$", re.M)
_CRD = re.compile(r"^kind:[ \t]*[\"']?CustomResourceDefinition[\"']?[ \t]*$", re.M)
_CONFIGMAP = re.compile(r"^kind:[ \t]*[\"']?ConfigMap[\"']?[ \t]*$", re.M)
_MENTIONS_IMAGE = re.compile(r"image", re.I)


def split_documents(stream: str) -> list[str]:
    """Split a YAML stream at its ``---`` document markers (``---`` at a line start, then the line end,
    a blank or a comment). str.split, not a regex: helm output runs to megabytes of CRDs."""
    chunks: list[str] = []
    for piece in ("\n" + stream).split("\n---"):
        if chunks and piece and piece[0] not in "\r\n \t#":  # "----" or "---x" is content, not a marker
            chunks[-1] += "\n---" + piece
        else:
            chunks.append(piece)
    return chunks


def document_spans(stream: str) -> list[tuple[str, int, int]]:
    """:func:`split_documents` without copying the text: ``(lead, start, end)`` per document, whose
    text is ``lead + stream[start:end]`` (``lead`` is the ``"\n"`` that split_documents puts in front
    of the first piece, ``""`` for the others and for an empty first piece). Raises nothing."""
    separators = []  # where the "---" of each marker starts; split_documents' str.split finds the same ones
    position = 0
    if stream.startswith("---"):  # a marker at the very start of "\n" + stream
        separators.append(0)
        position = 3
    while (found := stream.find("\n---", position)) >= 0:
        separators.append(found + 1)
        position = found + 4
    size = len(stream)
    # the first piece: empty before a marker that opens the stream, else up to the first marker
    first = ("", 0, 0) if separators[:1] == [0] else ("\n", 0, separators[0] - 1 if separators else size)
    spans = [first]
    for index, marker in enumerate(separators):
        start = marker + 3
        end = separators[index + 1] - 1 if index + 1 < len(separators) else size
        if start < end and stream[start] not in "\r\n \t#":  # content: the previous document goes on
            lead, first, _ = spans[-1]
            # "" + "\n---" + piece is "\n" + stream[0:end]; any other document runs on up to the marker
            spans[-1] = ("\n" if marker == 0 else lead, first, end)
        else:
            spans.append(("", start, end))
    return spans


def scan_manifests(manifests: str, chunks: list[str] | None = None) -> tuple[list[Found], list[Skipped], int, int]:
    """Split helm output into documents and find their references.

    Returns ``(found, skipped, documents, crds)``. CustomResourceDefinitions are recognised on
    their top-level ``kind:`` line and not parsed: they are schemas that run nothing, and they are
    megabytes (parsing them would cost seconds per render). Other documents that do not mention
    ``image`` anywhere (case-insensitively, so ``*_IMAGE`` and ``…Image`` count) cannot hold a
    reference and are not parsed either, except ConfigMaps: their keys that are not JSON are
    listed as skipped whatever they hold. ``chunks``: ``manifests`` already split. Raises nothing.

    Without ``chunks`` the documents are not copied out of ``manifests`` (:func:`document_spans`):
    the patterns search the stream between a document's bounds, which finds what they find in the
    document's own text whenever that text starts with a line break (``^`` then matches at the
    same places); a document starting otherwise is copied. Only documents that are parsed are
    copied, with libyaml (:func:`gsvendor.images.fastload.load_all`, ruamel's safe loader's data).
    """
    from ruamel.yaml.error import YAMLError

    from gsvendor.images.fastload import load_all

    found: list[Found] = []
    skipped: list[Skipped] = []
    documents = crds = 0
    if chunks is not None:
        spans = [("", chunk, 0, len(chunk)) for chunk in chunks]
    else:
        spans = [_searched(manifests, *span) for span in document_spans(manifests)]
    for lead, text, start, end in spans:
        if not _CONTENT.search(text, start, end):  # empty, or only helm's "# Source:" comment
            continue
        documents += 1
        if _CRD.search(text, start, end):
            crds += 1
            continue
        if not _MENTIONS_IMAGE.search(text, start, end) and not _CONFIGMAP.search(text, start, end):
            continue
        source_match = _SOURCE.search(text, start, end)
        source = source_match.group(1).strip() if source_match else None
        chunk = lead + (text if start == 0 and end == len(text) else text[start:end])
        try:
            parsed = [d for d in load_all(chunk) if isinstance(d, dict)]
        except YAMLError as exc:
            skipped.append(Skipped(source or "?", "(document)", f"not YAML: {' '.join(str(exc).split())}"))
            continue
        for document in parsed:
            found.extend(manifest_references(document, source))
            if document.get("kind") == "ConfigMap":
                more, skip = configmap_references(document)
                found.extend(more)
                skipped.extend(skip)
    return found, skipped, documents, crds


def _searched(stream: str, lead: str, start: int, end: int) -> tuple[str, str, int, int]:
    """A document of :func:`document_spans` as ``(lead, text, start, end)``: its text is ``lead +
    text[start:end]``, and the patterns search ``text`` between ``start`` and ``end``. That is the
    stream itself when the document opens the stream or starts at a line break (no pattern can match
    at such a first character, and ``^`` matches after the same line breaks), else a copy."""
    if start == 0 or start == end or stream[start] in "\r\n":
        return lead, stream, start, end
    text = lead + stream[start:end]
    return "", text, 0, len(text)


def render_variant(
    helm: str, chart: ChartTarget, variant: Variant, allow: Sequence[str], prepared: bool = False
) -> VariantResult:
    """Render ``variant`` of ``chart`` with helm and judge every reference in it.

    ``prepared``: ``chart.path`` is a renderable copy already (:func:`gsvendor.render.renderable_copy`).
    A failure is the variant's ``problem`` unless ``expect_failure`` matches helm's message; a
    variant declared to fail that renders is a problem too (the guard it tests is gone). Raises
    :class:`~gsvendor.errors.ToolError` only when helm cannot run at all.
    """
    return judge_rendered(render_one(helm, chart, variant, prepared=prepared), allow)


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

    def chunks(self) -> list[str]:
        """``manifests`` split into YAML documents (:func:`split_documents`), once for every consumer."""
        if self._chunks is None:
            self._chunks = split_documents(self.manifests)
        return self._chunks


def render_one(
    helm: str,
    chart: ChartTarget,
    variant: Variant,
    prepared: bool = False,
    started: Started | None = None,
    group: Renders | None = None,
) -> RenderedVariant:
    """Run helm for ``variant`` of ``chart`` and judge the render against ``expect_failure``.

    ``started``: that render, already running (:mod:`gsvendor.images.headstart`); ``group``: the
    renders an interrupt ends (:class:`~gsvendor.images.render.Renders`). Raises
    :class:`~gsvendor.errors.ToolError` only when helm cannot run at all.
    """
    from gsvendor.images import render

    start = time.perf_counter()
    if started is not None:
        output = started.finish()
    else:
        output = render.template(
            helm,
            chart.path,
            values_files=variant.values_files,
            set_values=variant.set_values,
            set_json=variant.set_json,
            prepared=prepared,
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
    return result


def judge_rendered(rendered: RenderedVariant, allow: Sequence[str]) -> VariantResult:
    """check-images' view of one render: every image reference in it judged by ``allow``. Raises nothing."""
    start = time.perf_counter()
    result = VariantResult(
        chart=rendered.chart,
        variant=rendered.variant,
        rendered=rendered.rendered,
        error=rendered.error,
        expected_failure=rendered.expected_failure,
        problem=rendered.problem,
    )
    if rendered.rendered:
        # the documents as another consumer split them already, else found in the stream without a copy
        found, result.skipped, result.documents, result.crds = scan_manifests(rendered.manifests, rendered._chunks)
        result.references = [judge(item, allow) for item in found]
    result.seconds = rendered.seconds + time.perf_counter() - start
    return result


@dataclass(frozen=True)
class ChartValues:
    """A chart's values.yaml: ``data`` (plain Python, ``None`` when absent), ``lines`` (key path → line),
    ``error`` (``file:line: invalid YAML: …``) when it cannot be read."""

    data: Any = None
    lines: Mapping[tuple[str | int, ...], int] = field(default_factory=dict)
    error: str | None = None


def _json_value(value: Any) -> Any:
    """A ``set`` value as JSON sees it; ruamel's anchored booleans are ints underneath, so they are
    turned back into booleans (``&on true`` must stay ``true``)."""
    if type(value).__name__ == "ScalarBoolean":
        return bool(value)
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def load_values(chart: ChartTarget) -> ChartValues:
    """Read ``values.yaml`` of ``chart`` with libyaml, once: the data, and the line of every key.

    Never raises for a broken file: a values.yaml that is not YAML is the chart's problem (exit 1),
    reported in its ``values.yaml`` group; helm fails on it in every variant too.
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from gsvendor.images.fastload import load_single
    from gsvendor.images.find import key_lines

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
    head_start: HeadStart | None = None,
) -> Rendering:
    """Render every variant (:func:`plan_variants`) of every chart, in parallel, once.

    Each of ``consumers`` (name → function) runs on every render in the worker that rendered it,
    so its parsing overlaps the other helm processes; its return value lands in
    ``RenderedVariant.outputs[name]``. ``jobs``: parallel renders (default: one per CPU).
    ``head_start``: a render started before the command line was parsed
    (:mod:`gsvendor.images.headstart`), taken over where it is the one this would start. Raises
    :class:`~gsvendor.errors.ToolError` when helm cannot run.
    """
    from concurrent.futures import ThreadPoolExecutor

    from gsvendor.images.render import Renders, chart_size, renderable_copy
    from gsvendor.signals import Deferred

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
            prepared: dict[int, ChartTarget] = {}
            done = _CopyRelease(len(charts))
            for i in order:
                copies.callback(done.stacks[i].close)
                with Deferred(redeliver=True):  # the head start's render leaves it only to be tracked here
                    taken = head_start.take(charts[i].path, helm) if head_start is not None else None
                    if taken is not None:  # its copy goes with the chart's last render, as the others do
                        started, copy_stack = taken
                        done.stacks[i].enter_context(copy_stack)
                        renders.add(started)
                if taken is not None:
                    copy = started.copy
                else:
                    started = None
                    copy = done.stacks[i].enter_context(renderable_copy(charts[i].path))
                prepared[i] = ChartTarget(name=charts[i].name, path=copy, label=charts[i].label)
                futures[(i, DEFAULTS)] = pool.submit(
                    _render, helm, charts[i], prepared[i], Variant(DEFAULTS), hooks, renders, started
                )
                futures[(i, DEFAULTS)].add_done_callback(lambda _f, i=i: done.finished(i))
            for i in order:
                values[i] = load_values(charts[i])
                plans[i] = plan_variants(values[i].data, settings.chart(charts[i].name))
                for variant in plans[i][1:]:
                    futures[(i, variant.name)] = pool.submit(
                        _render, helm, charts[i], prepared[i], variant, hooks, renders
                    )
                    futures[(i, variant.name)].add_done_callback(lambda _f, i=i: done.finished(i))
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

    ``planned(i, n)``: chart ``i`` has ``n`` renders; ``finished(i)``: one of them ended (from the
    worker thread). Whichever call sees the last one closes the stack; the rendering's own
    ExitStack closes every stack again on the way out, which is a no-op for a closed one.
    """

    def __init__(self, charts: int) -> None:
        import threading

        self.stacks = [ExitStack() for _ in range(charts)]
        self._lock = threading.Lock()
        self._left: dict[int, int] = {}
        self._ended = [0] * charts

    def planned(self, chart: int, renders: int) -> None:
        """All ``renders`` of ``chart`` are submitted."""
        with self._lock:
            self._left[chart] = renders - self._ended[chart]
            last = self._left[chart] == 0
        if last:
            self.stacks[chart].close()

    def finished(self, chart: int) -> None:
        """A render of ``chart`` ended (rendered, failed or raised)."""
        with self._lock:
            self._ended[chart] += 1
            left = self._left.get(chart)
            if left is not None:
                self._left[chart] = left - 1
            last = left == 1
        if last:
            with suppress(OSError):
                self.stacks[chart].close()


def images_consumer(settings: ImagesConfig, allow: Sequence[str] | None = None) -> Consumer:
    """The check-images consumer of :func:`render_charts`: a render → its :class:`VariantResult`."""
    prefixes = tuple(allow) if allow else settings.allow
    return lambda rendered: judge_rendered(rendered, prefixes)


def images_result(rendering: Rendering, settings: ImagesConfig, allow: Sequence[str] | None = None) -> CheckResult:
    """check-images' result from a rendering made with :func:`images_consumer` under ``"images"``
    (a render without that output is judged here). Each chart's values.yaml is judged too."""
    prefixes = tuple(allow) if allow else settings.allow
    results: list[VariantResult] = []
    for i, chart in enumerate(rendering.charts):
        for rendered in rendering.of(chart):
            results.append(rendered.outputs.get("images") or judge_rendered(rendered, prefixes))
        values = rendering.values[i]
        group = VariantResult(chart=chart, variant=Variant(VALUES), problem=values.error)
        if values.data is not None:
            found = values_references(values.data, VALUES, values.lines)
            group.references = [judge(item, prefixes) for item in found]
        results.append(group)
    return CheckResult(allow=prefixes, charts=list(rendering.charts), results=results, seconds=rendering.seconds)


def check_images(
    charts: Sequence[ChartTarget],
    settings: ImagesConfig,
    helm: str,
    allow: Sequence[str] | None = None,
    jobs: int | None = None,
    head_start: HeadStart | None = None,
) -> CheckResult:
    """Render every variant of every chart (in parallel) and judge every image reference.

    ``allow`` replaces ``settings.allow`` when given (``--allow``). ``jobs``: parallel renders
    (default: one per CPU); ``head_start``: as :func:`render_charts` takes it. Raises
    :class:`~gsvendor.errors.ToolError` when helm cannot run.
    """
    start = time.perf_counter()
    consumers = {"images": images_consumer(settings, allow)}
    rendering = render_charts(charts, settings, helm, consumers, jobs=jobs, head_start=head_start)
    result = images_result(rendering, settings, allow)
    result.seconds = time.perf_counter() - start
    return result


def _render(
    helm: str,
    chart: ChartTarget,
    copy: ChartTarget,
    variant: Variant,
    consumers: Mapping[str, Consumer],
    group: Renders,
    started: Started | None = None,
) -> RenderedVariant:
    rendered = render_one(helm, copy, variant, prepared=True, started=started, group=group)
    rendered.chart = chart
    for name, consume in consumers.items():
        rendered.outputs[name] = consume(rendered)
    return rendered
