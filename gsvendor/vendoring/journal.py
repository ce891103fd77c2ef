"""The swap journal: how ``sync`` replaces files so that any interruption is completed or undone.

A swap runs in two phases.

1. **Prepare.** A journal in state ``preparing`` is written first (fsync'd), naming the staging
   folders and the folders it may create. It is kept outside the checkout
   (:mod:`gsvendor.journal_trust`: ``<git-dir>/gsvendor/journal.json``, or the user
   cache). Every new or changed file is then written to a staging folder *beside its
   destination* and fsync'd; a destination on another file system than its staging folder (a
   mount point inside the output: the rename would fail with EXDEV) stops the swap here. Hand
   edits are copied to the backup folder and fsync'd, and the journal is rewritten in state
   ``committed`` with every step and the state of its path before and after (``file:<sha256>``,
   ``dir:…``, ``link:…``, ``absent``; :mod:`gsvendor.vendoring.backup`): ``unlink`` (a file,
   link or special file), ``rmtree`` (a real folder) and ``write`` (rename a staged file over its
   destination), the lock file last. A failure up to and including that write (a full disk)
   undoes the swap: nothing changed.
2. **Apply.** The steps run in order; each is idempotent (it checks what is on disk), so running
   them again after a crash finishes the same swap. Then the staging folders and the journal go.

:func:`recover` (run by every command that touches the output, under the project lock) finds an
unfinished journal and checks it (:func:`journal_trust.check`; one that fails is reported and left
alone): ``committed`` → apply it forward (the new tree was completely staged before the commit),
first copying to a backup folder any path whose content is neither the recorded old nor new one
(edited after the crash); ``preparing`` → remove the staging (the output was never touched).
Backups are never deleted. SIGINT, SIGTERM and SIGHUP are deferred while a swap runs: during
prepare they stop it at the next step (and it is undone); once committed they wait until the
swap is complete, so a second Ctrl-C cannot leave a mixed tree either.

Test hook (not for users): ``GSVENDOR_TEST_SWAP_STEP=N:SIGNAL`` makes the process send itself
``SIGNAL`` (``KILL``, ``TERM``, ``INT``) just before step ``N`` (1-based) of a swap or recovery;
``GSVENDOR_TEST_SWAP_TRACE=FILE`` appends one line per step to ``FILE``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gsvendor import journal_trust
from gsvendor.errors import GsvendorError, Interrupted
from gsvendor.journal_trust import STAGING_PREFIX, Place, Scope
from gsvendor.signals import Deferred
from gsvendor.vendoring.backup import copy_backup, file_state, fsync_dir, state

_VERSION = 2


@dataclass(frozen=True)
class Step:
    """One idempotent step of a swap; paths are POSIX, relative to the project root.

    ``kind`` is ``unlink`` (remove ``path`` unless it is a real folder), ``rmtree`` (remove
    ``path`` when it is a real folder) or ``write`` (rename ``staged`` over ``path`` when
    ``staged`` still exists, creating missing parent folders). ``old`` and ``new``: the state of
    ``path`` before and after the step, as :func:`state` gives it (``None``: not recorded).
    """

    kind: str
    path: str
    staged: str | None = None
    old: str | None = None
    new: str | None = None


@dataclass
class Journal:
    """What a swap will do. ``state`` is ``preparing`` or ``committed``.

    ``staging`` lists the staging folders, ``created`` the folders made for them (removed again
    when a prepared swap is undone and they are empty), ``backup`` the hand-edit backup folder
    (never removed), ``tag`` the upstream tag being written, for messages.
    """

    state: str
    tag: str
    staging: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    backup: str | None = None
    steps: list[Step] = field(default_factory=list)

    def to_json(self) -> bytes:
        """The journal file's bytes."""
        document = {
            "version": _VERSION,
            "state": self.state,
            "tag": self.tag,
            "pid": os.getpid(),
            "staging": self.staging,
            "created": self.created,
            "backup": self.backup,
            "steps": [[s.kind, s.path, s.staged, s.old, s.new] for s in self.steps],
        }
        return json.dumps(document, indent=1).encode()

    @classmethod
    def from_json(cls, data: bytes, label: str, scope: Scope, root: Path) -> Journal:
        """Parse a journal file and check every path in it (:func:`journal_trust.check`).

        Raises :class:`GsvendorError` (exit 2), one line naming ``label`` and the reason, when it
        is not a journal gsvendor wrote for ``scope``; nothing has been touched then.
        """
        try:
            document = json.loads(data)
            if not isinstance(document, dict):
                raise ValueError("not a JSON object")
            if document.get("version") != _VERSION or document.get("state") not in ("preparing", "committed"):
                raise ValueError("unknown version or state")
            rows = document["steps"]
            if not isinstance(rows, list) or any(not isinstance(r, list) or len(r) != 5 for r in rows):
                raise ValueError("steps are not [kind, path, staged, old, new]")
            steps = [Step(*row) for row in rows]
            if any(s.kind not in ("unlink", "rmtree", "write") for s in steps):
                raise ValueError("unknown step")
            journal = cls(
                state=document["state"],
                tag=str(document.get("tag") or "?")[:200],
                staging=list(document["staging"]),
                created=list(document["created"]),
                backup=document.get("backup"),
                steps=steps,
            )
            for path in [*journal.staging, *journal.created, *(s.path for s in steps)]:
                if not isinstance(path, str):
                    raise ValueError(f"{str(path)[:80]!r} is not a path")
            if any(s.staged is not None and not isinstance(s.staged, str) for s in steps):
                raise ValueError("a staged copy is not a path")
            journal_trust.check(
                scope,
                root,
                journal.staging,
                journal.created,
                journal.backup,
                [(s.kind, s.path, s.staged) for s in steps],
                [x for s in steps for x in (s.old, s.new)],
            )
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            reason = str(exc) if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError) else ""
            reason = reason or f"unreadable ({type(exc).__name__})"
            raise GsvendorError(
                f"{label}: swap journal not acted on: {reason}; nothing was changed, remove it by hand"
            ) from None
        return journal


class StoppedHalfWay(GsvendorError):
    """A step after the journal's commit failed: the output changed in part, and the next command
    completes the swap once the cause is fixed (exit 1: exit 2 says that nothing changed)."""

    code = "stopped-half-way"
    exit_code = 1


# --- signals and the test hook --------------------------------------------------------------------


class _Steps:
    """Counts the steps of one swap, for the test hook and trace."""

    def __init__(self, signals: Deferred, interruptible: bool) -> None:
        self.count = 0
        self.signals = signals
        self.interruptible = interruptible
        hook = os.environ.get("GSVENDOR_TEST_SWAP_STEP", "")
        number, _, name = hook.partition(":")
        self.hook = (int(number), getattr(signal, f"SIG{name}")) if number.isdigit() and name else None
        self.trace = os.environ.get("GSVENDOR_TEST_SWAP_TRACE")

    def __call__(self, label: str) -> None:
        self.count += 1
        if self.trace:
            with open(self.trace, "a", encoding="utf-8") as handle:
                handle.write(f"{self.count} {label}\n")
        if self.hook and self.hook[0] == self.count:
            os.kill(os.getpid(), self.hook[1])
        if self.interruptible and self.signals.pending:
            raise KeyboardInterrupt


# --- file system helpers --------------------------------------------------------------------------


class _SyncedWrites:
    """New files written now and fsync'd together by :meth:`sync` (or when :data:`_OPEN_AT_MOST` are open).

    One fsync after another while files are still being written costs the disk a flush each;
    fsyncing the batch once all are written lets it coalesce them (~15 → ~10 ms CPU and ~40 →
    ~25 ms for a chart set). A file counts as written only once :meth:`sync` returned.
    """

    def __init__(self) -> None:
        self.fds: list[int] = []

    def write(self, path: Path, data: bytes) -> None:
        """Create ``path`` (it must not exist) holding ``data``; durable after :meth:`sync`."""
        if len(self.fds) >= _OPEN_AT_MOST:
            self.sync()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        self.fds.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    def sync(self) -> None:
        """fsync and close every file written so far (all are closed even when one fsync fails)."""
        fds, self.fds = self.fds, []
        try:
            for fd in fds:
                os.fsync(fd)
        finally:
            self.close(fds)

    def close(self, fds: list[int] | None = None) -> None:
        """Close the files without syncing them (the swap is being undone)."""
        for fd in self.fds if fds is None else fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        if fds is None:
            self.fds = []


_OPEN_AT_MOST = 128  # well below the usual limit of 1024 open files


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _write_journal(where: Place, journal: Journal) -> None:
    """Write the journal's bytes to ``where`` durably (a fsync'd temporary file renamed over it).

    Raises :class:`OSError` naming ``where.path`` (a full disk); the journal is then unchanged.
    """
    folder = where.path.parent
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f"{where.path.name}.tmp-", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(journal.to_json())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, where.path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(where.path)) from None
        raise
    fsync_dir(folder)


def _remove_journal(where: Place) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(where.path)
    fsync_dir(where.path.parent)


def _run_step(root: Path, step: Step) -> None:
    path = root / step.path
    if step.kind == "unlink":
        if os.path.lexists(path) and not _is_real_dir(path):
            os.unlink(path)
    elif step.kind == "rmtree":
        if _is_real_dir(path):
            shutil.rmtree(path)
    else:
        staged = root / (step.staged or "")
        if os.path.lexists(staged):
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, path)


def _edited(root: Path, step: Step) -> bool:
    """Whether running ``step`` would replace or remove something that is neither the state the
    journal recorded before the swap nor the one it writes (an edit made after the crash)."""
    path = root / step.path
    if step.kind == "write":
        if not os.path.lexists(root / (step.staged or "")):
            return False  # done already: nothing is replaced
        now = state(path)
        return now != "absent" and now not in (step.old, step.new)
    if step.kind == "unlink" and (not os.path.lexists(path) or _is_real_dir(path)):
        return False
    if step.kind == "rmtree" and not _is_real_dir(path):
        return False
    return state(path) != step.old


def _finish(root: Path, where: Place, journal: Journal, steps: _Steps, careful: bool = False) -> Path | None:
    """Apply every step of a committed journal, then remove the staging and the journal.

    ``careful`` (a recovery): paths edited since the journal was written are first copied to a
    new backup folder, which is returned (``None``: nothing needed one).
    """
    kept = None
    if careful:
        edited = [s.path for s in journal.steps if _edited(root, s)]
        if edited:
            steps("recovery backup")
            kept = copy_backup(root, list(dict.fromkeys(edited)))
    for step in journal.steps:
        steps(f"{step.kind} {step.path}")
        _run_step(root, step)
    for folder in journal.staging:
        steps(f"cleanup {folder}")
        shutil.rmtree(root / folder, ignore_errors=True)
    steps("journal remove")
    for parent in {(root / s.path).parent for s in journal.steps}:
        fsync_dir(parent)
    _remove_journal(where)
    return kept


def _undo(root: Path, where: Place, journal: Journal) -> None:
    """Remove what preparing a swap made: the staging folders and the folders created for them."""
    for folder in journal.staging:
        shutil.rmtree(root / folder, ignore_errors=True)
    for folder in sorted(journal.created, key=lambda p: -p.count("/")):
        with contextlib.suppress(OSError):
            (root / folder).rmdir()
    with contextlib.suppress(OSError):  # left behind, it is undone again by the next command
        _remove_journal(where)


# --- the swap ----------------------------------------------------------------------------------


def _staging_parent(root: Path, dest: str) -> Path:
    """Where to stage files for ``dest``: its parent folder, or the destination itself when it is
    a folder mounted on another file system than its parent."""
    target = root / dest
    parent = target.parent
    with contextlib.suppress(OSError):
        if _is_real_dir(target) and os.stat(target).st_dev != os.stat(parent).st_dev:
            return target
    return parent


def _other_device(root: Path, rel: str, device: int, tree: bool) -> str | None:
    """The folder (project-relative) on the way to ``rel`` — or in it, when ``tree`` is removed
    whole — that is on another file system than ``device`` (a mount point): a rename into it, or
    the removal of the mount point, would fail half-way (EXDEV, EBUSY). ``None`` when there is none."""
    folder = (root / rel).parent
    while not os.path.lexists(folder) and folder != root:
        folder = folder.parent
    mount = None
    while folder != root and os.stat(folder).st_dev != device:
        mount, folder = folder, folder.parent
    if mount is None and tree and _is_real_dir(root / rel):
        for inner, names, _ in os.walk(root / rel):
            if os.stat(inner).st_dev != device:
                mount = Path(inner)
                break
            names[:] = [n for n in names if _is_real_dir(Path(inner) / n)]
    return None if mount is None else os.path.relpath(mount, root)


def swap(
    root: Path,
    tag: str,
    staged: dict[str, tuple[str, bytes]],
    removals: list[Step],
    backup: list[str] | None = None,
    on_commit: Callable[[str | None], None] | None = None,
) -> Path | None:
    """Run one journaled swap under ``root``.

    ``staged`` maps each project-relative file to write to ``(destination, bytes)``, where
    ``destination`` is the configured destination it belongs to (it picks the staging folder); the
    lock file must be the last entry. ``removals`` are the ``unlink``/``rmtree`` steps, run before
    any write. ``backup`` lists project-relative paths (files or folders) to copy to
    ``.gsvendor-backup/<UTC time>-<random>/`` first; that folder is returned (``None`` without a
    backup) and never removed.

    ``on_commit`` is called at the point of no return, while signals still wait, with the backup
    folder (project-relative, or ``None``): a caller learns that the output changes even when a
    signal stops it right after this returns. Raises :class:`GsvendorError` (nothing changed)
    when preparing fails (a full disk, a mount point inside a destination, the journal's commit
    write failing); :class:`Interrupted` when a signal arrived (nothing changed when it came
    before the commit, or the swap completed).
    """
    at = journal_trust.place(root)
    with Deferred() as signals:
        steps = _Steps(signals, interruptible=True)
        token = os.urandom(4).hex()
        journal = Journal(state="preparing", tag=tag)
        parents: dict[Path, str] = {}
        for dest in dict.fromkeys(d for d, _ in staged.values()):
            parent = _staging_parent(root, dest)
            if parent not in parents:
                parents[parent] = os.path.relpath(parent / f"{STAGING_PREFIX}{token}", root)
                missing = parent
                while not os.path.lexists(missing) and missing != root:
                    journal.created.append(os.path.relpath(missing, root))
                    missing = missing.parent
        journal.staging = [Path(p).as_posix() for p in parents.values()]
        journal.created = [Path(p).as_posix() for p in journal.created]
        backup_dir = None
        unwritable = _unwritable(root, [*staged, *(s.path for s in removals)], [s.path for s in removals])
        if unwritable is not None:  # the apply phase would stop half-way, the tree mixed until fixed
            where = str(root) if unwritable == "." else unwritable
            raise GsvendorError(f"writing the output failed, nothing changed: {where}: not writable")
        try:
            steps("journal prepare")
            _write_journal(at, journal)
            for parent, folder in parents.items():
                steps(f"mkdir {folder}")
                parent.mkdir(parents=True, exist_ok=True)
                (root / folder).mkdir()
            plan: list[Step] = [replace(s, old=state(root / s.path)) for s in removals]
            for step in plan:
                _same_device(root, step.path, os.stat((root / step.path).parent).st_dev, step.kind == "rmtree")
            writes = _SyncedWrites()
            try:
                for index, (rel, (dest, data)) in enumerate(staged.items()):
                    folder = parents[_staging_parent(root, dest)]
                    name = f"{folder}/{index}"
                    steps(f"stage {rel}")
                    _same_device(root, rel, os.stat(root / folder).st_dev, False)
                    try:
                        writes.write(root / name, data)
                    except OSError as exc:  # name the file, not its staged copy (a full disk)
                        raise OSError(exc.errno, exc.strerror, str(root / rel)) from None
                    plan.append(Step("write", rel, name, state(root / rel), file_state(data)))
                try:
                    writes.sync()
                except OSError as exc:  # a file system that allocates late says ENOSPC here
                    raise OSError(exc.errno, exc.strerror, str(root / journal.staging[0])) from None
            finally:
                writes.close()
            if backup:
                steps("backup")
                backup_dir = copy_backup(root, backup)
            journal.steps = plan
            journal.backup = os.path.relpath(backup_dir, root) if backup_dir else None
            for folder in journal.staging:
                fsync_dir(root / folder)
            steps("journal commit")
            journal.state = "committed"
            _write_journal(at, journal)  # the point of no return: from here on the swap completes
        except BaseException as exc:
            _undo(root, at, journal)
            if isinstance(exc, OSError):
                raise GsvendorError(f"writing the output failed, nothing changed: {_failed(exc, root)}") from None
            if isinstance(exc, KeyboardInterrupt):
                kept = f"; the hand edits' backup is in {os.path.relpath(backup_dir, root)}" if backup_dir else ""
                raise Interrupted(f"interrupted; nothing was changed{kept}") from None
            raise
        if on_commit is not None:
            on_commit(journal.backup)
        steps.interruptible = False
        try:
            _finish(root, at, journal, steps)
        except OSError as exc:
            raise StoppedHalfWay(
                f"the sync of {tag} stopped half-way: {_failed(exc, root)}; once that is fixed, any gsvendor command "
                f"completes it ({at.label})"
            ) from None
        if signals.pending:
            raise interrupted_after(tag, journal.backup)
    return backup_dir


def _same_device(root: Path, rel: str, device: int, tree: bool) -> None:
    """Raise :class:`OSError` (EXDEV) when ``rel`` cannot be renamed into or removed on ``device``
    (:func:`_other_device`); the swap is undone before anything changed."""
    mount = _other_device(root, rel, device, tree)
    if mount is not None:
        raise OSError(
            errno.EXDEV,
            "a mount point (another file system) inside the output; a swap cannot rename across it, "
            "unmount it or mount the whole destination folder",
            str(root / mount),
        )


def interrupted_after(tag: str, backup: str | None = None) -> Interrupted:
    """The interrupt of a sync of ``tag`` whose swap had passed its point of no return: the output
    is the new tag's, whatever the signal interrupted after it. ``backup``: the hand edits' backup
    folder (project-relative), named so that it is not missed."""
    kept = f"; the hand edits' backup is in {backup}" if backup else ""
    return Interrupted(f"interrupted, but only after the sync of {tag} had completed{kept}")


def _unwritable(root: Path, paths: list[str], trees: list[str]) -> str | None:
    """The first folder (project-relative) a swap of ``paths`` must change but may not: the parent
    of each path (its nearest existing ancestor when missing), and every folder below each of
    ``trees`` (removed whole). ``None`` when all are writable (``os.access``: modes, ACLs, a
    read-only mount)."""
    seen: set[Path] = set()
    for rel in paths:
        folder = (root / rel).parent
        while not os.path.lexists(folder) and folder != root:
            folder = folder.parent
        if folder not in seen:
            seen.add(folder)
            if _is_real_dir(folder) and not os.access(folder, os.W_OK | os.X_OK):
                return os.path.relpath(folder, root)
    for rel in trees:
        if _is_real_dir(root / rel):
            for folder, _, _ in os.walk(root / rel):
                if not os.access(folder, os.W_OK | os.X_OK):
                    return os.path.relpath(folder, root)
    return None


def recover(root: Path, scope: Scope) -> list[str]:
    """Finish or undo a swap a previous run left unfinished; return the lines saying what was done.

    Empty when there was nothing to do. A journal at the old place in the project folder gives a
    warning line and is not acted on. Raises :class:`GsvendorError` (exit 2, nothing changed) for a
    journal that fails :meth:`Journal.from_json`'s checks, and when the swap cannot be finished.
    """
    lines = [note] if (note := journal_trust.legacy_note(root)) else []
    where = journal_trust.place(root)
    data = journal_trust.read(where, root)
    if data is not None:
        journal = Journal.from_json(data, where.label, scope, root)
        with Deferred() as signals:
            steps = _Steps(signals, interruptible=False)
            kept = None
            try:
                if journal.state == "committed":
                    kept = _finish(root, where, journal, steps, careful=True)
                    message = f"recovered: completed the interrupted sync of {journal.tag}"
                else:
                    _undo(root, where, journal)
                    message = f"recovered: undid the unfinished sync of {journal.tag} (nothing had changed)"
            except OSError as exc:
                raise GsvendorError(
                    f"cannot finish the interrupted sync recorded in {where.label}: {_failed(exc, root)}"
                ) from None
            if kept is not None:
                message += f"; files changed since were kept in {os.path.relpath(kept, root)}"
            if journal.backup:
                message += f"; hand edits kept in {journal.backup}"
            lines.append(message)
            if signals.pending:
                raise Interrupted(f"interrupted, after {message}")
    with contextlib.suppress(OSError):
        for stray in where.path.parent.glob(f"{where.path.name}.tmp-*"):  # a journal's temporary file
            with contextlib.suppress(OSError):
                stray.unlink()
    return lines


def _failed(exc: OSError, root: Path) -> str:
    """``path: reason`` for a swap step that failed: the project file it concerns (a rename's
    destination rather than its staged source), relative to ``root``, and the system's reason
    without Python's ``[Errno N]`` ("helm/x/Chart.yaml: Operation not permitted")."""
    names = [str(name) for name in (exc.filename2, exc.filename) if name]
    path = next((name for name in names if STAGING_PREFIX not in name), names[0] if names else None)
    reason = exc.strerror or str(exc)
    if path is None:
        return reason
    inside = os.path.isabs(path) and os.path.commonpath([path, str(root)]) == str(root)
    return f"{os.path.relpath(path, root) if inside else path}: {reason}"


def remove_strays(root: Path, folders: list[str]) -> int:
    """Remove ``.gsvendor-staging-*`` folders in the project root and beside each destination folder.

    Only safe under the project lock and after :func:`recover` (no swap runs). Returns the count.
    """
    removed = 0
    places = {root, *((root / f).parent for f in folders), *(root / f for f in folders)}
    for place in places:
        if not _is_real_dir(place) and place != root:
            continue
        with contextlib.suppress(OSError):
            for stray in place.glob(f"{STAGING_PREFIX}*"):
                if _is_real_dir(stray):
                    shutil.rmtree(stray, ignore_errors=True)
                    removed += 1
    return removed
