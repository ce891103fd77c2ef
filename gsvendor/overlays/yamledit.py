"""Surgical YAML edits: set, merge or delete keys (JSON Pointers, RFC 6901) changing only those lines (a dump
would re-flow the file): the text is spliced at the start/end marks of the composed ruamel.yaml nodes."""

from __future__ import annotations

import contextlib
import functools
import json
import re
from typing import Any

from gsvendor.yamlio import UPSTREAM, check_text, constructing, libyaml_differs, load_plain

_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")
_YAML11_SPECIAL = {"y", "yes", "n", "no", "on", "off", "true", "false", "null", "~"}
# YAML 1.1 ints and floats (binary, octal, hex, sexagesimal, underscores) that 1.2 reads as strings
_YAML11_NUMBER = re.compile(
    r"[-+]?(0b[01_]+|0[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|[0-9_]+|([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?|\.(inf|Inf|INF|nan|NaN|NAN))"
)


DOCUMENT = "the document"  # the label of a text over its limits, replaced by the file's name by the caller


class YamlEditError(Exception):
    """An edit cannot be made: the document is not YAML, or a pointer crosses a non-mapping."""


def parse_pointer(pointer: str) -> list[str]:
    """Split a JSON Pointer (RFC 6901) into unescaped keys (``""``: the whole document); raises
    :class:`YamlEditError` when it does not start with ``/`` or holds a ``~`` but as ``~0`` or ``~1``."""
    if pointer == "":
        return []
    if not pointer.startswith("/") or re.search("~(?![01])", pointer):
        raise YamlEditError(f"{pointer!r} is not a JSON Pointer (it starts with '/', and '~' is written ~0)")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def escape_key(key: str) -> str:
    """``key`` as one JSON Pointer segment (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return key.replace("~", "~0").replace("/", "~1")


def _compose(text: str) -> Any:
    """The node tree of ``text`` with character marks: libyaml's where they equal ruamel's, else ruamel's."""
    check_text(text, DOCUMENT, UPSTREAM)
    if text.endswith("\n") and not libyaml_differs(text):
        with contextlib.suppress(Exception):  # else the pure-Python composer decides, and words the error
            from ruamel.yaml.cyaml import CSafeLoader

            loader = CSafeLoader(text)
            try:
                root = loader.get_single_node()
            finally:
                loader.dispose()
            # a root block scalar: YAML 1.2 and libyaml read its end differently, ruamel decides
            if not _has_empty_scalar(root) and not (_is_scalar(root) and root.style in ("|", ">")):
                return root
    return compose_pure(text)


def _has_empty_scalar(root: Any) -> bool:
    """Whether the tree holds an empty plain scalar (``key:``), which ruamel marks at the next token."""
    stack = [root] if root is not None else []
    seen: set[int] = set()  # an aliased node is looked at once, however often it is referred to
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if _is_scalar(node):
            if not node.value and not node.style:
                return True
        else:
            stack += [item for pair in node.value for item in pair] if _is_mapping(node) else node.value
    return False


def compose_pure(text: str) -> Any:
    """``text`` composed by ruamel's pure-Python round-trip composer; :class:`YamlEditError` when invalid."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        with constructing():  # ruamel's own slips on odd text, as every YAML reader words them
            return YAML(typ="rt", pure=True).compose(text)
    except YAMLError as exc:
        raise YamlEditError(f"not valid YAML: {' '.join(str(exc).split())}") from None


def _is_mapping(node: Any) -> bool:
    return type(node).__name__ == "MappingNode"


def _is_scalar(node: Any) -> bool:
    return type(node).__name__ == "ScalarNode"


def _find(mapping: Any, key: str) -> tuple[Any, Any] | None:
    return next(((k, v) for k, v in mapping.value if _is_scalar(k) and k.value == key), None)


def _content_end(text: str, node: Any) -> int:
    """Where ``node``'s last leaf's line ends (a block collection's end mark runs on over comments)."""
    leaf = node
    while not _is_scalar(leaf) and leaf.value and leaf.flow_style is not True:
        last = leaf.value[-1]
        leaf = last[1] if isinstance(last, tuple) else last
    end = leaf.end_mark.index
    if end > 0 and text[end - 1] == "\n":
        return end - 1
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline


def is_plain_safe(value: str) -> bool:
    """Whether ``value`` can be written as a plain (unquoted) YAML scalar and read back unchanged."""
    if not value or value != value.strip() or "\n" in value or value[0] in _INDICATORS or value.endswith(":"):
        return False
    # YAML 1.1 (helm's parser) still reads these as booleans or null; 1.2 parsers read strings
    if ": " in value or " #" in value or value.lower() in _YAML11_SPECIAL or _YAML11_NUMBER.fullmatch(value):
        return False
    try:
        return load_plain(f"k: {value}\n") == {"k": value}
    except Exception:
        return False


def render_scalar(value: Any, style: str | None = None) -> str:
    """YAML text of a scalar: a string plain when safe, else double-quoted, or in the quoting ``style``
    (``'"'`` or ``"'"``) an upstream value already had."""
    if value is None or isinstance(value, (bool, int, float)):  # null, true, false, numbers as JSON writes them
        text = json.dumps(value)
        return {"NaN": ".nan", "Infinity": ".inf", "-Infinity": "-.inf"}.get(text, text)
    text = str(value)
    # YAML also breaks lines at NEL, LS and PS: only a double-quoted escape keeps them
    breaks = "\n" in text or any(char in text for char in _OTHER_BREAKS)
    if style == "'" and not breaks:
        return "'" + text.replace("'", "''") + "'"
    if style == '"' or breaks or not is_plain_safe(text):
        quoted = json.dumps(text, ensure_ascii=False)
        return quoted.replace("\x85", "\\x85").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text


_OTHER_BREAKS = "\x85\u2028\u2029"


def render_block(value: dict[Any, Any] | list[Any], indent: int) -> str:
    """Block-style YAML of a non-empty mapping or list, every line indented by ``indent`` spaces, no final newline."""
    if isinstance(value, dict):
        return "\n".join(_entry(str(key), item, indent) for key, item in value.items())
    pad, lines = " " * indent, []
    for item in value:
        if isinstance(item, dict) and item:
            lines.append(pad + "- " + render_block(item, indent + 2)[indent + 2 :])
        elif isinstance(item, list) and item:
            lines += [pad + "-", render_block(item, indent + 2)]
        else:
            lines.append(f"{pad}- {render_inline(item)}")
    return "\n".join(lines)


def render_inline(value: Any) -> str:
    """One-line YAML of a value: scalars, and collections in flow style (``{}``/``[]`` when empty)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_scalar(k)}: {render_inline(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(map(render_inline, value)) + "]" if isinstance(value, list) else render_scalar(value)


_Splice = tuple[int, int, str]  # text[start:end] becomes the string


def _nest(keys: list[str], value: Any) -> Any:
    """``value`` below ``keys``: ``["a", "b"], 1`` → ``{"a": {"b": 1}}``."""
    return functools.reduce(lambda inner, key: {key: inner}, reversed(keys), value)


def _plan_set(text: str, node: Any, keys: list[str], value: Any, where: str) -> _Splice:
    """The one text splice that sets ``keys`` below mapping ``node`` to ``value``."""
    if not _is_mapping(node):
        raise YamlEditError(f"{where} is not a mapping")
    key, rest = keys[0], keys[1:]
    found = _find(node, key)
    if found is None:
        return _insert(text, node, key, _nest(rest, value))
    key_node, value_node = found
    if not rest:
        return _replace_value(text, key_node, value_node, value)
    if value_node.tag.endswith(":null") and not value_node.value:
        return _replace_value(text, key_node, value_node, _nest(rest, value))
    return _plan_set(text, value_node, rest, value, f"{where}/{key}" if where != "(document)" else f"/{key}")


def _replace_value(text: str, key_node: Any, value_node: Any, value: Any) -> _Splice:
    scalar_text = _is_scalar(value_node) and (value_node.value != "" or value_node.style)
    if not isinstance(value, (dict, list)) and scalar_text:
        start, end = value_node.start_mark.index, value_node.end_mark.index
        new = render_scalar(value, value_node.style if value_node.style in ('"', "'") else None)
        if value_node.style in ("|", ">") and text[start:end].endswith("\n"):
            new += "\n"
        return start, end, new
    colon = text.index(":", key_node.end_mark.index)
    if value_node.value:
        end = _content_end(text, value_node)
    elif _is_scalar(value_node) and not text[value_node.start_mark.index : value_node.end_mark.index].strip():
        end = colon + 1  # an empty (null) value: nothing to replace after the colon
    else:
        end = value_node.end_mark.index
    if isinstance(value, (dict, list)) and value:
        return colon + 1, end, "\n" + render_block(value, key_node.start_mark.column + 2)
    return colon + 1, end, " " + render_inline(value)


def _insert(text: str, mapping: Any, key: str, value: Any) -> _Splice:
    """Append ``key: value`` as the last entry of a block mapping (or fill an empty ``{}``)."""
    if mapping.flow_style:
        if mapping.value:
            raise YamlEditError("cannot add a key to a non-empty flow mapping ({...}); rewrite it in block style")
        start, end = mapping.start_mark.index, mapping.end_mark.index
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():  # `key: {}` — the block goes on the next lines
            indent = len(text[line_start:]) - len(text[line_start:].lstrip(" ")) + 2
            return start - 1 if text[start - 1] == " " else start, end, "\n" + _entry(key, value, indent)
        return start, end, _entry(key, value, mapping.start_mark.column)
    indent = mapping.value[0][0].start_mark.column
    end = _content_end(text, mapping)
    if end >= len(text):
        newline = "" if text.endswith("\n") or not text else "\n"
        return len(text), len(text), newline + _entry(key, value, indent) + "\n"
    return end, end, "\n" + _entry(key, value, indent)


def _entry(key: str, value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, (dict, list)) and value:
        return f"{pad}{render_scalar(key)}:\n{render_block(value, indent + 2)}"
    return f"{pad}{render_scalar(key)}: {render_inline(value)}"


def set_value(text: str, pointer: str, value: Any) -> str:
    """``text`` with the key at ``pointer`` set to ``value`` (a mapping replaces), nothing else changed: a
    missing key (and parents) is appended to its parent mapping. Raises :class:`YamlEditError`."""
    keys = parse_pointer(pointer)
    if not keys:
        raise YamlEditError("cannot set the whole document")
    root = _compose(text)
    if root is None:
        return text + _entry(keys[0], _nest(keys[1:], value), 0) + "\n"
    start, end, new = _plan_set(text, root, keys, value, "(document)")
    return text[:start] + new + text[end:]


def merge(text: str, pointer: str, value: Any) -> str:
    """Set every leaf of mapping ``value`` below ``pointer`` (a deep merge); lists replace."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            text = merge(text, f"{pointer}/{escape_key(str(key))}", item)
        return text
    return set_value(text, pointer, value)


def delete(text: str, pointer: str) -> str:
    """Remove the key at ``pointer`` with its value's lines. Raises :class:`YamlEditError` when absent."""
    keys = parse_pointer(pointer)
    node = _compose(text)
    if not keys:
        raise YamlEditError("cannot delete the whole document")
    for key in keys:
        if not _is_mapping(node):
            raise YamlEditError(f"{pointer}: parent is not a mapping")
        found = _find(node, key)
        if found is None:
            raise YamlEditError(f"{pointer}: no such key")
        key_node, node = found
    start = text.rfind("\n", 0, key_node.start_mark.index) + 1
    end = _content_end(text, node) if node.value else text.find("\n", key_node.end_mark.index)
    end = len(text) if end < 0 else min(end + 1, len(text))
    return text[:start] + text[end:]


def get_value(text: str, pointer: str) -> Any:
    """The plain Python value at ``pointer`` (``KeyError`` when absent)."""
    data = load_plain(text, DOCUMENT)
    for key in parse_pointer(pointer):
        if not isinstance(data, dict) or key not in data:
            raise KeyError(pointer)
        data = data[key]
    return data
