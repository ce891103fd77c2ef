"""Building and merging schemas from values.yaml nodes, as helm-values-schema-json v2.5.0 does."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.schema.comments import _comments, parse_helm_docs_comment, process_comment
from gsvendor.generate.schema.model import FIELDS, VALID_TYPES, Referrer, Schema, SchemaError, _escape, ptr_string

_SCALAR_TYPES = {
    goyaml.INT_TAG: "integer",
    goyaml.FLOAT_TAG: "number",
    goyaml.BOOL_TAG: "boolean",
    goyaml.NULL_TAG: "null",
}


def parse_properties(
    ptr: list[str], mapping: goyaml.Node, use_helm_docs: bool
) -> tuple[list[Schema], dict[str, Schema], list[str]]:
    """The schemas of a mapping's values (hidden ones left out): in order (a repeated key's too),
    by key, and the keys marked required. Raises :class:`SchemaError` naming the pointer."""
    ordered: list[Schema] = []
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for key, value in mapping.pairs():
        child = parse_node([*ptr, _escape(key.value)], key, value, use_helm_docs)
        if not child.hidden:
            ordered.append(child)
            properties[key.value] = child
            if child.required_by_parent:
                required.append(key.value)
    return ordered, properties, required


def parse_node(ptr: list[str], key: goyaml.Node | None, value: goyaml.Node, use_helm_docs: bool) -> Schema:
    """hvsj's ``parseNode``: the schema of one values node with its comments applied."""
    s: Any = Schema()
    ordered: list[Schema] = []
    if value.kind == goyaml.MAPPING:
        ordered, s.properties, required = parse_properties(ptr, value, use_helm_docs)
        s.type, s.required = "object", required or None
    elif value.kind == goyaml.SEQUENCE:
        s.type = "array"
        parsed = (parse_node([*ptr, str(index)], None, item, use_helm_docs) for index, item in enumerate(value.content))
        items = [item for item in parsed if not item.hidden]
        if items:
            s.items = functools.reduce(merge_schemas, items, Schema())
    elif value.kind == goyaml.SCALAR:
        s.type = _SCALAR_TYPES.get(value.short_tag(), "string")
    comments, helm_docs = _comments(key, value, use_helm_docs)
    try:
        if use_helm_docs:
            path, description = parse_helm_docs_comment(helm_docs)
            if not path or [_escape(p) for p in path] == ptr:
                s.description = description
        process_comment(s, comments)
    except SchemaError as exc:
        raise SchemaError(f"{ptr_string(ptr)}: parse @schema comments: {exc}") from None
    if s.skip_properties and s.is_type("object"):
        s.properties = None
    elif s.merge_properties and ordered:
        s.additional_properties = functools.reduce(merge_schemas, ordered)
        s.properties = None
    return s  # type: ignore[no-any-return]


def go_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` on decoded values: types must match (``1`` ≠ ``1.0`` ≠ ``true``), NaN ≠ NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(go_equal(x, y) for x, y in zip(a, b, strict=True))
    return a.keys() == b.keys() and all(go_equal(a[k], b[k]) for k in a) if isinstance(a, dict) else bool(a == b)


# fields merged recursively; every other schema field is replaced by a set one (cmp.Or)
_MERGED = ("items", "additional_items", "unevaluated_items", "additional_properties", "unevaluated_properties")


def merge_schemas(dest: Schema | None, src: Schema | None) -> Schema | None:
    """hvsj's ``mergeSchemas``: ``src`` merged into ``dest`` in place: a set ``src`` value wins, booleans
    are or-ed, maps merged, ``enum`` and ``required`` appended, :data:`_MERGED` schemas merged recursively."""
    if dest is None:
        return src
    if src is None:
        return dest
    if src.kind != "object":  # hvsj's SetKind: a boolean kind clears every field
        dest.__init__(src.kind)  # type: ignore[misc]
    dest.kind = src.kind
    d, s = dest.__dict__, src.__dict__
    for attr, _, kind in FIELDS:
        value = s[attr]
        if attr == "enum":
            for item in value or []:
                if not any(go_equal(item, existing) for existing in d["enum"] or []):
                    d["enum"] = [*(d["enum"] or []), item]
        elif attr == "required":  # appended without duplicates
            if value:
                merged = d[attr] = d[attr] if d[attr] is not None else []
                merged += [item for item in dict.fromkeys(value) if item not in merged]
        elif kind == "bool":
            d[attr] = d[attr] or value
        elif kind in ("map_bool", "map_strs", "schema_map") and value is not None:
            merged = d[attr] = d[attr] if d[attr] is not None else {}  # Go maps: merged in place
            for name, item in value.items():
                merged[name] = merge_schemas(merged.get(name), item) if kind == "schema_map" else item
        elif attr in _MERGED:
            d[attr] = merge_schemas(d[attr], value)
        elif value or (value is not None and kind != "str"):
            d[attr] = value
            if attr in ("ref", "dynamic_ref"):
                d[attr + "_referrer"] = s[attr + "_referrer"]
    d["required_by_parent"] = d["required_by_parent"] or s["required_by_parent"]
    return dest


def _validate_type(ptr: list[str], value: Any) -> None:
    if value is not None and not isinstance(value, str | list):
        raise SchemaError(f"{ptr_string(ptr)}: type only be string or array of strings")
    listed = isinstance(value, list)
    for index, item in enumerate(value if listed else [] if value is None else [value]):
        where = ptr_string([*ptr, str(index)] if listed else ptr)
        if not isinstance(item, str):
            raise SchemaError(f"{where}: type list must only contain strings")
        if item not in VALID_TYPES:
            raise SchemaError(f'{where}: invalid type "{item}", must be one of: {", ".join(VALID_TYPES)}')
        if item in value[:index]:
            raise SchemaError(f'{where}: type list must be unique, but found "{item}" multiple times')


def _draft7_refs(schema: Schema, root_path: list[str]) -> None:
    for _, sub in schema.subschemas():
        _draft7_refs(sub, root_path)
    ref: str = schema.ref
    if ref.startswith("#/") and not ref.startswith(("#/$defs/", "#/definitions/")):
        schema.ref = "#" + ptr_string(root_path) + ref[1:]


def _ensure_compliant(ptr: list[str], schema: Schema, active: set[int], no_additional: bool, draft: int) -> None:
    if id(schema) in active:
        raise SchemaError(f"{ptr_string(ptr)}: circular reference detected in schema")
    active.add(id(schema))  # the schemas on the path here (an error ends the whole check)
    for path, sub in list(schema.subschemas()):
        _ensure_compliant([*ptr, *path], sub, active, no_additional, draft)
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
        clone: Any = copy.copy(s)  # Go's struct copy: nested schemas shared
        clone.ref = ""
        if clone.to_data():  # a field besides $ref is set
            clone.defs = clone.definitions = None
            _draft7_refs(clone, ["allOf", "0"])
            schema.__init__(all_of=[clone, Schema(ref=s.ref)], defs=s.defs, definitions=s.definitions)


def _add_missing_global(schema: Schema) -> None:
    s: Any = schema
    extra = s.additional_properties
    if (s.properties and "global" in s.properties) or extra is None or extra.kind == "true":
        return
    if extra.kind == "object" and (extra.type is None or extra.is_type("object")):  # globals allowed already
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
    if ref.partition("#")[0] in ("$k8s", "$k8s/"):
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
