"""Every hostile input ends as exit 2 with one ``error:`` line, within a memory limit.

Each command runs as a real subprocess under ``RLIMIT_AS`` (:data:`MEMORY_LIMIT`): a run that
tried to hold what the input asks for would die of MemoryError or be killed, not print the line.
HTTP servers that stall or trickle run on 127.0.0.1 in threads; the commands use default options.
"""

from __future__ import annotations

import gzip
import io
import os
import resource
import socket
import subprocess
import sys
import tarfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error, tarball

MEMORY_LIMIT = 300 * 1024 * 1024  # bytes of address space the command may map
SAFETY_NET = 120  # seconds: a hang fails the test instead of the suite


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(cli: Cli, cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``gsvendor ARGS`` in ``cwd`` under the memory limit."""
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args],
        cwd=cwd,
        env={**cli.env, **(env or {})},
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
        preexec_fn=_limited,
        check=False,
    )


def one_line(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, one non-empty stderr line, naming every needle; returns that line."""
    assert_one_line_error(result, 2, *needles)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def rewritten(tmp_path: Path, path: str, change: Callable[[bytes], bytes]) -> Path:
    """The v0.20.0 archive with member ``path`` (below the top folder) replaced by ``change(bytes)``."""
    out = tmp_path / "kserve-v0.20.0.tar.gz"
    with tarfile.open(tarball("v0.20.0")) as source, tarfile.open(out, "w:gz") as target:
        for member in source:
            data = source.extractfile(member).read() if member.isreg() else None
            if member.name.split("/", 1)[-1] == path:
                data = change(data)
                member.size = len(data)
            target.addfile(member, io.BytesIO(data) if data is not None else None)
    return out


VALUES = "charts/kserve-resources/values.yaml"
# the same, its anchors and aliases right after the colon of JSON-like keys ({"k":*a}), no blank
JSON_LAUGHS = (
    '{"a0":&a0 [x,x,x,x,x,x,x,x,x]'
    + "".join(f',"a{i}":&a{i} [' + ",".join([f'{{"k":*a{i - 1}}}'] * 9) + "]" for i in range(1, 10))
    + "}\n"
)
LAUGHS = "lol0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"lol{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
)


@pytest.mark.parametrize(
    ("appended", "needle"),
    [
        ("deep: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more than 200 levels deep"),
        (LAUGHS, "alias bomb"),
    ],
    ids=["100k-deep", "billion-laughs"],
)
def test_hostile_upstream_values_end_sync_with_one_line(
    cli: Cli, project: Path, tmp_path: Path, appended: str, needle: str
) -> None:
    archive = rewritten(tmp_path, VALUES, lambda data: data + b"\n" + appended.encode())
    line = one_line(run(cli, project, "sync", "v0.20.0", "--source", str(archive)), needle)
    assert "values.yaml" in line
    assert not (project / "helm").exists() and not (project / "gsvendor.lock.yaml").exists()


@pytest.fixture
def synced(cli: Cli, project: Path) -> Path:
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    return project


def test_a_40k_deep_lock_ends_verify_with_one_line(cli: Cli, synced: Path) -> None:
    lock = synced / "gsvendor.lock.yaml"
    lock.write_text(lock.read_text() + "deep: " + "{a: " * 40_000 + "x" + "}" * 40_000 + "\n")
    one_line(run(cli, synced, "verify"), "gsvendor.lock.yaml:", "nested more than 200 levels deep")


def test_a_16_mib_configuration_is_refused_while_counted(cli: Cli, project: Path) -> None:
    config = project / "gsvendor.yaml"
    body = "x: [" + "a," * (8 * 1024 * 1024 - 4096) + "]\n"
    config.write_text(config.read_text() + body)
    assert 15 * 1024 * 1024 < config.stat().st_size < 16 * 1024 * 1024
    one_line(run(cli, project, "verify"), "gsvendor.yaml: more than 200000 YAML nodes")


def test_a_16_mib_lock_is_refused_while_counted(cli: Cli, synced: Path) -> None:
    lock = synced / "gsvendor.lock.yaml"
    lock.write_text(lock.read_text() + "x: [" + "a," * (8 * 1024 * 1024 - 65536) + "]\n")
    assert 15 * 1024 * 1024 < lock.stat().st_size < 16 * 1024 * 1024
    one_line(run(cli, synced, "verify"), "gsvendor.lock.yaml: more than 200000 YAML nodes")


def test_a_configuration_over_16_mib_is_refused_by_its_size(cli: Cli, project: Path) -> None:
    config = project / "gsvendor.yaml"
    config.write_text(config.read_text() + "#" * (16 * 1024 * 1024) + "\n")
    one_line(run(cli, project, "verify"), "gsvendor.yaml: larger than 16 MiB")


def _header_only(info: tarfile.TarInfo, announced: int, body: bytes) -> bytes:
    """A gzip'd tar of one header announcing ``announced`` bytes, followed by ``body`` (and zeros)."""
    info.size = announced
    header = info.tobuf(format=tarfile.USTAR_FORMAT)
    return gzip.compress(header + body + b"\0" * 10240)


def test_a_gnu_long_name_of_1_gib_is_refused_before_it_is_read(cli: Cli, project: Path, tmp_path: Path) -> None:
    info = tarfile.TarInfo("././@LongLink")
    info.type = tarfile.GNUTYPE_LONGNAME
    archive = tmp_path / "long.tar.gz"
    archive.write_bytes(_header_only(info, 1024**3, b"a" * (1024 * 1024)))
    assert archive.stat().st_size < 1024 * 1024 + 20_000
    result = run(cli, project, "sync", "v0.20.0", "--source", str(archive))
    one_line(result, "refusing a long member name of 1073741824 bytes (limits 64 KiB, 16 MiB in all)")


def test_a_pax_header_of_a_million_digits_is_refused(cli: Cli, project: Path, tmp_path: Path) -> None:
    info = tarfile.TarInfo("pax")
    info.type = tarfile.XHDTYPE
    digits = b"1" * 1_000_000
    archive = tmp_path / "pax.tar.gz"
    archive.write_bytes(_header_only(info, len(digits), digits))
    assert archive.stat().st_size < 4096
    one_line(run(cli, project, "sync", "v0.20.0", "--source", str(archive)), "refusing a pax header of 1000000 bytes")


def test_pax_headers_are_bounded_where_tarfile_parses_them_in_quadratic_time() -> None:
    """Two well-formed pax headers of 24 KiB: their squared sizes pass 2**30 together."""
    from gsvendor.errors import SourceError
    from gsvendor.upstream.source import Wanted
    from gsvendor.upstream.tarball import _PAX_QUADRATIC, read_tarball

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as out:
        for i in range(2):
            info = tarfile.TarInfo(f"kserve-0.20.0/charts/kserve-crd/f{i}")
            info.pax_headers = {"comment": "c" * 24 * 1024}
            out.addfile(info, io.BytesIO(b""))
    wanted = Wanted(folders=("charts/kserve-crd",))
    if _PAX_QUADRATIC:
        with pytest.raises(
            SourceError, match=r"^a\.tgz: refusing pax headers this Python's tarfile would take too long"
        ):
            read_tarball(buffer.getvalue(), "v0.20.0", wanted, kind="tarball", location="a.tgz")
    else:
        snapshot = read_tarball(buffer.getvalue(), "v0.20.0", wanted, kind="tarball", location="a.tgz")
        assert sorted(snapshot.files) == ["charts/kserve-crd/f0", "charts/kserve-crd/f1"]


def test_a_folder_source_obeys_the_per_file_limit(cli: Cli, project: Path, tmp_path: Path) -> None:
    with tarfile.open(tarball("v0.20.0")) as source:
        source.extractall(tmp_path / "upstream", filter="data")
    (folder,) = (tmp_path / "upstream").iterdir()
    (folder / "charts/kserve-crd/big.bin").write_bytes(b"\0" * (2 * 1024 * 1024))
    result = run(cli, project, "sync", "v0.20.0", "--source", str(folder), env={"GSVENDOR_MAX_MEMBER_MIB": "1"})
    one_line(result, "refusing oversized member charts/kserve-crd/big.bin", "1 MiB a file")
    assert not (project / "helm").exists()


def test_a_folder_source_obeys_the_total_limit(cli: Cli, project: Path, tmp_path: Path) -> None:
    with tarfile.open(tarball("v0.20.0")) as source:
        source.extractall(tmp_path / "upstream", filter="data")
    (folder,) = (tmp_path / "upstream").iterdir()
    for i in range(3):
        (folder / f"charts/kserve-crd/part{i}.bin").write_bytes(b"\0" * (800 * 1024))
    env = {"GSVENDOR_MAX_MEMBER_MIB": "1", "GSVENDOR_MAX_TOTAL_MIB": "2"}
    one_line(run(cli, project, "sync", "v0.20.0", "--source", str(folder), env=env), "2 MiB in all")


def _server(serve: Callable[[socket.socket, threading.Event], None]) -> Iterator[int]:
    """A TCP server on 127.0.0.1 running ``serve(conn, stop)`` per connection in threads; yields its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            threading.Thread(target=serve, args=(conn, stop), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    for conn in held:
        conn.close()


@pytest.fixture
def header_trickle() -> Iterator[int]:
    """Answers ``HTTP/1.1 200 OK`` and then one header byte every 5 s, for ever."""

    def serve(conn: socket.socket, stop: threading.Event) -> None:
        conn.recv(65536)
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.wait(5):
                conn.sendall(b"X")
        except OSError:
            return

    yield from _server(serve)


@pytest.fixture
def stall() -> Iterator[int]:
    """Reads the request and never answers."""

    def serve(conn: socket.socket, stop: threading.Event) -> None:
        conn.recv(65536)
        stop.wait()

    yield from _server(serve)


def test_a_header_trickle_is_cut_off_with_default_options(cli: Cli, project: Path, header_trickle: int) -> None:
    url = f"http://127.0.0.1:{header_trickle}/kserve-v0.20.0.tar.gz"
    line = one_line(run(cli, project, "sync", "v0.20.0", "--source", url), "download failed after 4 attempts")
    assert "timed out after 10 s (--timeout) with no complete response headers" in line


def test_a_header_trickle_ends_at_max_time(cli: Cli, project: Path, header_trickle: int) -> None:
    url = f"http://127.0.0.1:{header_trickle}/kserve-v0.20.0.tar.gz"
    args = ("sync", "v0.20.0", "--source", url, "--timeout", "30", "--max-time", "8")
    one_line(run(cli, project, *args), "took longer than 8 s (--max-time)")


def test_a_stalled_server_is_given_up_with_default_options(cli: Cli, project: Path, stall: int) -> None:
    url = f"http://127.0.0.1:{stall}/kserve-v0.20.0.tar.gz"
    line = one_line(run(cli, project, "sync", "v0.20.0", "--source", url), "download failed after 4 attempts")
    assert "10 s" in line


SECRETS = ("s3/cr3t", "cr3t", "t0k3n", "c0d3", "acc3ss", "s4s")


def test_query_values_and_passwords_never_reach_the_lock_or_the_cache_index(
    cli: Cli, project: Path, httpserver, tmp_path: Path
) -> None:
    httpserver.expect_request("/k.tar.gz").respond_with_data(tarball("v0.20.0").read_bytes())
    url = httpserver.url_for("/k.tar.gz").replace("http://", "http://user:cr3t@") + "?pat=t0k3n&code=c0d3&sas=s4s"
    result = run(cli, project, "sync", "v0.20.0", "--source", url)
    assert result.returncode == 0, result.stderr
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert "pat=REDACTED&code=REDACTED&sas=REDACTED" in lock
    cached = "".join(
        p.read_text(errors="replace") for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.suffix != ".gz"
    )
    for text in (lock, cached, result.stdout, result.stderr):
        assert not any(secret in text for secret in SECRETS), text


@pytest.mark.parametrize(
    "url",
    [
        "http://user:s3/cr3t@127.0.0.1:9/kserve.tar.gz?access=acc3ss",
        # httpx reads "deploy:gh0k3n" as host and port and quotes the port in its InvalidURL message
        "http://deploy:gh0k3n/xyz@127.0.0.1:9/kserve.tar.gz",
        # a "/" after an "@" in the password: the user info still ends at the last "@"
        "http://user:p@ss/w0rd@127.0.0.1:9/kserve.tar.gz",
        # a "#" or "?" in the password: the URL's fragment or query to a parser, which quotes the rest as a port
        "http://u:h4sh#x@127.0.0.1:9/kserve.tar.gz",
        "http://u:qu3ry?q@127.0.0.1:9/kserve.tar.gz",
    ],
)
@pytest.mark.parametrize("json", [[], ["--json"]])
def test_a_password_with_a_slash_is_not_printed(cli: Cli, project: Path, url: str, json: list[str]) -> None:
    result = run(cli, project, "sync", "v0.20.0", "--retries", "0", "--source", url, *json)
    assert result.returncode == 2, result.stderr
    assert "127.0.0.1:9/kserve.tar.gz" in result.stdout + result.stderr
    secrets = (*SECRETS, "gh0k3n", "w0rd", "h4sh", "qu3ry")
    assert not any(secret in result.stdout + result.stderr for secret in secrets), result.stderr


def test_redaction_is_by_rule() -> None:
    from gsvendor.errors import redact
    from gsvendor.upstream.git import public_git_url
    from gsvendor.upstream.source import public_url

    assert public_url("http://user:s3/cr3t@host/a.tar.gz?pat=1&x=2") == "http://host/a.tar.gz?pat=REDACTED&x=REDACTED"
    assert public_url("https://host:8443/a@b.tar.gz?code=z") == "https://host:8443/a@b.tar.gz?code=REDACTED"
    assert public_git_url("ssh://git:pa/ss@host/r.git") == "ssh://git@host/r.git"
    assert public_git_url("https://u:p/w@host/r.git?sas=1") == "https://host/r.git?sas=REDACTED"
    assert redact("fetch http://u:s3/cr3t@h/x?sig=abc failed") == "fetch http://h/x?sig=REDACTED failed"
    # the ':' after a URL is the message's: it was redacted with the last value ("?sig=REDACTED TooManyRedirects")
    assert redact("http://h/x?sig=a:b: TooManyRedirects: x") == "http://h/x?sig=REDACTED: TooManyRedirects: x"
    assert redact("http://h/x?sig=abc:") == "http://h/x?sig=REDACTED:"


def test_git_dies_with_gsvendor_and_its_clone_is_removed(cli: Cli, project: Path, stall: int, tmp_path: Path) -> None:
    """SIGKILL gsvendor while git waits on a silent remote: git and its remote helper (whose
    command line holds the URL with its password) end, and the temporary clone is removed."""
    import signal
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    url = f"http://user:cr3t@127.0.0.1:{stall}/kserve.git"
    process = subprocess.Popen(
        [sys.executable, "-m", "gsvendor", "sync", "v0.20.0", "--source", url],
        cwd=project,
        env={**cli.env, "TMPDIR": str(tmp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def running() -> str:
        return subprocess.run(["pgrep", "-af", f"127.0.0.1:{stall}"], capture_output=True, text=True).stdout

    for _ in range(600):  # until git's remote helper talks to the server
        if "remote-http" in running():
            break
        time.sleep(0.1)
    assert list(tmp.glob("gsvendor-git-*")) and "remote-http" in running()
    process.send_signal(signal.SIGKILL)
    process.wait()
    for _ in range(100):  # the reaper acts once the pipe from the killed process closes
        if not running() and not list(tmp.iterdir()):
            break
        time.sleep(0.1)
    assert running() == ""
    assert list(tmp.iterdir()) == []


def test_a_clone_left_by_a_killed_gsvendor_is_removed_by_the_next_git_read(tmp_path: Path, monkeypatch) -> None:
    """The fallback when the reaper could not run: a clone named by a pid that no longer runs."""
    from gsvendor.upstream.git import _remove_orphaned_clones

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / f"gsvendor-git-{dead.pid}-abc" / ".git").mkdir(parents=True)
    (tmp_path / f"gsvendor-git-{os.getpid()}-abc").mkdir()
    _remove_orphaned_clones()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"gsvendor-git-{os.getpid()}-abc"]


def test_check_text_bounds_without_parsing() -> None:
    from gsvendor.yamlio import USER_FILE, YamlLimitError, check_text

    check_text("a: [1, {b: c}]\nd: &x [1]\ne: *x\n", "ok.yaml", USER_FILE)
    for text, needle in [
        ("- " * 300 + "x\n", "ok.yaml:1: nested more than 200 levels deep"),
        ("a: " + "&a [" * 300 + "x" + "]" * 300 + "\n", "nested more than 200 levels deep"),
        ("".join(" " * i + "a:\n" for i in range(300)), "ok.yaml:201: nested more than 200 levels deep"),
        ("[" + "a," * 250_000 + "]\n", "ok.yaml: more than 200000 YAML nodes"),
        ("".join(" " * i + "a:\r" for i in range(300)), "nested more than 200 levels deep"),  # CR line breaks
        ("a: " + "!t [" * 300 + "x" + "]" * 300 + "\n", "nested more than 200 levels deep"),
        ("a: " + "!<x,y> [" * 300 + "x" + "]" * 300 + "\n", "nested more than 200 levels deep"),
        (LAUGHS, "alias bomb"),
        (JSON_LAUGHS, "alias bomb"),
    ]:
        with pytest.raises(YamlLimitError, match=needle):
            check_text(text, "ok.yaml", USER_FILE)


def test_no_file_is_written_outside_the_project(cli: Cli, project: Path, tmp_path: Path) -> None:
    before = set(os.listdir(tmp_path))
    archive = rewritten(tmp_path, VALUES, lambda data: data + b"\n" + LAUGHS.encode())
    one_line(run(cli, project, "sync", "v0.20.0", "--source", str(archive)), "alias bomb")
    assert set(os.listdir(tmp_path)) - before <= {archive.name, "cache"}  # the cache is GSVENDOR_CACHE_DIR


@pytest.mark.parametrize(
    "text", ["a: 1\n", "%YAML 1.2\n---\na: 1\n", "a\n%b", "a %b", "a\tb", "\ufeffa", "x\u2028y", "a\r%b"]
)
def test_libyaml_differs_is_the_regular_expression_without_its_cost(text: str) -> None:
    """The rule is a regular expression; its ``in`` tests answer as it does (it takes seconds on 16 MiB)."""
    import re

    from gsvendor.yamlio import libyaml_differs

    assert libyaml_differs(text) == bool(re.search(r"[\t\ufeff\x85\u2028\u2029]|^%", text, re.M))


def _limits_table() -> dict[str, tuple[str, str]]:
    """The "Bounded" limits table (README.md, or the docs/ page it moved to): limit → (default, raised with)."""
    root = Path(__file__).resolve().parents[2]
    for page in [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]:
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        if "| limit | default | raise it with |" in text:
            rows = text.split("| limit | default | raise it with |", 1)[1].split("\n\n", 1)[0]
            cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in rows.strip().splitlines()[1:]]
            return {row[0]: (row[1], row[2]) for row in cells}
    raise AssertionError("no limits table found")


def test_the_limits_table_says_what_the_code_does() -> None:
    from gsvendor.upstream import source, tarball
    from gsvendor.yamlio import ALIAS_BUDGET, UPSTREAM, USER_FILE

    mib = 1024 * 1024
    table = _limits_table()
    options = source.FetchOptions()

    def yaml_row(limits: object) -> str:
        return f"{limits.max_bytes // mib} MiB, {limits.max_nodes:,} nodes, {limits.max_depth} levels (before parsing)"

    assert table["archive (local or downloaded)"][0] == f"{source.MAX_ARCHIVE_BYTES // mib} MiB"
    files = table["one wanted file / all wanted files (archives, folders, git clones)"][0]
    assert files.startswith(f"{source.MAX_MEMBER_BYTES // mib} MiB / {source.MAX_TOTAL_BYTES // mib} MiB ")
    header = table["a GNU long name or link, a pax header"][0]
    assert header.startswith(f"{source.MAX_HEADER_BYTES // 1024} KiB ")
    assert "2³⁰" in header and tarball._PAX_SQUARES_BUDGET == 2**30
    members = table["members in an archive / their sizes together"][0]
    assert members == f"{source.MAX_MEMBERS:,} / {source.MAX_ARCHIVE_EXPANDED // 1024**3} GiB"
    assert table["files the configured charts and files take (any source)"][0] == f"{source.MAX_WANTED_FILES:,}"
    assert table["path depth of a member or file"][0] == f"{source.MAX_DEPTH} folders"
    phase = table["HTTP: per request phase (connect, all response headers, each read) / retries"][0]
    assert phase == f"{options.timeout:g} s / {options.retries}"
    assert table["HTTP and git: the whole fetch, connect, headers and body"][0].startswith(f"{options.max_time:g} s ")
    assert table["HTTP: minimum rate, averaged over `--timeout`"][0].startswith(f"{options.min_rate:g} bytes/s ")
    assert table["YAML files (configuration, overlays, the lock)"][0] == yaml_row(USER_FILE)
    upstream = "upstream YAML gsvendor edits or checks (values, Chart.yaml, rendered manifests)"
    assert table[upstream][0] == yaml_row(UPSTREAM)
    aliases = table["values aliases add to a YAML document"][0]
    assert aliases.startswith(f"{ALIAS_BUDGET:,} or as many as it holds written")


def test_the_command_line_defaults_are_the_fetch_options_defaults() -> None:
    import inspect

    from gsvendor.cli import commands
    from gsvendor.upstream.source import FetchOptions

    defaults = FetchOptions()
    sync = inspect.signature(commands.sync).parameters
    assert (sync["timeout"].default, sync["retries"].default) == (defaults.timeout, defaults.retries)
    assert (sync["max_time"].default, sync["min_rate"].default) == (defaults.max_time, defaults.min_rate)


def test_a_git_source_obeys_the_per_file_limit(cli: Cli, project: Path, tmp_path: Path) -> None:
    from gitkit import git

    with tarfile.open(tarball("v0.20.0")) as source:
        source.extractall(tmp_path / "upstream", filter="data")
    (repo,) = (tmp_path / "upstream").iterdir()
    (repo / "charts/kserve-crd/big.bin").write_bytes(b"\0" * (2 * 1024 * 1024))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "upstream")
    git(repo, "tag", "v0.20.0")
    url = f"file://{repo}"
    result = run(cli, project, "sync", "v0.20.0", "--source", url, env={"GSVENDOR_MAX_MEMBER_MIB": "1"})
    one_line(result, "refusing oversized member charts/kserve-crd/big.bin", "1 MiB a file")
    assert not (project / "helm").exists()


def test_a_password_or_user_with_an_at_sign_is_redacted_whole() -> None:
    """``https://user:pa@ss@host/x`` (an unencoded "@" in the password, which URL parsers split at
    the last "@") was redacted to ``https://ss@host/x``, printing the password's end."""
    from gsvendor.errors import redact

    assert redact("clone 'https://user:pa@ss@host/x.git/' failed") == "clone 'https://host/x.git/' failed"
    assert redact("GET https://to@ken:x@host/a.tar.gz") == "GET https://host/a.tar.gz"
    assert redact("https://u:p/a@b@host/r.git") == "https://host/r.git"
    assert redact("GET https://user:p@ss/w0rd@host/k.tar.gz: 404") == "GET https://host/k.tar.gz: 404"
    assert redact("GET https://host:8443/a@b.tar.gz") == "GET https://host:8443/a@b.tar.gz"
    assert redact("mail user@example.com about https://host/a") == "mail user@example.com about https://host/a"


@pytest.mark.parametrize("text", ["a: &x [1, *x]\n", "a: &x {b: *x}\n", "a: &x [1]\nb: &x [*x]\n"])
def test_an_alias_inside_the_node_it_names_is_refused(text: str) -> None:
    """A node holding an alias of itself (a CRD's ``openAPIV3Schema: &root`` with ``rolloutStrategy:
    *root`` below it): ruamel builds a structure that contains itself, and every reader that walks it
    (the ${crd:…} variable's schema copy) ended in a RecursionError traceback."""
    from gsvendor.yamlio import YamlLimitError, load_plain

    with pytest.raises(YamlLimitError, match=r"^f\.yaml: the alias \*x is inside the node it names$"):
        load_plain(text, "f.yaml")
    assert load_plain("a: &x [1]\nb: *x\n", "f.yaml") == {"a": [1], "b": [1]}
