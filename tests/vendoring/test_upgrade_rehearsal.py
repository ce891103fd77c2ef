"""The next upgrade, rehearsed: a stand-in for the release after the latest archive in the upstream
folder (tests/upgradekit.py) is synced, and the project's own checks pass on it with no file edited.

``make helm-test`` (helm-unittest suites and the chart tests on the synced project, CHART_PROJECT),
``check-manifests`` and ``check-images`` run as the maintainer runs them, with real helm.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, Cli
from upgradekit import LATEST, later_archive

from gsvendor.config import load_config
from gsvendor.overlays.crdfield import project_crd_lookup

PROJECT_FILES = ("gsvendor.yaml", "Makefile", "Dockerfile", "Dockerfile.llmisvc")


def copy_project(dest: Path) -> Path:
    """This repository's configuration, overlays, hack/ and check inputs, with its tools linked."""
    dest.mkdir()
    for name in PROJECT_FILES:
        shutil.copy(ROOT / name, dest / name)
    for folder in ("overlays", "hack", "patches"):
        shutil.copytree(ROOT / folder, dest / folder)
    (dest / ".tools").symlink_to(ROOT / ".tools")
    return dest


@pytest.fixture(scope="module")
def latest_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import tarball

    out = tmp_path_factory.mktemp("latest")
    with tarfile.open(tarball(LATEST)) as archive:
        archive.extractall(out, filter="data")
    [tree] = out.iterdir()
    return tree


@pytest.mark.parametrize("rollout_strategy", [False, True], ids=["crd-without-rolloutStrategy", "crd-with-it"])
def test_a_later_release_passes_every_check_with_no_file_edited(
    tmp_path: Path, cli: Cli, latest_tree: Path, rollout_strategy: bool
) -> None:
    archive = later_archive(latest_tree, tmp_path, "v0.21.0", rollout_strategy=rollout_strategy)
    project = copy_project(tmp_path / "project")
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".tools" not in p.parts}
    synced = cli(project, "sync", "v0.21.0", "--source", str(archive))
    assert synced.returncode == 0, synced.stdout + synced.stderr
    schema = project_crd_lookup(load_config(project / "gsvendor.yaml"))(
        "LLMInferenceServiceConfig", "spec.rolloutStrategy"
    )
    assert (schema is not None) == rollout_strategy
    suites = sorted(p.name for p in (project / "helm/kserve-runtime-configs/tests").glob("llmisvc_rollout*"))
    assert suites == (["llmisvc_rollout_test.yaml"] if rollout_strategy else ["llmisvc_rollout_guard_test.yaml"])
    env = {**os.environ, "NO_COLOR": "1"}
    helm_test = subprocess.run(
        [
            "make",
            "-C",
            str(ROOT),
            "helm-test",
            f"CHART_PROJECT={project}",
            "PYTEST_ARGS=-k vendored -p no:cacheprovider",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1500,
        check=False,
    )
    assert helm_test.returncode == 0, helm_test.stdout[-4000:] + helm_test.stderr[-4000:]
    suites = re.search(r"Test Suites: +(\d+) passed, (\d+) total", helm_test.stdout)
    assert suites and suites.group(1) == suites.group(2), helm_test.stdout[-4000:]
    assert re.search(r"(?m)^\d+ passed, \d+ deselected in ", helm_test.stdout), helm_test.stdout[-4000:]
    manifests = cli(project, "check-manifests")
    assert manifests.returncode == 0, manifests.stdout + manifests.stderr
    images = cli(project, "check-images")
    assert images.returncode == 0, images.stdout + images.stderr
    if rollout_strategy:  # the variant declared to fail while the CRD lacks the field now renders, checked
        listed = cli(project, "check-manifests", "-v")
        assert "llmisvc-rollout-strategy" in listed.stdout
        assert "failed as declared" not in listed.stdout.split("llmisvc-rollout-strategy", 1)[1].split("\n", 1)[0]
    after = {p: p.read_bytes() for p in before}
    assert after == before  # no file of the project was edited
