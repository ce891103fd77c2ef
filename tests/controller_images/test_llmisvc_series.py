"""The project's own patch series, patches/llmisvc/.

The upstream archives in shared/upstream hold only charts/ and go.mod, and GitHub may be out of
reach, so whether the series applies to the real upstream is checked on a git repository holding
upstream's files at the pinned tag: ``GSVENDOR_KSERVE_SRC`` names a local kserve clone holding
it (``GSVENDOR_KSERVE_TAG`` overrides the tag), and without one that test is not collected
(`make patch-verify` checks the series against GitHub). A clone may be partial
(blob-filtered): upload-pack is allowed to filter for the test's clone, as GitHub does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gitkit import run_gsvendor

from gsvendor.controller_images.patch_files import list_series, parse_patch

ROOT = Path(__file__).resolve().parents[2]
SERIES = ROOT / "patches" / "llmisvc"


def test_every_patch_is_a_well_formed_format_patch() -> None:
    patches = [parse_patch(path) for path in list_series(SERIES, "patches/llmisvc")]
    assert patches, "the series is expected to carry at least the 0001 patch"
    for number, patch in enumerate(patches, 1):
        assert patch.problem is None, f"{patch.path.name}: {patch.problem}"
        assert patch.path.name.startswith(f"{number:04d}-"), "format-patch numbering, applied in name order"
        assert patch.commit and patch.subject


def test_0001_touches_the_llmisvc_controller_and_adds_a_test() -> None:
    patch = parse_patch(SERIES / "0001-llmisvc-ready-needs-an-available-replica.patch")
    assert patch.subject == "llmisvc: ready needs an available replica"
    assert all(p.startswith("pkg/controller/v1alpha2/llmisvc/") for p in patch.touched)
    created = [f.new_path for f in patch.files if f.old_path is None]
    assert created == ["pkg/controller/v1alpha2/llmisvc/workload_single_node_status_test.go"]
    changed = {f.path: [h.header.split(" @@")[0] + " @@" for h in f.hunks] for f in patch.files if f.old_path}
    assert changed == {
        "pkg/controller/v1alpha2/llmisvc/controller_int_test.go": ["@@ -2477,6 +2477,9 @@"],
        "pkg/controller/v1alpha2/llmisvc/workload_single_node.go": ["@@ -337,10 +337,13 @@", "@@ -349,6 +352,18 @@"],
    }


def _series_applies_to_the_pinned_upstream(tmp_path: Path) -> None:
    tag = os.environ.get("GSVENDOR_KSERVE_TAG")  # default: the tag Dockerfile.llmisvc pins
    clone = Path(os.environ["GSVENDOR_KSERVE_SRC"]).resolve()
    upload = tmp_path / "upload.gitconfig"
    # A local upload-pack reads the global config (not GIT_CONFIG_COUNT, which git clears for it);
    # a partial clone can only serve the blob-filtered clone patch-verify asks for.
    upload.write_text("[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n", encoding="utf-8")
    args = ["patch-verify", "--source", clone.as_uri(), *(["--tag", tag] if tag else []), "--json"]
    env = {"GIT_CONFIG_GLOBAL": str(upload), "GSVENDOR_CACHE_DIR": str(tmp_path / "cache")}
    result = run_gsvendor(ROOT, *args, env=env)
    data = json.loads(result.stdout) if result.stdout.strip() else {}
    assert result.returncode == 0, f"{result.stderr}\n{json.dumps(data.get('results'), indent=2)}"
    assert data["ok"] is True and data["empty"] is False
    assert [r["status"] for r in data["results"]] == ["applies"] * len(data["results"])
    assert "pkg/controller/v1alpha2/llmisvc/workload_single_node.go" in data["fetched"]


# Collected only where a kserve clone is named: without one there is no upstream source to apply
# the series to (the module proxy is not a way to fetch kserve's source), so no test is reported
# rather than a skip. `make patch-verify` runs the same check against GitHub.
if os.environ.get("GSVENDOR_KSERVE_SRC"):
    test_the_series_applies_to_the_pinned_upstream = _series_applies_to_the_pinned_upstream
