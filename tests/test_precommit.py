"""pre-commit: this repository's hooks pass on a freshly synced tree, and match the published hooks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, tarball
from ruamel.yaml import YAML


def test_local_gsvendor_hooks_are_the_published_ones() -> None:
    yaml = YAML(typ="safe")
    published = {h["id"]: h for h in yaml.load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    local = {h["id"]: h for r in yaml.load((ROOT / ".pre-commit-config.yaml").read_text())["repos"] for h in r["hooks"]}
    for hook_id in ("gsvendor-generate-check", "gsvendor-versions"):
        for key in ("entry", "pass_filenames", "files", "always_run", "require_serial"):
            assert local[hook_id].get(key) == published[hook_id].get(key), (hook_id, key)
    assert published["gsvendor-generate"]["entry"] == "gsvendor generate"


def test_pre_commit_passes_on_a_freshly_synced_tree(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for rel in tracked.splitlines():
        if (ROOT / rel).is_file():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, project / rel)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    env["GSVENDOR_CACHE_DIR"] = str(tmp_path / "cache")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)

    assert run("git", "init", "-q", "-b", "main").returncode == 0
    synced = run(sys.executable, "-m", "gsvendor", "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert synced.returncode == 0, synced.stderr
    # as a repository that commits its vendored charts would
    assert run("git", "add", "-A").returncode == 0
    assert run("git", "add", "-f", "helm", "gsvendor.lock.yaml").returncode == 0
    before = run("git", "diff", "--stat").stdout
    result = run(sys.executable, "-m", "pre_commit", "run", "--all-files", "--show-diff-on-failure")
    assert result.returncode == 0, result.stdout[-4000:]
    assert before == run("git", "diff", "--stat").stdout == ""  # no hook changed a staged file
    for hook in (
        "trim trailing whitespace",
        "fix end of files",
        "gsvendor generate --check",
        "gsvendor versions --check",
    ):
        assert any(line.startswith(hook) and line.endswith("Passed") for line in result.stdout.splitlines()), hook
