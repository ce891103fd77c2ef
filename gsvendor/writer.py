"""Writing the output tree atomically, and telling our own output from hand edits.

:func:`plan_changes` and :func:`hand_edits` only read; :func:`write_atomically` builds every
destination aside (in a staging folder on the same file system) and swaps them in with renames,
rolling back on any failure, so a failed sync leaves the output exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gsvendor.errors import GsvendorError
from gsvendor.lock import Lock, sha256

Tree = dict[str, dict[str, bytes]]  # destination folder → relative path → bytes


@dataclass(frozen=True)
class FileChange:
    """One file that differs between disk and the desired tree: ``added``, ``changed`` or ``removed``."""

    dest: str
    path: str
    status: str


def read_tree(root: Path, dest: str) -> dict[str, bytes]:
    """Every file below ``root/dest`` (relative POSIX path → bytes); empty when the folder is absent."""
    folder = root / dest
    if not folder.is_dir():
        return {}
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def plan_changes(root: Path, desired: Tree) -> list[FileChange]:
    """What writing ``desired`` would change on disk, sorted by destination and path."""
    changes = []
    for dest, files in desired.items():
        current = read_tree(root, dest)
        for path in sorted(set(files) | set(current)):
            if path not in current:
                changes.append(FileChange(dest, path, "added"))
            elif path not in files:
                changes.append(FileChange(dest, path, "removed"))
            elif files[path] != current[path]:
                changes.append(FileChange(dest, path, "changed"))
    return changes


def hand_edits(root: Path, desired: Tree, lock: Lock | None) -> list[str]:
    """Files on disk that neither the lock nor the new output explain (project-relative paths).

    A file is explained when its bytes equal what the lock recorded as the result, or what the
    new build will write. Files the lock lists but that are missing on disk lose no work and are
    not reported.
    """
    recorded: dict[str, str] = {}
    if lock is not None:
        for chart in lock.charts.values():
            for path, entry in chart.files.items():
                recorded[f"{chart.dest}/{path}"] = entry.result
    unexplained = []
    for dest, files in desired.items():
        for path, data in read_tree(root, dest).items():
            if files.get(path) == data:
                continue
            if recorded.get(f"{dest}/{path}") == sha256(data):
                continue
            unexplained.append(f"{dest}/{path}")
    return unexplained


def _write_files(folder: Path, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True)
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def write_atomically(
    root: Path,
    desired: Tree,
    lock_path: Path,
    lock_bytes: bytes,
    backup: list[str] | None = None,
) -> Path | None:
    """Replace each destination folder under ``root`` with ``desired`` and write the lock file.

    ``backup`` lists project-relative files to keep before they are replaced; they are copied to
    ``.gsvendor-backup/<UTC time>/`` whose path is returned. On any error every destination is
    put back as it was and :class:`GsvendorError` is raised.
    """
    staging = Path(tempfile.mkdtemp(prefix=".gsvendor-staging-", dir=root))
    swapped: list[tuple[Path, Path | None]] = []  # (destination, where its old copy went)
    created_parents: list[Path] = []
    backup_dir = None
    try:
        for index, files in enumerate(desired.values()):
            _write_files(staging / f"new-{index}", files)
        if backup:
            backup_dir = root / ".gsvendor-backup" / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            for rel in backup:
                target = backup_dir / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / rel, target)
        lock_tmp = staging / "lock"
        lock_tmp.write_bytes(lock_bytes)
        for index, dest in enumerate(desired):
            target = root / dest
            parent = target.parent
            missing = []
            while not parent.exists():
                missing.append(parent)
                parent = parent.parent
            for folder in reversed(missing):
                folder.mkdir()
                created_parents.append(folder)
            old = None
            if target.exists() or target.is_symlink():
                old = staging / f"old-{index}"
                os.rename(target, old)
            swapped.append((target, old))
            os.rename(staging / f"new-{index}", target)
        os.replace(lock_tmp, lock_path)
    except BaseException as exc:
        for target, old in reversed(swapped):
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            if old is not None:
                os.rename(old, target)
        for folder in reversed(created_parents):
            with contextlib.suppress(OSError):
                folder.rmdir()
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise GsvendorError(f"writing the output failed, nothing changed: {exc}") from None
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return backup_dir
