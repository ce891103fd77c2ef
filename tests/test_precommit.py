"""pre-commit: this repository's hooks pass on a freshly synced tree, and match the published hooks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, tarball
from ruamel.yaml import YAML

DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the module: the hook environments are built once (from PyPI)."""
    return tmp_path_factory.mktemp("pre-commit-home")


def plain_env(home: Path, cache: Path) -> dict[str, str]:
    """The environment of a user who ran ``pre-commit install`` only: no virtualenv on PATH."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p) != Path(venv_bin))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return {**env, "PATH": path, "PRE_COMMIT_HOME": str(home), "GSVENDOR_CACHE_DIR": str(cache)}


def test_local_gsvendor_hooks_are_the_published_ones() -> None:
    yaml = YAML(typ="safe")
    published = {h["id"]: h for h in yaml.load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    local = {h["id"]: h for r in yaml.load((ROOT / ".pre-commit-config.yaml").read_text())["repos"] for h in r["hooks"]}
    for hook_id in ("gsvendor-generate-check", "gsvendor-versions"):
        for key in ("pass_filenames", "files", "always_run", "require_serial", "language"):
            assert local[hook_id].get(key) == published[hook_id].get(key), (hook_id, key)
        # the same command, run from this checkout by the hook's own python
        assert local[hook_id]["entry"] == f"python -m {published[hook_id]['entry']}"
        assert local[hook_id]["additional_dependencies"] == DEPENDENCIES, hook_id
    assert published["gsvendor-generate"]["entry"] == "gsvendor generate"
    # every hook builds its own environment: none needs an activated virtualenv
    assert {h["language"] for h in local.values()} == {"python"}
    assert {h["language"] for h in published.values()} == {"python"}


def test_pre_commit_passes_on_a_freshly_synced_tree(tmp_path: Path, pre_commit_home: Path) -> None:
    project = tmp_path / "repo"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for rel in tracked.splitlines():
        if (ROOT / rel).is_file():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, project / rel)
    env = plain_env(pre_commit_home, tmp_path / "cache")
    assert shutil.which("gsvendor", path=env["PATH"]) is None
    assert shutil.which("trailing-whitespace-fixer", path=env["PATH"]) is None

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


SISTER_VALUES = """\
# -- How many replicas
replicas: 1
image:
  # -- The registry of the image
  registry: gsoci.azurecr.io
"""


def test_try_repo_in_a_sister_repository(tmp_path: Path, pre_commit_home: Path) -> None:
    """A repository that only vendors a chart: the published hooks need nothing else (no overlays,
    no Dockerfiles, no network), regenerate stale files on the first run and pass on the second."""
    sister = tmp_path / "sister"
    chart = sister / "helm" / "mychart"
    chart.mkdir(parents=True)
    (sister / "gsvendor.yaml").write_text("upstream: {repository: kserve/kserve}\ncharts: [mychart]\n")
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\ndescription: A sister chart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(SISTER_VALUES)
    # helm-values-schema-json reads these paths from the repository root, where pre-commit runs it
    (chart / ".schema.yaml").write_text(
        "values:\n  - helm/mychart/values.yaml\noutput: helm/mychart/values.schema.json\ndraft: 7\nindent: 4\n"
    )
    gotmpl = (
        '{{ template "chart.header" . }}\n{{ template "chart.description" . }}\n\n'
        '{{ template "chart.valuesSection" . }}\n'
    )
    (chart / "README.md.gotmpl").write_text(gotmpl)
    (chart / "README.md").write_text("stale\n")
    (chart / "values.schema.json").write_text("{}\n")
    env = plain_env(pre_commit_home, tmp_path / "cache")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=sister, env=env, capture_output=True, text=True, timeout=900, check=False)

    git = ("git", "-c", "user.name=t", "-c", "user.email=t@example.com")
    assert run("git", "init", "-q", "-b", "main").returncode == 0
    assert run("git", "add", "-A").returncode == 0
    assert run(*git, "commit", "-q", "-m", "sister").returncode == 0
    try_repo = (sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "--all-files")
    first = run(*try_repo)
    assert first.returncode == 1, first.stdout[-3000:]
    outcomes = {line.split(".")[0]: line.rsplit(".", 1)[-1] for line in first.stdout.splitlines() if "...." in line}
    assert outcomes == {
        "gsvendor generate": "Failed",
        "gsvendor generate --check": "Passed",
        "gsvendor versions --check": "Passed",
    }
    assert "files were modified by this hook" in first.stdout
    assert "wrote helm/mychart/README.md" in first.stdout
    changed = run("git", "status", "--porcelain").stdout.splitlines()
    assert sorted(changed) == [" M helm/mychart/README.md", " M helm/mychart/values.schema.json"]
    assert "| replicas | int | `1` | How many replicas |" in (chart / "README.md").read_text()
    assert json.loads((chart / "values.schema.json").read_text())["properties"]["replicas"]["type"] == "integer"
    second = run(*try_repo)
    assert second.returncode == 0, second.stdout[-3000:]
    assert run("git", "status", "--porcelain").stdout.splitlines() == changed
