"""yaml.v3 tag resolution and comment placement; Go encoding/json number and string spelling."""

from __future__ import annotations

import pytest

from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang import yaml_v3 as goyaml


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("", "!!null"),
        ("~", "!!null"),
        ("null", "!!null"),
        ("true", "!!bool"),
        ("False", "!!bool"),
        ("yes", "!!str"),  # YAML 1.2: not a bool
        ("on", "!!str"),
        ("3", "!!int"),
        ("-3", "!!int"),
        ("0x1F", "!!int"),
        ("0o17", "!!int"),
        ("017", "!!int"),
        ("0b101", "!!int"),
        ("1_000", "!!int"),
        ("1.5", "!!float"),
        ("1e3", "!!float"),
        (".5", "!!float"),
        (".inf", "!!float"),
        (".nan", "!!float"),
        ("2024-01-02", "!!timestamp"),
        ("2024-01-02T03:04:05Z", "!!timestamp"),
        ("2024-13-02", "!!str"),
        ("1.2.3", "!!str"),
        ("<<", "!!merge"),
        ("v1", "!!str"),
    ],
)
def test_plain_scalar_tags(text: str, tag: str) -> None:
    assert goyaml.resolve(text)[0] == tag


def test_quoted_and_tagged_scalars() -> None:
    document = goyaml.parse("a: '3'\nb: \"true\"\nc: !!str 3\nd: |\n  x\n")
    assert document is not None
    tags = [value.short_tag() for _, value in document.content[0].pairs()]
    assert tags == ["!!str", "!!str", "!!str", "!!str"]


def comments(text: str) -> list[tuple[str, str, str, str]]:
    document = goyaml.parse(text)
    assert document is not None
    out = []

    def walk(node: goyaml.Node) -> None:
        if node.head_comment or node.line_comment or node.foot_comment:
            out.append((node.value, node.head_comment, node.line_comment, node.foot_comment))
        for child in node.content:
            walk(child)

    walk(document)
    return out


def test_head_line_and_foot_comments() -> None:
    text = (
        "# document head\n\n# head a\nka: va # line a\n# foot a\n\n# head b\nkb:\n  # head c\n  kc: vc\n  # foot c\n"
        "# foot b\n\n# document foot\n"
    )
    assert comments(text) == [
        ("ka", "# head a", "", "# foot a"),
        ("va", "", "# line a", ""),
        ("kb", "# head b", "", "# foot b"),
        ("kc", "# head c", "", "# foot c"),
    ]


def test_line_comment_goes_to_the_key_when_the_value_starts_below() -> None:
    assert comments("a: # on a\n  b: 1\nc: [1, 2] # on the list\nd: |  # on the text\n  x\n") == [
        ("a", "", "# on a", ""),
        ("", "", "# on the list", ""),
        ("x\n", "", "# on the text", ""),
    ]


def test_comment_after_a_dash_heads_the_items_first_key() -> None:
    assert comments("a:\n# item\n- # first\n  b: 1\n") == [("", "# item", "", ""), ("b", "# first", "", "")]


def test_blank_line_separated_head_comment_keeps_a_trailing_newline() -> None:
    assert comments("ka:\n  kb: vb\n\n# head\n\nkc: vc\n") == [("kc", "# head\n", "", "")]


def test_aliases_stay_alias_nodes_and_decode_to_their_target() -> None:
    document = goyaml.parse("a: &x {k: 1}\nb: *x\n<<: *x\n")
    assert document is not None
    pairs = document.content[0].pairs()
    assert pairs[1][1].kind == goyaml.ALIAS
    assert pairs[2][0].short_tag() == "!!merge"
    assert goyaml.decode(document) == {"a": {"k": 1}, "b": {"k": 1}, "k": 1}


def test_invalid_yaml_names_the_line() -> None:
    with pytest.raises(goyaml.YAMLError) as caught:
        goyaml.parse("a: 1\nb: [\n")
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.5, "0.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (12345678901234567890.0, "12345678901234567000"),
        (-0.0, "-0"),
    ],
)
def test_float_spelling(value: float, text: str) -> None:
    assert gojson.format_float(value) == text


def test_string_escapes_with_and_without_html_escaping() -> None:
    value = '<a href="x">&\u2028\t\x01'
    assert gojson.quote(value) == '"\\u003ca href=\\"x\\"\\u003e\\u0026\\u2028\\t\\u0001"'
    assert gojson.quote(value, escape_html=False) == '"<a href=\\"x\\">&\\u2028\\t\\u0001"'


def test_indented_layout_keeps_empty_containers_compact() -> None:
    assert (
        gojson.dumps_indent({"b": [], "a": {}, "c": [1]}, "  ") == '{\n  "a": {},\n  "b": [],\n  "c": [\n    1\n  ]\n}'
    )
