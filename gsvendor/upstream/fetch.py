"""One entry point for every source kind: classify the source, read it, check the lock's sha256; and the
download cache (archives per tag and sha256, written atomically, only once proven readable)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path

from gsvendor.errors import SourceError
from gsvendor.files import write_whole
from gsvendor.upstream.folder import read_folder
from gsvendor.upstream.git import read_git
from gsvendor.upstream.http import download, public_url
from gsvendor.upstream.source import FetchOptions, UpstreamSnapshot, Wanted, classify_source, read_archive
from gsvendor.upstream.tarball import read_tarball


def fetch_upstream(
    tag: str, source: str, wanted: Wanted, options: FetchOptions, *, expected_sha256: str | None = None
) -> UpstreamSnapshot:
    """Read the ``wanted`` files of upstream ``tag`` from ``source`` (path or URL; a URL's archive cached). Raises
    :class:`SourceError` for an unreadable, unsafe or mismatching source (not of the lock's ``expected_sha256``)."""
    kind = classify_source(source)
    if kind == "folder":
        snapshot = read_folder(Path(source), tag, wanted, location=source)
    elif kind == "tarball":
        snapshot = read_tarball(read_archive(Path(source)), tag, wanted, kind="tarball", location=source)
    elif kind == "http":
        cache = options.cache_dir
        data = (_cached(cache, tag, source, expected_sha256) if cache else None) or download(source, tag, options)
        snapshot = read_tarball(data, tag, wanted, kind="http", location=public_url(source))
        if cache:  # only once it proved to be a readable archive of the tag (no poisoned cache)
            _store(cache, tag, source, data, snapshot.sha256 or "")
    else:
        snapshot = read_git(source, tag, wanted, options)
    if expected_sha256 and snapshot.sha256 and snapshot.sha256 != expected_sha256:
        raise SourceError(
            f"{snapshot.location}: archive sha256 {snapshot.sha256} differs from the lock's {expected_sha256}"
        )
    return snapshot


def _cache_paths(cache_dir: Path, tag: str) -> tuple[Path, Path]:
    """The folder of ``tag``'s archives (never ``.`` or ``..``) and its index, ``urls.json``."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)
    folder = cache_dir / (name if name.strip(".") else "_")
    return folder, folder / "urls.json"


def _index(path: Path) -> dict[str, object]:
    """The index's public URL → sha256; empty when missing or unreadable."""
    try:  # not through a link; a FIFO put in the cache is refused instead of hanging the run
        urls = json.loads(read_archive(path, 1024 * 1024, os.O_NOFOLLOW))
    except (SourceError, ValueError):
        return {}
    return urls if isinstance(urls, dict) else {}


def _cached(cache_dir: Path, tag: str, url: str, expected_sha256: str | None) -> bytes | None:
    """The intact cached archive of ``url`` at ``tag`` (of ``expected_sha256`` when given), or ``None``."""
    folder, index = _cache_paths(cache_dir, tag)
    sha = expected_sha256 or _index(index).get(public_url(url))
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        return None
    try:
        data = read_archive(folder / f"{sha}.tar.gz", flags=os.O_NOFOLLOW)
    except SourceError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha else None


def _store(cache_dir: Path, tag: str, url: str, data: bytes, sha: str) -> None:
    """Keep ``data`` (of ``sha``) as ``url``'s archive of ``tag``, recorded without credentials."""
    folder, index = _cache_paths(cache_dir, tag)
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs a later download
        folder.mkdir(parents=True, exist_ok=True)
        record = json.dumps({**_index(index), public_url(url): sha}, indent=2, sort_keys=True).encode()
        for path, content in ((folder / f"{sha}.tar.gz", data), (index, record)):
            write_whole(path, content)
