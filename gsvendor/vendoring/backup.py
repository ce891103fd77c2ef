"""File states for the swap journal (links not followed, so a recovery can tell a path still holding the old or
new content from one edited since) and durable backups of what a swap or a recovery replaces."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from gsvendor.journal_trust import BACKUP_FOLDER


def fsync_path(path: Path, folder: bool = True) -> None:
    """fsync ``path``: a folder (errors ignored: some file systems cannot), or with ``folder=False`` a file
    (not followed if a link; raises :class:`OSError`)."""
    with contextlib.suppress(*((OSError,) if folder else ())):
        fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if folder else os.O_NOFOLLOW))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def is_real_dir(path: Path) -> bool:
    """Whether ``path`` is a folder, not a link to one (``False`` when it cannot be read)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def state(path: Path) -> str:
    """What stands at ``path``: ``absent``, ``file:<sha256>``, ``link:<sha256 of the target>``, ``dir:<sha256 of
    the listing and states below>`` or ``other``. Raises :class:`OSError`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "absent"
    if stat.S_ISREG(info.st_mode):
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as handle:
            return f"file:{hashlib.file_digest(handle, 'sha256').hexdigest()}"
    if stat.S_ISLNK(info.st_mode):
        return f"link:{hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()}"
    if stat.S_ISDIR(info.st_mode):
        digest = hashlib.sha256()
        for folder, names, files in os.walk(path):  # links to folders are listed in names, not entered
            names.sort()
            for name in sorted(names + files):
                entry = Path(folder) / name
                inner = state(entry) if not is_real_dir(entry) else "dir"
                digest.update(os.fsencode(f"{entry.relative_to(path)}\0{inner}\n"))
        return f"dir:{digest.hexdigest()}"
    return "other"


def copy_backup(root: Path, paths: list[str]) -> Path:
    """Copy ``paths`` (project-relative; missing ones skipped) to a new ``root/.gsvendor-backup/<UTC time>-<random>/``
    and return it once all in it is fsync'd. Raises :class:`OSError` (a partial backup is left)."""
    top = root / BACKUP_FOLDER
    top.mkdir(exist_ok=True)
    if not is_real_dir(top):  # a link (a checkout can hold one) would take the hand edits out of the project
        raise OSError(20, "a link or a file, not a folder", str(top))  # ENOTDIR
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    backup_dir = Path(tempfile.mkdtemp(prefix=f"{stamp}-", dir=top))  # unique
    for rel in paths:
        target, source = backup_dir / rel, root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_real_dir(source):
            shutil.copytree(source, target, symlinks=True)
        elif os.path.lexists(source) and (source.is_symlink() or source.is_file()):
            shutil.copy2(source, target, follow_symlinks=False)
    for folder, _, files in os.walk(backup_dir, topdown=False):  # deepest first
        for name in files:
            if stat.S_ISREG(os.lstat(Path(folder) / name).st_mode):
                fsync_path(Path(folder) / name, folder=False)
        fsync_path(Path(folder))
    fsync_path(top)
    fsync_path(root)
    return backup_dir
