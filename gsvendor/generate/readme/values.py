"""helm-docs v1.14.2's values.yaml parsing: # -- descriptions and value rows."""

from __future__ import annotations

import re
from typing import Any

from gsvendor.config import GenerateSettings
from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.golang.sort_slice import sort_slice_by_key
from gsvendor.generate.golang.text_template.values import go_print
from gsvendor.generate.golang.yaml_emit import dump_node
from gsvendor.generate.readme import chart
from gsvendor.generate.readme.chart import Description, ReadmeError, Section, ValueRow
from gsvendor.generate.schema.model import deref

# helm-docs' comment syntax (ASCII: Go's RE2 \s is ASCII whitespace only)
_VALUES_DESCRIPTION = re.compile(r"^\s*#\s*(.*)\s+--\s*(.*)$", re.ASCII)
_RAW_DESCRIPTION = re.compile(r"^\s*#\s+@raw", re.ASCII)
_CONTINUATION = re.compile(r"^\s*#(\s?)(.*)$", re.ASCII)
_DEFAULT_VALUE = re.compile(r"^\s*# @default -- (.*)$", re.ASCII)
_VALUE_TYPE = re.compile(r"^\((.*?)\)\s*(.*)$", re.ASCII)
_NOTATION_TYPE = re.compile(r"^\s*#\s+@notationType\s+--\s+(.*)$", re.ASCII)
_SECTION = re.compile(r"^\s*# @section -- (.*)$", re.ASCII)
_PREFIX_COMMENT = "# --"
# the ``@…`` lines after a description, in the order helm-docs tries them, and the field each sets
_TAGS = ((_DEFAULT_VALUE, "Default"), (_NOTATION_TYPE, "NotationType"), (_SECTION, "Section"))


def parse_comment(lines: list[str]) -> tuple[str, Description]:
    """helm-docs' ``ParseComment``: the key (old-style ``# key -- …``) and the description of the last
    group starting with ``# --``, with its ``(type)`` and the ``@…`` lines after it."""
    last = max((index for index, line in enumerate(lines) if line.startswith(_PREFIX_COMMENT)), default=0)
    if last > 0:
        return parse_comment(lines[last:])
    key, description, start = "", Description(), 0
    for index, line in enumerate(lines):
        if match := _VALUES_DESCRIPTION.match(line):
            key, description.Description, start = match.group(1), match.group(2), index
            break
    type_match = _VALUE_TYPE.match(description.Description)
    if type_match and type_match.group(1):
        description.ValueType, description.Description = type_match.group(1), type_match.group(2)
    raw = False
    for line in lines[start + 1 :]:
        if not raw and _RAW_DESCRIPTION.match(line):
            raw = True
            continue
        tagged = next(((field, m.group(1)) for pattern, field in _TAGS if (m := pattern.match(line))), None)
        if tagged is not None:
            setattr(description, *tagged)
        elif continuation := _CONTINUATION.match(line):
            description.Description += ("\n" if raw else " ") + continuation.group(2)
    return key, description


def key_descriptions(values_text: str) -> dict[str, Description]:
    """Old-style ``# some.key -- text`` comments anywhere in values.yaml, as helm-docs scans them: a
    block ends at the first non-comment line; one still open at the end of the file is dropped."""
    out: dict[str, Description] = {}
    lines: list[str] = []  # the open block
    for line in values_text.split("\n"):
        line = line.removesuffix("\r")
        if lines and _CONTINUATION.match(line):  # any comment line (@default and @section ones too)
            lines.append(line)
        elif lines:
            key, description = parse_comment(lines)
            if key:
                out[key] = description
            lines = []
        elif (match := _VALUES_DESCRIPTION.match(line)) and match.group(1):
            lines = [line]
    return out


def _node_description(node: goyaml.Node) -> Description:
    """``getDescriptionFromNode``: a ``# --`` head comment directly above the key."""
    if _PREFIX_COMMENT not in node.head_comment:
        return Description()
    key, description = parse_comment(node.head_comment.split("\n"))
    return Description() if key else description


def _remove_ignored(node: goyaml.Node) -> None:
    kept: list[goyaml.Node] = []
    children = iter(node.content)
    for child in children:
        if "@ignore" not in child.head_comment:
            _remove_ignored(child)
            kept.append(child)
        elif node.kind == goyaml.MAPPING:
            next(children, None)  # drop the value with its key
    node.content = kept


def _jsonable(node: goyaml.Node) -> Any:
    """``convertHelmValuesToJsonable``."""
    node = deref(node)
    if node.kind == goyaml.MAPPING:
        return {k.value: _jsonable(v) for k, v in node.pairs()}
    if node.kind == goyaml.SEQUENCE:
        return [_jsonable(v) for v in node.content]
    if node.kind == goyaml.SCALAR:
        try:
            return _scalar(node, "")
        except ReadmeError:  # an int, float or bool that does not decode: helm-docs logs it and uses 0
            return 0 if node.tag in _DECODED else None
    return None


def _scalar(node: goyaml.Node, key: str) -> Any:
    """A scalar as helm-docs decodes it; :class:`ReadmeError` for another tag or a value that does not decode."""
    tag = node.tag
    if tag == goyaml.NULL_TAG:
        return None
    if tag in (goyaml.STR_TAG, goyaml.TIMESTAMP_TAG):
        return node.value
    if tag not in _DECODED:
        raise ReadmeError(f"values.yaml: line {node.line}: invalid node type (tag {tag}) for {key}")
    try:
        value = goyaml.scalar_value(node)
    except goyaml.YAMLError as exc:
        raise ReadmeError(f"values.yaml: {exc}") from None
    if tag == goyaml.INT_TAG and isinstance(value, float) and value.is_integer():
        value = int(value)
    go_type, fits = _DECODED[tag]
    if not fits(value):
        raise ReadmeError(f"values.yaml: line {node.line}: cannot decode {node.value!r} as {go_type}")
    return float(value) if tag == goyaml.FLOAT_TAG else value


# the tags helm-docs decodes into a Go int64, float64 or bool: the type as errors name it, and what fits it
_DECODED: dict[str, tuple[str, Any]] = {
    goyaml.INT_TAG: ("an int", lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63),
    goyaml.FLOAT_TAG: ("a float", lambda v: isinstance(v, int | float) and not isinstance(v, bool)),
    goyaml.BOOL_TAG: ("a bool", lambda v: isinstance(v, bool)),
}

_TYPE_NAMES = {bool: "bool", float: "float", int: "int", str: "string", list: "list", dict: "object"}


def _row(key: str, value: Any, desc: Description, auto: Description, column: int, line: int) -> ValueRow:
    """``createValueRow``: a null value is typed ``string`` and defaults to ``nil``."""
    default, notation, description = desc.Default, auto.NotationType, desc.Description
    if value is None:
        value_type = desc.ValueType or auto.ValueType or "string"
        description = description or auto.Description
        if not default and not auto.Default:
            default = "`nil`"
    else:
        value_type = desc.ValueType or auto.ValueType or notation or _TYPE_NAMES.get(type(value), "")
        if not default and not auto.Default and not notation:
            try:
                default = "`" + gojson.dumps(value, escape_html=False) + "`"
            except gojson.GoJSONError as exc:
                raise ReadmeError(f"failed to marshal default value for {key} to json: {exc}") from None
        elif not default and not auto.Default:  # Go's fmt.Sprintf("%s", value): a scalar as %!s(int=7)
            go_type = {bool: "bool", int: "int", float: "float64"}.get(type(value))  # ints are int64 (_scalar)
            default = f"%!s({go_type}={go_print(value)})" if go_type else go_print(value)
    section = desc.Section or auto.Section
    return ValueRow(
        key, value_type, notation, auto.Default, default, auto.Description, description, section, column, line
    )


def _rows(
    prefix: str, key: goyaml.Node, node: goyaml.Node, described: dict[str, Description], leaves: bool
) -> list[ValueRow]:
    """``createValueRowsFromField``, ``createValueRowsFromObject`` and ``createValueRowsFromList``."""
    node = deref(node)
    desc, auto = described.get(prefix), _node_description(key)
    documented = desc is not None or bool(auto.Description)

    def row(value: Any) -> ValueRow:
        return _row(prefix, value, desc or Description(), auto, key.column, key.line)

    is_map = node.kind == goyaml.MAPPING
    if not is_map and node.kind != goyaml.SEQUENCE:
        if not (leaves or documented):
            return []
        if node.tag == goyaml.STR_TAG and auto.NotationType:  # the text as written, or as YAML
            return [row(dump_node(node) if auto.NotationType == "yaml" else node.value)]
        return [row(_scalar(node, prefix))]
    if not node.content:
        return [row({} if is_map else [])] if (prefix or not is_map) and (leaves or documented) else []
    rows: list[ValueRow] = []
    if documented:  # the collection's own row, its children's rows only if undescribed
        if auto.NotationType and desc is None:
            rows.append(row(dump_node(node) if auto.NotationType == "yaml" else node.value))
        else:
            rows.append(row(_jsonable(node)))
        leaves = False
    if is_map:
        for child_key, child_value in node.pairs():
            name = f'"{child_key.value}"' if "." in child_key.value or " " in child_key.value else child_key.value
            rows += _rows(f"{prefix}.{name}" if prefix else name, child_key, child_value, described, leaves)
    else:
        for index, item in enumerate(node.content):
            rows += _rows(f"{prefix}[{index}]", item, item, described, leaves)
    return rows


def value_rows(
    values: bytes, parsed: dict[bytes, Any] | None = None
) -> tuple[list[ValueRow], dict[str, Description], goyaml.Node | None]:
    """The values table rows of values.yaml (unsorted), the old-style descriptions and the tree (taken
    out of ``parsed``, trees by their bytes: this edits it). A null document is an empty values file, as
    helm reads it (a known difference, see README.md). Raises :class:`ReadmeError` for a non-mapping."""
    document = parsed.pop(values) if parsed and values in parsed else chart._parse_yaml(values, "values.yaml")
    described = key_descriptions(values.decode("utf-8", "replace"))
    if document is not None:
        _remove_ignored(document)
    if document is None or not document.content:
        return [], described, document
    root = document.content[0]
    if root.kind == goyaml.SCALAR and root.tag == goyaml.NULL_TAG:
        return [], described, None
    if root.kind != goyaml.MAPPING:
        raise ReadmeError(f"values.yaml: values file must resolve to a map (was a {root.kind})")
    return _rows("", root, root, described, True), described, document


def _sorted_rows(rows: list[ValueRow], order: str) -> list[ValueRow]:
    """helm-docs v1.14.2 ``sortValueRowsByOrder`` with Go's unstable ``sort.Slice``: by key bytes (``alphanum``)
    or line, then column (``file``); gsvendor.yaml refuses documentDependencyValues, its other rule."""
    out = list(rows)
    sort_slice_by_key(out, lambda row: (row.LineNumber, row.Column) if order == "file" else row.Key.encode("utf-8"))
    return out


def chart_data(
    files: dict[str, bytes], chart_dir: str, parsed: dict[bytes, Any] | None, settings: GenerateSettings
) -> chart.ChartData:
    """Everything the templates see for the chart with these ``files`` (chart-relative paths), with
    helm-docs' flags of ``settings``; ``parsed``: as :func:`value_rows`. Raises :class:`ReadmeError`
    without Chart.yaml or for invalid metadata or values."""
    if "Chart.yaml" not in files:
        raise ReadmeError("Chart.yaml is missing")
    data = chart.chart_metadata(files["Chart.yaml"], files.get("requirements.yaml"))
    rows, data.ChartValuesDescriptions, data.ChartValues = value_rows(files[chart.VALUES_FILE], parsed)
    data.ChartDirectory = chart_dir
    if settings.ignore_non_descriptions:
        rows = [row for row in rows if row.AutoDescription or row.Description]
    order = settings.helm_docs_sort_order
    data.Values = _sorted_rows(rows, order)
    named: dict[str, list[ValueRow]] = {}  # getSectionedValueRows: sections in order of first appearance
    for row in data.Values:
        named.setdefault(row.Section, []).append(row)
    other = Section("Other Values", _sorted_rows(named.pop("", []), order))
    data.Sections = chart.Sections(other, [Section(name, _sorted_rows(items, order)) for name, items in named.items()])
    # helm-docs lists the files before it truncates README.md to write it: an old one reads empty
    walked = {chart.go_join(chart_dir, path): b"" if path == "README.md" else data for path, data in files.items()}
    data.Files = chart.Files(walked, chart_dir)
    return data
