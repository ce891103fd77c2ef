"""Comparing two file trees: unified diffs per file, as verify and diff print them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class FileDiff:
    """A unified diff of one file between two versions; ``text`` is empty when they are equal."""

    path: str
    status: str
    text: str


def unified(path: str, before: bytes | None, after: bytes | None, labels: tuple[str, str]) -> str:
    """A unified diff (3 lines of context) from ``before`` to ``after``; ``None`` is an absent file."""
    if before == after:
        return ""
    if (before and b"\0" in before) or (after and b"\0" in after):
        return f"Binary files {labels[0]}/{path} and {labels[1]}/{path} differ\n"
    old = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old,
        new,
        fromfile=f"{labels[0]}/{path}" if before is not None else "/dev/null",
        tofile=f"{labels[1]}/{path}" if after is not None else "/dev/null",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


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
