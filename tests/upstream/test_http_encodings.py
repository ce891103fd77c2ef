"""Answers in a Content-Encoding: inflated piece by piece under the size cap, stacked or unknown codings refused."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib
from pathlib import Path

import httpx
import pytest
from conftest import tarball
from pytest_httpserver import HTTPServer

from gsvendor.errors import SourceError
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.http import TooLarge, read_bounded
from gsvendor.upstream.source import FetchOptions, Wanted

WANTED = Wanted(folders=("charts/kserve-crd",), files=("go.mod",))
MIB = 1024 * 1024


def zeros_gzip(size: int) -> bytes:
    """``size`` zero bytes, gzip'd in 1 MiB steps (a gzip bomb: about 1/1000 of ``size``)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(deflate.compress(bytes(MIB)) for _ in range(size // MIB)) + deflate.flush()


def fetch(server: HTTPServer, body: bytes, encoding: str, most: int) -> bytes:
    server.expect_oneshot_request("/a").respond_with_data(body, headers={"Content-Encoding": encoding})
    with httpx.Client(timeout=5) as client:
        _, read = read_bounded(
            client,
            "GET",
            server.url_for("/a"),
            deadline=time.monotonic() + 30,
            late="late",
            headers_within=5,
            most=most,
        )
    return read


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, no zlib header
        ("identity", lambda data: data),
        ("GZIP, identity", gzip.compress),
    ],
)
def test_an_encoded_answer_is_read_inflated(httpserver: HTTPServer, encoding: str, encode) -> None:
    data = bytes(range(256)) * 20_000
    assert fetch(httpserver, encode(data), encoding, most=len(data)) == data


def test_a_gzip_bomb_is_cut_at_the_cap_without_inflating_a_network_read_whole(httpserver: HTTPServer) -> None:
    """64 MiB of zeros in 64 kB of gzip, a cap of 1 MiB: httpx inflated each 64 kB network read whole
    (150 MB at the peak) before the cap was looked at; pieces of 1 MiB keep it near the cap (imports the
    first fetch makes count too)."""
    bomb = zeros_gzip(64 * MIB)
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge):
            fetch(httpserver, bomb, "gzip", most=MIB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * MIB, peak


@pytest.mark.parametrize(
    ("encoding", "shown"),
    [("gzip, gzip, gzip", "'gzip, gzip, gzip'"), ("br", "'br'"), ("gzip, \x1b[2J", "'gzip, \\x1b[2j'")],
)
def test_a_stacked_or_unknown_encoding_of_a_download_is_one_error(
    httpserver: HTTPServer, tmp_path: Path, encoding: str, shown: str
) -> None:
    """Three stacked gzip layers, 300 bytes on the wire, inflated to 4 GiB in one step (MemoryError)."""
    bomb = gzip.compress(gzip.compress(zeros_gzip(256 * MIB)))
    httpserver.expect_request("/k.tar.gz").respond_with_data(bomb, headers={"Content-Encoding": encoding})
    url = httpserver.url_for("/k.tar.gz")
    with pytest.raises(SourceError) as caught:
        fetch_upstream("v0.20.0", url, WANTED, FetchOptions(cache_dir=tmp_path, retries=2, backoff=0.01))
    assert caught.value.problems == [
        f"{url}: DecodingError: Content-Encoding {shown}: only one gzip or deflate is read"
    ]
    assert len(httpserver.log) == 1  # not retried: the same answer comes again


def test_a_gzip_encoded_archive_reads_as_the_archive(httpserver: HTTPServer, tmp_path: Path) -> None:
    data = tarball("v0.20.0").read_bytes()
    httpserver.expect_request("/k.tar.gz").respond_with_data(gzip.compress(data), headers={"Content-Encoding": "gzip"})
    got = fetch_upstream("v0.20.0", httpserver.url_for("/k.tar.gz"), WANTED, FetchOptions(cache_dir=tmp_path))
    plain = fetch_upstream("v0.20.0", str(tarball("v0.20.0")), WANTED, FetchOptions(cache_dir=None))
    assert got.files == plain.files and got.sha256 == plain.sha256


def test_a_corrupt_gzip_answer_is_a_decoding_error(httpserver: HTTPServer) -> None:
    with pytest.raises(httpx.DecodingError, match=r"^gzip: Error -3 while decompressing data: incorrect header check$"):
        fetch(httpserver, b"not gzip at all" * 10, "gzip", most=MIB)


@pytest.mark.parametrize(
    ("value", "expected"), [("2", 2 * MIB), ("²", 5), ("٢", 5), ("0", 5), ("x", 5), (" 3 ", 3 * MIB)]
)
def test_a_size_limit_no_number_reads_keeps_the_default(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: int
) -> None:
    """``GSVENDOR_MAX_ARCHIVE_MIB=²`` passed ``str.isdigit`` and failed ``int``: a ValueError traceback."""
    from gsvendor.upstream.source import limit

    monkeypatch.setenv("GSVENDOR_MAX_ARCHIVE_MIB", value)
    assert limit("GSVENDOR_MAX_ARCHIVE_MIB", 5) == expected


def test_a_raised_archive_limit_reserves_no_memory_up_front(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``GSVENDOR_MAX_ARCHIVE_MIB=100000`` read a 1-byte archive with ``read(limit + 1)``, which reserves
    the limit first: a MemoryError traceback."""
    from gsvendor.upstream.source import read_archive

    monkeypatch.setenv("GSVENDOR_MAX_ARCHIVE_MIB", "100000")
    (tmp_path / "a.tar.gz").write_bytes(b"x")
    assert read_archive(tmp_path / "a.tar.gz") == b"x"


def test_the_offline_hint_names_the_archive_and_the_folder_it_was_looked_for_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A failed download says which file $GSVENDOR_UPSTREAM_DIR should hold, and where that folder is."""
    from gsvendor.upstream.http import _upstream_dir_hint

    github = "https://github.com/kserve/kserve/archive/refs/tags/v0.20.0.tar.gz"
    monkeypatch.delenv("GSVENDOR_UPSTREAM_DIR", raising=False)
    assert (
        _upstream_dir_hint(github, "v0.20.0") == "put kserve-v0.20.0.tar.gz in a folder named by $GSVENDOR_UPSTREAM_DIR"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GSVENDOR_UPSTREAM_DIR", "archives")
    assert _upstream_dir_hint("http://mirror.example/x.tar.gz", "v1.0.0") == (
        f"put <repo>-v1.0.0.tar.gz in $GSVENDOR_UPSTREAM_DIR, {tmp_path / 'archives'}: it is not there"
    )
