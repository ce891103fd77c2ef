"""One entry point for every source kind: classify the source, read it, check the lock's sha256."""

from __future__ import annotations

from pathlib import Path

from gsvendor.errors import SourceError
from gsvendor.upstream.cache import _store
from gsvendor.upstream.folder import read_folder
from gsvendor.upstream.git import read_git
from gsvendor.upstream.http import download, public_url
from gsvendor.upstream.source import FetchOptions, UpstreamSnapshot, Wanted, classify_source, read_archive
from gsvendor.upstream.tarball import read_tarball


def fetch_upstream(
    tag: str, source: str, wanted: Wanted, options: FetchOptions, *, expected_sha256: str | None = None
) -> UpstreamSnapshot:
    """Read the ``wanted`` files of upstream ``tag`` from ``source`` (path or URL). Raises :class:`SourceError`
    for every unreadable, unsafe or mismatching source (an archive not of the lock's ``expected_sha256``)."""
    kind = classify_source(source)
    if kind == "folder":
        snapshot = read_folder(Path(source), tag, wanted, location=source)
    elif kind == "tarball":
        snapshot = read_tarball(read_archive(Path(source)), tag, wanted, kind="tarball", location=source)
    elif kind == "http":
        data = download(source, tag, options, expected_sha256=expected_sha256)
        snapshot = read_tarball(data, tag, wanted, kind="http", location=public_url(source))
        # cached only once it proved to be a readable archive of the tag (no poisoned cache)
        _store(options.cache_dir, tag, source, data, snapshot.sha256 or "")
    else:
        snapshot = read_git(source, tag, wanted, options)
    if expected_sha256 and snapshot.sha256 and snapshot.sha256 != expected_sha256:
        raise SourceError(
            f"{snapshot.location}: archive sha256 {snapshot.sha256} differs from the lock's {expected_sha256}"
        )
    return snapshot
