"""The download cache: archives per tag and sha256, written atomically, only once proven readable."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path


def _cache_paths(cache_dir: Path, tag: str) -> tuple[Path, Path]:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)
    folder = cache_dir / (name if name.strip(".") else "_")  # never "." or ".."
    return folder, folder / "urls.json"


def _cached(cache_dir: Path | None, tag: str, url: str, expected_sha256: str | None) -> bytes | None:
    """Return cached archive bytes for ``url`` at ``tag`` when present and intact."""
    if cache_dir is None:
        return None
    folder, index = _cache_paths(cache_dir, tag)
    sha = expected_sha256
    if sha is None:
        try:
            urls = json.loads(index.read_text())
        except (OSError, ValueError):
            return None
        sha = urls.get(url) if isinstance(urls, dict) else None
    if not sha:
        return None
    try:
        data = (folder / f"{sha}.tar.gz").read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha else None


def _store(cache_dir: Path | None, tag: str, url: str, data: bytes, sha: str) -> None:
    if cache_dir is None:
        return
    folder, index = _cache_paths(cache_dir, tag)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(folder / f"{sha}.tar.gz", data)
        try:
            urls = json.loads(index.read_text())
        except (OSError, ValueError):
            urls = {}
        if not isinstance(urls, dict):
            urls = {}
        urls[url] = sha
        _atomic_write(index, json.dumps(urls, indent=2, sort_keys=True).encode())
    except OSError:
        pass  # a cache that cannot be written only costs a later download


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)
