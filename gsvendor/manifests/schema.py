"""A CRD version's ``openAPIV3Schema`` as JSON Schema (draft 4, OpenAPI 3.0's dialect), checked by ``jsonschema``
with Kubernetes' structural-schema semantics: the rules of "Extend the Kubernetes API with
CustomResourceDefinitions" and of the apiextensions-apiserver's ``pruning``, ``objectmeta`` and
``structurallisttype`` packages. A field nothing specifies is **pruned** unless its object says
``x-kubernetes-preserve-unknown-fields``; an embedded resource implies ``apiVersion``, ``kind`` and an ObjectMeta
``metadata`` (the root always keeps the three); int-or-string; a ``null`` of a non-nullable field is pruned, never
an error (:func:`drop_nulls`); ``format`` is checked for :data:`FORMATS`, CEL rules and defaults are not evaluated;
``set`` lists and ``map`` lists (by their map keys, a missing one taken from its default) hold unique items
(:func:`duplicates`)."""

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

from gsvendor.validation import format_path

# the problem each failed keyword reports; the keywords after type and anyOf are copied as they are
_PROBLEMS = {
    "type": "wrong type",
    "anyOf": "wrong type",
    "enum": "not in enum",
    "pattern": "pattern mismatch",
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "out of range"),
    **dict.fromkeys(("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"), "wrong size"),
    "uniqueItems": "duplicate items",
    "required": "missing required",
    "format": "bad format",
}
VALUE_KEYWORDS = tuple(_PROBLEMS)[2:]

_STRING = {"type": ["string", "null"]}
OBJECT_META: dict[str, Any] = {
    "type": ["object", "null"],
    "properties": {
        **{key: _STRING for key in ("name", "generateName", "namespace", "uid", "resourceVersion", "selfLink")},
        **{key: _STRING for key in ("creationTimestamp", "deletionTimestamp")},
        **{key: {"type": ["integer", "null"]} for key in ("generation", "deletionGracePeriodSeconds")},
        "labels": {"type": ["object", "null"], "additionalProperties": _STRING},
        "annotations": {"type": ["object", "null"], "additionalProperties": _STRING},
        "finalizers": {"type": ["array", "null"], "items": _STRING},
        "ownerReferences": {"type": ["array", "null"], "items": {"type": "object"}},
        "managedFields": {"type": ["array", "null"], "items": {"type": "object"}},
    },
    "additionalProperties": False,
}


def _property(node: Mapping[str, Any], key: Any) -> Any:
    """The schema of field ``key`` of an object ``node`` describes (``{}``: none)."""
    additional = node.get("additionalProperties")
    return (node.get("properties") or {}).get(key, additional if isinstance(additional, Mapping) else {})


def drop_nulls(node: Any, value: Any) -> Any:
    """``value`` without the ``null`` fields whose schema is not ``nullable`` (pruned before validation)."""
    node = node if isinstance(node, Mapping) else {}
    if isinstance(value, Mapping):
        subs = {key: _property(node, key) for key in value}
        nullable = {key for key, sub in subs.items() if isinstance(sub, Mapping) and sub.get("nullable")}
        return {key: drop_nulls(subs[key], item) for key, item in value.items() if item is not None or key in nullable}
    return [drop_nulls(node.get("items"), item) for item in value] if isinstance(value, list) else value


def translate(node: Any, instance: Any, *, structural: bool = True, root: bool = False) -> dict[str, Any]:
    """The JSON Schema (draft 4) of CRD schema ``node`` (not a mapping: anything), only what validating ``instance``
    needs (a pod template schema has tens of thousands of nodes, an object uses a few hundred). ``structural``:
    pruning applies (not inside ``allOf``/``anyOf``/``oneOf``/``not``); ``root``: the version's root schema."""
    if not isinstance(node, Mapping):
        return {}
    out: dict[str, Any] = {key: node[key] for key in VALUE_KEYWORDS if key in node}
    if node.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}, *([{"type": "null"}] if node.get("nullable") else [])]
    elif "type" in node:
        out["type"] = [node["type"], "null"] if node.get("nullable") and isinstance(node["type"], str) else node["type"]
    specified = node.get("properties") or {}
    wanted = [key for key in instance if key in specified] if isinstance(instance, Mapping) else []
    properties = {str(key): translate(specified[key], instance[key], structural=structural) for key in wanted}
    if root or node.get("x-kubernetes-embedded-resource"):
        properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": OBJECT_META})
        if not root:
            out["required"] = sorted({*out.get("required", ()), "apiVersion", "kind"})
    additional = node.get("additionalProperties")
    if isinstance(additional, Mapping):
        if isinstance(instance, Mapping):  # each further key, translated for its own value
            for key, value in instance.items():
                if key not in properties:
                    properties[str(key)] = translate(additional, value, structural=structural)
            out["additionalProperties"] = {}
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
    if isinstance(items, Mapping) and isinstance(instance, list):  # draft 4 tuple form: one schema per element
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


FORMATS: dict[str, Any] = {
    "ipv4": ipaddress.IPv4Address,
    "ipv6": ipaddress.IPv6Address,
    "cidr": lambda v: ipaddress.ip_network(v, strict=False),
    "uuid": uuid.UUID,
    "byte": lambda v: base64.b64decode(v, validate=True),
    "date-time": lambda v: bool(re.fullmatch(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)", v)),
    "date": lambda v: bool(re.fullmatch(r"\d{4}-\d\d-\d\d", v)),
}


@functools.cache
def format_checker() -> Any:
    """A ``jsonschema.FormatChecker`` of :data:`FORMATS`: a string fails when its check returns ``False`` or
    raises ``ValueError``; other formats and non-strings pass, as in the API server."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMATS.items():
        checker.checks(name, raises=ValueError)(
            lambda value, check=check: not isinstance(value, str) or check(value) is not False
        )
    return checker


@dataclass(frozen=True)
class Violation:
    """One problem of an object: ``path`` (``spec.rolloutStrategy``), ``problem`` (``pruned``, a
    :data:`_PROBLEMS` value, …) and ``message``."""

    path: str
    problem: str
    message: str


def warm_up() -> None:
    """Import jsonschema and build the format checker in a background thread, overlapping the helm renders."""
    threading.Thread(target=format_checker, name="jsonschema-import", daemon=True).start()


def check(schema: Any, instance: Any) -> list[Violation]:
    """Every problem of ``instance`` against a version's ``openAPIV3Schema`` ``schema``, ordered by path."""
    from jsonschema import Draft4Validator

    instance = drop_nulls(schema, instance)
    checker = Draft4Validator(translate(schema, instance, root=True), format_checker=format_checker())
    return sorted(
        [*violations(checker, instance), *duplicates(schema, instance, [])], key=lambda v: (v.path, v.problem)
    )


def duplicates(node: Any, value: Any, path: list[Any]) -> Iterator[Violation]:
    """A violation (Kubernetes' ``Duplicate value``) per item of a ``set`` list equal to an earlier one, and of a
    ``map`` list whose map keys equal an earlier item's, at every depth of ``value`` ``node`` describes."""
    if not isinstance(node, Mapping):
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from duplicates(_property(node, key), item, [*path, key])
    elif isinstance(value, list):
        kind = node.get("x-kubernetes-list-type")
        items = node.get("items") if isinstance(node.get("items"), Mapping) else {}
        keys = [str(k) for k in node.get("x-kubernetes-list-map-keys") or []]
        defaults = {k: (items.get("properties") or {}).get(k, {}).get("default") for k in keys}
        seen: set[str] = set()
        for index, item in enumerate(value):
            if kind == "set" or (kind == "map" and keys and isinstance(item, Mapping)):
                listed = item if kind == "set" else {k: item.get(k, defaults[k]) for k in keys}
                marker = json.dumps(listed, sort_keys=True, default=str)
                if marker in seen:
                    yield Violation(format_path([*path, index]), "duplicate items", f"Duplicate value: {marker}")
                seen.add(marker)
            yield from duplicates(items, item, [*path, index])


_PRUNED = "not in the schema and no x-kubernetes-preserve-unknown-fields: the API server drops it"


def violations(checker: Any, instance: Any) -> list[Violation]:
    """Every problem ``checker`` finds in ``instance``: one per pruned or missing field, one per other rule."""
    found: list[Violation] = []
    for error in checker.iter_errors(instance):
        where = list(error.absolute_path)
        if error.validator == "additionalProperties" and error.validator_value is False:
            known = error.schema.get("properties") or {}
            found += [Violation(format_path([*where, k]), "pruned", _PRUNED) for k in error.instance if k not in known]
        elif error.validator == "required":
            missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
            found += [
                Violation(format_path([*where, k]), "missing required", "required field not set") for k in missing
            ]
        else:
            message = f"{error.instance!r} is neither an integer nor a string" if error.validator == "anyOf" else None
            problem = _PROBLEMS.get(str(error.validator), str(error.validator))
            found.append(Violation(format_path(where) if where else "(root)", problem, message or error.message))
    return list({(v.path, v.problem, v.message): v for v in found}.values())
