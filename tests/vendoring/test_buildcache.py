"""The build cache: a sync of inputs built before writes the bytes a build writes, and any change of an input,
a damaged entry or a path leading out of the chart is a miss that builds again."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from conftest import TAGS, Cli, tarball, tree

from gsvendor.config import load_config
from gsvendor.overlays.engine import load_overlays
from gsvendor.stamps import framed
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import FetchOptions
from gsvendor.vendoring.buildcache import cached_build
from gsvendor.vendoring.plan import Build, build, wanted_for

TAG = TAGS[-1]


def synced(cli: Cli, project: Path) -> tuple[str, dict[str, bytes], bytes]:
    """Sync ``TAG`` into an empty helm/: its ``--json`` summary, the tree written and the lock."""
    shutil.rmtree(project / "helm", ignore_errors=True)
    (project / "gsvendor.lock.yaml").unlink(missing_ok=True)
    result = cli(project, "sync", TAG, "--source", str(tarball(TAG)), "--json")
    assert result.returncode == 0, result.stderr
    return result.stdout, tree(project / "helm"), (project / "gsvendor.lock.yaml").read_bytes()


def entries(cli: Cli) -> list[Path]:
    """The build cache's entries, in the CLI's cache folder."""
    return sorted((Path(cli.env["GSVENDOR_CACHE_DIR"]) / "validated" / "builds").iterdir())


def test_the_same_inputs_again_read_the_kept_build_and_write_the_same_bytes(cli: Cli, project: Path) -> None:
    first = synced(cli, project)
    [entry] = entries(cli)
    os.utime(entry, (0, 0))
    assert synced(cli, project) == first
    assert entries(cli) == [entry] and entry.stat().st_mtime > 0  # a hit marks the entry used
    verified = cli(project, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_an_edited_overlay_is_a_miss(cli: Cli, project: Path) -> None:
    synced(cli, project)
    overlay = project / "overlays" / "zz-extra.yaml"
    overlay.write_text("operations:\n  - op: copy\n    to: EXTRA.txt\n    content: kept?\n")
    _, written, _ = synced(cli, project)
    assert {path for path in written if path.endswith("/EXTRA.txt")} == {
        f"{chart}/EXTRA.txt" for chart in _charts(project)
    }
    overlay.write_text("operations:\n  - op: copy\n    to: EXTRA.txt\n    content: changed\n")
    _, written, _ = synced(cli, project)
    assert {written[f"{chart}/EXTRA.txt"] for chart in _charts(project)} == {b"changed\n"}
    assert len(entries(cli)) == 3


def test_a_damaged_file_or_a_path_out_of_the_chart_is_a_miss_that_replaces_the_entry(cli: Cli, project: Path) -> None:
    first = synced(cli, project)
    [entry] = entries(cli)
    largest = max((p for p in entry.iterdir() if p.name != "index"), key=lambda p: p.stat().st_size)
    largest.write_bytes(b"not the bytes of its name\n")
    assert synced(cli, project) == first
    [entry] = entries(cli)
    assert all(p.name == "index" or _sha(p) == p.name for p in entry.iterdir())
    index = json.loads((entry / "index").read_text().partition("\n")[2])
    files = index["data"]["charts"][0][2]
    files["../../outside.txt"] = files.pop("Chart.yaml")
    (entry / "index").write_text(framed(json.dumps(index)))
    assert synced(cli, project) == first
    assert not (project / "outside.txt").exists()


def test_a_changed_project_file_that_generation_read_is_a_miss(project: Path, tmp_path: Path) -> None:
    """A miss replaces the entry (same key, other reads); a partial entry an hour old goes with the next keep."""
    config = load_config(project / "gsvendor.yaml", tmp_path / "stamps")
    archive = tarball(TAG).read_bytes()
    shared = project / "shared.json"
    shared.write_bytes(b"{}")
    seen: list[bytes | None] = []

    def make(outside: object) -> Build:
        seen.append(outside(str(shared)))  # type: ignore[operator]
        snapshot = fetch_upstream(TAG, str(tarball(TAG)), wanted_for(config), FetchOptions(), archive=archive)
        return build(config, snapshot, load_overlays(config.overlays_dir), None, outside)  # type: ignore[arg-type]

    first = cached_build(config, TAG, str(tarball(TAG)), archive, make)
    [first_entry] = [p.name for p in (tmp_path / "stamps" / "builds").iterdir()]
    again = cached_build(config, TAG, str(tarball(TAG)), archive, make)
    assert seen == [b"{}"] and again.output() == first.output() and again.snapshot == first.snapshot
    builds = tmp_path / "stamps" / "builds"
    killed, running = builds / ".a.1.partial", builds / ".b.2.partial"  # a run killed while keeping; one keeping
    for partial, age in ((killed, 7200), (running, 60)):
        partial.mkdir()
        os.utime(partial, (time.time() - age, time.time() - age))
    shared.write_bytes(b'{"changed": true}')
    cached_build(config, TAG, str(tarball(TAG)), archive, make)
    shared.unlink()
    cached_build(config, TAG, str(tarball(TAG)), archive, make)
    assert seen == [b"{}", b'{"changed": true}', None]
    assert sorted(p.name for p in builds.iterdir() if not p.name.startswith(".")) == [first_entry]
    assert not killed.exists() and running.exists()


def _charts(project: Path) -> list[str]:
    return sorted(p.name for p in (project / "helm").iterdir())


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
