"""Upstream sources: archives are read safely, and every source kind gives the same files."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from conftest import archive_sha256, tarball, upstream_files
from pytest_httpserver import HTTPServer

from gsvendor.errors import SourceError
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import FetchOptions, Wanted, classify_source
from gsvendor.upstream.tarball import read_tarball

WANTED = Wanted(folders=("charts/kserve-crd",), files=("go.mod",))
CRD = "kserve-1.0.0/charts/kserve-crd"


def make_tar(members: list[tuple[str, bytes | None, dict]]) -> bytes:
    """A .tar.gz of (name, data or None, TarInfo attributes) members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data, attrs in members:
            info = tarfile.TarInfo(name)
            for key, value in attrs.items():
                setattr(info, key, value)
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def test_real_archive_reads_only_wanted_files_with_commit_and_sha() -> None:
    data = tarball("v0.20.0").read_bytes()
    snapshot = read_tarball(data, "v0.20.0", WANTED, kind="tarball", location="x")
    assert snapshot.commit == "1fb781055dd1567164358233e1125142ca6ef1fe"
    assert snapshot.sha256 == archive_sha256("v0.20.0")
    expected = {f"charts/kserve-crd/{p}" for p in upstream_files("v0.20.0", "charts/kserve-crd/")} | {"go.mod"}
    assert set(snapshot.files) == expected
    assert snapshot.files["go.mod"].startswith(b"module github.com/kserve/kserve\n")


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ([("kserve-1.0.0/../evil", b"x", {})], "refusing member with '..' in its path: kserve-1.0.0/../evil"),
        ([("/etc/evil", b"x", {})], "refusing member with an absolute path: /etc/evil"),
        (
            [("kserve-1.0.0/charts/l", None, {"type": tarfile.SYMTYPE, "linkname": "../../etc/passwd"})],
            "refusing link leading outside the archive: kserve-1.0.0/charts/l -> ../../etc/passwd",
        ),
        (
            [("kserve-1.0.0/charts/h", None, {"type": tarfile.LNKTYPE, "linkname": "/etc/passwd"})],
            "refusing link leading outside the archive",
        ),
        ([("kserve-1.0.0/dev", None, {"type": tarfile.CHRTYPE})], "refusing device or FIFO member: kserve-1.0.0/dev"),
        ([("kserve-1.0.0/fifo", None, {"type": tarfile.FIFOTYPE})], "refusing device or FIFO member"),
        ([("a-1.0.0/x", b"", {}), ("b-1.0.0/y", b"", {})], "expected one top folder"),
        ([("kserve-0.9.0/go.mod", b"", {})], "archive holds kserve-0.9.0/, not upstream tag v1.0.0"),
        # one path as a file and a folder: the later member hid the other (a CRD dropped, or a sync stuck
        # half-way when a file was to replace a folder of templates)
        (
            [(f"{CRD}/templates/a.yaml", b"a", {}), (f"{CRD}/templates/a.yaml", None, {"type": tarfile.DIRTYPE})],
            f"refusing {CRD}/templates/a.yaml: listed as a folder and as a file",
        ),
        (
            [(f"{CRD}/templates/a.yaml", b"a", {}), (f"{CRD}/templates", b"t", {})],
            "refusing charts/kserve-crd/templates: a file, yet other members are inside it",
        ),
        (  # deeper, with no folder members, and a name that sorts between the file and what is inside it
            [(f"{CRD}/t", b"t", {}), (f"{CRD}/t.yaml", b"y", {}), (f"{CRD}/t/a/b.yaml", b"b", {})],
            "refusing charts/kserve-crd/t: a file, yet other members are inside it",
        ),
        # a link is read from the wanted file it names: one elsewhere was read by seeking back in the gzip
        # stream (40 links across a 3.9 GiB member took minutes), charged only past the size its header gave
        (
            [
                ("kserve-1.0.0/README.md", b"x", {}),
                (f"{CRD}/r", None, {"type": tarfile.SYMTYPE, "linkname": "../../README.md"}),
            ],
            f"refusing {CRD}/r: a link, not to a wanted file",
        ),
        (  # a size below zero took 3 GiB off the count of what the archive expands to
            [
                (f"{CRD}/d{n}", None, {"type": tarfile.DIRTYPE, "pax_headers": {"size": "-3221225472"}})
                for n in range(2)
            ],
            "refusing an archive of more than",
        ),
        # a link to a folder was read as an empty file (a Chart.yaml without apiVersion or name)
        (
            [
                (f"{CRD}/sub", None, {"type": tarfile.DIRTYPE}),
                (f"{CRD}/Chart.yaml", None, {"type": tarfile.SYMTYPE, "linkname": "sub"}),
            ],
            f"refusing {CRD}/Chart.yaml: a link, not to a wanted file",
        ),
    ],
)
def test_unsafe_or_wrong_archives_are_refused(members: list, message: str) -> None:
    with pytest.raises(SourceError) as error:
        read_tarball(make_tar(members), "v1.0.0", WANTED, kind="tarball", location="t.tar.gz")
    assert message in str(error.value)
    assert str(error.value).startswith("t.tar.gz: ")


def test_links_inside_the_archive_are_followed() -> None:
    data = make_tar(
        [
            ("kserve-1.0.0/charts/kserve-crd/real.yaml", b"real\n", {}),
            ("kserve-1.0.0/charts/kserve-crd/link.yaml", None, {"type": tarfile.SYMTYPE, "linkname": "real.yaml"}),
        ]
    )
    files = read_tarball(data, "v1.0.0", WANTED, kind="tarball", location="t").files
    assert files == {"charts/kserve-crd/real.yaml": b"real\n", "charts/kserve-crd/link.yaml": b"real\n"}


def test_hard_links_count_against_the_limit_of_all_wanted_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hard link's header says 0 bytes: 40 links to a 1 MiB member read 41 MiB past a 4 MiB limit
    on all wanted files, as the links' content went uncounted."""
    monkeypatch.setenv("GSVENDOR_MAX_TOTAL_MIB", "4")
    crd = "kserve-1.0.0/charts/kserve-crd"
    links = [(f"{crd}/l{n}.yaml", None, {"type": tarfile.LNKTYPE, "linkname": f"{crd}/big.yaml"}) for n in range(40)]
    data = make_tar([(f"{crd}/big.yaml", b"x" * 2**20, {}), *links])
    with pytest.raises(SourceError) as error:
        read_tarball(data, "v1.0.0", WANTED, kind="tarball", location="t")
    assert str(error.value).startswith(f"t: refusing oversized member {crd}/l")
    assert "4 MiB in all" in str(error.value)


def test_a_name_listed_twice_reads_as_its_last_member() -> None:
    """A file read while the archive streams by is kept per member: a later member of the same name (a
    file, then a hard link) decides the content, as extracting the archive would."""
    crd = "kserve-1.0.0/charts/kserve-crd"
    data = make_tar(
        [
            (f"{crd}/a.yaml", b"first\n", {}),
            (f"{crd}/b.yaml", b"b\n", {}),
            (f"{crd}/a.yaml", b"second\n", {}),
            (f"{crd}/b.yaml", None, {"type": tarfile.LNKTYPE, "linkname": f"{crd}/a.yaml"}),
        ]
    )
    files = read_tarball(data, "v1.0.0", WANTED, kind="tarball", location="t").files
    assert files == {"charts/kserve-crd/a.yaml": b"second\n", "charts/kserve-crd/b.yaml": b"second\n"}


@pytest.mark.parametrize("data", [b"", b"not a tarball", tarball("v0.20.0").read_bytes()[:5000]])
def test_corrupt_archives(data: bytes) -> None:
    with pytest.raises(SourceError, match=r"^t\.tar\.gz: (not a readable tar\.gz archive|corrupt member)"):
        read_tarball(data, "v0.20.0", WANTED, kind="tarball", location="t.tar.gz")


def test_classify_sources(tmp_path: Path) -> None:
    assert classify_source("file:///x/repo") == "git"
    assert classify_source("git@github.com:kserve/kserve.git") == "git"
    assert classify_source("https://github.com/kserve/kserve.git") == "git"
    assert classify_source("https://example.com/a.tar.gz") == "http"
    assert classify_source(str(tmp_path)) == "folder"
    assert classify_source(str(tarball("v0.20.0"))) == "tarball"
    with pytest.raises(SourceError, match="no such file or folder"):
        classify_source(str(tmp_path / "missing.tar.gz"))


def test_http_download_is_cached_per_tag_and_sha(httpserver: HTTPServer, tmp_path: Path) -> None:
    data = tarball("v0.20.0").read_bytes()
    httpserver.expect_oneshot_request("/kserve.tar.gz").respond_with_data(data)
    options = FetchOptions(cache_dir=tmp_path / "cache", retries=0)
    url = httpserver.url_for("/kserve.tar.gz")
    first = fetch_upstream("v0.20.0", url, WANTED, options)
    assert (tmp_path / "cache" / "v0.20.0" / f"{first.sha256}.tar.gz").read_bytes() == data
    second = fetch_upstream("v0.20.0", url, WANTED, options)  # the oneshot server would answer 500 now
    assert second.files == first.files and second.sha256 == first.sha256
    assert len(httpserver.log) == 1


def test_http_retries_5xx_then_succeeds(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_ordered_request("/k.tar.gz").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/k.tar.gz").respond_with_data(tarball("v0.20.0").read_bytes())
    options = FetchOptions(cache_dir=None, retries=2, backoff=0.01)
    snapshot = fetch_upstream("v0.20.0", httpserver.url_for("/k.tar.gz"), WANTED, options)
    assert snapshot.kind == "http" and "go.mod" in snapshot.files
    assert [entry[1].status_code for entry in httpserver.log] == [503, 200]


def test_lock_sha_mismatch_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="differs from the lock's"):
        fetch_upstream("v0.20.0", str(tarball("v0.20.0")), WANTED, FetchOptions(), expected_sha256="0" * 64)


def test_a_folder_checkout_must_be_at_its_tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git checkout read as a folder records HEAD when ``tag`` names it, and is refused at another
    commit or without the tag; a git hook's GIT_DIR does not point the check at another repository."""
    from gitkit import git, write_files

    from gsvendor.upstream.folder import read_folder

    write_files(tmp_path, {"charts/a/Chart.yaml": "name: a\n"})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    git(tmp_path, "tag", "-a", "v1", "-m", "v1")  # annotated: the tag object is peeled to its commit
    head = git(tmp_path, "rev-parse", "HEAD").strip()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    wanted = Wanted(folders=("charts/a",))
    snapshot = read_folder(tmp_path, "v1", wanted, location="up")
    assert (snapshot.commit, snapshot.files) == (head, {"charts/a/Chart.yaml": b"name: a\n"})
    with pytest.raises(SourceError, match=r"^up: .*v2.*v1"):
        read_folder(tmp_path, "v2", wanted, location="up")
    write_files(tmp_path, {"charts/a/Chart.yaml": "name: b\n"})
    git(tmp_path, "commit", "-qam", "two")
    moved = git(tmp_path, "rev-parse", "HEAD").strip()
    with pytest.raises(SourceError) as caught:
        read_folder(tmp_path, "v1", wanted, location="up")
    assert str(caught.value) == f"up: the checkout is at {moved[:12]}, but v1 is {head[:12]}"


@pytest.mark.parametrize("cut", ["member boundary", "mid header"])
def test_a_tar_cut_after_a_member_without_its_end_blocks_is_refused(cut: str) -> None:
    """tarfile ends its listing silently where the archive ends: a tar cut at a member boundary would drop its
    last files (go.mod here) from the sync."""
    import gzip

    whole = gzip.decompress(tarball("v0.20.0").read_bytes())
    members = tarfile.open(fileobj=io.BytesIO(whole), mode="r:")
    last = members.getmembers()[-1]
    end = last.offset_data + -(-last.size // 512) * 512  # after the last member's padded data
    assert whole[end:].strip(b"\0") == b""  # what follows is the end-of-archive blocks
    cut_at = last.offset if cut == "member boundary" else last.offset + 100
    with pytest.raises(SourceError) as error:
        read_tarball(gzip.compress(whole[:cut_at]), "v0.20.0", WANTED, kind="tarball", location="t.tar.gz")
    assert str(error.value) == "t.tar.gz: truncated: it ends without tar's end-of-archive blocks"


def test_the_extended_headers_of_an_archive_are_bounded_together() -> None:
    """Each long name is under the 64 KiB limit of one header, yet 10,000 of them took 1.9 GB and 33 s:
    all extended headers together are refused past 16 MiB, while the listing is read."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as archive:
        for n in range(300):
            archive.addfile(tarfile.TarInfo(f"kserve-1.0.0/{'a' * 60_000}{n}"), io.BytesIO(b""))
    with pytest.raises(SourceError) as error:
        read_tarball(buffer.getvalue(), "v1.0.0", WANTED, kind="tarball", location="t")
    assert str(error.value).startswith("t: refusing a long member name of ")
    assert str(error.value).endswith(" bytes (limits 64 KiB, 16 MiB in all)")


def test_a_sparse_member_is_refused_before_its_map_is_read() -> None:
    """tarfile keeps an old GNU sparse member's map in memory, entry by entry: 2 million extension blocks
    (a 4 MB archive) took 3 GB. GitHub's archives hold no sparse file."""
    info = tarfile.TarInfo(f"{CRD}/s.yaml")
    info.type = tarfile.GNUTYPE_SPARSE
    data = gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 10240)
    with pytest.raises(SourceError) as error:
        read_tarball(data, "v1.0.0", WANTED, kind="tarball", location="t")
    assert str(error.value) == "t: refusing a sparse member (GitHub's archives hold none)"
