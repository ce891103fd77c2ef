"""values.schema.json as helm-values-schema-json v2.5.0 generates it and schemalint normalizes it.

:func:`generate_schema` reads a chart's ``.schema.yaml`` (the configuration file of the Helm
plugin github.com/losisin/helm-values-schema-json, "hvsj" below) and returns the bytes of the
configured output file, equal to running ``helm schema`` in the chart folder followed by
``schemalint normalize`` (github.com/giantswarm/schemalint v2.6) and writing with the configured
indent. Behaviour matched, with where it lives in hvsj v2.5.0:

* configuration (``pkg/cmd.go``): ``values`` (merged in order, later files win), ``draft`` (4, 6,
  7, 2019, 2020), ``indent`` (positive, even), ``output``, ``noAdditionalProperties``,
  ``noDefaultGlobal``, ``useHelmDocs``, ``schemaRoot`` (``id``, ``ref``, ``title``,
  ``description``, ``additionalProperties``), ``bundle``, ``bundleRoot``, ``bundleWithoutID``,
  ``k8sSchemaURL``, ``k8sSchemaVersion``; defaults as the plugin's;
* inference (``pkg/schema.go`` ``parseNode``): null, boolean, integer, number, string (also for
  timestamps and custom tags), object with ``properties``, array with ``items`` merged from
  every item (last item's type wins), nothing for aliases;
* ``# @schema`` annotations above, on and below a key (``pkg/comment.go``): type, enum,
  itemEnum, const, pattern, min/maxLength, multipleOf, minimum, maximum, item, itemProperties,
  itemRef, min/maxItems, uniqueItems, min/maxProperties, required, patternProperties,
  additionalProperties, unevaluatedProperties, mergeProperties, skipProperties, hidden, $id,
  $ref (``$k8s/`` alias), title, description, examples, default, readOnly, deprecated,
  allOf, anyOf, oneOf, not; helm-docs ``# --`` descriptions with ``useHelmDocs``;
* compliance (``pkg/parser.go``): ``type`` dropped next to allOf/anyOf/oneOf/not/const,
  ``$ref`` wrapped in ``allOf`` for draft 7 and older, ``additionalProperties: false`` on every
  object with ``noAdditionalProperties``, the ``global`` property added when the root forbids
  additional properties (unless ``noDefaultGlobal``);
* bundling (``pkg/bundle.go``): ``$ref`` targets loaded into ``$defs`` (with ``$id``, or
  ``#/$defs/…`` refs with ``bundleWithoutID``), unused ``$defs`` removed. Files are read from
  the chart (inside ``bundleRoot``); http(s) targets are never fetched: they are read from the
  folder named by the gsvendor-only key ``localRefs`` (``<localRefs>/<host>/<path>``) and a
  missing copy is an error naming the URL and the expected file.

Then schemalint's ``normalize`` (``pkg/normalize``, unchanged from v2.0.0 to v2.6.3, with
iancoleman/orderedmap v0.3.0): every object's keys sorted by importance
(``$id``, ``$schema``, ``$ref``/``$defs``, ``type``, ``title``, ``description``, ``deprecated``,
``$comment``, ``enum``/``examples``, ``default``/``required`` … ``if``, ``then``, ``else``; an
object- or null-valued ``default``/``additionalProperties`` ranks with ``properties``), ties by
name, numbers written as float64, ``<``/``>``/``&`` unescaped.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gsvendor import gojson, goyaml
from gsvendor.errors import GsvendorError

CONFIG_FILE = ".schema.yaml"
DEFAULT_K8S_SCHEMA_URL = (
    "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/{{ .K8sSchemaVersion }}/"
)
SCHEMA_URLS = {
    4: "http://json-schema.org/draft-04/schema#",
    6: "http://json-schema.org/draft-06/schema#",
    7: "http://json-schema.org/draft-07/schema#",
    2019: "https://json-schema.org/draft/2019-09/schema",
    2020: "https://json-schema.org/draft/2020-12/schema",
}
VALID_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


class SchemaError(GsvendorError):
    """The schema cannot be generated: bad .schema.yaml, values or annotation, or an unreachable $ref (exit 2)."""


# --- the Schema model (hvsj's Schema struct; JSON names and omitempty rules) -----------------

# (attribute, JSON name, kind) in hvsj's field order
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("schema", "$schema", "str"),
    ("id", "$id", "str"),
    ("vocabulary", "$vocabulary", "map_bool"),
    ("anchor", "$anchor", "str"),
    ("dynamic_anchor", "$dynamicAnchor", "str"),
    ("recursive_anchor", "$recursiveAnchor", "str"),
    ("title", "title", "str"),
    ("description", "description", "str"),
    ("comment", "$comment", "str"),
    ("examples", "examples", "list"),
    ("deprecated", "deprecated", "bool"),
    ("read_only", "readOnly", "bool"),
    ("write_only", "writeOnly", "bool"),
    ("default", "default", "any"),
    ("ref", "$ref", "str"),
    ("dynamic_ref", "$dynamicRef", "str"),
    ("recursive_ref", "$recursiveRef", "str"),
    ("type", "type", "any"),
    ("const", "const", "any"),
    ("enum", "enum", "list"),
    ("all_of", "allOf", "schemas"),
    ("any_of", "anyOf", "schemas"),
    ("one_of", "oneOf", "schemas"),
    ("not_", "not", "schema"),
    ("if_", "if", "schema"),
    ("then", "then", "schema"),
    ("else_", "else", "schema"),
    ("exclusive_maximum", "exclusiveMaximum", "float"),
    ("maximum", "maximum", "float"),
    ("exclusive_minimum", "exclusiveMinimum", "float"),
    ("minimum", "minimum", "float"),
    ("multiple_of", "multipleOf", "float"),
    ("pattern", "pattern", "str"),
    ("format", "format", "str"),
    ("max_length", "maxLength", "uint"),
    ("min_length", "minLength", "uint"),
    ("content_encoding", "contentEncoding", "str"),
    ("content_media_type", "contentMediaType", "str"),
    ("content_schema", "contentSchema", "schema"),
    ("max_items", "maxItems", "uint"),
    ("min_items", "minItems", "uint"),
    ("unique_items", "uniqueItems", "bool"),
    ("max_contains", "maxContains", "uint"),
    ("min_contains", "minContains", "uint"),
    ("contains", "contains", "schema"),
    ("prefix_items", "prefixItems", "schemas"),
    ("items", "items", "schema"),
    ("additional_items", "additionalItems", "schema"),
    ("unevaluated_items", "unevaluatedItems", "schema"),
    ("required", "required", "strs"),
    ("max_properties", "maxProperties", "uint"),
    ("min_properties", "minProperties", "uint"),
    ("property_names", "propertyNames", "schema"),
    ("properties", "properties", "schema_map"),
    ("pattern_properties", "patternProperties", "schema_map"),
    ("additional_properties", "additionalProperties", "schema"),
    ("unevaluated_properties", "unevaluatedProperties", "schema"),
    ("dependent_required", "dependentRequired", "map_strs"),
    ("dependencies", "dependencies", "any"),
    ("dependent_schemas", "dependentSchemas", "schema_map"),
    ("defs", "$defs", "schema_map"),
    ("definitions", "definitions", "schema_map"),
)
_BY_JSON = {name: (attr, kind) for attr, name, kind in FIELDS}
_EMPTY: dict[str, Any] = {"str": "", "bool": False}


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
    """One JSON schema (hvsj's ``Schema``): ``kind`` is ``object``, ``true`` or ``false``.

    Attributes are the :data:`FIELDS` (``None``/empty when unset) plus hvsj's internal flags.
    """

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

    def __init__(self, kind: str = "object", **values: Any) -> None:
        self.kind = kind
        for attr, _, field_kind in FIELDS:
            setattr(self, attr, _EMPTY.get(field_kind))
        self.ref_referrer: Referrer | None = None
        self.dynamic_ref_referrer: Referrer | None = None
        self.skip_properties = False
        self.merge_properties = False
        self.hidden = False
        self.required_by_parent = False
        for key, value in values.items():
            setattr(self, key, value)

    # Go's Schema.SetKind: true/false reset every field
    def set_kind(self, kind: str) -> None:
        """Set the kind; a boolean kind clears every field (as hvsj's ``SetKind``)."""
        if kind in ("true", "false"):
            self.__init__(kind)  # type: ignore[misc]
        else:
            self.kind = "object"

    def is_type(self, name: str) -> bool:
        """``type`` equals ``name`` or lists it."""
        value = self.type
        return name in value if isinstance(value, list) else value == name

    def is_zero(self) -> bool:
        """No field set and an object kind."""
        if self.kind != "object":
            return False
        return all(_is_empty(getattr(self, attr), kind) for attr, _, kind in FIELDS)

    def copy(self) -> Schema:
        """A shallow copy (nested schemas shared), as Go's struct copy."""
        clone = Schema.__new__(Schema)
        clone.__dict__.update(self.__dict__)
        return clone

    def subschemas(self) -> Iterator[tuple[list[str], Schema]]:
        """hvsj's ``Subschemas``: (pointer segments, schema) of every object-kind subschema, in order."""
        for name, attr in (("allOf", "all_of"), ("anyOf", "any_of"), ("oneOf", "one_of")):
            for index, sub in enumerate(getattr(self, attr) or []):
                if sub is not None and sub.kind == "object":
                    # hvsj names oneOf children "anyOf" in pointers (cosmetic, error messages only)
                    yield ["anyOf" if name == "oneOf" else name, str(index)], sub
        for name, attr in (
            ("not", "not_"),
            ("if", "if_"),
            ("then", "then"),
            ("else", "else_"),
            ("contentSchema", "content_schema"),
            ("contains", "contains"),
        ):
            sub = getattr(self, attr)
            if sub is not None and sub.kind == "object":
                yield [name], sub
        for index, sub in enumerate(self.prefix_items or []):
            if sub is not None and sub.kind == "object":
                yield ["prefixItems", str(index)], sub
        for name, attr in (
            ("items", "items"),
            ("additionalItems", "additional_items"),
            ("unevaluatedItems", "unevaluated_items"),
            ("propertyNames", "property_names"),
        ):
            sub = getattr(self, attr)
            if sub is not None and sub.kind == "object":
                yield [name], sub
        for name, attr in (("properties", "properties"), ("patternProperties", "pattern_properties")):
            mapping = getattr(self, attr) or {}
            for key in sorted(mapping, key=_go_key):
                if mapping[key] is not None and mapping[key].kind == "object":
                    yield [name, _escape(key)], mapping[key]
        for name, attr in (
            ("additionalProperties", "additional_properties"),
            ("unevaluatedProperties", "unevaluated_properties"),
        ):
            sub = getattr(self, attr)
            if sub is not None and sub.kind == "object":
                yield [name], sub
        for name, attr in (
            ("dependentSchemas", "dependent_schemas"),
            ("$defs", "defs"),
            ("definitions", "definitions"),
        ):
            mapping = getattr(self, attr) or {}
            for key in sorted(mapping, key=_go_key):
                if mapping[key] is not None and mapping[key].kind == "object":
                    yield [name, _escape(key)], mapping[key]

    def to_data(self) -> Any:
        """The schema as ``json.Marshal`` writes it (omitempty applied), as Python data."""
        if self.kind == "true":
            return True
        if self.kind == "false":
            return False
        out: dict[str, Any] = {}
        for attr, name, kind in FIELDS:
            value = getattr(self, attr)
            if _is_empty(value, kind):
                continue
            if kind == "schema":
                out[name] = value.to_data()
            elif kind == "schemas":
                out[name] = [None if s is None else s.to_data() for s in value]
            elif kind == "schema_map":
                out[name] = {k: None if s is None else s.to_data() for k, s in value.items()}
            else:
                out[name] = value
        return out


def _go_key(key: str) -> bytes:
    return key.encode("utf-8")


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _is_empty(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if kind in ("str", "bool"):
        return not value
    if kind in ("list", "schemas", "schema_map", "strs", "map_bool", "map_strs"):
        return len(value) == 0
    return False


def ptr_string(ptr: list[str]) -> str:
    """``/a/b`` (hvsj's ``Ptr.String``)."""
    return "/" + "/".join(ptr)


# --- decoding schemas from YAML nodes and JSON -----------------------------------------------


def _decode_error(node: goyaml.Node, target: str) -> SchemaError:
    return SchemaError(f"line {node.line}: cannot unmarshal {node.short_tag()} `{node.value}` into {target}")


def _node_text(node: goyaml.Node, target: str) -> str:
    node = _deref(node)
    if node.kind != goyaml.SCALAR:
        raise _decode_error(node, target)
    if node.short_tag() == goyaml.NULL_TAG and not node.style:
        return ""
    return node.value


def _deref(node: goyaml.Node) -> goyaml.Node:
    while node.kind == goyaml.ALIAS and node.alias is not None:
        node = node.alias
    return node


def _node_scalar(node: goyaml.Node) -> Any:
    try:
        return goyaml.scalar_value(_deref(node))
    except goyaml.YAMLError as exc:
        raise SchemaError(str(exc)) from None


def _node_field(node: goyaml.Node, kind: str, name: str) -> Any:
    """Decode ``node`` into a field of ``kind`` the way yaml.v3 decodes into the Go field type."""
    node = _deref(node)
    is_null = node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG and not node.style
    if kind == "str":
        return _node_text(node, "string")
    if kind == "bool":
        if is_null:
            return False
        value = _node_scalar(node) if node.kind == goyaml.SCALAR else None
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"):
            return True
        if isinstance(value, str) and value in ("n", "N", "no", "No", "NO", "off", "Off", "OFF"):
            return False
        raise _decode_error(node, "bool")
    if kind == "any":
        try:
            return goyaml.decode(node)
        except goyaml.YAMLError as exc:
            raise SchemaError(f"{name}: {exc}") from None
    if kind in ("float", "uint"):
        if is_null:
            return None
        value = _node_scalar(node) if node.kind == goyaml.SCALAR else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _decode_error(node, "float64" if kind == "float" else "uint64")
        if kind == "float":
            return float(value)
        if value < 0 or value > 2**64 - 1:
            raise _decode_error(node, "uint64")
        return int(value)
    if kind == "schema":
        return None if is_null else schema_from_node(node)
    if kind in ("list", "schemas", "strs"):
        if is_null:
            return None
        if node.kind != goyaml.SEQUENCE:
            raise _decode_error(node, "[]")
        if kind == "list":
            return [goyaml.decode(child) for child in node.content]
        if kind == "strs":
            return [_node_text(child, "string") for child in node.content]
        return [schema_from_node(child) for child in node.content]
    if kind in ("schema_map", "map_bool", "map_strs"):
        if is_null:
            return None
        if node.kind != goyaml.MAPPING:
            raise _decode_error(node, "map")
        out: dict[str, Any] = {}
        for key, value in node.pairs():
            if kind == "schema_map":
                out[key.value] = schema_from_node(value)
            elif kind == "map_bool":
                out[key.value] = _node_field(value, "bool", name)
            else:
                out[key.value] = _node_field(value, "strs", name)
        return out
    raise AssertionError(kind)


def schema_from_node(node: goyaml.Node) -> Schema | None:
    """Decode a YAML node into a :class:`Schema` as hvsj's ``UnmarshalYAML`` does.

    ``true``/``false`` become boolean schemas, null becomes ``None``, unknown keys are ignored.
    Raises :class:`SchemaError` for values of the wrong type and duplicate keys.
    """
    node = _deref(node)
    if node.kind == goyaml.SCALAR:
        tag = node.short_tag()
        if tag == goyaml.NULL_TAG and not node.style:
            return None
        if tag == goyaml.BOOL_TAG:
            return Schema("true" if _node_scalar(node) else "false")
        raise _decode_error(node, "Schema")
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


def _json_field(value: Any, kind: str, name: str) -> Any:
    if kind == "str":
        if value is None:
            return ""
        if not isinstance(value, str):
            raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type string")
        return value
    if kind == "bool":
        if value is None:
            return False
        if not isinstance(value, bool):
            raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type bool")
        return value
    if kind == "any":
        return value
    if kind in ("float", "uint"):
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type number")
        return float(value) if kind == "float" else int(value)
    if kind == "schema":
        return schema_from_json(value)
    if kind in ("list", "schemas", "strs"):
        if value is None:
            return None
        if not isinstance(value, list):
            raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type array")
        if kind == "schemas":
            return [schema_from_json(v) for v in value]
        return [_json_field(v, "str", name) for v in value] if kind == "strs" else value
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into field {name} of type object")
    if kind == "schema_map":
        return {k: schema_from_json(v) for k, v in value.items()}
    return {k: _json_field(v, "bool" if kind == "map_bool" else "strs", name) for k, v in value.items()}


def schema_from_json(value: Any) -> Schema | None:
    """Decode parsed JSON into a :class:`Schema` as ``json.Unmarshal`` into hvsj's type does.

    Field names match case-insensitively (exact names first), unknown keys are ignored,
    numbers in ``default``/``enum``/… are float64.
    """
    if value is None:
        return None
    if value is True or value is False:
        return Schema("true" if value else "false")
    if not isinstance(value, dict):
        raise SchemaError(f"json: cannot unmarshal {type(value).__name__} into Go value of type Schema")
    schema = Schema()
    folded = {name.lower(): name for name in _BY_JSON}
    for key, item in value.items():
        name = key if key in _BY_JSON else folded.get(key.lower())
        if name is None:
            continue
        attr, kind = _BY_JSON[name]
        setattr(schema, attr, _json_field(item, kind, name))
    return schema


def _floats(value: Any) -> Any:
    """JSON numbers become float64, as ``encoding/json`` decodes them into ``interface{}``."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    return value


# --- comments and annotations ----------------------------------------------------------------

_HELM_DOCS_COMMENT = re.compile(
    r'^#\s+(?P<path>(?:"[^"]*"|[^@\-\s]*)(?:\.(?:"[^"]*"|[^\s\.]*))*)?\s*--\s*(?:\((?P<type>[\w/\.-]+)\)\s*)?(?P<desc>.*)',
    re.ASCII,
)
_HELM_DOCS_PATH = re.compile(r'^(?:"[^"]*"|(?:[^\s\."]*(?:"[^"]*"|[^\s\."]*)*))', re.ASCII)


def cut_schema_comment(line: str) -> str | None:
    """``# @schema foo`` → ``foo``; ``None`` when the line is not a ``# @schema`` comment."""
    without_pound = line.removeprefix("#").strip()
    if not without_pound.startswith("@schema"):
        return None
    rest = without_pound[len("@schema") :]
    trimmed = rest.strip()
    if len(trimmed) == len(rest):
        return None  # "# @schemafoo"
    return trimmed


def split_helm_docs_comment(head: str) -> tuple[list[str], list[str]]:
    """The lines of the last comment group above a key, split into (before, helm-docs lines)."""
    if not head:
        return [], []
    index = head.rfind("\n\n")
    if index != -1:
        head = head[index + 2 :]
    lines = head.split("\n")
    for number, line in enumerate(lines):
        if _HELM_DOCS_COMMENT.match(line):
            return lines[:number], lines[number:]
    return lines, []


def _helm_docs_path(path: str) -> list[str]:
    if not path:
        return []
    first = _HELM_DOCS_PATH.match(path)
    if first is None or not first.group(0):
        raise SchemaError(f"invalid syntax: {path}")
    if first.group(0).startswith('"'):
        raise SchemaError(f"must not start with a quote: {path}")
    parts = [first.group(0)]
    rest = path[len(first.group(0)) :]
    while rest:
        if not rest.startswith("."):
            raise SchemaError(f"expected dot separator, but got {rest[0]!r} in: {path}")
        rest = rest[1:]
        if not rest:
            raise SchemaError(f"expected value after final dot: {path}")
        match = _HELM_DOCS_PATH.match(rest)
        if match is None or not match.group(0):
            raise SchemaError(f"invalid syntax: {path}")
        segment = match.group(0)
        rest = rest[len(segment) :]
        if segment.startswith('"'):
            segment = segment[1:-1]
        parts.append(segment)
    return parts


def parse_helm_docs_comment(lines: list[str]) -> tuple[list[str], str]:
    """The (path, description) of a helm-docs ``# --`` comment as hvsj reads it."""
    if not lines:
        return [], ""
    match = _HELM_DOCS_COMMENT.match(lines[0])
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
    comments: list[str] = []
    helm_docs: list[str] = []
    if key is not None:
        if key.head_comment:
            comments, helm_docs = split_helm_docs_comment(key.head_comment)
            if not use_helm_docs:
                comments, helm_docs = comments + helm_docs, []
        if key.line_comment:
            comments.append(key.line_comment)
    if value.line_comment:
        comments.append(value.line_comment)
    if key is not None and key.foot_comment:
        comments += key.foot_comment.split("\n")
    return comments, helm_docs


def _annotations(lines: list[str]) -> Iterator[tuple[str, str]]:
    for line in lines:
        body = cut_schema_comment(line)
        if body is None:
            continue
        for part in body.split(";"):
            key, _, value = part.partition(":")
            yield key.strip(), value.strip()


def _yaml_node(text: str) -> goyaml.Node | None:
    try:
        document = goyaml.parse(text)
    except goyaml.YAMLError as exc:
        raise SchemaError(f"parse object {text!r}: {exc}") from None
    return document.content[0] if document is not None and document.content else None


def _process_list(text: str, strings_only: bool) -> list[Any]:
    """hvsj's ``processList``: a YAML flow list, else a comma-separated list."""
    if text.startswith("["):
        try:
            value = goyaml.loads(text)
        except goyaml.YAMLError:
            value = None
        if isinstance(value, list):
            return _as_strings(value) if strings_only else value
        text = text[1:].removesuffix("]")
    items: list[Any] = []
    for item in text.split(","):
        trimmed = item.strip()
        if not strings_only and trimmed == "null":
            items.append(None)
            continue
        if trimmed.startswith('"'):
            unquoted = _go_unquote(trimmed)
            if unquoted is not None:
                items.append(unquoted)
                continue
        items.append(trimmed.strip('"'))
    return items


def _go_unquote(text: str) -> str | None:
    """``strconv.Unquote`` of a double-quoted Go string literal, ``None`` when invalid."""
    from gsvendor.gotemplate import go_unquote

    if len(text) < 2 or not text.endswith('"') or "\n" in text:
        return None
    try:
        return go_unquote(text)
    except (ValueError, IndexError):
        return None


def _as_strings(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if value is None:
            out.append("null")
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        elif isinstance(value, float):
            out.append(gojson.format_float_g(value))
        elif isinstance(value, int):
            out.append(str(value))
        elif isinstance(value, list):
            out.append(_as_strings(value))
        else:
            out.append(value)
    return out


def _bool(value: str, name: str) -> bool:
    value = value.strip()
    if value in ("true", ""):
        return True
    if value == "false":
        return False
    raise SchemaError(f'{name}: invalid boolean "{value}", must be "true" or "false"')


def _uint(value: str, name: str) -> int | None:
    value = value.strip()
    if value == "null":
        return None
    if value.startswith("-"):
        raise SchemaError(f'{name}: invalid integer "{value}": negative values not allowed')
    if not value.isdigit() or not value.isascii():
        raise SchemaError(f'{name}: invalid integer "{value}": invalid syntax')
    number = int(value)
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
    value = value.strip()
    if value == "null":
        return None
    try:
        if not _GO_FLOAT_SYNTAX.match(value):
            raise ValueError
        number = float.fromhex(value.replace("_", "")) if "x" in value.lower() else float(value)
    except ValueError:
        raise SchemaError(f'{name}: invalid number "{value}": invalid syntax') from None
    return number


def _object(value: str, name: str, kind: str) -> Any:
    value = value.strip()
    if not value:
        raise SchemaError(f'{name}: parse object "": missing value')
    try:
        node = _yaml_node(value)
    except SchemaError as exc:
        raise SchemaError(f"{name}: {exc}") from None
    if node is None:
        return None
    try:
        return _node_field(node, kind, name)
    except SchemaError as exc:
        raise SchemaError(f"{name}: parse object {value!r}: {exc}") from None


def _items(schema: Schema) -> Schema:
    if schema.items is None:
        schema.items = Schema()
    return schema.items


def _type_value(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


def process_comment(schema: Schema, lines: list[str]) -> None:
    """Apply the ``# @schema key: value; …`` annotations of ``lines`` to ``schema`` (hvsj ``processComment``).

    Raises :class:`SchemaError` for an unknown annotation or a value of the wrong form.
    """
    s: Any = schema
    for key, value in _annotations(lines):
        if key == "enum":
            s.enum = _process_list(value, False)
        elif key == "skipProperties":
            s.skip_properties = _bool(value, key)
        elif key == "mergeProperties":
            s.merge_properties = _bool(value, key)
        elif key == "multipleOf":
            s.multiple_of = _float(value, key)
            if s.multiple_of is not None and s.multiple_of <= 0:
                raise SchemaError("multipleOf: must be greater than zero")
        elif key in ("maximum", "minimum"):
            setattr(s, key, _float(value, key))
        elif key in ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"):
            attr = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)
            setattr(s, attr, _uint(value, key))
        elif key == "pattern":
            s.pattern = value
        elif key == "uniqueItems":
            s.unique_items = _bool(value, key)
        elif key == "patternProperties":
            s.pattern_properties = _object(value, key, "schema_map")
        elif key == "required":
            s.required_by_parent = _bool(value, key)
        elif key == "type":
            s.type = _type_value(_process_list(value, True))
        elif key == "title":
            s.title = value
        elif key == "description":
            s.description = value
        elif key == "examples":
            s.examples = _process_list(value, False)
        elif key == "readOnly":
            s.read_only = _bool(value, key)
        elif key == "deprecated":
            s.deprecated = _bool(value, key)
        elif key == "default":
            s.default = _object(value, key, "any")
        elif key == "item":
            _items(s).type = _type_value(_process_list(value, True))
        elif key == "itemProperties":
            _items(s).properties = _object(value, key, "schema_map")
        elif key == "itemEnum":
            _items(s).enum = _process_list(value, False)
        elif key == "itemRef":
            _items(s).ref = value
        elif key in ("additionalProperties", "unevaluatedProperties"):
            attr = "additional_properties" if key == "additionalProperties" else "unevaluated_properties"
            setattr(s, attr, Schema("true") if not value.strip() else _object(value, key, "schema"))
        elif key == "$id":
            s.id = value
        elif key == "$ref":
            s.ref = value
        elif key == "hidden":
            s.hidden = _bool(value, key)
        elif key in ("allOf", "anyOf", "oneOf"):
            setattr(s, {"allOf": "all_of", "anyOf": "any_of", "oneOf": "one_of"}[key], _object(value, key, "schemas"))
        elif key == "not":
            s.not_ = _object(value, key, "schema")
        elif key == "const":
            s.const = _object(value, key, "any")
        else:
            raise SchemaError(f'unknown annotation "{key}"')


# --- parsing values ------------------------------------------------------------------------


def _scalar_type(tag: str) -> str:
    return {
        goyaml.INT_TAG: "integer",
        goyaml.FLOAT_TAG: "number",
        goyaml.BOOL_TAG: "boolean",
        goyaml.NULL_TAG: "null",
    }.get(tag, "string")


def parse_node(ptr: list[str], key: goyaml.Node | None, value: goyaml.Node, use_helm_docs: bool) -> Schema:
    """hvsj's ``parseNode``: the schema of one values node with its comments applied."""
    s: Any = Schema()
    ordered: list[Schema] = []
    if value.kind == goyaml.MAPPING:
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for child_key, child_value in value.pairs():
            child: Any = parse_node([*ptr, _escape(child_key.value)], child_key, child_value, use_helm_docs)
            if child.hidden:
                continue
            if child.skip_properties and child.is_type("object"):
                child.properties = None
            ordered.append(child)
            properties[child_key.value] = child
            if child.required_by_parent:
                required.append(child_key.value)
        s.type = "object"
        s.properties = properties
        if required:
            s.required = required
    elif value.kind == goyaml.SEQUENCE:
        s.type = "array"
        merged = Schema()
        has_items = False
        for index, item in enumerate(value.content):
            item_schema = parse_node([*ptr, str(index)], None, item, use_helm_docs)
            if not item_schema.hidden:
                merged = merge_schemas(merged, item_schema)
                has_items = True
        if has_items:
            s.items = merged
    elif value.kind == goyaml.SCALAR:
        s.type = _scalar_type(value.short_tag())
    where = ptr_string(ptr)
    comments, helm_docs = _comments(key, value, use_helm_docs)
    try:
        if use_helm_docs:
            path, description = parse_helm_docs_comment(helm_docs)
            if not path or [_escape(p) for p in path] == ptr:
                s.description = description
        process_comment(s, comments)
    except SchemaError as exc:
        raise SchemaError(f"{where}: parse @schema comments: {exc}") from None
    if s.skip_properties and s.is_type("object"):
        s.properties = None
    elif s.merge_properties and ordered:
        result = ordered[0]
        for other in ordered[1:]:
            result = merge_schemas(result, other)
        s.additional_properties = result
        s.properties = None
    return s  # type: ignore[no-any-return]


# --- merging and compliance ------------------------------------------------------------------


def _or(src: Any, dest: Any, kind: str) -> Any:
    """Go's ``cmp.Or(src, dest)``: ``src`` unless it is its type's zero value."""
    return dest if _is_zero_value(src, kind) else src


def _is_zero_value(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if kind == "str":
        return value == ""
    return False


def go_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` on decoded values: types must match (``1`` ≠ ``1.0`` ≠ ``true``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(go_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(go_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return False
    return bool(a == b)


def _merge_map(dest: dict[str, Any] | None, src: dict[str, Any] | None) -> dict[str, Any] | None:
    if src is None:
        return dest
    dest = {} if dest is None else dest
    dest.update(src)
    return dest


def _merge_schema_map(dest: dict[str, Schema] | None, src: dict[str, Schema] | None) -> dict[str, Schema] | None:
    if src is not None:
        dest = {} if dest is None else dest
        for name, sub in src.items():
            dest[name] = merge_schemas(dest[name], sub) if name in dest else sub
    return dest


def _unique_append(dest: list[str] | None, src: list[str] | None) -> list[str] | None:
    for item in src or []:
        if dest is None:
            dest = []
        if item not in dest:
            dest.append(item)
    return dest


def merge_schemas(dest: Schema | None, src: Schema | None) -> Schema | None:
    """hvsj's ``mergeSchemas``: ``src`` merged into ``dest`` in place (``src`` wins for set fields)."""
    if dest is None:
        return src
    if src is None:
        return dest
    d: Any = dest
    s: Any = src
    d.set_kind(s.kind)
    for attr in (
        "schema",
        "id",
        "anchor",
        "dynamic_anchor",
        "recursive_anchor",
        "title",
        "description",
        "comment",
        "recursive_ref",
        "pattern",
        "format",
        "content_encoding",
        "content_media_type",
    ):
        setattr(d, attr, _or(getattr(s, attr), getattr(d, attr), "str"))
    d.vocabulary = _merge_map(d.vocabulary, s.vocabulary)
    if s.examples is not None:
        d.examples = s.examples
    d.deprecated = d.deprecated or s.deprecated
    d.read_only = d.read_only or s.read_only
    d.write_only = d.write_only or s.write_only
    if s.default is not None:
        d.default = s.default
    if s.ref:
        d.ref, d.ref_referrer = s.ref, s.ref_referrer
    if s.dynamic_ref:
        d.dynamic_ref, d.dynamic_ref_referrer = s.dynamic_ref, s.dynamic_ref_referrer
    for attr in (
        "type",
        "const",
        "not_",
        "if_",
        "then",
        "else_",
        "exclusive_maximum",
        "maximum",
        "exclusive_minimum",
        "minimum",
        "multiple_of",
        "max_length",
        "min_length",
        "content_schema",
        "max_items",
        "min_items",
        "max_contains",
        "min_contains",
        "contains",
        "max_properties",
        "min_properties",
        "property_names",
        "dependencies",
    ):
        setattr(d, attr, _or(getattr(s, attr), getattr(d, attr), "any"))
    for value in s.enum or []:
        if not any(go_equal(value, existing) for existing in d.enum or []):
            d.enum = [*(d.enum or []), value]
    for attr in ("all_of", "any_of", "one_of", "prefix_items"):
        if getattr(s, attr) is not None:
            setattr(d, attr, getattr(s, attr))
    d.unique_items = d.unique_items or s.unique_items
    for attr in ("items", "additional_items", "unevaluated_items", "additional_properties", "unevaluated_properties"):
        setattr(d, attr, merge_schemas(getattr(d, attr), getattr(s, attr)))
    d.required = _unique_append(d.required, s.required)
    for attr in ("properties", "pattern_properties", "dependent_schemas", "defs", "definitions"):
        setattr(d, attr, _merge_schema_map(getattr(d, attr), getattr(s, attr)))
    d.dependent_required = _merge_map(d.dependent_required, s.dependent_required)
    d.required_by_parent = d.required_by_parent or s.required_by_parent
    return dest


def _validate_type(ptr: list[str], value: Any) -> None:
    where = ptr_string(ptr)
    allowed = ", ".join(VALID_TYPES)
    if value is None:
        return
    if isinstance(value, str):
        if value not in VALID_TYPES:
            raise SchemaError(f'{where}: invalid type "{value}", must be one of: {allowed}')
        return
    if isinstance(value, list):
        seen: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise SchemaError(f"{where}/{index}: type list must only contain strings")
            if item not in VALID_TYPES:
                raise SchemaError(f'{where}/{index}: invalid type "{item}", must be one of: {allowed}')
            if item in seen:
                raise SchemaError(f'{where}/{index}: type list must be unique, but found "{item}" multiple times')
            seen.append(item)
        return
    raise SchemaError(f"{where}: type only be string or array of strings")


def _draft7_refs(schema: Schema, root_path: list[str]) -> None:
    for _, sub in schema.subschemas():
        _draft7_refs(sub, root_path)
    ref: str = schema.ref
    if ref.startswith("#/") and not ref.startswith(("#/$defs/", "#/definitions/")):
        schema.ref = "#" + ptr_string(root_path) + ref[1:]


def _ensure_compliant(ptr: list[str], schema: Schema, active: set[int], no_additional: bool, draft: int) -> None:
    if id(schema) in active:
        raise SchemaError(f"{ptr_string(ptr)}: circular reference detected in schema")
    active.add(id(schema))
    try:
        for path, sub in list(schema.subschemas()):
            _ensure_compliant([*ptr, *path], sub, active, no_additional, draft)
    finally:
        active.discard(id(schema))
    if schema.kind != "object":
        return
    s: Any = schema
    _validate_type([*ptr, "type"], s.type)
    if s.additional_properties is None and no_additional and s.is_type("object"):
        s.additional_properties = Schema("false")
    if s.all_of or s.any_of or s.one_of or s.not_ is not None or s.const is not None:
        s.type = None  # these collide with "type"
    if draft <= 7 and s.ref:
        clone: Any = s.copy()
        clone.ref = ""
        if not clone.is_zero():
            defs, definitions = s.defs, s.definitions
            clone.defs = None
            clone.definitions = None
            _draft7_refs(clone, ["allOf", "0"])
            ref = s.ref
            schema.__init__()  # type: ignore[misc]
            s.all_of = [clone, Schema(ref=ref)]
            s.defs, s.definitions = defs, definitions


def _add_missing_global(schema: Schema) -> None:
    s: Any = schema
    extra = s.additional_properties
    if (
        (s.properties and "global" in s.properties)
        or extra is None
        or extra.kind == "true"
        or (extra.kind != "false" and extra.is_type("object"))
        or (extra.kind != "false" and extra.type is None)
    ):
        return
    s.properties = s.properties if s.properties is not None else {}
    s.properties["global"] = Schema(
        type=["object", "null"],
        comment="Added automatically by 'helm schema' to allow this chart to be used as a Helm dependency, "
        "as the `additionalProperties` setting would otherwise collide with Helm's special 'global' values key.",
        description="Global values shared between all subcharts",
    )


def _k8s_aliases(ptr: list[str], schema: Schema, url: Callable[[], str]) -> None:
    for path, sub in list(schema.subschemas()):
        _k8s_aliases([*ptr, *path], sub, url)
    ref: str = schema.ref
    without_fragment = ref.split("#", 1)[0]
    if without_fragment in ("$k8s", "$k8s/"):
        raise SchemaError(f'{ptr_string(ptr)}: invalid $k8s schema alias: must have a path but only got "{ref}"')
    if ref.startswith("$k8s/"):
        schema.ref = url().removesuffix("/") + "/" + ref[len("$k8s/") :]


def _set_referrer(schema: Schema | None, referrer: Referrer) -> None:
    if schema is None:
        return
    for _, sub in list(schema.subschemas()):
        _set_referrer(sub, referrer)
    if schema.ref:
        schema.ref_referrer = referrer
    if schema.dynamic_ref:
        schema.dynamic_ref_referrer = referrer


# --- configuration -------------------------------------------------------------------------


@dataclass
class SchemaConfig:
    """A parsed ``.schema.yaml`` (hvsj's ``Config`` with its defaults) plus gsvendor's ``localRefs``."""

    values: list[str] = field(default_factory=lambda: ["values.yaml"])
    output: str = "values.schema.json"
    draft: int = 2020
    indent: int = 4
    no_additional_properties: bool = False
    no_default_global: bool = False
    bundle: bool = False
    bundle_root: str = ""
    bundle_without_id: bool = False
    k8s_schema_url: str = DEFAULT_K8S_SCHEMA_URL
    k8s_schema_version: str = ""
    use_helm_docs: bool = False
    root_id: str = ""
    root_ref: str = ""
    root_title: str = ""
    root_description: str = ""
    root_additional_properties: bool | None = None
    local_refs: str = ""


_CONFIG_KEYS: dict[str, tuple[str, str]] = {
    "values": ("values", "strs"),
    "output": ("output", "str"),
    "draft": ("draft", "int"),
    "indent": ("indent", "int"),
    "noAdditionalProperties": ("no_additional_properties", "bool"),
    "noDefaultGlobal": ("no_default_global", "bool"),
    "bundle": ("bundle", "bool"),
    "bundleRoot": ("bundle_root", "str"),
    "bundleWithoutID": ("bundle_without_id", "bool"),
    "k8sSchemaURL": ("k8s_schema_url", "str"),
    "k8sSchemaVersion": ("k8s_schema_version", "str"),
    "useHelmDocs": ("use_helm_docs", "bool"),
    "localRefs": ("local_refs", "str"),
}
_ROOT_KEYS = {
    "id": "root_id",
    "ref": "root_ref",
    "title": "root_title",
    "description": "root_description",
}


def load_config(data: bytes, label: str = CONFIG_FILE) -> SchemaConfig:
    """Parse ``.schema.yaml`` over hvsj's defaults; unknown keys are ignored as the plugin does.

    Raises :class:`SchemaError` ``label: key: problem`` for invalid YAML or a value of the wrong type.
    """
    config = SchemaConfig()
    try:
        document = goyaml.parse(data)
    except goyaml.YAMLError as exc:
        raise SchemaError(f"{label}: invalid YAML: {exc}") from None
    if document is None or not document.content:
        return config
    root = _deref(document.content[0])
    if root.kind == goyaml.SCALAR and root.short_tag() == goyaml.NULL_TAG:
        return config
    if root.kind != goyaml.MAPPING:
        raise SchemaError(f"{label}: expected a mapping of settings")
    for key, value in root.pairs():
        try:
            if key.value in _CONFIG_KEYS:
                attr, kind = _CONFIG_KEYS[key.value]
                if kind == "int":
                    number = _node_scalar(value) if _deref(value).kind == goyaml.SCALAR else None
                    if isinstance(number, bool) or not isinstance(number, int):
                        raise _decode_error(_deref(value), "int")
                    setattr(config, attr, number)
                else:
                    decoded = _node_field(value, kind, key.value)
                    setattr(config, attr, decoded if decoded is not None else ([] if kind == "strs" else decoded))
            elif key.value == "schemaRoot":
                for root_key, root_value in _deref(value).pairs() if _deref(value).kind == goyaml.MAPPING else []:
                    if root_key.value in _ROOT_KEYS:
                        setattr(config, _ROOT_KEYS[root_key.value], _node_field(root_value, "str", root_key.value))
                    elif root_key.value == "additionalProperties":
                        node = _deref(root_value)
                        if node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG and not node.style:
                            config.root_additional_properties = None
                        else:
                            config.root_additional_properties = _node_field(root_value, "bool", "additionalProperties")
        except SchemaError as exc:
            raise SchemaError(f"{label}: {key.value}: {exc}") from None
    return config


# --- file access and bundling ----------------------------------------------------------------

Reader = Callable[[str], bytes | None]


class _Files:
    """Chart files (``chart_dir``-relative) plus an optional reader for paths outside the chart."""

    def __init__(self, chart_dir: str, files: dict[str, bytes], outside: Reader | None) -> None:
        self.chart_dir = chart_dir
        self.files = files
        self.outside = outside

    def absolute(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.chart_dir, path))

    def read(self, absolute: str) -> bytes | None:
        relative = posixpath.relpath(absolute, self.chart_dir)
        if not relative.startswith(".."):
            return self.files.get(relative)
        return self.outside(absolute) if self.outside is not None else None


def _split_ref(ref: str) -> tuple[str, str, str]:
    """(scheme, path-or-url without fragment, fragment) of a ``$ref``."""
    base, _, fragment = ref.partition("#")
    scheme = urlsplit(base).scheme if "://" in base or base.startswith("file:") else ""
    return scheme, base, fragment


class _Loader:
    """hvsj's default loader, offline: chart files under ``bundleRoot``; http(s) from ``localRefs``."""

    def __init__(self, files: _Files, bundle_root: str, local_refs: str, k8s_url: Callable[[], str]) -> None:
        self.files = files
        self.bundle_root = bundle_root
        self.local_refs = local_refs
        self.k8s_url = k8s_url
        self.cache: dict[str, Schema | None] = {}

    def load(self, target: str) -> Schema | None:
        key = target.split("#", 1)[0]
        if key in self.cache:
            return self.cache[key]
        schema = self._load(key)
        self.cache[key] = schema
        return schema

    def _load(self, target: str) -> Schema | None:
        scheme = urlsplit(target).scheme if "://" in target else ""
        if scheme in ("http", "https"):
            return self._remote(target)
        if scheme not in ("", "file"):
            raise SchemaError(f'cannot load schema from $ref="{target}", supported schemes: http,https,file')
        path = urlsplit(target).path if scheme == "file" else target
        root = self.bundle_root.rstrip("/") + "/"
        if not (path + "/").startswith(root):
            raise SchemaError(f"{path}: path escapes from parent (outside bundleRoot {self.bundle_root})")
        data = self.files.read(path)
        if data is None:
            raise SchemaError(f"open {posixpath.relpath(path, self.bundle_root)}: no such file or directory")
        schema = self._parse(data, path)
        _set_referrer(schema, Referrer(dir=posixpath.dirname(path)))
        return schema

    def _remote(self, url: str) -> Schema | None:
        parts = urlsplit(url)
        if not self.local_refs:
            raise SchemaError(
                f'$ref "{url}" needs the network; gsvendor generate works offline: set localRefs in '
                f"{CONFIG_FILE} to a folder holding a copy at <localRefs>/{parts.netloc}{parts.path}"
            )
        local = posixpath.join(self.local_refs, parts.netloc + parts.path)
        data = self.files.read(self.files.absolute(local))
        if data is None:
            raise SchemaError(
                f'$ref "{url}" needs the network; gsvendor generate works offline and found no copy at '
                f"{posixpath.normpath(local)} (localRefs)"
            )
        schema = self._parse(data, parts.path)
        _set_referrer(schema, Referrer(url=urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))))
        return schema

    def _parse(self, data: bytes, path: str) -> Schema | None:
        if posixpath.splitext(path)[1] in (".yml", ".yaml", ".kyml", ".kyaml"):
            try:
                document = goyaml.parse(data)
            except goyaml.YAMLError as exc:
                raise SchemaError(f"parse YAML file: {exc}") from None
            schema = schema_from_node(document.content[0]) if document and document.content else Schema()
        else:
            import json

            try:
                schema = schema_from_json(_floats(json.loads(data)))
            except ValueError as exc:
                raise SchemaError(f"parse JSON file: {exc}") from None
        if schema is not None:
            _k8s_aliases([], schema, self.k8s_url)
        return schema


def _ref_target(schema: Schema) -> str:
    """hvsj's ``ParseRef``: the ``$ref`` resolved against its referrer (file paths absolute)."""
    ref: str = schema.ref
    referrer = schema.ref_referrer
    scheme, base, fragment = _split_ref(ref)
    if referrer is None or scheme not in ("", "file"):
        return ref
    path = urlsplit(base).path if scheme == "file" else base
    if scheme == "file" and urlsplit(base).netloc:
        path = posixpath.join(urlsplit(base).netloc, path.lstrip("/"))
    if path.startswith("/"):
        raise SchemaError("absolute paths not supported")
    return referrer.join(path, fragment)


def _relative_to(target: str, base_dir: str) -> str:
    scheme, base, fragment = _split_ref(target)
    if scheme or not base.startswith("/"):
        return target
    relative = posixpath.relpath(base, base_dir)
    return relative + (f"#{fragment}" if fragment else "")


def _trim_fragment(ref: str) -> str:
    return ref.split("#", 1)[0]


def _resolve_ptr(ptr: list[str], schema: Schema | None) -> list[tuple[list[str], Schema]]:
    """hvsj's ``Ptr.Resolve``: the schemas met along ``ptr``, deepest last."""
    result: list[tuple[list[str], Schema]] = []
    offset = 0
    while schema is not None:
        result.append((ptr[:offset], schema))
        rest = ptr[offset:]
        if not rest:
            break
        s: Any = schema
        single = {"additionalItems": "additional_items", "additionalProperties": "additional_properties"}
        if rest[0] in ("additionalItems", "additionalProperties", "items", "not"):
            schema = getattr(s, single.get(rest[0], "not_" if rest[0] == "not" else rest[0]))
            offset += 1
            continue
        if len(rest) < 2:
            break
        maps = {"$defs": "defs", "definitions": "definitions", "patternProperties": "pattern_properties"}
        if rest[0] in maps or rest[0] == "properties":
            mapping = getattr(s, maps.get(rest[0], "properties")) or {}
            schema = mapping.get(rest[1])
            offset += 2
            continue
        lists = {"allOf": "all_of", "anyOf": "any_of", "oneOf": "one_of"}
        if rest[0] in lists and rest[1].lstrip("-").isdigit():
            items = getattr(s, lists[rest[0]]) or []
            index = int(rest[1])
            schema = items[index] if 0 <= index < len(items) else None
            offset += 2
            continue
        break
    return result


def _parse_ptr(fragment: str) -> list[str]:
    path = fragment.removeprefix("#").removeprefix("/")
    return [] if not path else [_escape(_unescape(p)) for p in path.split("/")]


def _bundled_name(schema_id: str, defs: dict[str, Schema]) -> str:
    if not schema_id:
        return ""
    for name in sorted(defs, key=_go_key):
        if defs[name].id == schema_id:
            return name
    base = posixpath.basename(schema_id.rstrip("/")) or "/"
    name, number = base, 1
    while defs.get(name) is not None:
        number += 1
        name = f"{base}_{number}"
    return name


def _move_defs(root: Any, owner: Any, attr: str) -> None:
    mapping = getattr(owner, attr) or {}
    for key in sorted(mapping, key=_go_key):
        sub = mapping[key]
        if not sub.id:
            continue
        root.defs[_bundled_name(sub.id, root.defs)] = sub
        del mapping[key]
    if not mapping:
        setattr(owner, attr, None)


def _bundle(ptr: list[str], loader: _Loader, root: Any, schema: Any, base_dir: str) -> None:
    for path, sub in list(schema.subschemas()):
        _bundle([*ptr, *path], loader, root, sub, base_dir)
    ref = schema.ref
    if not ref or ref.startswith("#"):
        return
    if any(d.id == _trim_fragment(ref) for d in (root.defs or {}).values()):
        return  # already bundled
    try:
        target = _ref_target(schema)
    except SchemaError as exc:
        raise SchemaError(f"{ptr_string([*ptr, '$ref'])}: {exc}") from None
    schema.ref = _relative_to(target, base_dir)
    try:
        loaded: Any = loader.load(target)
    except SchemaError as exc:
        raise SchemaError(f"bundle schemas: {ptr_string([*ptr, '$ref'])}: {exc}") from None
    if loaded is None:
        return
    loaded.id = _trim_fragment(_relative_to(target, base_dir))
    if root.defs is None:
        root.defs = {}
    fragment = target.partition("#")[2]
    nearest = None
    suffix: list[str] = []
    fragment_ptr = _parse_ptr(fragment)
    for match_ptr, match in _resolve_ptr(fragment_ptr, loaded):
        if match.id:
            nearest, suffix = match, fragment_ptr[len(match_ptr) :]
    if nearest is not None:
        schema.ref = nearest.id if not suffix else f"{nearest.id}#{ptr_string(suffix)}"
    _move_defs(root, loaded, "defs")
    _move_defs(root, loaded, "definitions")
    root.defs[_bundled_name(loaded.id, root.defs)] = loaded
    _bundle(ptr, loader, root, loaded, base_dir)


def _remove_ids(parent: list[str] | None, ptr: list[str], root: Any, schema: Any) -> None:
    if schema.id:
        parent = ptr
    for path, sub in list(schema.subschemas()):
        _remove_ids(parent, [*ptr, *path], root, sub)
    ref = schema.ref
    if not ref or ref.startswith("#"):
        if ref and parent:
            schema.ref = "#" + ptr_string(parent) + ref[1:]
        return
    name = next((n for n in sorted(root.defs or {}, key=_go_key) if root.defs[n].id == _trim_fragment(ref)), None)
    if name is None:
        raise SchemaError(f'{ptr_string([*ptr, "$ref"])}: no $defs found that matches $ref="{ref}"')
    fragment = ref.partition("#")[2]
    base = ptr_string(["$defs", _escape(name)])
    schema.ref = f"#{base}/{fragment.removeprefix('/')}" if fragment else f"#{base}"


def _count_refs(ptr: list[str], root: Any, schema: Any, counts: dict[int, int]) -> None:
    for path, sub in list(schema.subschemas()):
        _count_refs([*ptr, *path], root, sub, counts)
    ref = schema.ref
    if not ref:
        return
    if ref.startswith("#/"):
        target = _parse_ptr(ref)
        if target and ptr[: len(target)] == target:
            return  # self-referential
        for _, match in _resolve_ptr(target, root):
            counts[id(match)] = counts.get(id(match), 0) + 1
        return
    for name in sorted(root.defs or {}, key=_go_key):
        if root.defs[name].id == _trim_fragment(ref):
            counts[id(root.defs[name])] = counts.get(id(root.defs[name]), 0) + 1
            break


def _drop_unused(schema: Any, counts: dict[int, int]) -> int:
    deleted = 0
    for _, sub in list(schema.subschemas()):
        deleted += _drop_unused(sub, counts)
    for attr in ("defs", "definitions"):
        mapping = getattr(schema, attr) or {}
        for name in list(mapping):
            if counts.get(id(mapping[name]), 0) == 0:
                del mapping[name]
                deleted += 1
        if not mapping:
            setattr(schema, attr, None)
    return deleted


def bundle(schema: Schema, loader: _Loader, base_dir: str, without_ids: bool) -> None:
    """hvsj's ``Bundle``: load every ``$ref`` into root ``$defs``, optionally drop ``$id``s, prune."""
    _bundle([], loader, schema, schema, base_dir)
    if without_ids:
        _remove_ids(None, [], schema, schema)
        for sub in (schema.defs or {}).values():
            sub.id = ""
    while True:
        counts: dict[int, int] = {}
        _count_refs([], schema, schema, counts)
        if _drop_unused(schema, counts) == 0:
            break


# --- normalizing and writing (schemalint) -----------------------------------------------------

KEY_IMPORTANCE = {
    "$id": 11,
    "$schema": 10,
    "$ref": 9,
    "$defs": 9,
    "type": 8,
    "title": 7,
    "description": 6,
    "deprecated": 5,
    "$comment": 4,
    "enum": 3,
    "examples": 3,
    "default": 2,
    "required": 2,
    "additionalProperties": 1,
    "properties": 1,
    "patternProperties": 1,
    "items": 1,
    "if": -2,
    "then": -3,
    "else": -4,
}


def _importance(key: str, value: Any) -> int:
    # schemalint: a non-primitive (object, array or null) default/additionalProperties ranks 0
    primitive = isinstance(value, str | int | float | bool)
    if key in ("default", "additionalProperties") and not primitive:
        return 0
    return KEY_IMPORTANCE.get(key, -1)


def normalize(value: Any) -> Any:
    """schemalint's ``normalize`` on parsed JSON: every object's keys ordered, numbers as float64."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: (-_importance(kv[0], kv[1]), _go_key(kv[0])))
        return {k: normalize(v) for k, v in items}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return _floats(value)


def dumps(value: Any, indent: int = 4) -> bytes:
    """Normalized JSON text with ``indent`` spaces and a final newline, ``<>&`` unescaped."""
    try:
        text = gojson.dumps_indent(normalize(value), " " * indent, escape_html=False, sort_keys=False)
    except gojson.GoJSONError as exc:
        raise SchemaError(str(exc)) from None
    return (text + "\n").encode("utf-8")


# --- the generator -----------------------------------------------------------------------------


def _k8s_url(config: SchemaConfig) -> Callable[[], str]:
    def url() -> str:
        if not config.k8s_schema_version:
            raise SchemaError(
                'must set k8sSchemaVersion config when using "$ref: $k8s/...". For example k8sSchemaVersion: v1.33.1'
            )
        from gsvendor.gotemplate import Template, TemplateError

        class _Data:
            K8sSchemaVersion = config.k8s_schema_version

        try:
            return Template("k8sSchemaURL").parse(config.k8s_schema_url).execute(_Data())
        except TemplateError as exc:
            raise SchemaError(f"template k8sSchemaURL: {exc}") from None

    return url


def build_schema(
    config: SchemaConfig, files: dict[str, bytes], chart_dir: str = "/chart", outside: Reader | None = None
) -> Schema:
    """hvsj's ``buildJSONSchema`` for a chart: the merged, compliant schema (not yet normalized).

    ``files`` maps chart-relative paths to bytes; ``outside`` reads absolute paths outside the
    chart (``None``: such paths are errors). Raises :class:`SchemaError`.
    """
    if not config.values:
        raise SchemaError("values flag is required")
    if config.draft not in SCHEMA_URLS:
        raise SchemaError("invalid draft version. Please use one of: 4, 6, 7, 2019, 2020")
    if config.indent <= 0:
        raise SchemaError("indentation must be a positive number")
    if config.indent % 2:
        raise SchemaError("indentation must be an even number")
    if config.indent > 64:  # the tool takes any even number; a huge one only fills memory with spaces
        raise SchemaError("indentation must be at most 64")
    fs = _Files(chart_dir, files, outside)
    merged: Any = Schema()
    url = _k8s_url(config)
    for path in config.values:
        if path == "-":
            raise SchemaError('values: "-" (stdin) is not supported by gsvendor generate')
        absolute = fs.absolute(path)
        content = fs.read(absolute)
        if content is None:
            raise SchemaError(f'read --values="{path}": error reading YAML file(s): open {path}: no such file')
        try:
            document = goyaml.parse(content)
        except goyaml.YAMLError as exc:
            raise SchemaError(f"{path}: error unmarshalling YAML: {exc}") from None
        if document is None or not document.content:
            continue  # empty file
        root = _deref(document.content[0])
        if root.kind not in (goyaml.MAPPING, goyaml.SCALAR):
            raise SchemaError(f"{path}: the values must be a mapping, not a {root.kind}")
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for key, value in root.pairs() if root.kind == goyaml.MAPPING else []:
            try:
                child: Any = parse_node([_escape(key.value)], key, value, config.use_helm_docs)
            except SchemaError as exc:
                raise SchemaError(f"{path}: parse schema: {exc}") from None
            if not child.hidden:
                properties[key.value] = child
                if child.required_by_parent:
                    required.append(key.value)
        temp: Any = Schema(
            type="object",
            properties=properties,
            required=required,
            title=config.root_title,
            description=config.root_description,
            id=config.root_id,
        )
        _set_referrer(temp, Referrer(dir=posixpath.dirname(absolute)))
        if config.root_ref:
            temp.ref = config.root_ref
            temp.ref_referrer = Referrer(dir=chart_dir)
        try:
            _k8s_aliases([], temp, url)
        except SchemaError as exc:
            raise SchemaError(f"{path}: {exc}") from None
        merged = merge_schemas(merged, temp)
        merged.required = _unique_append(merged.required, required)
    if config.bundle:
        bundle_root = fs.absolute(config.bundle_root or ".")
        loader = _Loader(fs, bundle_root, config.local_refs, url)
        output_dir = posixpath.dirname(fs.absolute(config.output))
        bundle(merged, loader, output_dir, config.bundle_without_id)
    if config.root_additional_properties is not None:
        merged.additional_properties = Schema("true" if config.root_additional_properties else "false")
    elif config.no_additional_properties:
        merged.additional_properties = Schema("false")
    _ensure_compliant([], merged, set(), config.no_additional_properties, config.draft)
    if not config.no_default_global:
        _add_missing_global(merged)
    merged.schema = SCHEMA_URLS[config.draft]
    merged.type = "object"
    return merged  # type: ignore[no-any-return]


def generate_schema(
    files: dict[str, bytes], config_file: str = CONFIG_FILE, chart_dir: str = "/chart", outside: Reader | None = None
) -> tuple[str, bytes]:
    """The chart's values schema: ``(output path relative to the chart, bytes)``.

    Reads ``config_file`` from ``files`` (chart-relative path → bytes), builds the schema as
    ``helm schema`` v2.5.0 would in the chart folder, normalizes it as ``schemalint normalize``
    and writes it with the configured indent and a final newline. Raises :class:`SchemaError`
    (naming the file and key) for any problem.
    """
    if config_file not in files:
        raise SchemaError(f"{config_file}: not found")
    config = load_config(files[config_file], config_file)
    if config.output == "-":
        raise SchemaError(f'{config_file}: output: "-" (stdout) is not supported by gsvendor generate')
    schema = build_schema(config, files, chart_dir, outside)
    output = posixpath.normpath(config.output)
    if output == ".." or output.startswith("../") or output.startswith("/"):
        raise SchemaError(f"{config_file}: output: {config.output} must be inside the chart")
    if output == "." or any(p.startswith(output + "/") for p in files):
        raise SchemaError(f"{config_file}: output: {config.output!r} is a folder of the chart, not a file")
    if output in _NOT_OUTPUTS or output == config_file:
        raise SchemaError(f"{config_file}: output: {output} would overwrite a chart file with the schema")
    return output, dumps(schema.to_data(), config.indent)


# files a schema must never be written over (they are inputs, or the chart itself)
_NOT_OUTPUTS = frozenset({"Chart.yaml", "values.yaml", "README.md", "README.md.gotmpl", ".helmignore", "Chart.lock"})


# --- validation --------------------------------------------------------------------------------


def _key_path(path: Any) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def validate_values(schema: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """Validate ``values`` against a generated values ``schema``; one message per violation.

    Each message reads ``key.path[0]: rule: message`` (``(root)`` for the top level), e.g.
    ``kserve.controller.replicas: type: 'two' is not of type 'integer'``, sorted by key path.
    The draft comes from the schema's ``$schema`` (2020-12 when absent). A schema that is not
    valid JSON Schema, or a ``$ref`` that cannot be resolved offline, is reported as one message.
    """
    import jsonschema
    from jsonschema import exceptions as js_exceptions

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator_class.check_schema(schema)
        validator = validator_class(schema)
        errors = list(validator.iter_errors(values))
    except js_exceptions.SchemaError as exc:
        return [f"(schema): {exc.message}"]
    except Exception as exc:  # unresolvable $ref and the like
        return [f"(schema): cannot validate: {exc}"]
    messages = []
    for error in sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], str(e.validator))):
        messages.append(f"{_key_path(error.absolute_path)}: {error.validator}: {error.message}")
    return messages
