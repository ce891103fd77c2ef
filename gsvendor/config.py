"""The declared configuration: ``gsvendor.yaml`` at the project root.

Every relative path in it is relative to the folder holding the file (the project root).
The file is validated with a JSON Schema (draft 2020-12, :data:`CONFIG_SCHEMA`); each
mistake is reported as ``file:line: key: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gsvendor.errors import ConfigError

CONFIG_FILE = "gsvendor.yaml"

DEFAULT_ARCHIVE_URL = "https://github.com/${repository}/archive/refs/tags/${tag}.tar.gz"

_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]*$"}
_RELPATH = {"type": "string", "minLength": 1, "not": {"pattern": r"(^/)|(^|/)\.\.(/|$)"}}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["upstream", "charts"],
    "properties": {
        "upstream": {
            "type": "object",
            "additionalProperties": False,
            "required": ["repository"],
            "properties": {
                "repository": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"},
                "archiveUrl": {"type": "string", "pattern": r"^https?://"},
                "gitUrl": {"type": "string", "minLength": 1},
            },
        },
        # check-images (gsvendor.checkimages): allowed registry prefixes, and per chart (by chart name)
        # the values files the switches-on variant needs and extra variants, optionally expected to fail.
        "images": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "allow": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "charts": {
                    "type": "object",
                    "propertyNames": _NAME,
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "switchValues": {"type": "array", "items": _RELPATH},
                            "variants": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "required": ["name"],
                                    "properties": {
                                        "name": _NAME,
                                        "values": {"type": "array", "items": _RELPATH},
                                        "set": {"type": "object", "propertyNames": {"minLength": 1}},
                                        "expectFailure": {"type": "string", "minLength": 1},
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
        "output": _RELPATH,
        "overlays": _RELPATH,
        "lock": _RELPATH,
        "charts": {
            "type": "array",
            "minItems": 1,
            "items": {
                "oneOf": [
                    _NAME,
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name"],
                        "properties": {
                            "name": _NAME,
                            "path": _RELPATH,
                            "dest": _RELPATH,
                        },
                    },
                ]
            },
        },
    },
}


@dataclass(frozen=True)
class ChartSpec:
    """One vendored chart.

    ``name``: chart name; ``upstream_path``: folder in the upstream tree (``charts/<name>``);
    ``dest``: output folder relative to the project root (``<output>/<name>``).
    """

    name: str
    upstream_path: str
    dest: str


@dataclass(frozen=True)
class Config:
    """The parsed configuration. Paths are absolute; ``dest`` of charts stays project-relative."""

    path: Path
    root: Path
    repository: str
    archive_url: str
    git_url: str
    output: str
    overlays_dir: Path
    lock_path: Path
    charts: tuple[ChartSpec, ...]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def chart(self, name: str) -> ChartSpec:
        """Return the chart called ``name``; raises :class:`ConfigError` naming the known charts."""
        for chart in self.charts:
            if chart.name == name:
                return chart
        known = ", ".join(c.name for c in self.charts)
        raise ConfigError(f"{self.path.name}: charts: no chart named {name!r} (known: {known})")

    def archive_url_for(self, tag: str) -> str:
        """The tarball URL of ``tag`` (``archiveUrl`` with ``${repository}`` and ``${tag}`` expanded)."""
        return self.archive_url.replace("${repository}", self.repository).replace("${tag}", tag)


def _line_of(node: Any, path: list[Any]) -> int | None:
    """1-based line of the key at ``path`` in a ruamel round-trip document, if known."""
    line = None
    for key in path:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None:
                line = (lc.key(key) if isinstance(key, str) else lc.item(key))[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line


def format_path(path: list[Any]) -> str:
    """``['charts', 2, 'name']`` → ``charts[2].name`` (the key notation used in messages)."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "(top level)"


def validate(document: Any, schema: dict[str, Any], filename: str) -> None:
    """Validate ``document`` (a ruamel document) against ``schema`` (JSON Schema 2020-12).

    Raises :class:`ConfigError` with one line per violation, each ``file:line: key: message``,
    in document order.
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.path])
    if not errors:
        return
    lines = []
    for error in errors:
        path = list(error.absolute_path)
        best = jsonschema.exceptions.best_match([error])
        message = best.message
        if error.validator == "oneOf" and error.context:
            message = min(error.context, key=lambda e: len(e.message)).message
        if error.validator == "not":
            message = f"{error.instance!r} must be a relative path inside the project"
        line = _line_of(document, path)
        where = f"{filename}:{line}" if line else filename
        lines.append(f"{where}: {format_path(path)}: {message}")
    raise ConfigError("\n".join(lines))


def load_yaml_document(path: Path, label: str | None = None) -> Any:
    """Read ``path`` as one YAML document with ruamel (round-trip, so keys keep line numbers).

    Raises :class:`ConfigError` ``file:line: invalid YAML: …`` or ``file: cannot read: …``.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    label = label or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{label}: not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{label}: cannot read: {exc}") from None
    try:
        return YAML(typ="rt", pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "syntax error"
        raise ConfigError(f"{label}{line}: invalid YAML: {problem}") from None
    except YAMLError as exc:
        raise ConfigError(f"{label}: invalid YAML: {exc}") from None


def load_config(path: Path) -> Config:
    """Load and validate the configuration at ``path`` (usually ``./gsvendor.yaml``).

    Raises :class:`ConfigError` for a missing file, invalid YAML or a schema violation,
    and for two charts writing the same destination.
    """
    path = path.resolve()
    label = path.name
    document = load_yaml_document(path, label)
    if document is None:
        raise ConfigError(f"{label}: the file is empty")
    validate(document, CONFIG_SCHEMA, label)
    root = path.parent
    upstream = document["upstream"]
    output = str(document.get("output", "helm"))
    charts: list[ChartSpec] = []
    seen: dict[str, str] = {}
    for index, entry in enumerate(document["charts"]):
        if isinstance(entry, str):
            entry = {"name": entry}
        name = str(entry["name"])
        dest = str(PurePosixPath(entry.get("dest", f"{output}/{name}")))
        spec = ChartSpec(name=name, upstream_path=str(entry.get("path", f"charts/{name}")), dest=dest)
        for other_dest, other in seen.items():
            a, b = PurePosixPath(dest), PurePosixPath(other_dest)
            if a == b or a in b.parents or b in a.parents:
                raise ConfigError(
                    f"{label}:{_line_of(document, ['charts', index]) or '?'}: charts[{index}]: "
                    f"destination {dest} overlaps {other_dest} of chart {other}"
                )
        if name in {c.name for c in charts}:
            raise ConfigError(f"{label}: charts[{index}]: chart {name!r} is listed twice")
        seen[dest] = name
        charts.append(spec)
    return Config(
        path=path,
        root=root,
        repository=str(upstream["repository"]),
        archive_url=str(upstream.get("archiveUrl", DEFAULT_ARCHIVE_URL)),
        git_url=str(upstream.get("gitUrl", f"https://github.com/{upstream['repository']}.git")),
        output=output,
        overlays_dir=root / str(document.get("overlays", "overlays")),
        lock_path=root / str(document.get("lock", "gsvendor.lock.yaml")),
        charts=tuple(charts),
        raw=document,
    )
