"""Shared fixtures: the real upstream tarballs in ../shared/upstream, temporary projects, the CLI."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from pytest_httpserver import HTTPServer

ROOT = Path(__file__).resolve().parent.parent
# ../shared/upstream beside the repository; GSVENDOR_UPSTREAM_DIR points elsewhere (CircleCI
# downloads GitHub's archives of the same tags there)
UPSTREAM = Path(os.environ.get("GSVENDOR_UPSTREAM_DIR") or ROOT.parent / "shared" / "upstream")
CHARTS = ("kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs")


def _archived_tags() -> tuple[str, ...]:
    """The tags of every ``kserve-<tag>.tar.gz`` in UPSTREAM, oldest first: the three CircleCI downloads
    (Makefile UPSTREAM_TAGS), and any archive a maintainer drops there, which the suite then reads too."""
    from packaging.version import InvalidVersion, Version

    found = []
    for path in UPSTREAM.glob("kserve-v*.tar.gz"):
        tag = path.name.removeprefix("kserve-").removesuffix(".tar.gz")
        try:
            found.append((Version(tag.removeprefix("v")), tag))
        except InvalidVersion:
            continue
    return tuple(tag for _, tag in sorted(found)) or ("v0.19.0", "v0.20.0-rc1", "v0.20.0")


TAGS = _archived_tags()
# `make chart-tests` / `make helm-test`: a project whose synced helm/ the chart tests also check, at
# the tag its lock records (CircleCI: the vendored pin, whatever it is)
CHART_PROJECT = os.environ.get("GSVENDOR_CHART_PROJECT")


def synced_tag(project: Path) -> str:
    """The tag ``project``'s helm/ was synced at (its gsvendor.lock.yaml); an error when not synced."""
    from ruamel.yaml import YAML

    lock = project / "gsvendor.lock.yaml"
    if not lock.is_file() or not (project / "helm").is_dir():
        raise RuntimeError(f"{project}: no gsvendor.lock.yaml; run make sync there first")
    return str(YAML(typ="safe").load(lock.read_text())["tag"])


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not CHART_PROJECT:
        return []
    project = Path(CHART_PROJECT).resolve()
    return [f"chart tests: {project}/helm synced at {synced_tag(project)}, and the fixed tags {' '.join(TAGS)}"]


# the suite's wall-time budget on the 2-core build machine, tools cached (make test)
SUITE_BUDGET_SECONDS = 15 * 60
_STARTED = time.monotonic()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name the vendored tag the chart tests ran on, even under -q (CI logs); the differential counts;
    the suite's wall time against its budget (a figure, never a failure: speed lives in benchmarks)."""
    _differential_summary(terminalreporter)
    wall = time.monotonic() - _STARTED
    workers = terminalreporter.config.getoption("numprocesses", None) or 1
    terminalreporter.write_line(
        f"suite: {wall:.0f} s wall with {workers} worker(s), {wall / SUITE_BUDGET_SECONDS:.2f}x of its "
        f"{SUITE_BUDGET_SECONDS // 60} min budget"
    )
    if not CHART_PROJECT:
        return
    project = Path(CHART_PROJECT).resolve()
    tag = synced_tag(project)
    counts = {
        outcome: sum(
            f"[vendored-{tag}" in r.nodeid for r in terminalreporter.stats.get(outcome, []) if r.when == "call"
        )
        for outcome in ("passed", "failed")
    }
    terminalreporter.write_line(
        f"chart tests on {project}/helm, synced at {tag}: {counts['passed']} passed, {counts['failed']} failed"
    )


if not UPSTREAM.is_dir():  # the suite is about real upstream data: missing data is an error, not a skip
    raise RuntimeError(f"upstream test data not found at {UPSTREAM} (expected ../shared/upstream beside the repo)")


def tarball(tag: str) -> Path:
    """The upstream archive of ``tag`` in ../shared/upstream."""
    return UPSTREAM / f"kserve-{tag}.tar.gz"


def archive_sha256(tag: str) -> str:
    """The sha256 of the archive of ``tag``, computed: CircleCI's tests job reads GitHub's full
    archives (make upstream-archives), whose bytes differ from the trimmed ones in ../shared/upstream."""
    return hashlib.sha256(tarball(tag).read_bytes()).hexdigest()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (relative path → bytes)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def documents(manifests: str) -> list[dict]:
    """The mapping documents of rendered manifests."""
    from gsvendor.yamlio import load_all_safe

    return [d for d in load_all_safe(manifests) if isinstance(d, dict)]


def upstream_files(tag: str, prefix: str = "") -> dict[str, bytes]:
    """The files of the upstream archive of ``tag`` below ``prefix`` (path relative to the top folder)."""
    out = {}
    with tarfile.open(tarball(tag)) as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            rel = member.name.split("/", 1)[1]
            if rel.startswith(prefix):
                out[rel[len(prefix) :]] = archive.extractfile(member).read()
    return out


@pytest.fixture(scope="session")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Extract an upstream archive once per test run; returns its top folder (an upstream checkout)."""
    cache: dict[str, Path] = {}

    def get(tag: str) -> Path:
        if tag not in cache:
            folder = tmp_path_factory.mktemp(f"upstream-{tag}")
            with tarfile.open(tarball(tag)) as archive:
                archive.extractall(folder, filter="data")
            cache[tag] = next(folder.iterdir())
        return cache[tag]

    return get


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh project: this repository's gsvendor.yaml and overlays/ in a temporary folder."""
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", folder / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", folder / "overlays")
    return folder


def default_signals() -> None:
    """``preexec_fn`` of a child the tests signal (or that signals itself): SIGINT, SIGHUP and
    SIGTERM back to their default actions. Under ``nohup`` or in a shell's background job the test
    process inherits some of them ignored, and an ignored signal stays ignored across exec (Python
    then installs no SIGINT handler either): the child would never see the signal the test sends."""
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


class Cli:
    """Runs ``python -m gsvendor`` in a real subprocess, as a user would (signals at their defaults)."""

    def __init__(self, cache: Path) -> None:
        from gsvendor.images.render import find_helm

        self.env = {**os.environ, "GSVENDOR_CACHE_DIR": str(cache), "NO_COLOR": "1", "COLUMNS": "200"}
        self.env["GSVENDOR_HELM"] = find_helm(project_root=ROOT)  # projects in tmp have no .tools/

    def __call__(self, cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gsvendor", *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            preexec_fn=default_signals,
        )


class _OwnServer(HTTPServer):
    """pytest-httpserver whose ``stop`` waits at most 50 ms for its serving loop (werkzeug polls every 0.5 s)."""

    def thread_target(self) -> None:
        assert self.server is not None
        self.server.serve_forever(poll_interval=0.05)


@pytest.fixture
def httpserver() -> Iterator[HTTPServer]:
    """A pytest-httpserver of this test alone, threaded, on 127.0.0.1 (named so in its URLs).

    pytest-httpserver's own fixture shares one single-threaded server between a worker's tests and
    clears its handlers only when the next test starts: a request a test abandoned was still answered
    while the next test ran (and now and then a fresh connection was closed unanswered under load).
    With "localhost" a client (curl, git, httpx) may try ::1 first, where another worker's server
    can hold the same port number."""
    server = _OwnServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The CLI with a per-test download cache."""
    return Cli(tmp_path / "cache")


@pytest.fixture(scope="session")
def helm() -> str:
    """The helm binary (hack/install-helm.sh puts a pinned one in .tools/bin)."""
    from gsvendor.images.render import find_helm

    return find_helm(project_root=ROOT)


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """The command failed with ``code``, printed no traceback, and its error names every needle."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


# the differential tallies of pytest-xdist's workers, sent at their end (pytest_sessionfinish) and
# summed by the controller (pytest_testnodedown): name → [compared, differences, both refused]
_WORKER_TALLIES: dict[str, list[Any]] = {}


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand this worker's differential tallies to the controller."""
    output = getattr(session.config, "workeroutput", None)
    tallies = getattr(sys.modules.get("diff_tools"), "TALLIES", None)
    if output is not None and tallies:
        output["differential"] = {
            name: [t.compared, list(t.differences), list(t.both_refused)] for name, t in tallies.items()
        }


def pytest_testnodedown(node: Any, error: Any) -> None:
    """In the xdist controller: sum what a finished worker compared."""
    for name, (compared, differences, refused) in getattr(node, "workeroutput", {}).get("differential", {}).items():
        total = _WORKER_TALLIES.setdefault(name, [0, [], []])
        total[0] += compared
        total[1] += differences
        total[2] += refused


def _differential_summary(terminalreporter: Any) -> None:
    """What the differential tests (tests/differential/) compared: identical, different, both refused (by input)."""
    tools = sys.modules.get("diff_tools")
    tallies = dict(getattr(tools, "TALLIES", None) or {})
    if _WORKER_TALLIES:
        sys.path.insert(0, str(ROOT / "tests" / "differential"))
        from diff_tools import Tally

        for name, (compared, differences, refused) in _WORKER_TALLIES.items():
            tallies.setdefault(name, Tally()).add(Tally(compared, differences, refused))
    if tallies:
        terminalreporter.section("differential tests")
        for name, tally in sorted(tallies.items()):
            first, *rest = tally.summary()
            terminalreporter.write_line(f"{name}: {first}")
            for line in rest:
                terminalreporter.write_line(line)


def tools_required() -> bool:
    """Whether a missing tool fails the tests that need it: under CI (``CI`` set and not ``false``/``0``)
    or with ``GSVENDOR_REQUIRE_TOOLS=1`` anywhere. Elsewhere such a test skips, saying which tool."""
    ci = os.environ.get("CI", "").strip().lower()
    return ci not in ("", "0", "false", "no") or os.environ.get("GSVENDOR_REQUIRE_TOOLS") == "1"


# Under CI the hypothesis tests draw the same examples every run (a failure reproduces and a run
# that passed once passes again); elsewhere each run draws new ones, which is how new differences
# against the real tools are found.
settings.register_profile("ci", derandomize=True, database=None)
if tools_required():
    settings.load_profile("ci")


def require_tool(name: str, found: str | Path | None, how: str) -> str:
    """``found`` (the tool ``name``'s path) when it is there; else the test fails under CI (see
    :func:`tools_required`) or skips elsewhere, naming ``name`` and ``how`` to install it.

    ``found`` ``None`` (or a path that does not exist) means missing. One rule for every test that
    runs a real tool, so that a CI log can never pass with the comparisons skipped.
    """
    if found is not None and Path(found).exists():
        return str(found)
    message = f"{name} is not installed ({how})"
    if tools_required():
        pytest.fail(f"{message}; CI requires it", pytrace=False)
    pytest.skip(message)


def tool_path(name: str) -> str | None:
    """``.tools/bin/NAME`` when it is there (where ``make tools`` installs), else NAME on PATH, else None."""
    local = ROOT / ".tools" / "bin" / name
    return str(local) if local.is_file() else shutil.which(name)
