"""A sync to a tag other than the Dockerfile pin warns once, naming the pin; a downgrade says so in
the plan and the upgrade report. The tags are those of the upstream folder, oldest to latest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, TAGS, Cli, tarball

from gsvendor.upstream.source import direction

OLDER, LATEST = TAGS[-2], TAGS[-1]


def pinned(project: Path, tag: str) -> Path:
    """``project`` with this repository's Dockerfile.llmisvc, pinned at ``tag``."""
    text = (ROOT / "Dockerfile.llmisvc").read_text()
    lines = [
        f"ARG KSERVE_VERSION={tag}" if line.startswith("ARG KSERVE_VERSION=") else line for line in text.split("\n")
    ]
    (project / "Dockerfile.llmisvc").write_text("\n".join(lines))
    return project


def pin_line(project: Path) -> int:
    return next(
        i
        for i, line in enumerate((project / "Dockerfile.llmisvc").read_text().split("\n"), 1)
        if line.startswith("ARG KSERVE_VERSION=")
    )


def test_direction_follows_version_order() -> None:
    assert [
        direction(a, b) for a, b in [("v0.20.0", "v0.20.0-rc1"), ("v0.20.0-rc1", "v0.20.0"), ("v0.20.0", "v0.20.0")]
    ] == [
        "downgrade",
        "upgrade",
        "same",
    ]
    assert direction("v0.19.0", "v0.21.0") == "upgrade" and direction("v0.21.0", "v0.9.0") == "downgrade"


def test_sync_at_the_pin_prints_no_warning(cli: Cli, project: Path) -> None:
    pinned(project, LATEST)
    result = cli(project, "sync", LATEST, "--source", str(tarball(LATEST)))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_a_sync_off_the_pin_warns_once_naming_it(cli: Cli, project: Path) -> None:
    pinned(project, LATEST)
    result = cli(project, "sync", OLDER, "--source", str(tarball(OLDER)))
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"warning: syncing {OLDER} (older: a downgrade from the pin), but Dockerfile.llmisvc:{pin_line(project)} "
        f"pins ARG KSERVE_VERSION={LATEST}: the controller images build {LATEST}; bump the pin to {OLDER} "
        f"(gsvendor versions --check) or sync {LATEST}\n"
    )


def test_a_downgrade_says_so_in_the_plan_and_the_report(cli: Cli, project: Path, tmp_path: Path) -> None:
    pinned(project, LATEST)
    assert cli(project, "sync", LATEST, "--source", str(tarball(LATEST))).returncode == 0
    shutil.copy(tarball(OLDER), tmp_path / tarball(OLDER).name)
    report = tmp_path / "report.md"
    result = cli(project, "sync", OLDER, "--source", str(tarball(OLDER)), "--dry-run", "--report", str(report))
    assert result.returncode == 0, result.stderr
    plan = result.stdout.splitlines()
    assert plan[0].startswith(f"Plan {OLDER} (downgrade from {LATEST}) from tarball ")
    assert (
        [line for line in plan if line.startswith("dry run:")]
        == [
            line
            for line in plan
            if line.startswith("dry run: ") and line.endswith(f" planned (downgrade from {LATEST}), nothing written")
        ]
        != []
    )
    lines = report.read_text().splitlines()
    assert lines[0] == f"# Downgrade report: {LATEST} → {OLDER}"
    assert f"**This is a downgrade**: {OLDER} is older than the synced {LATEST}." in lines[:6]
    assert lines[2].startswith("What the downgrade changes in the vendored charts")  # never "the upgrade"


@pytest.mark.parametrize("old", [TAGS[0]])
def test_an_upgrade_report_keeps_its_title(cli: Cli, project: Path, tmp_path: Path, old: str) -> None:
    pinned(project, LATEST)
    assert cli(project, "sync", old, "--source", str(tarball(old))).returncode == 0
    report = tmp_path / "report.md"
    result = cli(project, "sync", LATEST, "--source", str(tarball(LATEST)), "--dry-run", "--report", str(report))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith(f"Plan {LATEST} from tarball ")
    assert report.read_text().splitlines()[0] == f"# Upgrade report: {old} → {LATEST}"
    assert "downgrade" not in report.read_text().lower()
