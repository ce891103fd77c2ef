"""The carried patch series as files: ``git format-patch`` output parsed into its commit, subject
and per-file hunks (:func:`parse_patch`), the series folder listed in apply order
(:func:`list_series`), and the upstream files a series touches (:func:`wanted_files`)."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gsvendor.errors import ConfigError

_FROM_LINE = re.compile(r"^From ([0-9a-f]{40}|[0-9a-f]{64}) ")  # SHA-1 or SHA-256 repositories
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_SUBJECT_PREFIX = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*", re.I)
_EXTENDED_HEADERS = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "copy from ",
    "copy to ",
    "rename from ",
    "rename to ",
    "similarity index ",
    "dissimilarity index ",
    "index ",
)


@dataclass(frozen=True)
class Hunk:
    """One ``@@ -a,b +c,d @@`` hunk of a file diff.

    ``number`` counts from 1 within its file (as ``git apply --reject`` numbers them); ``line`` is
    the hunk header's 1-based line in the .patch file; ``body`` its lines with their prefix
    character (`` ``, ``-``, ``+``).
    """

    number: int
    header: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    line: int
    body: tuple[str, ...]

    @property
    def before(self) -> list[str]:
        """The lines the hunk expects to find (context and removed lines)."""
        return [text[1:] for text in self.body if text[:1] in (" ", "-", "")]

    @property
    def after(self) -> list[str]:
        """The lines the hunk leaves (context and added lines)."""
        return [text[1:] for text in self.body if text[:1] in (" ", "+", "")]


@dataclass(frozen=True)
class FileDiff:
    """The diff of one file: ``old_path`` is ``None`` for a created file, ``new_path`` for a deleted one."""

    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]
    line: int
    binary: bool = False

    @property
    def path(self) -> str:
        """The path the diff applies to in the tree before it (the new path for a created file)."""
        return self.old_path or self.new_path or ""


@dataclass(frozen=True)
class PatchFile:
    """One parsed patch file of the series.

    ``problem`` says why it is malformed (``None`` for a well-formed format-patch); ``commit``,
    ``author`` and ``subject`` come from its mail header (subject without ``[PATCH …]``).
    """

    path: Path
    commit: str | None
    author: str | None
    subject: str | None
    files: tuple[FileDiff, ...]
    problem: str | None = None

    @property
    def name(self) -> str:
        """The file name (``0001-….patch``)."""
        return self.path.name

    @property
    def touched(self) -> tuple[str, ...]:
        """Every upstream path the patch reads or writes (old and new names), sorted."""
        paths = {p for f in self.files for p in (f.old_path, f.new_path) if p}
        return tuple(sorted(paths))


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of a path with unusual characters (``"a/t\\303\\251st"``)."""
    if not (len(path) >= 2 and path.startswith('"') and path.endswith('"')):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", "surrogateescape")


def _strip_prefix(path: str) -> str | None:
    """``a/x/y`` → ``x/y`` (git's ``-p1``); ``/dev/null`` → ``None``."""
    path = _unquote(path.split("\t", 1)[0].rstrip("\r"))
    if path == "/dev/null":
        return None
    return path.split("/", 1)[1] if "/" in path else path


def _diff_git_paths(rest: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git a/X b/Y`` (used only when no ``---``/``+++`` lines say them)."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
    # Without quotes a space in a name makes the split ambiguous; git's own rule: both names equal.
    for match in re.finditer(r" b/", rest):
        old, new = rest[: match.start()], rest[match.start() + 1 :]
        if old[2:] == new[2:]:
            return _strip_prefix(old), _strip_prefix(new)
    old, _, new = rest.partition(" ")
    return _strip_prefix(old), _strip_prefix(new)


def _parse_diffs(lines: list[str], start: int) -> tuple[list[FileDiff], str | None]:
    """Every ``diff --git`` section from ``lines[start:]``; returns the diffs and a problem, if any."""
    diffs: list[FileDiff] = []
    i = start
    while i < len(lines):
        if not lines[i].startswith("diff --git "):
            i += 1
            continue
        first = i
        old, new = _diff_git_paths(lines[i][len("diff --git ") :])
        created = deleted = binary = False
        i += 1
        while i < len(lines):
            text = lines[i]
            if text.startswith("--- "):
                old = _strip_prefix(text[4:])
            elif text.startswith("+++ "):
                new = _strip_prefix(text[4:])
            elif text.startswith(("rename from ", "copy from ")):
                old = _unquote(text.split(" ", 2)[2].rstrip("\r"))
            elif text.startswith(("rename to ", "copy to ")):
                new = _unquote(text.split(" ", 2)[2].rstrip("\r"))
            elif text.startswith("new file mode "):
                created = True
            elif text.startswith("deleted file mode "):
                deleted = True
            elif text.startswith(("GIT binary patch", "Binary files ")):
                binary = True
            elif not text.startswith(_EXTENDED_HEADERS):
                break
            i += 1
        if created:
            old = None
        if deleted:
            new = None
        hunks: list[Hunk] = []
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i].rstrip("\r"))
            if not match:
                return diffs, f"line {i + 1}: unreadable hunk header {lines[i]!r}"
            old_count = int(match.group(2)) if match.group(2) is not None else 1
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            header_line = i
            i += 1
            body: list[str] = []
            old_left, new_left = old_count, new_count
            while old_left > 0 or new_left > 0:
                if i >= len(lines):
                    return diffs, f"line {header_line + 1}: hunk ends early (corrupt patch)"
                text = lines[i]
                kind = text[:1]
                if kind in (" ", ""):  # git reads an empty line as an empty context line
                    old_left, new_left = old_left - 1, new_left - 1
                elif kind == "-":
                    old_left -= 1
                elif kind == "+":
                    new_left -= 1
                elif kind != "\\":
                    return diffs, f"line {i + 1}: unexpected line in a hunk (corrupt patch)"
                if kind != "\\":
                    body.append(text)
                i += 1
            if old_left < 0 or new_left < 0:
                return diffs, f"line {header_line + 1}: hunk line counts do not match its header (corrupt patch)"
            if i < len(lines) and lines[i].startswith("\\"):
                i += 1  # "\ No newline at end of file" after the last line
            hunks.append(
                Hunk(
                    number=len(hunks) + 1,
                    header=lines[header_line].rstrip("\r"),
                    old_start=int(match.group(1)),
                    old_count=old_count,
                    new_start=int(match.group(3)),
                    new_count=new_count,
                    line=header_line + 1,
                    body=tuple(body),
                )
            )
        diffs.append(FileDiff(old_path=old, new_path=new, hunks=tuple(hunks), line=first + 1, binary=binary))
    return diffs, None


def parse_patch(path: Path) -> PatchFile:
    """Parse the ``git format-patch`` file at ``path``; a malformed one carries its ``problem``.

    Raises :class:`ConfigError` only when the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    # Patches carry source bytes; keep undecodable ones intact for line comparisons.
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    first = _FROM_LINE.match(lines[0]) if lines else None
    header_end = next((i for i, text in enumerate(lines) if not text.strip()), len(lines))
    message = email.message_from_bytes(data.split(b"\n\n", 1)[0] + b"\n\n", policy=email.policy.default)
    subject = message.get("Subject")
    author = message.get("From")
    subject_text = _SUBJECT_PREFIX.sub("", " ".join(str(subject).split())) if subject is not None else None
    author_text = " ".join(str(author).split()) if author is not None else None
    commit = first.group(1) if first else None
    if first is None or subject is None:
        missing = "a 'From <commit> …' first line" if first is None else "a Subject: header"
        # Still parse the diff, so the report can say which files it would have touched.
        diffs, _ = _parse_diffs(lines, 0)
        return PatchFile(
            path, commit, author_text, subject_text, tuple(diffs), f"not a git format-patch: it lacks {missing}"
        )
    diffs, problem = _parse_diffs(lines, header_end)
    if problem is None and not diffs:
        problem = "no diff: the mail holds no 'diff --git' section (an empty commit?)"
    outside = [p for d in diffs for p in (d.old_path, d.new_path) if p and (p.startswith("/") or ".." in p.split("/"))]
    if problem is None and outside:
        problem = f"a path outside the source tree: {outside[0]}"
        diffs = []  # nothing of it is fetched or applied
    return PatchFile(path, commit, author_text, subject_text, tuple(diffs), problem)


def list_series(folder: Path, label: str) -> list[Path]:
    """The series in ``folder``: its ``*.patch`` files in the order the image build applies them.

    That order is the shell's ``/patches/*.patch`` glob: byte order of the names, no hidden
    files, regular files only. Raises :class:`ConfigError` when ``folder`` is not a folder.
    """
    if not folder.is_dir():
        raise ConfigError(f"{label}: no such folder (the patch series)")
    found = [p for p in folder.iterdir() if p.name.endswith(".patch") and not p.name.startswith(".") and p.is_file()]
    return sorted(found, key=lambda p: p.name.encode("utf-8", "surrogateescape"))


def wanted_files(patches: list[PatchFile]) -> tuple[str, ...]:
    """The upstream files to fetch: every path the patches touch, and the ``.gitattributes`` above them.

    ``.gitattributes`` can change how ``git apply`` reads a file (line endings), so the tree
    should hold the same ones as a full clone.
    """
    paths: set[str] = set()
    for patch in patches:
        for path in patch.touched:
            paths.add(path)
            parent = PurePosixPath(path).parent
            while True:
                paths.add(str(parent / ".gitattributes") if str(parent) != "." else ".gitattributes")
                if str(parent) in (".", "/") or parent == parent.parent:  # also ends for an absolute path
                    break
                parent = parent.parent
    return tuple(sorted(paths))
