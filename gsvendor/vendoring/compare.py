"""Comparing two file trees: unified diffs per file, as verify and diff print them.

The text is always :func:`difflib.unified_diff`'s. UTF-8 with only ``\\n`` line breaks is diffed as
byte lines (:func:`unified`); long files have their common head and tail kept away from difflib when
that is provably its own answer (:func:`matching_blocks`): the cost follows the change, not the file.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice
from operator import ne
from typing import Any


@dataclass(frozen=True)
class FileDiff:
    """A unified diff of one file between two versions; ``text`` is empty when they are equal."""

    path: str
    status: str
    text: str


# Files with fewer lines than this are diffed whole; longer ones have their common head and tail
# trimmed first, so the line matcher's cost grows with the change, not with the file.
TRIM_ABOVE = 2000


def unified(
    path: str, before: bytes | None, after: bytes | None, labels: tuple[str, str], trim_above: int = TRIM_ABOVE
) -> str:
    """A unified diff (3 lines of context) from ``before`` to ``after`` (``None``: an absent file):
    :func:`difflib.unified_diff`'s of the lines ``str.splitlines`` cuts from the UTF-8 text
    (undecodable bytes replaced), with git's ``\\ No newline at end of file`` marks; text whose
    lines can be cut as bytes (:func:`_newline_lines`) takes the same text from :func:`_unified_bytes`."""
    if before == after:
        return ""
    if (before and b"\0" in before) or (after and b"\0" in after):
        return f"Binary files {labels[0]}/{path} and {labels[1]}/{path} differ\n"
    fromfile = f"{labels[0]}/{path}" if before is not None else "/dev/null"
    tofile = f"{labels[1]}/{path}" if after is not None else "/dev/null"
    old_bytes, new_bytes = before or b"", after or b""
    if _newline_lines(old_bytes):
        trim = _trim(old_bytes, new_bytes)
        # the rest of new_bytes is old_bytes' head and tail: only its middle needs the check
        if _newline_lines(new_bytes[trim[0] : trim[2]]):
            return _unified_bytes(old_bytes, new_bytes, trim, fromfile, tofile, trim_above)
    old = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = unified_lines(old, new, fromfile=fromfile, tofile=tofile, trim_above=trim_above)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# Bytes str.splitlines cuts a line after (besides \n) that bytes.splitlines does not, or does
# differently (\r\n); the UTF-8 of U+0085, U+2028 and U+2029 is checked for in decoded text.
_OTHER_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")


def _newline_lines(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 whose only line break is ``\\n`` (so is a file made of such pieces cut
    at line starts). Then its byte lines are the UTF-8 of the lines ``str.splitlines`` cuts, equal
    exactly when those are (UTF-8 is one-to-one): difflib matches both alike. One C scan per test."""
    if any(byte in data for byte in _OTHER_BREAKS):
        return False
    if data.isascii():
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return "\x85" not in text and "\u2028" not in text and "\u2029" not in text


def _unified_bytes(
    before: bytes, after: bytes, trim: tuple[int, int, int], fromfile: str, tofile: str, trim_above: int
) -> str:
    """:func:`unified`'s text of two files that both pass :func:`_newline_lines`; ``trim`` (:func:`_trim`):
    the common head and tail, split into lines once for both sides."""
    head_end, old_tail, new_tail = trim
    head = before[:head_end].splitlines(keepends=True)
    tail = before[old_tail:].splitlines(keepends=True)
    old = head + before[head_end:old_tail].splitlines(keepends=True) + tail
    new = head + after[head_end:new_tail].splitlines(keepends=True) + tail
    # after.count(line) counts the lines ending with it (each holds one \n, at its end): never fewer
    hunks = _hunks(_Matcher(old, new, trim_above, (len(head), len(tail)), after.count), old, new, _marked)
    return f"--- {fromfile}\n+++ {tofile}\n" + "".join(hunks) if hunks else ""


def _hunks(
    matcher: difflib.SequenceMatcher, old: Sequence[Any], new: Sequence[Any], marked: Callable[..., list[str]]
) -> list[str]:
    """The hunks of a unified diff (3 lines of context): each header, then ``marked(mark, lines, start,
    stop)`` of each run of lines, as :func:`difflib.unified_diff` writes them."""
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += marked(" ", old, i1, i2)
            if tag in ("replace", "delete"):
                out += marked("-", old, i1, i2)
            if tag in ("replace", "insert"):
                out += marked("+", new, j1, j2)
    return out


def _marked(mark: str, lines: list[bytes], start: int, stop: int) -> list[str]:
    """``lines[start:stop]`` each prefixed with ``mark``, as one text (``mark.join``: every line but the
    file's last ends with ``\\n``); a last line without a newline gets one and git's ``\\ No newline
    at end of file`` line."""
    if start == stop:
        return []
    text = mark.encode() + mark.encode().join(lines[start:stop])
    if stop == len(lines) and not text.endswith(b"\n"):
        text += b"\n\\ No newline at end of file\n"
    return [text.decode("utf-8")]


# Common heads and tails are compared in slices of up to this many bytes: a slice of this size
# is a plain heap copy (larger ones are mapped pages, which cost more than comparing them).
_SLICE = 1 << 16


def _shared(a: bytes, b: bytes, limit: int, tail: bool = False) -> int:
    """How many leading (``tail``: trailing) bytes ``a`` and ``b`` share, at most ``limit``: slices of
    growing size are compared in C, then the slice holding the first difference is halved down to it."""

    def same(low: int, high: int) -> bool:
        if tail:
            return a[len(a) - high : len(a) - low] == b[len(b) - high : len(b) - low]
        return a[low:high] == b[low:high]

    low, size = 0, 64
    while low < limit:
        high = min(low + size, limit)
        if not same(low, high):
            break
        low, size = high, min(size * 2, _SLICE)
    else:
        return limit
    while high - low > 1:  # the first low bytes are equal, the first high are not
        middle = (low + high) // 2
        low, high = (middle, high) if same(low, middle) else (low, middle)
    return low


def _trim(before: bytes, after: bytes) -> tuple[int, int, int]:
    """``(head, old_tail, new_tail)``: the byte offset where the common leading lines end (as
    :func:`_common` counts them), and where the common trailing lines after those start in ``before``
    and ``after`` (a common byte suffix starts them only where it starts a line in both)."""
    head = before.rfind(b"\n", 0, _shared(before, after, min(len(before), len(after)))) + 1
    same = _shared(before, after, min(len(before), len(after)) - head, tail=True)
    old_tail, new_tail = len(before) - same, len(after) - same
    if not (_starts_line(before, old_tail) and _starts_line(after, new_tail)):
        newline = before.find(b"\n", old_tail)
        step = (newline + 1 if newline >= 0 else len(before)) - old_tail
        old_tail, new_tail = old_tail + step, new_tail + step
    return head, old_tail, new_tail


def _starts_line(data: bytes, offset: int) -> bool:
    """Whether ``offset`` in ``data`` is the start of a line (or the end after a final newline)."""
    return offset == 0 or data[offset - 1] == 10  # b"\n"


def matching_blocks(
    old: Sequence[Hashable],
    new: Sequence[Hashable],
    trim_above: int = TRIM_ABOVE,
    common: tuple[int, int] | None = None,
    at_most: Callable[[Any], int] | None = None,
) -> list[tuple[int, int, int]]:
    """difflib's matching blocks of ``old`` and ``new`` (ending with the ``(len, len, 0)`` sentinel).

    From ``trim_above`` lines on, the common head and tail are matched first and only the middle goes
    to :class:`difflib.SequenceMatcher`, with the popularity difflib computes for the whole file, when
    that is provably difflib's own answer: no line of the middle occurs in the head or tail, no match
    can run across a seam where the middle is empty (:func:`_joins`), and the head and tail each hold
    a line autojunk does not call popular. Otherwise the whole file is matched. ``common``: the head
    and tail lengths when known (:func:`_common`'s, not overlapping); ``at_most``: a quicker count of
    a line in ``new``, never too few (:func:`_unified_bytes`' count in the bytes).
    """

    def whole() -> list[tuple[int, int, int]]:
        return difflib.SequenceMatcher(None, old, new).get_matching_blocks()

    if not old or not new:  # nothing can match: difflib's answer is its sentinel alone
        return [(len(old), len(new), 0)]
    if len(old) + len(new) < trim_above:
        return whole()
    if common is None:
        limit = min(len(old), len(new))
        head = _common(old, new, limit)
        common = head, _common(reversed(old), reversed(new), limit - head)
    head, tail = common
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
            if part and not _holds_unpopular(part, new, most, at_most):
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


def _holds_unpopular(
    part: Sequence[Hashable], lines: Sequence[Hashable], most: int, at_most: Callable[[Any], int] | None = None
) -> bool:
    """Whether a line of ``part`` occurs at most ``most`` times in ``lines``: usually its first
    line says so, counted in C (by ``at_most`` first when given: a bound from above); a part whose
    first lines are all popular has every line counted."""
    for line in part[:8]:
        if (at_most is not None and at_most(line) <= most) or lines.count(line) <= most:
            return True
    if len(part) <= 8:
        return False
    counts = Counter(lines)
    return any(counts[line] <= most for line in part)


def _common(old: Iterable[Hashable], new: Iterable[Hashable], limit: int) -> int:
    """How many leading lines ``old`` and ``new`` share, at most ``limit``: the lines are compared
    by C iterators (no slice copies, no Python loop), stopping at the first difference."""
    return min(next(compress(count(), map(ne, old, new)), limit), limit)


def _joins(lines: Sequence[Hashable], head: int, tail: int, other: Sequence[Hashable]) -> bool:
    """Whether ``lines`` has nothing between head and tail and ``other`` holds the two lines that meet
    there: a match could run across that seam, and difflib could prefer it to the head."""
    if len(lines) != head + tail or not head or not tail:
        return False
    first, second = lines[head - 1], lines[head]
    at, stop = -1, len(other) - 1
    while True:
        try:
            at = other.index(first, at + 1, stop)
        except ValueError:
            return False
        if other[at + 1] == second:
            return True


class _Matcher(difflib.SequenceMatcher):
    """A SequenceMatcher whose matching blocks come from :func:`matching_blocks`."""

    def __init__(
        self,
        old: Sequence[Hashable],
        new: Sequence[Hashable],
        trim_above: int,
        common: tuple[int, int] | None = None,
        at_most: Callable[[Any], int] | None = None,
    ) -> None:
        super().__init__(None)
        self.a, self.b = old, new
        blocks = matching_blocks(old, new, trim_above, common, at_most)
        self.matching_blocks = [difflib.Match(*block) for block in blocks]
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
    hunks = _hunks(_Matcher(old, new, trim_above), old, new, lambda mark, lines, i, j: [mark + x for x in lines[i:j]])
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
