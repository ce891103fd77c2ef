"""The sync, verify and diff workflows: fetch upstream, build the output in memory, write or compare it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.config import Config
from gsvendor.errors import ConfigError, GsvendorError, HandEditError, Interrupted, UsageError
from gsvendor.files import read_file, read_tree
from gsvendor.overlays.engine import load_overlays
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import FetchOptions, UpstreamSnapshot, direction, local_archive
from gsvendor.vendoring import lock as lockfile
from gsvendor.vendoring.compare import FileDiff, compare, unified
from gsvendor.vendoring.journal import interrupted_after
from gsvendor.vendoring.plan import Build, build, wanted_for
from gsvendor.vendoring.writer import FileChange, foreign, hand_edits, plan_changes, read_destinations, write_atomically
from gsvendor.workflows import Progress
from gsvendor.yamlio import read_text

if TYPE_CHECKING:  # the upgrade report's modules load only when a report is made
    from gsvendor.vendoring.upgrade import Upgrade

# git's ref-name rules are looser; a tag also names cache folders, so keep it to a safe subset
TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")


def check_tag_syntax(tag: str) -> None:
    """Raise :class:`UsageError` (exit 2) unless ``tag`` matches :data:`TAG`."""
    if not TAG.fullmatch(tag):
        raise UsageError(f"{tag!r} is not an upstream tag (letters, digits and . _ + - only, like v0.20.0)")


@dataclass
class SyncResult:
    """What a sync did (or, with ``dry_run``, would do): the file ``changes``, the ``backup`` folder of
    replaced hand edits (``forced``), the tag the lock recorded before (``None`` without a lock)."""

    build: Build
    changes: list[FileChange]
    lock_changed: bool
    dry_run: bool
    backup: Path | None = None
    forced: list[str] = field(default_factory=list)
    previous_tag: str | None = None

    @property
    def downgrade(self) -> bool:
        """Whether the sync goes to a tag older than the lock's."""
        return self.previous_tag is not None and direction(self.previous_tag, self.build.snapshot.tag) == "downgrade"


def pin_warning(config: Config, tag: str) -> str | None:
    """A warning when ``tag`` is not the pin Dockerfile's ``ARG KSERVE_VERSION`` (the controller images
    would build another upstream); ``None`` when they agree or no pin is readable (``versions`` says so)."""
    from gsvendor.controller_images.versions import PIN_ARG, read_pin

    try:
        config.check_tag(tag)  # a tag sync refuses gets that error, not this warning
        pin = read_pin(config)
    except GsvendorError:
        return None
    if pin.value == tag:
        return None
    older = " (older: a downgrade from the pin)" if direction(pin.value, tag) == "downgrade" else ""
    return (
        f"syncing {tag}{older}, but {pin.file}:{pin.line} pins ARG {PIN_ARG}={pin.value}: the controller images "
        f"build {pin.value}; bump the pin to {tag} (gsvendor versions --check) or sync {pin.value}"
    )


def read_lock_if_any(config: Config) -> lockfile.Lock | None:
    """The lock file when present; a malformed one is an error, a missing one is ``None``."""
    return lockfile.read(config.lock_path, config.stamps) if config.lock_path.exists() else None


def sync(
    config: Config,
    tag: str,
    source: str | None,
    options: FetchOptions,
    *,
    dry_run: bool,
    force: bool,
    helm: str | None,
    on_commit: Callable[[str | None], None],
) -> SyncResult:
    """Vendor ``tag`` into the configured destinations with the overlays, atomically. ``on_commit`` gets the
    hand edits' backup folder (project-relative, or ``None``) once the swap passed its point of no return.
    Raises :class:`HandEditError` (exit 1) naming hand-edited files unless ``force``; source, overlay and
    definition errors propagate with nothing written."""
    check_tag_syntax(tag)
    config.check_tag(tag)
    overlays = load_overlays(config.overlays_dir, config.stamps)
    previous = read_lock_if_any(config)
    # else the tag's archive in $GSVENDOR_UPSTREAM_DIR when there, else the configured archive URL (GitHub's)
    source = source or local_archive(config.repository, tag) or config.archive_url_for(tag)
    snapshot = fetch_upstream(tag, source, wanted_for(config), options)
    result = _build(config, snapshot, overlays, helm)
    output = result.output()
    location = lockfile.source_location(snapshot.kind, source, config.root)
    lock_bytes = lockfile.render(lockfile.document(result, location))
    disk = read_destinations(config.root, output)
    changes = plan_changes(output, disk)
    old_lock = config.lock_path.read_bytes() if config.lock_path.is_file() else None
    edits = hand_edits(config.root, output, previous, disk)
    if edits and not force:
        # a name's line break is escaped where the error is printed (report/writer.py), as every error's
        listed = ", ".join(edits[:10]) + (f" and {len(edits) - 10} more" if len(edits) > 10 else "")
        raise HandEditError(
            f"refusing to overwrite changes the lock and the overlays do not explain: {listed} "
            "(declare them as an overlay, or re-run with --force to replace them and keep a backup)",
            value=edits,
        )
    backup = None
    if not dry_run and (changes or old_lock != lock_bytes):
        backup = write_atomically(
            config.root, output, config.lock_path, lock_bytes, backup=edits or None, tag=tag, on_commit=on_commit
        )
    return SyncResult(result, changes, old_lock != lock_bytes, dry_run, backup, edits, previous and previous.tag)


def _rebuild_from_lock(
    config: Config, options: FetchOptions, helm: str | None, source: str | None = None, *, remedy: str = ""
) -> tuple[lockfile.Lock, Build]:
    """Rebuild the locked tag from the lock's source, or from ``source`` (the same bytes elsewhere);
    ``remedy``: what to do when the lock's local source is missing (``{tag}``: the lock's tag)."""
    lock = lockfile.read(config.lock_path, config.stamps)
    local = lock.local_source(config.root)
    if source is None and local is not None and not local.exists():
        todo = remedy or "give the same upstream {tag} with --source (its sha256 must be the lock's)"
        missing = f"{config.lock_path.name}: the locked source {lock.location} does not exist here"
        raise UsageError(f"{missing}; {todo.format(tag=lock.tag)}")
    location = source or lock.source_for(config.root)
    snapshot = fetch_upstream(lock.tag, location, wanted_for(config), options, expected_sha256=lock.sha256)
    same_commit = lock.commit and snapshot.commit == lock.commit
    if source is not None and lock.sha256 and not snapshot.sha256 and not same_commit:
        raise UsageError(
            f"--source {source}: a {snapshot.kind} has no archive sha256 to compare with the lock's "
            f"{lock.sha256[:12]}…; give the archive itself (a .tar.gz or its URL)"
        )
    return lock, _build(config, snapshot, load_overlays(config.overlays_dir, config.stamps), helm)


def _build(config: Config, snapshot: UpstreamSnapshot, overlays: Any, helm: str | None) -> Build:
    """Build ``snapshot`` with ``overlays``, rendering charts vendored rendered with ``helm``."""
    renderer = None
    if any(c.render for c in config.charts):  # helm only for charts vendored rendered
        from gsvendor.images.render import chart_renderer, find_helm

        renderer = chart_renderer(find_helm(helm, config.root), config.root)
    return build(config, snapshot, overlays, renderer)


def verify(
    config: Config, options: FetchOptions, helm: str | None = None, source: str | None = None
) -> tuple[lockfile.Lock, list[FileDiff]]:
    """The lock and the diffs from its tag rebuilt (from ``source`` when given, checked against the lock's
    sha256) to the disk, none when the output is upstream plus the overlays. A link or special file in the
    output differs even when its target holds the expected bytes: helm packages it, sync refuses it."""
    config.require_outputs()
    lock, result = _rebuild_from_lock(config, options, helm, source)
    output = result.output()
    labels = ("expected", "actual")
    diffs = []
    for dest, files in output.folders.items():
        diffs += compare(files, read_tree(config.root, dest), dest, labels)
    for dest, data in output.files.items():
        diffs += _file_diff(dest, data, read_file(config.root, dest), labels)
    listed = {d.path for d in diffs}
    for path in foreign(config.root, output):
        if path not in listed:
            diffs.append(FileDiff(path, "changed", f"Only in actual: {path} (a link or special file, not a file)\n"))
    if lockfile.parse(lockfile.document(result, lock.location), "") != lock:  # its sha256s are what sync trusts
        name = config.lock_path.relative_to(config.root).as_posix()
        diffs.append(FileDiff(name, "changed", f"{name}: its sources or sha256s are not the rebuild's; run sync\n"))
    return lock, diffs


def diff(
    config: Config, options: FetchOptions, chart: str | None = None, helm: str | None = None, source: str | None = None
) -> tuple[lockfile.Lock, list[FileDiff]]:
    """The lock and the delta from upstream (``a/``, the lock's tag rebuilt as :func:`verify` does) to
    the disk (``b/``) per file, of ``chart`` or all; a rendered chart's upstream is its rendering without
    overlays. Raises :class:`~gsvendor.errors.LockError` without a lock, ``ConfigError`` for an unknown chart."""
    names = {config.chart(chart).name} if chart else {c.name for c in config.charts}
    config.require_outputs(sorted(names) if chart else None)
    lock, result = _rebuild_from_lock(config, options, helm, source)
    labels = ("upstream", "vendored")
    dests = [c.spec.dest for c in result.charts]
    diffs = []
    for built in (c for c in result.charts if c.spec.name in names):
        on_disk = read_tree(config.root, built.spec.dest)
        if dests.count(built.spec.dest) > 1:  # a folder several charts write: only this chart's files
            on_disk = {p: d for p, d in on_disk.items() if p in built.files or p in built.upstream}
        diffs += compare(built.upstream, on_disk, built.spec.dest, labels)
    for copy in [] if chart else result.copies:
        on_disk = read_file(config.root, copy.spec.dest)
        if on_disk != copy.data:
            diffs.append(FileDiff(copy.spec.dest, "changed", unified(copy.spec.dest, copy.data, on_disk, labels)))
    return lock, diffs


def locked_build(config: Config, options: FetchOptions, helm: str | None = None) -> Build:
    """The build of the lock's tag and source; raises :class:`UsageError` without a lock."""
    if not config.lock_path.exists():
        raise UsageError(
            f"{config.lock_path.name}: no lock file, so no version to report the upgrade from; "
            "sync the tag before the upgrade first (gsvendor sync OLD_TAG, the tag main pins)"
        )
    # sync's --source names the new tag's upstream: the old side can only come from the lock's
    remedy = "the upgrade report rebuilds {tag} from it: sync {tag} again from a copy (--source) first"
    return _rebuild_from_lock(config, options, helm, remedy=remedy)[1]


def upgrade(config: Config, old: Build, new: Build, patches: dict[str, Any] | None = None) -> Upgrade:
    """The upgrade from ``old`` to ``new`` per chart, images judged by the configured allowed prefixes;
    ``patches``: ``gsvendor patch-verify --json`` output, listed in the report."""
    from gsvendor.images.variants import DEFAULT_ALLOW
    from gsvendor.vendoring.upgrade import compare_builds

    images = config.raw.get("images") or {}  # the allowed prefixes only: the variants' files are check-images'
    allow = tuple(str(prefix) for prefix in images["allow"]) if "allow" in images else DEFAULT_ALLOW
    return compare_builds(old, new, allow, load_overlays(config.overlays_dir, config.stamps), patches)


def upgrade_diffs(old: Build, new: Build) -> list[FileDiff]:
    """Unified diffs of every output file from ``old`` (``a/`` labelled with its tag) to ``new``."""
    before, after = old.output(), new.output()
    labels = (old.snapshot.tag, new.snapshot.tag)
    diffs = []
    for dest in sorted(set(before.folders) | set(after.folders)):
        diffs += compare(before.folders.get(dest, {}), after.folders.get(dest, {}), dest, labels)
    for dest in sorted(set(before.files) | set(after.files)):
        diffs += _file_diff(dest, before.files.get(dest), after.files.get(dest), labels)
    return diffs


def _file_diff(dest: str, was: bytes | None, now: bytes | None, labels: tuple[str, str]) -> list[FileDiff]:
    """The diff of the single file ``dest`` from ``was`` to ``now`` (``None``: no such file), none when equal."""
    if was == now:
        return []
    status = "added" if was is None else "removed" if now is None else "changed"
    return [FileDiff(dest, status, unified(dest, was, now, labels))]


def sync_reviewed(
    config: Config,
    tag: str | None,
    source: str | None,
    options: FetchOptions,
    *,
    dry_run: bool,
    force: bool,
    helm: str | None,
    report: bool,
    show_diff: bool,
    patch_report: Path | None,
    automatic: bool,
    guard: AbstractContextManager[object],
    progress: Progress,
    note: Callable[[str], None],
    warn: Callable[[str], None],
    present: Callable[[SyncResult, Upgrade | None, list[FileDiff] | None], None],
) -> None:
    """``gsvendor sync``: :func:`sync` of ``tag`` (default the pin's, else ``warn`` of :func:`pin_warning`) inside
    ``guard``, then ``present(result, upgrade, diffs)`` from the lock's tag, each ``None`` unless asked (``report``,
    ``show_diff``) or ``automatic`` with the lock at another tag (a failed rebuild is then a ``note``). Raises
    :func:`~gsvendor.vendoring.journal.interrupted_after` for a signal after the swap's point of no return, exit 1
    for an exit-2 error after it, else the errors of :func:`read_patch_report`, :func:`sync`, :func:`locked_build`."""
    if tag is None:
        from gsvendor.controller_images.versions import pinned_tag

        tag = pinned_tag(config, "gsvendor sync TAG")
    elif (warning := pin_warning(config, tag)) is not None:
        warn(warning)
    patches = read_patch_report(patch_report, tag) if patch_report is not None else None
    asked = report or show_diff
    automatic = automatic and config.lock_path.is_file()
    committed: list[str | None] = []  # the backup folder, once the swap passed its point of no return
    try:
        with guard:
            old = None
            if asked or automatic:
                config.check_tag(tag)
                locked = read_lock_if_any(config)
                if report and locked is not None and locked.tag == tag:
                    warn(f"the lock is at {tag} already: the report compares it with itself; sync the old tag first")
                if asked or (locked is not None and locked.tag != tag):
                    try:
                        with progress("rebuilding the lock's version"):
                            old = locked_build(config, options, helm)
                    except GsvendorError as exc:
                        if asked:
                            raise
                        note(f"no upgrade report: {exc}")
            with progress(f"syncing {tag}"):
                result = sync(
                    config, tag, source, options, dry_run=dry_run, force=force, helm=helm, on_commit=committed.append
                )
        review = None
        if old is not None and (report or automatic):
            with progress("comparing the builds for the upgrade report"):
                review = upgrade(config, old, result.build, patches)
        present(result, review, upgrade_diffs(old, result.build) if old is not None and show_diff else None)
    except KeyboardInterrupt as exc:
        if committed and not isinstance(exc, Interrupted):
            raise interrupted_after(tag, committed[0]) from None
        raise
    except GsvendorError as exc:
        if committed and exc.exit_code == 2:  # exit 2 says nothing changed: here the output did (> /dev/full)
            kept = f"; the hand edits' backup is in {committed[0]}" if committed[0] else ""
            lock = config.lock_path.relative_to(config.root).as_posix()
            changed = GsvendorError(f"{exc}; but the sync of {tag} was completed: the output and {lock} changed{kept}")
            changed.exit_code = 1
            raise changed from None
        raise


def read_patch_report(path: Path, tag: str) -> dict[str, Any]:
    """``gsvendor patch-verify --json`` output for ``tag`` at ``path``: its report, or its error document
    (``{"ok": false, "error": …}``: a series not judged). Raises :class:`UsageError` (exit 2) naming
    ``--patch-report`` when it is unreadable, not that JSON, or checked against another tag."""
    try:  # a user file's bounds (16 MiB, regular): /dev/zero took 1.9 GB; deep nesting is a RecursionError
        data = json.loads(read_text(path, str(path)))
    except (ConfigError, ValueError, RecursionError) as exc:  # a UnicodeDecodeError is a ValueError
        detail = " ".join(str(exc).split())[:200] if not isinstance(exc, ConfigError) else str(exc).split(": ", 1)[1]
        raise UsageError(f"--patch-report: {path}: cannot read: {detail}") from None
    if isinstance(data, dict) and data.get("ok") is False and isinstance(data.get("error"), dict):
        return {"tag": tag, "error": data["error"]}
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise UsageError(f"--patch-report: {path}: not gsvendor patch-verify --json output (no results list)")
    if isinstance(checked := data.get("tag"), str) and checked != tag:
        raise UsageError(
            f"--patch-report: {path}: the series was checked against {checked}, not {tag} "
            f"(gsvendor patch-verify --tag {tag} --json)"
        )
    return data
