"""Anchored text operations (``replace``, ``insert-after``, ``insert-before``) from a line diff ignoring
trailing whitespace (sync drops it). Each changed block becomes one operation whose ``find``/``anchor`` is
the shortest run of whole lines (unindented where that still matches) occurring once in upstream with the
earlier operations applied; the same change at every occurrence of a block, one operation with a ``count``."""

from __future__ import annotations

import difflib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gsvendor import gitcmd
from gsvendor.errors import ToolError

# the widest context an anchor may take, in lines: a block that needs more is not expressed
MAX_CONTEXT = 30


class NoAnchor(ValueError):
    """No anchor of at most :data:`MAX_CONTEXT` lines occurs exactly once near a change."""


@dataclass
class _Hunk:
    i1: int
    i2: int
    j1: int
    j2: int
    applied: bool = False


def hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed blocks ``(i1, i2, j1, j2)`` from ``old`` to ``new`` lines, compared without trailing
    whitespace; the common head and tail are cut first (a one-line change in a CRD of 30 000 lines)."""
    a, b = [x.rstrip() for x in old], [x.rstrip() for x in new]
    for lines in (a, b):  # blank lines that end a file: the whitespace fixes drop them
        while lines and not lines[-1]:
            lines.pop()
    head = len(os.path.commonprefix([a, b]))  # noqa: RUF071 (a prefix of whole lines is wanted)
    tail = len(os.path.commonprefix([a[head:][::-1], b[head:][::-1]]))  # noqa: RUF071
    middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(middle_a) * len(middle_b) > _LARGE:
        blocks = _git_hunks(middle_a, middle_b)
    else:
        matcher = difflib.SequenceMatcher(None, middle_a, middle_b)
        blocks = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    return [(i1 + head, i2 + head, j1 + head, j2 + head) for i1, i2, j1, j2 in blocks]


# above this product of line counts difflib's quadratic matching takes seconds (a CRD of an
# older release): git's histogram diff, in C, takes milliseconds
_LARGE = 4_000_000
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def _git_hunks(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """``a`` → ``b``'s changed blocks by ``git diff --histogram``; :class:`NoAnchor` when git is missing or fails."""
    with tempfile.TemporaryDirectory(prefix="gsvendor-adopt-diff-") as tmp:
        paths = [Path(tmp, "a"), Path(tmp, "b")]
        for path, lines in zip(paths, (a, b), strict=True):
            path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8", newline="\n")
        args = ["diff", "--no-index", "--no-color", "--no-ext-diff", "--histogram", "-a", "-U0", "--", *map(str, paths)]
        try:
            done = gitcmd.run(args, timeout=300, isolated=True)
        except ToolError as exc:  # not installed, or out of time
            raise NoAnchor(f"git diff could not compare it ({exc})") from None
    if done.returncode not in (0, 1):
        raise NoAnchor(f"git diff could not compare it (exit {done.returncode})")
    return [(*_span(m[1], m[2]), *_span(m[3], m[4])) for m in _HUNK.finditer(done.stdout)]


def _span(start: str, count: str | None) -> tuple[int, int]:
    """A hunk header's ``start,count`` as 0-based ``(first, end)`` (a count of 0 names the line before)."""
    lines = int(count or 1)
    first = int(start) - (lines > 0)
    return first, first + lines


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _around(old: list[str], new: list[str], blocks: list[_Hunk], hunk: _Hunk) -> tuple[list[str], list[str]]:
    """The lines before and after ``hunk``'s old block in upstream's text with the applied hunks applied."""
    before: list[str] = []
    after: list[str] = []
    target, pos = before, 0
    for other in blocks:
        target += old[pos : other.i1]
        pos = other.i2
        if other is hunk:
            target = after
        else:
            target += new[other.j1 : other.j2] if other.applied else old[other.i1 : other.i2]
    target += old[pos:]
    return before, after


def text_operations(old: str, new: str) -> list[dict[str, Any]]:
    """Operations turning ``old`` into ``new``, in application order, as overlay dicts without ``file`` (``count``
    only above one). Raises :class:`NoAnchor` when a change has no unique anchor within :data:`MAX_CONTEXT` lines."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    blocks = [_Hunk(*h) for h in hunks(old_lines, new_lines)]
    changes = [(old_lines[h.i1 : h.i2], new_lines[h.j1 : h.j2]) for h in blocks]
    ops: list[dict[str, Any]] = []
    for hunk, change in zip(blocks, changes, strict=True):
        if hunk.applied:
            continue
        before, after = _around(old_lines, new_lines, blocks, hunk)
        block, added = "".join(change[0]), "".join(change[1])
        current = "".join(before) + block + "".join(after)
        # the same change elsewhere, not yet written: one operation with a count where it can be
        group = [other for other, same in zip(blocks, changes, strict=True) if not other.applied and same == change]
        if not current:
            ops.append({"op": "replace", "find": "", "with": added})
        elif block:
            ops.append(_replacement(group, before, block, added, after, current))
        else:
            line = before[-1:]  # an insertion repeats only after the same line
            group = [other for other in group if _around(old_lines, new_lines, blocks, other)[0][-1:] == line]
            ops.append(_insertion(group, before, added, after, current))
        hunk.applied = True
    return ops


def _counted(group: list[_Hunk], current: str, op: dict[str, Any], text: str) -> dict[str, Any] | None:
    """``op`` with a ``count`` when ``text`` occurs once per change of ``group`` (then all applied)."""
    if len(group) < 2 or current.count(text) != len(group):
        return None
    for other in group:
        other.applied = True
    return {**op, "count": len(group)}


def _replacement(
    group: list[_Hunk], before: list[str], block: str, added: str, after: list[str], current: str
) -> dict[str, Any]:
    for find, with_ in _trimmed(block, added):
        if counted := _counted(group, current, {"op": "replace", "find": find, "with": with_}, find):
            return counted
    for total in range(MAX_CONTEXT + 1):  # lines of context, split every way between before and after
        found = [
            (len(find), find, with_)
            for back in range(min(total, len(before)) + 1)
            if total - back <= len(after)
            for head, tail in [("".join(before[len(before) - back :]), "".join(after[: total - back]))]
            for find, with_ in _trimmed(head + block + tail, head + added + tail)
            if current.count(find) == 1
        ]
        if found:
            _, find, with_ = min(found)
            return {"op": "replace", "find": find, "with": with_}
    raise NoAnchor(f"no unique anchor within {MAX_CONTEXT} lines of {block.splitlines()[0].strip()!r}")


def _trimmed(find: str, with_: str) -> list[tuple[str, str]]:
    """``(find, with)`` as is, and without the indentation both start with (tried first: shorter)."""
    width = min(_indent(find), _indent(with_)) if with_ else _indent(find)
    if width and find[:width] == with_[:width]:
        return [(find[width:], with_[width:]), (find, with_)]
    return [(find, with_)]


def _insertion(group: list[_Hunk], before: list[str], added: str, after: list[str], current: str) -> dict[str, Any]:
    for anchor in _variants(before[-1]) if before else []:
        op = {"op": "insert-after", "anchor": anchor, "text": _after_text(anchor, added)}
        if anchor.strip() and (counted := _counted(group, current, op, anchor)):
            return counted
    for total in range(1, MAX_CONTEXT + 1):  # past either end of the text: the shorter anchors again
        following = "".join(after[:total])
        candidates = [("insert-after", a) for a in _variants("".join(before[-total:]))]
        candidates += [("insert-before", a) for a in (following.rstrip("\r\n"), following)]
        found = [(len(a), kind, a) for kind, a in candidates if a.strip() and current.count(a) == 1]
        if found:
            _, kind, anchor = min(found)
            inserted = _after_text(anchor, added) if kind == "insert-after" else added
            return {"op": kind, "anchor": anchor, "text": inserted}
    first = added.splitlines()[0].strip() if added.strip() else "blank lines"
    raise NoAnchor(f"no unique anchor within {MAX_CONTEXT} lines for the inserted {first!r}")


def _variants(text: str) -> list[str]:
    """``text`` without its first line's indentation (tried first: shorter), and as it is."""
    return [find for find, _ in _trimmed(text, text)]


def _after_text(anchor: str, added: str) -> str:
    """Text inserted after an anchor that ends a file without a line ending starts a new line."""
    return added if anchor.endswith("\n") else "\n" + added.rstrip("\n")
