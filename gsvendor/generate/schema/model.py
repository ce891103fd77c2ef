"""The schema model of helm-values-schema-json v2.5.0: its Go Schema struct's fields, from YAML nodes and JSON."""

from __future__ import annotations

import operator
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gsvendor.errors import GsvendorError
from gsvendor.generate.golang import yaml_v3 as goyaml

SCHEMA_URLS = {draft: f"http://json-schema.org/draft-0{draft}/schema#" for draft in (4, 6, 7)}
SCHEMA_URLS |= {
    2019: "https://json-schema.org/draft/2019-09/schema",
    2020: "https://json-schema.org/draft/2020-12/schema",
}
VALID_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


class SchemaError(GsvendorError):
    """The schema cannot be generated: bad .schema.yaml, values or annotation, or an unreachable $ref (exit 2)."""

    code = "schema"


@dataclass(frozen=True)
class Referrer:
    """Where a ``$ref`` was written: a folder (``dir``, absolute POSIX) or a URL."""

    dir: str = ""
    url: str = ""

    def join(self, path: str, fragment: str) -> str:
        """The reference target: ``path`` resolved against this referrer, with ``#fragment``."""
        frag = f"#{fragment}" if fragment else ""
        if self.url:
            parts = urlsplit(self.url)
            joined = posixpath.normpath(posixpath.join(parts.path or "/", path))
            return urlunsplit((parts.scheme, parts.netloc, joined, "", "")) + frag
        return posixpath.normpath(posixpath.join(self.dir, path)) + frag


class Schema:
    """One JSON schema (hvsj's ``Schema``): ``kind`` is ``object``, ``true`` or ``false``. The annotated
    attributes are hvsj's fields in its struct order (``None``/empty when unset; :data:`FIELDS` is derived
    from them), then hvsj's internal flags."""

    schema: str
    id: str
    vocabulary: dict[str, bool] | None
    anchor: str
    dynamic_anchor: str
    recursive_anchor: str
    title: str
    description: str
    comment: str
    examples: list[Any] | None
    deprecated: bool
    read_only: bool
    write_only: bool
    default: Any
    ref: str
    dynamic_ref: str
    recursive_ref: str
    type: Any
    const: Any
    enum: list[Any] | None
    all_of: list[Schema] | None
    any_of: list[Schema] | None
    one_of: list[Schema] | None
    not_: Schema | None
    if_: Schema | None
    then: Schema | None
    else_: Schema | None
    exclusive_maximum: float | None
    maximum: float | None
    exclusive_minimum: float | None
    minimum: float | None
    multiple_of: float | None
    pattern: str
    format: str
    max_length: int | None
    min_length: int | None
    content_encoding: str
    content_media_type: str
    content_schema: Schema | None
    max_items: int | None
    min_items: int | None
    unique_items: bool
    max_contains: int | None
    min_contains: int | None
    contains: Schema | None
    prefix_items: list[Schema] | None
    items: Schema | None
    additional_items: Schema | None
    unevaluated_items: Schema | None
    required: list[str] | None
    max_properties: int | None
    min_properties: int | None
    property_names: Schema | None
    properties: dict[str, Schema] | None
    pattern_properties: dict[str, Schema] | None
    additional_properties: Schema | None
    unevaluated_properties: Schema | None
    dependent_required: dict[str, list[str]] | None
    dependencies: Any
    dependent_schemas: dict[str, Schema] | None
    defs: dict[str, Schema] | None
    definitions: dict[str, Schema] | None

    ref_referrer: Referrer | None
    dynamic_ref_referrer: Referrer | None
    skip_properties: bool
    merge_properties: bool
    hidden: bool
    required_by_parent: bool

    def __init__(self, kind: str = "object", **values: Any) -> None:
        self.__dict__.update(_INITIAL, kind=kind, **values)

    def is_type(self, name: str) -> bool:
        """``type`` equals ``name`` or lists it."""
        value = self.type
        return name in value if isinstance(value, list) else value == name

    def subschemas(self) -> Iterator[tuple[list[str], Schema]]:
        """hvsj's ``Subschemas``: (pointer segments, schema) of every object-kind subschema, in order."""
        for attr, name, kind in _SUBSCHEMA_KINDS:
            value = self.__dict__[attr]
            if not value:
                continue
            if kind == "schema":
                found = [([name], value)]
            elif kind == "schemas":  # hvsj names oneOf children "anyOf" in pointers (error messages only)
                found = [(["anyOf" if name == "oneOf" else name, str(index)], sub) for index, sub in enumerate(value)]
            else:
                found = [([name, _escape(key)], value[key]) for key in sorted(value, key=_go_key)]
            yield from ((path, sub) for path, sub in found if sub is not None and sub.kind == "object")

    def to_data(self) -> Any:
        """The schema as data, as ``json.Marshal`` writes it (omitempty, struct order, map keys sorted)."""
        if self.kind == "true":
            return True
        if self.kind == "false":
            return False
        values = zip(FIELDS, _ALL_FIELDS(self.__dict__), strict=True)
        return {name: _go_sorted(value) for (_, name, kind), value in values if not _is_empty(value, kind)}


# a field's kind, from its annotation: how it is decoded, merged, tested for emptiness and written
_KINDS = {
    "str": "str",
    "bool": "bool",
    "Any": "any",
    "float | None": "float",  # float and uint: Go pointers
    "int | None": "uint",
    "Schema | None": "schema",
    "list[Schema] | None": "schemas",
    "dict[str, Schema] | None": "schema_map",
    "list[Any] | None": "list",
    "list[str] | None": "strs",
    "dict[str, bool] | None": "map_bool",
    "dict[str, list[str]] | None": "map_strs",
}
_DOLLAR = {"schema", "id", "vocabulary", "anchor", "dynamic_anchor", "recursive_anchor", "comment", "ref"}
_DOLLAR |= {"dynamic_ref", "recursive_ref", "defs"}
_FLAGS = ("ref_referrer", "dynamic_ref_referrer", "skip_properties", "merge_properties", "hidden", "required_by_parent")


def _json_name(attr: str) -> str:
    first, *rest = attr.rstrip("_").split("_")
    return ("$" if attr in _DOLLAR else "") + first + "".join(part.title() for part in rest)


# (attribute, JSON name, kind) of every field, in hvsj's Schema struct order (the order it writes them)
FIELDS: tuple[tuple[str, str, str], ...] = tuple(
    (attr, _json_name(attr), _KINDS[hint]) for attr, hint in Schema.__annotations__.items() if attr not in _FLAGS
)
_BY_JSON = {name: (attr, kind) for attr, name, kind in FIELDS}
_FOLDED = {name.lower(): name for name in _BY_JSON}  # json.Unmarshal matches names case-insensitively
_EMPTY: dict[str, Any] = {"str": "", "bool": False}
# a new Schema's attributes in one dict update (hundreds of schemas per chart)
_INITIAL: dict[str, Any] = {attr: _EMPTY.get(kind) for attr, _, kind in FIELDS}
_INITIAL.update({**dict.fromkeys(_FLAGS[:2]), **dict.fromkeys(_FLAGS[2:], False)})
_SUBSCHEMA_KINDS = [field for field in FIELDS if field[2] in ("schema", "schemas", "schema_map")]
_ALL_FIELDS = operator.itemgetter(*(attr for attr, _, _ in FIELDS))


def _go_sorted(value: Any) -> Any:
    """``value`` with mappings in Go's encoding/json order (keys sorted) and schemas as their data."""
    if isinstance(value, dict):
        return {k: _go_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_go_sorted(v) for v in value]
    return value.to_data() if isinstance(value, Schema) else value


def _go_key(key: str) -> bytes:
    return key.encode("utf-8")


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _is_empty(value: Any, kind: str) -> bool:
    """Go's omitempty: a pointer or interface (``float``, ``uint``, ``schema``, ``any``) only when nil."""
    return value is None or (kind not in ("float", "uint", "schema", "any") and not value)


def ptr_string(ptr: list[str]) -> str:
    """``/a/b`` (hvsj's ``Ptr.String``)."""
    return "/" + "/".join(ptr)


def _decode_error(node: goyaml.Node, target: str) -> SchemaError:
    """yaml.v3's ``terror``: a scalar's value shown (cut to 7 characters past 10), a collection's not."""
    tag = node.short_tag()
    shown = "" if tag in ("!!seq", "!!map") else f" `{node.value if len(node.value) <= 10 else node.value[:7] + '...'}`"
    return SchemaError(f"line {node.line}: cannot unmarshal {tag}{shown} into {target}")


def _node_text(node: goyaml.Node) -> str:
    node = deref(node)
    if node.kind != goyaml.SCALAR:
        raise _decode_error(node, "string")
    return "" if is_null(node) else node.value


def deref(node: goyaml.Node) -> goyaml.Node:
    """The node an alias stands for (``node`` itself when it is not an alias)."""
    while node.kind == goyaml.ALIAS and node.alias is not None:
        node = node.alias
    return node


def is_null(node: goyaml.Node) -> bool:
    """A plain null scalar (``null``, ``~``, empty): yaml.v3 decodes it into a Go field as its zero value."""
    return node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG and not node.style


# yaml.v3 decodes these strings into a Go bool field (YAML 1.1's booleans), and only into one
YAML11_BOOLS = dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"), True) | dict.fromkeys(
    ("n", "N", "no", "No", "NO", "off", "Off", "OFF"), False
)


def _node_scalar(node: goyaml.Node) -> Any:
    try:
        return goyaml.scalar_value(deref(node))
    except goyaml.YAMLError as exc:
        raise SchemaError(str(exc)) from None


def _node_field(node: goyaml.Node, kind: str, name: str) -> Any:
    """Decode ``node`` into a field of ``kind`` the way yaml.v3 decodes into the Go field type."""
    node = deref(node)
    if kind == "str":
        return _node_text(node)
    if kind == "any":
        try:
            return goyaml.decode(node)
        except goyaml.YAMLError as exc:
            raise SchemaError(f"{name}: {exc}") from None
    if is_null(node):
        return _EMPTY.get(kind)  # null: false, else nil
    if kind == "schema":
        return schema_from_node(node)
    scalar = node.kind == goyaml.SCALAR and kind in ("bool", "float", "uint")
    value = _node_scalar(node) if scalar else None
    if kind == "bool":
        value = YAML11_BOOLS.get(value, value) if isinstance(value, str) else value
        if not isinstance(value, bool):
            raise _decode_error(node, "bool")
        return value
    if kind in ("float", "uint"):
        if isinstance(value, bool) or not isinstance(value, int | float) or (kind == "uint" and not 0 <= value < 2**64):
            raise _decode_error(node, "float64" if kind == "float" else "uint64")
        return float(value) if kind == "float" else int(value)
    if kind in ("list", "schemas", "strs"):
        if node.kind != goyaml.SEQUENCE:
            raise _decode_error(node, "[]string" if kind == "strs" else "[]")
        item = {"list": goyaml.decode, "schemas": schema_from_node}.get(kind, _node_text)
        return [item(child) for child in node.content]
    if node.kind != goyaml.MAPPING:
        raise _decode_error(node, "map")
    if kind == "schema_map":
        return {key.value: schema_from_node(value) for key, value in node.pairs()}
    item_kind = "bool" if kind == "map_bool" else "strs"
    return {key.value: _node_field(value, item_kind, name) for key, value in node.pairs()}


def schema_from_node(node: goyaml.Node) -> Schema | None:
    """Decode a YAML node into a :class:`Schema` as hvsj's ``UnmarshalYAML`` does (``true``/``false``:
    boolean schemas, null: ``None``). Raises :class:`SchemaError` for a wrong type or a duplicate key."""
    node = deref(node)
    if is_null(node):
        return None
    if node.kind == goyaml.SCALAR and node.short_tag() == goyaml.BOOL_TAG:
        return Schema("true" if _node_scalar(node) else "false")
    if node.kind != goyaml.MAPPING:
        raise _decode_error(node, "Schema")
    schema = Schema()
    seen: set[str] = set()
    for key, value in node.pairs():
        if key.value in seen:
            raise SchemaError(f"line {key.line}: mapping key {key.value!r} already defined")
        seen.add(key.value)
        if key.value in _BY_JSON:
            attr, kind = _BY_JSON[key.value]
            setattr(schema, attr, _node_field(value, kind, key.value))
    return schema


# kind → (the JSON values json.Unmarshal accepts for it, the Go type its error names)
_JSON_TYPES: dict[str, tuple[Any, str]] = {
    "str": (str, "string"),
    "bool": (bool, "bool"),
    **dict.fromkeys(("float", "uint"), (int | float, "number")),
    **dict.fromkeys(("list", "schemas", "strs"), (list, "array")),
    **dict.fromkeys(("schema_map", "map_bool", "map_strs"), (dict, "object")),
}


def _json_field(value: Any, kind: str, name: str) -> Any:
    if kind == "any":
        return value
    if kind == "schema":
        return schema_from_json(value)
    if value is None:
        return _EMPTY.get(kind)
    accepted, go_type = _JSON_TYPES[kind]
    if isinstance(value, bool) != (kind == "bool") or not isinstance(value, accepted):
        raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type {go_type}")
    if kind in ("float", "uint"):
        return float(value) if kind == "float" else int(value)
    if kind in ("schemas", "strs"):
        return [schema_from_json(v) if kind == "schemas" else _json_field(v, "str", name) for v in value]
    if kind in ("schema_map", "map_bool", "map_strs"):
        item_kind = {"map_bool": "bool", "map_strs": "strs"}.get(kind)
        return {k: _json_field(v, item_kind, name) if item_kind else schema_from_json(v) for k, v in value.items()}
    return value


def schema_from_json(value: Any) -> Schema | None:
    """Decode parsed JSON into a :class:`Schema` as ``json.Unmarshal`` into hvsj's type does (names
    match case-insensitively, exact ones first). Raises :class:`SchemaError` for a wrong type."""
    if value is None:
        return None
    if value is True or value is False:
        return Schema("true" if value else "false")
    if not isinstance(value, dict):
        raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into Go value of type Schema")
    schema = Schema()
    for key, item in value.items():
        if (name := key if key in _BY_JSON else _FOLDED.get(key.lower())) is not None:
            attr, kind = _BY_JSON[name]
            setattr(schema, attr, _json_field(item, kind, name))
    return schema
