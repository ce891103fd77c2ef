"""yamledit: set, merge and delete keys so that only their lines change."""

from __future__ import annotations

import pytest

from gsvendor.overlays import yamledit

CHART = """apiVersion: v2
name: demo
version: v0.20.0
description: Helm chart  # a comment stays
type: application\x20
keywords:
  - kserve
icon: https://example.com/logo.png
annotations:
  category: AI/Machine Learning
"""


def test_set_existing_scalars_changes_only_their_lines() -> None:
    out = yamledit.set_value(CHART, "/version", "[[ .Version ]]")
    out = yamledit.set_value(out, "/description", "Other")
    assert out == CHART.replace("version: v0.20.0", 'version: "[[ .Version ]]"').replace(
        "description: Helm chart  #", "description: Other  #"
    )


def test_insert_key_into_nested_mapping_with_slash_in_key() -> None:
    out = yamledit.set_value(CHART, "/annotations/application.giantswarm.io~1team", "bumblebee")
    assert out == CHART + "  application.giantswarm.io/team: bumblebee\n"


def test_insert_before_trailing_comment_lines_and_following_keys() -> None:
    text = "a:\n  b: 1\n# about z\nz: 2\n"
    assert yamledit.set_value(text, "/a/c", "x") == "a:\n  b: 1\n  c: x\n# about z\nz: 2\n"


def test_missing_parents_are_created() -> None:
    assert yamledit.set_value("a: 1\n", "/crd/keep", True) == "a: 1\ncrd:\n  keep: true\n"
    assert yamledit.set_value("", "/crd/keep", True) == "crd:\n  keep: true\n"
    assert yamledit.set_value("a:\nz: 2\n", "/a/q", "x y") == "a:\n  q: x y\nz: 2\n"


def test_empty_flow_mapping_is_filled() -> None:
    assert yamledit.set_value("{}\n", "/crd/keep", True) == "crd:\n  keep: true\n"
    assert yamledit.set_value("a: {}\nb: 1\n", "/a/c", 1) == "a:\n  c: 1\nb: 1\n"


def test_quoting_keeps_upstream_style_and_quotes_when_needed() -> None:
    assert yamledit.set_value("a: 'x'\n", "/a", "y") == "a: 'y'\n"
    assert yamledit.set_value('a: "x"\n', "/a", "y") == 'a: "y"\n'
    assert yamledit.set_value("a: x\n", "/a", "true") == 'a: "true"\n'
    assert yamledit.set_value("a: x\n", "/a", "{{ .Values }}") == 'a: "{{ .Values }}"\n'
    assert yamledit.set_value("a: x\n", "/a", "") == 'a: ""\n'
    assert yamledit.set_value("a: x\n", "/a", None) == "a: null\n"


def test_replace_block_value_with_list_and_mapping() -> None:
    text = "a:\n  - 1\n  - 2\n# c\nz: 2\n"
    assert yamledit.set_value(text, "/a", ["q"]) == "a:\n  - q\n# c\nz: 2\n"
    assert yamledit.set_value(text, "/a", {"k": "v"}) == "a:\n  k: v\n# c\nz: 2\n"


def test_merge_sets_leaves_and_keeps_comments() -> None:
    text = "a:\n  b: 1 # keep\n  c: [1]\nz: 2\n"
    out = yamledit.merge(text, "/a", {"b": 2, "d": {"e": "f"}})
    assert out == "a:\n  b: 2 # keep\n  c: [1]\n  d:\n    e: f\nz: 2\n"


def test_delete_removes_key_and_value_lines() -> None:
    assert yamledit.delete("a:\n  b: 1\n  c: [1]\nz: 2\n", "/a/b") == "a:\n  c: [1]\nz: 2\n"
    assert yamledit.delete("a:\n  b:\n    - 1\n# x\nz: 2\n", "/a") == "# x\nz: 2\n"
    with pytest.raises(yamledit.YamlEditError, match="no such key"):
        yamledit.delete("a: 1\n", "/b")


def test_errors() -> None:
    with pytest.raises(yamledit.YamlEditError, match="not a mapping"):
        yamledit.set_value("a: [1]\n", "/a/b", 1)
    with pytest.raises(yamledit.YamlEditError, match="JSON Pointer"):
        yamledit.set_value("a: 1\n", "a", 1)
    with pytest.raises(yamledit.YamlEditError, match="not valid YAML"):
        yamledit.set_value("a: [\n", "/a", 1)
    with pytest.raises(yamledit.YamlEditError, match="flow mapping"):
        yamledit.set_value("a: {b: 1}\n", "/a/c", 1)


def test_pointer_escapes() -> None:
    assert yamledit.parse_pointer("/a~1b/c~0d") == ["a/b", "c~d"]
    assert yamledit.parse_pointer("") == []


@pytest.mark.parametrize("text", ["a\x85b", "a\u2028b", "x\u2029", "it's\x85"])
@pytest.mark.parametrize("style", [None, "'", '"'])
def test_a_value_with_a_yaml_line_break_other_than_newline_is_escaped(text: str, style: str | None) -> None:
    """NEL, LS and PS are line breaks to YAML: written raw, a quoted value read back folded them into a space."""
    from ruamel.yaml import YAML

    rendered = yamledit.render_scalar(text, style)
    assert rendered.startswith('"') and not any(char in rendered for char in "\x85\u2028\u2029")
    assert YAML(typ="safe").load(f"k: {rendered}\n")["k"] == text
