"""Comparing two file trees: unified diffs per file, as verify and diff print them."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress, count, islice
from operator import ne


@dataclass(frozen=True)
class FileDiff:
    """A unified diff of one file between two versions; ``text`` is empty when they are equal."""

    path: str
    status: str
    text: str


# Files with fewer lines than this are diffed whole; longer ones have their common head and tail
# trimmed first, so the line matcher's cost grows with the change, not with the file.
TRIM_ABOVE = 2000


def unified(path: str, before: bytes | None, after: bytes | None, labels: tuple[str, str]) -> str:
    """A unified diff (3 lines of context) from ``before`` to ``after``; ``None`` is an absent file."""
    if before == after:
        return ""
    if (before and b"\0" in before) or (after and b"\0" in after):
        return f"Binary files {labels[0]}/{path} and {labels[1]}/{path} differ\n"
    old = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = unified_lines(
        old,
        new,
        fromfile=f"{labels[0]}/{path}" if before is not None else "/dev/null",
        tofile=f"{labels[1]}/{path}" if after is not None else "/dev/null",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def matching_blocks(old: list[str], new: list[str], trim_above: int = TRIM_ABOVE) -> list[tuple[int, int, int]]:
    """difflib's matching blocks of ``old`` and ``new`` (ending with the ``(len, len, 0)`` sentinel).

    Inputs of ``trim_above`` lines or more have their common head and tail matched first and only
    the middle goes to :class:`difflib.SequenceMatcher` — when no line of the middle also occurs
    in the head or tail, no match can run across a seam where the middle is empty (:func:`_joins`)
    and the head and tail each hold a line difflib's autojunk does not call popular. Then the head
    and tail are blocks difflib itself finds, no match crosses into them, and the middle is matched
    with the popularity difflib computes for the whole file: the answer is difflib's own (the
    tests compare it with difflib). Otherwise the whole file is matched.
    """

    def whole() -> list[tuple[int, int, int]]:
        return difflib.SequenceMatcher(None, old, new).get_matching_blocks()

    if len(old) + len(new) < trim_above:
        return whole()
    limit = min(len(old), len(new))
    head = _common(old, new, limit)
    tail = _common(reversed(old), reversed(new), limit - head)
    old_middle, new_middle = old[head : len(old) - tail], new[head : len(new) - tail]
    inner = set(old_middle)  # the middle is small: the large head and tail are only looked up in it
    inner.update(new_middle)
    if not inner.isdisjoint(islice(old, head)) or not inner.isdisjoint(islice(old, len(old) - tail, None)):
        return whole()
    if _joins(old, head, tail, new) or _joins(new, head, tail, old):
        return whole()
    most = len(new) // 100 + 1  # difflib's autojunk: in 200 lines or more, more copies make a line "popular"
    if len(new) >= 200:  # difflib finds a head or tail only from a line in it that is not popular
        for part in (new[:head], new[len(new) - tail :]):
            if part and not _holds_unpopular(part, new, most):
                return whole()
    middle = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
    if len(new) >= 200:
        for line in [line for line, where in middle.b2j.items() if len(where) > most]:
            del middle.b2j[line]
            middle.bpopular.add(line)
    blocks = [(0, 0, head)] if head else []
    blocks += [(i + head, j + head, size) for i, j, size in middle.get_matching_blocks() if size]
    if tail:
        blocks.append((len(old) - tail, len(new) - tail, tail))
    merged: list[tuple[int, int, int]] = []
    for i, j, size in blocks:  # difflib joins adjacent blocks
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((i, j, size))
    merged.append((len(old), len(new), 0))
    return merged


def _holds_unpopular(part: list[str], lines: list[str], most: int) -> bool:
    """Whether a line of ``part`` occurs at most ``most`` times in ``lines``: usually its first
    line says so, counted in C; a part whose first lines are all popular has every line counted."""
    for line in part[:8]:
        if lines.count(line) <= most:
            return True
    if len(part) <= 8:
        return False
    counts = Counter(lines)
    return any(counts[line] <= most for line in part)


def _common(old: Iterable[str], new: Iterable[str], limit: int) -> int:
    """How many leading lines ``old`` and ``new`` share, at most ``limit``: the lines are compared
    by C iterators (no slice copies, no Python loop), stopping at the first difference."""
    return min(next(compress(count(), map(ne, old, new)), limit), limit)


def _joins(lines: list[str], head: int, tail: int, other: list[str]) -> bool:
    """Whether ``lines`` has nothing between head and tail and ``other`` holds the two lines that meet there.

    Then a match could run across that seam in ``lines`` and difflib could prefer it to the head.
    """
    if len(lines) != head + tail or not head or not tail:
        return False
    first, second = lines[head - 1], lines[head]
    return any(other[j + 1] == second for j in range(len(other) - 1) if other[j] == first)


class _Matcher(difflib.SequenceMatcher):
    """A SequenceMatcher whose matching blocks come from :func:`matching_blocks`."""

    def __init__(self, old: list[str], new: list[str], trim_above: int) -> None:
        super().__init__(None)
        self.a, self.b = old, new
        self.matching_blocks = [difflib.Match(*block) for block in matching_blocks(old, new, trim_above)]
        self.opcodes = None


def _range(start: int, stop: int) -> str:
    """A hunk range as difflib writes it (``start,length``; one-line ranges without the length)."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start if not length else start + 1},{length}"


def unified_lines(
    old: list[str], new: list[str], fromfile: str, tofile: str, trim_above: int = TRIM_ABOVE
) -> list[str]:
    """The lines of :func:`difflib.unified_diff` (n=3) of ``old`` and ``new``, with head and tail trimmed."""
    out: list[str] = []
    for group in _Matcher(old, new, trim_above).get_grouped_opcodes(3):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in old[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in old[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in new[j1:j2]]
    return out


def compare(before: dict[str, bytes], after: dict[str, bytes], prefix: str, labels: tuple[str, str]) -> list[FileDiff]:
    """Per-file diffs between two trees (relative path → bytes), only files that differ."""
    diffs = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        status = "added" if old is None else "removed" if new is None else "changed"
        full = f"{prefix}/{path}"
        diffs.append(FileDiff(full, status, unified(full, old, new, labels)))
    return diffs
