"""The JSON Schema of an overlay declaration (``overlays/*.yaml``): :data:`OPERATIONS` holds each
operation's keys, :data:`OVERLAY_SCHEMA` the whole file; :mod:`gsvendor.overlays.engine` loads
and applies what passes it."""

from __future__ import annotations

from typing import Any

from gsvendor.config_schema import CRD_CONDITION_SCHEMA

_TARGET = {
    "file": {"type": "string", "minLength": 1},
    "glob": {"type": "string", "minLength": 1},
    "exclude": {"type": "array", "items": {"type": "string"}, "minItems": 1},
}


_COMMON = {
    "op": {"type": "string"},
    "description": {"type": "string"},
    "charts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "versions": {"type": "string"},
    "crd": CRD_CONDITION_SCHEMA,
}


def _op(name: str, required: list[str], props: dict[str, Any], target: bool = True) -> dict[str, Any]:
    properties = {**_COMMON, **(_TARGET if target else {}), **props, "op": {"const": name}}
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["op", *required],
        "properties": properties,
    }
    if target:
        schema["oneOf"] = [{"required": ["file"]}, {"required": ["glob"]}]
    return schema


OPERATIONS: dict[str, dict[str, Any]] = {
    "yaml-set": _op("yaml-set", ["values"], {"values": {"type": "object", "minProperties": 1}}),
    "yaml-merge": _op("yaml-merge", ["values"], {"values": {"type": "object", "minProperties": 1}}),
    "yaml-delete": _op(
        "yaml-delete", ["keys"], {"keys": {"type": "array", "items": {"type": "string"}, "minItems": 1}}
    ),
    "replace": _op(
        "replace",
        ["find", "with"],
        {
            "find": {"type": "string"},
            "with": {"type": "string"},
            "regex": {"type": "boolean"},
            # "all": every match, at least one (a list upstream grows, such as its runtimes)
            "count": {"anyOf": [{"type": "integer", "minimum": 1}, {"const": "all"}]},
        },
    ),
    "insert-after": _op(
        "insert-after",
        ["anchor", "text"],
        {
            "anchor": {"type": "string", "minLength": 1},
            "text": {"type": "string"},
            "count": {"type": "integer", "minimum": 1},
        },
    ),
    "insert-before": _op(
        "insert-before",
        ["anchor", "text"],
        {
            "anchor": {"type": "string", "minLength": 1},
            "text": {"type": "string"},
            "count": {"type": "integer", "minimum": 1},
        },
    ),
    "patch": _op("patch", ["patch"], {"patch": {"type": "string", "minLength": 1}}, target=False),
    "copy": {
        **_op(
            "copy",
            ["to"],
            {
                "from": {"type": "string", "minLength": 1},
                "content": {"type": "string"},
                "to": {"type": "string", "minLength": 1, "not": {"pattern": r"(^/)|(^|/)\.\.(/|$)|^(\./?)+$"}},
                "substitute": {"type": "boolean"},
            },
            target=False,
        ),
        "oneOf": [{"required": ["from"]}, {"required": ["content"]}],
    },
}


OVERLAY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["operations"],
    "properties": {
        "description": {"type": "string"},
        "charts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "versions": {"type": "string"},
        "operations": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["op"],
                "properties": {"op": {"enum": sorted(OPERATIONS)}},
                "allOf": [{"if": {"properties": {"op": {"const": n}}}, "then": s} for n, s in OPERATIONS.items()],
            },
        },
    },
}
