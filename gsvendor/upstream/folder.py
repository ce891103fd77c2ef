"""The folder source kind: a local upstream checkout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gsvendor import gitcmd
from gsvendor.errors import SourceError, ToolError
from gsvendor.upstream.source import (
    MAX_MEMBERS,
    FileBudget,
    UpstreamSnapshot,
    Wanted,
    _one_line,
    check_path,
    missing_tag,
)


def read_folder(folder: Path, tag: str, wanted: Wanted, *, location: str) -> UpstreamSnapshot:
    """Read the ``wanted`` files from a local upstream checkout.

    Links leading outside the folder are refused, and the limits of archives hold: at most
    :data:`MAX_MEMBERS` files looked at, each wanted file and all of them together within
    ``GSVENDOR_MAX_MEMBER_MIB`` / ``GSVENDOR_MAX_TOTAL_MIB`` (sizes checked before a file is read,
    and while it is read). When the folder is a git checkout, ``tag`` must be one of its tags and
    name its HEAD: a checkout at another commit, or without the tag, is a :class:`SourceError`
    naming the tag, the tags near it and HEAD (HEAD is never read in its place).
    """
    try:
        folder = folder.resolve()
        if not (folder / "charts").is_dir():
            raise SourceError(f"{location}: no charts/ folder (not an upstream checkout)")
        files = _read_folder_files(folder, wanted, location)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (pathlib)
        raise SourceError(f"{location}: cannot read: {_one_line(exc)}") from None
    commit = _folder_commit(folder, tag, location)
    return UpstreamSnapshot(tag=tag, kind="folder", location=location, files=files, commit=commit)


def _read_folder_files(folder: Path, wanted: Wanted, location: str) -> dict[str, bytes]:
    budget = FileBudget(location)
    seen = 0
    files: dict[str, bytes] = {}
    roots = [folder / f for f in wanted.folders] + [folder / f for f in wanted.files]
    for root in roots:
        candidates: Iterable[Path] = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in candidates:
            seen += 1
            if seen > MAX_MEMBERS:
                raise SourceError(f"{location}: refusing a folder of more than {MAX_MEMBERS} files")
            if path.is_dir():
                continue
            real = path.resolve()
            if folder not in real.parents:
                raise SourceError(f"{location}: refusing link leading outside the folder: {path}")
            if not path.exists():
                raise SourceError(f"{location}: dangling link: {path}")
            if not path.is_file():
                raise SourceError(f"{location}: refusing device or special file: {path}")
            rel = path.relative_to(folder).as_posix()
            check_path(rel, location)
            if wanted.matches(rel):
                files[rel] = budget.read(real, rel)
    return files


def _folder_commit(folder: Path, tag: str, location: str) -> str | None:
    """The commit of a git checkout ``folder``, which must be ``tag``'s; ``None`` outside git or when
    git cannot tell. Raises :class:`SourceError` when the checkout is at another commit or has no ``tag``."""
    if not (folder / ".git").exists():
        return None

    def git(*args: str) -> str | None:
        try:
            done = gitcmd.run(args, folder, timeout=30)
        except ToolError:  # not installed, or out of time
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    head = git("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if not head:
        return None
    tagged = git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}")
    if not tagged:
        tags = (git("tag", "--list") or "").splitlines()
        raise missing_tag(location, tag, tags, head)
    if tagged != head:
        raise SourceError(f"{location}: the checkout is at {head[:12]}, but {tag} is {tagged[:12]}")
    return head
