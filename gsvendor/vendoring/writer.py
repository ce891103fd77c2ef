"""Writing the output: change planning against disk, hand-edit detection, and the swap of only what
changed. Reading the disk (:func:`scan`) is kept apart from planning (:func:`plan_folder`, pure)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gsvendor.errors import GsvendorError
from gsvendor.files import read_file, read_tree, sha256
from gsvendor.vendoring.compare import statuses
from gsvendor.vendoring.journal import Step, swap
from gsvendor.vendoring.lock import Lock
from gsvendor.vendoring.plan import Output


@dataclass(frozen=True)
class FileChange:
    """One file that differs between disk and the desired output: ``status`` ``added``, ``changed`` or
    ``removed``; ``path`` relative to the destination ``dest`` (empty for a single-file destination)."""

    dest: str
    path: str
    status: str

    @property
    def full_path(self) -> str:
        """The project-relative path of the file."""
        return f"{self.dest}/{self.path}" if self.path else self.dest


def _trees(output: Output) -> dict[str, dict[str, bytes]]:
    """Every destination of ``output`` as a tree: a folder's files, then each single file as ``{"": bytes}``."""
    return {**output.folders, **{dest: {"": output.files[dest]} for dest in sorted(output.files)}}


def read_destinations(root: Path, output: Output) -> dict[str, dict[str, bytes]]:
    """What every destination of ``output`` holds now, in :func:`_trees`' shape (a folder by
    :func:`gsvendor.files.read_tree`; a single file not there: ``{}``). Raises :class:`GsvendorError`."""
    disk = {dest: read_tree(root, dest) for dest in output.folders}
    return disk | {dest: {} if (data := read_file(root, dest)) is None else {"": data} for dest in output.files}


def plan_changes(output: Output, disk: dict[str, dict[str, bytes]]) -> list[FileChange]:
    """What writing ``output`` would change on ``disk`` (:func:`read_destinations`), by destination and path."""
    return [FileChange(d, p, st) for d, files in _trees(output).items() for p, st in statuses(disk[d], files)]


def foreign(root: Path, output: Output) -> list[str]:
    """What sync would destroy at ``output``'s destinations without comparing it (project-relative): a folder
    destination that is a file or a link, the links and special files inside it; a file destination that is a folder."""
    found: list[str] = []
    for dest in [*output.folders, *output.files]:
        target, folder = root / dest, dest in output.folders
        if not (target.exists() or target.is_symlink()):
            continue
        if folder != target.is_dir() or target.is_symlink():
            found.append(dest)
        elif folder:
            inside = (p for p in target.rglob("*") if p.is_symlink() or not (p.is_file() or p.is_dir()))
            found += sorted(p.relative_to(root).as_posix() for p in inside)
    return found


def hand_edits(root: Path, output: Output, lock: Lock | None, disk: dict[str, dict[str, bytes]]) -> list[str]:
    """Files on ``disk`` (project-relative) whose bytes are neither the lock's recorded result nor what the
    new build writes, and what sync would destroy without comparing (:func:`foreign`)."""
    recorded = lock.results() if lock is not None else {}
    edited = []
    for dest, files in _trees(output).items():
        for rel, data in disk[dest].items():
            path = f"{dest}/{rel}" if rel else dest
            if data != files.get(rel) and recorded.get(path) != sha256(data):
                edited.append(path)
    return sorted(set(foreign(root, output) + edited))


@dataclass(frozen=True)
class Entry:
    """One thing on disk: ``kind`` is ``file``, ``dir``, ``link`` or ``special``; ``data`` a file's bytes."""

    kind: str
    data: bytes | None = None


def scan(root: Path, dest: str) -> dict[str, Entry]:
    """Everything at and below ``root/dest`` without following links: relative POSIX path (``""``: the
    destination) → entry. Raises :class:`GsvendorError` naming a file that cannot be read."""
    found: dict[str, Entry] = {}
    stack = [(root / dest, "")]
    while stack:  # iterative: a deep tree cannot exhaust the recursion limit
        path, rel = stack.pop()
        try:
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                stack += [(path / name, f"{rel}/{name}" if rel else name) for name in os.listdir(path)]
            kind = {stat.S_IFREG: "file", stat.S_IFLNK: "link", stat.S_IFDIR: "dir"}.get(stat.S_IFMT(mode), "special")
            found[rel] = Entry(kind, path.read_bytes() if kind == "file" else None)
        except FileNotFoundError:  # gone since its folder was listed
            continue
        except OSError as exc:
            raise GsvendorError(f"{path.relative_to(root)}: cannot read: {exc.strerror or exc}") from None
    return found


def plan_folder(dest: str, desired: dict[str, bytes], disk: dict[str, Entry]) -> tuple[list[Step], list[str]]:
    """The steps turning ``disk`` (:func:`scan`) into exactly ``desired`` files below ``dest``: the removals
    (``unlink`` what no file replaces, ``rmtree`` folders no wanted file lives in) and the project-relative
    files to write (new or changed bytes, or something else there)."""
    top = disk.get("")
    if top is not None and top.kind != "dir":
        return [Step("unlink", dest)], [f"{dest}/{p}" for p in sorted(desired)]
    needed = {"", *("/".join(p.split("/")[:i]) for p in desired for i in range(1, p.count("/") + 1))}  # folders
    removals = [  # what is inside a folder removed whole needs no step: only entries in needed folders
        Step("rmtree" if disk[rel].kind == "dir" else "unlink", f"{dest}/{rel}")
        for rel in sorted(disk)
        if rel and rel.rpartition("/")[0] in needed and rel not in (needed if disk[rel].kind == "dir" else desired)
    ]
    return removals, [f"{dest}/{rel}" for rel in sorted(desired) if disk.get(rel) != Entry("file", desired[rel])]


def write_atomically(
    root: Path,
    output: Output,
    lock_path: Path,
    lock_bytes: bytes,
    backup: list[str] | None = None,
    tag: str = "",
    on_commit: Callable[[str | None], None] | None = None,
) -> Path | None:
    """Make every destination under ``root`` hold exactly ``output`` (writing only changed files) and write the
    lock file, in one journaled :func:`~gsvendor.vendoring.journal.swap` (its arguments, result and errors)."""
    removals: list[Step] = []
    staged: dict[str, tuple[str, bytes]] = {}
    for dest, files in output.folders.items():
        steps, writes = plan_folder(dest, files, scan(root, dest))
        removals += steps
        staged.update({path: (dest, files[path[len(dest) + 1 :]]) for path in writes})
    for dest, data in output.files.items():  # a single file: written unless its bytes are there
        top = scan(root, dest).get("")
        if top != Entry("file", data):
            removals += [Step("rmtree", dest)] if top is not None and top.kind == "dir" else []
            staged[dest] = (dest, data)
    lock_rel = lock_path.relative_to(root).as_posix()
    staged[lock_rel] = (lock_rel, lock_bytes)  # last: the lock agrees only once every chart is written
    return swap(root, tag, staged, removals, backup, on_commit)
