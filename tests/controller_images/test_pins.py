"""One source per pin: what Renovate bumps is what `make sync` and `gsvendor sync` use.

- The upstream version: ARG KSERVE_VERSION of Dockerfile.llmisvc is the Makefile's default TAG;
  the archive in ../shared/upstream is its default SOURCE when it exists, else GitHub's archive.
- The kube-rbac-proxy mirror: its tag lives in overlays/50-gsoci-images.yaml (under the Renovate
  comment), so a Renovate bump there reaches helm/ through `gsvendor sync`, and `verify` agrees.
"""

from __future__ import annotations

import json
import re
import resource
import shutil
from pathlib import Path

from conftest import CHARTS, ROOT, UPSTREAM, Cli, tarball
from ruamel.yaml import YAML
from test_makefile import make

OVERLAY = "overlays/50-gsoci-images.yaml"
MIRROR = "gsoci.azurecr.io/giantswarm/kube-rbac-proxy"


def project_copy(dest: Path, pin: str | None = None) -> Path:
    """gsvendor.yaml, overlays/ and both Dockerfiles of this repository in ``dest``, pinned to ``pin``."""
    dest.mkdir(parents=True)
    shutil.copy(ROOT / "gsvendor.yaml", dest / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", dest / "overlays")
    shutil.copytree(ROOT / "patches", dest / "patches")
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        text = (ROOT / name).read_text()
        if pin is not None:
            text, count = re.subn(r"(?m)^ARG KSERVE_VERSION=\S+$", f"ARG KSERVE_VERSION={pin}", text)
            assert count == 1
        (dest / name).write_text(text)
    return dest


def _children_cpu() -> float:
    """CPU seconds (user + system) used so far by finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def offline_cli(cache: Path) -> Cli:
    """The CLI with every proxy pointing at a closed local port: any network use fails at once."""
    cli = Cli(cache)
    closed = "http://127.0.0.1:9"
    cli.env.update(HTTP_PROXY=closed, HTTPS_PROXY=closed, ALL_PROXY=closed, NO_PROXY="", no_proxy="")
    return cli


def synced_tag(project: Path) -> tuple[str, str, str]:
    """The lock's tag, kserve-resources' appVersion and kserve.version."""
    yaml = YAML(typ="safe")
    lock = yaml.load(project / "gsvendor.lock.yaml")
    chart = yaml.load(project / "helm/kserve-resources/Chart.yaml")
    values = yaml.load(project / "helm/kserve-resources/values.yaml")
    return lock["tag"], chart["appVersion"], values["kserve"]["version"]


def test_make_sync_vendors_the_dockerfile_pin(tmp_path: Path) -> None:
    project = project_copy(tmp_path / "project", pin="v0.19.0")
    first = make(project, "sync", f"LOCAL_ARCHIVES={UPSTREAM}")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"gsvendor sync 'v0.19.0' --source '{UPSTREAM}/kserve-v0.19.0.tar.gz'\n" in first.stdout
    assert synced_tag(project) == ("v0.19.0", "v0.19.0", "v0.19.0")
    # the Renovate pull request: both Dockerfiles say v0.20.0. `versions --check` says at once,
    # with no network, what is stale and what to run
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        (project / name).write_text((project / name).read_text().replace("=v0.19.0\n", "=v0.20.0\n"))
    cli = offline_cli(tmp_path / "cache")
    cpu = _children_cpu()
    stale = cli(project, "versions", "--check")
    cpu = _children_cpu() - cpu
    assert stale.returncode == 1, stale.stdout + stale.stderr
    # no download, no retry: 2 s of CPU time (the wall clock of a loaded machine would say nothing)
    assert cpu < 2, cpu
    lines = stale.stderr.splitlines()
    pins = "but Dockerfile.llmisvc:8 pins v0.20.0"
    named = sorted(line.split(":")[1].strip() for line in lines[:-1])
    assert named == sorted(
        [f"helm/{chart}/Chart.yaml" for chart in CHARTS]
        + [
            f"helm/{chart}/values.yaml"
            for chart in ("kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs")
        ]
        + ["gsvendor.lock.yaml"]
    )
    assert all(line.startswith("error: ") and line.endswith(f"is v0.19.0, {pins}") for line in lines[:-1]), lines
    assert lines[-1] == "error: helm/ and the lock are at v0.19.0, Dockerfile.llmisvc pins v0.20.0: run gsvendor sync"
    # make sync follows the pin; then every place agrees and the Go builders are checked, still offline
    second = make(project, "sync", f"LOCAL_ARCHIVES={UPSTREAM}")
    assert second.returncode == 0, second.stdout + second.stderr
    assert synced_tag(project) == ("v0.20.0", "v0.20.0", "v0.20.0")
    fresh = cli(project, "versions", "--check")
    # two Dockerfiles, five Chart.yaml appVersions, three values.yaml kserve.versions, the lock
    assert (fresh.returncode, fresh.stdout, fresh.stderr) == (
        0,
        "ok: every version pin agrees (11 pins in 11 files)\n",
        "",
    )
    table = cli(project, "versions", "--json")
    assert table.returncode == 0, table.stderr
    go = json.loads(table.stdout)["go"]
    assert go["goMod"] == {"go": "1.25.8", "toolchain": None}  # recorded in the lock at sync time
    assert [b["status"] for b in go["builders"]] == ["ok", "ok"]
    # TAG and SOURCE still override the pin
    rc = make(project, "sync", "TAG=v0.20.0-rc1", f"SOURCE={tarball('v0.20.0-rc1')}")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert synced_tag(project) == ("v0.20.0-rc1", "v0.20.0-rc1", "v0.20.0-rc1")


def test_make_sync_without_a_local_archive_asks_github(tmp_path: Path) -> None:
    project = project_copy(tmp_path / "project", pin="v0.21.0")
    planned = make(project, "-n", "sync", f"LOCAL_ARCHIVES={UPSTREAM}")  # no kserve-v0.21.0.tar.gz there
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.splitlines()[-1].endswith("/bin/gsvendor sync 'v0.21.0'")  # GitHub's archive of the tag


def test_make_sync_without_a_pin_is_a_usage_error(tmp_path: Path) -> None:
    project = project_copy(tmp_path / "project")
    for name in ("Dockerfile", "Dockerfile.llmisvc"):
        (project / name).unlink()
    failed = make(project, "sync", f"LOCAL_ARCHIVES={UPSTREAM}")
    assert failed.returncode != 0
    assert "error: Dockerfile.llmisvc: no ARG KSERVE_VERSION=…; give TAG=…" in failed.stderr
    assert not (project / "helm").exists()


def test_renovate_bump_of_the_kube_rbac_proxy_overlay_reaches_helm(tmp_path: Path) -> None:
    project = project_copy(tmp_path / "project")
    cli = Cli(tmp_path / "cache")
    source = str(tarball("v0.20.0"))
    assert cli(project, "sync", "v0.20.0", "--source", source).returncode == 0
    overlay = project / OVERLAY
    text = overlay.read_text()
    (pinned,) = re.findall(rf"(?m)^\s*# renovate: datasource=docker depName={MIRROR}\n.*:(v[\w.-]+)'$", text)
    values = project / "helm/kserve-resources/values.yaml"
    assert f"    rbacProxyImage: {MIRROR}:{pinned}\n" in values.read_text()
    # what Renovate's pull request changes: the tag on the line under the comment, nothing else
    overlay.write_text(text.replace(f"{MIRROR}:{pinned}'", f"{MIRROR}:v0.99.1'"))
    bumped = cli(project, "sync", "v0.20.0", "--source", source)
    assert bumped.returncode == 0, bumped.stderr
    after = values.read_text()
    assert f"    rbacProxyImage: {MIRROR}:v0.99.1\n" in after and f"{MIRROR}:{pinned}" not in after
    verified = cli(project, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "ok: output is upstream v0.20.0 plus the declared overlays" in verified.stdout
    assert "renovate:" not in after  # Renovate edits overlays/, never helm/
