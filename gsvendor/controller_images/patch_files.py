"""The carried patch series as files: ``git format-patch`` output parsed into its commit, subject (read
with :mod:`email`) and per-file hunks (read with ``unidiff``), the series in apply order, and the upstream
files it touches."""

from __future__ import annotations

import email
import email.policy
import itertools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import unidiff

from gsvendor.errors import ConfigError

_FROM_LINE = re.compile(r"^From ([0-9a-f]{40}|[0-9a-f]{64}) ")  # SHA-1 or SHA-256 repositories
_SUBJECT_PREFIX = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*", re.I)


@dataclass(frozen=True)
class Hunk:
    """One ``@@ -a,b +c,d @@`` hunk: ``number`` from 1 within its file (as ``git apply --reject`` counts),
    ``header`` the ``@@`` line, ``old_start`` ``a``; ``before`` the lines it expects (context and removed),
    ``after`` those it leaves, without line feeds (a ``\r`` of a CRLF file stays)."""

    number: int
    header: str
    old_start: int
    before: list[str]
    after: list[str]


@dataclass(frozen=True)
class FileDiff:
    """The diff of one file: ``old_path`` is ``None`` for a created file, ``new_path`` for a deleted one."""

    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]

    @property
    def path(self) -> str:
        """The path the diff applies to in the tree before it (the new path for a created file)."""
        return self.old_path or self.new_path or ""


@dataclass(frozen=True)
class PatchFile:
    """One parsed patch file of the series: ``commit`` and ``subject`` (without ``[PATCH …]``) from its
    mail header; ``problem`` says why it is malformed (``None`` for a well-formed format-patch)."""

    path: Path
    commit: str | None
    subject: str | None
    files: tuple[FileDiff, ...]
    problem: str | None = None

    @property
    def touched(self) -> tuple[str, ...]:
        """Every upstream path the patch reads or writes (old and new names), sorted."""
        return tuple(sorted({p for f in self.files for p in (f.old_path, f.new_path) if p}))


def _strip_prefix(path: str) -> str | None:
    """``a/x/y`` → ``x/y`` (git's ``-p1``), git's C-style quoting undone (``"a/t\\303\\251st"``);
    ``/dev/null`` → ``None``."""
    path = path.rstrip("\r")
    if path == "/dev/null":
        return None
    if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
        raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        path = raw.decode("utf-8", "surrogateescape")
    return path.split("/", 1)[1] if "/" in path else path


def _parse_diffs(lines: list[str], start: int) -> tuple[list[FileDiff], str | None]:
    """Every ``diff --git`` section from ``lines[start:]`` (unidiff reads them); the diffs and a problem, if any."""
    first = next((i for i in range(start, len(lines)) if lines[i].startswith("diff --git ")), len(lines))
    read = itertools.count(first + 1)  # numbers the lines unidiff has read: next(read) - 1 is a corrupt hunk's
    try:
        parsed = unidiff.PatchSet(text + "\n" for text, _ in zip(lines[first:], read, strict=False))
    except unidiff.UnidiffParseError as exc:
        return [], f"line {next(read) - 1}: {str(exc).strip()} (corrupt patch)"
    except ValueError:  # a hunk header number of thousands of digits: int() refuses it
        return [], f"line {next(read) - 1}: a hunk header number too large to read (corrupt patch)"
    files = []
    for diff in parsed:
        hunks = []
        for number, hunk in enumerate(diff, 1):
            # a hunk's first line follows its header, so the header is the line before it as written
            header = lines[first + hunk[0].diff_line_no - 2].rstrip("\r") if hunk else str(hunk).strip()
            before, after = (
                [str(x.value).removesuffix("\n") for x in s] for s in (hunk.source_lines(), hunk.target_lines())
            )
            hunks.append(Hunk(number, header, int(hunk.source_start), before, after))
        files.append(FileDiff(_strip_prefix(diff.source_file), _strip_prefix(diff.target_file), tuple(hunks)))
    return files, None


def parse_patch(path: Path) -> PatchFile:
    """Parse the ``git format-patch`` file at ``path``; a malformed one carries its ``problem``. Raises
    ``OSError`` only, when the file cannot be read (the CLI's one line naming it)."""
    data = path.read_bytes()
    # Patches carry source bytes; keep undecodable ones intact for line comparisons.
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    first = _FROM_LINE.match(lines[0])
    header_end = next((i for i, text in enumerate(lines) if not text.strip()), len(lines))
    message = email.message_from_bytes(data.split(b"\n\n", 1)[0] + b"\n\n", policy=email.policy.default)
    subject = message.get("Subject")
    subject_text = _SUBJECT_PREFIX.sub("", " ".join(str(subject).split())) if subject is not None else None
    # a malformed mail's diff is still read, so the report can say which files it would have touched
    diffs, problem = _parse_diffs(lines, header_end if first and subject is not None else 0)
    if first is None or subject is None:
        missing = "a 'From <commit> …' first line" if first is None else "a Subject: header"
        problem = f"not a git format-patch: it lacks {missing}"
    elif problem is None and not diffs:
        problem = "no diff: the mail holds no 'diff --git' section (an empty commit?)"
    outside = [p for d in diffs for p in (d.old_path, d.new_path) if p and (p.startswith("/") or ".." in p.split("/"))]
    if problem is None and outside:
        problem = f"a path outside the source tree: {outside[0]}"
        diffs = []  # nothing of it is fetched or applied
    return PatchFile(path, first.group(1) if first else None, subject_text, tuple(diffs), problem)


def list_series(folder: Path, label: str) -> list[Path]:
    """The ``*.patch`` files in ``folder`` in the order of the image build's ``/patches/*.patch`` glob: byte
    order, no hidden files. Raises :class:`ConfigError` when ``folder`` is not a folder or a patch no regular file."""
    if not folder.is_dir():
        raise ConfigError(f"{label}: no such folder (the patch series)")
    found = [p for p in folder.iterdir() if p.name.endswith(".patch") and not p.name.startswith(".")]
    if odd := next((p for p in found if not p.is_file()), None):  # a fifo, a dangling link: was skipped, "ok"
        raise ConfigError(f"{label}/{odd.name}: not a regular file (the image build applies every *.patch)")
    return sorted(found, key=lambda p: p.name.encode("utf-8", "surrogateescape"))


def wanted_files(patches: list[PatchFile]) -> tuple[str, ...]:
    """The upstream files to fetch: every path the patches touch, and the ``.gitattributes`` above them
    (they can change how ``git apply`` reads a file's line endings)."""
    paths = {path for patch in patches for path in patch.touched}
    attributes = {str(parent / ".gitattributes") for path in paths for parent in PurePosixPath(path).parents}
    return tuple(sorted(paths | attributes))
