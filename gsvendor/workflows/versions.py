"""The versions workflow: read the pin, the places and upstream's go.mod, and judge them."""

from __future__ import annotations

from typing import Any

from gsvendor.config import Config
from gsvendor.controller_images import versions
from gsvendor.errors import SourceError
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import Wanted, go_directives
from gsvendor.vendoring import lock as lockfile
from gsvendor.workflows import Progress, no_progress


def check(
    config: Config, source: str | None, options: Any, *, go: bool = True, progress: Progress = no_progress
) -> versions.VersionsReport:
    """The report of the pin, every place and (with ``go``) the Go builders; ``progress`` wraps reading
    upstream's go.mod. Raises :class:`ConfigError` without a usable pin (exit 2) and
    :class:`~gsvendor.errors.SourceError` when go.mod cannot be read."""
    pin = versions.read_pin(config)
    report = versions.VersionsReport(pin=pin, places=versions.version_places(config, pin))
    if pin.renovate is None:
        report.notes.append(f"{pin.file}:{pin.line}: no '# renovate:' comment above ARG {versions.PIN_ARG}")
    lock = lockfile.read(config.lock_path, config.stamps) if config.lock_path.exists() else None
    if lock is not None and lock.tag != pin.value:
        # after a Renovate bump: say so at once, offline; go.mod of the new tag is sync's to read
        report.stale_lock = lock.tag
        if go:
            report.notes.append(f"Go builders not checked: the lock is at {lock.tag}, not the pinned {pin.value}")
        return report
    if not go:
        return report
    if source is None and lock is None:
        report.notes.append("Go builders not checked: not synced yet (run gsvendor sync, or give --source)")
        return report
    if source is None and lock is not None and lock.go_mod is not None:
        report.go_mod, report.go_source, report.go_from_lock = versions.GoMod(*lock.go_mod), lock.location, True
    else:  # from --source, else the lock's source (at the pin: checked above) and its sha256
        location, sha = (source, None) if source or lock is None else (lock.source_for(config.root), lock.sha256)
        location = location or config.archive_url_for(pin.value)
        with progress("reading upstream go.mod"):
            snapshot = fetch_upstream(pin.value, location, Wanted(files=("go.mod",)), options, expected_sha256=sha)
        if (data := snapshot.files.get("go.mod")) is None:
            raise SourceError(f"{location}: upstream {pin.value} has no go.mod")
        report.go_mod, report.go_source = versions.GoMod(*go_directives(data.decode("utf-8", "replace"))), location
    report.builders = versions.go_builders(config, report.go_mod)
    if not report.builders:
        report.notes.append("no golang builder stage in the Dockerfiles")
    return report


def no_dockerfiles(config: Config) -> str | None:
    """The note for a project without the default Dockerfiles (nothing pins the upstream version), else
    ``None``; Dockerfiles named in gsvendor.yaml must exist (the regular check says so)."""
    raw = config.raw or {}
    if "dockerfiles" in raw or "pinDockerfile" in raw:
        return None
    inputs = versions.build_inputs(config)
    if any((config.root / name).exists() for name in inputs.dockerfiles):
        return None
    return f"no {' or '.join(inputs.dockerfiles)} in the project: nothing pins the upstream version, nothing to check"
