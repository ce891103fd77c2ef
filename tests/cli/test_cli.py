"""Bad input: one clear line, the right exit code, no traceback, and nothing on disk changed."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error, tarball, tree
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response


@pytest.fixture
def synced(cli: Cli, project: Path) -> Path:
    """A project synced at v0.20.0, so that every failure below has a helm/ to leave alone."""
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 0, result.stderr
    return project


def fails_untouched(cli: Cli, project: Path, code: int, args: list[str], *needles: str) -> None:
    before = tree(project)
    result = cli(project, *args)
    assert_one_line_error(result, code, *needles)
    after = tree(project)
    assert after.keys() == before.keys() and after == before


def test_help_and_version_paths(cli: Cli, project: Path) -> None:
    top = cli(project, "--help")
    assert top.returncode == 0
    for command in ("sync", "verify", "diff"):
        assert command in top.stdout
    sync_help = cli(project, "sync", "--help")
    assert sync_help.returncode == 0 and "gsvendor sync v0.20.0 --source" in sync_help.stdout
    no_pin = cli(project, "sync")  # no TAG: the Dockerfile.llmisvc pin, which this project lacks
    assert_one_line_error(no_pin, 2, "Dockerfile.llmisvc: not found")
    usage = cli(project, "sync", "--frobnicate")
    assert usage.returncode == 2
    assert (
        usage.stderr == "error: No such option: --frobnicate (Possible options: --force) (see: gsvendor sync --help)\n"
    )
    out_of_range = cli(project, "sync", "v0.20.0", "--retries", "11")
    assert_one_line_error(out_of_range, 2, "Invalid value for '--retries'")
    assert len(out_of_range.stderr.splitlines()) == 1
    assert cli(project, "frobnicate").returncode == 2


def test_a_missing_value_or_a_flag_given_one_names_the_help_to_read(cli: Cli, project: Path) -> None:
    """Errors click's parser raises without a context end with the hint too (they ended without it)."""
    cases = {
        ("check-images", "--allow"): "Option '--allow' requires an argument. (see: gsvendor check-images --help)",
        ("check-images", "-q", "--allow"): "Option '--allow' requires an argument. (see: gsvendor check-images --help)",
        ("-c", "x.yaml", "diff", "--helm"): "Option '--helm' requires an argument. (see: gsvendor diff --help)",
        ("sync", "v0.20.0", "--source"): "Option '--source' requires an argument. (see: gsvendor sync --help)",
        ("verify", "--json=yes"): "Option '--json' does not take a value. (see: gsvendor verify --help)",
        ("versions", "--check=1"): "Option '--check' does not take a value. (see: gsvendor versions --help)",
        # the group's own options: its help lists them
        ("--config",): "Option '--config' requires an argument. (see: gsvendor --help)",
        ("--quiet=1", "verify"): "Option '--quiet' does not take a value. (see: gsvendor --help)",
    }
    for args, message in cases.items():
        result = cli(project, *args)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"error: {message}\n"), args


def test_unknown_tag_in_archive(cli: Cli, synced: Path) -> None:
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v9.9.9", "--source", str(tarball("v0.20.0"))],
        "archive holds kserve-0.20.0/, not upstream tag v9.9.9",
    )


def test_missing_and_corrupt_tarballs(cli: Cli, synced: Path, tmp_path: Path) -> None:
    fails_untouched(
        cli, synced, 2, ["sync", "v0.20.0", "--source", str(tmp_path / "nope.tar.gz")], "no such file or folder"
    )
    corrupt = tmp_path / "kserve-v0.20.0.tar.gz"
    corrupt.write_bytes(tarball("v0.20.0").read_bytes()[:20000])
    fails_untouched(cli, synced, 2, ["sync", "v0.20.0", "--source", str(corrupt)], str(corrupt))
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"\x1f\x8b not gzip")
    fails_untouched(cli, synced, 2, ["sync", "v0.20.0", "--source", str(garbage)], "not a readable tar.gz archive")


def test_tarball_member_escaping_with_dotdot(cli: Cli, synced: Path, tmp_path: Path) -> None:
    evil = tmp_path / "evil.tar.gz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("kserve-0.20.0/../../escape.txt")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    evil.write_bytes(buffer.getvalue())
    fails_untouched(cli, synced, 2, ["sync", "v0.20.0", "--source", str(evil)], "refusing member with '..'")
    assert not (tmp_path.parent / "escape.txt").exists()


def test_http_404_500_and_timeout(cli: Cli, synced: Path, httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/missing.tar.gz").respond_with_data("no", status=404)
    httpserver.expect_request("/broken.tar.gz").respond_with_data("oops", status=500)

    def slow(request: Request) -> Response:
        time.sleep(1.5)
        return Response("late")

    httpserver.expect_request("/slow.tar.gz").respond_with_handler(slow)
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--source", httpserver.url_for("/missing.tar.gz")],
        "HTTP 404",
        "unknown tag v0.20.0",
    )
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--retries", "1", "--source", httpserver.url_for("/broken.tar.gz")],
        "download failed after 2 attempts: HTTP 500",
    )
    assert sum(1 for request, _ in httpserver.log if request.path == "/broken.tar.gz") == 2
    # nothing listens: the one line suggests the offline way, a local archive with --source
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--retries", "0", "--source", f"http://127.0.0.1:{port}/kserve-v0.20.0.tar.gz"],
        "download failed after 1 attempt: ConnectError",
        "(no network here? give a local copy with --source FILE, or put <repo>-v0.20.0.tar.gz in ",
    )
    # the same for git: one line without git's "Cloning into '/tmp/…'" progress, and the hint
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--source", f"http://127.0.0.1:{port}/kserve.git"],
        "git clone failed: fatal: unable to access",
        "(no network here? read a local copy with --source)",
    )
    missing = cli(synced, "sync", "v0.20.0", "--source", (tmp_path / "no-repo").as_uri())
    assert_one_line_error(missing, 2, "git clone failed: fatal:")
    assert "Cloning into" not in missing.stderr and "no network" not in missing.stderr
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--retries", "0", "--timeout", "0.3", "--source", httpserver.url_for("/slow.tar.gz")],
        "timed out after 0.3 s",
    )
    # the server answers the abandoned request late: logged after this test, it was the next test's
    # (the server is shared) — so wait for it here
    deadline = time.monotonic() + 10
    while not any(request.path == "/slow.tar.gz" for request, _ in httpserver.log) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_host_name_that_does_not_resolve_is_not_asked_again(cli: Cli, synced: Path) -> None:
    """The resolver's "no such name" (EAI_NONAME) is final; its "try again" (EAI_AGAIN, a DNS
    server out of reach) is retried as any transport error. Which one this machine's resolver
    gives for a reserved name (RFC 6761 .invalid) decides the attempts expected."""
    try:
        socket.getaddrinfo("gsvendor-test.invalid", 443)
        pytest.skip("this machine's resolver answers for .invalid names")
    except socket.gaierror as exc:
        attempts = 1 if exc.errno == socket.EAI_NONAME else 3
    args = ["sync", "v0.20.0", "--retries", "2", "--source", "https://gsvendor-test.invalid/kserve.tar.gz"]
    fails_untouched(cli, synced, 2, args, f"download failed after {attempts} attempt", "ConnectError")


@pytest.mark.parametrize(
    ("config", "needles"),
    [
        ("upstream: {repository: kserve/kserve}\n", ["gsvendor.yaml: (top level): 'charts' is a required property"]),
        (
            "upstream: {repository: kserve}\ncharts: [a]\n",
            ["gsvendor.yaml:1: upstream.repository: 'kserve' does not match"],
        ),
        (
            "upstream: {repository: a/b}\ncharts:\n  - a\n  - 5\n",
            ["gsvendor.yaml:4: charts[1]: 5 is not of type 'string'"],
        ),
        ("upstream: {repository: a/b}\ncharts: [a]\noutput: ../x\n", ["output: '../x' must be a relative path"]),
        (
            "upstream: {repository: a/b}\ncharts: [a]\nfoo: 1\n",
            ["gsvendor.yaml:3: foo: unknown key 'foo' (known here: charts, dockerfiles, files, generate, images,"],
        ),
        (
            "upstream: {repository: a/b, tagpattern: x}\ncharts: [a]\nchrats: 1\n",
            [
                "gsvendor.yaml:1: upstream.tagpattern: unknown key 'tagpattern'; did you mean tagPattern?",
                "gsvendor.yaml:3: chrats: unknown key 'chrats'; did you mean charts? (known here: charts,",
            ],
        ),
        (
            "upstream: {repository: a/b}\ncharts:\n  - {nam: a}\n",
            ["gsvendor.yaml:3: charts[0].nam: unknown key 'nam'; did you mean name?"],
        ),
        ("upstream: [\n", ["gsvendor.yaml:2: invalid YAML"]),
        ("", ["gsvendor.yaml: the file is empty"]),
    ],
)
def test_malformed_configuration(cli: Cli, synced: Path, config: str, needles: list[str]) -> None:
    (synced / "gsvendor.yaml").write_text(config)
    fails_untouched(cli, synced, 2, ["sync", "v0.20.0", "--source", str(tarball("v0.20.0"))], *needles)


def test_missing_configuration(cli: Cli, tmp_path: Path) -> None:
    result = cli(tmp_path, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "gsvendor.yaml: not found")


def test_malformed_overlay(cli: Cli, synced: Path) -> None:
    (synced / "overlays" / "50-bad.yaml").write_text("operations:\n  - op: yaml-set\n    file: Chart.yaml\n")
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--source", str(tarball("v0.20.0"))],
        "overlays/50-bad.yaml:2: operations[0]: 'values' is a required property",
    )


def test_overlay_whose_anchor_is_gone(cli: Cli, synced: Path) -> None:
    (synced / "overlays" / "50-gone.yaml").write_text(
        "operations:\n  - op: replace\n    charts: [kserve-resources]\n    file: values.yaml\n"
        "    find: 'quay.io/gone'\n    with: x\n"
    )
    fails_untouched(
        cli,
        synced,
        1,
        ["sync", "v0.20.0", "--source", str(tarball("v0.20.0"))],
        "kserve-resources/values.yaml: overlay 50-gone operations[0] (replace): "
        "expected 1 match of 'quay.io/gone', found 0",
    )


def test_chart_missing_upstream(cli: Cli, synced: Path) -> None:
    config = (
        (synced / "gsvendor.yaml")
        .read_text()
        .replace("  - kserve-runtime-configs\n", "  - kserve-runtime-configs\n  - kserve-nope\n")
    )
    (synced / "gsvendor.yaml").write_text(config)
    fails_untouched(
        cli,
        synced,
        2,
        ["sync", "v0.20.0", "--source", str(tarball("v0.20.0"))],
        "has no charts/kserve-nope/ (chart kserve-nope)",
    )


def test_verify_and_diff_without_lock(cli: Cli, project: Path) -> None:
    for command in ("verify", "diff"):  # never synced: the first thing to say is "sync"
        assert_one_line_error(cli(project, command), 2, "helm/ does not exist: run gsvendor sync")
    for chart in ("kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources"):
        (project / "helm" / chart).mkdir(parents=True)
    assert_one_line_error(cli(project, "verify"), 2, "helm/kserve-runtime-configs/ does not exist: run gsvendor sync")
    (project / "helm" / "kserve-runtime-configs").mkdir()
    assert_one_line_error(cli(project, "verify"), 2, "gsvendor.lock.yaml: no lock file; run `gsvendor sync TAG` first")
    assert_one_line_error(cli(project, "diff"), 2, "no lock file")
    (project / "gsvendor.lock.yaml").symlink_to("gsvendor.lock.yaml")  # a link to itself is there, but no file
    assert_one_line_error(cli(project, "verify"), 2, "gsvendor.lock.yaml: not a regular file")


def test_malformed_lock(cli: Cli, synced: Path) -> None:
    (synced / "gsvendor.lock.yaml").write_text("kind: Lock\ntag: [\n")
    # the file and line, as for gsvendor.yaml; not the parser's text with its "<unicode string>" marks
    result = cli(synced, "verify")
    assert_one_line_error(result, 2, "gsvendor.lock.yaml:3: invalid YAML: expected the node content")
    assert "unicode string" not in result.stderr


def test_python_dash_m_entry_point(cli: Cli, project: Path) -> None:
    assert cli(project, "--help").returncode == 0


@pytest.mark.parametrize("command", ["check-images", "check-manifests", "patch-verify"])
def test_an_empty_junit_path_is_a_usage_error_before_any_work(cli: Cli, tmp_path: Path, command: str) -> None:
    """`--junit=` (an unset CI variable) read as the folder "." and failed after rendering with
    "--junit .: cannot write: Is a directory"."""
    for given in ("--junit=", "--junit=."):  # typer reads both as the folder "."
        result = cli(tmp_path, command, given)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == "error: --junit is empty or '.'; give a file, or leave it out for the default\n"


def test_json_output_of_an_error_is_its_data(cli: Cli, project: Path, tmp_path: Path) -> None:
    """Under --json an error is a JSON document on stdout as well as ``error:`` lines on stderr: its
    code, exit code, problems and the file it names, credentials redacted as on stderr."""
    (project / "gsvendor.yaml").write_text((project / "gsvendor.yaml").read_text() + "bogus: 1\n")
    result = cli(project, "verify", "--json")
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["error"]["code"] == "config" and data["error"]["exitCode"] == 2
    assert data["error"]["file"] == "gsvendor.yaml"
    assert any(p.startswith("gsvendor.yaml:") and "bogus: unknown key 'bogus'" in p for p in data["error"]["problems"])
    assert [f"error: {p}" for p in data["error"]["problems"]] == result.stderr.splitlines()

    (project / "gsvendor.yaml").write_text((project / "gsvendor.yaml").read_text().replace("bogus: 1\n", ""))
    source = "http://user:s3cr3t@127.0.0.1:9/kserve.tar.gz"
    result = cli(project, "sync", "v0.20.0", "--source", source, "--json", "--timeout", "2")
    assert result.returncode == 2, result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "source" and error["exitCode"] == 2
    assert "s3cr3t" not in result.stdout + result.stderr
    assert "127.0.0.1:9/kserve.tar.gz" in error["problems"][0]


def test_json_error_of_a_file_that_is_not_yaml_names_the_file(cli: Cli, synced: Path) -> None:
    """The error document's ``file`` was set only for schema errors: a configuration or a lock that
    is not YAML named its file in the problem text alone."""
    (synced / "gsvendor.lock.yaml").write_text("kind: Lock\ntag: [\n")
    error = json.loads(cli(synced, "verify", "--json").stdout)["error"]
    assert (error["code"], error["file"]) == ("lock", "gsvendor.lock.yaml")
    (synced / "gsvendor.yaml").write_text("upstream: [unclosed\n")
    error = json.loads(cli(synced, "verify", "--json").stdout)["error"]
    assert (error["code"], error["file"]) == ("config", "gsvendor.yaml")
    assert error["problems"] == ["gsvendor.yaml:2: invalid YAML: expected ',' or ']', but got '<stream end>'"]


def test_a_folder_where_a_file_belongs_is_one_error_line(cli: Cli, synced: Path) -> None:
    """A folder at the swap journal's place or at a README generate writes: one line naming it, exit 2,
    no traceback (Python refuses a folder as a file object; os.replace refuses it as a target)."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(synced)], check=True)
    (synced / ".git" / "gsvendor" / "journal.json").mkdir(parents=True)
    fails_untouched(cli, synced, 2, ["verify"], ".git/gsvendor/journal.json: swap journal not acted on: not a regular")
    (synced / ".git" / "gsvendor" / "journal.json").rmdir()
    readme = synced / "helm" / "kserve-crd" / "README.md"
    readme.unlink()
    readme.mkdir()
    result = cli(synced, "generate")
    assert_one_line_error(result, 2, f"{readme}: Is a directory")
    assert readme.is_dir() and not [p for p in readme.parent.iterdir() if p.name.startswith(".README.md")]


def test_a_relative_upstream_dir_is_the_project_roots_from_a_subfolder(cli: Cli, synced: Path, tmp_path: Path) -> None:
    """The README's ``export GSVENDOR_UPSTREAM_DIR=../shared/upstream`` holds from helm/kserve-crd too:
    the archive is read from there, offline, not looked for below the current folder."""
    import shutil

    archives = synced.parent / "archives"
    archives.mkdir()
    shutil.copy(tarball("v0.19.0"), archives / "kserve-v0.19.0.tar.gz")
    env = {**cli.env, "GSVENDOR_UPSTREAM_DIR": "../archives", "HTTPS_PROXY": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", "v0.19.0", "--dry-run", "--json"],
        cwd=synced / "helm" / "kserve-crd",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["source"]["location"] == str(archives / "kserve-v0.19.0.tar.gz")
