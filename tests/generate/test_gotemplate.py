"""Go text/template semantics (as documented for Go's text/template) of gsvendor.gotemplate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gsvendor.generate.golang.text_template.exec import Template
from gsvendor.generate.golang.text_template.parse import TemplateError


@dataclass
class Item:
    Name: str
    Tags: list[str] = field(default_factory=list)


@dataclass
class Data:
    Name: str = "demo"
    Empty: str = ""
    Items: list[Item] = field(default_factory=list)
    Map: dict[str, Any] = field(default_factory=dict)
    Count: int = 0


def run(text: str, data: Any = None) -> str:
    return Template("t").parse(text).execute(Data() if data is None else data)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{23 -}} < {{- 45}}", "23<45"),  # the trim example of the text/template docs
        ("a {{- /* a comment */ -}} b", "ab"),
        ("a{{/* multi\nline */}}b", "ab"),
        ("{{ .Name }}", "demo"),
        ("{{ if .Empty }}yes{{ else if .Name }}name{{ else }}no{{ end }}", "name"),
        ("{{ with .Name }}[{{ . }}]{{ end }}{{ with .Empty }}x{{ else }}none{{ end }}", "[demo]none"),
        ('{{ $x := "a" }}{{ $x = "b" }}{{ $x }}', "b"),
        ('{{ "x" | printf "%s-%s" "a" }}', "a-x"),
        ('{{ len "abc" }} {{ (len "abcd") }}', "3 4"),
        ('{{ or "" "b" }} {{ and 1 0 }} {{ not .Empty }}', "b 0 true"),
        ("{{ eq 2 1 2 }} {{ ne 1 2 }} {{ lt 1 2 }}", "true true true"),
        ('{{ index .Map "k" }}|{{ .Map.missing }}', "v|<no value>"),
        ("{{ 1e6 }} {{ 0.5 }} {{ 0x10 }}", "1e+06 0.5 16"),
        ('{{ print "a" 1 2 "b" }}', "a1 2b"),
        ('{{ define "x" }}<{{ . }}>{{ end }}{{ template "x" .Name }}', "<demo>"),
        ('{{ block "b" . }}default{{ end }}', "default"),
    ],
)
def test_actions(text: str, expected: str) -> None:
    assert run(text, Data(Map={"k": "v"})) == expected


def test_range_with_index_else_break_and_continue() -> None:
    data = Data(Items=[Item("a", ["x"]), Item("b"), Item("c"), Item("d")])
    text = (
        '{{ range $i, $it := .Items }}{{ if eq $it.Name "b" }}{{ continue }}{{ end }}'
        '{{ if eq $it.Name "d" }}{{ break }}{{ end }}{{ $i }}={{ $it.Name }};{{ end }}'
        "{{ range .Count }}never{{ else }}empty{{ end }}"
    )
    assert run(text, data) == "0=a;2=c;empty"


def test_range_over_map_is_in_key_order() -> None:
    assert run("{{ range $k, $v := .Map }}{{ $k }}{{ $v }}{{ end }}", Data(Map={"b": 2, "a": 1})) == "a1b2"


def test_sprig_functions_helm_docs_uses() -> None:
    text = (
        '{{ .Name | replace "e" "E" }}|{{ default "d" .Empty }}|{{ "x\\ny" | nindent 2 }}|'
        '{{ hasPrefix "de" .Name }}|{{ trimAll "`" "`v`" }}|{{ toJson .Map }}|{{ quote .Name }}|'
        '{{ toPrettyJson (fromJson "{\\"a\\": [1, 2.5]}") }}'
    )
    assert run(text, Data(Map={"z": 1, "a": "<b>"})) == (
        'dEmo|d|\n  x\n  y|true|v|{"a":"\\u003cb\\u003e","z":1}|"demo"|{\n  "a": [\n    1,\n    2.5\n  ]\n}'
    )


def test_later_definitions_replace_earlier_ones_and_blank_bodies_keep_the_main_one() -> None:
    template = Template("t")
    template.parse('{{ define "x" }}one{{ end }}main:{{ template "x" }}')
    template.parse('{{ define "x" }}two{{ end }}\n')
    assert template.execute(None) == "main:two"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{{ .Nope }}", "template: t:1: can't evaluate field Nope in type Data"),
        ("x\n{{ bogus }}", 'template: t:2: function "bogus" not defined'),
        ("{{ $y }}", 'template: t:1: undefined variable "$y"'),
        ("{{ if 1 }}", "template: t:1: unexpected EOF"),
        ("{{ end }}", "template: t:1: unexpected {{end}}"),
        ('{{ template "missing" }}', 'template: t:1: no such template "missing"'),
        ("{{ break }}", "template: t:1: {{break}} outside {{range}}"),
        (
            '{{ define "r" }}{{ template "r" }}{{ end }}{{ template "r" }}',
            "template: r: exceeded maximum template depth (100)",
        ),
    ],
)
def test_errors(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        run(text)
    assert str(caught.value) == message
