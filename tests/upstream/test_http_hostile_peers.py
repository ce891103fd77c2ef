"""Downloads from a server that misbehaves at the socket: an endless chunked body, a Content-Length of a
terabyte, a reset mid-body, a redirect loop. Each ends in one error within bounds, no watchdog thread
left running and no credential of the URL in the message."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from socketkit import raw_server

from gsvendor.errors import SourceError
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.http import TooLarge, read_bounded
from gsvendor.upstream.source import FetchOptions, Wanted

WANTED = Wanted(folders=("charts/kserve-crd",), files=("go.mod",))
Peer = Callable[[socket.socket, int], None]


def _request(conn: socket.socket) -> bool:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True


def endless_chunks(conn: socket.socket, port: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    while True:
        conn.sendall(b"10000\r\n" + b"a" * 0x10000 + b"\r\n")


def a_terabyte_announced(conn: socket.socket, port: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (1 << 40) + b"a" * 1000)
    time.sleep(5)


def reset_mid_body(conn: socket.socket, port: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nab")
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
    conn.close()


def redirect_loop(conn: socket.socket, port: int) -> None:
    location = f"http://user:l0cati0n@127.0.0.1:{port}/again?sig=n3xt"
    conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())


@pytest.fixture
def serve() -> Iterator[Callable[[Peer], int]]:
    """Start a server on 127.0.0.1 answering each request with a peer; returns its port."""
    with ExitStack() as servers:

        def start(peer: Peer) -> int:
            port = 0

            def one(conn: socket.socket) -> None:
                with conn:
                    try:
                        while _request(conn):
                            peer(conn, port)
                    except OSError:
                        return

            port = servers.enter_context(raw_server(one))
            return port

        yield start


def watchdogs() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "gsvendor-fetch-watchdog"]


def download(port: int, tmp_path: Path, retries: int = 1) -> str:
    url = f"http://user:s3cr3t@127.0.0.1:{port}/k.tar.gz?token=t0ken"
    options = FetchOptions(cache_dir=tmp_path, retries=retries, backoff=0.01, timeout=2, max_time=20)
    with pytest.raises(SourceError) as caught:
        fetch_upstream("v0.20.0", url, WANTED, options)
    (problem,) = caught.value.problems
    for secret in ("s3cr3t", "t0ken", "l0cati0n", "n3xt"):
        assert secret not in problem
    assert watchdogs() == []
    return problem


def test_an_endless_chunked_body_stops_at_the_cap(serve, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GSVENDOR_MAX_ARCHIVE_MIB", "2")
    port = serve(endless_chunks)
    assert download(port, tmp_path) == (
        f"http://127.0.0.1:{port}/k.tar.gz?token=REDACTED: download larger than 2 MiB, more than an upstream "
        "archive can be (GSVENDOR_MAX_ARCHIVE_MIB raises it)"
    )


def test_a_terabyte_announced_is_refused_from_its_header(serve) -> None:
    port = serve(a_terabyte_announced)
    started = time.monotonic()
    with httpx.Client(timeout=2) as client, pytest.raises(TooLarge):
        read_bounded(
            client,
            "GET",
            f"http://127.0.0.1:{port}/",
            deadline=started + 20,
            late="late",
            headers_within=2,
            most=1 << 20,
        )
    assert watchdogs() == []


def test_a_reset_mid_body_is_retried_then_one_error(serve, tmp_path: Path) -> None:
    port = serve(reset_mid_body)
    assert download(port, tmp_path, retries=1) == (
        f"http://127.0.0.1:{port}/k.tar.gz?token=REDACTED: download failed after 2 attempts: "
        "ReadError: [Errno 104] Connection reset by peer"
    )


def test_a_redirect_loop_is_one_error_not_retried(serve, tmp_path: Path) -> None:
    port = serve(redirect_loop)
    assert download(port, tmp_path, retries=3) == (
        f"http://127.0.0.1:{port}/k.tar.gz?token=REDACTED: TooManyRedirects: Exceeded maximum allowed redirects."
    )
