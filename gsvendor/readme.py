"""Chart READMEs as helm-docs (github.com/norwoodj/helm-docs) v1.14.2 writes them, in-process.

:func:`render_readme` takes a chart's files (chart-relative path → bytes) and returns the
README.md bytes helm-docs would write with its default options (``--template-files
README.md.gotmpl``, ``--sort-values-order alphanum``, ``--badge-style flat-square``,
``--values-file values.yaml``). Matched behaviour, with where it comes from in helm-docs:

* chart metadata from Chart.yaml (``pkg/helm/chart_info.go``): every scalar read as its
  source text (``version: 1.0`` stays ``1.0``); dependencies from Chart.yaml (``apiVersion: v2``)
  or requirements.yaml (``v1``), sorted by ``repository/name``;
* the values table (``pkg/document/values.go``, ``model.go``): one row per leaf, keys joined with
  dots (``"quoted"`` when they hold a dot or a space, ``[i]`` for list items), type ``string``,
  ``int``, ``float``, ``bool``, ``list`` or ``object``, default as Go's JSON in backticks, ``nil``
  for nulls; descriptions from ``# --`` comments above a key (with ``(type)``, ``@default``,
  ``@section``, ``@raw``, ``@notationType``) or from ``# key.path -- text`` comments anywhere;
  a described object or list is one row and hides its undescribed children; ``@ignore`` drops
  a key; rows sorted by key (byte order), sections in order of first appearance;
* the named templates (``pkg/document/template.go``): ``chart.header``, ``chart.description``,
  ``chart.version``/``versionBadge``, ``chart.type``/``typeBadge``, ``chart.appVersion``/
  ``appVersionBadge``, ``chart.badgesSection``, ``chart.deprecationWarning``, ``chart.homepage``/
  ``homepageLine``, ``chart.maintainers*``, ``chart.sources*``, ``chart.kubeVersion*``,
  ``chart.requirements*``, ``chart.values*`` (also the v1.15 ``…Md`` names), ``chart.valuesTableHtml``,
  ``chart.valuesSectionHtml``, ``helm-docs.version*``; the chart's ``README.md.gotmpl`` may
  redefine any of them;
* the final clean-up (``generate.go``): a space before a newline is dropped and three or more
  newlines collapse to two.

Differences, on purpose: an error in the template or the values is raised
(:class:`ReadmeError`) instead of logged with a partial README; a chart without values.yaml
gets no README (helm-docs skips it too); ``@notationType: yaml`` defaults are re-emitted from
the parsed value (yaml.v3's emitter is not reproduced for comments and quoting styles).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gsvendor import gojson, goyaml
from gsvendor.errors import GsvendorError
from gsvendor.gotemplate import BUILTINS, Template, TemplateError, go_print, is_true

HELM_DOCS_VERSION = "1.14.2"
BADGE_STYLE = "flat-square"
TEMPLATE_FILE = "README.md.gotmpl"
VALUES_FILE = "values.yaml"

_RE = re.ASCII  # Go's RE2 \s is ASCII whitespace only
_VALUES_DESCRIPTION = re.compile(r"^\s*#\s*(.*)\s+--\s*(.*)$", _RE)
_RAW_DESCRIPTION = re.compile(r"^\s*#\s+@raw", _RE)
_CONTINUATION = re.compile(r"^\s*#(\s?)(.*)$", _RE)
_DEFAULT_VALUE = re.compile(r"^\s*# @default -- (.*)$", _RE)
_VALUE_TYPE = re.compile(r"^\((.*?)\)\s*(.*)$", _RE)
_NOTATION_TYPE = re.compile(r"^\s*#\s+@notationType\s+--\s+(.*)$", _RE)
_SECTION = re.compile(r"^\s*# @section -- (.*)$", _RE)
_PREFIX_COMMENT = "# --"


class ReadmeError(GsvendorError):
    """The README cannot be generated: invalid Chart.yaml or values.yaml, or a template error (exit 2)."""


# --- the data the templates see (field names as helm-docs' Go structs) --------------------


@dataclass
class Maintainer:
    """``ChartMetaMaintainer``."""

    Email: str = ""
    Name: str = ""
    Url: str = ""


@dataclass
class Dependency:
    """``ChartRequirementsItem``."""

    Name: str = ""
    Version: str = ""
    Repository: str = ""
    Alias: str = ""


@dataclass
class Description:
    """``ChartValueDescription``: what a ``# --`` or ``# key -- …`` comment says."""

    Description: str = ""
    Default: str = ""
    Section: str = ""
    ValueType: str = ""
    NotationType: str = ""


@dataclass
class ValueRow:
    """One row of the values table (``valueRow``)."""

    Key: str
    Type: str
    NotationType: str = ""
    AutoDefault: str = ""
    Default: str = ""
    AutoDescription: str = ""
    Description: str = ""
    Section: str = ""
    Column: int = 0
    LineNumber: int = 0
    Dependency: str = ""
    IsGlobal: bool = False


@dataclass
class Section:
    """A named group of rows (``@section``)."""

    SectionName: str
    SectionItems: list[ValueRow] = field(default_factory=list)


@dataclass
class Sections:
    """``sections``: the rows without a section (``Other Values``) and the named sections."""

    DefaultSection: Section
    Sections: list[Section] = field(default_factory=list)


class Files:
    """The chart's files as templates see them (``.Files.Get "path"`` …)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self._files = files

    def GetBytes(self, name: str) -> bytes:
        """The bytes of ``name`` (chart-relative), empty when absent."""
        return self._files.get(name.lstrip("./"), b"")

    def Get(self, name: str) -> str:
        """The text of ``name``, empty when absent."""
        return self.GetBytes(name).decode("utf-8", "replace")

    def Glob(self, pattern: str) -> Files:
        """The files matching the glob ``pattern``."""
        return Files({p: d for p, d in self._files.items() if fnmatch.fnmatchcase(p, pattern)})

    def Lines(self, name: str) -> list[str]:
        """The lines of ``name``."""
        return self.Get(name).split("\n") if name in self._files else []

    def AsMap(self) -> dict[str, bytes]:
        """Path → bytes."""
        return dict(self._files)

    def AsConfig(self) -> str:
        """The files as a ConfigMap ``data`` block: base name → text, as YAML."""
        if not self._files:
            return ""
        data = {p.rsplit("/", 1)[-1]: d.decode("utf-8", "replace") for p, d in self._files.items()}
        return goyaml.dump(data).removesuffix("\n")

    def AsSecrets(self) -> str:
        """The files as a Secret ``data`` block: base name → base64, as YAML."""
        import base64

        if not self._files:
            return ""
        data = {p.rsplit("/", 1)[-1]: base64.b64encode(d).decode() for p, d in self._files.items()}
        return goyaml.dump(data).removesuffix("\n")


@dataclass
class ChartData:
    """``chartTemplateData``: chart metadata, requirements and the values rows."""

    ApiVersion: str = ""
    AppVersion: str = ""
    KubeVersion: str = ""
    Name: str = ""
    Deprecated: bool = False
    Description: str = ""
    Version: str = ""
    Home: str = ""
    Type: str = ""
    Sources: list[str] = field(default_factory=list)
    Engine: str = ""
    Maintainers: list[Maintainer] = field(default_factory=list)
    Dependencies: list[Dependency] = field(default_factory=list)
    ChartDirectory: str = ""
    ChartValues: Any = None
    ChartValuesDescriptions: dict[str, Description] = field(default_factory=dict)
    HelmDocsVersion: str = field(default_factory=lambda: HELM_DOCS_VERSION)
    Values: list[ValueRow] = field(default_factory=list)
    Sections: Sections = field(default_factory=lambda: Sections(Section("Other Values")))
    Files: Files = field(default_factory=lambda: Files({}))
    SkipVersionFooter: bool = False


# --- Chart.yaml -----------------------------------------------------------------------------


def _text(node: goyaml.Node | None, where: str) -> str:
    """A scalar decoded into a Go ``string`` field: its source text; null is empty."""
    if node is None:
        return ""
    if node.kind == goyaml.ALIAS and node.alias is not None:
        node = node.alias
    if node.kind != goyaml.SCALAR:
        raise ReadmeError(f"{where}: expected a string, found a {node.kind}")
    if node.short_tag() == goyaml.NULL_TAG and not node.style:
        return ""
    return node.value


def _fields(node: goyaml.Node | None, where: str) -> dict[str, goyaml.Node]:
    if node is None or (node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG):
        return {}
    if node.kind == goyaml.ALIAS and node.alias is not None:
        node = node.alias
    if node.kind != goyaml.MAPPING:
        raise ReadmeError(f"{where}: expected a mapping, found a {node.kind}")
    out: dict[str, goyaml.Node] = {}
    for key, value in node.pairs():
        if key.value in out:
            raise ReadmeError(f"{where}: line {key.line}: mapping key {key.value!r} already defined")
        out[key.value] = value
    return out


def _list(node: goyaml.Node | None, where: str) -> list[goyaml.Node]:
    if node is None or (node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG):
        return []
    if node.kind == goyaml.ALIAS and node.alias is not None:
        node = node.alias
    if node.kind != goyaml.SEQUENCE:
        raise ReadmeError(f"{where}: expected a list, found a {node.kind}")
    return list(node.content)


def _parse_yaml(data: bytes, label: str) -> goyaml.Node | None:
    try:
        return goyaml.parse(data)
    except goyaml.YAMLError as exc:
        raise ReadmeError(f"{label}: invalid YAML: {exc}") from None


def chart_metadata(chart_yaml: bytes, requirements_yaml: bytes | None = None) -> ChartData:
    """Chart.yaml (and requirements.yaml for ``apiVersion: v1``) as helm-docs reads them.

    Raises :class:`ReadmeError` for invalid YAML or a field of the wrong shape.
    """
    document = _parse_yaml(chart_yaml, "Chart.yaml")
    root = document.content[0] if document is not None and document.content else None
    meta = _fields(root, "Chart.yaml")
    data = ChartData(
        ApiVersion=_text(meta.get("apiVersion"), "Chart.yaml: apiVersion"),
        AppVersion=_text(meta.get("appVersion"), "Chart.yaml: appVersion"),
        KubeVersion=_text(meta.get("kubeVersion"), "Chart.yaml: kubeVersion"),
        Name=_text(meta.get("name"), "Chart.yaml: name"),
        Description=_text(meta.get("description"), "Chart.yaml: description"),
        Version=_text(meta.get("version"), "Chart.yaml: version"),
        Home=_text(meta.get("home"), "Chart.yaml: home"),
        Type=_text(meta.get("type"), "Chart.yaml: type"),
        Engine=_text(meta.get("engine"), "Chart.yaml: engine"),
    )
    deprecated = meta.get("deprecated")
    if deprecated is not None:
        value = goyaml.scalar_value(deprecated) if deprecated.kind in (goyaml.SCALAR, goyaml.ALIAS) else None
        if value is not None and not isinstance(value, bool):
            raise ReadmeError(f"Chart.yaml: deprecated: cannot unmarshal {deprecated.value!r} into bool")
        data.Deprecated = bool(value)
    data.Sources = [_text(n, "Chart.yaml: sources") for n in _list(meta.get("sources"), "Chart.yaml: sources")]
    for item in _list(meta.get("maintainers"), "Chart.yaml: maintainers"):
        entry = _fields(item, "Chart.yaml: maintainers")
        data.Maintainers.append(
            Maintainer(
                Email=_text(entry.get("email"), "Chart.yaml: maintainers.email"),
                Name=_text(entry.get("name"), "Chart.yaml: maintainers.name"),
                Url=_text(entry.get("url"), "Chart.yaml: maintainers.url"),
            )
        )
    if data.ApiVersion == "v1":
        if requirements_yaml is None:
            return data
        document = _parse_yaml(requirements_yaml, "requirements.yaml")
        root = document.content[0] if document is not None and document.content else None
        deps_node = _fields(root, "requirements.yaml").get("dependencies")
    else:
        deps_node = meta.get("dependencies")
    for item in _list(deps_node, "dependencies"):
        entry = _fields(item, "dependencies")
        data.Dependencies.append(
            Dependency(
                Name=_text(entry.get("name"), "dependencies.name"),
                Version=_text(entry.get("version"), "dependencies.version"),
                Repository=_text(entry.get("repository"), "dependencies.repository"),
                Alias=_text(entry.get("alias"), "dependencies.alias"),
            )
        )
    data.Dependencies.sort(key=lambda d: f"{d.Repository}/{d.Name}".encode())
    return data


# --- values comments ------------------------------------------------------------------------


def parse_comment(lines: list[str]) -> tuple[str, Description]:
    """helm-docs' ``ParseComment``: the key (old-style ``# key -- …``) and the description.

    Only the last group starting with ``# --`` counts; ``(type)`` sets the type; ``@default``,
    ``@notationType``, ``@section`` and ``@raw`` (keep line breaks) are read from the lines after.
    """
    last = 0
    for index, line in enumerate(lines):
        if line.startswith(_PREFIX_COMMENT):
            last = index
    if last > 0:
        return parse_comment(lines[last:])
    key = ""
    description = Description()
    start = 0
    for index, line in enumerate(lines):
        match = _VALUES_DESCRIPTION.match(line)
        if not match:
            continue
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
        if match := _DEFAULT_VALUE.match(line):
            description.Default = match.group(1)
            continue
        if match := _NOTATION_TYPE.match(line):
            description.NotationType = match.group(1)
            continue
        if match := _SECTION.match(line):
            description.Section = match.group(1)
            continue
        continuation = _CONTINUATION.match(line)
        if continuation:
            description.Description += ("\n" if raw else " ") + continuation.group(2)
    return key, description


def key_descriptions(values_text: str) -> dict[str, Description]:
    """Old-style ``# some.key -- text`` comments anywhere in values.yaml, as helm-docs scans them.

    A block ends at the first non-comment line; one still open at the end of the file is
    dropped (helm-docs behaves so).
    """
    out: dict[str, Description] = {}
    found = False
    lines: list[str] = []
    for raw_line in values_text.split("\n"):
        line = raw_line.removesuffix("\r")
        if not found:
            match = _VALUES_DESCRIPTION.match(line)
            if not match or not match.group(1):
                continue
            found = True
            lines.append(line)
            continue
        if _DEFAULT_VALUE.match(line) or _SECTION.match(line) or _CONTINUATION.match(line):
            lines.append(line)
            continue
        key, description = parse_comment(lines)
        if key:
            out[key] = description
        lines = []
        found = False
    return out


def _node_description(node: goyaml.Node | None) -> Description:
    """``getDescriptionFromNode``: a ``# --`` head comment directly above the key."""
    if node is None or not node.head_comment or _PREFIX_COMMENT not in node.head_comment:
        return Description()
    key, description = parse_comment(node.head_comment.split("\n"))
    return Description() if key else description


# --- values rows ----------------------------------------------------------------------------


def _remove_ignored(node: goyaml.Node) -> None:
    kept: list[goyaml.Node] = []
    index = 0
    while index < len(node.content):
        child = node.content[index]
        if "@ignore" not in child.head_comment:
            _remove_ignored(child)
            kept.append(child)
        elif node.kind == goyaml.MAPPING:
            index += 1  # drop the value with its key
        index += 1
    node.content = kept


def _jsonable(node: goyaml.Node) -> Any:
    """``convertHelmValuesToJsonable``."""
    if node.kind == goyaml.MAPPING:
        return {k.value: _jsonable(v) for k, v in node.pairs()}
    if node.kind == goyaml.SEQUENCE:
        return [_jsonable(v) for v in node.content]
    if node.kind == goyaml.ALIAS and node.alias is not None:
        return _jsonable(node.alias)
    if node.kind == goyaml.SCALAR:
        tag = node.tag
        if tag == goyaml.NULL_TAG:
            return None
        if tag in (goyaml.STR_TAG, goyaml.TIMESTAMP_TAG):
            return node.value
        if tag in (goyaml.INT_TAG, goyaml.FLOAT_TAG, goyaml.BOOL_TAG):
            try:
                return _decode_scalar(node)
            except ReadmeError:
                return 0  # helm-docs logs the failure and uses 0
    return None


def _decode_scalar(node: goyaml.Node) -> Any:
    try:
        value = goyaml.scalar_value(node)
    except goyaml.YAMLError as exc:
        raise ReadmeError(f"values.yaml: {exc}") from None
    tag = node.tag
    if tag == goyaml.INT_TAG:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or not -(2**63) <= value < 2**63:
            raise ReadmeError(f"values.yaml: line {node.line}: cannot decode {node.value!r} as an int")
        return value
    if tag == goyaml.FLOAT_TAG:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ReadmeError(f"values.yaml: line {node.line}: cannot decode {node.value!r} as a float")
        return float(value)
    if not isinstance(value, bool):
        raise ReadmeError(f"values.yaml: line {node.line}: cannot decode {node.value!r} as a bool")
    return value


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, float):
        return "float"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return ""


def _key_prefix(prefix: str, key: str) -> str:
    escaped = f'"{key}"' if "." in key or " " in key else key
    return f"{prefix}.{escaped}" if prefix else escaped


def _nil_row(key: str, desc: Description, auto: Description, column: int, line: int) -> ValueRow:
    description = desc.Description or auto.Description
    value_type = desc.ValueType or auto.ValueType or "string"
    default = desc.Default
    if not desc.Default and not auto.Default:
        default = "`nil`"
    return ValueRow(
        Key=key,
        Type=value_type,
        NotationType=auto.NotationType,
        AutoDefault=auto.Default,
        Default=default,
        AutoDescription=auto.Description,
        Description=description,
        Section=desc.Section or auto.Section,
        Column=column,
        LineNumber=line,
    )


def _row(key: str, value: Any, desc: Description, auto: Description, column: int, line: int) -> ValueRow:
    """``createValueRow``."""
    if value is None:
        return _nil_row(key, desc, auto, column, line)
    default = desc.Default
    notation = auto.NotationType
    value_type = desc.ValueType or auto.ValueType or notation or _type_name(value)
    if not default and not auto.Default and not notation:
        try:
            default = "`" + gojson.dumps(value, escape_html=False) + "`"
        except gojson.GoJSONError as exc:
            raise ReadmeError(f"failed to marshal default value for {key} to json: {exc}") from None
    if not default and not auto.Default and notation:
        default = value if isinstance(value, str) else go_print(value)
    return ValueRow(
        Key=key,
        Type=value_type,
        NotationType=notation,
        AutoDefault=auto.Default,
        Default=default,
        AutoDescription=auto.Description,
        Description=desc.Description,
        Section=desc.Section or auto.Section,
        Column=column,
        LineNumber=line,
    )


def _notation_value(node: goyaml.Node, notation: str) -> Any:
    return goyaml.dump_node(node) if notation == "yaml" else node.value


def _rows_from_field(
    prefix: str, key: goyaml.Node, value: goyaml.Node, described: dict[str, Description], leaves: bool
) -> list[ValueRow]:
    """``createValueRowsFromField``."""
    if value.kind == goyaml.MAPPING:
        return _rows_from_object(prefix, key, value, described, leaves)
    if value.kind == goyaml.SEQUENCE:
        return _rows_from_list(prefix, key, value, described, leaves)
    if value.kind == goyaml.ALIAS and value.alias is not None:
        return _rows_from_field(prefix, key, value.alias, described, leaves)
    auto = _node_description(key)
    desc = described.get(prefix)
    if not (leaves or desc is not None or auto.Description):
        return []
    desc = desc or Description()
    tag = value.tag
    if tag == goyaml.NULL_TAG:
        return [_row(prefix, None, desc, auto, key.column, key.line)]
    if tag == goyaml.STR_TAG and auto.NotationType:
        return [_row(prefix, _notation_value(value, auto.NotationType), desc, auto, key.column, key.line)]
    if tag in (goyaml.STR_TAG, goyaml.TIMESTAMP_TAG):
        return [_row(prefix, value.value, desc, auto, key.column, key.line)]
    if tag in (goyaml.INT_TAG, goyaml.FLOAT_TAG, goyaml.BOOL_TAG):
        return [_row(prefix, _decode_scalar(value), desc, auto, key.column, key.line)]
    raise ReadmeError(f"values.yaml: line {value.line}: invalid node type (tag {tag}) for {prefix}")


def _rows_from_collection(
    prefix: str, key: goyaml.Node, node: goyaml.Node, described: dict[str, Description], leaves: bool, empty: Any
) -> tuple[list[ValueRow], bool]:
    desc = described.get(prefix)
    auto = _node_description(key)
    rows: list[ValueRow] = []
    if not node.content:
        if prefix == "" and node.kind == goyaml.MAPPING:
            return [], leaves
        if leaves or desc is not None or auto.Description:
            rows.append(_row(prefix, empty, desc or Description(), auto, key.column, key.line))
        return rows, leaves
    if desc is not None or (auto.Description and not auto.NotationType):
        rows.append(_row(prefix, _jsonable(node), desc or Description(), auto, key.column, key.line))
        leaves = False
    elif auto.Description and auto.NotationType:
        value = _notation_value(node, auto.NotationType)
        rows.append(_row(prefix, value, Description(), auto, key.column, key.line))
        leaves = False
    return rows, leaves


def _rows_from_object(
    prefix: str, key: goyaml.Node, node: goyaml.Node, described: dict[str, Description], leaves: bool
) -> list[ValueRow]:
    """``createValueRowsFromObject``."""
    rows, leaves = _rows_from_collection(prefix, key, node, described, leaves, {})
    if not node.content:
        return rows
    for child_key, child_value in node.pairs():
        rows += _rows_from_field(_key_prefix(prefix, child_key.value), child_key, child_value, described, leaves)
    return rows


def _rows_from_list(
    prefix: str, key: goyaml.Node, node: goyaml.Node, described: dict[str, Description], leaves: bool
) -> list[ValueRow]:
    """``createValueRowsFromList``."""
    rows, leaves = _rows_from_collection(prefix, key, node, described, leaves, [])
    for index, item in enumerate(node.content):
        rows += _rows_from_field(f"{prefix}[{index}]", item, item, described, leaves)
    return rows


def value_rows(values: bytes | None) -> tuple[list[ValueRow], dict[str, Description], goyaml.Node | None]:
    """The values table rows of values.yaml (unsorted), the old-style descriptions and the tree.

    Raises :class:`ReadmeError` when values.yaml is not YAML or not a mapping.
    """
    if values is None:
        return [], {}, None
    text = values.decode("utf-8", "replace")
    document = _parse_yaml(values, "values.yaml")
    described = key_descriptions(text)
    if document is None or not document.content:
        return [], described, document
    _remove_ignored(document)
    if not document.content:
        return [], described, document
    root = document.content[0]
    if root.kind != goyaml.MAPPING:
        raise ReadmeError(f"values.yaml: values file must resolve to a map (was a {root.kind})")
    return _rows_from_object("", root, root, described, True), described, document


def _sorted_rows(rows: list[ValueRow]) -> list[ValueRow]:
    return sorted(rows, key=lambda r: (not r.IsGlobal, r.Key.encode("utf-8")))


def sections_of(rows: list[ValueRow]) -> Sections:
    """``getSectionedValueRows``: named sections in order of first appearance, rows sorted within."""
    out = Sections(Section("Other Values"))
    for row in rows:
        if not row.Section:
            out.DefaultSection.SectionItems.append(row)
            continue
        for section in out.Sections:
            if section.SectionName == row.Section:
                section.SectionItems.append(row)
                break
        else:
            out.Sections.append(Section(row.Section, [row]))
    out.DefaultSection.SectionItems = _sorted_rows(out.DefaultSection.SectionItems)
    for section in out.Sections:
        section.SectionItems = _sorted_rows(section.SectionItems)
    return out


def chart_data(files: dict[str, bytes], chart_dir: str = ".") -> ChartData:
    """Everything the templates see for the chart with these ``files`` (chart-relative paths).

    Raises :class:`ReadmeError` without Chart.yaml or for invalid metadata or values.
    """
    if "Chart.yaml" not in files:
        raise ReadmeError("Chart.yaml is missing")
    data = chart_metadata(files["Chart.yaml"], files.get("requirements.yaml"))
    rows, described, document = value_rows(files.get(VALUES_FILE))
    data.ChartDirectory = chart_dir
    data.ChartValues = document
    data.ChartValuesDescriptions = described
    data.Values = _sorted_rows(rows)
    data.Sections = sections_of(data.Values)
    data.Files = Files(files)
    return data


# --- the named templates --------------------------------------------------------------------

Render = Callable[[str, Any], str]


def _badge(label: str, value: str) -> str:
    escaped = value.replace("-", "--")
    return f"![{label}: {value}](https://img.shields.io/badge/{label}-{escaped}-informational?style={BADGE_STYLE}) "


def _row_line(row: Any) -> str:
    default = row.Default if is_true(row.Default) else row.AutoDefault
    description = row.Description if is_true(row.Description) else row.AutoDescription
    return f"\n| {go_print(row.Key)} | {go_print(row.Type)} | {go_print(default)} | {go_print(description)} |"


_TABLE_HEAD = "| Key | Type | Default | Description |\n|-----|------|---------|-------------|"


def _values_table(d: Any, render: Render) -> str:
    sections = d.Sections
    if is_true(sections.Sections):
        out = ""
        for section in sections.Sections:
            out += f"\n\n### {go_print(section.SectionName)}\n\n" + _TABLE_HEAD
            out += "".join(_row_line(row) for row in section.SectionItems)
        default = sections.DefaultSection
        if is_true(default.SectionItems):
            out += f"\n\n### {go_print(default.SectionName)}\n\n" + _TABLE_HEAD
            out += "".join(_row_line(row) for row in default.SectionItems)
        return out
    return _TABLE_HEAD + "".join(_row_line(row) for row in d.Values)


def _requirements_section(d: Any, render: Render) -> str:
    if not (is_true(d.Dependencies) or is_true(d.KubeVersion)):
        return ""
    out = render("chart.requirementsHeader", d) + "\n\n"
    if is_true(d.KubeVersion):
        out += render("chart.kubeVersionLine", d) + "\n\n"
    if is_true(d.Dependencies):
        out += render("chart.requirementsTable", d)
    return out


def _requirements_table(d: Any, render: Render) -> str:
    out = "| Repository | Name | Version |\n|------------|------|---------|"
    for dep in d.Dependencies:
        name = f"{go_print(dep.Alias)}({go_print(dep.Name)})" if is_true(dep.Alias) else go_print(dep.Name)
        out += f"\n| {go_print(dep.Repository)} | {name} | {go_print(dep.Version)} |"
    return out


def _maintainers_table(d: Any, render: Render) -> str:
    out = "| Name | Email | Url |\n| ---- | ------ | --- |"
    for m in d.Maintainers:
        email = f"<{go_print(m.Email)}>" if is_true(m.Email) else ""
        url = f"<{go_print(m.Url)}>" if is_true(m.Url) else ""
        out += f"\n| {go_print(m.Name)} | {email} | {url} |"
    return out


def _html_default(row: Any, render: Render) -> str:
    # Sprig's default: AutoDefault when set, else Default (the reverse of the Markdown table)
    default = row.AutoDefault if is_true(row.AutoDefault) else row.Default
    notation = row.NotationType
    text = go_print(default)
    if text.startswith("`") and text.endswith("`"):
        text = BUILTINS["toPrettyJson"](BUILTINS["fromJson"](text.strip("`")))
        notation = "json"
    out = '<pre lang="' + go_print(notation) + '">'
    if notation == "tpl":
        out += f"\n{go_print(row.Key)}: |" + BUILTINS["nindent"](2, text)
    else:
        out += "\n" + text
    return out + "\n</pre>\n"


def _html_rows(rows: list[Any], render: Render, cell_pad: str) -> str:
    out = ""
    for row in rows:
        description = row.Description if is_true(row.Description) else row.AutoDescription
        out += (
            f"\n{cell_pad}<tr>\n{cell_pad}\t<td>{go_print(row.Key)}</td>\n{cell_pad}\t<td>{go_print(row.Type)}</td>"
            f"\n{cell_pad}\t<td>{render('chart.valueDefaultColumnRender', row)}</td>"
            f"\n{cell_pad}\t<td>{go_print(description)}</td>\n{cell_pad}</tr>"
        )
    return out


_HTML_HEAD = (
    "<table>\n\t<thead>\n\t\t<th>Key</th>\n\t\t<th>Type</th>\n\t\t<th>Default</th>\n\t\t<th>Description</th>"
    "\n\t</thead>\n\t<tbody>"
)


def _values_table_html(d: Any, render: Render) -> str:
    sections = d.Sections
    if is_true(sections.Sections):
        body = ""
        for section in sections.Sections:
            body += f"\n<h3>{go_print(section.SectionName)}</h3>\n" + _HTML_HEAD
            body += _html_rows(section.SectionItems, render, "\t\t") + "\n\t</tbody>\n</table>"
        body += "\n"
        default = sections.DefaultSection
        if is_true(default.SectionItems):
            body += f"\n<h3>{go_print(default.SectionName)}</h3>\n" + _HTML_HEAD
            body += _html_rows(default.SectionItems, render, "\t") + "\n\t</tbody>\n</table>\n"
        body += "\n"
    else:
        body = "\n" + _HTML_HEAD + _html_rows(d.Values, render, "\t\t") + "\n\t</tbody>\n</table>\n"
    return "\n" + body + "\n"


def _values_section_html(d: Any, render: Render) -> str:
    inner = ""
    if is_true(d.Sections):
        inner = "\n" + render("chart.valuesHeader", d) + "\n" + render("chart.valuesTableHtml", d) + "\n"
    return "\n" + inner + "\n"


def _if(condition: Callable[[Any], Any], body: Callable[[Any, Render], str]) -> Callable[[Any, Render], str]:
    return lambda d, render: body(d, render) if is_true(condition(d)) else ""


NAMED_TEMPLATES: dict[str, Callable[[Any, Render], str]] = {
    "chart.name": lambda d, r: go_print(d.Name),
    "chart.header": lambda d, r: f"# {go_print(d.Name)}\n",
    "chart.deprecationWarning": _if(
        lambda d: d.Deprecated, lambda d, r: "> **:exclamation: This Helm Chart is deprecated!**"
    ),
    "chart.version": lambda d, r: go_print(d.Version),
    "chart.versionBadge": lambda d, r: _badge("Version", go_print(d.Version)),
    "chart.type": lambda d, r: go_print(d.Type),
    "chart.typeBadge": _if(
        lambda d: d.Type,
        lambda d, r: (
            f"![Type: {go_print(d.Type)}](https://img.shields.io/badge/Type-{go_print(d.Type)}"
            f"-informational?style={BADGE_STYLE}) "
        ),
    ),
    "chart.appVersion": lambda d, r: go_print(d.AppVersion),
    "chart.appVersionBadge": _if(lambda d: d.AppVersion, lambda d, r: _badge("AppVersion", go_print(d.AppVersion))),
    "chart.badgesSection": lambda d, r: (
        r("chart.versionBadge", d) + r("chart.typeBadge", d) + r("chart.appVersionBadge", d)
    ),
    "chart.description": _if(lambda d: d.Description, lambda d, r: go_print(d.Description)),
    "chart.homepage": lambda d, r: go_print(d.Home),
    "chart.homepageLine": _if(lambda d: d.Home, lambda d, r: f"**Homepage:** <{go_print(d.Home)}>"),
    "chart.maintainersHeader": lambda d, r: "## Maintainers",
    "chart.maintainersTable": _maintainers_table,
    "chart.maintainersSection": _if(
        lambda d: d.Maintainers, lambda d, r: r("chart.maintainersHeader", d) + "\n\n" + r("chart.maintainersTable", d)
    ),
    "chart.sourcesHeader": lambda d, r: "## Source Code",
    "chart.sourcesList": lambda d, r: "".join(f"\n* <{go_print(s)}>" for s in d.Sources),
    "chart.sourcesSection": _if(
        lambda d: d.Sources, lambda d, r: r("chart.sourcesHeader", d) + "\n" + r("chart.sourcesList", d)
    ),
    "chart.requirementsHeader": lambda d, r: "## Requirements",
    "chart.kubeVersion": lambda d, r: go_print(d.KubeVersion),
    "chart.kubeVersionLine": _if(lambda d: d.KubeVersion, lambda d, r: f"Kubernetes: `{go_print(d.KubeVersion)}`"),
    "chart.requirementsTable": _requirements_table,
    "chart.requirementsSection": _requirements_section,
    "chart.valuesHeader": lambda d, r: "## Values",
    "chart.valuesTable": _values_table,
    "chart.valuesTableMd": lambda d, r: r("chart.valuesTable", d),
    "chart.valuesSection": _if(
        lambda d: d.Values, lambda d, r: r("chart.valuesHeader", d) + "\n\n" + r("chart.valuesTableMd", d)
    ),
    "chart.valuesSectionMd": lambda d, r: r("chart.valuesSection", d),
    "chart.valueDefaultColumnRender": _html_default,
    "chart.valueDefaultColumnRenderHtml": lambda d, r: r("chart.valueDefaultColumnRender", d),
    "chart.valuesTableHtml": _values_table_html,
    "chart.valuesSectionHtml": _values_section_html,
    # v1.15 names for the table cells (helm-docs v1.14.2's tables do not go through them)
    "chart.valueKeyColumnRenderMd": lambda d, r: go_print(d.Key),
    "chart.valueTypeColumnRenderMd": lambda d, r: go_print(d.Type),
    "chart.valueDefaultColumnRenderMd": lambda d, r: go_print(d.Default if is_true(d.Default) else d.AutoDefault),
    "chart.valueDescriptionColumnRenderMd": lambda d, r: go_print(
        d.Description if is_true(d.Description) else d.AutoDescription
    ),
    "chart.valueKeyColumnRenderHtml": lambda d, r: r("chart.valueKeyColumnRenderMd", d),
    "chart.valueTypeColumnRenderHtml": lambda d, r: r("chart.valueTypeColumnRenderMd", d),
    "chart.valueDescriptionColumnRenderHtml": lambda d, r: r("chart.valueDescriptionColumnRenderMd", d),
    "helm-docs.version": _if(lambda d: d.HelmDocsVersion, lambda d, r: go_print(d.HelmDocsVersion)),
    "helm-docs.versionFooter": _if(
        lambda d: d.HelmDocsVersion,
        lambda d, r: (
            "\n" + "-" * 46 + "\nAutogenerated from chart metadata using "
            f"[helm-docs v{go_print(d.HelmDocsVersion)}](https://github.com/norwoodj/helm-docs/releases/"
            f"v{go_print(d.HelmDocsVersion)})"
        ),
    ),
}

# helm-docs' layout when a chart has no README.md.gotmpl: these sections, a blank line apart,
# then the version footer.
_DEFAULT_SECTIONS = (
    "chart.badgesSection",
    "chart.description",
    "chart.homepageLine",
    "chart.maintainersSection",
    "chart.sourcesSection",
    "chart.requirementsSection",
    "chart.valuesSection",
)
DEFAULT_TEMPLATE = (
    '{{ template "chart.header" . }}\n{{ template "chart.deprecationWarning" . }}\n\n'
    + "\n\n".join(f'{{{{ template "{name}" . }}}}' for name in _DEFAULT_SECTIONS)
    + '\n\n{{- if not .SkipVersionFooter }}\n{{ template "helm-docs.versionFooter" . }}\n{{- end }}\n'
)


def markdown_format(text: str) -> str:
    """helm-docs' ``applyMarkDownFormat``: drop a space before a newline, collapse 3+ newlines to 2."""
    text = text.replace(" \n", "\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def render_readme(files: dict[str, bytes], template_text: str | None = None, chart_dir: str = ".") -> bytes | None:
    """README.md for a chart as helm-docs v1.14.2 generates it; ``None`` when helm-docs would skip it.

    ``files`` maps chart-relative paths to bytes; the template is ``template_text``, else the
    chart's README.md.gotmpl, else helm-docs' default layout. A chart without values.yaml is
    skipped (``None``), as helm-docs does. Raises :class:`ReadmeError` for invalid Chart.yaml or
    values.yaml and for template errors (with the template line).
    """
    if VALUES_FILE not in files:
        return None
    data = chart_data(files, chart_dir)
    if template_text is None:
        gotmpl = files.get(TEMPLATE_FILE)
        template_text = gotmpl.decode("utf-8", "replace") if gotmpl is not None else DEFAULT_TEMPLATE
    template = Template(TEMPLATE_FILE)
    template.templates.update(NAMED_TEMPLATES)  # type: ignore[arg-type]
    try:
        template.parse(template_text)
        text = template.execute(data)
    except TemplateError as exc:
        raise ReadmeError(f"{TEMPLATE_FILE}: {exc}") from None
    return markdown_format(text).encode("utf-8")
