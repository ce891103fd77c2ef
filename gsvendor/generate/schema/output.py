"""values.schema.json as helm-values-schema-json v2.5.0 ("hvsj") generates it, optionally normalized
as schemalint v2.6.1 does. The rules matched, with the hvsj source file of each, are listed in
docs/generate.md ("Where the plugin's rules live")."""

from __future__ import annotations

import functools
import posixpath
from types import SimpleNamespace
from typing import Any

from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.golang.text_template.exec import Template
from gsvendor.generate.golang.text_template.parse import TemplateError
from gsvendor.generate.schema import parse
from gsvendor.generate.schema.bundle import _Files, _Loader, bundle
from gsvendor.generate.schema.config import CONFIG_FILE, Reader, SchemaConfig, load_config
from gsvendor.generate.schema.model import SCHEMA_URLS, Referrer, Schema, SchemaError, _go_key, deref

# schemalint's key ranks: these from 11 down to 1, then if, then and else; any other key -1
_RANKED = ("$id", "$schema", "$ref $defs", "type", "title", "description", "deprecated", "$comment", "enum examples")
_RANKED += ("default required", "additionalProperties properties patternProperties items")
KEY_IMPORTANCE = {key: 11 - rank for rank, keys in enumerate(_RANKED) for key in keys.split()}
KEY_IMPORTANCE |= {"if": -2, "then": -3, "else": -4}


def _importance(key: str, value: Any) -> int:
    """schemalint's rank of ``key``: 0 for a default or additionalProperties that is an object, array or null."""
    if key in ("default", "additionalProperties") and not isinstance(value, str | int | float | bool):
        return 0
    return KEY_IMPORTANCE.get(key, -1)


def normalize(value: Any) -> Any:
    """schemalint's ``normalize`` on parsed JSON: every object's keys ordered, numbers as float64."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: (-_importance(kv[0], kv[1]), _go_key(kv[0])))
        return {k: normalize(v) for k, v in items}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def dumps(value: Any, indent: int = 4, *, normalized: bool = True) -> bytes:
    """JSON text of ``value`` with ``indent`` spaces and a final newline: ``normalized``, schemalint's
    (:func:`normalize`, ``<>&`` as they are); else hvsj's ``WriteOutput`` (``json.MarshalIndent`` of
    :meth:`Schema.to_data`, ``<>&`` escaped). Raises :class:`SchemaError` for what JSON cannot hold."""
    value = normalize(value) if normalized else value
    try:
        text = gojson.dumps_indent(value, " " * indent, escape_html=not normalized, sort_keys=False)
    except gojson.GoJSONError as exc:
        raise SchemaError(str(exc)) from None
    return (text + "\n").encode("utf-8")


def _k8s_url(config: SchemaConfig) -> str:
    """The base URL ``$ref: $k8s/…`` stands for: the k8sSchemaURL template run with k8sSchemaVersion."""
    if not config.k8s_schema_version:
        raise SchemaError(
            'must set k8sSchemaVersion config when using "$ref: $k8s/...". For example k8sSchemaVersion: v1.33.1'
        )
    try:
        template = Template("k8sSchemaURL").parse(config.k8s_schema_url)
        return template.execute(SimpleNamespace(K8sSchemaVersion=config.k8s_schema_version))
    except TemplateError as exc:
        raise SchemaError(f"template k8sSchemaURL: {exc}") from None


def _build_schema(
    config: SchemaConfig, files: dict[str, bytes], chart_dir: str, outside: Reader | None, cwd: str, parsed: Any
) -> Schema:
    """hvsj's ``buildJSONSchema``: the merged, compliant schema (``values`` and ``bundleRoot`` relative to ``cwd``)."""
    if not config.values:
        raise SchemaError("values flag is required")
    if config.draft not in SCHEMA_URLS:
        raise SchemaError("invalid draft version. Please use one of: 4, 6, 7, 2019, 2020")
    # past 64: the tool takes any even number, but a huge one only fills memory with spaces
    if config.indent <= 0 or config.indent % 2 or config.indent > 64:
        shape = "a positive number" if config.indent <= 0 else "an even number" if config.indent % 2 else "at most 64"
        raise SchemaError(f"indentation must be {shape}")
    fs = _Files(chart_dir, files, outside, cwd)
    merged: Any = Schema()
    url = functools.partial(_k8s_url, config)  # only a $k8s/ reference needs it
    for path in config.values:
        if path == "-":
            raise SchemaError('values: "-" (stdin) is not supported by gsvendor generate')
        absolute = fs.absolute(path)
        content = fs.read(absolute)
        if content is None:
            raise SchemaError(
                f'read --values="{path}": error reading YAML file(s): open {posixpath.normpath(path)}: '
                "no such file or directory"
            )
        try:
            document = parsed[content] if content in parsed else _parse_values(content, parsed)
        except goyaml.YAMLError as exc:
            raise SchemaError(f"{path}: error unmarshalling YAML: {exc}") from None
        if document is None or not document.content:
            continue  # empty file
        root = deref(document.content[0])
        if root.kind not in (goyaml.MAPPING, goyaml.SCALAR, goyaml.SEQUENCE):
            raise SchemaError(f"{path}: the values must be a mapping, not a {root.kind}")
        if root.kind == goyaml.SEQUENCE and len(root.content) % 2:  # the plugin reads items in pairs
            raise SchemaError(
                f"{path}: a sequence of {len(root.content)} items: the plugin panics (index out of range)"
            )
        try:  # a sequence's items read as key, value, key, value … as the plugin does; a scalar has none
            _, properties, required = parse.parse_properties([], root, config.use_helm_docs)
        except SchemaError as exc:
            raise SchemaError(f"{path}: parse schema: {exc}") from None
        temp: Any = Schema(type="object", properties=properties, required=required, id=config.root_id)
        temp.title, temp.description = config.root_title, config.root_description
        parse._set_referrer(temp, Referrer(dir=posixpath.dirname(absolute)))
        if config.root_ref:
            temp.ref, temp.ref_referrer = config.root_ref, Referrer(dir=chart_dir)
        try:
            parse._k8s_aliases([], temp, url)
        except SchemaError as exc:
            raise SchemaError(f"{path}: {exc}") from None
        merged = parse.merge_schemas(merged, temp)
    if config.bundle:
        loader = _Loader(fs, fs.absolute(config.bundle_root or "."), config.local_refs, url)
        bundle(merged, loader, posixpath.dirname(fs.absolute(config.output)), config.bundle_without_id)
    extra = config.root_additional_properties  # set, it wins over noAdditionalProperties
    if extra is not None or config.no_additional_properties:
        merged.additional_properties = Schema("true" if extra else "false")
    parse._ensure_compliant([], merged, set(), config.no_additional_properties, config.draft)
    if not config.no_default_global:
        parse._add_missing_global(merged)
    merged.schema, merged.type = SCHEMA_URLS[config.draft], "object"
    return merged  # type: ignore[no-any-return]


def _parse_values(content: bytes, parsed: dict[bytes, Any]) -> Any:
    """A values file's tree, kept in ``parsed`` unless an alias is inside its anchor (``a: &x {b: *x}``)."""
    try:
        parsed[content] = goyaml.parse(content)
        return parsed[content]
    except goyaml.YAMLError as exc:
        if not exc.problem.endswith("value contains itself"):
            raise
    return goyaml.parse(content, recursive_aliases=True)


def generate_schema(
    files: dict[str, bytes],
    chart_dir: str = "/chart",
    outside: Reader | None = None,
    *,
    cwd: str | None = None,
    normalize: str = "none",
    parsed: dict[bytes, Any] | None = None,
) -> tuple[str, bytes]:
    """The chart's values schema, ``(output path relative to the chart, bytes)``, as ``helm schema
    --config <chart>/.schema.yaml`` v2.5.0 writes it run in ``cwd`` (default: the chart folder).

    ``files``: chart-relative path → bytes, with a ``.schema.yaml``. ``normalize``: ``none`` or
    ``schemalint``. ``parsed``: values files' yaml.v3 trees by their bytes, filled for the README.
    Raises :class:`SchemaError` naming the file and key."""
    config = load_config(files[CONFIG_FILE])
    if config.output == "-":
        raise SchemaError(f'{CONFIG_FILE}: output: "-" (stdout) is not supported by gsvendor generate')
    base = cwd or chart_dir
    schema = _build_schema(config, files, chart_dir, outside, base, {} if parsed is None else parsed)
    output = posixpath.relpath(posixpath.normpath(posixpath.join(base, config.output)), chart_dir)
    if output == ".." or output.startswith("../") or posixpath.isabs(config.output):
        where = "the chart" if base == chart_dir else f"the chart ({posixpath.relpath(chart_dir, base)}/)"
        raise SchemaError(f"{CONFIG_FILE}: output: {config.output} must be inside {where}")
    if output == "." or any(p.startswith(output + "/") for p in files):
        raise SchemaError(f"{CONFIG_FILE}: output: {config.output!r} is a folder of the chart, not a file")
    if output in _NOT_OUTPUTS:
        raise SchemaError(f"{CONFIG_FILE}: output: {output} would overwrite a chart file with the schema")
    schemalint = normalize == "schemalint"  # the tool always writes 4 spaces, whatever indent says
    return output, dumps(schema.to_data(), 4 if schemalint else config.indent, normalized=schemalint)


# files a schema must never be written over (they are inputs, or the chart itself)
_NOT_OUTPUTS = {CONFIG_FILE, "Chart.yaml", "values.yaml", "README.md", "README.md.gotmpl", ".helmignore", "Chart.lock"}
