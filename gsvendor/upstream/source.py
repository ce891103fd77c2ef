"""Upstream sources: read the files gsvendor needs from an upstream tag.

A source is one of (see :func:`classify_source`), each read by its own module of this package
behind one entry point, :func:`gsvendor.upstream.fetch.fetch_upstream`:

* ``folder`` — a local checkout holding ``charts/``;
* ``tarball`` — a local ``.tar.gz`` in GitHub archive layout (one top folder ``<repo>-<tag without v>/``);
* ``http`` — an ``http(s)://`` tarball URL, streamed with httpx, cached per tag and sha256;
* ``git`` — a git URL (``file://``, ``https://….git``, ``ssh://``, ``git@host:path``), fetched as a
  shallow, blob-filtered, sparse clone of only the wanted paths.

Only wanted paths are read (``charts/<chart>/**`` and ``go.mod`` for sync). Archive members with
absolute paths, ``..``, links leading outside the archive, or device files are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor.errors import SourceError

SOURCE_KINDS = ("folder", "tarball", "http", "git")


# An upstream charts/ tree is a few MiB; these bound what a hostile archive can make us hold.
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
_GIT_URL = re.compile(r"^(file://|ssh://|git://|git@[^:]+:|https?://.+\.git/?$)")


@dataclass(frozen=True)
class Wanted:
    """The upstream paths to read: folders (``charts/kserve-crd``) and single files (``go.mod``).

    Paths are POSIX and relative to the upstream root.
    """

    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def matches(self, path: str) -> bool:
        """Whether the upstream-relative ``path`` is one of the wanted files or below a wanted folder."""
        return path in self.files or any(path.startswith(f.rstrip("/") + "/") for f in self.folders)

    def sparse_patterns(self) -> list[str]:
        """Non-cone sparse-checkout patterns (gitignore syntax) selecting exactly these paths."""
        return [f"/{f.rstrip('/')}/" for f in self.folders] + [f"/{f}" for f in self.files]


@dataclass(frozen=True)
class UpstreamSnapshot:
    """The wanted files of one upstream tag, in memory.

    ``files`` maps upstream-relative POSIX path → bytes. ``sha256`` is the archive's (tarball and
    http sources), ``commit`` the upstream commit when known (git, a tarball's pax comment, a
    folder that is a git checkout).
    """

    tag: str
    kind: str
    location: str
    files: dict[str, bytes]
    sha256: str | None = None
    commit: str | None = None
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class FetchOptions:
    """How to reach remote sources.

    ``timeout`` in seconds per HTTP request phase; ``retries`` extra attempts after the first on
    5xx answers, timeouts and transport errors, with exponential backoff starting at ``backoff``
    seconds; ``cache_dir`` holds downloaded archives (``<tag>/<sha256>.tar.gz``); ``progress``
    draws a progress bar on stderr.
    """

    cache_dir: Path | None = None
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 0.5
    progress: bool = False


def classify_source(source: str) -> str:
    """Return the kind of ``source``: ``git``, ``http``, ``folder`` or ``tarball``.

    Raises :class:`SourceError` when a local path does not exist or is neither folder nor file.
    """
    if _GIT_URL.match(source):
        return "git"
    if source.startswith(("http://", "https://")):
        return "http"
    if not source.strip():
        raise SourceError("--source is empty: give a folder, a .tar.gz, an http(s) URL or a git URL")
    path = Path(source)
    try:
        if path.is_dir():
            return "folder"
        if path.is_file():
            return "tarball"
        exists = path.exists()
    except OSError as exc:
        raise SourceError(f"{source}: cannot read: {exc.strerror or exc}") from None
    if exists:
        raise SourceError(f"{source}: neither a folder nor a regular file")
    raise SourceError(f"{source}: no such file or folder (give a folder, a .tar.gz, an http(s) URL or a git URL)")


def go_directives(text: str) -> tuple[str | None, str | None]:
    """The ``go`` and ``toolchain`` directives of go.mod ``text``, as written (``//`` comments ignored)."""
    go = toolchain = None
    for line in text.splitlines():
        match = re.match(r"^(go|toolchain)\s+(\S+)$", line.split("//", 1)[0].strip())
        if match and match.group(1) == "go":
            go = match.group(2)
        elif match:
            toolchain = match.group(2)
    return go, toolchain


def tag_version(tag: str) -> str:
    """``v0.20.0`` → ``0.20.0``: how GitHub names an archive's top folder (``<repo>-<version>``)."""
    return tag[1:] if tag[:1] in ("v", "V") and tag[1:2].isdigit() else tag


def _read_local(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
