"""The download cache: archives per tag and sha256, written atomically, only once proven readable."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path


def _cache_paths(cache_dir: Path, tag: str) -> tuple[Path, Path]:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)
    folder = cache_dir / (name if name.strip(".") else "_")  # never "." or ".."
    return folder, folder / "urls.json"


_MAX_INDEX_BYTES = 1024 * 1024


def _read_regular(path: Path, most: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``most`` bytes, else ``None``.

    Opened without blocking and checked before reading: a FIFO or device put in the cache is
    ignored instead of hanging the run.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > most:
                return None
            return handle.read(most + 1)
        except OSError:
            return None


def _key(url: str) -> str:
    """How a URL is recorded in the cache index: without credentials."""
    from gsvendor.upstream.source import public_url

    return public_url(url)


def _cached(cache_dir: Path | None, tag: str, url: str, expected_sha256: str | None) -> bytes | None:
    """Return cached archive bytes for ``url`` at ``tag`` when present, a regular file, and intact."""
    from gsvendor.upstream.source import MAX_ARCHIVE_BYTES, limit

    if cache_dir is None:
        return None
    folder, index = _cache_paths(cache_dir, tag)
    sha = expected_sha256
    if sha is None:
        raw = _read_regular(index, _MAX_INDEX_BYTES)
        try:
            urls = json.loads(raw) if raw is not None else None
        except ValueError:
            return None
        sha = urls.get(_key(url)) if isinstance(urls, dict) else None
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        return None
    data = _read_regular(folder / f"{sha}.tar.gz", limit("GSVENDOR_MAX_ARCHIVE_MIB", MAX_ARCHIVE_BYTES))
    return data if data is not None and hashlib.sha256(data).hexdigest() == sha else None


def _store(cache_dir: Path | None, tag: str, url: str, data: bytes, sha: str) -> None:
    if cache_dir is None:
        return
    folder, index = _cache_paths(cache_dir, tag)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(folder / f"{sha}.tar.gz", data)
        raw = _read_regular(index, _MAX_INDEX_BYTES)
        try:
            urls = json.loads(raw) if raw is not None else {}
        except ValueError:
            urls = {}
        if not isinstance(urls, dict):
            urls = {}
        urls[_key(url)] = sha
        _atomic_write(index, json.dumps(urls, indent=2, sort_keys=True).encode())
    except OSError:
        pass  # a cache that cannot be written only costs a later download


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)
