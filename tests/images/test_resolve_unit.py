"""gsvendor.resolve without helm: credentials, options, mirrors, and registry behaviours the CNCF
registry does not show (bearer tokens, ACR's NAME_UNKNOWN, no digest header, 429/503, timeouts),
played by a scripted HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpcore
import httpx
import pytest
from pytest_httpserver import HTTPServer
from socketkit import raw_server
from werkzeug import Request, Response

from gsvendor.errors import ConfigError, UsageError
from gsvendor.images import credentials as docker_config
from gsvendor.images import registry as resolve
from gsvendor.images import resolve as resolving
from gsvendor.images.reference import parse

DIGEST = "sha256:" + "a" * 64
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MANIFEST = b'{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","layers":[]}'


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# --------------------------------------------------------------------------------------------
# Credentials


def test_credentials_from_auth_and_username_password(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "auths": {
                    "gsoci.azurecr.io": {"auth": b64("u1:p1")},
                    "https://index.docker.io/v1/": {"auth": b64("hub:pw")},
                    "https://ghcr.io": {"username": "u2", "password": "p:2"},
                    "quay.io": {"identitytoken": "xyz"},
                    "empty.example": {},
                },
                "credHelpers": {"123.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login"},
            }
        ),
        encoding="utf-8",
    )
    credentials = docker_config.load_credentials(config)
    assert credentials.source == config
    assert credentials.for_host("gsoci.azurecr.io") == b64("u1:p1")
    assert credentials.for_host("docker.io") == b64("hub:pw")  # Docker Hub's legacy key
    assert credentials.for_host("ghcr.io") == b64("u2:p:2")
    assert credentials.for_host("quay.io") is None and credentials.for_host("empty.example") is None
    notes = " | ".join(credentials.notes)
    assert "auths.quay.io: identitytoken is not used" in notes
    assert "credHelpers are not run; 123.dkr.ecr.eu-west-1.amazonaws.com asked anonymously" in notes


def test_default_docker_config_follows_docker_config_env(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "d"))
    assert docker_config.default_docker_config() == tmp_path / "d" / "config.json"
    assert docker_config.load_credentials() == docker_config.Credentials()  # no file: no credentials, no error
    monkeypatch.delenv("DOCKER_CONFIG")
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".docker").mkdir()
    (tmp_path / ".docker" / "config.json").write_text(json.dumps({"auths": {"h.io": {"auth": b64("a:b")}}}))
    assert docker_config.load_credentials().for_host("h.io") == b64("a:b")


def test_a_broken_default_docker_config_is_a_configuration_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path))
    (tmp_path / "config.json").write_text('{"auths": {"h.io": {"auth": "' + b64("no colon") + '"}}}')
    with pytest.raises(ConfigError, match=r"config.json: auths.h.io.auth: not base64 of 'user:password' \(no ':'\)"):
        docker_config.load_credentials()


def test_a_missing_registry_config_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        docker_config.load_credentials(tmp_path / "nope.json")


# --------------------------------------------------------------------------------------------
# Options and mirrors


def test_insecure_hosts():
    assert docker_config.insecure_hosts(["127.0.0.1:5000", "LocalHost", "[::1]:80"]) == {
        "127.0.0.1:5000",
        "localhost",
        "[::1]:80",
    }
    for bad in ("http://x", "x/y", "", "a b", "host:port"):
        with pytest.raises(UsageError, match="--insecure-registry"):
            docker_config.insecure_hosts([bad])


def test_cli_options_need_resolve():
    with pytest.raises(UsageError, match="--compare-upstream, --resolve-jobs needs --resolve"):
        resolving.cli_options(None, resolve=False, compare_upstream=True, jobs=2, registry_config=None, insecure=None)
    assert (
        resolving.cli_options(None, resolve=False, compare_upstream=False, jobs=None, registry_config=None, insecure=[])
        is None
    )


def test_the_longest_mirror_prefix_wins_and_maps_tag_and_digest():
    mirrors = (
        resolve.Mirror("gsoci.azurecr.io/giantswarm/", "docker.io/giantswarm/"),
        resolve.Mirror("gsoci.azurecr.io/giantswarm/llm-d-", "ghcr.io/llm-d/llm-d-"),
    )
    ref = parse(f"gsoci.azurecr.io/giantswarm/llm-d-inference-scheduler:v0.2.1@{DIGEST}")
    mirror = resolving.find_mirror(mirrors, ref.name)
    assert mirror is mirrors[1]
    assert mirror.upstream_of(ref).normalized == f"ghcr.io/llm-d/llm-d-inference-scheduler:v0.2.1@{DIGEST}"
    assert resolving.find_mirror(mirrors, "quay.io/x") is None


@pytest.mark.parametrize(
    ("prefix", "problem"),
    [
        ("gsoci.azurecr.io/giantswarm/", None),
        ("gsoci.azurecr.io/giantswarm/llm-d-", None),
        ("giantswarm/", "write it normalized, as 'docker.io/giantswarm/'"),
        ("gsoci.azurecr.io", "expected a registry host and a name prefix"),
        ("gsoci.azurecr.io/Giant/", "no image name can start with it"),
    ],
)
def test_mirror_prefixes_are_checked(prefix, problem):
    found = resolving._prefix_problem(prefix)
    assert (found is None) if problem is None else (problem in (found or "")), found


def test_targets():
    assert str(resolve.target_of(parse("h.io/a/b"))) == "h.io/a/b:latest"
    assert str(resolve.target_of(parse(f"h.io/a/b:v1@{DIGEST}"))) == f"h.io/a/b@{DIGEST}"
    assert str(resolve.target_of(parse(f"h.io/a/b:v1@{DIGEST}"), by_tag=True)) == "h.io/a/b:v1"
    assert str(resolve.target_of(parse(f"h.io/a/b@{DIGEST}"), by_tag=True)) == f"h.io/a/b@{DIGEST}"


def wrapped_in_httpx(cause: BaseException) -> httpx.ConnectError:
    """``cause`` as httpx raises it: an httpx error raised from httpcore's, raised from the socket's."""
    try:
        try:
            raise cause
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
    except httpcore.ConnectError as exc:
        try:
            raise httpx.ConnectError(str(exc)) from exc
        except httpx.ConnectError as outer:
            return outer


def test_connection_errors_are_described_without_the_network():
    dns = wrapped_in_httpx(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    assert resolve._connection_detail(dns) == "DNS: host name does not resolve"
    refused = wrapped_in_httpx(ConnectionRefusedError(111, "Connection refused"))
    assert resolve._connection_detail(refused) == "connection refused"
    reset = wrapped_in_httpx(ConnectionResetError(104, "Connection reset by peer"))
    assert resolve._connection_detail(reset) == "connection reset"
    assert resolve._connection_detail(httpx.ConnectError("something  else\nbroke")) == "something else broke"


# --------------------------------------------------------------------------------------------
# A scripted registry on 127.0.0.1


@pytest.fixture(scope="module")
def running_server() -> Iterator[HTTPServer]:
    srv = HTTPServer(host="127.0.0.1", port=0, threaded=True)  # threaded: parallel lookups overlap
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def server(running_server: HTTPServer) -> Iterator[HTTPServer]:
    """The scripted registry, its handlers and log cleared after each test."""
    yield running_server
    running_server.clear()


def resolver_for(server: HTTPServer, **kw) -> tuple[resolve.Resolver, str]:
    host = f"127.0.0.1:{server.port}"
    options = resolve.ResolveOptions(insecure=frozenset({host}), backoff=0.01, **kw)
    return resolve.Resolver(options), host


def ask(resolver: resolve.Resolver, target: str) -> resolve.Resolution:
    found = resolver.resolve([resolve.target_of(parse(target))])
    resolver.close()
    return next(iter(found.values()))


def test_bearer_token_flow(server):
    """The Docker token flow (ACR, ghcr.io): 401 with a Bearer challenge, a token from the realm for
    the Basic credentials, the request again with the token."""
    host = f"127.0.0.1:{server.port}"
    seen: list[str] = []

    def token(request: Request) -> Response:
        seen.append(f"{request.args.get('service')} {request.args.get('scope')} {request.headers.get('Authorization')}")
        if request.headers.get("Authorization") != f"Basic {b64('bob:pw')}":
            return Response(status=401)
        return Response(json.dumps({"token": "T0KEN"}), content_type="application/json")

    def manifest(request: Request) -> Response:
        if request.headers.get("Authorization") == "Bearer T0KEN":
            return Response(
                b"",
                headers={"Docker-Content-Digest": DIGEST, "Content-Type": "application/vnd.oci.image.index.v1+json"},
            )
        challenge = f'Bearer realm="http://{host}/token",service="{host}",scope="repository:team/app:pull"'
        body = json.dumps({"errors": [{"code": "UNAUTHORIZED", "message": "authentication required"}]})
        return Response(body, status=401, headers={"Www-Authenticate": challenge}, content_type="application/json")

    server.expect_request("/token").respond_with_handler(token)
    server.expect_request("/v2/team/app/manifests/v1").respond_with_handler(manifest)
    credentials = docker_config.Credentials(auths={host: b64("bob:pw")})
    resolver, _ = resolver_for(server, credentials=credentials)
    found = ask(resolver, f"{host}/team/app:v1")
    assert (found.outcome, found.digest, found.media_type) == (
        "resolved",
        DIGEST,
        "application/vnd.oci.image.index.v1+json",
    )
    assert seen == [f"{host} repository:team/app:pull Basic {b64('bob:pw')}"]

    anonymous, _ = resolver_for(server)  # no credentials: an anonymous token is asked for, refused
    found = ask(anonymous, f"{host}/team/app:v1")
    assert found.outcome == "auth-failed" and "no credentials for" in found.detail


def test_name_unknown_on_the_manifest_is_repository_missing_without_asking_tags(server):
    body = {"errors": [{"code": "NAME_UNKNOWN", "message": "repository name not known to registry"}]}
    server.expect_request("/v2/gone/manifests/v1").respond_with_json(body, status=404)
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/gone:v1")
    assert found.outcome == "repository-missing"
    assert resolver.requests == 2  # HEAD, then GET for the error body; no tags/list


def test_without_a_digest_header_the_body_is_hashed(server):
    server.expect_request("/v2/plain/manifests/v1").respond_with_data(
        MANIFEST, content_type="application/vnd.oci.image.manifest.v1+json"
    )
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/plain:v1")
    assert (found.outcome, found.digest) == ("resolved", "sha256:" + hashlib.sha256(MANIFEST).hexdigest())


def test_accept_lists_manifests_and_indexes(server):
    accepted: list[str] = []

    def manifest(request: Request) -> Response:
        accepted.append(request.headers.get("Accept", ""))
        return Response(
            b"", headers={"Docker-Content-Digest": DIGEST}, content_type="application/vnd.oci.image.manifest.v1+json"
        )

    server.expect_request("/v2/a/manifests/v1").respond_with_handler(manifest)
    resolver, host = resolver_for(server)
    assert ask(resolver, f"{host}/a:v1").ok
    assert accepted == [", ".join(resolve.MANIFEST_MEDIA_TYPES)]
    assert "application/vnd.oci.image.index.v1+json" in accepted[0]
    assert "application/vnd.docker.distribution.manifest.list.v2+json" in accepted[0]


def test_a_503_registry_is_retried_a_bounded_number_of_times(server):
    server.expect_request("/v2/busy/manifests/v1").respond_with_data("busy", status=503)
    resolver, host = resolver_for(server, retries=2)
    found = ask(resolver, f"{host}/busy:v1")
    assert found.outcome == "registry-error" and found.attempts == 3
    assert found.detail == "HTTP 503 SERVICE UNAVAILABLE after 3 attempts"
    assert len(server.log) == 3


def test_429_waits_and_retries(server):
    calls: list[float] = []

    def limited(request: Request) -> Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Response("slow down", status=429, headers={"Retry-After": "0"})
        return Response(b"", headers={"Docker-Content-Digest": DIGEST}, content_type=OCI_MANIFEST)

    server.expect_request("/v2/rl/manifests/v1").respond_with_handler(limited)
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/rl:v1")
    assert (found.outcome, found.attempts) == ("resolved", 2)


def test_403_denied_is_auth_failed(server):
    body = {"errors": [{"code": "DENIED", "message": "requested access to the resource is denied"}]}
    server.expect_request("/v2/locked/manifests/v1").respond_with_json(body, status=403)
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/locked:v1")
    assert found.outcome == "auth-failed" and "DENIED" in found.detail and found.status == 403


def test_a_registry_that_never_answers_times_out_after_the_retries():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # connections complete in the kernel, nothing ever answers
        host = f"127.0.0.1:{listener.getsockname()[1]}"
        options = resolve.ResolveOptions(insecure=frozenset({host}), timeout=0.2, retries=1, backoff=0.01)
        found = ask(resolve.Resolver(options), f"{host}/slow:v1")
    assert found.outcome == "unreachable"
    assert found.detail == "timed out (2 attempts, 0.2 s each)"


def test_the_cache_asks_each_target_once(server):
    server.expect_request("/v2/a/manifests/v1").respond_with_data(
        b"", headers={"Docker-Content-Digest": DIGEST}, content_type=OCI_MANIFEST
    )
    resolver, host = resolver_for(server, jobs=4)
    target = resolve.target_of(parse(f"{host}/a:v1"))
    first = resolver.resolve([target, target, target])
    again = resolver.resolve([target])
    resolver.close()
    assert first == again and resolver.lookups == 1 and resolver.requests == 1
    assert len(server.log) == 1


def test_parallel_lookups_overlap(server):
    """Eight lookups with eight jobs: the registry sees several requests at once (how much faster
    that is, is benchmarks/bench_resolve.py's)."""
    lock, running, most = threading.Lock(), [0], [0]

    def slow(request: Request) -> Response:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return Response(b"", headers={"Docker-Content-Digest": DIGEST}, content_type=OCI_MANIFEST)

    for i in range(8):
        server.expect_request(f"/v2/p{i}/manifests/v1").respond_with_handler(slow)
    resolver, host = resolver_for(server, jobs=8)
    found = resolver.resolve([resolve.target_of(parse(f"{host}/p{i}:v1")) for i in range(8)])
    resolver.close()
    assert all(r.ok for r in found.values())
    assert most[0] >= 2, most[0]  # one at a time would be serial


def test_credentials_go_only_to_their_host(server, tmp_path: Path):
    sent: list[str | None] = []

    def manifest(request: Request) -> Response:
        sent.append(request.headers.get("Authorization"))
        return Response(
            b"", headers={"Docker-Content-Digest": DIGEST}, content_type="application/vnd.oci.image.manifest.v1+json"
        )

    server.expect_request("/v2/a/manifests/v1").respond_with_handler(manifest)
    credentials = docker_config.Credentials(auths={"other.example": b64("x:y")})
    resolver, host = resolver_for(server, credentials=credentials)
    assert ask(resolver, f"{host}/a:v1").ok
    assert sent == [None]


def test_a_web_page_answering_200_is_not_a_manifest(server):
    server.expect_request("/v2/a/manifests/v1").respond_with_data("<html>hello</html>", content_type="text/html")
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/a:v1")
    assert found.outcome == "registry-error" and "text/html, not a manifest" in found.detail


def test_a_challenge_without_realm_is_an_outcome_not_a_crash(server):
    server.expect_request("/v2/a/manifests/v1").respond_with_data(
        "", status=401, headers={"Www-Authenticate": "Bearer service=x"}
    )
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/a:v1")
    assert found.outcome in ("registry-error", "auth-failed")


def test_an_answer_trickling_in_times_out_after_the_retries(server):
    """Each chunk arrives well within the read timeout, the whole answer never does."""

    def trickle(request: Request) -> Response:
        if request.method == "HEAD":  # no digest header: the body is asked for
            return Response(b"", content_type=OCI_MANIFEST)

        def chunks() -> Iterator[bytes]:
            for _ in range(200):
                time.sleep(0.02)
                yield b" "

        return Response(chunks(), content_type=OCI_MANIFEST)

    server.expect_request("/v2/drip/manifests/v1").respond_with_handler(trickle)
    resolver, host = resolver_for(server, timeout=0.1, retries=1)
    found = ask(resolver, f"{host}/drip:v1")
    assert (found.outcome, found.detail) == ("unreachable", "timed out (2 attempts, 0.1 s each)")


def test_an_answer_larger_than_a_manifest_can_be_is_a_registry_error(server):
    big = b" " * (resolve.MAX_ANSWER_BYTES + 1)
    server.expect_request("/v2/big/manifests/v1").respond_with_data(big, content_type=OCI_MANIFEST)
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/big:v1")
    assert (found.outcome, found.detail) == ("registry-error", "answer larger than 4 MiB")


def test_an_answer_with_headers_past_the_http_limit_is_a_registry_error(server):
    """300 kB of response headers: h11 refuses them, and the registry that did answer was called unreachable."""
    server.expect_request("/v2/huge/manifests/v1").respond_with_response(
        Response(b"", headers={"X-Padding": "a" * 300_000}, content_type=OCI_MANIFEST)
    )
    resolver, host = resolver_for(server, retries=0)
    found = ask(resolver, f"{host}/huge:v1")
    assert (found.outcome, found.detail) == ("registry-error", "broken HTTP answer: Receive buffer too long")


def test_response_headers_trickling_in_on_a_kept_alive_connection_time_out():
    """HEAD answers at once without a digest header, on a connection kept alive; the GET that follows
    on it gets one header byte every 0.05 s (each read within the timeout, the headers never complete)."""
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: " + OCI_MANIFEST.encode() + b"\r\nContent-Length: 0\r\n\r\n"
            )
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.wait(0.05):
                try:
                    conn.sendall(b"X")
                except OSError:
                    return

    with raw_server(serve) as port:
        host = f"127.0.0.1:{port}"
        options = resolve.ResolveOptions(insecure=frozenset({host}), timeout=0.3, retries=0, backoff=0.01)
        found = ask(resolve.Resolver(options), f"{host}/trickle:v1")
        stop.set()
    assert (found.outcome, found.detail) == ("unreachable", "timed out (1 attempts, 0.3 s each)")


def test_a_manifest_in_stacked_gzip_is_a_registry_error(server):
    """Three gzip layers of 256 MiB of zeros are 300 bytes on the wire: httpx inflated them whole in one
    step, far past the 4 MiB cap, before the cap was looked at."""
    import gzip
    import zlib

    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = b"".join(deflate.compress(bytes(1 << 20)) for _ in range(256)) + deflate.flush()
    bomb = gzip.compress(gzip.compress(zeros))

    def answer(request: Request) -> Response:
        if request.method == "HEAD":  # no digest header: the body is asked for
            return Response(b"", content_type=OCI_MANIFEST)
        return Response(bomb, content_type=OCI_MANIFEST, headers={"Content-Encoding": "gzip, gzip, gzip"})

    server.expect_request("/v2/bomb/manifests/v1").respond_with_handler(answer)
    resolver, host = resolver_for(server, retries=0)
    found = ask(resolver, f"{host}/bomb:v1")
    assert (found.outcome, found.detail) == (
        "registry-error",
        "Content-Encoding 'gzip, gzip, gzip': only one gzip or deflate is read",
    )


def test_a_gzip_encoded_manifest_is_read(server):
    import gzip

    def answer(request: Request) -> Response:
        if request.method == "HEAD":
            return Response(b"", content_type=OCI_MANIFEST)
        return Response(gzip.compress(MANIFEST), content_type=OCI_MANIFEST, headers={"Content-Encoding": "gzip"})

    server.expect_request("/v2/zipped/manifests/v1").respond_with_handler(answer)
    resolver, host = resolver_for(server, retries=0)
    found = ask(resolver, f"{host}/zipped:v1")
    assert (found.outcome, found.digest) == ("resolved", "sha256:" + hashlib.sha256(MANIFEST).hexdigest())


@pytest.mark.parametrize("retry_after", ["²", "٣", "1e3", "-1"])
def test_a_retry_after_no_number_reads_is_ignored(server, retry_after):
    """``Retry-After: ²`` passed ``str.isdigit`` and failed ``float``: a ValueError out of the resolve."""
    calls: list[float] = []

    def limited(request: Request) -> Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Response("slow down", status=429, headers={"Retry-After": retry_after})
        return Response(b"", headers={"Docker-Content-Digest": DIGEST}, content_type=OCI_MANIFEST)

    server.expect_request("/v2/rl/manifests/v1").respond_with_handler(limited)
    resolver, host = resolver_for(server)
    found = ask(resolver, f"{host}/rl:v1")
    assert (found.outcome, found.digest, found.attempts) == ("resolved", DIGEST, 2)
