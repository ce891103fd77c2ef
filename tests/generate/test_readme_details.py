"""helm-docs v1.14.2 details the differential tests found, as the real binary writes them."""

from __future__ import annotations

from gsvendor.generate.readme.template import render_readme

CHART = b"apiVersion: v2\nname: c\nversion: 1.0.0\n"


def test_notation_defaults_of_non_strings_print_as_go_bad_verbs() -> None:
    """``createValueRow`` formats a notation default with ``%s``: Go prints ``%!s(int=7)`` for an int."""
    values = b"# -- desc\n# @notationType -- string\nport: 7\n# -- flag\n# @notationType -- tpl\non: true\n"

    readme = render_readme({"Chart.yaml": CHART, "values.yaml": values}, '{{ template "chart.valuesTable" . }}')

    assert readme == (
        b"| Key | Type | Default | Description |\n|-----|------|---------|-------------|\n"
        b"| on | tpl | %!s(bool=true) | flag |\n| port | string | %!s(int=7) | desc |"
    )


def test_a_template_without_a_body_keeps_helm_docs_last_one() -> None:
    """helm-docs parses its own texts first; the last with a body is a literal backslash-n."""
    files = {"Chart.yaml": CHART, "values.yaml": b"a: 1\n"}

    assert render_readme(files, "{{- /* nothing */ -}}\n") == b"\\n"
    assert render_readme(files, '{{ define "x" }}y{{ end }}') == b"\\n"
