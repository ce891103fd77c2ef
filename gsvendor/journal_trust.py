"""Where the swap journal is kept, and which journals are acted on. The journal is gsvendor's own state, never the
repository's (one a checkout supplied could write and delete files anywhere): it lives in the git folder
(``<git-dir>/gsvendor/journal.json``) or, outside git, in the user cache (``<cache>/journals/<key>.json``, keyed by
the project's path, device and inode). :func:`check` proves every path of a journal one the swap could have written
for the configured destinations and the lock file, with no link on the way below the configured folders."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from gsvendor import gitcmd
from gsvendor.errors import GsvendorError
from gsvendor.files import default_cache_dir, is_clean_path

LEGACY_NAME = ".gsvendor-journal.json"
STAGING_PREFIX = ".gsvendor-staging-"
STAGING_NAME = STAGING_PREFIX + "[0-9a-f]" * 8  # a staging folder's whole name (fnmatch): the prefix, a token
BACKUP_FOLDER = ".gsvendor-backup"
MAX_BYTES = 16 * 1024 * 1024  # a journal of every file of a large chart set is well below 1 MiB
# tempfile.mkdtemp's names: 8 of [a-z0-9_] after the prefix gsvendor gives (UTC time and "-")
_BACKUP = re.compile(r"\.gsvendor-backup/[0-9]{8}T[0-9]{6}Z-[a-z0-9_]{8}")
STATE = re.compile(r"absent|other|(file|link|dir):[0-9a-f]{64}")


@dataclass(frozen=True)
class Place:
    """Where a project's journal is kept: ``path`` (absolute), ``label`` (project-relative when inside it,
    else absolute) and ``top``, the git work tree holding the project (``None`` outside git)."""

    path: Path
    label: str
    top: Path | None


@dataclass(frozen=True)
class Scope:
    """What a journal of this project may name: ``dests`` (the configured destinations, sorted) and
    ``lock``, project-relative POSIX paths."""

    dests: tuple[str, ...]
    lock: str


def _git(root: Path, *args: str) -> str | None:
    """stdout of ``git args`` in ``root`` (at most 30 s); ``None`` when git is missing or fails."""
    try:
        done = gitcmd.run(args, root, timeout=30)
    except GsvendorError:  # git not installed, or out of time
        return None
    return done.stdout if done.returncode == 0 else None


def trusted_cache(cache: Path) -> Path:
    """``cache`` when git tracks no file in it and it is this user's, not writable by all. Raises
    :class:`GsvendorError` (exit 2) otherwise: a checkout or another user would supply the downloads index, the
    stamps and the journals gsvendor trusts (the stamps hold parsed data: a sync writes what they say)."""
    real = Path(os.path.realpath(cache))  # a link into a checkout is the checkout
    if real.is_dir() and ((info := os.stat(real)).st_uid != os.getuid() or info.st_mode & stat.S_IWOTH):
        owner = "writable by every user" if info.st_mode & stat.S_IWOTH else f"owned by user {info.st_uid}"
        raise GsvendorError(
            f"{cache}: a cache folder {owner} lets others supply its stamps and journals; chmod o-w, "
            "chown it or give another (--cache-dir, GSVENDOR_CACHE_DIR)"
        )
    if not real.is_dir() or not any(os.path.lexists(p / ".git") for p in (real, *real.parents)):
        return cache
    # safe.directory: a checkout owned by another user (a CI container) is listed, not taken for no repository
    listed = _git(real, "-c", "safe.directory=*", "ls-files", "-z", "--", ".")
    if listed is None or listed:
        why = "git tracks files in" if listed else "git cannot list what it tracks in"
        raise GsvendorError(
            f"{cache}: {why} this cache folder, so a checkout could supply them; use a cache "
            "git ignores (--cache-dir, GSVENDOR_CACHE_DIR)"
        )
    return cache


def place(root: Path, cache: Path | None = None) -> Place:
    """Where the journal of the project in ``root`` (absolute) is kept; ``cache``: the user cache folder (default:
    :func:`gsvendor.files.default_cache_dir` without ``--cache-dir``, which commands may differ in). A git folder
    inside the work tree other than ``<top>/.git`` could be part of a checkout: then the user cache."""
    return _place(root, cache or default_cache_dir(None))


@functools.lru_cache(maxsize=8)
def _place(root: Path, cache: Path) -> Place:
    with contextlib.suppress(OSError):  # the usual case, without starting git (~8 ms): a .git folder, not a link
        if stat.S_ISDIR(os.lstat(root / ".git").st_mode) and os.path.isfile(root / ".git" / "HEAD"):
            path = root / ".git" / "gsvendor" / "journal.json"
            return Place(path, _label(path, root), root)
    lines = (_git(root, "rev-parse", "--absolute-git-dir", "--show-toplevel") or "").splitlines()
    top: Path | None = None
    if len(lines) == 2 and all(os.path.isabs(line) for line in lines):
        git_dir, top = Path(lines[0]), Path(lines[1])
        inside = git_dir == top / ".git" or not git_dir.is_relative_to(top)
        with contextlib.suppress(OSError):
            if inside and stat.S_ISDIR(os.lstat(git_dir).st_mode):
                rel = root.relative_to(top).as_posix() if root.is_relative_to(top) else str(root)
                name = "journal.json" if rel == "." else f"journal-{hashlib.sha256(rel.encode()).hexdigest()[:16]}.json"
                path = git_dir / "gsvendor" / name
                return Place(path, _label(path, root), top)
    info = os.stat(root)
    key = hashlib.sha256(f"{root}\0{info.st_dev}\0{info.st_ino}".encode("utf-8", "surrogateescape")).hexdigest()
    path = cache / "journals" / f"{key[:32]}.json"
    return Place(path, _label(path, root), top)


def _label(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def legacy_note(root: Path) -> str | None:
    """One line about a journal at the old place (the project root, which a checkout can fill), else ``None``."""
    if not os.path.lexists(root / LEGACY_NAME):
        return None
    return (
        f"warning: {LEGACY_NAME}: a swap journal in the project folder is not gsvendor's (it keeps its journal "
        "outside the checkout) and was not acted on; delete it after checking the output (gsvendor verify)"
    )


def read(where: Place) -> bytes | None:
    """The journal's bytes, ``None`` when there is none. Raises :class:`GsvendorError` when it is not a
    regular file, too large, unreadable, or tracked by git."""

    def refused(reason: str) -> GsvendorError:
        return GsvendorError(f"{where.label}: swap journal not acted on: {reason}")

    try:
        fd = os.open(where.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        reason = "a link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise refused(f"{reason}; remove it by hand") from None
    try:  # the type first: a folder opens, but Python's file object refuses it with a traceback
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refused("not a regular file; remove it by hand")
        if info.st_size > MAX_BYTES:
            raise refused(f"{info.st_size} bytes, more than gsvendor writes; remove it by hand")
        data = os.read(fd, MAX_BYTES + 1)
    except OSError as exc:
        raise GsvendorError(f"{where.label}: cannot read the swap journal: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if where.top is not None and where.path.is_relative_to(where.top):
        rel = where.path.relative_to(where.top).as_posix()
        if _git(where.top, "ls-files", "-z", "--", f":(literal){rel}"):
            raise refused("git tracks it, so a checkout supplied it; remove it from the repository")
    return data


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(f"{folder}/")


def _parent(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def check(
    scope: Scope,
    root: Path,
    staging: list[str],
    created: list[str],
    backup: str | None,
    steps: Iterable[tuple[str, str, str | None]],
    states: Iterable[str | None],
) -> None:
    """Raise :class:`ValueError` saying what is wrong unless every path of a journal is one gsvendor could have
    written for ``scope`` with no link on the way; ``steps``: ``(kind, path, staged)``, ``states``: their states."""
    targets = [*scope.dests, scope.lock]
    tokens = {name.rsplit(STAGING_PREFIX, 1)[-1] for name in staging}
    places = {_parent(t) for t in targets} | set(scope.dests)
    for name in staging:
        if not is_clean_path(name):
            raise ValueError(f"staging folder {name!r} is not a clean relative path")
        folder, _, token = name.rpartition("/")
        if not fnmatchcase(token, STAGING_NAME):
            raise ValueError(f"{name!r} is not a staging folder gsvendor makes")
        if folder not in places or len(tokens) != 1:
            raise ValueError(f"staging folder {name!r} is not beside a configured destination")
    for name in created:
        if not is_clean_path(name) or not any(s.startswith(f"{name}/") for s in staging):
            raise ValueError(f"created folder {name!r} does not hold a staging folder")
    if backup is not None and not (isinstance(backup, str) and _BACKUP.fullmatch(backup)):
        raise ValueError(f"backup {backup!r} is not a backup folder gsvendor makes")
    for state in states:
        if state is not None and not (isinstance(state, str) and STATE.fullmatch(state)):
            raise ValueError(f"recorded state {str(state)[:80]!r} is not one gsvendor records")
    walks = [(name, _trusted(name, targets), False) for name in (*staging, *created)]
    for kind, path, staged in steps:
        if not is_clean_path(path):
            raise ValueError(f"{kind} {path[:200]!r}: not a clean relative path")
        dest = next((d for d in scope.dests if _inside(path, d)), None)
        if dest is None and not (kind == "write" and path == scope.lock):
            raise ValueError(f"{kind} {path[:200]}: outside the configured output and the lock file")
        if kind == "write":
            folder, _, index = (staged or "").rpartition("/")
            if folder not in staging or not index.isdigit() or index != str(int(index)):
                raise ValueError(f"write {path[:200]}: staged copy {str(staged)[:200]!r} is not in a staging folder")
            walks.append((staged or "", _trusted(staged or "", targets), False))
        walks.append((path, _parent(dest or scope.lock), True))
    for path, trusted, last_may_link in walks:
        _walk(root, path, trusted, last_may_link)


def _trusted(path: str, targets: list[str]) -> str:
    """The configured folder above ``path`` whose own links sync follows (``helm`` of ``helm/x``)."""
    return max((_parent(t) for t in targets if _inside(path, _parent(t)) or not _parent(t)), key=len, default="")


def _walk(root: Path, path: str, trusted: str, last_may_link: bool) -> None:
    """Raise :class:`ValueError` when a folder on the way to ``path`` below ``trusted`` is a link (or
    ``path`` itself, unless ``last_may_link``: removing a link acts on the link). A missing part ends the walk."""
    parts = path.split("/")
    skip = len(trusted.split("/")) if trusted else 0
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for index, part in enumerate(parts):
            last, where = index == len(parts) - 1, "/".join(parts[: index + 1])
            try:
                info = os.stat(part, dir_fd=fd, follow_symlinks=index < skip)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise ValueError(f"{where}: {exc.strerror or exc}") from None
            if stat.S_ISLNK(info.st_mode) and not (last and last_may_link):
                raise ValueError(f"{path[:200]}: {where} is a link")
            if last or not stat.S_ISDIR(info.st_mode):
                return  # a file where a folder goes: the step's own checks handle it
            flags = os.O_RDONLY | os.O_DIRECTORY | (0 if index < skip else os.O_NOFOLLOW)
            try:
                next_fd = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                raise ValueError(f"{path[:200]}: {where}: {exc.strerror or exc}") from None
            os.close(fd)
            fd = next_fd
    finally:
        os.close(fd)
