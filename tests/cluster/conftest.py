"""The cluster tests' fixtures: one API server (etcd + kube-apiserver, tests/cluster/kubekit.py) for
the whole run, with the project's synced charts installed on it.

Without kube-apiserver or etcd (``make tools`` installs both) or without helm/ (``make sync``) the
tests skip with the reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cluster.chartkit import Helm, Installed, install_all, installable, synced_variants
from cluster.kubekit import ROOT, Cluster, missing, require_binaries, running_cluster

TIMES: dict[str, float] = {}


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A running API server for the session, stopped (both process groups) at its end, also when a
    test failed or the run was interrupted."""
    apiserver, etcd = require_binaries()
    with running_cluster(tmp_path_factory.mktemp("cluster"), apiserver, etcd) as running:
        TIMES["kube-apiserver start to ready"] = running.ready_seconds
        yield running


@pytest.fixture(scope="session")
def installed(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """Every chart of the project's helm/ installed on ``cluster`` in the documented order (stand-in
    CRDs first), with every variant check-images renders rendered."""
    variants = synced_variants(ROOT)
    if not variants:
        missing(f"{ROOT / 'helm'}: charts not synced")
    helm = Helm(str(ROOT / ".tools" / "bin" / "helm"), cluster, tmp_path_factory.mktemp("helm"))
    with installable(ROOT / "helm") as copies:
        yield install_all(cluster, helm, copies, variants)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The API server's start-to-ready time and the differential's counts, even under -q."""
    import sys

    COUNTS = getattr(sys.modules.get("cluster.test_check_manifests_server"), "COUNTS", {})
    upgrade = getattr(sys.modules.get("cluster.test_upgrade"), "SUMMARY", {})
    if TIMES or COUNTS or upgrade:
        terminalreporter.section("cluster tests")
    for name, seconds in TIMES.items():
        terminalreporter.write_line(f"{name}: {seconds:.2f} s")
    if COUNTS:
        terminalreporter.write_line(
            f"check-manifests against the server: {COUNTS['compared']} objects compared,"
            f" {COUNTS['disagreements']} disagreements ({COUNTS['cel_only']} refused for CEL rules alone)"
        )
    for line in upgrade.values():
        terminalreporter.write_line(f"upgrade keeps what clusters store: {line}")
