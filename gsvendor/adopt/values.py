"""Value operations (``yaml-set``, ``yaml-delete``) for the key edits of Chart.yaml and values.yaml.

A key edit is kept only where :mod:`gsvendor.overlays.yamledit` reproduces the edited lines: each
candidate (a changed or added key, a removed key) is tried on the text and kept when it brings the
text strictly closer to the tree's, line by line. What the value edits leave (a renamed key, a
comment, a value written in another style) is left to the text operations.
"""

from __future__ import annotations

from typing import Any

from gsvendor.adopt.textdiff import hunks
from gsvendor.overlays import yamledit

# the files whose key edits become value operations
VALUE_FILES = ("Chart.yaml", "values.yaml")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _changes(old: Any, new: Any, pointer: str = "") -> tuple[list[tuple[str, Any]], list[str]]:
    """``(sets, deletes)``: JSON Pointers whose values differ between two parsed documents."""
    sets: list[tuple[str, Any]] = []
    deletes: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            child = f"{pointer}/{_escape(str(key))}"
            if key not in old:
                sets.append((child, value))
            elif old[key] != value or type(old[key]) is not type(value):
                more_sets, more_deletes = _changes(old[key], value, child)
                sets += more_sets
                deletes += more_deletes
        deletes += [f"{pointer}/{_escape(str(key))}" for key in old if key not in new]
    elif pointer:
        sets.append((pointer, new))
    return sets, deletes


def distance(text: str, target: str) -> int:
    """How many lines differ between ``text`` and ``target`` (trailing whitespace ignored)."""
    a, b = text.splitlines(), target.splitlines()
    return sum(max(i2 - i1, j2 - j1) for i1, i2, j1, j2 in hunks(a, b))


def value_operations(old: str, new: str, tag: str) -> tuple[list[dict[str, Any]], str]:
    """The value operations that reproduce key edits from ``old`` to ``new``, and the text after them.

    Returns ``([{"op": "yaml-set", "values": {...}}, {"op": "yaml-delete", "keys": [...]}], text)``
    (either may be absent); values equal to ``tag`` are written ``${tag}`` (the overlay then holds
    for the next tag too). Text that is not a YAML mapping gives no operations.
    """
    from gsvendor.config import load_plain

    try:
        before, after = load_plain(old), load_plain(new)
    except Exception:  # not YAML: the text operations handle it
        return [], old
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [], old
    sets, deletes = _changes(before, after)
    text, score = old, distance(old, new)
    kept_sets: dict[str, Any] = {}
    kept_deletes: list[str] = []
    for pointer, value in sets:
        try:
            candidate = yamledit.set_value(text, pointer, value)
        except (yamledit.YamlEditError, ValueError, TypeError):
            continue
        better = distance(candidate, new)
        if better < score:
            text, score = candidate, better
            kept_sets[pointer] = value
    for pointer in deletes:
        try:
            candidate = yamledit.delete(text, pointer)
        except (yamledit.YamlEditError, ValueError, TypeError):
            continue
        better = distance(candidate, new)
        if better < score:
            text, score = candidate, better
            kept_deletes.append(pointer)
    ops: list[dict[str, Any]] = []
    if kept_sets:
        ops.append({"op": "yaml-set", "values": {p: _declared(v, tag) for p, v in kept_sets.items()}})
    if kept_deletes:
        ops.append({"op": "yaml-delete", "keys": kept_deletes})
    return ops, text


def _declared(value: Any, tag: str) -> Any:
    """``value`` as the overlay declares it: the tag as ``${tag}``, a literal ``${`` as ``$${``."""
    if isinstance(value, dict):
        return {_declared(k, tag): _declared(v, tag) for k, v in value.items()}
    if isinstance(value, list):
        return [_declared(v, tag) for v in value]
    if isinstance(value, str):
        escaped = value.replace("${", "$${")
        return "${tag}" if value == tag else escaped
    return value


def escape_text(value: str) -> str:
    """A literal string for an overlay: ``${`` written ``$${`` so that no variable expands in it."""
    return value.replace("${", "$${")
