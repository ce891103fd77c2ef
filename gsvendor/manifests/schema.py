"""A CRD version's ``openAPIV3Schema`` as JSON Schema, checked by ``jsonschema`` with Kubernetes'
structural-schema semantics.

The rules, from the Kubernetes documentation "Extend the Kubernetes API with
CustomResourceDefinitions" (sections *Specifying a structural schema*, *Field pruning*,
*Controlling pruning*, *IntOrString*, *RawExtension*, *Defaulting and Nullable*) and the
apiextensions-apiserver's ``pkg/apiserver/schema/pruning`` and ``objectmeta`` packages:

- **Pruning.** A field of an object that its schema's ``properties`` (or ``additionalProperties``)
  does not specify is dropped by the API server, unless that object's schema says
  ``x-kubernetes-preserve-unknown-fields: true``. The flag holds for the object it is on only:
  a nested object with its own ``properties`` prunes again. Translated as
  ``additionalProperties: false`` (reported as **pruned**, a problem apart from validation).
- **Embedded resources** (``x-kubernetes-embedded-resource: true``): ``apiVersion`` and ``kind``
  (strings, required) and ``metadata`` (ObjectMeta) are implied.
- **int-or-string** (``x-kubernetes-int-or-string: true``): an integer or a string (``anyOf``).
- **Root**: ``apiVersion``, ``kind`` and ``metadata`` are always kept; ``metadata`` is an
  ObjectMeta, whose unknown fields are dropped.
- **nullable**: a ``null`` value of a non-nullable field is pruned before validation, never an
  error (:func:`drop_nulls`); ``nullable: true`` admits ``null``.
- Value validations (``type``, ``enum``, ``required``, ``pattern``, ``minimum``/``maximum``
  with OpenAPI 3.0's boolean ``exclusiveMinimum``/``exclusiveMaximum``, lengths, item and property
  counts, ``multipleOf``, ``uniqueItems``, ``allOf``/``anyOf``/``oneOf``/``not``) are JSON Schema
  draft 4 (OpenAPI 3.0's dialect); ``format`` is checked for the string formats the API server
  validates that the standard library can check (:data:`FORMATS`). CEL rules
  (``x-kubernetes-validations``) and defaults are not evaluated.
- **List types** (``x-kubernetes-list-type``, the apiextensions-apiserver's ``structurallisttype``):
  the items of a ``set`` list, and the items of a ``map`` list by their
  ``x-kubernetes-list-map-keys`` (a missing key taken from its default), must be unique
  (:func:`duplicates`; reported as **duplicate items**).
"""

from __future__ import annotations

import base64
import functools
import ipaddress
import json
import re
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gsvendor.validation import format_path as key_path

VALUE_KEYWORDS = (
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "required",
    "format",
)

_STRING = {"type": ["string", "null"]}
OBJECT_META: dict[str, Any] = {
    "type": ["object", "null"],
    "properties": {
        **{key: _STRING for key in ("name", "generateName", "namespace", "uid", "resourceVersion", "selfLink")},
        **{key: _STRING for key in ("creationTimestamp", "deletionTimestamp")},
        "generation": {"type": ["integer", "null"]},
        "deletionGracePeriodSeconds": {"type": ["integer", "null"]},
        "labels": {"type": ["object", "null"], "additionalProperties": _STRING},
        "annotations": {"type": ["object", "null"], "additionalProperties": _STRING},
        "finalizers": {"type": ["array", "null"], "items": _STRING},
        "ownerReferences": {"type": ["array", "null"], "items": {"type": "object"}},
        "managedFields": {"type": ["array", "null"], "items": {"type": "object"}},
    },
    "additionalProperties": False,
}


def _types(value: Any, nullable: bool) -> list[str] | str:
    return [value, "null"] if nullable and isinstance(value, str) else value


def drop_nulls(node: Any, value: Any) -> Any:
    """``value`` without the ``null`` fields whose schema is not ``nullable`` (the API server prunes
    them before validation, *Defaulting and Nullable*). Raises nothing."""
    node = node if isinstance(node, Mapping) else {}
    if isinstance(value, Mapping):
        specified = node.get("properties") or {}
        additional = node.get("additionalProperties")
        out = {}
        for key, item in value.items():
            sub = specified.get(key, additional if isinstance(additional, Mapping) else {})
            if item is None and not (isinstance(sub, Mapping) and sub.get("nullable")):
                continue
            out[key] = drop_nulls(sub, item)
        return out
    if isinstance(value, list):
        return [drop_nulls(node.get("items"), item) for item in value]
    return value


_ANY = object()


def translate(node: Any, instance: Any = _ANY, *, structural: bool = True, root: bool = False) -> dict[str, Any]:
    """The JSON Schema (draft 4) of one CRD schema ``node`` (see the module's rules).

    ``instance``: when given, only what validating that value needs is translated (the properties
    it has, one ``items`` schema per element it holds): a pod template schema is tens of thousands
    of nodes, an object uses a few hundred. ``structural``: the node is part of the structural
    skeleton (pruning applies); inside ``allOf``/``anyOf``/``oneOf``/``not`` it is not.
    ``root``: the version's root schema. Raises nothing; a node that is not a mapping admits anything.
    """
    if not isinstance(node, Mapping):
        return {}
    guided = instance is not _ANY
    out: dict[str, Any] = {key: node[key] for key in VALUE_KEYWORDS if key in node}
    if node.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}, *([{"type": "null"}] if node.get("nullable") else [])]
    elif "type" in node:
        out["type"] = _types(node["type"], bool(node.get("nullable")))
    specified = node.get("properties") or {}
    if guided and not isinstance(instance, Mapping):
        wanted: Any = ()
    elif guided:
        wanted = [key for key in instance if key in specified]
    else:
        wanted = list(specified)
    properties = {
        str(key): translate(specified[key], instance[key] if guided else _ANY, structural=structural) for key in wanted
    }
    embedded = root or node.get("x-kubernetes-embedded-resource")
    if embedded:
        properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": OBJECT_META})
        if not root:
            out["required"] = sorted({*out.get("required", ()), "apiVersion", "kind"})
    additional = node.get("additionalProperties")
    if isinstance(additional, Mapping):
        if guided and isinstance(instance, Mapping):  # each further key, translated for its own value
            for key, value in instance.items():
                if key not in properties:
                    properties[str(key)] = translate(additional, value, structural=structural)
            out["additionalProperties"] = {}
        elif not guided:
            out["additionalProperties"] = translate(additional, structural=structural)
    elif (
        structural
        and not node.get("x-kubernetes-preserve-unknown-fields")
        and additional is not True
        and (node.get("type") == "object" or "properties" in node or root)
    ):
        out["additionalProperties"] = False  # the API server prunes what is not specified
    if properties:
        out["properties"] = properties
    items = node.get("items")
    if isinstance(items, Mapping):
        if not guided:
            out["items"] = translate(items, structural=structural)
        elif isinstance(instance, list):  # draft 4 tuple form: one schema per element
            out["items"] = [translate(items, element, structural=structural) for element in instance]
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            branches = [translate(branch, instance, structural=False) for branch in node[key]]
            if key == "anyOf" and "anyOf" in out:  # int-or-string and anyOf: both must hold
                out.setdefault("allOf", []).append({"anyOf": branches})
            else:
                out[key] = branches
    if isinstance(node.get("not"), Mapping):
        out["not"] = translate(node["not"], instance, structural=False)
    return out


def _rfc3339(text: str) -> bool:
    return bool(re.fullmatch(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)", text))


FORMATS: dict[str, Any] = {
    "ipv4": ipaddress.IPv4Address,
    "ipv6": ipaddress.IPv6Address,
    "cidr": lambda v: ipaddress.ip_network(v, strict=False),
    "uuid": uuid.UUID,
    "byte": lambda v: base64.b64decode(v, validate=True),
    "date-time": _rfc3339,
    "date": lambda v: bool(re.fullmatch(r"\d{4}-\d\d-\d\d", v)),
}


@functools.cache
def format_checker() -> Any:
    """A ``jsonschema.FormatChecker`` for :data:`FORMATS`: a string fails when its check returns
    ``False`` or raises ``ValueError`` (other formats, and values that are not strings, pass, as in
    the API server); built once."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMATS.items():
        checker.checks(name, raises=ValueError)(
            lambda value, check=check: not isinstance(value, str) or check(value) is not False
        )
    return checker


@dataclass(frozen=True)
class Violation:
    """One problem of an object: ``path`` (``spec.rolloutStrategy``), ``problem`` (``pruned``,
    ``wrong type``, ``missing required``, ``not in enum``, ``pattern``, ``out of range``, ``format``, …)
    and ``message``."""

    path: str
    problem: str
    message: str


_PROBLEMS = {
    "type": "wrong type",
    "anyOf": "wrong type",
    "required": "missing required",
    "enum": "not in enum",
    "pattern": "pattern mismatch",
    "format": "bad format",
    **{k: "out of range" for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")},
    **{k: "wrong size" for k in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")},
    "uniqueItems": "duplicate items",
}


def format_path(parts: Iterator[Any] | Any) -> str:
    """``spec.template.containers[0].image`` from a jsonschema path (``(root)`` for an empty one)."""
    path = list(parts)
    return key_path(path) if path else "(root)"


def warm_up() -> None:
    """Import jsonschema and build the format checker in a background thread (a few hundred ms of
    imports that then overlap the helm renders instead of following them). Raises nothing."""

    threading.Thread(target=format_checker, name="jsonschema-import", daemon=True).start()


def validator(schema: dict[str, Any]) -> Any:
    """A draft-4 validator of a translated schema (:func:`translate`)."""
    from jsonschema import Draft4Validator

    return Draft4Validator(schema, format_checker=format_checker())


def check(schema: Any, instance: Any) -> list[Violation]:
    """Every problem of ``instance`` against the CRD schema ``schema`` (a version's
    ``openAPIV3Schema``), with the translation guided by the instance. Raises nothing."""
    instance = drop_nulls(schema, instance)
    found = violations(validator(translate(schema, instance, root=True)), instance)
    extra = list(duplicates(schema, instance, []))
    return sorted([*found, *extra], key=lambda v: (v.path, v.problem)) if extra else found


def duplicates(node: Any, value: Any, path: list[Any]) -> Iterator[Violation]:
    """A violation per item of a ``x-kubernetes-list-type: set`` list equal to an earlier one, and per
    item of a ``map`` list whose ``x-kubernetes-list-map-keys`` values equal an earlier item's
    (Kubernetes' ``Duplicate value``), at every depth of ``value`` the schema ``node`` describes.
    Raises nothing."""
    if not isinstance(node, Mapping):
        return
    if isinstance(value, Mapping):
        specified = node.get("properties") or {}
        additional = node.get("additionalProperties")
        for key, item in value.items():
            sub = specified.get(key, additional if isinstance(additional, Mapping) else None)
            yield from duplicates(sub, item, [*path, key])
    elif isinstance(value, list):
        kind = node.get("x-kubernetes-list-type")
        items = node.get("items") if isinstance(node.get("items"), Mapping) else {}
        keys = [str(k) for k in node.get("x-kubernetes-list-map-keys") or []]
        defaults = {k: (items.get("properties") or {}).get(k, {}).get("default") for k in keys}
        seen: set[str] = set()
        for index, item in enumerate(value):
            marker = None
            if kind == "set":
                marker = json.dumps(item, sort_keys=True, default=str)
            elif kind == "map" and keys and isinstance(item, Mapping):
                marker = json.dumps({k: item.get(k, defaults[k]) for k in keys}, sort_keys=True, default=str)
            if marker is not None and marker in seen:
                yield Violation(format_path([*path, index]), "duplicate items", f"Duplicate value: {marker}")
            elif marker is not None:
                seen.add(marker)
            yield from duplicates(items, item, [*path, index])


def violations(checker: Any, instance: Any) -> list[Violation]:
    """Every problem of ``instance``: one per pruned field, one per missing required field, one per
    other failed rule, ordered by path. Raises nothing."""
    found: list[Violation] = []
    for error in checker.iter_errors(instance):
        where = list(error.absolute_path)
        if error.validator == "additionalProperties" and error.validator_value is False:
            known = set((error.schema.get("properties") or {}).keys())
            for key in sorted(k for k in error.instance if k not in known):
                found.append(
                    Violation(
                        format_path([*where, key]),
                        "pruned",
                        "not in the schema and no x-kubernetes-preserve-unknown-fields: the API server drops it",
                    )
                )
        elif error.validator == "required":
            for key in error.validator_value:
                if isinstance(error.instance, dict) and key not in error.instance:
                    found.append(Violation(format_path([*where, key]), "missing required", "required field not set"))
        else:
            message = error.message
            if error.validator == "anyOf":
                message = f"{error.instance!r} is neither an integer nor a string"
            problem = _PROBLEMS.get(str(error.validator), str(error.validator))
            found.append(Violation(format_path(where), problem, message))
    unique = {(v.path, v.problem, v.message): v for v in found}
    return sorted(unique.values(), key=lambda v: (v.path, v.problem))
