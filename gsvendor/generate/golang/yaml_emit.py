"""YAML text of a yaml.v3 node tree as ``yaml.Marshal(node)`` writes it (helm-docs'
``@notationType -- yaml`` defaults): 4-space indentation, no line wrapping, each node's style,
anchor and line comment kept.

Block scalars follow libyaml's emitter as yaml.v3 ports it: the header carries an indentation
hint when the text starts with a blank or a line break and a chomping indicator from how the
text ends (``-`` no final line break, ``+`` several); folded text is written line by line, and
every line break after text is doubled unless the text's first line (yaml.v3 looks at index 0,
not at the break) starts blank, so a folded scalar ending in a line break leaves an empty line.
Comments other than a key's or a scalar's line comment, and the rest of libyaml's scalar
analysis, are simplified (:mod:`gsvendor.generate.golang.yaml_v3`'s quoting).
"""

from __future__ import annotations

from gsvendor.generate.golang.yaml_v3 import (
    ALIAS,
    DOCUMENT,
    MAPPING,
    SCALAR,
    SEQUENCE,
    STR_TAG,
    Node,
    _double_quoted,
    _string_scalar,
    resolve,
)

INDENT = 4
_BREAKS = "\n"
_BLANKS = " \t"


def dump_node(node: Node, indent: int = 0) -> str:
    """``yaml.Marshal`` of ``node`` (a document's root, or any node) as text ending in a line break."""
    if node.kind == DOCUMENT:
        return dump_node(node.content[0], indent) if node.content else ""
    text = _block(node, indent, " " * indent) if _block_collection(node) else _inline(node, _nested(indent, False))
    return text if text.endswith("\n") else text + "\n"


def _anchor(node: Node) -> str:
    return f"&{node.anchor}" if node.anchor and node.kind != ALIAS else ""


def _comment(text: str) -> str:
    return " " + text if text else ""


def _nested(indent: int, in_sequence: bool) -> int:
    """The indentation of a collection or block scalar nested at ``indent``: yaml.v3 skips the
    ``- `` of a sequence item (+2) and aligns everything else to the next multiple of 4."""
    return indent + 2 if in_sequence else INDENT * ((indent + INDENT) // INDENT)


def _block_collection(node: Node) -> bool:
    return node.kind in (MAPPING, SEQUENCE) and bool(node.content) and node.style != "flow"


def _block(node: Node, indent: int, pad: str) -> str:
    """``node`` with its lines at column ``indent``; the first line starts with ``pad`` (the
    caller's ``- `` puts it in place: ``""``)."""
    if _block_collection(node) and node.kind == MAPPING:
        out = []
        for index, (key, value) in enumerate(node.pairs()):
            lead = pad if index == 0 else " " * indent
            head = (_scalar(key, indent) if key.kind == SCALAR else _flow(key)) + ":"
            inline = not _block_collection(value) and value.style not in ("literal", "folded")
            if key.line_comment and _empty_null(value):
                out.append(lead + head + _comment(key.line_comment) + "\n")
            elif key.line_comment and inline and not value.line_comment:
                # a key's line comment ends the line, after an inline value
                text = _after_indicator(value, indent, in_sequence=False)
                out.append(lead + head + text[:-1] + _comment(key.line_comment) + "\n")
            else:
                out.append(lead + head + _comment(key.line_comment) + _after_indicator(value, indent, False))
        return "".join(out)
    if _block_collection(node):
        out = []
        for index, item in enumerate(node.content):
            lead = pad if index == 0 else " " * indent
            if _block_collection(item) and not item.anchor:
                out.append(lead + "- " + _block(item, _nested(indent, True), ""))
            else:
                out.append(lead + "-" + _after_indicator(item, indent, in_sequence=True))
        return "".join(out)
    return pad + _inline(node, _nested(indent, False)) + ""


def _empty_null(node: Node) -> bool:
    return node.kind == SCALAR and not node.value and not node.style and not node.anchor and not node.line_comment


def _after_indicator(node: Node, indent: int, in_sequence: bool) -> str:
    """What follows ``key:`` or ``-`` of a collection at ``indent``: a space and an inline
    value, or a nested block on the next lines."""
    nested = _nested(indent, in_sequence)
    if _block_collection(node):
        anchor = _anchor(node)
        return (" " + anchor if anchor else "") + "\n" + _block(node, nested, " " * nested)
    if _empty_null(node):
        return "\n"
    return " " + _inline(node, nested)


def _inline(node: Node, indent: int) -> str:
    """A scalar, alias or flow collection (and its line comment) from the current column; a
    block scalar's lines are indented at ``indent``. Ends with a line break."""
    if node.kind == ALIAS:
        return "*" + node.value + _comment(node.line_comment) + "\n"
    if node.kind in (MAPPING, SEQUENCE):
        return _flow(node) + _comment(node.line_comment) + "\n"
    anchor = _anchor(node)
    prefix = anchor + " " if anchor else ""
    if node.style in ("literal", "folded"):
        return prefix + _block_scalar(node, indent)
    return prefix + _scalar(node, indent) + _comment(node.line_comment) + "\n"


def _flow(node: Node) -> str:
    """A flow collection on one line, as yaml.v3 writes a short one: ``{a: 1, b: [x, y]}``."""
    anchor = _anchor(node)
    prefix = anchor + " " if anchor else ""
    if node.kind == MAPPING:
        return prefix + "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in node.pairs()) + "}"
    if node.kind == SEQUENCE:
        return prefix + "[" + ", ".join(_flow(item) for item in node.content) + "]"
    if node.kind == ALIAS:
        return "*" + node.value
    return prefix + _scalar(node, 0)


def _scalar(node: Node, indent: int) -> str:
    if node.style == "double":
        return _double_quoted(node.value)
    if node.style == "single":
        return "'" + node.value.replace("'", "''") + "'"
    if not node.style and node.tag == STR_TAG and "\n" not in node.value and resolve(node.value)[0] == STR_TAG:
        # a plain string read from YAML stays plain: yaml.v3 quotes a node's value only when
        # its plain form would resolve to another tag (not for YAML 1.1 booleans such as "no")
        return node.value
    if node.style in ("literal", "folded") or node.tag == STR_TAG:
        return _string_scalar(node.value, indent - INDENT)
    return node.value


def _block_scalar(node: Node, indent: int) -> str:
    """A literal or folded scalar: header (indentation hint, chomping), line comment, lines."""
    value = node.value
    header = "|" if node.style == "literal" else ">"
    if value and (value[0] in _BLANKS or value[0] in _BREAKS):
        header += str(INDENT)
    if not value or value[-1] not in _BREAKS:
        header += "-"
    elif len(value) == 1 or value[-2] in _BREAKS:
        header += "+"
    out = [header, _comment(node.line_comment), "\n"]
    pad = " " * indent
    breaks, leading_blank = True, True
    for char in value:
        if char in _BREAKS:
            if node.style == "folded" and not breaks and not leading_blank:
                first = 0
                while first < len(value) and value[first] in _BREAKS:
                    first += 1
                if first < len(value) and value[first] not in _BLANKS:
                    out.append("\n")
            out.append("\n")
            breaks = True
            continue
        if breaks:
            out.append(pad)
            leading_blank = char in _BLANKS
        out.append(char)
        breaks = False
    text = "".join(out)
    return text if text.endswith("\n") else text + "\n"
