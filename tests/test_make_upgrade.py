"""``make upgrade TAG=…`` on a temporary copy of this repository: offline from the upstream folder,
end to end (pins, report, sync, verify, generate, versions, check-images, check-manifests,
helm-test, patch-verify), with one summary at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import ROOT, TAGS, UPSTREAM

OLD, NEW = TAGS[0], TAGS[-1]


def copy_repository(dest: Path) -> Path:
    """This repository's files (tracked, or new and not ignored; as on disk), its venv and tools linked."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    for link in (".venv", ".tools"):
        (dest / link).symlink_to(ROOT / link)
    return dest


def make(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # -o: the venv is this repository's, installed already (never reinstalled from the copy)
    return subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def pin(project: Path, tag: str) -> None:
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        path = project / name
        lines = path.read_text().split("\n")
        path.write_text(
            "\n".join(f"ARG KSERVE_VERSION={tag}" if x.startswith("ARG KSERVE_VERSION=") else x for x in lines)
        )


def test_make_upgrade_runs_offline_end_to_end(tmp_path: Path) -> None:
    project = copy_repository(tmp_path / "kserve-app")
    env = {
        **os.environ,
        "GSVENDOR_UPSTREAM_DIR": str(UPSTREAM),
        "GSVENDOR_CACHE_DIR": str(tmp_path / "cache"),
        "NO_COLOR": "1",
        # no network: a download would fail here, so passing proves the local archives were read
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    env.pop("GSVENDOR_CHART_PROJECT", None)
    pin(project, OLD)  # a fresh clone: no lock, so the script syncs OLD first, for the report to start from
    result = make(project, "upgrade", f"TAG={NEW}", f"LOCAL_ARCHIVES={UPSTREAM}", env=env)
    out = result.stdout
    assert result.returncode == 0, out[-6000:] + result.stderr[-3000:]
    # after make's own tool checks, the script's first line says where upstream comes from
    assert f"\nupgrade {OLD} → {NEW}, offline, from {UPSTREAM}/kserve-{NEW}.tar.gz\n" in out
    # each step's heading names the command it runs; a step that is a script function shows its name alone
    headings = [line for line in out.splitlines() if line.startswith("==> ")]
    gsvendor = f"{project}/.venv/bin/gsvendor"
    assert headings[:2] == [
        f"==> sync {OLD}, the version the report starts from: {gsvendor} sync {OLD}",
        f"==> pins ({OLD} → {NEW} in Dockerfile Dockerfile.llmisvc)",
    ]
    assert [h for h in headings if h.startswith("==> sync: ")] == [f"==> sync: {gsvendor} sync {NEW}"]
    assert headings[-1] == "==> patch-verify"
    summary = out[out.rindex(f"\nupgrade {OLD} → {NEW}: ") + 1 :].splitlines()
    report = f"build/upgrade-report-{NEW}.md"
    assert summary == [
        f"upgrade {OLD} → {NEW}: 10 step(s) passed, 0 failed, 1 not judged",
        f"  passed       sync {OLD}, the version the report starts from",
        f"  passed       pins ({OLD} → {NEW} in Dockerfile Dockerfile.llmisvc)",
        f"  passed       dry-run report ({report})",
        "  passed       sync",
        "  passed       verify",
        "  passed       generate",
        "  passed       versions",
        "  passed       check-images",
        "  passed       check-manifests",
        "  passed       helm-test (the synced charts)",
        # the upstream folder's archives hold the charts only: the series cannot be judged offline
        "  not judged   patch-verify",
        "needs the maintainer:",
        f"  - review {report}: images, RBAC, CRD changes and overlays of the upgrade",
        "  - check the carried patches on a full upstream source: make patch-verify "
        f"PATCH_SOURCE=<kserve checkout at {NEW}, or its git URL>",
        "  - commit what git status shows changed (the pins, and helm/ and gsvendor.lock.yaml where the repository"
        " tracks them) together",
    ]
    assert (project / report).read_text().startswith(f"# Upgrade report: {OLD} → {NEW}\n")
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        assert f"\nARG KSERVE_VERSION={NEW}\n" in (project / name).read_text()
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert f"tag: {NEW}\n" in lock and f"kserve-{NEW}.tar.gz" in lock


def test_make_upgrade_without_a_tag_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(ROOT / "hack/upgrade.sh")], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "error: give the upstream tag: make upgrade TAG=vX.Y.Z\n",
    )


def test_an_upgrade_stops_before_the_pins_move_when_there_is_nothing_to_start_from(tmp_path: Path) -> None:
    """An empty pin is a usage error; without a lock, an old pin whose sync fails (offline, its archive
    missing) stops the upgrade with the pins unchanged: a run after the fix still syncs the old pin first,
    instead of reporting the new tag against itself."""
    project = copy_repository(tmp_path / "kserve-app")
    env = {**os.environ, "GSVENDOR_CACHE_DIR": str(tmp_path / "cache"), "HTTPS_PROXY": "http://127.0.0.1:9"}
    env["GSVENDOR_UPSTREAM_DIR"] = str(tmp_path / "empty")
    script = [str(project / "hack/upgrade.sh"), NEW]
    pin(project, "")
    empty = subprocess.run(script, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert (empty.returncode, empty.stderr) == (
        2,
        "error: Dockerfile.llmisvc: ARG KSERVE_VERSION= holds no tag to upgrade from\n",
    )
    pin(project, OLD)
    failed = subprocess.run(script, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert failed.returncode == 1
    assert failed.stderr.endswith(
        f"error: the sync of {OLD} failed (above), so the pins stay at {OLD}; fix it and run this again\n"
    )
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        assert f"\nARG KSERVE_VERSION={OLD}\n" in (project / name).read_text()
    assert not (project / "helm").exists() and not (project / "gsvendor.lock.yaml").exists()
