"""The build cache: a sync of inputs built before writes the bytes a build writes, and any change of an input,
a damaged entry or a path leading out of the chart is a miss that builds again."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from conftest import TAGS, Cli, tarball, tree

from gsvendor.stamps import framed

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
    builds = Path(cli.env["GSVENDOR_CACHE_DIR"]) / "validated" / "builds"
    return sorted(p for p in builds.iterdir() if not p.name.startswith("."))


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
    files = index["data"]["charts"][0][1]
    files["../../outside.txt"] = files.pop("Chart.yaml")
    (entry / "index").write_text(framed(json.dumps(index)))
    assert synced(cli, project) == first
    assert not (project / "outside.txt").exists()


# kserve-crd's schema bundles a Kubernetes schema from a project folder (localRefs), as a chart may
_LOCAL_REF = """charts: [kserve-crd]
operations:
  - op: copy
    to: .schema.yaml
    content: |
      values: [helm/kserve-crd/values.yaml]
      output: helm/kserve-crd/values.schema.json
      bundle: true
      bundleWithoutID: true
      k8sSchemaVersion: v1.33.1
      localRefs: ../../k8s-schemas
  - op: copy
    to: values.yaml
    content: "memory: '1' # @schema $ref: $k8s/quantity.json"
"""


def test_a_changed_project_file_that_generation_read_is_a_miss(cli: Cli, project: Path) -> None:
    """The build records the project files generation read; one changed or gone since makes the entry a miss,
    replaced (same key); a partial entry an hour old goes with the next keep."""
    (project / "overlays" / "zz-local-ref.yaml").write_text(_LOCAL_REF)
    quantity = project / "k8s-schemas/raw.githubusercontent.com/yannh/kubernetes-json-schema/master/v1.33.1"
    quantity.mkdir(parents=True)
    quantity /= "quantity.json"
    quantity.write_text('{"type": "string"}')

    def bundled() -> object:
        _, written, _ = synced(cli, project)
        return json.loads(written["kserve-crd/values.schema.json"])["$defs"]

    assert bundled() == {"quantity.json": {"type": "string"}}
    [entry] = entries(cli)
    builds = entry.parent
    killed, running = builds / ".a.1.partial", builds / ".b.2.partial"  # a run killed while keeping; one keeping
    for partial, age in ((killed, 7200), (running, 60)):
        partial.mkdir()
        os.utime(partial, (time.time() - age, time.time() - age))
    quantity.write_text('{"type": "string", "pattern": "^[0-9]+$"}')
    assert bundled() == {"quantity.json": {"type": "string", "pattern": "^[0-9]+$"}}
    assert entries(cli) == [entry] and not killed.exists() and running.exists()
    quantity.unlink()
    result = cli(project, "verify")  # the kept build read a file that is gone: built again, generation's error
    assert result.returncode == 2 and "quantity.json" in result.stderr, result.stderr


def _charts(project: Path) -> list[str]:
    return sorted(p.name for p in (project / "helm").iterdir())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_kept_build_still_refuses_an_unemulated_file_and_follows_a_repointed_overlay_folder(
    cli: Cli, project: Path
) -> None:
    """A kept build skipped the check of helm-docs' ignore file (verify said ok), and a link to a folder in
    overlays/ pointed elsewhere gave the old asset: the key is the overlays as loaded, the check runs on a hit."""
    overlays = project / "overlays"
    for version in ("v1", "v2"):
        (overlays / version).mkdir()
        (overlays / version / "x.yaml").write_text(f"version: {version}\n")
    (overlays / "current").symlink_to("v1")
    (overlays / "zz-link.yaml").write_text(
        "operations:\n  - op: copy\n    charts: [kserve-crd]\n    from: current/x.yaml\n    to: x.yaml\n"
    )
    assert synced(cli, project)[1]["kserve-crd/x.yaml"] == b"version: v1\n"
    (overlays / "current").unlink()
    (overlays / "current").symlink_to("v2")
    assert synced(cli, project)[1]["kserve-crd/x.yaml"] == b"version: v2\n"
    (project / ".helmdocsignore").touch()
    result = cli(project, "verify")
    assert result.returncode == 2 and ".helmdocsignore" in result.stderr, result.stderr


def test_a_fifo_in_the_overlays_or_the_cache_is_never_waited_on(cli: Cli, project: Path) -> None:
    """A FIFO no overlay names (the key read every file of overlays/), or one where the cache keeps a folder
    (``rmtree`` opens it): verify waited for a writer for ever; now it reads no such file and removes it."""
    first = synced(cli, project)
    [entry] = entries(cli)
    os.mkfifo(project / "overlays" / "notes.fifo")
    shutil.rmtree(entry)
    os.mkfifo(entry)
    stale = entry.parent / ".x.1.partial"
    os.mkfifo(stale)
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    result = cli(project, "verify", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert entries(cli) == [entry] and entry.is_dir() and not stale.exists()
    assert synced(cli, project) == first
