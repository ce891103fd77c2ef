"""yaml.v3 details the differential tests found (issue 20), pinned against the real tools' behaviour.

Each expectation was observed with helm-docs v1.14.2 and helm-values-schema-json v2.5.0 (which read
comments through gopkg.in/yaml.v3's node tree) and is kept here so that a change to the YAML
emulation (e.g. the event parser) shows at once which rule it broke.
"""

from __future__ import annotations

from gsvendor.generate.golang import yaml_v3 as goyaml


def _mapping(text: str) -> goyaml.Node:
    document = goyaml.parse(text.encode())
    assert document is not None
    return document.content[0]


def test_comments_keep_their_trailing_blanks() -> None:
    root = _mapping("# -- first line \n# second\t\nkey: 1  # inline  \n")
    key, value = next(iter(root.pairs()))
    assert key.head_comment == "# -- first line \n# second\t"
    assert value.line_comment == "# inline  "


def test_a_comment_after_an_anchor_goes_to_the_first_entry() -> None:
    """``key: &a  # text`` before a block collection: the line comment of its first key or item."""
    root = _mapping("a: &x  # @schema minimum: 1\n  b:  # own\n    c: 1\nd: &y  # seq\n  - 1\n")
    (a_key, a_value), (d_key, d_value) = list(root.pairs())
    assert a_key.line_comment == "" and d_key.line_comment == ""
    first_key = a_value.content[0]
    assert first_key.value == "b"
    assert first_key.line_comment == "# @schema minimum: 1\n# own"  # the node's own comment appended
    assert d_value.content[0].line_comment == "# seq"


def test_dump_node_keeps_flow_style_line_comments_and_plain_strings() -> None:
    root = _mapping("a: {x: {}, y: [1, two]}  # note\nb: no\nc: 'no'\nd: plain # c\n")
    values = [value for _, value in root.pairs()]
    assert goyaml.dump_node(values[0]) == "{x: {}, y: [1, two]} # note\n"
    assert goyaml.dump_node(values[1]) == "no\n"  # a plain YAML 1.1 boolean stays as written
    assert goyaml.dump_node(values[2]) == "'no'\n"
    assert goyaml.dump_node(values[3]) == "plain # c\n"
