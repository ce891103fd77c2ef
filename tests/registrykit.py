"""A real OCI registry for tests and benchmarks: Debian's ``docker-registry`` (the CNCF distribution
registry) on 127.0.0.1, artifacts pushed with oras-py, and a small proxy that answers 500 once.

Everything listens on and talks to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REGISTRY_BINARY = "docker-registry"
START_TIMEOUT = 15.0  # seconds for /v2/ to answer
STOP_TIMEOUT = 5.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def registry_binary() -> str:
    """The path of docker-registry; raises RuntimeError naming the package when it is missing."""
    found = shutil.which(REGISTRY_BINARY) or (
        "/usr/bin/docker-registry" if Path("/usr/bin/docker-registry").exists() else None
    )
    if not found:
        raise RuntimeError("docker-registry not found: apt-get install -y docker-registry (.ci/run does)")
    return found


class LocalRegistry:
    """``docker-registry serve`` on 127.0.0.1:<free port> with storage in ``folder``.

    ``users``: ``{name: password}`` for an htpasswd (bcrypt) realm; none: anonymous access.
    Use as a context manager or call :meth:`start` / :meth:`stop`.
    """

    def __init__(self, folder: Path, users: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.users = users or {}
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "registry.log"

    def config_text(self) -> str:
        """The registry's config.yml (version 0.1, filesystem storage, http addr, optional htpasswd)."""
        text = (
            "version: 0.1\n"
            "log:\n  level: error\n  accesslog:\n    disabled: true\n"
            f"storage:\n  filesystem:\n    rootdirectory: {self.folder / 'storage'}\n"
            "  delete:\n    enabled: true\n"
            f"http:\n  addr: {self.host}\n"
        )
        if self.users:
            text += f"auth:\n  htpasswd:\n    realm: gsvendor-test\n    path: {self.folder / 'htpasswd'}\n"
        return text

    def start(self) -> LocalRegistry:
        """Write the configuration, start the registry, wait until ``/v2/`` answers (bounded)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.users:
            import bcrypt  # the registry's htpasswd accepts bcrypt hashes only

            lines = [
                f"{user}:{bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=4)).decode()}"
                for user, pw in self.users.items()
            ]
            (self.folder / "htpasswd").write_text("\n".join(lines) + "\n", encoding="utf-8")
        config = self.folder / "config.yml"
        config.write_text(self.config_text(), encoding="utf-8")
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [registry_binary(), "serve", str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"http://{self.host}/v2/", timeout=1):
                    return self
            except urllib.error.HTTPError as exc:  # 401 from an htpasswd registry: it is up
                if exc.code == 401:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(
            f"docker-registry did not start on {self.host}: {self.log.read_text(errors='replace')[-2000:]}"
        )

    def stop(self) -> None:
        """Terminate the registry and wait for it (kill after :data:`STOP_TIMEOUT`)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)

    def __enter__(self) -> LocalRegistry:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def push(self, name: str, content: bytes, auth: tuple[str, str] | None = None) -> str:
        """Push a small artifact (one layer of ``content``, a config blob) as ``name`` (``repo:tag``)
        with oras-py; returns the manifest digest."""
        return push(f"{self.host}/{name}", content, auth=auth)


def push(target: str, content: bytes, auth: tuple[str, str] | None = None) -> str:
    """Push ``content`` as a one-layer OCI artifact to ``target`` (``host/repo:tag``, plain HTTP) with
    oras-py. The same content pushed anywhere gives the same manifest digest. Returns that digest."""
    import oras.provider

    registry = oras.provider.Registry(insecure=True, auth_backend="basic" if auth else "token")
    if auth:
        registry.auth.set_basic_auth(*auth)
    with tempfile.TemporaryDirectory() as tmp:
        layer = Path(tmp) / "artifact.txt"  # the file name is a layer annotation: keep it fixed
        layer.write_bytes(content)
        config = Path(tmp) / "config.json"
        config.write_text('{"gsvendor": "test"}', encoding="utf-8")
        response = registry.push(
            target,
            files=[str(layer)],
            manifest_config=f"{config}:application/vnd.gsvendor.test.config.v1+json",
            disable_path_validation=True,
            quiet=True,
        )
    return str(response.headers["Docker-Content-Digest"])


class FlakyProxy:
    """An HTTP proxy on 127.0.0.1 in front of ``upstream`` (``host:port``) that answers 500 to the
    first ``failures`` manifest requests, then forwards everything, each after ``delay`` seconds
    (a remote registry's round trip, for the benchmark). ``requests`` records what it saw."""

    def __init__(self, upstream: str, failures: int = 1, delay: float = 0.0) -> None:
        self.upstream = upstream
        self.failures = failures
        self.delay = delay
        self.requests: list[tuple[str, str, int]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _forward(self) -> None:
                if proxy.delay:
                    time.sleep(proxy.delay)
                with proxy._lock:
                    fail = "/manifests/" in self.path and proxy.failures > 0
                    if fail:
                        proxy.failures -= 1
                if fail:
                    body = b'{"errors":[{"code":"UNKNOWN","message":"injected failure"}]}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(body)
                    proxy._record(self.command, self.path, 500)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                connection = http.client.HTTPConnection(proxy.upstream, timeout=10)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    connection.request(self.command, self.path, body=data, headers=headers)
                    response = connection.getresponse()
                    payload = response.read()
                    self.send_response(response.status)
                    for key, value in response.getheaders():
                        if key.lower() not in ("connection", "transfer-encoding", "date", "server"):
                            self.send_header(key, value)
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                    proxy._record(self.command, self.path, response.status)
                finally:
                    connection.close()

            do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _record(self, method: str, path: str, status: int) -> None:
        with self._lock:
            self.requests.append((method, path, status))

    def __enter__(self) -> FlakyProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=STOP_TIMEOUT)
