"""Judge the carried patch series on upstream's files as ``Dockerfile.llmisvc`` applies it (``git apply`` of every
``patches/llmisvc/*.patch`` in name order, each on the tree the earlier ones left): ``applies``; ``does not apply``
(nor reversed: each failing hunk named with its expected lines and upstream's there); ``already upstream`` (it
reverse-applies: drop it); ``malformed`` (no ``git format-patch`` output, no diff, or one git cannot parse)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gsvendor import gitcmd
from gsvendor.controller_images.patch_files import FileDiff, Hunk, PatchFile

APPLIES, DOES_NOT_APPLY, ALREADY_UPSTREAM, MALFORMED = "applies", "does not apply", "already upstream", "malformed"
STATUSES = (APPLIES, DOES_NOT_APPLY, ALREADY_UPSTREAM, MALFORMED)


@dataclass(frozen=True)
class HunkFailure:
    """Why (part of) a patch does not apply: ``hunk`` its 1-based number in ``file`` (``None``: the whole file
    fails), ``expected`` the lines it looks for near ``expected_line``, ``upstream`` upstream's lines at the
    closest place from ``upstream_line``; ``already_upstream``: the hunk's result is in the file already."""

    file: str
    hunk: int | None
    header: str | None
    reason: str
    expected_line: int | None = None
    expected: tuple[str, ...] = ()
    upstream_line: int | None = None
    upstream: tuple[str, ...] = ()
    already_upstream: bool = False

    def as_json(self) -> dict[str, Any]:
        """The machine-readable form: the fields, camel-cased (``expectedLine``)."""
        fields = asdict(self).items()
        return {re.sub(r"_(.)", lambda m: m[1].upper(), k): list(v) if isinstance(v, tuple) else v for k, v in fields}


@dataclass
class PatchResult:
    """The verdict on one patch: ``status`` (:data:`STATUSES`), a one-line ``message``, the hunk ``failures``, what
    ``git apply`` printed, and ``after_failed``: the earlier patches that did not apply (judged without them)."""

    patch: PatchFile
    status: str
    message: str
    failures: list[HunkFailure] = field(default_factory=list)
    git_output: str = ""
    seconds: float = 0.0
    after_failed: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The patch file name."""
        return self.patch.path.name

    def as_json(self) -> dict[str, Any]:
        """The machine-readable form."""
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "subject": self.patch.subject,
            "commit": self.patch.commit,
            "files": list(self.patch.touched),
            "failures": [f.as_json() for f in self.failures],
            "afterFailed": list(self.after_failed),
            "git": self.git_output,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class SeriesReport:
    """The result of :func:`~gsvendor.workflows.patch_verify.verify_series`: ``source`` where upstream came
    from (kind, location, commit; ``None`` when nothing was fetched), ``fetched`` the upstream files read."""

    tag: str
    patches_dir: str
    results: list[PatchResult]
    source: dict[str, Any] | None = None
    fetched: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every patch applies (an empty series is ok)."""
        return all(r.status == APPLIES for r in self.results)

    @property
    def empty(self) -> bool:
        """Whether the series holds no patch."""
        return not self.results

    def counts(self) -> dict[str, int]:
        """Number of patches per status."""
        return {status: sum(r.status == status for r in self.results) for status in STATUSES}

    def as_json(self) -> dict[str, Any]:
        """The machine-readable form (``--json``)."""
        return {
            "tag": self.tag,
            "patches": self.patches_dir,
            "ok": self.ok,
            "empty": self.empty,
            "source": self.source,
            "fetched": list(self.fetched),
            "counts": self.counts(),
            "results": [r.as_json() for r in self.results],
            "notes": self.notes,
        }


def run_git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd`` isolated from user and system config (as the image build runs it) and
    from a hook's ``GIT_DIR``; raises :class:`ToolError` when git is missing or runs past 300 s."""
    return gitcmd.run(args, cwd, timeout=300.0, isolated=True)  # git apply of one patch takes milliseconds


def git_output(result: subprocess.CompletedProcess[str]) -> str:
    """What git printed (stdout, then stderr), stripped, undecodable bytes shown as U+FFFD."""
    return gitcmd.readable((result.stdout + result.stderr).strip())


def _read_lines(path: Path) -> list[str]:
    """The lines of a tree file as the patch parser splits them; none when absent."""
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").split("\n")
    except OSError:
        return []


def locate(current: list[str], expected: list[str], hint: int) -> tuple[int, bool]:
    """Where ``expected`` (a hunk's preimage) best lines up with ``current``: (0-based start, found). Each
    line with a letter or digit votes for the starts it implies, weighted 1/(its occurrences); ties go to
    the start closest to ``hint``. Without any vote: ``hint`` within the file, and ``found`` false."""
    positions: dict[str, list[int]] = {}
    for index, text in enumerate(current):
        positions.setdefault(text, []).append(index)
    voters = [(offset, text) for offset, text in enumerate(expected) if any(c.isalnum() for c in text)]
    votes: Counter[int] = Counter()
    for offset, text in voters or list(enumerate(expected)):
        found = positions.get(text, [])
        votes.update({index - offset: 1.0 / len(found) for index in found if index >= offset})
    if not votes:
        return max(0, min(hint, len(current) - len(expected))), False
    return max(votes, key=lambda start: (round(votes[start], 6), -abs(start - hint))), True


_REJECTED_FILE = re.compile(r"^Applying patch (.+?) with \d+ rejects?\.\.\.$")
_REJECTED_HUNK = re.compile(r"^Rejected hunk #(\d+)\.$")
# the whole-file errors of git apply without --index (the "… in index" ones need it)
_FILE_ERROR = re.compile(r"^error: (.+?): (No such file or directory|already exists in working directory|wrong type)$")


def _explain(patch: PatchFile, tree: Path, tag: str) -> tuple[list[HunkFailure], str]:
    """The failing hunks by ``git apply --reject`` (it names each, ``--check`` does not) on a copy; git's output."""
    with tempfile.TemporaryDirectory(prefix="gsvendor-reject-") as scratch:
        copy = shutil.copytree(tree, Path(scratch) / "tree", symlinks=True)
        output = git_output(run_git(["apply", "--verbose", "--reject", str(patch.path.resolve())], copy))
    rejected: dict[str, list[int]] = {}
    file_errors: dict[str, str] = {}
    current = None
    for text in output.splitlines():
        if match := _REJECTED_FILE.match(text):
            current = match.group(1).split(" => ", 1)[0]  # a renamed file is named "old => new"
        elif (match := _REJECTED_HUNK.match(text)) and current is not None:
            rejected.setdefault(current, []).append(int(match.group(1)))
        elif match := _FILE_ERROR.match(text):
            file_errors.setdefault(match.group(1), match.group(2))
    failures: list[HunkFailure] = []
    for diff in patch.files:
        # git names a file by its old path, a created one by its new
        if error := file_errors.get(diff.path) or file_errors.get(diff.new_path or ""):
            failures.append(_file_failure(diff, error, tree, tag))
            continue
        numbers = rejected.get(diff.path) or rejected.get(diff.new_path or "", [])
        lines = _read_lines(tree / diff.path) if numbers else []
        failures += [_hunk_failure(diff.path, diff.hunks[n - 1], lines) for n in numbers if 0 < n <= len(diff.hunks)]
    return failures, output


def _file_failure(diff: FileDiff, error: str, tree: Path, tag: str) -> HunkFailure:
    """A whole-file failure: the file is missing upstream, or the patch creates a file upstream has."""
    name = diff.path
    if error == "No such file or directory":
        return HunkFailure(name, None, None, f"upstream {tag} has no {name}")
    if "already exists" in error:
        upstream = tuple(gitcmd.readable(line) for line in _read_lines(tree / name)[:10])
        reason = f"the patch creates {name}, but upstream {tag} already has it (with other content)"
        return HunkFailure(name, None, None, reason, upstream_line=1, upstream=upstream)
    return HunkFailure(name, None, None, f"{name}: {error}")


def _hunk_failure(name: str, hunk: Hunk, lines: list[str]) -> HunkFailure:
    """A rejected hunk, with upstream's current lines where the hunk's context lines up best."""
    if lines and lines[-1] == "":
        lines = lines[:-1]  # the empty string after the file's final newline is not a line
    expected = hunk.before
    start, found = locate(lines, expected, hunk.old_start - 1)
    window = lines[start : start + max(len(expected), 1)]
    # its result is in the file as consecutive lines (lines hold no line feed)
    result, text = ("\n".join(["", *part, ""]) for part in (hunk.after, lines))
    done = bool(hunk.after) and hunk.after != expected and result in text
    header = gitcmd.readable(hunk.header)
    reason = f"hunk {hunk.number} ({header}) does not apply"
    if done:
        reason += "; its result is already upstream"
    elif not found and expected:
        reason += f"; none of its lines occur in upstream's file ({len(lines)} lines)"
    shown, upstream = (tuple(gitcmd.readable(line) for line in part) for part in (expected, window))
    upstream_line = start + 1 if lines else None
    return HunkFailure(name, hunk.number, header, reason, hunk.old_start, shown, upstream_line, upstream, done)


def _summary(failures: list[HunkFailure]) -> str:
    if not failures:
        return "git apply failed"
    parts = [
        f.reason if f.hunk is None else f"{f.file} hunk {f.hunk} (upstream line {f.upstream_line})" for f in failures
    ]
    return "; ".join(parts[:3]) + (f" and {len(failures) - 3} more" if len(failures) > 3 else "")


def apply_series(patches: list[PatchFile], tree: Path, tag: str) -> list[PatchResult]:
    """Apply ``patches`` in order to the git work tree ``tree`` and judge each (see the module doc); one that
    does not apply leaves the tree as it was (``git apply`` is all-or-nothing)."""
    results: list[PatchResult] = []
    for patch in patches:
        started = time.monotonic()
        result = _judge(patch, tree, tag)
        result.seconds = time.monotonic() - started
        if result.status != APPLIES:
            result.after_failed = tuple(r.name for r in results if r.status != APPLIES)
        results.append(result)
    return results


def _judge(patch: PatchFile, tree: Path, tag: str) -> PatchResult:
    if patch.problem is not None:
        return PatchResult(patch, MALFORMED, patch.problem)
    target = str(patch.path.resolve())
    # The same command as Dockerfile.llmisvc's RUN step, in a tree holding upstream's files.
    forward = run_git(["apply", "--verbose", target], tree)
    if forward.returncode == 0:
        return PatchResult(patch, APPLIES, f"applies to {tag}", git_output=git_output(forward))
    output = git_output(forward)
    if forward.returncode == 128 or "corrupt patch" in output or "No valid patches" in output:
        reason = next((line for line in output.splitlines() if line.startswith(("error:", "fatal:"))), output)
        return PatchResult(patch, MALFORMED, f"git apply cannot read it: {reason}", git_output=output)
    if run_git(["apply", "--check", "--reverse", target], tree).returncode == 0:
        message = f"upstream {tag} already carries this change: drop the patch"
        return PatchResult(patch, ALREADY_UPSTREAM, message, git_output=output)
    failures, detail = _explain(patch, tree, tag)
    return PatchResult(patch, DOES_NOT_APPLY, _summary(failures), failures, git_output=output or detail)
