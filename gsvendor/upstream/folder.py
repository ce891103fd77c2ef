"""The folder source kind: a local upstream checkout."""

from __future__ import annotations

from pathlib import Path

from gsvendor import gitcmd
from gsvendor.errors import SourceError, ToolError
from gsvendor.upstream.source import UpstreamSnapshot, Wanted, missing_tag, one_line, read_tree


def read_folder(folder: Path, tag: str, wanted: Wanted, *, location: str) -> UpstreamSnapshot:
    """Read the ``wanted`` files from a local upstream checkout (an extract when no folder is wanted), in
    :func:`read_tree`'s bounds; in a git checkout ``tag`` must name HEAD, else :class:`SourceError`."""
    try:
        folder = folder.resolve()
        charts = (folder / "charts").is_dir()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (pathlib)
        raise SourceError(f"{location}: cannot read: {one_line(exc)}") from None
    if not charts and wanted.folders:
        raise SourceError(f"{location}: no charts/ folder (not an upstream checkout)")
    files = read_tree(folder, wanted, location, "folder")
    try:  # real folders only: a link (pkg -> /etc) is not a folder of the source, as in an archive or in git
        folders = frozenset(p.name for p in folder.iterdir() if not p.is_symlink() and p.is_dir() and p.name != ".git")
    except OSError:
        folders = None
    commit = _folder_commit(folder, tag, location)
    return UpstreamSnapshot(tag=tag, kind="folder", location=location, files=files, commit=commit, folders=folders)


def _folder_commit(folder: Path, tag: str, location: str) -> str | None:
    """HEAD of a git checkout ``folder``, which must be ``tag``'s; ``None`` when git cannot tell."""

    def git(*args: str) -> str | None:
        try:
            done = gitcmd.run(args, folder, timeout=30)
        except ToolError:  # not installed, or out of time
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    head = git("rev-parse", "--verify", "--quiet", "HEAD^{commit}") if (folder / ".git").exists() else None
    if not head:
        return None
    tagged = git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}")
    if not tagged:
        raise missing_tag(location, tag, (git("tag", "--list") or "").splitlines(), head)
    if tagged != head:
        raise SourceError(f"{location}: the checkout is at {head[:12]}, but {tag} is {tagged[:12]}")
    return head
