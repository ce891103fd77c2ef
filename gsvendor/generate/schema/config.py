"""The .schema.yaml configuration of helm-values-schema-json v2.5.0."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.schema.model import SchemaError, _decode_error, _node_field, _node_scalar, deref, is_null

CONFIG_FILE = ".schema.yaml"
DEFAULT_K8S_SCHEMA_URL = (
    "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/{{ .K8sSchemaVersion }}/"
)


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


def _config_key(attr: str) -> str:
    first, *rest = attr.split("_")
    return first + "".join({"id": "ID", "url": "URL"}.get(part, part.title()) for part in rest)


_KIND = {"list[str]": "strs", "str": "str", "int": "int", "bool": "bool", "bool | None": "bool"}
# .schema.yaml key → (attribute, kind): the top-level settings, and schemaRoot's (the root_… attributes)
_SETTINGS = [(f.name, _KIND[str(f.type)]) for f in fields(SchemaConfig)]
_CONFIG_KEYS = {_config_key(attr): (attr, kind) for attr, kind in _SETTINGS if not attr.startswith("root_")}
_ROOT_KEYS = {_config_key(attr[5:]): (attr, kind) for attr, kind in _SETTINGS if attr.startswith("root_")}


def load_config(data: bytes) -> SchemaConfig:
    """Parse ``.schema.yaml`` over hvsj's defaults, ignoring unknown keys as the plugin does. Raises
    :class:`SchemaError` ``.schema.yaml: key: problem`` for invalid YAML or a value of the wrong type."""
    config = SchemaConfig()
    try:
        document = goyaml.parse(data)
    except goyaml.YAMLError as exc:
        raise SchemaError(f"{CONFIG_FILE}: invalid YAML: {exc}") from None
    root = deref(document.content[0]) if document is not None and document.content else None
    if root is None or (root.kind == goyaml.SCALAR and root.short_tag() == goyaml.NULL_TAG):
        return config
    if root.kind != goyaml.MAPPING:
        raise SchemaError(f"{CONFIG_FILE}: expected a mapping of settings")
    _unique_keys(root, f"{CONFIG_FILE}: ")
    for key, value in root.pairs():
        try:
            if key.value in _CONFIG_KEYS:
                attr, kind = _CONFIG_KEYS[key.value]
                if kind == "int":
                    decoded = _node_scalar(value) if deref(value).kind == goyaml.SCALAR else None
                    if isinstance(decoded, bool) or not isinstance(decoded, int):
                        raise _decode_error(deref(value), "int")
                else:
                    decoded = _node_field(value, kind, key.value)
                setattr(config, attr, [] if decoded is None and kind == "strs" else decoded)
            elif key.value == "schemaRoot":
                node = deref(value)
                if node.kind != goyaml.MAPPING and not is_null(node):
                    raise _decode_error(node, "pkg.SchemaRoot")
                _unique_keys(node)
                for root_key, root_value in node.pairs():
                    if root_key.value in _ROOT_KEYS:
                        attr, kind = _ROOT_KEYS[root_key.value]
                        unset = is_null(deref(root_value)) and attr == "root_additional_properties"  # *bool: null unset
                        setattr(config, attr, None if unset else _node_field(root_value, kind, root_key.value))
        except SchemaError as exc:
            raise SchemaError(f"{CONFIG_FILE}: {key.value}: {exc}") from None
    return config


def _unique_keys(mapping: goyaml.Node, prefix: str = "") -> None:
    """Raise yaml.v3's error (after ``prefix``) for a key written twice in ``mapping`` (a struct decode checks it)."""
    lines: dict[tuple[str, str], int] = {}
    for key, _ in mapping.pairs():
        where = (key.kind, key.value)
        if where in lines:
            quoted = json.dumps(key.value, ensure_ascii=False)
            raise SchemaError(f"{prefix}line {key.line}: mapping key {quoted} already defined at line {lines[where]}")
        lines[where] = key.line


Reader = Callable[[str], bytes | None]
