"""The JSON Schema of an overlay declaration (``overlays/*.yaml``): :data:`OPERATIONS` holds each
operation's keys, :data:`OVERLAY_SCHEMA` the whole file."""

from __future__ import annotations

from typing import Any

from gsvendor.config_schema import CRD_CONDITION_SCHEMA, RELPATH

_STRING = {"type": "string"}
_TEXT = {"type": "string", "minLength": 1}
_STRINGS = {"type": "array", "items": _STRING, "minItems": 1}
_TARGET = {"file": _TEXT, "glob": _TEXT, "exclude": _STRINGS}
_COMMON = {"description": _STRING, "charts": _STRINGS, "versions": _STRING, "crd": CRD_CONDITION_SCHEMA}


def _op(name: str, required: list[str], props: dict[str, Any], one_of: tuple[str, ...] = ("file", "glob")) -> Any:
    """The schema of operation ``name``: its ``props``, and the target keys unless ``one_of`` names others."""
    target = _TARGET if one_of == ("file", "glob") else {}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["op", *required],
        "properties": {"op": {"const": name}, **_COMMON, **target, **props},
        **({"oneOf": [{"required": [key]} for key in one_of]} if one_of else {}),
    }


_VALUES = {"values": {"type": "object", "minProperties": 1}}
_INSERT = {"anchor": _TEXT, "text": _STRING, "count": {"type": "integer", "minimum": 1}}
# "all": every match, at least one (a list upstream grows, such as its runtimes)
_REPLACE = {
    "find": _STRING,
    "with": _STRING,
    "regex": {"type": "boolean"},
    "count": {"anyOf": [_INSERT["count"], {"const": "all"}]},
}
_COPY = {"from": _TEXT, "content": _STRING, "to": RELPATH, "substitute": {"type": "boolean"}}
OPERATIONS: dict[str, dict[str, Any]] = {
    "yaml-set": _op("yaml-set", ["values"], _VALUES),
    "yaml-merge": _op("yaml-merge", ["values"], _VALUES),
    "yaml-delete": _op("yaml-delete", ["keys"], {"keys": _STRINGS}),
    "replace": _op("replace", ["find", "with"], _REPLACE),
    "insert-after": _op("insert-after", ["anchor", "text"], _INSERT),
    "insert-before": _op("insert-before", ["anchor", "text"], _INSERT),
    "patch": _op("patch", ["patch"], {"patch": _TEXT}, ()),
    "copy": _op("copy", ["to"], _COPY, ("from", "content")),
}

OVERLAY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["operations"],
    "properties": {
        "description": _STRING,
        "charts": _STRINGS,
        "versions": _STRING,
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
