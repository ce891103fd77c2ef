"""Finding image references in rendered manifests, ConfigMap JSON and values.yaml: pure functions on
parsed data giving :class:`Found` and :class:`Skipped`. The walks name no kind, so a new kind that
embeds a pod template is covered without a change here."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gsvendor.images.reference import join_tag

ENV_SUFFIX = "_IMAGE"


@dataclass(frozen=True)
class Found:
    """One image reference as written (joined with the sibling keys ``joined`` when the chart splits it)
    in ``obj`` (``Kind/name`` or the values file) at ``path``; ``place``: ``"manifest"``, ``"configmap"``
    or ``"values"``; ``line``: 1-based, in a values file; ``source``: helm's ``# Source:`` template."""

    place: str
    obj: str
    path: str
    written: str
    line: int | None = None
    source: str | None = None
    joined: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        """Human-readable place: ``Deployment/x spec…image``, ``values.yaml:12 kserve.image``."""
        where = f"{self.obj}:{self.line}" if self.line else self.obj
        path = self.path + (f" (+ {', '.join(self.joined)})" if self.joined else "")
        return f"{where} {path}"


@dataclass(frozen=True)
class Skipped:
    """Data not searched: ``obj`` (``ConfigMap/name``), ``path`` (``data._example``) and why."""

    obj: str
    path: str
    reason: str

    @property
    def location(self) -> str:
        """``ConfigMap/name data.key``."""
        return f"{self.obj} {self.path}"


def is_image_key(key: object) -> bool:
    """Whether a JSON or values key names an image: ``image`` or ``…Image`` (``rbacProxyImage``)."""
    return isinstance(key, str) and (key == "image" or (key.endswith("Image") and len(key) > len("Image")))


def object_name(document: Mapping[str, Any]) -> str:
    """``Kind/name`` of a manifest (``?`` for what is missing)."""
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{document.get('kind') or '?'}/{name or '?'}"


def _item_label(item: Any, index: int) -> str | int:
    # containers and env variables by name (as kubectl addresses them), the rest by index
    named = isinstance(item, Mapping) and isinstance(item.get("name"), str) and item["name"]
    return item["name"] if named else index


def _walk(node: Any, visit: Any, path: str = "", keys: tuple[str | int, ...] = (), by_name: bool = False) -> None:
    """``visit(mapping, key, value, path, keys)`` on every key in ``node``, depth first, descending unless it
    returns true; ``path``: ``a.b[0]`` (list items by name with ``by_name``); ``keys``: the key path tuple."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            here = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key)
            here_keys = (*keys, str(key))
            if not visit(node, key, value, here, here_keys):
                _walk(value, visit, here, here_keys, by_name)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            label = _item_label(item, index) if by_name else index
            _walk(item, visit, f"{path}[{label}]", (*keys, index), by_name)


def manifest_references(document: Mapping[str, Any], source: str | None = None) -> list[Found]:
    """Every image reference in one parsed manifest of any kind: each mapping's ``image`` string (pod
    templates nested in custom resources too), an image volume's ``image.reference``, and ``*_IMAGE``
    variables of any ``env`` list; empty and templated strings too. Raises nothing."""
    obj = object_name(document)
    found: list[Found] = []

    def visit(_node: Any, key: Any, value: Any, here: str, _keys: Any) -> bool:
        if key == "image" and (isinstance(value, str) or value is None):
            found.append(Found("manifest", obj, here, value or "", source=source))
            return True
        if key == "image" and isinstance(value, Mapping) and isinstance(value.get("reference"), str):
            found.append(Found("manifest", obj, f"{here}.reference", value["reference"], source=source))
        if key == "env" and isinstance(value, list):
            for index, variable in enumerate(value):
                name = variable.get("name") if isinstance(variable, Mapping) else None
                if isinstance(name, str) and name.endswith(ENV_SUFFIX) and isinstance(variable.get("value"), str):
                    where = f"{here}[{_item_label(variable, index)}].value"
                    found.append(Found("manifest", obj, where, variable["value"], source=source))
        return False

    _walk(document, visit, by_name=True)
    return found


# The keys that carry an image key's version: ``"image": "kserve/art-explainer", "defaultImageVersion": "v0.20.0"``.
def _version_keys(key: str) -> tuple[str, ...]:
    if key == "image":
        return ("tag", "defaultImageVersion", "imageVersion", "imageTag")
    stem = key[: -len("Image")]
    return (f"{key}Version", f"{key}Tag", f"{stem}Tag", f"{stem}Version")


def _joined(mapping: Mapping[str, Any], image: str, version_keys: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``image`` joined with the first of ``version_keys`` set in ``mapping``, and that key (when it joined)."""
    key = next((key for key in version_keys if _scalar(mapping.get(key))), None)
    joined = join_tag(image, _scalar(mapping.get(key))) if key else image
    return joined, ((key,) if key and joined != image else ())


def json_references(data: Any, obj: str, prefix: str) -> list[Found]:
    """Every ``image`` or ``…Image`` string in parsed JSON ``data``, joined with a sibling version key
    (:func:`_version_keys`); ``path`` is ``<prefix> $.a.b`` (JSONPath). Raises nothing."""
    found: list[Found] = []

    def visit(node: Mapping[str, Any], key: Any, value: Any, here: str, _keys: Any) -> bool:
        if not (is_image_key(key) and (isinstance(value, str) or value is None)):
            return False
        written, joined = _joined(node, value or "", _version_keys(key))
        found.append(Found("configmap", obj, f"{prefix} {here}", written, joined=joined))
        return True

    _walk(data, visit, "$")
    return found


def configmap_references(document: Mapping[str, Any]) -> tuple[list[Found], list[Skipped]]:
    """Image references in the JSON values of a ConfigMap's ``data`` (``inferenceservice-config``); a value
    under a key naming an image (``image``, ``…Image``, ``…_IMAGE``) is one itself; another value not JSON
    is :class:`Skipped` (upstream's ``_example`` is prose). Raises nothing."""
    obj = object_name(document)
    data = document.get("data")
    found: list[Found] = []
    skipped: list[Skipped] = []
    for key, value in data.items() if isinstance(data, Mapping) else ():
        if not isinstance(value, str):
            continue
        path = f"data.{key}"
        image_named = is_image_key(key) or (isinstance(key, str) and key.endswith(ENV_SUFFIX))
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            if not image_named:
                skipped.append(Skipped(obj, path, f"not JSON ({exc})"))
                continue
            parsed = value.strip()
        if image_named and isinstance(parsed, str):
            found.append(Found("configmap", obj, path, parsed))
        else:
            found.extend(json_references(parsed, obj, path))
    return found, skipped


def key_lines(node: Any) -> dict[tuple[str | int, ...], int]:
    """The 1-based line of every key and list item of a composed YAML node tree (``YAML(typ="safe").compose()``),
    by key path (``("kserve", "agent", "image")``). Raises nothing."""
    lines: dict[tuple[str | int, ...], int] = {}

    def walk(current: Any, path: tuple[str | int, ...], depth: int) -> None:
        kind = type(current).__name__
        if depth > 100 or kind not in ("MappingNode", "SequenceNode"):  # depth: a recursive alias
            return
        pairs = current.value if kind == "MappingNode" else [(item, item) for item in current.value]
        for index, (marked, child) in enumerate(pairs):
            here = (*path, str(marked.value) if kind == "MappingNode" else index)
            lines.setdefault(here, marked.start_mark.line + 1)
            walk(child, here, depth + 1)

    walk(node, (), 0)
    return lines


def values_references(values: Any, filename: str, lines: Mapping[tuple[str | int, ...], int]) -> list[Found]:
    """Image references in a parsed values.yaml: ``image`` and ``…Image`` strings joined with a sibling
    ``tag`` (``…Tag``), ``repository`` strings with sibling ``registry``, ``tag`` and ``digest``; ``line``
    from ``lines`` (:func:`key_lines`). Raises nothing."""
    found: list[Found] = []

    def visit(node: Mapping[str, Any], key: Any, value: Any, here: str, keys: tuple[str | int, ...]) -> bool:
        if is_image_key(key) and (isinstance(value, str) or value is None):
            tag_key = "tag" if key == "image" else f"{key[: -len('Image')]}Tag"
            written, joined = _joined(node, value or "", (tag_key,))
        elif key == "repository" and isinstance(value, str):
            written, joined = _joined_repository(node, value)
        else:
            return False
        found.append(Found("values", filename, here, written, line=lines.get(keys), joined=joined))
        return True

    _walk(values, visit)
    return found


def _scalar(value: Any) -> str:
    return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""


def _joined_repository(mapping: Mapping[str, Any], repository: str) -> tuple[str, tuple[str, ...]]:
    if not repository.strip():  # no image shipped: report it empty, not as "registry/" or ":tag"
        return repository, ()
    registry = _scalar(mapping.get("registry")).rstrip("/")
    written, parts = (f"{registry}/{repository}", ["registry"]) if registry else (repository, [])
    if (with_tag := join_tag(written, _scalar(mapping.get("tag")))) != written:
        written, parts = with_tag, [*parts, "tag"]
    if (digest := _scalar(mapping.get("digest"))) and "@" not in written:
        written, parts = f"{written}@{digest}", [*parts, "digest"]
    return written, tuple(parts)
