"""helm-docs v1.14.2 behaviours of gsvendor.readme, each with the exact expected text."""

from __future__ import annotations

from textwrap import dedent

import pytest

from gsvendor.generate.readme.chart import ReadmeError
from gsvendor.generate.readme.template import render_readme

CHART = b"apiVersion: v2\nname: demo\nversion: 0.1.0\ndescription: A demo chart\n"
HEAD = "| Key | Type | Default | Description |\n|-----|------|---------|-------------|\n"


def readme(values: str, template: str, chart: bytes = CHART, **files: bytes) -> str:
    chart_files = {"Chart.yaml": chart, "values.yaml": dedent(values).encode(), "README.md.gotmpl": template.encode()}
    chart_files.update(files)
    out = render_readme(chart_files)
    assert out is not None
    return out.decode()


def table(values: str) -> str:
    return readme(values, '{{ template "chart.valuesTable" . }}\n')


def test_types_defaults_and_key_order() -> None:
    values = """\
        image:
          repository: nginx
          tag: "1.0"
        replicas: 2
        ratio: 0.5
        enabled: true
        nothing:
        emptyList: []
        emptyMap: {}
        list:
          - a
          - b
        "dotted.key": x
        "spaced key": y
        domain: "{{ .Name }}.<b>&"
        """
    assert table(values) == HEAD + (
        '| "dotted.key" | string | `"x"` |  |\n'
        '| "spaced key" | string | `"y"` |  |\n'
        '| domain | string | `"{{ .Name }}.<b>&"` |  |\n'
        "| emptyList | list | `[]` |  |\n"
        "| emptyMap | object | `{}` |  |\n"
        "| enabled | bool | `true` |  |\n"
        '| image.repository | string | `"nginx"` |  |\n'
        '| image.tag | string | `"1.0"` |  |\n'
        '| list[0] | string | `"a"` |  |\n'
        '| list[1] | string | `"b"` |  |\n'
        "| nothing | string | `nil` |  |\n"
        "| ratio | float | `0.5` |  |\n"
        "| replicas | int | `2` |  |\n"
    )


def test_description_type_and_default_from_dash_comments() -> None:
    values = """\
        # -- The image to run
        image: nginx
        # -- (int) Replica count
        # @default -- two
        replicas: 2
        # -- (string) Optional name
        name:
        """
    assert table(values) == HEAD + (
        '| image | string | `"nginx"` | The image to run |\n'
        "| name | string | `nil` | Optional name |\n"
        "| replicas | int | two | Replica count |\n"
    )


def test_described_object_is_one_row_and_hides_undescribed_children() -> None:
    values = """\
        # -- Config
        # spanning lines
        config:
          a: 1
          # -- documented child
          b: 2
        """
    assert table(values) == HEAD + (
        '| config | object | `{"a":1,"b":2}` | Config spanning lines |\n| config.b | int | `2` | documented child |\n'
    )


def test_old_style_key_comments_anywhere() -> None:
    values = """\
        config:
          a: 1
        # config.a -- set elsewhere
        other: x
        """
    assert table(values) == HEAD + ('| config.a | int | `1` | set elsewhere |\n| other | string | `"x"` |  |\n')


def test_raw_keeps_line_breaks() -> None:
    values = """\
        # -- first line
        # @raw
        # - item one
        # - item two
        text: x
        """
    assert table(values) == HEAD + '| text | string | `"x"` | first line\n- item one\n- item two |\n'


def test_ignore_drops_a_key_and_its_children() -> None:
    values = """\
        keep: 1
        # @ignore
        drop:
          nested: 2
        """
    assert table(values) == HEAD + "| keep | int | `1` |  |\n"


def test_aliases_are_followed() -> None:
    values = """\
        base: &b
          x: 1
        copy: *b
        """
    assert table(values) == HEAD + "| base.x | int | `1` |  |\n| copy.x | int | `1` |  |\n"


def test_sections_in_order_of_first_sorted_row_then_other_values() -> None:
    values = """\
        # -- Port
        # @section -- Networking
        port: 80
        # -- Image
        # @section -- Workload
        image: nginx
        plain: 1
        """
    out = readme(values, '{{ template "chart.valuesSection" . }}\n')
    assert out == (
        "## Values\n\n### Workload\n\n"
        + HEAD
        + '| image | string | `"nginx"` | Image |\n\n### Networking\n\n'
        + HEAD
        + "| port | int | `80` | Port |\n\n### Other Values\n\n"
        + HEAD
        + "| plain | int | `1` |  |\n"
    )


def test_chart_metadata_templates() -> None:
    chart = dedent(
        """\
        apiVersion: v2
        name: demo
        version: 1.2.3-beta.1
        appVersion: "2.0"
        type: application
        kubeVersion: ">=1.25.0"
        deprecated: true
        home: https://example.com
        sources:
          - https://github.com/example/demo
        maintainers:
          - name: Jane
            email: jane@example.com
          - name: Bot
            url: https://bot.example.com
        dependencies:
          - name: redis
            version: 17.0.0
            repository: https://charts.bitnami.com/bitnami
          - name: common
            alias: lib
            version: 2.x.x
            repository: oci://registry.example.com/charts
        """
    ).encode()
    template = (
        '{{ template "chart.header" . }}\n{{ template "chart.deprecationWarning" . }}\n'
        '{{ template "chart.badgesSection" . }}\n{{ template "chart.homepageLine" . }}\n'
        '{{ template "chart.maintainersSection" . }}\n{{ template "chart.sourcesSection" . }}\n'
        '{{ template "chart.requirementsSection" . }}\n'
        '{{ template "chart.version" . }} {{ template "chart.appVersion" . }} {{ template "chart.kubeVersion" . }}\n'
    )
    assert readme("{}\n", template, chart) == (
        "# demo\n\n"
        "> **:exclamation: This Helm Chart is deprecated!**\n"
        "![Version: 1.2.3-beta.1](https://img.shields.io/badge/Version-1.2.3--beta.1-informational?style=flat-square) "
        "![Type: application](https://img.shields.io/badge/Type-application-informational?style=flat-square) "
        "![AppVersion: 2.0](https://img.shields.io/badge/AppVersion-2.0-informational?style=flat-square)\n"
        "**Homepage:** <https://example.com>\n"
        "## Maintainers\n\n| Name | Email | Url |\n| ---- | ------ | --- |\n"
        "| Jane | <jane@example.com> |  |\n| Bot |  | <https://bot.example.com> |\n"
        "## Source Code\n\n* <https://github.com/example/demo>\n"
        "## Requirements\n\nKubernetes: `>=1.25.0`\n\n"
        "| Repository | Name | Version |\n|------------|------|---------|\n"
        "| https://charts.bitnami.com/bitnami | redis | 17.0.0 |\n"
        "| oci://registry.example.com/charts | lib(common) | 2.x.x |\n"
        "1.2.3-beta.1 2.0 >=1.25.0\n"
    )


def test_numbers_in_chart_yaml_keep_their_text() -> None:
    chart = b"apiVersion: v2\nname: demo\nversion: 1.10\nappVersion: 0x10\n"
    assert readme("{}\n", '{{ template "chart.version" . }}/{{ .AppVersion }}\n', chart) == "1.10/0x10\n"


def test_default_layout_without_gotmpl() -> None:
    files = {"Chart.yaml": CHART, "values.yaml": b"# -- Replicas\nreplicas: 1\n"}
    out = render_readme(files)
    assert out == (
        b"# demo\n\n"
        b"![Version: 0.1.0](https://img.shields.io/badge/Version-0.1.0-informational?style=flat-square)\n\n"
        b"A demo chart\n\n"
        b"## Values\n\n" + HEAD.encode() + b"| replicas | int | `1` | Replicas |\n\n"
        b"----------------------------------------------\n"
        b"Autogenerated from chart metadata using [helm-docs v1.14.2](https://github.com/norwoodj/helm-docs/releases/v1.14.2)\n"
    )


def test_gotmpl_can_redefine_a_named_template() -> None:
    template = '{{ define "chart.valuesHeader" }}## Settings{{ end }}{{ template "chart.valuesSection" . }}\n'
    assert readme("a: 1\n", template) == "## Settings\n\n" + HEAD + "| a | int | `1` |  |\n"


def test_markdown_clean_up_drops_space_before_newline_and_collapses_blank_lines() -> None:
    assert readme("{}\n", "a \n\n\n\nb\n") == "a\n\nb\n"


def test_chart_without_values_yaml_is_skipped_like_helm_docs() -> None:
    assert render_readme({"Chart.yaml": CHART, "README.md.gotmpl": b"x"}) is None


@pytest.mark.parametrize(
    ("values", "template", "message"),
    [
        (
            "a: 1\n",
            '{{ template "nope" . }}',
            'README.md.gotmpl: template: README.md.gotmpl:1: no such template "nope"',
        ),
        ("a: 1\n", "{{ if .Name }}", "README.md.gotmpl: template: README.md.gotmpl:1: unexpected EOF"),
        ("a: 1\n", "{{ bogus . }}", 'README.md.gotmpl: template: README.md.gotmpl:1: function "bogus" not defined'),
        ("- a\n", "x", "values.yaml: values file must resolve to a map (was a sequence)"),
        ("a: [\n", "x", "values.yaml: invalid YAML: line 2: "),
    ],
)
def test_errors_name_the_file_and_line(values: str, template: str, message: str) -> None:
    with pytest.raises(ReadmeError) as caught:
        readme(values, template)
    assert str(caught.value).startswith(message)
