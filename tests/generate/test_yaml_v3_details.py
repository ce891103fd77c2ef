"""yaml.v3 details the differential tests found, pinned against the real tools' behaviour.

Each expectation was observed with helm-docs v1.14.2 and helm-values-schema-json v2.5.0 (which read
comments through gopkg.in/yaml.v3's node tree) and is kept here so that a change to the YAML
emulation (e.g. the event parser) shows at once which rule it broke.
"""

from __future__ import annotations

import pytest

from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.golang.yaml_emit import dump_node


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
    assert dump_node(values[0]) == "{x: {}, y: [1, two]} # note\n"
    assert dump_node(values[1]) == "no\n"  # a plain YAML 1.1 boolean stays as written
    assert dump_node(values[2]) == "'no'\n"
    assert dump_node(values[3]) == "plain # c\n"


def _laughs(depth: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, depth + 1)]
    return "\n".join(lines) + "\n"


def test_a_billion_laughs_is_refused_at_once() -> None:
    """Ten lines of anchors expand to 9^10 values: generate's README rows followed every alias
    and ran past 5 GB and a minute (helm-docs too)."""
    for depth in (6, 9):
        with pytest.raises(goyaml.YAMLError, match="document contains excessive aliasing"):
            goyaml.parse(_laughs(depth))
    # what a chart does with aliases (a shared block reused a few times) is fine
    assert goyaml.parse(_laughs(3)) is not None
    shared = "x: &x {" + ", ".join(f"k{i}: {i}" for i in range(50)) + "}\n"
    assert goyaml.parse(shared + "".join(f"y{i}: *x\n" for i in range(300))) is not None


@pytest.mark.parametrize("text", ["a: &a\n  b: *a\n", "a: &a [*a]\n", "a: &a {b: [1, *a]}\n"])
def test_an_anchor_that_contains_itself_is_an_error(text: str) -> None:
    """yaml.v3's error; generate recursed until Python's RecursionError, a traceback."""
    with pytest.raises(goyaml.YAMLError, match="anchor 'a' value contains itself"):
        goyaml.parse(text)
    assert goyaml.parse("a: &a [1]\nb: *a\nc: [*a, *a]\n") is not None  # an alias after its anchor ends


@pytest.mark.parametrize("text", ["a: " + "[" * 5000 + "]" * 5000, "".join("  " * i + f"k{i}:\n" for i in range(3000))])
def test_nesting_past_the_limit_is_an_error(text: str) -> None:
    """5000 nested flow lists or 3000 nested maps: a RecursionError traceback."""
    with pytest.raises(goyaml.YAMLError, match="exceeded max depth of 200"):
        goyaml.parse(text)
    assert goyaml.parse("".join("  " * i + f"k{i}:\n" for i in range(190)) + "  " * 190 + "v\n") is not None
