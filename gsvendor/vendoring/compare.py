"""Unified diffs per file between two trees, as verify and diff print them: :func:`difflib.unified_diff`'s text,
its cost following the change (:func:`matching_blocks`)."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice, pairwise
from operator import ne

from gsvendor.errors import CONTROL


@dataclass(frozen=True)
class FileDiff:
    """A unified diff of one file between two versions; ``text`` is empty when they are equal."""

    path: str
    status: str
    text: str


# from this many lines on, the common head and tail are trimmed first: the cost grows with the change
TRIM_ABOVE = 2000


def unified(
    path: str, before: bytes | None, after: bytes | None, labels: tuple[str, str], trim_above: int = TRIM_ABOVE
) -> str:
    """:func:`difflib.unified_diff`'s text (n=3) from ``before`` to ``after`` (``None``: absent), lines as
    ``str.splitlines`` cuts the UTF-8 text (bad bytes replaced), with git's ``\\ No newline at end of file``."""
    if before == after:
        return ""
    if (before and b"\0" in before) or (after and b"\0" in after):
        return f"Binary files {git_quoted(f'{labels[0]}/{path}')} and {git_quoted(f'{labels[1]}/{path}')} differ\n"
    sides = tuple(zip(labels, (before, after), strict=True))
    old, new = ((data or b"").decode("utf-8", "replace").splitlines(keepends=True) for _, data in sides)
    names = (git_quoted(f"{label}/{path}") if data is not None else "/dev/null" for label, data in sides)
    lines = unified_lines(old, new, *names, trim_above=trim_above)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


_C_ESCAPES = {c: "\\" + e for c, e in zip('\a\b\t\n\v\f\r"\\', 'abtnvfr"\\', strict=True)}
_GIT_QUOTED = re.compile(f'[{CONTROL.pattern[1:-1]}\t\n"\\\\]')  # what core.quotePath escapes, non-ASCII aside


def git_quoted(name: str) -> str:
    """``name`` as git writes a path in a diff header (``core.quotePath``, which ``git apply`` and GNU patch
    read): in double quotes, C escapes and octal UTF-8 bytes, when it holds a control character, a quote or a
    backslash (a file name's escape sequence reaches no terminal), else as it is."""
    escaped = _GIT_QUOTED.sub(
        lambda m: _C_ESCAPES.get(m[0]) or "".join(f"\\{b:03o}" for b in m[0].encode(errors="surrogateescape")), name
    )
    return name if escaped == name else f'"{escaped}"'


def matching_blocks(
    old: Sequence[Hashable], new: Sequence[Hashable], trim_above: int = TRIM_ABOVE
) -> list[tuple[int, int, int]]:
    """difflib's matching blocks of ``old`` and ``new`` (with the ``(len, len, 0)`` sentinel). From ``trim_above``
    lines on, only the middle between the common head and tail goes to :class:`difflib.SequenceMatcher` when that
    is provably its own answer: no middle line in the head or tail, no match across an empty middle's seam, and
    a line autojunk does not call popular in each of head and tail."""

    def whole() -> list[tuple[int, int, int]]:
        return difflib.SequenceMatcher(None, old, new).get_matching_blocks()

    if not old or not new:  # nothing can match: difflib's answer is its sentinel alone
        return [(len(old), len(new), 0)]
    if len(old) + len(new) < trim_above:
        return whole()
    limit = min(len(old), len(new))
    head = _common(old, new, limit)
    tail = _common(reversed(old), reversed(new), limit - head)
    old_middle, new_middle = old[head : len(old) - tail], new[head : len(new) - tail]
    inner = {*old_middle, *new_middle}  # the middle is small: the large head and tail are only looked up in it
    if not inner.isdisjoint(islice(old, head)) or not inner.isdisjoint(islice(old, len(old) - tail, None)):
        return whole()
    if _joins(old, head, tail, new) or _joins(new, head, tail, old):
        return whole()
    most = len(new) // 100 + 1  # difflib's autojunk: in 200 lines or more, more copies make a line "popular"
    # difflib finds a head or tail only from a line in it that is not popular
    parts = (new[:head], new[len(new) - tail :])
    if len(new) >= 200 and not all(_holds_unpopular(part, new, most) for part in parts if part):
        return whole()
    middle = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
    if len(new) >= 200:
        for line in [line for line, where in middle.b2j.items() if len(where) > most]:
            del middle.b2j[line]
            middle.bpopular.add(line)
    # head and tail are the longest common ones, so no middle block touches them: none is to be joined
    blocks = [(0, 0, head)] if head else []
    blocks += [(i + head, j + head, size) for i, j, size in middle.get_matching_blocks() if size]
    return blocks + ([(len(old) - tail, len(new) - tail, tail)] if tail else []) + [(len(old), len(new), 0)]


def _common(old: Iterable[Hashable], new: Iterable[Hashable], limit: int) -> int:
    """How many leading lines ``old`` and ``new`` share, at most ``limit`` (compared by C iterators)."""
    return min(next(compress(count(), map(ne, old, new)), limit), limit)


def _holds_unpopular(part: Sequence[Hashable], lines: Sequence[Hashable], most: int) -> bool:
    """Whether a line of ``part`` occurs at most ``most`` times in ``lines``: its first lines are counted by
    ``list.count`` in C, which settles a CRD's head or tail without a Counter of every line (~20 ms of a diff)."""
    if any(lines.count(line) <= most for line in part[:8]):
        return True
    counts = Counter(lines) if len(part) > 8 else {}
    return any(counts[line] <= most for line in part[8:])


def _joins(lines: Sequence[Hashable], head: int, tail: int, other: Sequence[Hashable]) -> bool:
    """Whether ``lines`` has no middle and ``other`` holds the two lines meeting there (a match across it)."""
    if len(lines) != head + tail or not head or not tail:
        return False
    return (lines[head - 1], lines[head]) in pairwise(other)  # compared in C


def _range(start: int, stop: int) -> str:
    """A hunk range as difflib writes it (``start,length``; one-line ranges without the length)."""
    length = stop - start
    return f"{start + 1}" if length == 1 else f"{start if not length else start + 1},{length}"


def unified_lines(
    old: list[str], new: list[str], fromfile: str, tofile: str, trim_above: int = TRIM_ABOVE
) -> list[str]:
    """The lines of :func:`difflib.unified_diff` (n=3) of ``old`` and ``new``, with head and tail trimmed."""
    matcher = difflib.SequenceMatcher()
    matcher.a, matcher.b = old, new  # with its matching blocks given, it only groups them
    matcher.matching_blocks = [difflib.Match(*block) for block in matching_blocks(old, new, trim_above)]
    hunks: list[str] = []
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        hunks.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:  # an insert has no old lines, a delete no new ones
            hunks += [(" " if tag == "equal" else "-") + line for line in old[i1:i2]]
            if tag != "equal":
                hunks += ["+" + line for line in new[j1:j2]]
    return [f"--- {fromfile}\n", f"+++ {tofile}\n", *hunks] if hunks else []


def statuses(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """``(path, added|removed|changed)`` of every path whose bytes differ between two trees, sorted."""
    paths = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    return [(p, "added" if p not in before else "removed" if p not in after else "changed") for p in paths]


def compare(before: dict[str, bytes], after: dict[str, bytes], prefix: str, labels: tuple[str, str]) -> list[FileDiff]:
    """Per-file diffs between two trees (relative path → bytes), only files that differ."""
    return [
        FileDiff(f"{prefix}/{p}", status, unified(f"{prefix}/{p}", before.get(p), after.get(p), labels))
        for p, status in statuses(before, after)
    ]
