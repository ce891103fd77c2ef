"""The CLI for every day: CI-log widths, "run gsvendor sync", the root found from any folder,
--version, global options after the command, flags as flags, verify --source, --json everywhere."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, Cli, assert_one_line_error, tarball

from gsvendor import __version__

SYNC = ("sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
# every command on a synced tree (patch-verify: the archives hold no Go source, one error line)
COMMANDS = (
    SYNC,
    (*SYNC, "-v"),
    (*SYNC, "--json"),
    ("verify",),
    ("verify", "--json"),
    ("diff", "--stat"),
    ("diff", "--stat", "--json"),
    ("diff", "kserve-crd"),
    ("check-images",),
    ("check-images", "-v"),
    ("check-manifests",),
    ("versions", "--no-go"),
    ("versions", "--check", "--no-go"),
    ("versions", "--no-go", "--json"),
    ("generate",),
    ("generate", "--check"),
    ("generate", "--json"),
    ("patch-verify", "--source", str(tarball("v0.20.0"))),
)
READERS = ("verify", "diff", "check-images", "generate", "versions", "check-manifests")


def full_project(folder: Path) -> Path:
    """This repository's inputs (configuration, overlays, Dockerfiles, patches, check-images values)."""
    folder.mkdir()
    for name in ("gsvendor.yaml", "Dockerfile", "Dockerfile.llmisvc"):
        shutil.copy(ROOT / name, folder / name)
    for name in ("overlays", "patches", "hack/check-images"):
        shutil.copytree(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def synced_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full project synced at v0.20.0 (shared by the read-only tests of this module)."""
    project = full_project(tmp_path_factory.mktemp("everyday") / "project")
    result = Cli(project.parent / "cache")(project, *SYNC)
    assert result.returncode == 0, result.stderr
    return project


def run(cli: Cli, cwd: Path, *args: str, columns: str | None) -> subprocess.CompletedProcess[str]:
    """The CLI without a terminal (captured output), with ``COLUMNS`` set or unset."""
    env = {k: v for k, v in cli.env.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def patch_line(line: str) -> bool:
    """A line of a unified diff's body: upstream's own bytes, which no width applies to."""
    return line[:1] in (" ", "+", "-") or line.startswith("@@") or line == ""


@pytest.mark.parametrize(("columns", "limit"), [("80", 80), (None, 100)])
def test_every_command_fits_a_ci_log(cli: Cli, synced_tree: Path, columns: str | None, limit: int) -> None:
    for args in COMMANDS:
        result = run(cli, synced_tree, *args, columns=columns)
        assert result.returncode in ((2,) if args[0] == "patch-verify" else (0, 1)), (args, result.stderr)
        assert "Traceback" not in result.stderr
        # a diff's body and JSON are data for tools, not text to wrap
        body = args[0] == "diff" and "--stat" not in args
        lines = [
            line for line in result.stdout.splitlines() if not (body and patch_line(line)) and "--json" not in args
        ]
        # error lines stay one line each (grep, CI annotations); everything else fits the width, but for
        # the findings (diff --stat's files among them) that a CI log without $COLUMNS keeps whole
        lines += [line for line in result.stderr.splitlines() if not line.startswith("error: ")]
        finding = re.compile(r"^(file \S+, status \w+|\S+ \(\S+\): variant \S+)(, |$)")
        if columns is None:
            lines = [line for line in lines if not finding.match(line)]
        assert [line for line in lines if len(line) > limit] == [], args
        if columns is None and args == ("diff", "--stat"):  # each file one whole line, for grep
            rows = [line for line in result.stdout.splitlines() if line.startswith("file ")]
            assert rows and all(re.fullmatch(r"file helm/\S+, status \w+, \+ \d+, - \d+", row) for row in rows), rows
        assert [line for line in lines if line != line.rstrip()] == [], args
        assert [line for line in result.stdout.splitlines() if line != line.rstrip() and not body] == [], args
        if "--json" in args:  # every JSON document says whether the command succeeded, as its exit code does
            data = json.loads(result.stdout)
            assert (data["gsvendorVersion"], data["ok"]) == (__version__, result.returncode == 0), args


def test_success_is_one_summary_line_unless_verbose(cli: Cli, synced_tree: Path) -> None:
    summaries = {
        SYNC: f"up to date: nothing changed (v0.20.0 from tarball {tarball('v0.20.0')})",
        ("verify",): "ok: output is upstream v0.20.0 plus the declared overlays",
        ("versions", "--no-go"): None,  # a listing: the table is what it prints
        ("generate",): "ok: the generated files of 5 chart(s) are up to date",
    }
    for args, line in summaries.items():
        if line is None:
            continue
        result = run(cli, synced_tree, *args, columns="200")
        assert (result.returncode, result.stdout) == (0, line + "\n"), args
    images = run(cli, synced_tree, "check-images", columns="200")
    assert images.returncode == 0
    assert images.stdout.count("\n") == 1 and images.stdout.startswith("ok: checked 87 image reference(s)")
    verbose = run(cli, synced_tree, *SYNC, "-v", columns="200")
    assert verbose.stdout.splitlines()[1].split() == ["chart", "files", "+", "~", "-", "overlays"]
    assert verbose.stdout.splitlines()[3].split() == ["kserve-crd", "17", "0", "0", "0", "5"]


def test_check_images_summary_keeps_its_seconds_together(cli: Cli, synced_tree: Path) -> None:
    """The summary's "in 0.9 s:" falls at column ~100: at one of these widths a plain word wrap
    parts "0.9" from "s:" (whatever the seconds are); gsvendor breaks before the number."""
    for columns in range(99, 105):
        lines = run(cli, synced_tree, "check-images", columns=str(columns)).stdout.splitlines()
        assert lines[0].startswith("ok: checked 87 image reference(s) in 10 rendered variant(s)"), columns
        assert [line for line in lines if re.search(r"(^| )\d+\.\d s:", line)] != [], (columns, lines)
        assert [line for line in lines if line.startswith("s:")] == [], (columns, lines)
        assert max(map(len, lines)) <= columns


def test_tables_wrap_at_path_segments(cli: Cli, synced_tree: Path) -> None:
    table = run(cli, synced_tree, "diff", "--stat", columns="80").stdout.splitlines()
    assert table[0].split() == ["file", "status", "+", "-"]
    assert max(map(len, table)) <= 80
    # a long path continues on the next line after a "/", never inside a word, indented under its start
    at = table.index("  serving.kserve.io_clusterservingruntimes.yaml")
    assert table[at - 1].split() == ["helm/kserve-crd/templates/", "changed", "3", "0"]
    stat = json.loads(cli(synced_tree, "diff", "--stat", "--json").stdout)["stat"]
    added, removed = sum(s["added"] for s in stat), sum(s["removed"] for s in stat)
    assert table[-1] == f"{len(stat)} file(s) differ from upstream, +{added} -{removed} line(s)"
    # generate: README rows in values.yaml order, schemas in the tool's order, devctl's .schema.yaml;
    # and each chart's .helmignore and helm-unittest suites (15 files)
    assert len(stat) == 68 and removed == 539


@pytest.mark.parametrize("command", READERS)
def test_no_helm_says_run_sync(cli: Cli, project: Path, command: str) -> None:
    (project / "Dockerfile.llmisvc").write_text("ARG KSERVE_VERSION=v0.20.0\n")
    result = cli(project, command)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "error: helm/ does not exist: run gsvendor sync\n",
    )


def test_one_missing_chart_folder_after_a_sync(cli: Cli, synced_tree: Path, tmp_path: Path) -> None:
    project = tmp_path / "copy"
    shutil.copytree(synced_tree, project, symlinks=True)
    shutil.rmtree(project / "helm" / "kserve-crd")
    for command in (*READERS, "versions --check"):
        result = cli(project, *command.split())
        assert (result.returncode, result.stdout) == (2, ""), command
        assert result.stderr == "error: helm/kserve-crd/ does not exist: run gsvendor sync\n", command
    shutil.rmtree(project / "helm")
    result = cli(project, "versions", "--check")  # with a lock: was exit 0, silent
    assert (result.returncode, result.stderr) == (2, "error: helm/ does not exist: run gsvendor sync\n")


def test_a_misspelt_chart_name_is_suggested_where_its_folder_exists(
    cli: Cli, synced_tree: Path, tmp_path: Path
) -> None:
    project = tmp_path / "copy"
    shutil.copytree(synced_tree, project, symlinks=True)
    config = project / "gsvendor.yaml"
    config.write_text(config.read_text().replace("  - kserve-crd\n", "  - kserve-crdd\n", 1))
    result = cli(project, "verify")
    assert (result.returncode, result.stderr) == (
        2,
        "error: helm/kserve-crdd/ does not exist: run gsvendor sync (or is the chart name in gsvendor.yaml "
        "misspelt: helm/kserve-crd/ exists)\n",
    )
    # a configured chart's folder is no suggestion: kserve-llmisvc-crd/ is close to kserve-crd/
    config.write_text(config.read_text().replace("  - kserve-crdd\n", "  - kserve-crd\n", 1))
    shutil.rmtree(project / "helm" / "kserve-crd")
    result = cli(project, "verify")
    assert (result.returncode, result.stderr) == (2, "error: helm/kserve-crd/ does not exist: run gsvendor sync\n")


@pytest.mark.parametrize(
    ("odd", "shown"),
    [("\n", "\\x0a"), ("\x1c", "\\x1c"), ("\u2028", "\\u2028")],
    ids=["newline", "file-separator", "line-separator"],
)
def test_a_folder_whose_name_breaks_the_line_is_suggested_on_one_line(
    cli: Cli, synced_tree: Path, tmp_path: Path, odd: str, shown: str
) -> None:
    """A close folder name with a line break in it was quoted in the hint, and the error became
    two 'error:' lines, the second a fragment of the name: the writer shows the break escaped."""
    project = tmp_path / "copy"
    shutil.copytree(synced_tree, project, symlinks=True)
    config = project / "gsvendor.yaml"
    config.write_text(config.read_text().replace("  - kserve-crd\n", "  - kserve-crdd\n", 1))
    (project / "helm" / "kserve-crd").rename(project / "helm" / f"kserve-crd{odd}x")
    result = cli(project, "verify")
    expected = (
        "error: helm/kserve-crdd/ does not exist: run gsvendor sync "
        f"(or is the chart name in gsvendor.yaml misspelt: helm/kserve-crd{shown}x/ exists)\n"
    )
    assert (result.returncode, result.stderr) == (2, expected)


def _same(text: str) -> str:
    return re.sub(r"in \d+\.\d s", "in N s", text)


def test_every_command_from_a_chart_subfolder_behaves_as_from_the_root(cli: Cli, synced_tree: Path) -> None:
    deep = synced_tree / "helm" / "kserve-crd" / "templates"
    for args in (*COMMANDS, ("diff", "no-such-chart"), ("check-images", "--resolve-jobs", "0")):
        at_root, below = cli(synced_tree, *args), cli(deep, *args)
        assert at_root.returncode in (0, 1, 2)
        assert (below.returncode, _same(below.stdout), _same(below.stderr)) == (
            at_root.returncode,
            _same(at_root.stdout),
            _same(at_root.stderr),
        ), args
    unknown = cli(deep, "diff", "no-such-chart")
    assert unknown.stderr.startswith("error: gsvendor.yaml: charts: no chart named 'no-such-chart'")
    assert not unknown.stderr.rstrip().endswith("?")  # nothing close to suggest
    misspelt = cli(deep, "diff", "kserve-resourcez")
    assert misspelt.stderr.rstrip().endswith("; did you mean kserve-resources?")


def test_no_configuration_up_to_the_root(cli: Cli, tmp_path: Path) -> None:
    result = cli(tmp_path, "verify")
    assert result.returncode == 2
    assert result.stderr == (
        "error: gsvendor.yaml: not found in this folder or any parent (run gsvendor in a project, or give --config)\n"
    )


def test_config_option_overrides_the_search(cli: Cli, project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "gsvendor.yaml").write_text("upstream: {repository: kserve/kserve}\ncharts: [x]\n")
    result = cli(project, "generate", "--config", str(other / "gsvendor.yaml"))
    assert result.stderr == "error: helm/x/ does not exist: run gsvendor sync\n"


def test_version_global_options_after_the_command_and_flags(cli: Cli, synced_tree: Path) -> None:
    version = cli(synced_tree, "--version")
    assert (version.returncode, version.stdout) == (0, f"gsvendor {__version__}\n")
    for args in (("verify", "-q"), ("verify", "--config", "gsvendor.yaml", "-q"), ("verify", "--cache-dir=x")):
        result = cli(synced_tree, *args)
        assert (result.returncode, result.stdout) == (0, "ok: output is upstream v0.20.0 plus the declared overlays\n")
    helps = [cli(synced_tree, "--help").stdout] + [cli(synced_tree, c, "--help").stdout for c in (*READERS, "sync")]
    assert all("<bool>" not in text and "--no-force" not in text for text in helps)
    dry = cli(synced_tree, "sync", "--dry-run", "true")
    assert (dry.returncode, dry.stderr) == (
        2,
        "error: 'true' is not an upstream tag: the flags (--dry-run, --force, --json, -v) take no value\n",
    )
    flag_values = ((("sync", "v0.20.0", "--dry-run", "true"), "--dry-run"), (("verify", "--json", "yes"), "--json"))
    for args, flag in flag_values:
        given = cli(synced_tree, *args)
        assert (given.returncode, given.stdout) == (2, "")
        assert given.stderr == (
            f"error: Got unexpected extra argument(s) ({args[-1]}): {flag} is a flag and takes no value"
            f" (see: gsvendor {args[0]} --help)\n"
        )
    # an extra word after a positional argument gets no hint
    assert cli(synced_tree, "diff", "kserve-crd", "x").stderr == (
        "error: Got unexpected extra argument(s) (x) (see: gsvendor diff --help)\n"
    )


def test_help_wraps_sentences_at_80_columns(cli: Cli, synced_tree: Path) -> None:
    env = {**cli.env, "COLUMNS": "80"}
    text = subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", "--help"], cwd=synced_tree, env=env, capture_output=True, text=True
    ).stdout
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip().startswith("The new tree is built aside"))
    end = lines.index("", start)
    paragraph = lines[start:end]
    # the paragraph reflows as one: no line ends after a few words because the docstring broke there
    assert " ".join(line.strip() for line in paragraph) == (
        "The new tree is built aside and swapped in only when everything succeeded; a lock file records the "
        "source and the sha256 of every upstream and result file. Hand edits that the lock and the overlays "
        "do not explain stop the sync (exit 1) unless --force."
    )
    assert all(len(line) > 70 for line in paragraph[:-1]) and len(paragraph) == 4
    assert max(len(line) for line in text.splitlines()) <= 80
    assert [line for line in text.splitlines() if line != line.rstrip()] == []


def test_verify_source_elsewhere_and_a_portable_lock(cli: Cli, tmp_path: Path) -> None:
    project = full_project(tmp_path / "project")
    first = tmp_path / "downloads" / "kserve-v0.20.0.tar.gz"
    first.parent.mkdir()
    shutil.copy(tarball("v0.20.0"), first)
    assert cli(project, "sync", "v0.20.0", "--source", str(first)).returncode == 0
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert "  location: ../downloads/kserve-v0.20.0.tar.gz\n" in lock
    moved = tmp_path / "moved" / "kserve-v0.20.0.tar.gz"
    moved.parent.mkdir()
    first.rename(moved)
    gone = cli(project, "verify")
    assert gone.returncode == 2
    assert gone.stderr == (
        "error: gsvendor.lock.yaml: the locked source ../downloads/kserve-v0.20.0.tar.gz does not exist here; "
        "give the same upstream v0.20.0 with --source (its sha256 must be the lock's)\n"
    )
    elsewhere = cli(project, "verify", "--source", str(moved))
    assert (elsewhere.returncode, elsewhere.stdout) == (
        0,
        "ok: output is upstream v0.20.0 plus the declared overlays\n",
    )
    other = tmp_path / "other" / "kserve-v0.20.0.tar.gz"
    other.parent.mkdir()
    shutil.copy(tarball("v0.20.0-rc1"), other)
    wrong = cli(project, "verify", "--source", str(tarball("v0.20.0-rc1")))
    assert_one_line_error(wrong, 2, "v0.20.0")
    # diff rebuilds the same way: the same message, and the --source it suggests works there too
    assert cli(project, "diff", "--stat").stderr == gone.stderr
    stat = cli(project, "diff", "--stat", "--source", str(moved))
    assert stat.returncode == 0, stat.stderr
    assert stat.stdout.splitlines()[-1] == "68 file(s) differ from upstream, +3846 -539 line(s)"
    assert_one_line_error(cli(project, "diff", "--source", str(tarball("v0.20.0-rc1"))), 2, "v0.20.0")
    assert (project / "gsvendor.lock.yaml").read_text() == lock  # verify and diff write nothing


def test_git_file_source_is_recorded_relative_to_the_project(tmp_path: Path) -> None:
    from gsvendor.vendoring.lock import Lock, source_location

    root = tmp_path / "project"
    root.mkdir()
    checkout = tmp_path / "src" / "kserve"
    assert source_location("git", checkout.as_uri(), root) == "../src/kserve"
    assert (
        source_location("git", "https://github.com/kserve/kserve.git", root) == "https://github.com/kserve/kserve.git"
    )
    lock = Lock(tag="v0.20.0", kind="git", location="../src/kserve", sha256=None, commit=None)
    assert lock.source_for(root) == checkout.resolve().as_uri()
    assert (
        Lock(tag="v", kind="git", location="git@github.com:kserve/kserve.git", sha256=None, commit=None).source_for(
            root
        )
        == "git@github.com:kserve/kserve.git"
    )


def test_json_of_generate_and_diff_stat(cli: Cli, synced_tree: Path) -> None:
    generated = json.loads(cli(synced_tree, "generate", "--check", "--json").stdout)
    assert generated == {
        "gsvendorVersion": __version__,
        "check": True,
        "ok": True,
        "charts": [
            "kserve-crd",
            "kserve-llmisvc-crd",
            "kserve-resources",
            "kserve-llmisvc-resources",
            "kserve-runtime-configs",
        ],
        "stale": [],
    }
    stat = json.loads(cli(synced_tree, "diff", "--stat", "--json").stdout)
    assert stat["tag"] == "v0.20.0" and "files" not in stat
    assert stat["stat"][0] == {"path": "helm/kserve-crd/.helmignore", "status": "added", "added": 2, "removed": 0}
    assert {"path": "helm/kserve-crd/.schema.yaml", "status": "added", "added": 29, "removed": 0} in stat["stat"]


def test_global_options_first_moves_only_global_options() -> None:
    from gsvendor.cli.main import global_options_first

    assert global_options_first(["sync", "v1", "-q", "--config", "a.yaml"]) == [
        "-q",
        "--config",
        "a.yaml",
        "sync",
        "v1",
    ]
    assert global_options_first(["-c", "x.yaml", "verify", "--cache-dir=c"]) == [
        "-c",
        "x.yaml",
        "--cache-dir=c",
        "verify",
    ]
    assert global_options_first(["diff", "--", "-q"]) == ["diff", "--", "-q"]
    assert global_options_first(["--help"]) == ["--help"]


def printed(width: int, call: str, *args: object, **options: object) -> list[str]:
    """The lines ``Writer.<call>(*args, **options)`` prints at ``width`` columns (no terminal, no $COLUMNS)."""
    import io

    from gsvendor.report.layout import StrippedLines
    from gsvendor.report.writer import Writer

    buffer = io.StringIO()
    getattr(Writer(file=StrippedLines(buffer), width=width, highlight=False), call)(*args, **options)
    return buffer.getvalue().splitlines()


def test_tables_and_hanging_lines_wrap_at_boundaries_without_trailing_spaces() -> None:
    from gsvendor.report.writer import wrap_offsets

    # a path breaks after a "/"; a number and its unit stay together (they broke after "3.1" at widths 30-32)
    assert printed(30, "hanging", "", "helm/kserve-llmisvc-resources/values.yaml:2 agrees") == [
        "helm/kserve-llmisvc-resources/",
        "values.yaml:2 agrees",
    ]
    # a path that fits on a line goes there whole (copied in one piece), not broken after a "/"
    assert printed(40, "hanging", "", "wrote 3 files from tarball ../shared/upstream/kserve-x.tar.gz") == [
        "wrote 3 files from tarball",
        "../shared/upstream/kserve-x.tar.gz",
    ]
    for width in (29, 30, 31, 32):
        line = "resolved 5 reference(s) in 3.1 s: 2 ok"
        assert printed(width, "hanging", "", line) == ["resolved 5 reference(s) in", "3.1 s: 2 ok"]
    assert wrap_offsets("x" * 25, 10) == [10, 20]
    table = printed(24, "table", ("place", "n"), [("Dockerfile.llmisvc:8", 1)], title="Title long enough to wrap")
    assert table == [
        "Title long enough to",
        "wrap",
        "place                 n",
        "--------------------- -",
        "Dockerfile.llmisvc:8  1",
    ]
    # a cell wider than its column breaks after a "/" (the right-aligned number stays whole)
    assert printed(30, "table", ("place", "n"), [("helm/kserve-llmisvc-resources/values.yaml:2", 12)], right="n") == [
        "place                        n",
        "--------------------------- --",
        "helm/                       12",
        "kserve-llmisvc-resources/",
        "values.yaml:2",
    ]


def test_a_wrapped_list_hangs_under_its_first_item() -> None:
    items = "10-chart-metadata, 20-team-label, 40-release-namespace, 95-chart-tests"
    assert printed(60, "hanging", "  kserve-crd: overlays ", items) == [
        "  kserve-crd: overlays 10-chart-metadata, 20-team-label,",
        "                       40-release-namespace, 95-chart-tests",
    ]
    assert printed(200, "hanging", "  kserve-crd: overlays ", items) == [f"  kserve-crd: overlays {items}"]
    assert printed(40, "hanging", "  c: overlays ", "-") == ["  c: overlays -"]
    # a head that leaves no room for the longest item: the items continue indented by 4
    assert printed(40, "hanging", "  kserve-llmisvc-resources: overlays ", items) == [
        "  kserve-llmisvc-resources: overlays",
        "    10-chart-metadata, 20-team-label,",
        "    40-release-namespace, 95-chart-tests",
    ]
    # a count stays with its kind: not "ClusterRoleBinding" / "6, Certificate 4"
    assert printed(46, "hanging", "checked per kind: ", "Deployment 10, ClusterRoleBinding 6, Certificate 4") == [
        "checked per kind: Deployment 10,",
        "                  ClusterRoleBinding 6,",
        "                  Certificate 4",
    ]


def test_output_width_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    from gsvendor.report.layout import output_width

    monkeypatch.delenv("COLUMNS", raising=False)
    assert output_width(is_terminal=False) == 100
    monkeypatch.setenv("COLUMNS", "80")
    assert output_width(is_terminal=False) == 80
    monkeypatch.setenv("COLUMNS", "junk")
    assert output_width(is_terminal=False) == 100
    assert os.environ["COLUMNS"] == "junk"


def test_top_level_help_is_plain_and_whole_at_80_columns(cli: Cli, synced_tree: Path) -> None:
    """click's plain help (no box drawing for CI logs): each command's summary whole, examples as written."""
    env = {**cli.env, "COLUMNS": "80"}
    text = subprocess.run(
        [sys.executable, "-m", "gsvendor", "--help"], cwd=synced_tree, env=env, capture_output=True, text=True
    ).stdout
    lines = text.splitlines()
    commands = lines[lines.index("Commands:") + 1 : lines.index("  Examples:") - 1]
    assert [line.split()[0] for line in commands] == [
        "sync", "verify", "check-images", "check-manifests", "diff", "patch-verify", "versions", "generate", "adopt",
    ]  # fmt: skip
    assert not any(line.endswith("...") for line in commands)
    assert "  sync             Vendor upstream TAG's charts with the overlays applied." in commands
    assert lines[lines.index("  Examples:") + 2 : lines.index("  Examples:") + 4] == [
        "    gsvendor sync v0.20.0 --source ../shared/upstream/kserve-v0.20.0.tar.gz",
        "    gsvendor verify",
    ]
    assert "╭" not in text and "[bold]" not in text and max(map(len, lines)) <= 80


def test_every_command_help_fits_80_columns_with_examples_as_written(cli: Cli, synced_tree: Path) -> None:
    """Examples are printed as written (pasteable, not rewrapped), no rich escapes show, usage names arguments."""
    env = {**cli.env, "COLUMNS": "80"}
    texts = {}
    for command in (
        "sync",
        "verify",
        "check-images",
        "check-manifests",
        "diff",
        "patch-verify",
        "versions",
        "generate",
        "adopt",
    ):
        texts[command] = subprocess.run(
            [sys.executable, "-m", "gsvendor", command, "--help"],
            cwd=synced_tree,
            env=env,
            capture_output=True,
            text=True,
        ).stdout
    for command, text in texts.items():
        assert max(map(len, text.splitlines())) <= 80, command
        assert "\\[" not in text and "\b" not in text, command
        assert "<int" not in text and "<float" not in text, command  # every option names its value (N, SECONDS)
    assert "    gsvendor check-images --resolve --junit images.xml\n" in texts["check-images"]
    assert texts["check-images"].startswith("Usage: gsvendor check-images [OPTIONS] [CHART_DIR]...\n")
    assert texts["sync"].startswith("Usage: gsvendor sync [OPTIONS] [TAG]\n")
    assert texts["diff"].startswith("Usage: gsvendor diff [OPTIONS] [CHART]\n")
    assert "Parallel registry lookups [default: 8]." in texts["check-images"]
    assert texts["adopt"].startswith("Usage: gsvendor adopt [OPTIONS] [TAG] [CHART_DIR]...\n")
    assert "    gsvendor adopt --detect --source ../shared/upstream\n" in texts["adopt"]


VERSION_ROWS = [
    ("helm/kserve-crd/Chart.yaml:4", "appVersion"),
    ("helm/kserve-llmisvc-crd/Chart.yaml:4", "appVersion"),
    ("helm/kserve-resources/Chart.yaml:4", "appVersion"),
    ("helm/kserve-resources/values.yaml:2", "kserve.version"),
    ("helm/kserve-llmisvc-resources/Chart.yaml:4", "appVersion"),
    ("helm/kserve-llmisvc-resources/values.yaml:2", "kserve.version"),
    ("helm/kserve-runtime-configs/Chart.yaml:6", "appVersion"),
    ("helm/kserve-runtime-configs/values.yaml:2", "kserve.version"),
]


def test_versions_keeps_each_place_on_one_line_at_80_and_100(cli: Cli, synced_tree: Path) -> None:
    # the note gives way first: at 80 it leaves the table for a line below it, at 100 it wraps
    rows = [f"{place:<43}  {key:<18}  v0.20.0  agrees" for place, key in VERSION_ROWS]
    assert run(cli, synced_tree, "versions", "--no-go", columns="80").stdout.splitlines() == [
        "Upstream version: v0.20.0 (pinned by Dockerfile.llmisvc:8 ARG KSERVE_VERSION)",
        "place                                        key                 value    status",
        "-------------------------------------------- ------------------- -------- ------",
        "Dockerfile:7                                 ARG KSERVE_VERSION  v0.20.0  agrees",
        "Dockerfile.llmisvc:8                         ARG KSERVE_VERSION  v0.20.0  pin",
        *rows,
        "gsvendor.lock.yaml:4                         tag                 v0.20.0  agrees",
        "  Dockerfile.llmisvc:8: note: the source of truth (Renovate bumps it)",
        "ok: every place follows Dockerfile.llmisvc's v0.20.0",
    ]
    assert run(cli, synced_tree, "versions", "--no-go", columns="100").stdout.splitlines() == [
        "Upstream version: v0.20.0 (pinned by Dockerfile.llmisvc:8 ARG KSERVE_VERSION)",
        "place                                        key                 value    status  note",
        "-------------------------------------------- ------------------- -------- ------- ------------------",
        "Dockerfile:7                                 ARG KSERVE_VERSION  v0.20.0  agrees",
        "Dockerfile.llmisvc:8                         ARG KSERVE_VERSION  v0.20.0  pin     the source of",
        f"{' ' * 82}truth (Renovate",
        f"{' ' * 82}bumps it)",
        *rows,
        "gsvendor.lock.yaml:4                         tag                 v0.20.0  agrees",
        "ok: every place follows Dockerfile.llmisvc's v0.20.0",
    ]


@pytest.mark.parametrize("columns", ["80", "100"])
def test_versions_keeps_each_place_on_one_line_after_a_bump(cli: Cli, tmp_path: Path, columns: str) -> None:
    # the Renovate state (Dockerfiles at v0.20.0, helm/ at v0.19.0): "differs" is one column wider
    # than "agrees"; the key column gives way before a place is cut
    project = full_project(tmp_path / "project")
    synced = run(cli, project, "sync", "v0.19.0", "--source", str(tarball("v0.19.0")), columns=None)
    assert synced.returncode == 0, synced.stderr
    result = run(cli, project, "versions", "--no-go", columns=columns)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= int(columns)
    for place, key in VERSION_ROWS:
        assert any(line.startswith(f"{place}  ") and key in line and line.endswith("differs") for line in lines), place
    # each place once: its row; no note repeats the pin the title names, the error lines count the rows
    assert not any(" pins " in line for line in lines), lines
    assert result.stderr.splitlines()[0].endswith("not follow the pin v0.20.0: see status differs above")


def test_a_note_column_gives_way_first_then_moves_below_the_table() -> None:
    rows = [
        ("helm/kserve-llmisvc-resources/values.yaml:2", "agrees", ""),
        ("Dockerfile.llmisvc:8", "pin", "the source of truth (Renovate bumps it)"),
    ]
    columns = ("place", "status", "note")
    assert printed(70, "table", columns, rows, below=("note",)) == [
        "place                                        status  note",
        "-------------------------------------------- ------- -----------------",
        "helm/kserve-llmisvc-resources/values.yaml:2  agrees",
        "Dockerfile.llmisvc:8                         pin     the source of",
        "                                                     truth (Renovate",
        "                                                     bumps it)",
    ]
    assert printed(60, "table", columns, rows, below=("note",), keep=("place",)) == [
        "place                                        status",
        "-------------------------------------------- ------",
        "helm/kserve-llmisvc-resources/values.yaml:2  agrees",
        "Dockerfile.llmisvc:8                         pin",
        "  Dockerfile.llmisvc:8: note: the source of truth (Renovate",
        "                              bumps it)",
    ]
    # without ``below`` the widest columns narrow first (here the place and the note), a path after a "/"
    assert printed(60, "table", columns, rows)[2:] == [
        "helm/                      agrees",
        "kserve-llmisvc-resources/",
        "values.yaml:2",
        "Dockerfile.llmisvc:8       pin     the source of truth",
        "                                   (Renovate bumps it)",
    ]


def test_a_head_stays_with_its_text_and_continues_under_it() -> None:
    path = "helm/kserve-llmisvc-crd/templates/serving.kserve.io_llminferenceserviceconfigs.yaml"
    assert printed(100, "hanging", "  + ", path) == [f"  + {path}"]
    assert printed(80, "hanging", "  + ", path) == [
        "  + helm/kserve-llmisvc-crd/templates/",
        "    serving.kserve.io_llminferenceserviceconfigs.yaml",
    ]
    skipped = "40-release-namespace operations[2] (replace) (versions >0.20.0)"
    assert printed(80, "hanging", "  kserve-crd: skipped ", skipped) == [
        "  kserve-crd: skipped 40-release-namespace operations[2] (replace) (versions",
        "                      >0.20.0)",
    ]


@pytest.mark.parametrize("columns", ["80", "100"])
def test_the_plan_keeps_each_marker_with_its_path(cli: Cli, tmp_path: Path, columns: str) -> None:
    project = full_project(tmp_path / "project")
    plan = run(cli, project, *SYNC, "--dry-run", columns=columns).stdout.splitlines()
    assert plan[-1] == "dry run: 114 file change(s) planned, nothing written"
    crd = "helm/kserve-llmisvc-crd/templates/"
    names = ("serving.kserve.io_clusterstoragecontainers.yaml", "serving.kserve.io_llminferenceserviceconfigs.yaml")
    at = plan.index(f"  + {crd}_helpers.tpl")
    if columns == "100":
        assert plan[at + 1 : at + 3] == [f"  + {crd}{name}" for name in names]
        assert "  kserve-crd: skipped 40-release-namespace operations[2] (replace) (versions >0.20.0)" in plan
    else:
        assert plan[at + 1 : at + 5] == [f"  + {crd}", f"    {names[0]}", f"  + {crd}", f"    {names[1]}"]
        at = plan.index("  kserve-crd: skipped 40-release-namespace operations[2] (replace) (versions")
        assert plan[at + 1] == f"{' ' * 22}>0.20.0)"
    assert [line for line in plan if line.strip() in ("+", "~", "-") or len(line) > int(columns)] == []


def test_the_summary_names_the_lock_file_only_when_it_was_written(cli: Cli, synced_tree: Path, tmp_path: Path) -> None:
    project = tmp_path / "copy"
    shutil.copytree(synced_tree, project, symlinks=True)
    origin = f"v0.20.0 from tarball {tarball('v0.20.0')}"
    (project / "helm" / "kserve-crd" / "README.md").unlink()  # a chart file restored, the lock as it was
    result = cli(project, *SYNC)
    assert (result.returncode, result.stdout) == (0, f"wrote 1 file change(s): {origin}\n"), result.stderr
    (project / "gsvendor.lock.yaml").unlink()  # the lock written, every chart file as it was
    result = cli(project, *SYNC)
    assert (result.returncode, result.stdout) == (0, f"wrote the lock file, no chart file changed: {origin}\n")
    assert (project / "gsvendor.lock.yaml").read_bytes() == (synced_tree / "gsvendor.lock.yaml").read_bytes()


@pytest.mark.parametrize("size", ["²", "٨٠", "0", "-1", "abc", ""])
def test_a_columns_or_lines_no_number_reads_is_as_if_unset(cli: Cli, synced_tree: Path, size: str) -> None:
    """``COLUMNS=²`` (or ``LINES=²``): rich took it for digits (``str.isdigit``) and ``int`` refused it,
    a ValueError traceback from every command and from --help. Any value but a positive whole number
    in ASCII digits is ignored: the output is the one without it."""
    env = {k: v for k, v in cli.env.items() if k not in ("COLUMNS", "LINES")}

    def run_with(extra: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gsvendor", *args],
            cwd=synced_tree,
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=False,
        )

    for args in (("versions", "--no-go"), ("--help",)):
        unset = run_with({}, *args)
        assert unset.returncode == 0, unset.stderr
        for extra in ({"COLUMNS": size}, {"LINES": size}, {"COLUMNS": size, "LINES": size}):
            result = run_with(extra, *args)
            assert (result.returncode, result.stdout, result.stderr) == (0, unset.stdout, unset.stderr), extra


@pytest.mark.parametrize("findings", [False, True])
def test_a_tab_in_a_table_cell_is_shown_escaped(findings: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich expanded a tab in a cell to spaces: an image 'agent<TAB>x' read as 'agent    x'."""
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = printed(100, "table", ["chart", "image"], [["c", "registry/agent\tx:1"]], findings=findings)
    if findings:  # without a terminal and $COLUMNS: one line a row, however long
        expected = ["chart c, image registry/agent\\tx:1"]
    else:
        expected = ["chart  image", "------ -------------------", "c      registry/agent\\tx:1"]
    assert lines == expected


def test_a_dotted_field_path_breaks_after_a_dot_never_mid_word() -> None:
    # "spec.template.spec.container" / "s[manager].image" was cut mid-word; a path that must break starts a
    # line ("values.yaml:61 kserve." left a piece of the key beside the file)
    assert printed(30, "hanging", "", "values.yaml:61 kserve.servingruntime.art.image") == [
        "values.yaml:61",
        "kserve.servingruntime.art.",
        "image",
    ]
    found = "Deployment/\nkserve-controller-manager\nspec.template.spec.containers[kube-rbac-proxy].image"
    rows = [("defaults", found, "gsoci.azurecr.io/giantswarm/kube-rbac-proxy:v0.18.0", "allowed")]
    assert printed(80, "table", ("variant", "found in", "as written", "status"), rows) == [
        "variant   found in                              as written               status",
        "--------- ------------------------------------- ------------------------ -------",
        "defaults  Deployment/                           gsoci.azurecr.io/        allowed",
        "          kserve-controller-manager             giantswarm/",
        "          spec.template.spec.                   kube-rbac-proxy:v0.18.0",
        "          containers[kube-rbac-proxy].image",
    ]


def test_check_images_breaks_a_field_path_after_a_dot(cli: Cli, synced_tree: Path) -> None:
    lines = run(cli, synced_tree, "check-images", "-v", "helm/kserve-resources", columns="80").stdout.splitlines()
    at = lines.index("switches-on  kserve-controller-manager     kserve-controller:v0.20.0")
    assert lines[at - 1 : at + 3] == [
        "defaults,    Deployment/                   gsoci.azurecr.io/giantswarm/  allowed",
        "switches-on  kserve-controller-manager     kserve-controller:v0.20.0",
        "             spec.template.spec.",
        "             containers[manager].image",
    ]
    at = lines.index("values.yaml  values.yaml:61                gsoci.azurecr.io/giantswarm/  allowed")
    assert lines[at : at + 3] == [
        "values.yaml  values.yaml:61                gsoci.azurecr.io/giantswarm/  allowed",
        "             kserve.servingruntime.art.    art-explainer",
        "             image",
    ]


def test_diff_stat_continues_a_long_file_name_under_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the rest of a name that wraps started at column 0 and read as another file
    import io

    from gsvendor.report.console import print_diff_stat
    from gsvendor.report.layout import StrippedLines
    from gsvendor.report.writer import Writer
    from gsvendor.vendoring.compare import FileDiff

    diff = "--- a\n+++ b\n@@ -1 +1,2 @@\n-x\n+y\n+z\n"
    diffs = [
        FileDiff("helm/kserve-crd/Chart.yaml", "changed", diff),
        FileDiff("helm/kserve-crd/templates/serving.kserve.io_clusterservingruntimes.yaml", "changed", diff),
        FileDiff("helm/kserve-llmisvc-crd/templates/serving.kserve.io_llminferenceserviceconfigs.yaml", "added", diff),
    ]
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's width: a table (without it a CI log's line per file)
    buffer = io.StringIO()
    print_diff_stat(Writer(file=StrippedLines(buffer), width=80, highlight=False), diffs)
    assert buffer.getvalue().splitlines() == [
        "file                                                               status   +  -",
        "------------------------------------------------------------------ -------- -- -",
        "helm/kserve-crd/Chart.yaml                                         changed  2  1",
        "helm/kserve-crd/templates/                                         changed  2  1",
        "  serving.kserve.io_clusterservingruntimes.yaml",
        "helm/kserve-llmisvc-crd/templates/                                 added    2  1",
        "  serving.kserve.io_llminferenceserviceconfigs.yaml",
        "3 file(s) differ from upstream, +6 -3 line(s)",
    ]


@pytest.mark.parametrize("command", ["check-manifests", "check-images"])
def test_a_missing_chart_folder_says_what_to_give(cli: Cli, synced_tree: Path, command: str) -> None:
    # "nope: no such chart folder" said nothing of what the command takes
    charts = [c for c in sorted((synced_tree / "helm").iterdir()) if (c / "Chart.yaml").is_file()]
    result = run(cli, synced_tree, command, "nope", columns="80")
    assert (result.returncode, result.stdout) == (2, "")
    from ruamel.yaml import YAML

    entry = YAML(typ="safe").load((synced_tree / "gsvendor.yaml").read_text())["charts"][0]
    first = entry if isinstance(entry, str) else entry["name"]
    assert first in [c.name for c in charts]
    assert result.stderr.splitlines() == [f"error: nope: no such chart folder; give one under helm/, e.g. helm/{first}"]
    result = run(cli, synced_tree / "helm", command, "nope", columns="80")
    assert result.stderr.splitlines() == [f"error: nope: no such chart folder; give one here, e.g. {first}"]


def test_versions_names_a_wrong_pin_once_and_fits_the_go_reason_at_80(
    cli: Cli, synced_tree: Path, tmp_path: Path
) -> None:
    # a wrong pin was said three times (its row, "note: Dockerfile.llmisvc:8 pins …", an error line naming
    # it); the Go table's reason column wrapped over three lines at 80
    project = tmp_path / "copy"
    shutil.copytree(synced_tree, project, symlinks=True)
    dockerfile = (project / "Dockerfile").read_text()
    pin = re.search(r"^ARG KSERVE_VERSION=(\S+)$", (project / "Dockerfile.llmisvc").read_text(), re.M)
    assert pin is not None
    (project / "Dockerfile").write_text(dockerfile.replace(f"ARG KSERVE_VERSION={pin[1]}", "ARG KSERVE_VERSION=v0.0.1"))
    result = run(cli, project, "versions", columns="80")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"error: 1 place does not follow the pin {pin[1]}: see status differs above"]
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("Dockerfile:7 ")] == [
        "Dockerfile:7                                 ARG                v0.0.1   differs"
    ]
    assert [line for line in lines if "note:" in line] == [
        "  Dockerfile.llmisvc:8: note: the source of truth (Renovate bumps it)"
    ]
    go = {m[1] for m in re.finditer(r"^FROM .*golang:(\S+) AS builder$", dockerfile, re.M)}.pop()
    at = lines.index("place                  stage    image          verdict")
    assert lines[at : at + 4] == [
        "place                  stage    image          verdict",
        "---------------------- -------- -------------- -----------------------------",
        f"Dockerfile:12          builder  golang:{go}  ok: matches upstream's {go}",
        f"Dockerfile.llmisvc:13  builder  golang:{go}  ok: matches upstream's {go}",
    ]


def test_diff_stat_escapes_a_line_feed_in_a_file_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # a file named "nl\nname" printed "name" at column 0 on a line of its own, read as another file
    import io

    from gsvendor.report.console import print_diff_stat
    from gsvendor.report.layout import StrippedLines
    from gsvendor.report.writer import Writer
    from gsvendor.vendoring.compare import FileDiff

    diffs = [FileDiff("helm/kserve-crd/nl\nname", "added", "--- a\n+++ b\n@@ -0,0 +1 @@\n+z\n")]
    expected = {
        "80": [  # a terminal's table
            "file                        status  +  -",
            "--------------------------- ------- -- -",
            "helm/kserve-crd/nl\\x0aname  added   1  0",
        ],
        None: ["file helm/kserve-crd/nl\\x0aname, status added, + 1, - 0"],  # a CI log's line per file
    }
    for columns, rows in expected.items():
        if columns:
            monkeypatch.setenv("COLUMNS", columns)
        else:
            monkeypatch.delenv("COLUMNS", raising=False)
        buffer = io.StringIO()
        print_diff_stat(Writer(file=StrippedLines(buffer), width=80, highlight=False), diffs)
        assert buffer.getvalue().splitlines() == [*rows, "1 file(s) differ from upstream, +1 -0 line(s)"]


def test_a_dotted_path_after_a_folded_folder_leaves_no_empty_line() -> None:
    # "abcde/" folded at 5 then "fghij.klmno.pq" started a line: a second break at 6 was an empty line
    from gsvendor.report.writer import wrap_offsets

    assert wrap_offsets("abcde/fghij.klmno.pq", 5) == [5, 6, 11, 12, 17]
    assert printed(5, "hanging", "", "abcde/fghij.klmno.pq") == ["abcde", "/", "fghij", ".", "klmno", ".pq"]
