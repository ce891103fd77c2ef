"""A Kubernetes API server for the cluster tests: etcd and kube-apiserver on loopback, and a small
client of its REST API (httpx).

The server is started the way controller-runtime's envtest starts one: etcd on free loopback
ports, kube-apiserver on 127.0.0.1 with a self-signed serving certificate (its ``--cert-dir``), a
static token (``--token-auth-file``), ``--authorization-mode=AlwaysAllow``, a generated
service-account key pair and a service cluster IP range. No controller runs: nothing reconciles,
no pod is scheduled, admission webhooks have no server to call.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parents[2]
FIELD_MANAGER = "gsvendor-cluster-tests"


class ClusterError(RuntimeError):
    """The API server could not be started or did not answer as expected."""


def binaries() -> dict[str, str | None]:
    """``{"kube-apiserver": path or None, "etcd": path or None}``: ``$KUBE_APISERVER`` or
    .tools/bin/kube-apiserver (hack/install-kube.sh); ``$ETCD``, else .tools/bin/etcd (built from
    its Go module where no etcd 3.4 was at hand), else etcd on PATH."""
    apiserver = os.environ.get("KUBE_APISERVER") or str(ROOT / ".tools" / "bin" / "kube-apiserver")
    etcd = os.environ.get("ETCD") or str(ROOT / ".tools" / "bin" / "etcd")
    return {
        "kube-apiserver": apiserver if os.access(apiserver, os.X_OK) else None,
        "etcd": shutil.which(etcd) or (None if os.environ.get("ETCD") else shutil.which("etcd")),
    }


def missing(what: str) -> None:
    """Skip the test for ``what`` is missing, with the remedy; fail it under ``CI=true`` (CI installs
    everything, so a missing piece there is a broken pipeline, not a reason to skip)."""
    import pytest

    message = f"{what}: run make tools (hack/install-kube.sh) and make sync"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_binaries() -> tuple[str, str]:
    """``(kube-apiserver, etcd)`` paths; :func:`missing` when either is not installed."""
    found = binaries()
    absent = [name for name, path in found.items() if path is None]
    if absent:
        missing(f"{' and '.join(absent)} not found")
    return str(found["kube-apiserver"]), str(found["etcd"])


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Response:
    """One API answer: HTTP ``status``, the decoded JSON ``body`` (a Status object on failure)."""

    status: int
    body: Any

    @property
    def ok(self) -> bool:
        """2xx."""
        return 200 <= self.status < 300

    @property
    def message(self) -> str:
        """The server's message of a failure (``Status.message``), else the empty string."""
        return str(self.body.get("message", "")) if isinstance(self.body, Mapping) else str(self.body)


@dataclass
class Resource:
    """An API resource found by discovery: ``plural``, ``namespaced``."""

    plural: str
    namespaced: bool


@dataclass
class Cluster:
    """A running API server: ``url`` (``https://127.0.0.1:PORT``), the bearer ``token``, the serving
    certificate ``ca`` that verifies it, a ``kubeconfig`` file for helm, and ``ready_seconds``
    (kube-apiserver's start to its first 200 from ``/readyz``)."""

    url: str
    token: str
    ca: Path
    kubeconfig: Path
    ready_seconds: float
    http: httpx.Client = field(repr=False)
    pids: tuple[int, int] = (0, 0)  # etcd's and kube-apiserver's, each its process group's leader
    _resources: dict[tuple[str, str], Resource] = field(default_factory=dict, repr=False)

    # --- requests --------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Response:
        """``method`` on ``path`` (``/api/v1/namespaces``) with a JSON ``body``; never raises for an
        HTTP status."""
        headers = kwargs.pop("headers", {})
        content = None
        if body is not None:
            content = json.dumps(body)
            headers.setdefault("Content-Type", "application/json")
        answer = self.http.request(method, self.url + path, content=content, headers=headers, **kwargs)
        try:
            decoded = answer.json()
        except ValueError:
            decoded = answer.text
        return Response(answer.status_code, decoded)

    def get(self, path: str) -> Response:
        """GET ``path``."""
        return self.request("GET", path)

    # --- discovery -------------------------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> Resource | None:
        """The resource serving ``kind`` at ``api_version``, by discovery (asked again on a miss: a
        CRD installed since). ``None`` when the server does not serve it."""
        key = (api_version, kind)
        if key not in self._resources:
            base = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
            listing = self.get(base)
            if listing.ok:
                for item in listing.body.get("resources", []):
                    if "/" not in item["name"]:
                        self._resources[(api_version, item["kind"])] = Resource(item["name"], item["namespaced"])
        return self._resources.get(key)

    def path(self, obj: Mapping[str, Any], namespace: str = "default", name: bool = True) -> str:
        """The REST path of ``obj`` (its ``metadata.namespace`` or ``namespace`` for a namespaced
        kind). Raises :class:`ClusterError` when the server does not serve its kind."""
        api_version, kind = str(obj.get("apiVersion")), str(obj.get("kind"))
        found = self.resource(api_version, kind)
        if found is None:
            raise ClusterError(f"{api_version} {kind}: not served by the API server")
        base = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
        meta = obj.get("metadata") or {}
        if found.namespaced:
            base += f"/namespaces/{meta.get('namespace') or namespace}"
        base += f"/{found.plural}"
        return f"{base}/{quote(str(meta.get('name')), safe='')}" if name else base

    # --- writes ----------------------------------------------------------------------------

    def apply(self, obj: Mapping[str, Any], *, dry_run: bool = True, namespace: str = "default") -> Response:
        """Server-side apply of ``obj`` with ``fieldValidation=Strict`` (unknown or duplicate fields are
        errors, not warnings; apply reports a field its schema lacks as a 500, "field not declared in
        schema"); ``dry_run``: the server validates and admits it but stores nothing."""
        params = {"fieldManager": FIELD_MANAGER, "force": "true", "fieldValidation": "Strict"}
        if dry_run:
            params["dryRun"] = "All"
        return self.request(
            "PATCH",
            self.path(obj, namespace),
            obj,
            params=params,
            headers={"Content-Type": "application/apply-patch+yaml"},
        )

    def create(self, obj: Mapping[str, Any], *, dry_run: bool = False, namespace: str = "default") -> Response:
        """POST ``obj`` with ``fieldValidation=Strict`` (``dry_run``: ``dryRun=All``): an unknown field
        is a 400 "strict decoding error: unknown field", a schema violation a 422."""
        params = {"fieldValidation": "Strict", "fieldManager": FIELD_MANAGER}
        if dry_run:
            params["dryRun"] = "All"
        return self.request("POST", self.path(obj, namespace, name=False), obj, params=params)

    def ensure_namespace(self, name: str) -> None:
        """Create namespace ``name`` unless it exists. Raises :class:`ClusterError` otherwise."""
        answer = self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        if not answer.ok and answer.status != 409:
            raise ClusterError(f"namespace {name}: {answer.status} {answer.message}")

    def wait_established(self, names: list[str], timeout: float = 60.0) -> None:
        """Wait until every CRD of ``names`` reports ``Established`` (helm's discovery goes stale
        when it runs before). Raises :class:`ClusterError` on timeout, naming the ones not ready."""
        deadline = time.monotonic() + timeout
        waiting = list(names)
        while waiting:
            waiting = [
                n
                for n in waiting
                if not _established(self.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{n}"))
            ]
            if not waiting:
                break
            if time.monotonic() > deadline:
                raise ClusterError(f"CRDs not Established after {timeout:.0f} s: {', '.join(waiting)}")
            time.sleep(0.1)
        self._resources.clear()


def _established(answer: Response) -> bool:
    if not answer.ok:
        return False
    conditions = (answer.body.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def _service_account_keys(folder: Path) -> tuple[Path, Path]:
    key, pub = folder / "sa.key", folder / "sa.pub"
    subprocess.run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(key)],
        check=True,
        capture_output=True,
    )
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True, capture_output=True)
    return key, pub


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM to ``process``'s group, SIGKILL after 10 s."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextlib.contextmanager
def running_cluster(folder: Path, apiserver: str, etcd: str, timeout: float = 120.0) -> Iterator[Cluster]:
    """etcd and kube-apiserver started in ``folder`` (data, certificates, keys, logs, kubeconfig),
    each in its own process group, both stopped on the way out whatever happened. Yields a
    :class:`Cluster` once ``/readyz`` answers 200. Raises :class:`ClusterError` (with the log's end)
    when either ends early or the server is not ready within ``timeout`` seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    etcd_process = apiserver_process = None
    try:
        client_port, peer_port = free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        etcd_log = folder / "etcd.log"
        with etcd_log.open("wb") as out:
            etcd_process = subprocess.Popen(
                [
                    etcd,
                    "--name=default",
                    f"--data-dir={folder / 'etcd'}",
                    f"--listen-client-urls={etcd_url}",
                    f"--advertise-client-urls={etcd_url}",
                    f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
                    f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
                    f"--initial-cluster=default=http://127.0.0.1:{peer_port}",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        token = secrets.token_hex(16)
        (folder / "tokens.csv").write_text(f"{token},admin,admin-uid,system:masters\n")
        key, pub = _service_account_keys(folder)
        port = free_port()
        certs = folder / "certs"
        log = folder / "kube-apiserver.log"
        started = time.monotonic()
        with log.open("wb") as out:
            apiserver_process = subprocess.Popen(
                [
                    apiserver,
                    f"--etcd-servers={etcd_url}",
                    "--bind-address=127.0.0.1",
                    "--advertise-address=127.0.0.1",
                    f"--secure-port={port}",
                    f"--cert-dir={certs}",
                    f"--token-auth-file={folder / 'tokens.csv'}",
                    "--authorization-mode=AlwaysAllow",
                    f"--service-account-key-file={pub}",
                    f"--service-account-signing-key-file={key}",
                    "--service-account-issuer=https://127.0.0.1",
                    "--service-cluster-ip-range=10.0.0.0/24",
                    "--allow-privileged=true",
                    "--enable-priority-and-fairness=false",
                    "--profiling=false",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        url = f"https://127.0.0.1:{port}"
        ca = certs / "apiserver.crt"
        http = None
        deadline = started + timeout
        while True:
            for name, process, plog in (("etcd", etcd_process, etcd_log), ("kube-apiserver", apiserver_process, log)):
                if process.poll() is not None:
                    raise ClusterError(f"{name} ended with exit code {process.returncode}:\n{_tail(plog)}")
            if http is None and ca.is_file() and ca.stat().st_size:
                # the serving certificate is written once, before the port opens
                http = httpx.Client(
                    verify=ssl.create_default_context(cafile=str(ca)),
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=60,
                )
            if http is not None:
                with contextlib.suppress(httpx.TransportError):
                    if http.get(url + "/readyz").status_code == 200:
                        break
            if time.monotonic() > deadline:
                raise ClusterError(f"kube-apiserver not ready after {timeout:.0f} s:\n{_tail(log)}")
            time.sleep(0.05)
        ready = time.monotonic() - started
        kubeconfig = folder / "kubeconfig"
        kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "test", "cluster": {"server": url, "certificate-authority": str(ca)}}],
                    "users": [{"name": "admin", "user": {"token": token}}],
                    "contexts": [{"name": "test", "context": {"cluster": "test", "user": "admin"}}],
                    "current-context": "test",
                }
            )
        )
        kubeconfig.chmod(0o600)
        try:
            yield Cluster(url, token, ca, kubeconfig, ready, http, pids=(etcd_process.pid, apiserver_process.pid))
        finally:
            http.close()
    finally:
        _stop(apiserver_process)
        _stop(etcd_process)
