"""Builds remembered by their inputs: a sync, verify or diff of an archive built before skips reading its members,
loading the overlays, applying them and generating (40 % of a verify's time: benchmarks/README.md). The key: the
code (:func:`gsvendor.stamps.code_version`), the tag, the source as given, the archive's sha256, the configuration
file and project root, every file of the overlays folder and the ``GSVENDOR_MAX_*`` limits; an entry also records
the project files generation read, which a hit needs unchanged. An entry is a folder ``builds/<key>/`` in the
stamps folder: ``index`` (a stamp naming every file by sha256) and one file per sha256. A hit needs every file to
hold its sha256 and every path to be one a swap writes; anything else is a miss, which replaces the entry. Errors
are never kept. The cache folder is trusted as its journals and generated files are
(:func:`gsvendor.journal_trust.trusted_cache`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.config import Config
from gsvendor.errors import SourceError
from gsvendor.files import MAX_TREE_FILE_BYTES, is_clean_path, sha256
from gsvendor.generate.chart import project_reader
from gsvendor.overlays.engine import AppliedOperation
from gsvendor.stamps import code_version, read_stamp, write_stamp
from gsvendor.upstream.source import UpstreamSnapshot, read_archive
from gsvendor.vendoring.plan import Build, ChartBuild, FileCopy

if TYPE_CHECKING:
    from gsvendor.generate.schema.config import Reader

SALT = "build-v1"  # a new entry format takes a new salt
KEEP = 6  # entries kept (~15 MB each): the lock's tag and an upgrade's, with a few edits of the overlays
_DIGEST = re.compile(r"[0-9a-f]{64}")


def cached_build(config: Config, tag: str, source: str, archive: bytes, make: Callable[[Reader], Build]) -> Build:
    """The build of ``archive`` (upstream ``tag`` read from ``source``) with ``config``: its entry when kept and
    whole, else ``make(outside)``'s (``outside``: the project files reader to build with), then kept. Raises what
    ``make`` raises."""
    key = _key(config, tag, source, archive) if config.stamps is not None else None
    entry = config.stamps / "builds" / key if config.stamps is not None and key is not None else None
    outside = project_reader(config)
    if entry is not None and (kept := _load(entry, config, tag, outside)) is not None:
        return kept
    reads: dict[str, str | None] = {}

    def recording(path: str) -> bytes | None:
        data = outside(path)
        reads[path] = None if data is None else sha256(data)
        return data

    made = make(recording)
    if entry is not None:
        shutil.rmtree(entry, ignore_errors=True)  # damaged, or of outside files changed since
        _store(entry, made, reads)
    return made


def _key(config: Config, tag: str, source: str, archive: bytes) -> str | None:
    """The entry name of ``archive`` (upstream ``tag``, read from ``source``) built with ``config``: hex sha256;
    ``None`` when an overlay file cannot be read (the build then says why)."""
    overlays = []
    try:
        for folder, names, files in os.walk(config.overlays_dir):
            names.sort()
            for name in sorted(files):
                path = Path(folder, name)
                overlays.append([path.relative_to(config.overlays_dir).as_posix(), sha256(path.read_bytes())])
        settings = config.path.read_bytes()
    except OSError:
        return None
    limits = sorted((name, value) for name, value in os.environ.items() if name.startswith("GSVENDOR_MAX_"))
    inputs = [SALT, code_version(), tag, source, sha256(archive), sha256(settings), str(config.root), overlays, limits]
    return hashlib.sha256(json.dumps(inputs).encode("utf-8", "surrogatepass")).hexdigest()


def _store(entry: Path, build: Build, reads: dict[str, str | None]) -> None:
    """Keep ``build`` as ``entry`` with the outside files generation ``reads`` (path → sha256, ``None``: absent);
    the :data:`KEEP` entries used last stay. A cache that cannot be written only costs the next run a build."""
    blobs: dict[str, bytes] = {}

    def named(files: dict[str, bytes]) -> dict[str, str]:
        digests = {path: sha256(data) for path, data in files.items()}
        blobs.update((digests[path], data) for path, data in files.items())
        return digests

    def applied(chart: ChartBuild) -> list[list[Any]]:
        return [[a.overlay, a.operation, list(a.files), a.found] for a in chart.applied]

    snapshot = build.snapshot
    index = {
        "snapshot": [snapshot.kind, snapshot.location, snapshot.sha256, snapshot.commit, named(snapshot.files)],
        "folders": None if snapshot.folders is None else sorted(snapshot.folders),
        "charts": [
            [c.spec.name, named(c.upstream), named(c.files), c.skipped, c.normalized, c.generated, applied(c)]
            for c in build.charts
        ],
        "copies": [named({"copy": copy.data})["copy"] for copy in build.copies],
        "reads": reads,
    }
    partial = entry.with_name(f".{entry.name}.{os.getpid()}.partial")
    try:
        partial.mkdir(parents=True)
        for digest, data in blobs.items():
            (partial / digest).write_bytes(data)
        write_stamp(partial / "index", index)
        os.rename(partial, entry)  # a folder: fails when another run kept the same entry first
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        return
    with contextlib.suppress(OSError):
        found = [(e.stat().st_mtime, e.path, e.name) for e in os.scandir(entry.parent)]
        kept = sorted(f[:2] for f in found if _DIGEST.fullmatch(f[2]))
        # and a partial entry an hour old: its run was killed while keeping it
        old = [(when, path) for when, path, name in found if name.endswith(".partial") and when < time.time() - 3600]
        for _, path in kept[: max(0, len(kept) - KEEP)] + old:
            shutil.rmtree(path, ignore_errors=True)


def _load(entry: Path, config: Config, tag: str, read: Reader) -> Build | None:
    """The build kept as ``entry`` for ``config`` and ``tag``, when whole and every outside file it records reads
    (``read``: path → bytes or ``None``) as it did; else ``None``."""
    blobs: dict[str, bytes] = {}

    def files(named: dict[str, str]) -> dict[str, bytes]:
        for path, digest in named.items():
            if not is_clean_path(path) or not _DIGEST.fullmatch(digest):
                raise ValueError(path)
            if digest not in blobs:
                blobs[digest] = _blob(entry / digest)
        return {path: blobs[digest] for path, digest in named.items()}

    try:
        index: Any = read_stamp(entry / "index")
        index = index["data"]
        kind, location, sha, commit, upstream = index["snapshot"]
        folders = None if index["folders"] is None else frozenset(index["folders"])
        snapshot = UpstreamSnapshot(tag, kind, location, files(upstream), sha, commit, folders)
        if [row[0] for row in index["charts"]] != [spec.name for spec in config.charts]:
            return None
        charts = []
        for spec, (_, up, out, skipped, normalized, generated, applied) in zip(
            config.charts, index["charts"], strict=True
        ):
            done = [AppliedOperation(name, op, tuple(touched), found) for name, op, touched, found in applied]
            charts.append(
                ChartBuild(spec, files(up), files(out), done, list(skipped), list(normalized), list(generated))
            )
        pairs = zip(config.files, index["copies"], strict=True)  # ValueError when their numbers differ
        copies = [FileCopy(spec, files({"copy": digest})["copy"]) for spec, digest in pairs]
        if any((None if (data := read(path)) is None else sha256(data)) != was for path, was in index["reads"].items()):
            return None
    except (TypeError, KeyError, ValueError, AttributeError, OSError, SourceError):  # none, damaged or edited: a miss
        return None
    with contextlib.suppress(OSError):
        os.utime(entry)  # used last: kept longest
    return Build(snapshot, charts, copies)


def _blob(path: Path) -> bytes:
    """The bytes of ``path``, named by their sha256; raises ValueError when they are not, SourceError unreadable."""
    data = read_archive(path, MAX_TREE_FILE_BYTES, os.O_NOFOLLOW)  # a link or FIFO put there: refused, no wait
    if sha256(data) != path.name:
        raise ValueError(path.name)
    return data
