"""The swap journal: how ``sync`` replaces files so that any interruption is completed or undone.

**Prepare**: a journal ``preparing`` (kept outside the checkout: :mod:`gsvendor.journal_trust`) names the staging
folders; files are staged and fsync'd beside their destination (a rename cannot cross a mount point), hand edits
backed up, and the journal rewritten ``committed`` with every step and the :func:`state` of its path before and after.
A failure or a signal (SIGINT, SIGTERM, SIGHUP wait while a swap runs) until then undoes it. **Apply**: the
idempotent steps (the lock file last) run in order; :func:`recover` runs them again after a crash, backing up paths
edited since, and undoes a ``preparing`` journal. Test hooks: ``GSVENDOR_TEST_SWAP_STEP=N:SIGNAL`` (``KILL``,
``TERM``, ``INT``) sends the signal just before step ``N`` (1-based); ``GSVENDOR_TEST_SWAP_TRACE=FILE`` logs each step.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from fnmatch import fnmatchcase
from itertools import chain
from pathlib import Path

from gsvendor import journal_trust
from gsvendor.config import Config
from gsvendor.errors import GsvendorError, Interrupted
from gsvendor.files import project_lock, sha256
from gsvendor.journal_trust import STAGING_NAME, STAGING_PREFIX, Place, Scope
from gsvendor.signals import Deferred
from gsvendor.vendoring.backup import copy_backup, fsync_path, is_real_dir, state

_VERSION = 2


@dataclass(frozen=True)
class Step:
    """One idempotent step of a swap (project-relative POSIX paths): ``unlink`` ``path`` unless a real folder,
    ``rmtree`` it when one, or ``write`` (rename ``staged`` over it); ``old``/``new``: its states before and after."""

    kind: str
    path: str
    staged: str | None = None
    old: str | None = None
    new: str | None = None


@dataclass
class Journal:
    """What a swap will do: ``state`` ``preparing`` or ``committed``, ``tag`` written (for messages), the
    ``staging`` folders and those ``created`` for them (removed on undo), ``backup`` the hand edits' folder."""

    state: str
    tag: str
    staging: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    backup: str | None = None
    steps: list[Step] = field(default_factory=list)

    def to_json(self) -> bytes:
        """The journal file's bytes."""
        steps = [[s.kind, s.path, s.staged, s.old, s.new] for s in self.steps]
        document = {"version": _VERSION, "pid": os.getpid(), **asdict(self), "steps": steps}
        return json.dumps(document, indent=1).encode()

    @classmethod
    def from_json(cls, data: bytes, label: str, scope: Scope, root: Path) -> Journal:
        """Parse a journal file and check its paths (:func:`journal_trust.check`). Raises :class:`GsvendorError`
        (exit 2, nothing touched) naming ``label`` and why for a journal gsvendor did not write for ``scope``."""
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
            tag, staging, created = str(document.get("tag") or "?")[:200], document["staging"], document["created"]
            journal = cls(document["state"], tag, list(staging), list(created), document.get("backup"), steps)
            paths = [*journal.staging, *journal.created, *(s.path for s in steps), *(s.staged or "" for s in steps)]
            if bad := [path for path in paths if not isinstance(path, str)]:
                raise ValueError(f"{str(bad[0])[:80]!r} is not a path")
            rows, states = [(s.kind, s.path, s.staged) for s in steps], [x for s in steps for x in (s.old, s.new)]
            journal_trust.check(scope, root, journal.staging, journal.created, journal.backup, rows, states)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            reason = str(exc) if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError) else ""
            reason = reason or f"unreadable ({type(exc).__name__})"
            raise GsvendorError(
                f"{label}: swap journal not acted on: {reason}; nothing was changed, remove it by hand"
            ) from None
        return journal


class StoppedHalfWay(GsvendorError):
    """A step after the commit failed: the output changed in part; the next command completes it (exit 1)."""

    code = "stopped-half-way"
    exit_code = 1


class _Steps:
    """Counts the steps of one swap for the test hooks; raises KeyboardInterrupt at one when a signal waits."""

    def __init__(self, signals: Deferred, interruptible: bool) -> None:
        self.count = 0
        self.signals = signals
        self.interruptible = interruptible
        number, _, name = os.environ.get("GSVENDOR_TEST_SWAP_STEP", "").partition(":")
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


def _write_journal(where: Place, journal: Journal) -> None:
    """Write the journal durably (a fsync'd temporary file renamed over it); OSError names ``where.path``."""
    folder, tmp = where.path.parent, None
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
    fsync_path(folder)


def _remove_journal(where: Place) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(where.path)
    fsync_path(where.path.parent)


def _pending(root: Path, step: Step) -> bool:
    """Whether ``step`` still has something to act on: the check that makes it idempotent."""
    path = root / step.path
    if step.kind == "write":
        return os.path.lexists(root / (step.staged or ""))
    return is_real_dir(path) if step.kind == "rmtree" else os.path.lexists(path) and not is_real_dir(path)


def _edited(root: Path, step: Step) -> bool:
    """Whether ``step`` would replace or remove neither the recorded old nor the new state (an edit since)."""
    if not _pending(root, step):
        return False
    now = state(root / step.path)
    return now != "absent" and now not in (step.old, step.new) if step.kind == "write" else now != step.old


def _finish(root: Path, where: Place, journal: Journal, steps: _Steps, careful: bool = False) -> Path | None:
    """Apply a committed journal; ``careful`` (a recovery): first back up paths edited since, returned."""
    kept = None
    if edited := [s.path for s in journal.steps if careful and _edited(root, s)]:
        steps("recovery backup")
        kept = copy_backup(root, list(dict.fromkeys(edited)))
    for step in journal.steps:
        steps(f"{step.kind} {step.path}")
        path = root / step.path
        if not _pending(root, step):
            continue
        if step.kind == "unlink":
            os.unlink(path)
        elif step.kind == "rmtree":
            shutil.rmtree(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(root / (step.staged or ""), path)
    for folder in journal.staging:
        steps(f"cleanup {folder}")
        shutil.rmtree(root / folder, ignore_errors=True)
    steps("journal remove")
    for parent in {(root / s.path).parent for s in journal.steps}:
        fsync_path(parent)
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


def _staging_parent(root: Path, dest: str) -> Path:
    """Where to stage files for ``dest``: its parent, or itself when it is a mount point."""
    target = root / dest
    parent = target.parent
    with contextlib.suppress(OSError):
        if is_real_dir(target) and os.stat(target).st_dev != os.stat(parent).st_dev:
            return target
    return parent


def _nearest(root: Path, rel: str) -> Path:
    """The parent folder of ``rel`` under ``root``, or its nearest existing ancestor when missing."""
    folder = (root / rel).parent
    while not os.path.lexists(folder) and folder != root:
        folder = folder.parent
    return folder


def _same_device(root: Path, rel: str, device: int, tree: bool) -> None:
    """Raise :class:`OSError` (EXDEV) naming a mount point off ``device`` on the way to ``rel`` (or in it: ``tree``)."""
    folder, mount = _nearest(root, rel), None
    while folder != root and os.stat(folder).st_dev != device:
        mount, folder = folder, folder.parent
    if mount is None and tree and is_real_dir(root / rel):
        for inner, names, _ in os.walk(root / rel):
            if os.stat(inner).st_dev != device:
                mount = Path(inner)
                break
            names[:] = [n for n in names if is_real_dir(Path(inner) / n)]
    if mount is not None:
        reason = "a mount point (another file system) inside the output; a swap cannot rename across it"
        raise OSError(errno.EXDEV, f"{reason}, unmount it or mount the whole destination folder", str(mount))


def swap(
    root: Path,
    tag: str,
    staged: dict[str, tuple[str, bytes]],
    removals: list[Step],
    backup: list[str] | None = None,
    on_commit: Callable[[str | None], None] | None = None,
) -> Path | None:
    """Run one journaled swap under ``root``; return the backup folder (``None`` without ``backup``).
    ``staged``: project-relative file → ``(its configured destination, bytes)``, the lock file last; ``removals``:
    ``unlink``/``rmtree`` steps, run before any write; ``backup``: paths copied first (:func:`copy_backup`);
    ``on_commit(backup)`` runs at the point of no return. Raises :class:`GsvendorError` (nothing changed) when
    preparing fails (a full disk, a mount point in a destination), :class:`StoppedHalfWay` when a step after the
    commit fails, :class:`Interrupted` on a signal (nothing changed before the commit; else completed)."""
    at = journal_trust.place(root)
    with Deferred() as signals:
        steps = _Steps(signals, interruptible=True)
        token = os.urandom(4).hex()
        journal = Journal(state="preparing", tag=tag)
        parents: dict[Path, str] = {}
        for parent in dict.fromkeys(_staging_parent(root, dest) for dest, _ in staged.values()):
            parents[parent] = os.path.relpath(parent / f"{STAGING_PREFIX}{token}", root)
            missing = parent
            while not os.path.lexists(missing) and missing != root:
                journal.created.append(os.path.relpath(missing, root))
                missing = missing.parent
        journal.staging = list(parents.values())
        backup_dir = None
        unwritable = _unwritable(root, [*staged, *(s.path for s in removals)], [s.path for s in removals])
        if unwritable is not None:  # the apply phase would stop half-way, the tree mixed until fixed
            where = str(root) if unwritable == "." else unwritable
            raise GsvendorError(f"writing the output failed, nothing changed: {where}: not writable")
        if odd := next((r for r in staged if any(fnmatchcase(part, STAGING_NAME) for part in r.split("/"))), None):
            raise GsvendorError(f"{odd}: a name gsvendor keeps for its staging folders, which any command removes")
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
            for index, (rel, (dest, data)) in enumerate(staged.items()):
                folder = parents[_staging_parent(root, dest)]
                steps(f"stage {rel}")
                _same_device(root, rel, os.stat(root / folder).st_dev, False)
                try:
                    with open(root / folder / str(index), "xb", opener=lambda p, f: os.open(p, f, 0o644)) as handle:
                        handle.write(data)
                        handle.flush()
                        os.fsync(handle.fileno())
                except OSError as exc:  # name the file, not its staged copy (a full disk)
                    raise OSError(exc.errno, exc.strerror, str(root / rel)) from None
                digest = f"file:{sha256(data)}"
                plan.append(Step("write", rel, f"{folder}/{index}", state(root / rel), digest))
            if backup:
                steps("backup")
                backup_dir = copy_backup(root, backup)
            journal.steps = plan
            journal.backup = os.path.relpath(backup_dir, root) if backup_dir else None
            for folder in journal.staging:
                fsync_path(root / folder)
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


def interrupted_after(tag: str, backup: str | None = None) -> Interrupted:
    """The interrupt of a sync of ``tag`` after its point of no return, naming the hand edits' ``backup``."""
    kept = f"; the hand edits' backup is in {backup}" if backup else ""
    return Interrupted(f"interrupted, but only after the sync of {tag} had completed{kept}")


def _unwritable(root: Path, paths: list[str], trees: list[str]) -> str | None:
    """The first folder of ``paths``' parents and below ``trees`` that ``os.access`` says is not writable."""
    nearest = (f for f in dict.fromkeys(_nearest(root, rel) for rel in paths) if is_real_dir(f))
    below = (Path(f) for rel in trees if is_real_dir(root / rel) for f, _, _ in os.walk(root / rel))
    return next((os.path.relpath(f, root) for f in chain(nearest, below) if not os.access(f, os.W_OK | os.X_OK)), None)


def recover(root: Path, scope: Scope) -> list[str]:
    """Finish or undo a swap a previous run left unfinished; return the lines saying what was done (a journal at the
    old place: a warning). Raises :class:`GsvendorError` for a journal :meth:`Journal.from_json` refuses or a swap
    that cannot be finished."""
    lines = [note] if (note := journal_trust.legacy_note(root)) else []
    where = journal_trust.place(root)
    data = journal_trust.read(where)
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
    """``path: reason`` of a failed step, naming the project file ("helm/x/a: Operation not permitted")."""
    names = [str(name) for name in (exc.filename2, exc.filename) if name]
    path = next((name for name in names if STAGING_PREFIX not in name), names[0] if names else None)
    reason = exc.strerror or str(exc)
    if path is None:
        return reason
    inside = os.path.isabs(path) and os.path.commonpath([path, str(root)]) == str(root)
    return f"{os.path.relpath(path, root) if inside else path}: {reason}"


def remove_strays(root: Path, folders: list[str]) -> None:
    """Remove ``.gsvendor-staging-<8 hex>`` folders in the project root and beside and in each destination (a
    user's ``.gsvendor-staging-notes`` stays). Safe only under the project lock after :func:`recover` (no swap runs)."""
    for place in {root, *((root / f).parent for f in folders), *(root / f for f in folders)}:
        with contextlib.suppress(OSError):
            for stray in place.glob(STAGING_NAME) if place == root or is_real_dir(place) else ():
                if is_real_dir(stray):
                    shutil.rmtree(stray, ignore_errors=True)


@contextlib.contextmanager
def exclusive(config: Config, timeout: float, say: Callable[[str], None]) -> Iterator[None]:
    """One command at a time per project: hold the project lock for the block (waiting ``timeout`` s), after
    finishing an interrupted swap (:func:`recover`); ``say`` gets a line for the user. Raises :class:`GsvendorError`
    (exit 2) when the lock is not free in time, or the swap cannot be finished or fails :mod:`~.journal_trust`."""
    with project_lock(config.lock_path.parent, timeout, say):
        dests = sorted({c.dest for c in config.charts} | {f.dest for f in config.files})
        scope = Scope(tuple(dests), config.lock_path.relative_to(config.root).as_posix())
        for line in recover(config.root, scope):
            say(line)
        remove_strays(config.root, dests)
        yield
