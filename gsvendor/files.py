"""Project files as bytes: reading output trees and normalising whitespace as pre-commit's hooks do."""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from gsvendor.errors import GsvendorError

MAX_TREE_FILE_BYTES = 32 * 1024 * 1024  # one file of an output tree, as one upstream file (MAX_MEMBER_BYTES)
MAX_TREE_BYTES = 256 * 1024 * 1024  # an output tree, as all upstream files together (MAX_TOTAL_BYTES)


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data``: the digest the lock, the journal and the caches record."""
    return hashlib.sha256(data).hexdigest()


def read_tree(root: Path, dest: str) -> dict[str, bytes]:
    """Every regular file below ``root/dest`` (relative POSIX path → bytes; none when the folder is absent).
    Raises :class:`GsvendorError` naming an unreadable file, a link leading outside ``root`` (a diff would
    print a file of the machine), a file past :data:`MAX_TREE_FILE_BYTES` or a tree past :data:`MAX_TREE_BYTES`."""
    folder = root / dest
    if not folder.is_dir():
        return {}

    def unreadable(exc: OSError) -> None:  # else os.walk skips a folder it cannot list: its files look removed
        where = os.path.relpath(exc.filename, root) if exc.filename else dest
        raise GsvendorError(f"{where}: cannot read: {exc.strerror or exc}")

    # with the links to folders, which os.walk lists as folders and does not enter: one leading out is refused
    walk = os.walk(folder, onerror=unreadable)
    walked = [(top, names + [d for d in dirs if Path(top, d).is_symlink()]) for top, dirs, names in walk]
    found = [Path(top, name) for top, names in walked for name in names]
    files, total = {}, 0
    for path in sorted(found):
        where = path.relative_to(root).as_posix()
        if path.is_symlink() and leads_outside(path, root):
            raise GsvendorError(f"{where}: a link to {os.readlink(path)}, outside the project; remove it")
        try:  # opened without blocking: a FIFO or a device is no file, never read
            with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode):
                    continue
                if info.st_size > MAX_TREE_FILE_BYTES:
                    raise GsvendorError(f"{where}: larger than {MAX_TREE_FILE_BYTES // 1024 // 1024} MiB")
                files[path.relative_to(folder).as_posix()] = data = handle.read()
        except OSError as exc:
            if not path.exists() or path.is_dir():  # a dangling link, a link to a folder within: no file
                continue
            raise GsvendorError(f"{where}: cannot read: {exc.strerror or exc}") from None
        total += len(data)
        if total > MAX_TREE_BYTES:
            raise GsvendorError(f"{dest}: its files hold more than {MAX_TREE_BYTES // 1024 // 1024} MiB")
    return files


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative POSIX path → bytes) below ``root``, making the folders on their way."""
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``: a regular file (or none) whole or not at all, through a partial file renamed over
    it (a signal or a full disk keeps the old one; its mode kept); a pipe or device (``>(less)``, /dev/null)
    without waiting for a reader. Raises OSError (ENXIO: a FIFO nobody reads)."""
    target = Path(os.path.realpath(path))  # a link to the report: its target is replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    regular = not target.exists() or target.is_file()
    staged = target.with_name(f".{target.name}.{os.getpid()}.partial") if regular else target
    try:  # never through a link planted at the partial file's name: that link goes
        fd = os.open(
            staged, os.O_WRONLY | (os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW if regular else os.O_NONBLOCK), 0o666
        )
        os.set_blocking(fd, True)
        with open(fd, "wb") as handle:
            handle.write(data)
        if regular and target.exists():
            os.chmod(staged, target.stat().st_mode & 0o777)
        if regular:
            os.replace(staged, target)
    except BaseException:
        if regular:
            with contextlib.suppress(OSError):
                os.unlink(staged)
        raise


def is_clean_path(path: object) -> bool:
    """Whether ``path`` is a relative POSIX path with no empty, ``.`` or ``..`` part (``a/``, ``a//b`` and ``/a``
    hold an empty one): the only kind a swap journal records, so the only kind an output file may have."""
    return isinstance(path, str) and "\x00" not in path and all(p not in ("", ".", "..") for p in path.split("/"))


def holding_files(files: Iterable[str], paths: Iterable[str]) -> str | None:
    """The first of ``files`` that one of ``paths`` lies below (``a`` and ``a/b``: no tree holds both), or ``None``."""
    ordered = sorted(paths)  # the first path after "<file>/" in order is inside it when any is
    for file in files:
        if (at := bisect.bisect_left(ordered, f"{file}/")) < len(ordered) and ordered[at].startswith(f"{file}/"):
            return file
    return None


def leads_outside(path: Path, root: Path) -> bool:
    """Whether ``path``, its links followed, is outside the folder ``root``."""
    return not path.resolve().is_relative_to(root.resolve())


def read_file(root: Path, dest: str) -> bytes | None:
    """The bytes of ``root/dest``, or ``None`` when it is not a file."""
    return (root / dest).read_bytes() if (root / dest).is_file() else None


def normalize_whitespace(data: bytes) -> bytes:
    """``data`` fixed as pre-commit-hooks' ``trailing-whitespace`` and ``end-of-file-fixer`` do (trailing ASCII
    whitespace stripped, one final line ending, blank files emptied); binary (NUL-holding) data unchanged."""
    if b"\0" in data or not data:
        return data
    if b"\r" not in data:  # the common case: a clean file costs a few substring searches in C
        ends_once = len(data) > 1 and data.endswith(b"\n") and not data.endswith(b"\n\n")
        # one two-byte search; tabs, vertical tabs and form feeds are rare, so memchr rules them out
        if ends_once and b" \n" not in data and not any(c in data and c + b"\n" in data for c in _RARE_BLANKS):
            return data
    elif _CLEAN_END.search(data) and not _TRAILING_BLANK.search(data):
        return data
    return _normalize_lines(data)


# besides the space, what bytes.rstrip() would remove before a line ending
_RARE_BLANKS = (b"\t", b"\x0b", b"\x0c")
# with carriage returns: a blank before \n, \r\n or the end, or a lone \r (splitlines ends a line there)
_TRAILING_BLANK = re.compile(rb"[ \t\x0b\x0c](?:\r?\n|\Z)|\r(?!\n)")
# one final \n or \r\n after a line that is not empty
_CLEAN_END = re.compile(rb"[^\r\n]\r?\n\Z")


def _normalize_lines(data: bytes) -> bytes:
    """:func:`normalize_whitespace` line by line (the reference the fast path must agree with)."""
    out = []
    for line in data.splitlines(keepends=True):
        eol = b"\r\n" if line.endswith(b"\r\n") else b"\n" if line.endswith(b"\n") else b""
        out.append(line[: len(line) - len(eol)].rstrip() + eol)
    text = b"".join(out)
    stripped = text.rstrip(b"\r\n")
    eol = b"\r\n" if text[len(stripped) :].startswith(b"\r\n") else b"\n"
    return stripped + eol if stripped else b""


def default_cache_dir(explicit: Path | None = None) -> Path:
    """The download and stamps cache: ``explicit`` (``--cache-dir``), else ``$GSVENDOR_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/gsvendor``, else ``~/.cache/gsvendor``."""
    chosen = explicit or os.environ.get("GSVENDOR_CACHE_DIR")
    return Path(chosen or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gsvendor")


@contextlib.contextmanager
def project_lock(folder: Path, timeout: float, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on the project ``folder`` (dropped however the process ends); wait up
    to ``timeout`` s, calling ``on_wait`` once naming the holder's pid, then raise :class:`GsvendorError`."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise GsvendorError(f"{folder}: cannot open the project folder: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + timeout
        unknown = 0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _holder(fd)
                if holder == "pid unknown" and unknown < 100:
                    unknown += 1  # released between our try and the look-up: try again at once
                    continue
                if time.monotonic() >= deadline:
                    raise GsvendorError(
                        f"another gsvendor ({holder}) is working in {folder}; gave up after {timeout:g} s "
                        "(--lock-timeout)"
                    ) from None
                if on_wait is not None:  # once
                    on_wait(f"waiting for another gsvendor ({holder}) working in {folder} …")
                    on_wait = None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    """``pid N`` of the process holding a flock on the file behind ``fd`` (Linux /proc/locks)."""
    info = os.fstat(fd)
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    with contextlib.suppress(OSError), open("/proc/locks", encoding="ascii", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:  # "->" marks waiters
                return f"pid {fields[4]}"
    return "pid unknown"
