"""helm-docs v1.14.2's templates: the default README template and its named templates, rendered."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gsvendor.config import GenerateSettings
from gsvendor.generate.golang.text_template.exec import Template
from gsvendor.generate.golang.text_template.funcs import BUILTINS
from gsvendor.generate.golang.text_template.parse import TemplateError
from gsvendor.generate.golang.text_template.values import go_print, is_true
from gsvendor.generate.readme.chart import TEMPLATE_FILE, VALUES_FILE, ReadmeError
from gsvendor.generate.readme.values import chart_data

# a named template's renderer: (name, data) → text
Render = Callable[[str, Any], str]


def _badge(label: str, value: str, style: str, escape: bool = True) -> str:
    escaped = value.replace("-", "--") if escape else value  # the type badge is not escaped
    return f"![{label}: {value}](https://img.shields.io/badge/{label}-{escaped}-informational?style={style}) "


def _default(row: Any) -> str:
    return go_print(row.Default if is_true(row.Default) else row.AutoDefault)


def _description(row: Any) -> str:
    return go_print(row.Description if is_true(row.Description) else row.AutoDescription)


def _row_line(row: Any) -> str:
    return f"\n| {go_print(row.Key)} | {go_print(row.Type)} | {_default(row)} | {_description(row)} |"


_TABLE_HEAD = "| Key | Type | Default | Description |\n|-----|------|---------|-------------|"
_DEPRECATED = "> **:exclamation: This Helm Chart is deprecated!**"


def _values_table(d: Any, render: Render) -> str:
    sections = d.Sections
    if is_true(sections.Sections):
        default = [sections.DefaultSection] if is_true(sections.DefaultSection.SectionItems) else []
        return "".join(
            f"\n\n### {go_print(section.SectionName)}\n\n" + _TABLE_HEAD + "".join(map(_row_line, section.SectionItems))
            for section in [*sections.Sections, *default]
        )
    return _TABLE_HEAD + "".join(_row_line(row) for row in d.Values)


def _requirements_section(d: Any, render: Render) -> str:
    if not (is_true(d.Dependencies) or is_true(d.KubeVersion)):
        return ""
    out = render("chart.requirementsHeader", d) + "\n\n"
    if is_true(d.KubeVersion):
        out += render("chart.kubeVersionLine", d) + "\n\n"
    return out + (render("chart.requirementsTable", d) if is_true(d.Dependencies) else "")


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
    text = go_print(row.AutoDefault if is_true(row.AutoDefault) else row.Default)
    notation = row.NotationType
    if text.startswith("`") and text.endswith("`"):
        text = BUILTINS["toPrettyJson"](BUILTINS["fromJson"](text.strip("`")))
        notation = "json"
    body = f"\n{go_print(row.Key)}: |" + BUILTINS["nindent"](2, text) if notation == "tpl" else "\n" + text
    return f'<pre lang="{go_print(notation)}">{body}\n</pre>\n'


_HTML_HEAD = (
    "<table>\n\t<thead>\n\t\t<th>Key</th>\n\t\t<th>Type</th>\n\t\t<th>Default</th>\n\t\t<th>Description</th>"
    "\n\t</thead>\n\t<tbody>"
)


def _html_table(rows: list[Any], render: Render, pad: str) -> str:
    body = "".join(
        f"\n{pad}<tr>\n{pad}\t<td>{go_print(row.Key)}</td>\n{pad}\t<td>{go_print(row.Type)}</td>"
        f"\n{pad}\t<td>{render('chart.valueDefaultColumnRender', row)}</td>"
        f"\n{pad}\t<td>{_description(row)}</td>\n{pad}</tr>"
        for row in rows
    )
    return _HTML_HEAD + body + "\n\t</tbody>\n</table>"


def _values_table_html(d: Any, render: Render) -> str:
    sections = d.Sections
    if not is_true(sections.Sections):
        return "\n\n" + _html_table(d.Values, render, "\t\t") + "\n\n"
    body = "".join(
        f"\n<h3>{go_print(one.SectionName)}</h3>\n" + _html_table(one.SectionItems, render, "\t\t")
        for one in sections.Sections
    )
    default = sections.DefaultSection
    if is_true(default.SectionItems):  # its rows one tab less indented, as helm-docs writes them
        body += f"\n\n<h3>{go_print(default.SectionName)}</h3>\n" + _html_table(default.SectionItems, render, "\t")
    return "\n" + body + "\n\n\n"


def _if(attr: str, body: Callable[[Any, Render], str]) -> Callable[[Any, Render], str]:
    """``body`` where the field ``attr`` of the data is true (Go's truth), else nothing."""
    return lambda d, render: body(d, render) if is_true(getattr(d, attr)) else ""


def _section(attr: str, header: str, sep: str, body: str) -> Callable[[Any, Render], str]:
    """Where ``attr`` is true: the templates ``chart.<header>`` and ``chart.<body>`` joined by ``sep``."""
    return _if(attr, lambda d, r: r(f"chart.{header}", d) + sep + r(f"chart.{body}", d))


def _named_templates(style: str) -> dict[str, Callable[[Any, Render], str]]:
    """helm-docs' named templates, the badges in its ``--badge-style`` ``style``."""
    return {
        "chart.name": lambda d, r: go_print(d.Name),
        "chart.header": lambda d, r: f"# {go_print(d.Name)}\n",
        "chart.deprecationWarning": _if("Deprecated", lambda d, r: _DEPRECATED),
        "chart.version": lambda d, r: go_print(d.Version),
        "chart.type": lambda d, r: go_print(d.Type),
        "chart.appVersion": lambda d, r: go_print(d.AppVersion),
        "chart.badgesSection": lambda d, r: "".join(r(f"chart.{b}Badge", d) for b in ("version", "type", "appVersion")),
        "chart.description": _if("Description", lambda d, r: go_print(d.Description)),
        "chart.homepage": lambda d, r: go_print(d.Home),
        "chart.homepageLine": _if("Home", lambda d, r: f"**Homepage:** <{go_print(d.Home)}>"),
        "chart.maintainersHeader": lambda d, r: "## Maintainers",
        "chart.maintainersTable": _maintainers_table,
        "chart.maintainersSection": _section("Maintainers", "maintainersHeader", "\n\n", "maintainersTable"),
        "chart.sourcesHeader": lambda d, r: "## Source Code",
        "chart.sourcesList": lambda d, r: "".join(f"\n* <{go_print(s)}>" for s in d.Sources),
        "chart.sourcesSection": _section("Sources", "sourcesHeader", "\n", "sourcesList"),
        "chart.requirementsHeader": lambda d, r: "## Requirements",
        "chart.kubeVersion": lambda d, r: go_print(d.KubeVersion),
        "chart.kubeVersionLine": _if("KubeVersion", lambda d, r: f"Kubernetes: `{go_print(d.KubeVersion)}`"),
        "chart.requirementsTable": _requirements_table,
        "chart.requirementsSection": _requirements_section,
        "chart.valuesHeader": lambda d, r: "## Values",
        "chart.valuesTable": _values_table,
        "chart.valuesTableMd": lambda d, r: r("chart.valuesTable", d),
        "chart.valuesSection": _section("Values", "valuesHeader", "\n\n", "valuesTableMd"),
        "chart.valuesSectionMd": lambda d, r: r("chart.valuesSection", d),
        "chart.valueDefaultColumnRender": _html_default,
        "chart.valueDefaultColumnRenderHtml": lambda d, r: r("chart.valueDefaultColumnRender", d),
        "chart.valuesTableHtml": _values_table_html,
        "chart.valuesSectionHtml": lambda d, r: (
            "\n\n" + r("chart.valuesHeader", d) + "\n" + r("chart.valuesTableHtml", d) + "\n\n"
            if is_true(d.Sections)
            else "\n\n"
        ),
        # v1.15 names for the table cells (helm-docs v1.14.2's tables do not go through them)
        "chart.valueKeyColumnRenderMd": lambda d, r: go_print(d.Key),
        "chart.valueTypeColumnRenderMd": lambda d, r: go_print(d.Type),
        "chart.valueDefaultColumnRenderMd": lambda d, r: _default(d),
        "chart.valueDescriptionColumnRenderMd": lambda d, r: _description(d),
        "chart.valueKeyColumnRenderHtml": lambda d, r: r("chart.valueKeyColumnRenderMd", d),
        "chart.valueTypeColumnRenderHtml": lambda d, r: r("chart.valueTypeColumnRenderMd", d),
        "chart.valueDescriptionColumnRenderHtml": lambda d, r: r("chart.valueDescriptionColumnRenderMd", d),
        "helm-docs.version": _if("HelmDocsVersion", lambda d, r: go_print(d.HelmDocsVersion)),
        "helm-docs.versionFooter": _if(
            "HelmDocsVersion",
            lambda d, r: (
                "\n" + "-" * 46 + "\nAutogenerated from chart metadata using "
                f"[helm-docs v{go_print(d.HelmDocsVersion)}](https://github.com/norwoodj/helm-docs/releases/"
                f"v{go_print(d.HelmDocsVersion)})"
            ),
        ),
        "chart.versionBadge": lambda d, r: _badge("Version", go_print(d.Version), style),
        "chart.typeBadge": _if("Type", lambda d, r: _badge("Type", go_print(d.Type), style, False)),
        "chart.appVersionBadge": _if("AppVersion", lambda d, r: _badge("AppVersion", go_print(d.AppVersion), style)),
    }


# helm-docs' layout when a chart has no README.md.gotmpl: these sections a blank line apart, then the footer
_DEFAULT_SECTIONS = "badgesSection description homepageLine maintainersSection sourcesSection requirementsSection"
_DEFAULT_SECTIONS += " valuesSection"

DEFAULT_TEMPLATE = (
    '{{ template "chart.header" . }}\n{{ template "chart.deprecationWarning" . }}\n\n'
    + "\n\n".join(f'{{{{ template "chart.{name}" . }}}}' for name in _DEFAULT_SECTIONS.split())
    + '\n\n{{- if not .SkipVersionFooter }}\n{{ template "helm-docs.versionFooter" . }}\n{{- end }}\n'
)


def render_readme(
    files: dict[str, bytes],
    template_text: str | None = None,
    chart_dir: str = ".",
    parsed: dict[bytes, Any] | None = None,
    settings: GenerateSettings | None = None,
) -> bytes | None:
    """README.md for a chart (``files``: chart-relative path → bytes) as helm-docs v1.14.2 generates it
    with the flags of ``settings`` and ``template_text`` (else the ``--template-files``, the default
    where one is missing); ``None`` without values.yaml. ``chart_dir``: the chart folder as helm-docs
    names it; ``parsed``: as :func:`~gsvendor.generate.readme.values.value_rows`. Raises
    :class:`ReadmeError` for invalid Chart.yaml or values.yaml and template errors (with the line)."""
    if VALUES_FILE not in files:
        return None
    settings = settings or GenerateSettings()
    data = chart_data(files, chart_dir, parsed, settings)
    data.SkipVersionFooter = settings.skip_version_footer
    if template_text is None:
        texts = [files[name].decode("utf-8", "replace") for name in settings.template_files if name in files]
        template_text = "".join(texts) + (DEFAULT_TEMPLATE if len(texts) < len(settings.template_files) else "")
    template = Template(TEMPLATE_FILE)
    template.templates.update(_named_templates(settings.badge_style))  # type: ignore[arg-type]
    try:
        # helm-docs parses its own texts before the chart's into one template: a chart template without a
        # body of its own (only blanks, comments, defines) keeps the last one's, a literal backslash-n
        template.parse("\\n")
        template.parse(template_text)
        text = template.execute(data)
    except TemplateError as exc:
        raise ReadmeError(f"{TEMPLATE_FILE}: {exc}") from None
    # helm-docs' applyMarkDownFormat: no space before a newline, at most two newlines in a row
    return re.sub(r"\n{3,}", "\n\n", text.replace(" \n", "\n")).encode("utf-8")
