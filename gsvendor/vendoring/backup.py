"""File states for the swap journal and durable backups of what a swap or a recovery replaces.

:func:`state` names what stands at a path (``absent``, ``file:<sha256>``, ``link:<sha256 of the
target>``, ``dir:<sha256 of the listing and states below>``, ``other``), without following links,
so a recovery can tell a path still holding the old or new content from one edited since.
:func:`copy_backup` copies paths to ``.gsvendor-backup/<UTC time>-<random>/`` and fsyncs every
file and folder it made before returning.
"""

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


def fsync_dir(folder: Path) -> None:
    """fsync ``folder`` itself (its entries: new names, renames, removals); errors are ignored
    (some file systems cannot fsync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def state(path: Path) -> str:
    """What stands at ``path`` (links not followed), in the journal's notation (module docstring).

    Raises :class:`OSError` when it cannot be read.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "absent"
    if stat.S_ISREG(info.st_mode):
        return f"file:{_file_digest(path)}"
    if stat.S_ISLNK(info.st_mode):
        return f"link:{hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()}"
    if stat.S_ISDIR(info.st_mode):
        digest = hashlib.sha256()
        for folder, names, files in os.walk(path):  # links to folders are listed in names, not entered
            names.sort()
            for name in sorted(names + files):
                entry = Path(folder) / name
                inner = state(entry) if not _is_real_dir(entry) else "dir"
                digest.update(os.fsencode(f"{entry.relative_to(path)}\0{inner}\n"))
        return f"dir:{digest.hexdigest()}"
    return "other"


def file_state(data: bytes) -> str:
    """The state of a regular file holding ``data``."""
    return f"file:{hashlib.sha256(data).hexdigest()}"


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def copy_backup(root: Path, paths: list[str]) -> Path:
    """Copy ``paths`` (project-relative files, links or folders; missing ones are skipped) to a new
    ``root/.gsvendor-backup/<UTC time>-<random>/``, keeping their relative paths, and return that
    folder once every file and folder in it is fsync'd. Raises :class:`OSError` (the partial
    backup is left: it is only ever added to)."""
    top = root / BACKUP_FOLDER
    top.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    backup_dir = Path(tempfile.mkdtemp(prefix=f"{stamp}-", dir=top))  # unique
    for rel in paths:
        target = backup_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        source = root / rel
        if _is_real_dir(source):
            shutil.copytree(source, target, symlinks=True)
        elif os.path.lexists(source) and (source.is_symlink() or source.is_file()):
            shutil.copy2(source, target, follow_symlinks=False)
    _fsync_tree(backup_dir)
    fsync_dir(top)
    fsync_dir(root)
    return backup_dir


def _fsync_tree(top: Path) -> None:
    """fsync every regular file and folder at and below ``top`` (deepest first, then ``top``)."""
    for folder, _, files in os.walk(top, topdown=False):
        for name in files:
            path = Path(folder) / name
            if stat.S_ISREG(os.lstat(path).st_mode):
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        fsync_dir(Path(folder))
