"""Writing the output: change planning against disk, hand-edit detection, and the swap of only what changed.

Reading the disk (:func:`scan`) is kept apart from planning (:func:`plan_folder`, :func:`plan_file`,
pure); :mod:`gsvendor.vendoring.journal` performs the plan.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gsvendor.errors import GsvendorError
from gsvendor.files import _foreign, read_file, read_tree
from gsvendor.vendoring.journal import Step, swap
from gsvendor.vendoring.lock import Lock, sha256
from gsvendor.vendoring.plan import Output


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


@dataclass(frozen=True)
class OnDisk:
    """What the destinations of an output hold now: ``folders`` (destination → relative path →
    bytes, as :func:`gsvendor.files.read_tree` reads them) and ``files`` (destination → bytes, or
    ``None`` when it is not a file)."""

    folders: dict[str, dict[str, bytes]]
    files: dict[str, bytes | None]


def read_destinations(root: Path, output: Output) -> OnDisk:
    """Read every destination of ``output`` once (:func:`plan_changes` and :func:`hand_edits` both
    compare with it). Raises :class:`GsvendorError` naming a file that cannot be read."""
    return OnDisk(
        folders={dest: read_tree(root, dest) for dest in output.folders},
        files={dest: read_file(root, dest) for dest in output.files},
    )


def plan_changes(root: Path, output: Output, disk: OnDisk | None = None) -> list[FileChange]:
    """What writing ``output`` would change on disk, sorted by destination and path.

    ``disk``: the destinations as :func:`read_destinations` read them (read here when ``None``).
    """
    disk = disk or read_destinations(root, output)
    changes = []
    for dest, files in output.folders.items():
        current = disk.folders[dest]
        for path in sorted(set(files) | set(current)):
            if path not in current:
                changes.append(FileChange(dest, path, "added"))
            elif path not in files:
                changes.append(FileChange(dest, path, "removed"))
            elif files[path] != current[path]:
                changes.append(FileChange(dest, path, "changed"))
    for dest, data in sorted(output.files.items()):
        current_file = disk.files[dest]
        if current_file is None:
            changes.append(FileChange(dest, "", "added"))
        elif current_file != data:
            changes.append(FileChange(dest, "", "changed"))
    return changes


def hand_edits(root: Path, output: Output, lock: Lock | None, disk: OnDisk | None = None) -> list[str]:
    """Files on disk that neither the lock nor the new output explain (project-relative paths).

    A file is explained when its bytes equal what the lock recorded as the result, or what the
    new build will write. Files the lock lists but that are missing on disk lose no work and are
    not reported. ``disk`` as for :func:`plan_changes`.
    """
    disk = disk or read_destinations(root, output)
    recorded = lock.results() if lock is not None else {}
    foreign = [p for dest in output.folders for p in _foreign(root, dest, True)]
    foreign += [p for dest in output.files for p in _foreign(root, dest, False)]
    on_disk: list[tuple[str, bytes, bytes | None]] = []
    for dest, files in output.folders.items():
        on_disk += [(f"{dest}/{p}", d, files.get(p)) for p, d in disk.folders[dest].items()]
    for dest, data in output.files.items():
        current = disk.files[dest]
        if current is not None:
            on_disk.append((dest, current, data))
    edited = [path for path, data, new in on_disk if data != new and recorded.get(path) != sha256(data)]
    return sorted(set(foreign + edited))


# --- what is on disk (I/O) and what must change (pure) ------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One thing on disk: ``kind`` is ``file``, ``dir``, ``link`` or ``special``; ``data`` a file's bytes."""

    kind: str
    data: bytes | None = None


def scan(root: Path, dest: str) -> dict[str, Entry]:
    """Everything at and below ``root/dest`` without following links: relative POSIX path → entry.

    The destination itself has the key ``""``; an absent destination gives ``{}``. Raises
    :class:`GsvendorError` naming a file that cannot be read.
    """
    top = root / dest
    found: dict[str, Entry] = {}

    def visit(path: Path, rel: str) -> None:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return
        except OSError as exc:
            raise GsvendorError(f"{path.relative_to(root)}: cannot read: {exc.strerror or exc}") from None
        if stat.S_ISLNK(mode):
            found[rel] = Entry("link")
        elif stat.S_ISDIR(mode):
            found[rel] = Entry("dir")
            stack.append((path, rel))
        elif stat.S_ISREG(mode):
            try:
                found[rel] = Entry("file", path.read_bytes())
            except OSError as exc:
                raise GsvendorError(f"{path.relative_to(root)}: cannot read: {exc.strerror or exc}") from None
        else:
            found[rel] = Entry("special")

    stack: list[tuple[Path, str]] = []
    visit(top, "")
    while stack:  # iterative: a deep tree cannot exhaust the recursion limit
        folder, rel = stack.pop()
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            raise GsvendorError(f"{folder.relative_to(root)}: cannot read: {exc.strerror or exc}") from None
        for name in names:
            visit(folder / name, f"{rel}/{name}" if rel else name)
    return found


def plan_folder(dest: str, desired: dict[str, bytes], disk: dict[str, Entry]) -> tuple[list[Step], list[str]]:
    """The steps turning ``disk`` (from :func:`scan`) into exactly ``desired`` files below ``dest``.

    Pure. Returns the removal steps (``unlink`` of files, links and special files nothing
    replaces; ``rmtree`` of real folders no wanted file lives in, or that stand where a file goes)
    and the project-relative files to write (new or changed bytes, or something else in their
    place). Files whose bytes are unchanged are not touched: they keep inode and mtime.
    """
    top = disk.get("")
    if top is not None and top.kind != "dir":
        return [Step("unlink", dest)], [f"{dest}/{p}" for p in sorted(desired)]
    needed = {"/".join(p.split("/")[:i]) for p in desired for i in range(1, p.count("/") + 1)}
    removals: list[Step] = []
    gone: list[str] = []  # folders removed whole: what is inside them needs no step
    writes = []
    for rel in sorted(p for p in disk if p):
        entry = disk[rel]
        if any(rel.startswith(f"{g}/") for g in gone):
            continue
        if entry.kind == "dir":
            if rel not in needed:
                removals.append(Step("rmtree", f"{dest}/{rel}"))
                gone.append(rel)
        elif rel not in desired:
            removals.append(Step("unlink", f"{dest}/{rel}"))
    for rel in sorted(desired):
        entry = disk.get(rel)
        if entry is None or entry.kind != "file" or entry.data != desired[rel]:
            writes.append(f"{dest}/{rel}")
    return removals, writes


def plan_file(dest: str, desired: bytes, disk: dict[str, Entry]) -> tuple[list[Step], list[str]]:
    """As :func:`plan_folder` for a single-file destination: nothing when its bytes are unchanged."""
    top = disk.get("")
    if top is not None and top.kind == "file" and top.data == desired:
        return [], []
    return ([Step("rmtree", dest)] if top is not None and top.kind == "dir" else []), [dest]


def write_atomically(
    root: Path,
    output: Output,
    lock_path: Path,
    lock_bytes: bytes,
    backup: list[str] | None = None,
    tag: str = "",
    on_commit: Callable[[str | None], None] | None = None,
) -> Path | None:
    """Make every destination under ``root`` hold exactly ``output``, and write the lock file.

    Only files whose bytes change are written (via a staged copy renamed over them); files no
    longer wanted are removed; unchanged files keep inode and mtime. The swap is journaled
    (:mod:`gsvendor.vendoring.journal`): an interruption is completed forward or undone by the next
    command. ``backup`` lists project-relative files to keep before they are replaced; they are
    copied to ``.gsvendor-backup/<UTC time>-<random>/``, whose path is returned (never removed).
    ``on_commit``: called when the swap passes its point of no return (:func:`journal.swap`).
    Raises :class:`GsvendorError` (nothing changed) when the output cannot be written, and
    :class:`~gsvendor.errors.Interrupted` on a signal.
    """
    removals: list[Step] = []
    staged: dict[str, tuple[str, bytes]] = {}
    for dest, files in output.folders.items():
        steps, writes = plan_folder(dest, files, scan(root, dest))
        removals += steps
        staged.update({path: (dest, files[path[len(dest) + 1 :]]) for path in writes})
    for dest, data in output.files.items():
        steps, writes = plan_file(dest, data, scan(root, dest))
        removals += steps
        staged.update({path: (dest, data) for path in writes})
    lock_rel = lock_path.relative_to(root).as_posix()
    staged[lock_rel] = (lock_rel, lock_bytes)  # last: the lock agrees only once every chart is written
    return swap(root, tag, staged, removals, backup, on_commit)
