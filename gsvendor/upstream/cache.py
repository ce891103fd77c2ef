"""The download cache: archives per tag and sha256, written atomically, only once proven readable."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from gsvendor.errors import SourceError
from gsvendor.upstream.source import public_url, read_archive


def _cache_paths(cache_dir: Path, tag: str) -> tuple[Path, Path]:
    """The folder of ``tag``'s archives (never ``.`` or ``..``) and its index, ``urls.json``."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)
    folder = cache_dir / (name if name.strip(".") else "_")
    return folder, folder / "urls.json"


def _read(path: Path, most: int | None = None) -> bytes | None:
    """:func:`read_archive` without following a link; ``None`` when unreadable (a FIFO put in the cache
    is ignored instead of hanging the run)."""
    try:
        return read_archive(path, most, os.O_NOFOLLOW)
    except SourceError:
        return None


def _index(path: Path) -> dict[str, object]:
    """The index's public URL → sha256; empty when missing or unreadable."""
    try:
        urls = json.loads(_read(path, 1024 * 1024) or b"{}")
    except ValueError:
        return {}
    return urls if isinstance(urls, dict) else {}


def _cached(cache_dir: Path | None, tag: str, url: str, expected_sha256: str | None) -> bytes | None:
    """The intact cached archive of ``url`` at ``tag`` (of ``expected_sha256`` when given), or ``None``."""
    if cache_dir is None:
        return None
    folder, index = _cache_paths(cache_dir, tag)
    sha = expected_sha256 or _index(index).get(public_url(url))
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        return None
    data = _read(folder / f"{sha}.tar.gz")
    return data if data is not None and hashlib.sha256(data).hexdigest() == sha else None


def _store(cache_dir: Path | None, tag: str, url: str, data: bytes, sha: str) -> None:
    """Keep ``data`` (of ``sha``) as ``url``'s archive of ``tag``, recorded without credentials."""
    if cache_dir is None:
        return
    folder, index = _cache_paths(cache_dir, tag)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        urls = _index(index)
        urls[public_url(url)] = sha
        record = json.dumps(urls, indent=2, sort_keys=True).encode()
        for path, content in ((folder / f"{sha}.tar.gz", data), (index, record)):
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs a later download
