"""Builds remembered by their inputs: a sync, verify or diff of an archive built before skips loading the overlays,
applying them and generating (benchmarks/README.md). The key: the code (:func:`gsvendor.stamps.code_version`), the
archive (tag, kind, location, sha256), the configuration file and project root, every file of the overlays folder
and the ``GSVENDOR_MAX_*`` limits; an entry also records the project files generation read, which a hit needs
unchanged. An entry is a folder ``builds/<key>/`` in the stamps folder: ``index`` (a stamp naming every vendored
file by sha256) and one file per sha256; the upstream side of a build is the archive's. A hit needs every file to
hold its sha256 and every path to be one a swap writes; anything else is a miss, which replaces the entry. Errors
are never kept. The cache folder is trusted as its journals and stamps are (:mod:`gsvendor.journal_trust`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from gsvendor.config import Config
from gsvendor.errors import SourceError
from gsvendor.files import MAX_TREE_FILE_BYTES, is_clean_path, sha256
from gsvendor.generate.chart import project_reader, refuse_unemulated
from gsvendor.overlays.engine import AppliedOperation, Overlay
from gsvendor.stamps import code_version, read_stamp, write_stamp
from gsvendor.upstream.source import UpstreamSnapshot, read_archive
from gsvendor.vendoring.backup import is_real_dir
from gsvendor.vendoring.plan import Build, ChartBuild, FileCopy, build, vendored_upstream

SALT = "build-v1"  # a new entry format takes a new salt
KEEP = 6  # entries kept (~8 MB each): the lock's tag and an upgrade's, with a few edits of the overlays
_DIGEST = re.compile(r"[0-9a-f]{64}")


def cached_build(config: Config, snapshot: UpstreamSnapshot, overlays: list[Overlay]) -> Build:
    """The :func:`~gsvendor.vendoring.plan.build` of ``snapshot`` (an archive's: its ``sha256`` set) with
    ``config`` and ``overlays``: its entry when kept and whole, else built and kept. Raises what ``build`` raises."""
    refuse_unemulated(config)  # a project file's check, which a kept build would skip
    key = _key(config, snapshot, overlays) if config.stamps is not None else None
    entry = config.stamps / "builds" / key if config.stamps is not None and key is not None else None
    if entry is not None and (kept := _load(entry, config, snapshot)) is not None:
        return kept
    made = build(config, snapshot, overlays)
    if entry is not None:
        _remove(entry)  # damaged, or of outside files changed since
        _store(entry, made)
    return made


def _key(config: Config, snapshot: UpstreamSnapshot, overlays: list[Overlay]) -> str | None:
    """The entry name of ``snapshot`` built with ``config`` and ``overlays`` (each file and asset as loaded): hex
    sha256; ``None`` when the configuration or an overlay cannot be read again."""
    try:
        files = [[o.path.name, sha256(o.path.read_bytes()), sorted(_digests(o.assets).items())] for o in overlays]
        settings = sha256(config.path.read_bytes())
    except OSError:
        return None
    limits = sorted((name, value) for name, value in os.environ.items() if name.startswith("GSVENDOR_MAX_"))
    source = [snapshot.tag, snapshot.kind, snapshot.location, snapshot.sha256]
    inputs = [SALT, code_version(), source, settings, str(config.root), files, limits]
    return hashlib.sha256(json.dumps(inputs).encode("utf-8", "surrogatepass")).hexdigest()


def _store(entry: Path, build: Build) -> None:
    """Keep ``build`` as ``entry``; the :data:`KEEP` entries used last stay. A cache that cannot be written only
    costs the next run a build."""
    blobs: dict[str, bytes] = {}
    charts = []
    for chart in build.charts:
        named = _digests(chart.files)
        blobs.update((named[path], data) for path, data in chart.files.items())
        applied = [[a.overlay, a.operation, list(a.files), a.found] for a in chart.applied]
        charts.append([chart.spec.name, named, chart.skipped, chart.normalized, chart.generated, applied])
    partial = entry.with_name(f".{entry.name}.{os.getpid()}.partial")
    try:
        partial.mkdir(parents=True)
        for digest, data in blobs.items():
            (partial / digest).write_bytes(data)
        write_stamp(partial / "index", {"charts": charts, "reads": build.reads})
        os.rename(partial, entry)  # a folder: fails when another run kept the same entry first
    except OSError:
        _remove(partial)
        return
    with contextlib.suppress(OSError):
        found = [(e.stat().st_mtime, e.path, e.name) for e in os.scandir(entry.parent)]
        kept = sorted(f[:2] for f in found if _DIGEST.fullmatch(f[2]))
        # and a partial entry an hour old: its run was killed while keeping it
        old = [(when, path) for when, path, name in found if name.endswith(".partial") and when < time.time() - 3600]
        for _, path in kept[: max(0, len(kept) - KEEP)] + old:
            _remove(Path(path))


def _load(entry: Path, config: Config, snapshot: UpstreamSnapshot) -> Build | None:
    """The build of ``snapshot`` kept as ``entry``, when whole and every project file it records
    (:attr:`Build.reads`) reads as it did; else ``None``."""
    blobs: dict[str, bytes] = {}

    def files(named: dict[str, str]) -> dict[str, bytes]:
        for path, digest in named.items():
            if not is_clean_path(path) or not _DIGEST.fullmatch(digest):
                raise ValueError(path)
            if digest not in blobs:  # a link or FIFO put there: refused, no wait
                blobs[digest] = read_archive(entry / digest, MAX_TREE_FILE_BYTES, os.O_NOFOLLOW)
                if sha256(blobs[digest]) != digest:
                    raise ValueError(digest)
        return {path: blobs[digest] for path, digest in named.items()}

    try:
        index: Any = read_stamp(entry / "index")
        rows = index["data"]["charts"]  # of config.charts: its file is in the key
        charts = [
            ChartBuild(
                spec,
                vendored_upstream(snapshot, spec),
                files(out),
                [AppliedOperation(name, op, tuple(touched), found) for name, op, touched, found in applied],
                list(skipped),
                list(normalized),
                list(generated),
            )
            for spec, (_, out, skipped, normalized, generated, applied) in zip(config.charts, rows, strict=True)
        ]
        copies = [FileCopy(spec, snapshot.files[spec.source]) for spec in config.files]
        recorded, now = dict(index["data"]["reads"]), {}
        list(map(project_reader(config, now), recorded))  # records each file's sha256 as it is now
        if now != recorded:
            return None
    except (TypeError, KeyError, ValueError, AttributeError, OSError, SourceError):  # none, damaged or edited: a miss
        return None
    with contextlib.suppress(OSError):
        os.utime(entry)  # used last: kept longest
    return Build(snapshot, charts, copies, recorded)


def _remove(path: Path) -> None:
    """Remove ``path``: a folder with what it holds, anything else (a FIFO ``rmtree`` would open and wait on) alone."""
    with contextlib.suppress(OSError):
        shutil.rmtree(path) if is_real_dir(path) else path.unlink()


def _digests(files: dict[str, bytes]) -> dict[str, str]:
    return {path: sha256(data) for path, data in files.items()}
