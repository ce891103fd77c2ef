"""A sync that survives anything — signals at every step of the swap, two syncs at once,
only changed files written, bounded inputs, no credential printed or recorded."""

from __future__ import annotations

import gzip
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, Cli, assert_one_line_error, default_signals, require_tool, tarball, tree
from socketkit import raw_server

SMALL_CONFIG = "upstream: {repository: example/demo}\noutput: helm\ncharts: [demo, other]\n"


def small_upstream(folder: Path, version: str) -> Path:
    """A tiny upstream checkout with two charts whose files differ per ``version``."""
    files = {
        "charts/demo/Chart.yaml": f"apiVersion: v2\nname: demo\nversion: {version}\n",
        "charts/demo/values.yaml": "replicas: 1\n",
        f"charts/demo/templates/only-{version}.yaml": "kind: A\n",
        "charts/other/Chart.yaml": f"apiVersion: v2\nname: other\nversion: {version}\n",
    }
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


@pytest.fixture
def small(tmp_path: Path) -> Path:
    project = tmp_path / "small"
    (project / "overlays").mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(SMALL_CONFIG)
    for version in ("1.0.0", "1.1.0"):
        small_upstream(tmp_path / f"up-{version}", version)
    return project


def journal_of(project: Path) -> Path:
    """Where gsvendor keeps the journal of ``project`` (outside git: the ``cli`` fixture's cache)."""
    from gsvendor import journal_trust

    return journal_trust.place(project, project.parent / "cache").path


def strays(project: Path) -> list[str]:
    journal = journal_of(project)
    return sorted(
        [p.relative_to(project).as_posix() for p in project.rglob(".gsvendor-staging-*")]
        + [p.name for p in journal.parent.glob(f"{journal.name}*")]
        + [p.name for p in project.glob(".gsvendor-journal*")]
    )


# --- signals at every step of the swap ------------------------------------------------------------


def test_a_signal_at_every_step_of_the_swap_loses_nothing() -> None:
    """hack/swap_torture.py: KILL, TERM and INT before each step of a plain and a forced swap, then
    the next plain syncs of the same and the previous tag (alternately first)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "hack" / "swap_torture.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    report = json.loads(result.stdout)
    counts = report["counts"]
    print(json.dumps(counts, indent=1))  # the counts, for the record (pytest -s)
    assert report["problems"] == [] and report["failed"] == 0
    assert result.returncode == 0
    plain, forced = counts["plain swap steps"], counts["forced swap steps"]
    assert plain >= 14 and forced > plain  # journal, staging, unlink, rmtree, renames, lock, clean-up
    assert counts["trials"] == 3 * (plain + 1 + forced + 1)  # every step, each signal, plus one past the end
    assert counts["follow-up pairs"] == counts["trials"]
    for sig in ("TERM", "INT"):  # a deferred signal: the run itself leaves one version, exit 130 or 0
        assert counts.get(f"left nothing after SIG{sig}", 0) == 0
        assert counts.get(f"plain {sig} exit 130", 0) > 0
    assert counts.get("plain KILL exit -9", 0) == plain  # killed at each step, finished past the end


def test_an_interrupted_swap_is_completed_by_the_next_command(small: Path, cli: Cli) -> None:
    """SIGKILL right after the journal's commit: `verify` (not only sync) completes the swap first."""
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    trace = small.parent / "trace"
    env = {**cli.env, "GSVENDOR_TEST_SWAP_TRACE": str(trace)}
    probe = small.parent / "probe"
    subprocess.run(["cp", "-a", str(small), str(probe)], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", up_new], cwd=probe, env=env, check=False
    )
    assert done.returncode == 0
    steps = trace.read_text().splitlines()
    first_op = next(int(line.split()[0]) for line in steps if line.split()[1] in ("unlink", "rmtree", "write"))
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_op + 1}:KILL"}
    killed = subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", up_new], cwd=small, env=env, check=False
    )
    assert killed.returncode == -9
    assert journal_of(small).is_file()
    verify = cli(small, "verify")
    assert verify.returncode == 0, verify.stderr
    assert verify.stderr.startswith("recovered: completed the interrupted sync of v1.1.0\n")
    assert tree(small / "helm") == tree(probe / "helm")
    assert strays(small) == []


# --- one sync at a time ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "problem"),
    [
        ("templates/", "must be a path inside the chart, with no empty, '.' or '..' part"),
        ("templates/.", "must be a path inside the chart, with no empty, '.' or '..' part"),
        ("x//y", "must be a path inside the chart, with no empty, '.' or '..' part"),
        ("templates", "helm/demo/templates: a file, yet the chart has files inside it"),
        ("Chart.yaml/x", "helm/demo/Chart.yaml: a file, yet the chart has files inside it"),
    ],
)
def test_a_copy_to_no_clean_file_path_is_refused_before_the_swap(small: Path, cli: Cli, to: str, problem: str) -> None:
    """``to: templates/`` stopped a sync half-way ("Is a directory") and left a journal its own check refused, so
    no command could finish or undo it; ``x//y`` wrote a file verify then reported as differing. Each is an
    input error now, nothing written, no journal left."""
    upstream = str(small.parent / "up-1.0.0")
    assert cli(small, "sync", "v1.0.0", "--source", upstream).returncode == 0
    (small / "overlays/copy.yaml").write_text(
        f"charts: [demo]\noperations:\n  - {{op: copy, content: x, to: '{to}'}}\n"
    )
    before = tree(small)
    result = cli(small, "sync", "v1.0.0", "--source", upstream)
    assert_one_line_error(result, 2, problem)
    assert tree(small) == before and not journal_of(small).exists()


def test_two_syncs_of_different_tags_started_together(small: Path, cli: Cli) -> None:
    up = {tag: str(small.parent / f"up-{tag[1:]}") for tag in ("v1.0.0", "v1.1.0")}
    expected = {}
    for tag in up:
        assert cli(small, "sync", tag, "--source", up[tag]).returncode == 0
        expected[tag] = tree(small / "helm")
    outcomes: dict[str, int] = {}
    for attempt in range(20):
        wait = ["--lock-timeout", "0"] if attempt % 2 else []  # odd attempts: the loser gives up at once
        processes = {
            tag: subprocess.Popen(
                [sys.executable, "-m", "gsvendor", *wait, "sync", tag, "--source", up[tag]],
                cwd=small,
                env=cli.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for tag in up
        }
        results = {tag: (p, *p.communicate(timeout=300)) for tag, p in processes.items()}
        for tag, (process, out, err) in results.items():
            assert "Traceback" not in out + err
            other = next(p for t, p in results.items() if t != tag)[0]
            if process.returncode == 2:
                assert f"another gsvendor (pid {other.pid})" in err, err
                assert len(err.strip().splitlines()) == 1, err
            else:
                assert process.returncode == 0, err
            outcomes[f"exit {process.returncode}"] = outcomes.get(f"exit {process.returncode}", 0) + 1
        lock_tag = next(
            line[5:] for line in (small / "gsvendor.lock.yaml").read_text().splitlines() if line.startswith("tag: ")
        )
        assert tree(small / "helm") == expected[lock_tag]
        assert strays(small) == []
    print(outcomes)
    assert outcomes.get("exit 0", 0) >= 20  # every even attempt both succeed, one after the other


# --- only what changed ----------------------------------------------------------------------------


def test_a_one_file_overlay_change_keeps_every_other_file(cli: Cli, project: Path) -> None:
    (project / "overlays" / "files" / "note.txt").write_text("first\n")
    (project / "overlays" / "95-note.yaml").write_text(
        "description: a note\noperations:\n  - op: copy\n    charts: [kserve-crd]\n"
        "    from: files/note.txt\n    to: templates/gs-note.txt\n"
    )
    source = str(tarball("v0.20.0"))
    assert cli(project, "sync", "v0.20.0", "--source", source).returncode == 0

    def stats() -> dict[str, tuple[int, int]]:
        helm = project / "helm"
        return {
            p.relative_to(project).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in helm.rglob("*")
            if p.is_file()
        }

    before = stats()
    time.sleep(0.05)  # a rewrite would show in mtime_ns even on coarse clocks
    (project / "overlays" / "files" / "note.txt").write_text("second\n")
    result = cli(project, "sync", "v0.20.0", "--source", source, "--json")
    assert result.returncode == 0, result.stderr
    after = stats()
    changed = sorted(p for p in before if before[p] != after.get(p))
    assert changed == ["helm/kserve-crd/templates/gs-note.txt"]
    assert set(after) == set(before) and len(before) > 90
    assert (project / "helm/kserve-crd/templates/gs-note.txt").read_text() == "second\n"


def test_output_on_another_file_system_is_staged_beside_it(cli: Cli, project: Path) -> None:
    """helm/ a link to a tmpfs folder: every rename stays on that file system (no EXDEV)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(project).st_dev:
        pytest.skip("no second file system at /dev/shm")
    import tempfile

    with tempfile.TemporaryDirectory(dir=shm) as elsewhere:
        (project / "helm").symlink_to(elsewhere)
        for tag in ("v0.19.0", "v0.20.0"):
            result = cli(project, "sync", tag, "--source", str(tarball(tag)))
            assert result.returncode == 0, result.stderr
        assert cli(project, "verify").returncode == 0
        assert strays(project) == [] and not list(Path(elsewhere).glob(".gsvendor-staging-*"))


# --- bounded inputs -------------------------------------------------------------------------------


def measured(
    cli: Cli, cwd: Path, *args: str, timeout: float = 60
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run the CLI under /usr/bin/time; returns the result, the peak RSS in MB and the CPU seconds."""
    report = cwd.parent / f"time-{os.getpid()}"
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%M %U %S", "-o", str(report), sys.executable, "-m", "gsvendor", *args],
        cwd=cwd,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    rss, user, system = report.read_text().split()[-3:]
    return result, int(rss) / 1024, float(user) + float(system)


def bounded(cli: Cli, cwd: Path, needle: str, *args: str, code: int = 2) -> str:
    """The command fails with one error line naming ``needle``, within 30 s of CPU time and 500 MB
    (CPU, not the wall clock, which a loaded machine stretches)."""
    result, rss, cpu = measured(cli, cwd, *args)
    assert_one_line_error(result, code, needle)
    assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1, result.stderr
    assert cpu < 30 and rss < 500, (cpu, rss)
    return result.stderr


def archive(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as out:
        for info, data in members:
            out.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def member(name: str, data: bytes = b"x\n") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(f"kserve-0.20.0/{name}")
    info.size = len(data)
    return info, data


@pytest.fixture
def synced(cli: Cli, project: Path) -> Path:
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    return project


def test_a_member_thousands_of_folders_deep(cli: Cli, synced: Path, tmp_path: Path) -> None:
    deep = "charts/kserve-crd/" + "d/" * 2000 + "f.yaml"
    (tmp_path / "deep.tar.gz").write_bytes(archive([member(deep)]))
    bounded(cli, synced, "more than 64 folders deep", "sync", "v0.20.0", "--source", str(tmp_path / "deep.tar.gz"))


def test_a_huge_sparse_member_is_refused_from_its_header(cli: Cli, synced: Path, tmp_path: Path) -> None:
    info = tarfile.TarInfo("kserve-0.20.0/charts/kserve-crd/huge.yaml")
    info.size = 8 * 1024**3  # announced, never read: the header alone is refused
    data = bytearray(archive([member("charts/kserve-crd/Chart.yaml")]))
    header = info.tobuf(tarfile.GNU_FORMAT)
    raw = gzip.decompress(bytes(data))
    (tmp_path / "huge.tar.gz").write_bytes(gzip.compress(header + raw))
    bounded(cli, synced, "refusing", "sync", "v0.20.0", "--source", str(tmp_path / "huge.tar.gz"))


def test_a_gigabyte_of_zeros_is_not_probed(cli: Cli, synced: Path, tmp_path: Path) -> None:
    zeros = tmp_path / "zeros.tar.gz"
    with open(zeros, "wb") as handle:
        handle.truncate(1024**3)  # sparse: costs no disk
    bounded(cli, synced, "larger than an upstream archive can be", "sync", "v0.20.0", "--source", str(zeros))
    small = tmp_path / "small-zeros.tar.gz"
    small.write_bytes(b"\0" * 4096)
    bounded(cli, synced, "no gzip, bzip2, xz or tar header", "sync", "v0.20.0", "--source", str(small))


def test_control_characters_in_member_names_never_reach_the_terminal(cli: Cli, synced: Path, tmp_path: Path) -> None:
    (tmp_path / "ctl.tar.gz").write_bytes(archive([member("charts/kserve-crd/\x1b[2Jevil\x07.yaml")]))
    err = bounded(cli, synced, "control characters", "sync", "v0.20.0", "--source", str(tmp_path / "ctl.tar.gz"))
    assert "\x1b" not in err and "\x07" not in err and "\\x1b[2Jevil\\x07" in err


@pytest.mark.parametrize("name", [".git/config", ".GIT/hooks/post-checkout", "templates/.git"])
def test_a_git_folder_or_file_in_a_source_is_refused(cli: Cli, synced: Path, tmp_path: Path, name: str) -> None:
    """A chart's ``.git/config`` from an archive was vendored: ``git status`` inside the chart ran its fsmonitor
    command. A ``.git`` part is refused in an archive and in a folder source, as git refuses it in a tree."""
    fsmonitor = b"[core]\n\tfsmonitor = touch pwned; false\n"
    (tmp_path / "git.tar.gz").write_bytes(
        archive([member("charts/kserve-crd/Chart.yaml"), member(f"charts/kserve-crd/{name}", fsmonitor)])
    )
    before = tree(synced / "helm")
    bounded(
        cli,
        synced,
        f"refusing a .git folder or file: kserve-0.20.0/charts/kserve-crd/{name}",
        "sync",
        "v0.20.0",
        "--source",
        str(tmp_path / "git.tar.gz"),
    )
    folder = tmp_path / "up" / "kserve-0.20.0"
    with tarfile.open(tarball("v0.20.0")) as upstream:
        upstream.extractall(tmp_path / "up", filter="data")
    (folder / "charts/kserve-crd" / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / "charts/kserve-crd" / name).write_bytes(fsmonitor)
    bounded(
        cli,
        synced,
        f"refusing a .git folder or file: charts/kserve-crd/{name}",
        "sync",
        "v0.20.0",
        "--source",
        str(folder),
    )
    assert tree(synced / "helm") == before


def test_a_regex_replacement_that_could_outgrow_a_file_is_refused(cli: Cli, synced: Path) -> None:
    """``(?s)(.*)`` of a 2 MB CRD replaced by ``\\1`` 3,000 times: a MemoryError traceback (600 times: 2.3 GB and
    10 s to plan a 1.2 GB file). The result's size is bounded as an upstream file's before it is built."""
    crd = "templates/serving.kserve.io_inferenceservices.yaml"
    grow = {"op": "replace", "file": crd, "regex": True, "find": "(?s)(.*)", "with": "\\1" * 3000}
    (synced / "overlays/99-grow.yaml").write_text(json.dumps({"charts": ["kserve-crd"], "operations": [grow]}))
    source = ["--source", str(tarball("v0.20.0"))]
    bounded(cli, synced, "the result could be larger than 32 MiB", "sync", "v0.20.0", "--dry-run", *source, code=1)


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\ufeff", "\u2028"])
def test_a_format_character_in_a_member_name_is_refused(cli: Cli, synced: Path, tmp_path: Path, char: str) -> None:
    """Vendored silently: U+202E shows ``a\u202elmay.sh`` as ``ahs.yaml`` in a review, U+200B and U+FEFF hide,
    U+2028 breaks the line a reviewer reads. Refused as control characters are."""
    (tmp_path / "fmt.tar.gz").write_bytes(archive([member(f"charts/kserve-crd/templates/a{char}lmay.sh")]))
    bounded(
        cli,
        synced,
        "refusing a name with control characters",
        "sync",
        "v0.20.0",
        "--source",
        str(tmp_path / "fmt.tar.gz"),
    )


def test_an_alias_bomb_in_the_lock_file(cli: Cli, synced: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    lock = synced / "gsvendor.lock.yaml"
    lock.write_text("\n".join(levels) + "\nkind: Lock\ntag: *a11\n")
    err = bounded(cli, synced, "alias bomb", "verify")
    assert len(err) < 400


def test_a_huge_value_in_an_error_is_shortened(cli: Cli, synced: Path) -> None:
    big = "v" * (10 * 1024 * 1024 - 100)
    (synced / "gsvendor.yaml").write_text(f"upstream: {{repository: {big}}}\ncharts: [kserve-crd]\n")
    err = bounded(cli, synced, "upstream.repository", "verify")
    assert len(err) < 3000 and "…" in err


def test_a_fifo_in_the_cache_is_ignored(cli: Cli, synced: Path, tmp_path: Path) -> None:
    from gsvendor.upstream.fetch import _cache_paths

    folder, index = _cache_paths(tmp_path / "cache", "v0.20.0")
    folder.mkdir(parents=True)
    os.mkfifo(index)
    os.mkfifo(folder / f"{'0' * 64}.tar.gz")
    # no server at all: the cache is consulted, ignored, then the download fails quickly
    bounded(
        cli,
        synced,
        "download failed",
        "sync",
        "v0.20.0",
        "--retries",
        "0",
        "--source",
        "http://127.0.0.1:9/kserve-v0.20.0.tar.gz",
    )


@pytest.fixture
def trickle() -> Iterator[str]:
    """An HTTP server on loopback that answers 200 and then sends one byte every 0.3 s, forever."""
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not stop.is_set():
                try:
                    conn.sendall(b"x")
                except OSError:
                    return
                time.sleep(0.3)

    with raw_server(serve) as port:
        yield f"http://user:s3cret@127.0.0.1:{port}/kserve-v0.20.0.tar.gz"
        stop.set()


@pytest.fixture
def silent() -> Iterator[int]:
    """A TCP server on loopback that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    for conn in held:
        conn.close()


def test_a_trickling_http_server_times_out(cli: Cli, synced: Path, trickle: str) -> None:
    err = bounded(
        cli, synced, "below --min-rate", "sync", "v0.20.0", "--timeout", "2", "--retries", "1", "--source", trickle
    )
    assert "s3cret" not in err and "user" not in err


def test_a_silent_http_server_times_out_within_max_time(cli: Cli, synced: Path, silent: int) -> None:
    url = f"http://127.0.0.1:{silent}/kserve-v0.20.0.tar.gz"
    bounded(cli, synced, "timed out", "sync", "v0.20.0", "--timeout", "2", "--max-time", "5", "--source", url)


@pytest.mark.parametrize("scheme", ["git", "http"])
def test_a_silent_git_remote_times_out_and_git_is_killed(cli: Cli, synced: Path, silent: int, scheme: str) -> None:
    url = f"{scheme}://user:s3cret@127.0.0.1:{silent}/kserve.git"
    if scheme == "git":
        url = f"git://127.0.0.1:{silent}/kserve.git"
    err = bounded(
        cli, synced, "took longer than 3 s (--max-time)", "sync", "v0.20.0", "--max-time", "3", "--source", url
    )
    assert "s3cret" not in err
    leftover = subprocess.run(["pgrep", "-f", f"127.0.0.1:{silent}"], capture_output=True, text=True, check=False)
    assert leftover.stdout == ""  # git and its remote helper were killed, not left behind


def test_ctrl_c_during_start_up_is_one_line(tmp_path: Path) -> None:
    """SIGINT while Python is still importing gsvendor's CLI: exit 130 and one line."""
    code = (
        "import os, signal, sys, builtins\n"
        "real = builtins.__import__\n"
        "def imp(name, *a, **k):\n"
        "    if name == 'typer':\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = imp\n"
        "sys.argv = ['gsvendor', '--help']\n"
        "import runpy; runpy.run_module('gsvendor', run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=default_signals,
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr == "interrupted\n"


def test_sigterm_before_main_handles_interrupts_is_one_line(tmp_path: Path) -> None:
    """SIGTERM while main() still imports what it sets up before its own handler: exit 130, no traceback."""
    code = (
        "import os, signal, sys, builtins\n"
        "real = builtins.__import__\n"
        "def imp(name, globals=None, locals=None, fromlist=(), level=0):\n"
        "    if name == 'gsvendor.report.layout' and 'StrippedLines' in (fromlist or ()):\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return real(name, globals, locals, fromlist, level)\n"
        "builtins.__import__ = imp\n"
        "sys.argv = ['gsvendor', '--help']\n"
        "import runpy; runpy.run_module('gsvendor', run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=default_signals,
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr == "interrupted\n"


# --- credentials ----------------------------------------------------------------------------------


def test_no_credential_from_a_url_anywhere(cli: Cli, project: Path, httpserver, tmp_path: Path) -> None:
    from gsvendor.vendoring.lock import source_location

    assert source_location("git", "https://x-access-token:t0k3n@github.com/kserve/kserve.git", project) == (
        "https://github.com/kserve/kserve.git"
    )
    assert source_location("git", "ssh://git:pw@host/kserve.git", project) == "ssh://git@host/kserve.git"
    assert source_location("git", "git@github.com:kserve/kserve.git", project) == "git@github.com:kserve/kserve.git"
    httpserver.expect_request("/k.tar.gz").respond_with_data(tarball("v0.20.0").read_bytes())
    url = httpserver.url_for("/k.tar.gz").replace("http://", "http://user:s3cret@")
    result = cli(project, "sync", "v0.20.0", "--json", "--source", url)
    assert result.returncode == 0, result.stderr
    text = result.stdout + result.stderr + (project / "gsvendor.lock.yaml").read_text()
    text += "".join(p.read_text(errors="replace") for p in (tmp_path / "cache").rglob("*.json"))
    assert json.loads(result.stdout)["source"]["location"].startswith("http://localhost:") or "127.0.0.1" in text
    assert "s3cret" not in text and "user:" not in text
    # a git remote that refuses (a plain HTTP server is no git server): the error names no secret
    httpserver.expect_request("/repo.git/info/refs").respond_with_data("no", status=403)
    git_url = httpserver.url_for("/repo.git").replace("http://", "http://user:s3cret@")
    failed = cli(project, "sync", "v0.20.0", "--json", "--source", git_url)
    assert_one_line_error(failed, 2)
    assert "s3cret" not in failed.stdout + failed.stderr


# --- folders the swap may not change -------------------------------------------


def _without_root_powers() -> list[str]:
    """A command prefix under which root's file permission checks apply (setpriv drops the
    capabilities that bypass them); none for another user."""
    import shutil

    if os.geteuid() != 0:
        return []
    setpriv = require_tool(
        "setpriv", shutil.which("setpriv"), "util-linux; as root, permissions are enforced only under it"
    )
    caps = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]


def _run_with_folder_mode(cli: Cli, cwd: Path, folder: Path, mode: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``gsvendor ARGS`` in ``cwd`` with ``folder`` at ``mode`` (as a user whose permissions apply),
    the folder's mode restored after."""
    folder.chmod(mode)
    try:
        return subprocess.run(
            [*_without_root_powers(), sys.executable, "-m", "gsvendor", *args],
            cwd=cwd,
            env=cli.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("read_only", ["helm/demo/templates", "helm/demo", "."])
def test_a_read_only_folder_of_the_output_stops_sync_before_anything_changes(
    small: Path, cli: Cli, read_only: str
) -> None:
    """A read-only helm/demo/templates: the committed swap stopped at its first rename there with a
    traceback (exit 1), helm/ half the old tag and half the new one."""
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    before = tree(small)
    result = _run_with_folder_mode(cli, small, small / read_only, 0o555, "sync", "v1.1.0", "--source", up_new)
    shown = str(small) if read_only == "." else read_only
    assert_one_line_error(result, 2, f"writing the output failed, nothing changed: {shown}: not writable")
    assert tree(small) == before
    assert strays(small) == []


def test_an_error_after_the_commit_is_one_line_and_the_next_command_completes_the_swap(small: Path, cli: Cli) -> None:
    """What the pre-flight check cannot foresee (a folder made read-only meanwhile): one line, exit 2,
    no traceback; the journal stays, and the next command finishes the swap."""
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    probe = small.parent / "probe"
    subprocess.run(["cp", "-a", str(small), str(probe)], check=True)
    assert cli(probe, "sync", "v1.1.0", "--source", up_new).returncode == 0
    script = (
        "import sys\n"
        "from gsvendor.vendoring import journal\n"
        "real, calls = journal._pending, []\n"  # the check before each step's action, made once per step
        "def failing(root, step):\n"
        "    calls.append(step)\n"
        "    if len(calls) == 2:\n"
        "        raise PermissionError(13, 'Permission denied', str(root / step.path))\n"
        "    return real(root, step)\n"
        "journal._pending = failing\n"
        "from gsvendor.__main__ import run\n"
        f"sys.argv = ['gsvendor', 'sync', 'v1.1.0', '--source', {up_new!r}]\n"
        "run()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=small, env=cli.env, capture_output=True, text=True, check=False, timeout=120
    )
    assert_one_line_error(  # exit 1: the output changed in part
        result,
        1,
        "the sync of v1.1.0 stopped half-way: helm/",
        ": Permission denied; once that is fixed",
        "completes it",
    )
    assert "[Errno" not in result.stderr and str(small) not in result.stderr  # the reason, project-relative
    assert journal_of(small).is_file()
    verify = cli(small, "verify")
    assert verify.returncode == 0, verify.stderr
    assert verify.stderr.startswith("recovered: completed the interrupted sync of v1.1.0\n")
    assert tree(small / "helm") == tree(probe / "helm")


@pytest.mark.parametrize("command", ["verify", "diff"])
def test_an_unreadable_folder_of_the_output_is_named_not_taken_for_removed_files(
    small: Path, cli: Cli, command: str
) -> None:
    """verify listed the files of an unreadable helm/demo/templates as differences (exit 1: 'removed'),
    where sync names the folder (exit 2): rglob skips a folder it cannot list."""
    assert cli(small, "sync", "v1.0.0", "--source", str(small.parent / "up-1.0.0")).returncode == 0
    result = _run_with_folder_mode(cli, small, small / "helm/demo/templates", 0, command)
    assert_one_line_error(result, 2, "helm/demo/templates: cannot read: Permission denied")


@pytest.mark.parametrize("name", ["SIGHUP", "SIGINT", "SIGTERM"])
def test_a_signal_ignored_at_the_start_stays_ignored(small: Path, cli: Cli, name: str) -> None:
    """``nohup gsvendor sync …`` ignores SIGHUP: the terminal's hang-up interrupted the sync all the
    same (gsvendor's own handlers replaced the inherited SIG_IGN), as SIGINT did a script's
    background job."""
    import signal

    number = getattr(signal, name)
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    probe = small.parent / "probe"
    subprocess.run(["cp", "-a", str(small), str(probe)], check=True)
    assert cli(probe, "sync", "v1.1.0", "--source", up_new).returncode == 0
    result = subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", up_new],
        cwd=small,
        env={**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"3:{name[3:]}"},  # while preparing the swap
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: signal.signal(number, signal.SIG_IGN),
    )
    assert result.returncode == 0, result.stderr
    assert tree(small / "helm") == tree(probe / "helm")


@pytest.mark.parametrize("linked", [False, True], ids=["output", "linked-output"])
@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
def test_checking_a_chart_folder_of_the_project_completes_an_interrupted_swap_first(
    small: Path, cli: Cli, command: str, linked: bool
) -> None:
    """``check-images helm/demo`` skipped the project lock and the recovery: after a sync killed
    mid-swap it checked the half-swapped folder and said ok; it still did
    when helm/ is a link to a folder outside the project, which sync writes through."""
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    if linked:
        (small / "helm").rename(small.parent / "elsewhere")
        (small / "helm").symlink_to(small.parent / "elsewhere")
    trace, probe = small.parent / "trace", small.parent / "probe"
    subprocess.run(["cp", "-a", str(small), str(probe)], check=True)
    if linked:  # the probe's own helm/, not a second link to the same folder
        (probe / "helm").unlink()
        subprocess.run(["cp", "-a", str(small.parent / "elsewhere"), str(probe / "helm")], check=True)
    env = {**cli.env, "GSVENDOR_TEST_SWAP_TRACE": str(trace)}
    args = [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", up_new]
    assert subprocess.run(args, cwd=probe, env=env, check=False).returncode == 0
    steps = trace.read_text().splitlines()
    first_op = next(int(line.split()[0]) for line in steps if line.split()[1] in ("unlink", "rmtree", "write"))
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_op + 1}:KILL"}
    assert subprocess.run(args, cwd=small, env=env, check=False).returncode == -9
    result = cli(small, command, "helm/demo")
    assert result.stderr.startswith("recovered: completed the interrupted sync of v1.1.0\n"), result.stderr
    assert tree(small / "helm") == tree(probe / "helm")
    assert strays(small) == []


@pytest.mark.parametrize(
    "odd", ["\n", "\r", "\x1c", "\u2028"], ids=["newline", "return", "file-separator", "line-separator"]
)
def test_a_file_name_with_a_line_break_keeps_the_post_commit_error_one_line(
    tmp_path: Path, odd: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A swap step that failed on 'helm/x/a<newline>b' printed two 'error:' lines, the second
    starting 'b: Operation not permitted'; the CLI's writer shows the break escaped."""
    import typer

    from gsvendor.cli.app import handles_errors
    from gsvendor.errors import GsvendorError
    from gsvendor.vendoring.journal import _failed

    failure = PermissionError(1, "Operation not permitted", str(tmp_path / "helm" / "x" / f"a{odd}b"))

    @handles_errors
    def command() -> None:
        raise GsvendorError(f"writing the output failed, nothing changed: {_failed(failure, tmp_path)}")

    with pytest.raises(typer.Exit):
        command()
    shown = {"\n": "\\x0a", "\r": "\\x0d", "\x1c": "\\x1c", "\u2028": "\\u2028"}[odd]
    expected = f"error: writing the output failed, nothing changed: helm/x/a{shown}b: Operation not permitted\n"
    assert capsys.readouterr().err == expected


def test_a_hand_edited_file_with_a_line_break_in_its_name_is_one_error_line(small: Path, cli: Cli) -> None:
    """sync's refusal listed the file as written: 'helm/demo/a' and 'b (declare them …' on two
    'error:' lines."""
    up_old, up_new = str(small.parent / "up-1.0.0"), str(small.parent / "up-1.1.0")
    assert cli(small, "sync", "v1.0.0", "--source", up_old).returncode == 0
    (small / "helm" / "demo" / "a\nb").write_text("mine\n")
    result = cli(small, "sync", "v1.1.0", "--source", up_new)
    assert_one_line_error(result, 1, "refusing to overwrite changes", "helm/demo/a\\x0ab")
    assert len(result.stderr.splitlines()) == 1, result.stderr
