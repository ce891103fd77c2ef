"""check-images' inputs: the ``images`` section of gsvendor.yaml, the charts to check and the
variants each is rendered in: ``defaults`` (the chart's own values), ``switches-on`` (every boolean
``enabled``/``create…`` key that is false set to true, plus the chart's ``switchValues`` files), and
each variant the configuration declares."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

from gsvendor.config import compile_pattern
from gsvendor.errors import ConfigError, UsageError, did_you_mean
from gsvendor.files import leads_outside
from gsvendor.overlays.crdfield import expect_failure_holds
from gsvendor.validation import format_path
from gsvendor.yamlio import load_single_safe as load_single

if TYPE_CHECKING:
    from gsvendor.config import Config


DEFAULT_ALLOW: tuple[str, ...] = ("gsoci.azurecr.io/",)
DEFAULTS, SWITCHES_ON, VALUES = "defaults", "switches-on", "values.yaml"


@dataclass(frozen=True)
class Variant:
    """One ``helm template`` run of a chart: ``values_files`` (``--values``), ``set_values`` (``--set``, the
    discovered ``switches``), ``set_json`` (``--set-json``: a declared ``set`` keeps its YAML types),
    ``expect_failure()``: the regex helm's error must match for the variant to fail as declared; ``None``
    without ``expectFailure`` or while its ``expectFailureWhile`` does not hold."""

    name: str
    values_files: tuple[Path, ...] = ()
    set_values: tuple[str, ...] = ()
    set_json: tuple[str, ...] = ()
    expect_failure: Callable[[], regex.Pattern[str] | None] = field(default=lambda: None, compare=False, repr=False)
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
    """The ``images`` section of ``config`` (schema-validated; ``None``: the defaults). Raises :class:`ConfigError`
    ``gsvendor.yaml:line: images.charts.x.variants[0].name: …`` for an unknown chart, a reserved or repeated
    variant name, a bad regex or values file."""
    if config is None:
        return ImagesConfig()
    raw = config.raw.get("images") or {}
    fail = functools.partial(config_error, config)

    def files(entries: Sequence[Any], path: list[Any]) -> tuple[Path, ...]:
        for index, entry in enumerate(entries):
            file = config.root / str(entry)
            if not file.is_file():
                raise fail([*path, index], f"{entry}: no such file (paths are relative to {config.path.name})")
            if leads_outside(file, config.root):
                raise fail([*path, index], f"{entry}: a link leading outside the project")
        return tuple(config.root / str(entry) for entry in entries)

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
            if variant_name in (DEFAULTS, SWITCHES_ON, VALUES):
                raise fail([*path, "name"], f"{variant_name!r} is reserved (built-in variant)")
            if variant_name in {v.name for v in variants}:
                raise fail([*path, "name"], f"variant {variant_name!r} is declared twice")
            pattern, when = None, item.get("expectFailureWhile")
            try:
                # the regex module: its searches take a time limit (render.py), re's would hold the GIL and signals
                pattern = compile_pattern(str(item["expectFailure"])) if "expectFailure" in item else None
            except regex.error as exc:
                if expect_failure_holds(when, config):  # one that cannot apply is not an error
                    raise fail([*path, "expectFailure"], f"not a valid regular expression: {exc}") from None
            try:
                set_json = tuple(f"{key}={json.dumps(value)}" for key, value in (item.get("set") or {}).items())
            except (TypeError, ValueError) as exc:
                raise fail([*path, "set"], f"a value helm cannot take as JSON ({exc})") from None
            values_files = files(item.get("values") or [], [*path, "values"])
            # the condition reads the vendored CRD (0.1 s): decided when a render needs it, not before helm starts
            expect = functools.cache(lambda p=pattern, w=when: p if p and expect_failure_holds(w, config) else None)
            variants.append(Variant(variant_name, values_files, set_json=set_json, expect_failure=expect))
        switch_values = files(entry.get("switchValues") or [], [*base, "switchValues"])
        charts[str(name)] = ChartImages(switch_values, tuple(variants))
    return ImagesConfig(tuple(str(p) for p in raw["allow"]) if "allow" in raw else DEFAULT_ALLOW, charts)


def config_error(config: Config, path: list[Any], message: str) -> ConfigError:
    """``gsvendor.yaml:line: images.charts.x.variants[0].name: message`` for the key at ``path``."""
    line = config.source.line_of(path) if config.source else None
    return ConfigError(f"{config.path.name}{f':{line}' if line else ''}: {format_path(path)}: {message}")


@dataclass(frozen=True)
class ChartTarget:
    """A chart to check: ``name`` from its Chart.yaml, ``path`` its folder, ``label`` as shown (``helm/x``)."""

    name: str
    path: Path
    label: str


def chart_targets(chart_dirs: Sequence[Path], config: Config | None) -> list[ChartTarget]:
    """The charts to check: ``chart_dirs`` if given, else every configured chart's ``dest``. Raises
    :class:`UsageError` for a folder without Chart.yaml, and when there are neither folders nor a configuration."""
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
        if chart_dirs and not path.exists():
            raise UsageError(f"{label}: no such chart folder")
        if not chart_yaml.is_file():
            raise UsageError(
                f"{label}: not a chart (no Chart.yaml){'' if chart_dirs else '; run `gsvendor sync` first'}"
            )
        targets.append(ChartTarget(name=_chart_name(chart_yaml) or path.resolve().name, path=path, label=label))
    return targets


def _chart_name(chart_yaml: Path) -> str | None:
    from ruamel.yaml.error import YAMLError

    try:
        data, _ = load_single(chart_yaml.read_text(encoding="utf-8"), lambda _node: None, str(chart_yaml))
        name = data.get("name") if isinstance(data, dict) else None
        return str(name) if name else None  # a name nested thousands deep: str() recurses too
    except RecursionError:
        raise UsageError(f"{chart_yaml}: nested too deeply, a recursive alias, or an alias bomb") from None
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        raise UsageError(f"{chart_yaml}: cannot read: {' '.join(str(exc).split())}") from None


# helm's --set parser (strvals) splits keys at . [ = , ; a backslash makes them literal.
_SET_SPECIAL = re.compile(r"([\\.\[=,])")


def discover_switches(values: Any) -> list[str]:
    """``--set`` paths (escaped for helm) of every boolean ``enabled`` or ``create…`` key that is ``false``
    at any depth of a parsed values.yaml, list items included (``a[0].enabled``). Raises ``RecursionError``
    for a recursive alias, absurd nesting, or an expansion past 200,000 nodes."""
    switches: list[str] = []
    budget = iter(range(200_000))  # nodes; an alias bomb expands past this long before it matters

    def walk(node: Any, path: str) -> None:
        if next(budget, None) is None:
            raise RecursionError("values.yaml expands to more than 200000 nodes")
        if isinstance(node, Mapping):
            for key, value in ((k, v) for k, v in node.items() if isinstance(k, str)):
                escaped = _SET_SPECIAL.sub(r"\\\1", key)
                here = f"{path}.{escaped}" if path else escaped
                if not (isinstance(value, bool) and (key == "enabled" or key.startswith("create"))):
                    walk(value, here)
                elif not value:
                    switches.append(here)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")

    walk(values, "")
    return switches


def plan_variants(values: Any, settings: ChartImages) -> list[Variant]:
    """The variants of one chart: ``defaults``, ``switches-on`` (unless it would render the defaults
    again), then the declared ones."""
    switches = tuple(discover_switches(values))
    on = Variant(SWITCHES_ON, settings.switch_values, tuple(f"{path}=true" for path in switches), switches=switches)
    return [Variant(DEFAULTS), *([on] if switches or settings.switch_values else []), *settings.variants]
