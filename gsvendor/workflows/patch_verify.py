"""The patch-verify workflow: fetch the files the series touches at the pinned tag and apply the series."""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from gsvendor.controller_images import dockerfile
from gsvendor.controller_images.patch_files import PatchFile, list_series, parse_patch, wanted_files
from gsvendor.controller_images.patches import SeriesReport, apply_series, git_output, run_git
from gsvendor.controller_images.versions import build_inputs, pinned_tag
from gsvendor.errors import ConfigError, IncompleteSourceError, ToolError
from gsvendor.files import write_tree
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import Wanted, local_archive


def _write_tree(files: dict[str, bytes], tree: Path) -> None:
    """Write upstream's files into ``tree``, a git repository of its own as the image build's clone (``git apply``
    in another would resolve paths against it); the source readers refused absolute paths, ``..`` and links."""
    tree.mkdir(parents=True, exist_ok=True)
    write_tree(tree, files)
    result = run_git(["init", "-q"], tree)
    if result.returncode != 0:
        raise ToolError(f"git init failed: {git_output(result)}")


def _dirty_note(folder: Path, tag: str, patches: list[PatchFile]) -> list[str]:
    """A note when a folder source is no git checkout (its tag cannot be checked) or one with local changes
    to the patched files: a folder is read as on disk, so they would be judged as if ``tag`` carried them."""
    if not (folder / ".git").exists():
        return [f"{folder}: not a git checkout, so not checked to be {tag}: judged as {tag} on trust"]
    touched = sorted({path for patch in patches for path in patch.touched})
    status = run_git(["status", "--porcelain", "--untracked-files=all", "--", *touched], folder)
    changed = [line[3:] for line in status.stdout.splitlines() if len(line) > 3]
    if status.returncode != 0 or not changed:
        return []
    listed = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
    return [f"{folder}: local changes to patched files ({listed}): judged as on disk, not as {tag} has them"]


def dockerfile_copies(config: Any, patches_dir: str) -> bool | None:
    """Whether the pin Dockerfile ``COPY``/``ADD``s ``patches_dir`` (``None`` without that Dockerfile):
    a series the image build does not copy is never applied."""
    inputs = build_inputs(config)
    path = config.root / inputs.pin_dockerfile
    if not path.is_file():
        return None
    copies = [i for i in dockerfile.read(path, inputs.pin_dockerfile).instructions if i.name in ("COPY", "ADD")]
    # args: the sources, then the destination (the exec form COPY ["src", "dest"] read as JSON)
    return any(
        PurePosixPath(source.strip("\"'")) == PurePosixPath(patches_dir) for i in copies for source in i.args[:-1]
    )


def verify_series(
    config: Any, tag: str | None, source: str | None, options: Any, patches_dir: Path | None = None
) -> SeriesReport:
    """Check the patch series (``patches_dir``, default the configured one) against upstream ``tag``
    (default: the pin Dockerfile's KSERVE_VERSION) read from ``source`` (default the tag's archive in
    ``$GSVENDOR_UPSTREAM_DIR`` when there, else the configured git URL): only the files the patches touch.
    Raises :class:`ConfigError` (no pin, no series folder), :class:`SourceError` (unreadable source,
    unknown tag) and :class:`ToolError` (no git), all exit 2."""
    inputs = build_inputs(config)
    label = inputs.patches if patches_dir is None else str(patches_dir)
    folder = config.root / inputs.patches if patches_dir is None else patches_dir
    given = tag is not None
    if tag is None:
        tag = pinned_tag(config, "--tag TAG")
    if not tag.strip() or any(c.isspace() for c in tag):
        raise ConfigError(f"{tag!r} is not an upstream tag")
    if given:  # --tag 0.20.0: as sync says it (did you mean v0.20.0?), exit 2
        config.check_tag(tag)
    patches = [parse_patch(path) for path in list_series(folder, label)]
    report = SeriesReport(tag=tag, patches_dir=label, results=[])
    if patches_dir is None and dockerfile_copies(config, inputs.patches) is False:
        report.notes.append(
            f"{inputs.pin_dockerfile} does not COPY {inputs.patches}: the image build skips this series"
        )
    if not patches:
        return report  # nothing to apply, nothing to fetch
    readable = [p for p in patches if p.problem is None]
    files: dict[str, bytes] = {}
    if readable:
        location = source or local_archive(config.repository, tag) or config.git_url
        snapshot = fetch_upstream(tag, location, Wanted(files=wanted_files(readable)), options)
        report.source = {"kind": snapshot.kind, "location": snapshot.location, "commit": snapshot.commit}
        report.fetched = tuple(sorted(snapshot.files))
        files = snapshot.files
        if snapshot.kind == "folder":
            report.notes.extend(_dirty_note(Path(location), tag, readable))
        touched = sorted({path for patch in readable for path in patch.touched})
        read = sorted({f.old_path for patch in readable for f in patch.files if f.old_path}) or touched
        tops = {path.split("/", 1)[0] for path in read}
        if not any(path in files for path in touched) and snapshot.folders is not None and not tops & snapshot.folders:
            # e.g. a charts-only archive: every patch would fail for a reason that is not the patch's
            shown = ", ".join(read[:3]) + (f" and {len(read) - 3} more" if len(read) > 3 else "")
            raise IncompleteSourceError(
                f"{snapshot.location} holds none of the files the patches touch ({shown}): not the full upstream "
                f"source tree; give --source (make: PATCH_SOURCE=) a kserve checkout at {tag} or its git URL",
                value=snapshot.location,
            )
    with tempfile.TemporaryDirectory(prefix="gsvendor-patches-") as tmp:
        tree = Path(tmp) / "tree"
        _write_tree(files, tree)
        report.results = apply_series(patches, tree, tag)
    return report
