"""Comments in values.yaml: helm-docs descriptions and # @schema annotations (helm-values-schema-json v2.5.0)."""

from __future__ import annotations

import contextlib
import math
import re
from typing import Any

from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.golang.text_template.parse import go_unquote
from gsvendor.generate.golang.text_template.values import go_print
from gsvendor.generate.schema.model import _BY_JSON, Schema, SchemaError, _node_field

_HELM_DOCS_COMMENT = re.compile(
    r'^#\s+(?P<path>(?:"[^"]*"|[^@\-\s]*)(?:\.(?:"[^"]*"|[^\s\.]*))*)?\s*--\s*(?:\((?P<type>[\w/\.-]+)\)\s*)?(?P<desc>.*)',
    re.ASCII,
)
_HELM_DOCS_PATH = re.compile(r'^(?:"[^"]*"|(?:[^\s\."]*(?:"[^"]*"|[^\s\."]*)*))', re.ASCII)


def cut_schema_comment(line: str) -> str | None:
    """``# @schema foo`` → ``foo``; ``None`` when the line is not a ``# @schema`` comment."""
    body = line.removeprefix("#").strip()
    rest = body[len("@schema") :]
    return rest.strip() if body.startswith("@schema") and rest[:1].isspace() else None  # not "# @schemafoo"


def _helm_docs_path(path: str) -> list[str]:
    parts: list[str] = []
    rest = path
    while rest:
        if parts:
            if not rest.startswith("."):
                raise SchemaError(f"expected dot separator, but got {rest[0]!r} in: {path}")
            rest = rest[1:]
            if not rest:
                raise SchemaError(f"expected value after final dot: {path}")
        segment = _HELM_DOCS_PATH.match(rest).group(0)  # type: ignore[union-attr]  # matches "" at least
        if not segment:
            raise SchemaError(f"invalid syntax: {path}")
        if not parts and segment.startswith('"'):
            raise SchemaError(f"must not start with a quote: {path}")
        rest = rest[len(segment) :]
        parts.append(segment[1:-1] if segment.startswith('"') else segment)
    return parts


def parse_helm_docs_comment(lines: list[str]) -> tuple[list[str], str]:
    """The (path, description) of a helm-docs ``# --`` comment as hvsj reads it."""
    match = _HELM_DOCS_COMMENT.match(lines[0]) if lines else None
    if match is None:
        return [], ""
    path = _helm_docs_path(match.group("path") or "")
    description = [match.group("desc")]
    for line in lines[1:]:
        if cut_schema_comment(line) is not None:
            raise SchemaError(
                "'# @schema' comments are not supported in helm-docs comments; "
                "put the '# @schema' comment above the helm-docs '# --' line"
            )
        without_pound = line.removeprefix("#").strip()
        if "--" not in without_pound:
            description.append(without_pound)
    return path, " ".join(description)


def _comments(key: goyaml.Node | None, value: goyaml.Node, use_helm_docs: bool) -> tuple[list[str], list[str]]:
    """A node's annotation lines (head, line comments, foot) and, with ``use_helm_docs``, its helm-docs lines."""
    head, line, foot = (key.head_comment, key.line_comment, key.foot_comment) if key is not None else ("", "", "")
    lines = head.rpartition("\n\n")[2].split("\n") if head else []  # the head's last comment group
    split = next((n for n, text in enumerate(lines) if use_helm_docs and _HELM_DOCS_COMMENT.match(text)), len(lines))
    before, helm_docs = lines[:split], lines[split:]
    line_comments = [comment for comment in (line, value.line_comment) if comment]
    return before + line_comments + (foot.split("\n") if foot else []), helm_docs


def _process_list(text: str, strings_only: bool) -> list[Any]:
    """hvsj's ``processList``: a YAML flow list, else a comma-separated list."""
    if text.startswith("["):
        try:
            value = goyaml.loads(text)
        except goyaml.YAMLError:
            value = None
        if isinstance(value, list):
            return [_as_string(item) for item in value] if strings_only else value
        text = text[1:].removesuffix("]")
    return [_list_item(item.strip(), strings_only) for item in text.split(",")]


def _list_item(text: str, strings_only: bool) -> Any:
    if not strings_only and text == "null":
        return None
    if len(text) > 1 and text.startswith('"') and text.endswith('"'):
        with contextlib.suppress(ValueError, IndexError):  # strconv.Unquote, else the text as it is
            return go_unquote(text)
    return text.strip('"')


def _as_string(value: Any) -> Any:
    """A flow list's item as hvsj reads it into a string (a scalar as Go prints it, a mapping as it is)."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return [_as_string(item) for item in value]
    return value if isinstance(value, str | dict) else go_print(value)


def _bool(value: str, name: str) -> bool:
    if value not in ("true", "", "false"):
        raise SchemaError(f'{name}: invalid boolean "{value}", must be "true" or "false"')
    return value != "false"


def _uint(value: str, name: str) -> int | None:
    if value == "null":
        return None
    if value.startswith("-"):
        raise SchemaError(f'{name}: invalid integer "{value}": negative values not allowed')
    if not value.isdigit() or not value.isascii():
        raise SchemaError(f'{name}: invalid integer "{value}": invalid syntax')
    # past 20 digits it is out of uint64's range (and int() refuses past 4300 digits)
    number = int(value) if len(value.lstrip("0")) <= 20 else 2**64
    if number > 2**64 - 1:
        raise SchemaError(f'{name}: invalid integer "{value}": value out of range')
    return number


# strconv.ParseFloat: decimal (no underscores), hex with a p exponent, inf/infinity/nan
_GO_FLOAT_SYNTAX = re.compile(
    r"^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?"
    r"|0[xX](?:_?[0-9a-fA-F])*\.?[0-9a-fA-F_]*[pP][+-]?\d+|inf(?:inity)?|nan)$",
    re.IGNORECASE,
)


def _float(value: str, name: str) -> float | None:
    if value == "null":
        return None
    try:
        if not _GO_FLOAT_SYNTAX.match(value):
            raise ValueError
        number = float.fromhex(value.replace("_", "")) if "x" in value.lower() else float(value)
    except ValueError:
        raise SchemaError(f'{name}: invalid number "{value}": invalid syntax') from None
    except OverflowError:  # a hex float past float64
        number = math.inf
    if math.isinf(number) and "inf" not in value.lower():  # ParseFloat's ErrRange: 1e400, 0x1p9999
        raise SchemaError(f'{name}: invalid number "{value}": value out of range')
    return number


def _object(value: str, name: str, kind: str) -> Any:
    if not value:
        raise SchemaError(f'{name}: parse object "": missing value')
    try:  # with a final newline libyaml reads the text (without, the pure-Python parser): the same nodes
        document = goyaml.parse(value + "\n")
    except goyaml.YAMLError:
        try:  # the text as written words the error
            document = goyaml.parse(value)
        except goyaml.YAMLError as exc:
            raise SchemaError(f"{name}: parse object {value!r}: {exc}") from None
    if document is None or not document.content:
        return None
    try:
        return _node_field(document.content[0], kind, name)
    except SchemaError as exc:
        raise SchemaError(f"{name}: parse object {value!r}: {exc}") from None


# annotations that set the schema field of that JSON name, read by the field's kind
_FIELD_ANNOTATIONS = {"enum", "multipleOf", "maximum", "minimum", "maxLength", "minLength", "maxItems", "minItems"}
_FIELD_ANNOTATIONS |= {"maxProperties", "minProperties", "pattern", "uniqueItems", "patternProperties", "title"}
_FIELD_ANNOTATIONS |= {"description", "examples", "readOnly", "deprecated", "default", "$id", "$ref", "allOf"}
_FIELD_ANNOTATIONS |= {"anyOf", "oneOf", "not", "const", "additionalProperties", "unevaluatedProperties", "type"}
# annotations that set a field of the items schema
_ITEM_ANNOTATIONS = {"item": "type", "itemProperties": "properties", "itemEnum": "enum", "itemRef": "$ref"}
# annotations that set hvsj's internal flags
_FLAG_ANNOTATIONS = {"skipProperties": "skip_properties", "mergeProperties": "merge_properties", "hidden": "hidden"}
_FLAG_ANNOTATIONS["required"] = "required_by_parent"


def _annotation_value(name: str, kind: str, value: str, key: str) -> Any:
    """The value of annotation ``key`` for the field ``name`` of ``kind`` (hvsj ``processComment``)."""
    if name == "type":
        values = _process_list(value, True)
        return values[0] if len(values) == 1 else values
    if name in ("additionalProperties", "unevaluatedProperties") and not value:
        return Schema("true")
    if kind == "str":
        return value
    if kind == "list":
        return _process_list(value, False)
    if kind in ("bool", "float", "uint"):
        number = {"bool": _bool, "float": _float, "uint": _uint}[kind](value, key)
        if name == "multipleOf" and number is not None and number <= 0:
            raise SchemaError("multipleOf: must be greater than zero")
        return number
    return _object(value, key, kind)


def process_comment(schema: Schema, lines: list[str]) -> None:
    """Apply the ``# @schema key: value; …`` annotations of ``lines`` to ``schema`` (hvsj ``processComment``).
    Raises :class:`SchemaError` for an unknown annotation or a value of the wrong form."""
    parts = [part for line in lines if (body := cut_schema_comment(line)) is not None for part in body.split(";")]
    for key, _, value in (part.partition(":") for part in parts):
        key, value = key.strip(), value.strip()
        if key in _FLAG_ANNOTATIONS:
            setattr(schema, _FLAG_ANNOTATIONS[key], _bool(value, key))
            continue
        if key not in _FIELD_ANNOTATIONS and key not in _ITEM_ANNOTATIONS:
            raise SchemaError(f'unknown annotation "{key}"')
        target, name = schema, key
        if key in _ITEM_ANNOTATIONS:
            schema.items = schema.items or Schema()
            target, name = schema.items, _ITEM_ANNOTATIONS[key]
        attr, kind = _BY_JSON[name]
        setattr(target, attr, _annotation_value(name, kind, value, key))
