"""Writing the output: change planning against disk, hand-edit detection, staging and the atomic swap."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gsvendor.errors import GsvendorError
from gsvendor.files import _foreign, read_file, read_tree
from gsvendor.vendor.lock import Lock, sha256
from gsvendor.vendor.plan import Output


@dataclass(frozen=True)
class FileChange:
    """One file that differs between disk and the desired output: ``added``, ``changed`` or ``removed``.

    ``dest`` is the destination (a folder, or the file itself for single files); ``path`` is
    relative to it (empty for single files).
    """

    dest: str
    path: str
    status: str

    @property
    def full_path(self) -> str:
        """The project-relative path of the file."""
        return f"{self.dest}/{self.path}" if self.path else self.dest


def plan_changes(root: Path, output: Output) -> list[FileChange]:
    """What writing ``output`` would change on disk, sorted by destination and path."""
    changes = []
    for dest, files in output.folders.items():
        current = read_tree(root, dest)
        for path in sorted(set(files) | set(current)):
            if path not in current:
                changes.append(FileChange(dest, path, "added"))
            elif path not in files:
                changes.append(FileChange(dest, path, "removed"))
            elif files[path] != current[path]:
                changes.append(FileChange(dest, path, "changed"))
    for dest, data in sorted(output.files.items()):
        current_file = read_file(root, dest)
        if current_file is None:
            changes.append(FileChange(dest, "", "added"))
        elif current_file != data:
            changes.append(FileChange(dest, "", "changed"))
    return changes


def hand_edits(root: Path, output: Output, lock: Lock | None) -> list[str]:
    """Files on disk that neither the lock nor the new output explain (project-relative paths).

    A file is explained when its bytes equal what the lock recorded as the result, or what the
    new build will write. Files the lock lists but that are missing on disk lose no work and are
    not reported.
    """
    recorded = lock.results() if lock is not None else {}
    foreign = [p for dest in output.folders for p in _foreign(root, dest, True)]
    foreign += [p for dest in output.files for p in _foreign(root, dest, False)]
    on_disk: list[tuple[str, bytes, bytes | None]] = []
    for dest, files in output.folders.items():
        on_disk += [(f"{dest}/{p}", d, files.get(p)) for p, d in read_tree(root, dest).items()]
    for dest, data in output.files.items():
        current = read_file(root, dest)
        if current is not None:
            on_disk.append((dest, current, data))
    edited = [path for path, data, new in on_disk if data != new and recorded.get(path) != sha256(data)]
    return sorted(set(foreign + edited))


def _write_files(folder: Path, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True)
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def write_atomically(
    root: Path,
    output: Output,
    lock_path: Path,
    lock_bytes: bytes,
    backup: list[str] | None = None,
) -> Path | None:
    """Replace each destination under ``root`` with ``output`` and write the lock file.

    Folders are replaced whole; single files one by one. ``backup`` lists project-relative files
    to keep before they are replaced; they are copied to ``.gsvendor-backup/<UTC time>/``, whose
    path is returned. On any error every destination is put back as it was and
    :class:`GsvendorError` is raised.
    """
    try:
        staging = Path(tempfile.mkdtemp(prefix=".gsvendor-staging-", dir=root))
    except OSError as exc:
        raise GsvendorError(f"cannot write in {root}: {exc.strerror or exc}; nothing changed") from None
    targets = [*output.folders, *output.files]
    swapped: list[tuple[Path, Path | None]] = []  # (destination, where its old copy went)
    created_parents: list[Path] = []
    backup_dir = None
    try:
        for index, files in enumerate(output.folders.values()):
            _write_files(staging / f"new-{index}", files)
        for index, data in enumerate(output.files.values(), start=len(output.folders)):
            (staging / f"new-{index}").write_bytes(data)
        if backup:
            (root / ".gsvendor-backup").mkdir(exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            backup_dir = Path(tempfile.mkdtemp(prefix=f"{stamp}-", dir=root / ".gsvendor-backup"))  # unique
            for rel in backup:
                target = backup_dir / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                source = root / rel
                if source.is_dir() and not source.is_symlink():
                    shutil.copytree(source, target, symlinks=True)
                elif source.is_file() or source.is_symlink():
                    shutil.copy2(source, target, follow_symlinks=False)
        lock_tmp = staging / "lock"
        lock_tmp.write_bytes(lock_bytes)
        for index, dest in enumerate(targets):
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
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(lock_tmp, lock_path)
    except BaseException as exc:
        for target, old in reversed(swapped):
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists() or target.is_symlink():
                target.unlink()
            if old is not None:
                os.rename(old, target)
        for folder in reversed(created_parents):
            with contextlib.suppress(OSError):
                folder.rmdir()
        shutil.rmtree(staging, ignore_errors=True)
        if backup_dir is not None:  # nothing was replaced, so nothing needs keeping
            shutil.rmtree(backup_dir, ignore_errors=True)
        if isinstance(exc, OSError):
            raise GsvendorError(f"writing the output failed, nothing changed: {exc}") from None
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return backup_dir
