"""The project's own patch series, patches/llmisvc/.

The upstream archives in shared/upstream hold only charts/ and go.mod, and GitHub may be out of
reach, so whether the series applies to the real upstream is checked on a git repository holding
upstream's files at the pinned tag that the series touches, taken from the Go module proxy's copy
of github.com/kserve/kserve at that tag (`go mod download`, checked against the Go checksum
database) and committed under the tag. ``GSVENDOR_KSERVE_SRC`` names a local kserve clone to use
instead (``GSVENDOR_KSERVE_TAG`` overrides the tag). Without go, the test fails under CI and
skips elsewhere. A clone may be partial (blob-filtered): upload-pack is allowed to filter for the
test's clone, as GitHub does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from conftest import require_tool, tool_path
from gitkit import git, run_gsvendor

from gsvendor.controller_images.patches import list_series, parse_patch

ROOT = Path(__file__).parent.parent
SERIES = ROOT / "patches" / "llmisvc"


def test_every_patch_is_a_well_formed_format_patch() -> None:
    patches = [parse_patch(path) for path in list_series(SERIES, "patches/llmisvc")]
    assert patches, "the series is expected to carry at least the 0001 patch"
    for number, patch in enumerate(patches, 1):
        assert patch.problem is None, f"{patch.name}: {patch.problem}"
        assert patch.name.startswith(f"{number:04d}-"), "format-patch numbering, applied in name order"
        assert patch.commit and patch.subject and patch.author


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


def _pinned_tag() -> str:
    text = (ROOT / "Dockerfile.llmisvc").read_text(encoding="utf-8")
    return re.search(r"^ARG KSERVE_VERSION=(\S+)$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]


def _upstream_from_module_proxy(tmp_path: Path, tag: str) -> Path:
    """A git repository, tagged ``tag``, with go.mod and every file below the folders the series
    touches, as the Go module github.com/kserve/kserve@``tag`` has them."""
    found = tool_path("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").exists() else None)
    go = require_tool("go", found, "the Go toolchain: .tools/bin/go (hack/install-go.sh), PATH or /usr/local/go")
    cache = Path(os.environ.get("GO_TOOLS_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"))
    cache = cache if os.environ.get("GO_TOOLS_CACHE") else cache / "gsvendor-tools" / "go"
    env = {**os.environ, "GOMODCACHE": str(cache / "mod"), "GOFLAGS": "-modcacherw", "GOTOOLCHAIN": "local"}
    done = subprocess.run(
        [go, "mod", "download", "-json", f"github.com/kserve/kserve@{tag}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    info = json.loads(done.stdout or "{}")
    assert done.returncode == 0 and not info.get("Error"), (done.stderr, info.get("Error"))
    module = Path(info["Dir"])
    folders = {
        str(Path(path).parent)
        for patch in list_series(SERIES, "patches/llmisvc")
        for path in parse_patch(patch).touched
    }
    repo = tmp_path / "kserve"
    for folder in sorted(folders):
        shutil.copytree(module / folder, repo / folder, dirs_exist_ok=True)
    shutil.copy(module / "go.mod", repo / "go.mod")
    git(repo.parent, "init", "-q", "-b", "master", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"github.com/kserve/kserve@{tag} (module proxy), the folders the series touches")
    git(repo, "tag", tag)
    return repo


def test_the_series_applies_to_the_pinned_upstream(tmp_path: Path) -> None:
    tag = os.environ.get("GSVENDOR_KSERVE_TAG")  # default: the tag Dockerfile.llmisvc pins
    if os.environ.get("GSVENDOR_KSERVE_SRC"):
        clone = Path(os.environ["GSVENDOR_KSERVE_SRC"]).resolve()
    else:
        clone = _upstream_from_module_proxy(tmp_path, tag or _pinned_tag())
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
