"""The API server the cluster tests start (kubekit.running_cluster): ready on loopback with the
pinned version, reachable with the kubeconfig it writes, and both processes gone afterwards, also
when the code inside fails or a process ends early."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

from cluster.kubekit import ROOT, Cluster, ClusterError, require_binaries, running_cluster


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_serves_the_pinned_version_with_the_token_of_its_kubeconfig(cluster: Cluster) -> None:
    pinned = re.search(r"^KUBERNETES_VERSION=(\S+)$", (ROOT / "hack/install-kube.sh").read_text(), re.M)
    assert pinned
    assert cluster.get("/version").body["gitVersion"] == pinned.group(1)
    assert cluster.url.startswith("https://127.0.0.1:")
    config = cluster.kubeconfig.read_text()
    assert cluster.token in config and str(cluster.ca) in config
    assert oct(cluster.kubeconfig.stat().st_mode & 0o777) == "0o600"
    # without the token: authentication fails (the API is not open to anyone on the machine)
    anonymous = httpx.get(cluster.url + "/api/v1/namespaces", verify=False)
    assert anonymous.status_code in (401, 403)


def test_a_failure_inside_stops_etcd_and_the_api_server(tmp_path: Path) -> None:
    apiserver, etcd = require_binaries()
    with pytest.raises(RuntimeError, match="inside"), running_cluster(tmp_path, apiserver, etcd) as running:
        pids, url = running.pids, running.url
        assert running.get("/readyz").ok
        raise RuntimeError("inside")
    assert [_gone(pid) for pid in pids] == [True, True]
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/readyz", verify=False)


def test_an_etcd_that_ends_early_is_an_error_with_its_log(tmp_path: Path) -> None:
    apiserver, _ = require_binaries()
    fake = tmp_path / "etcd"
    fake.write_text("#!/bin/sh\necho 'etcd: cannot start here' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(ClusterError, match=r"(?s)etcd ended with exit code 3:.*etcd: cannot start here"):
        with running_cluster(tmp_path / "cluster", apiserver, str(fake)):
            pass
