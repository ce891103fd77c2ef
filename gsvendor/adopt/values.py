"""Value operations (``yaml-set``, ``yaml-delete``) for key edits of Chart.yaml and values.yaml: each changed,
added or removed key is tried with :mod:`gsvendor.overlays.yamledit` and kept when it brings the text strictly
closer to the tree's; the rest (a renamed key, a comment) is left to text edits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gsvendor.adopt.textdiff import hunks
from gsvendor.overlays import yamledit
from gsvendor.overlays.crdfield import map_strings
from gsvendor.yamlio import load_plain

# the files whose key edits become value operations
VALUE_FILES = ("Chart.yaml", "values.yaml")
_DELETE = object()  # the candidate value of a removed key


def _changes(old: Any, new: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """``(JSON Pointer, new value or _DELETE)`` for each value that differs between two parsed documents."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            child = f"{pointer}/{yamledit.escape_key(str(key))}"
            if key not in old:
                yield child, value
            elif old[key] != value or type(old[key]) is not type(value):
                yield from _changes(old[key], value, child)
        yield from ((f"{pointer}/{yamledit.escape_key(str(key))}", _DELETE) for key in old if key not in new)
    elif pointer:
        yield pointer, new


def distance(text: str, target: str) -> int:
    """How many lines differ between ``text`` and ``target`` (trailing whitespace ignored)."""
    a, b = text.splitlines(), target.splitlines()
    return sum(max(i2 - i1, j2 - j1) for i1, i2, j1, j2 in hunks(a, b))


def value_operations(old: str, new: str, tag: str) -> tuple[list[dict[str, Any]], str]:
    """``([yaml-set, yaml-delete operations, each absent when empty], text after them)`` reproducing key edits
    from ``old`` to ``new``; values equal to ``tag`` are written ``${tag}`` (so they hold for the next tag)."""
    try:
        before, after = load_plain(old), load_plain(new)
    except Exception:  # not YAML: the text operations handle it
        return [], old
    text, score = old, distance(old, new)
    kept: dict[str, Any] = {}  # pointer → value or _DELETE
    # the changed and added keys first, then the removed ones
    for pointer, value in sorted(_changes(before, after), key=lambda change: change[1] is _DELETE):
        try:
            candidate = yamledit.delete(text, pointer) if value is _DELETE else yamledit.set_value(text, pointer, value)
        except (yamledit.YamlEditError, ValueError, TypeError):
            continue
        better = distance(candidate, new)
        if better < score:  # kept only when it brings the text closer to the tree's
            text, score, kept[pointer] = candidate, better, value
    values = {pointer: declared(value, tag) for pointer, value in kept.items() if value is not _DELETE}
    keys = [pointer for pointer, value in kept.items() if value is _DELETE]
    ops = [{"op": "yaml-set", "values": values}] if values else []
    return ops + ([{"op": "yaml-delete", "keys": keys}] if keys else []), text


def declared(value: Any, tag: str | None = None) -> Any:
    """``value`` as an overlay declares it: a string equal to ``tag`` as ``${tag}``, every other string
    literal (``${`` written ``$${``, so that no variable expands in it)."""
    return map_strings(value, lambda text: "${tag}" if text == tag else text.replace("${", "$${"))
