"""``gsvendor versions`` and the TAG-less ``sync``: every place the upstream version is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gitkit import Upstream, git, git_env, make_project, run_gsvendor, run_json

from gsvendor.controller_images.versions import GO_WARN, GoMod, image_go_version, judge_go, parse_go_version
from gsvendor.upstream.source import go_directives


def chart_files(version: str) -> dict[str, str | None]:
    return {
        "charts/kserve-resources/Chart.yaml": f"apiVersion: v2\nname: kserve-resources\nversion: {version}\n"
        f"appVersion: {version}\n",
        "charts/kserve-resources/values.yaml": f"kserve:\n  version: {version}\n  controller:\n    replicas: 1\n",
        "charts/kserve-crd/Chart.yaml": f"apiVersion: v2\nname: kserve-crd\nversion: {version}\n"
        f"appVersion: {version}\n",
        "charts/kserve-crd/values.yaml": "crd:\n  keep: true\n",
    }


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    """Upstream v1.0.0 (go 1.25.8) and v1.1.0 (go 1.25.0 with toolchain go1.25.9)."""
    repo = Upstream(tmp_path / "upstream", {**chart_files("v1.0.0"), "go.mod": "module x\n\ngo 1.25.8\n"})
    git(repo.path, "tag", "v1.0.0")
    repo.commit({**chart_files("v1.1.0"), "go.mod": "module x\n\ngo 1.25.0\n\ntoolchain go1.25.9\n"}, "bump", "v1.1.0")
    return repo


@pytest.fixture
def tarball(upstream: Upstream, tmp_path: Path) -> Path:
    return upstream.archive("v1.0.0", tmp_path)


@pytest.fixture
def synced(tmp_path: Path, tarball: Path) -> Path:
    """A project pinned to v1.0.0 and synced with `gsvendor sync` without a TAG."""
    project = make_project(tmp_path / "project", charts=("kserve-crd", "kserve-resources"))
    result = run_gsvendor(project, "sync", "--source", str(tarball))
    assert result.returncode == 0, result.stderr
    return project


def vendored(project: Path, version: str, charts: tuple[str, ...] = ("kserve-resources",)) -> Path:
    """Chart folders as a sync of ``version`` leaves them (without a lock): what versions reads."""
    for name in charts:
        folder = project / "helm" / name
        folder.mkdir(parents=True)
        (folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\nappVersion: {version}\n")
        (folder / "values.yaml").write_text(f"kserve:\n  version: {version}\n")
    return project


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_sync_without_tag_syncs_the_pin(synced: Path) -> None:
    lock = (synced / "gsvendor.lock.yaml").read_text()
    assert "tag: v1.0.0" in lock
    assert "appVersion: v1.0.0" in (synced / "helm/kserve-resources/Chart.yaml").read_text()


def test_sync_without_tag_or_pin_dockerfile_exits_2(tmp_path: Path, tarball: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "Dockerfile.llmisvc").unlink()
    result = run_gsvendor(project, "sync", "--source", str(tarball))
    assert result.returncode == 2
    assert "Dockerfile.llmisvc: not found" in result.stderr
    assert "Traceback" not in result.stderr
    (project / "Dockerfile.llmisvc").mkdir()  # there, but no file: not "not found"
    result = run_gsvendor(project, "sync", "--source", str(tarball))
    assert (result.returncode, result.stderr) == (2, "error: Dockerfile.llmisvc: not a regular file\n")


def test_sync_without_tag_and_a_pin_without_default_exits_2(tmp_path: Path, tarball: Path) -> None:
    project = make_project(tmp_path / "p")
    edit(project / "Dockerfile.llmisvc", "ARG KSERVE_VERSION=v1.0.0", "ARG KSERVE_VERSION")
    result = run_gsvendor(project, "sync", "--source", str(tarball))
    assert result.returncode == 2
    assert "Dockerfile.llmisvc: no ARG KSERVE_VERSION=<tag>" in result.stderr


def test_a_pin_without_its_v_names_the_dockerfile_line_not_the_argument(tmp_path: Path, tarball: Path) -> None:
    # `gsvendor sync` (no TAG) after a pin of 0.20.0 said "'1.0.0' is not a release tag …; did you mean
    # v1.0.0?" without naming where the tag came from: the user gave none
    project = make_project(tmp_path / "p")
    edit(project / "Dockerfile.llmisvc", "ARG KSERVE_VERSION=v1.0.0", "ARG KSERVE_VERSION=1.0.0")
    for args in (("sync", "--source", str(tarball)), ("patch-verify", "--source", str(tarball))):
        result = run_gsvendor(project, *args)
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert result.stderr.startswith("error: Dockerfile.llmisvc:3: ARG KSERVE_VERSION=1.0.0: '1.0.0' is not a ")
        assert result.stderr.endswith("did you mean v1.0.0?\n") and result.stderr.count("\n") == 1
    assert not (project / "helm").exists()


def test_a_missing_pin_dockerfile_suggests_what_each_command_takes(synced: Path, tarball: Path) -> None:
    # `gsvendor versions` said "(give the tag explicitly, …)": versions takes no tag
    project = synced
    (project / "Dockerfile.llmisvc").unlink()
    hints = {
        ("sync", "--source", str(tarball)): "give the tag (gsvendor sync TAG)",
        ("patch-verify", "--source", str(tarball)): "give the tag (--tag TAG)",
        ("versions",): None,
    }
    for args, hint in hints.items():
        result = run_gsvendor(project, *args)
        assert result.returncode == 2 and "Dockerfile.llmisvc: not found" in result.stderr, result.stderr
        assert "give the tag explicitly" not in result.stderr
        assert (hint in result.stderr) if hint else ("give the tag" not in result.stderr), result.stderr
        # the remedy ends the line, no parenthesis inside another: "(give the tag (--tag TAG), or …)"
        assert result.stderr.endswith(
            "pins the upstream version: " + (f"{hint} or " if hint else "") + "set pinDockerfile in gsvendor.yaml\n"
        ), result.stderr


def test_all_places_agree(synced: Path) -> None:
    # no --source: go.mod comes from the lock's source, since the lock is at the pinned tag
    code, data, stderr = run_json(synced, "versions")
    assert code == 0, stderr
    assert data["ok"] is True and data["problems"] == []
    assert data["pin"] == {"file": "Dockerfile.llmisvc", "line": 3, "value": "v1.0.0"}
    rows = [(p["file"], p["line"], p["key"], p["value"], p["status"]) for p in data["places"]]
    assert rows == [
        ("Dockerfile", 3, "ARG KSERVE_VERSION", "v1.0.0", "agrees"),
        ("Dockerfile.llmisvc", 3, "ARG KSERVE_VERSION", "v1.0.0", "pin"),
        ("helm/kserve-crd/Chart.yaml", 4, "appVersion", "v1.0.0", "agrees"),
        ("helm/kserve-resources/Chart.yaml", 4, "appVersion", "v1.0.0", "agrees"),
        ("helm/kserve-resources/values.yaml", 2, "kserve.version", "v1.0.0", "agrees"),
        ("gsvendor.lock.yaml", 4, "tag", "v1.0.0", "agrees"),
    ]
    assert data["go"]["source"].endswith("kserve-v1.0.0.tar.gz")
    assert data["go"]["goMod"] == {"go": "1.25.8", "toolchain": None}
    assert [(b["file"], b["line"], b["stage"], b["status"]) for b in data["go"]["builders"]] == [
        ("Dockerfile", 5, "builder", "ok"),
        ("Dockerfile.llmisvc", 5, "builder", "ok"),
    ]


def test_the_tables_for_people(synced: Path) -> None:
    result = run_gsvendor(synced, "versions")
    assert result.returncode == 0, result.stderr
    assert "pinned by Dockerfile.llmisvc:3" in result.stdout
    assert "helm/kserve-resources/values.yaml:2" in result.stdout
    assert "Go builders vs upstream go.mod (go 1.25.8, toolchain -)" in result.stdout
    assert "ok: every place follows Dockerfile.llmisvc's v1.0.0" in result.stdout


def test_check_says_in_one_line_that_all_agree(synced: Path) -> None:
    # Dockerfile, Dockerfile.llmisvc (the pin), two Chart.yaml, one values.yaml, the lock
    result = run_gsvendor(synced, "versions", "--check")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "ok: every version pin agrees (6 pins in 6 files)\n",
        "",
    )
    # --json is unchanged: the document alone
    code, data, stderr = run_json(synced, "versions", "--check")
    assert (code, stderr, data["ok"], data["problems"]) == (0, "", True, [])
    # without a lock the lock's row is "not synced": not a pin, not a failure
    (synced / "gsvendor.lock.yaml").unlink()
    unlocked = run_gsvendor(synced, "versions", "--check", "--no-go")
    assert (unlocked.returncode, unlocked.stdout, unlocked.stderr) == (
        0,
        "ok: every version pin agrees (5 pins in 5 files)\n",
        "",
    )
    # what could not be checked is said in the same line (it was "ok" alone)
    unchecked = run_gsvendor(synced, "versions", "--check")
    assert (unchecked.returncode, unchecked.stderr) == (0, "")
    assert " ".join(unchecked.stdout.split()) == (
        "ok: every version pin agrees (5 pins in 5 files); Go builders not checked: not synced yet "
        "(run gsvendor sync, or give --source)"
    )


@pytest.mark.parametrize(
    ("path", "old", "new", "problem"),
    [
        (
            "Dockerfile",
            "ARG KSERVE_VERSION=v1.0.0",
            "ARG KSERVE_VERSION=v0.9.0",
            "Dockerfile:3: ARG KSERVE_VERSION is v0.9.0, but Dockerfile.llmisvc:3 pins v1.0.0",
        ),
        (
            "helm/kserve-crd/Chart.yaml",
            "appVersion: v1.0.0",
            "appVersion: v0.9.0",
            "helm/kserve-crd/Chart.yaml:4: appVersion is v0.9.0, but Dockerfile.llmisvc:3 pins v1.0.0",
        ),
        (
            "helm/kserve-resources/values.yaml",
            "version: v1.0.0",
            "version: v1.0.0-rc1",
            "helm/kserve-resources/values.yaml:2: kserve.version is v1.0.0-rc1, but Dockerfile.llmisvc:3 pins v1.0.0",
        ),
        (
            "gsvendor.lock.yaml",
            "tag: v1.0.0",
            "tag: v0.9.0",
            "gsvendor.lock.yaml:4: tag is v0.9.0, but Dockerfile.llmisvc:3 pins v1.0.0",
        ),
    ],
    ids=["dockerfile", "chart-appversion", "values-kserve-version", "lock"],
)
def test_each_place_that_disagrees_is_named(
    synced: Path, tarball: Path, path: str, old: str, new: str, problem: str
) -> None:
    edit(synced / path, old, new)
    # a lock that is not at the pin also names the remedy
    remedy = ["helm/ and the lock are at v0.9.0, Dockerfile.llmisvc pins v1.0.0: run gsvendor sync"] * (
        path == "gsvendor.lock.yaml"
    )
    result = run_gsvendor(synced, "versions", "--source", str(tarball))
    assert result.returncode == 1
    # the tables name the place once, in its row; the error line counts the rows
    counted = "1 place does not follow the pin v1.0.0: see status differs above"
    assert result.stderr.splitlines() == [f"error: {line}" for line in [counted, *remedy]]
    place = problem.split(": ", 1)[0]
    assert [line.split()[-1] for line in result.stdout.splitlines() if line.startswith(f"{place} ")] == ["differs"]
    assert not any(" pins " in line for line in result.stdout.splitlines())
    code, data, _ = run_json(synced, "versions", "--source", str(tarball))
    assert code == 1
    assert data["problems"] == [problem, *remedy]
    differs = [p for p in data["places"] if p["status"] == "differs"]
    assert [(p["file"], p["status"]) for p in differs] == [(path, "differs")]
    check = run_gsvendor(synced, "versions", "--check", "--source", str(tarball))
    assert (check.returncode, check.stdout) == (1, "")
    assert problem in check.stderr


def test_a_renovate_bump_names_every_place_left_behind(synced: Path) -> None:
    edit(synced / "Dockerfile.llmisvc", "ARG KSERVE_VERSION=v1.0.0", "ARG KSERVE_VERSION=v1.1.0")
    result = run_gsvendor(synced, "versions", "--check", "--no-go")
    assert result.returncode == 1
    *places, remedy = result.stderr.splitlines()
    named = [line.split(":", 2)[1] for line in places]
    assert named == [
        " Dockerfile",
        " helm/kserve-crd/Chart.yaml",
        " helm/kserve-resources/Chart.yaml",
        " helm/kserve-resources/values.yaml",
        " gsvendor.lock.yaml",
    ]
    assert remedy == "error: helm/ and the lock are at v1.0.0, Dockerfile.llmisvc pins v1.1.0: run gsvendor sync"


def test_an_absent_lock_is_not_a_failure(synced: Path, tarball: Path) -> None:
    (synced / "gsvendor.lock.yaml").unlink()
    code, data, stderr = run_json(synced, "versions", "--source", str(tarball))
    assert code == 0, stderr
    lock = data["places"][-1]
    assert (lock["file"], lock["value"], lock["status"]) == ("gsvendor.lock.yaml", None, "not synced")


def test_a_fresh_project_is_not_synced(tmp_path: Path) -> None:
    project = make_project(tmp_path / "fresh")
    for args in (("versions", "--no-go"), ("versions", "--check"), ("versions", "--json")):
        result = run_gsvendor(project, *args)
        assert result.returncode == 2
        assert result.stderr == "error: helm/kserve-resources/ does not exist: run gsvendor sync\n"
        if "--json" in args:  # the error as data on stdout
            assert json.loads(result.stdout)["error"] == {
                "code": "not-synced",
                "exitCode": 2,
                "problems": ["helm/kserve-resources/ does not exist: run gsvendor sync"],
            }
        else:
            assert result.stdout == ""
    code, data, stderr = run_json(vendored(project, "v1.0.0"), "versions", "--no-go")
    assert code == 0, stderr
    assert [p["status"] for p in data["places"]] == ["agrees", "pin", "agrees", "agrees", "not synced"]
    assert data["go"] is None


def test_a_project_without_dockerfiles_says_so_in_one_line(tmp_path: Path) -> None:
    project = vendored(make_project(tmp_path / "charts-only"), "v1.0.0")
    (project / "Dockerfile").unlink()
    (project / "Dockerfile.llmisvc").unlink()
    for args in (("versions",), ("versions", "--check")):
        result = run_gsvendor(project, *args)
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout == (
            "ok: no Dockerfile or Dockerfile.llmisvc in the project: nothing pins the upstream version, "
            "nothing to check\n"
        )


def test_a_dockerfile_without_the_arg_is_missing(synced: Path) -> None:
    edit(synced / "Dockerfile", "ARG KSERVE_VERSION=v1.0.0", "ARG OTHER=v1.0.0")
    result = run_gsvendor(synced, "versions", "--check", "--no-go")
    assert result.returncode == 1
    assert "error: Dockerfile: ARG KSERVE_VERSION: no ARG KSERVE_VERSION=<tag>" in result.stderr


def test_two_pins_that_differ_are_an_error_naming_both_lines(synced: Path, tarball: Path) -> None:
    """A stage ARG with its own default: the Makefile's sed reads the first pin, Docker's global scope the last
    global one, so make and the images built different tags while versions reported one as the pin."""
    sync = ["sync", "--dry-run", "--source", str(tarball)]  # the TAG-less sync reads the pin Dockerfile
    for name, commands in (("Dockerfile.llmisvc", [["versions", "--check"], sync]), ("Dockerfile", [["versions"]])):
        text = (synced / name).read_text()
        first = text.splitlines().index("ARG KSERVE_VERSION=v1.0.0") + 1
        (synced / name).write_text(f"{text}FROM scratch\nARG KSERVE_VERSION=v1.1.0\n")
        second = len((synced / name).read_text().splitlines())
        pins = f"v1.0.0 (line {first}), v1.1.0 (line {second})"
        for args in commands:
            result = run_gsvendor(synced, *args)
            assert (result.returncode, result.stdout) == (2, "")
            assert result.stderr == f"error: {name}: ARG KSERVE_VERSION pins {pins}: keep one\n"
        (synced / name).write_text(f"{text}FROM scratch\nARG KSERVE_VERSION=v1.0.0\n")  # the same tag twice
    assert run_gsvendor(synced, "versions", "--check", "--no-go").returncode == 0


@pytest.mark.parametrize(
    ("go", "status", "code"),
    [("1.25.7", "fail", 1), ("1.24.9", "fail", 1), ("1.25.8", "ok", 0), ("1.25.10", "ok", 0), ("1.26.0", "warn", 0)],
)
def test_go_builders_against_go_mod(tmp_path: Path, tarball: Path, go: str, status: str, code: int) -> None:
    project = vendored(make_project(tmp_path / "go", go=go, llmisvc_go="1.25.8"), "v1.0.0")
    result_code, data, stderr = run_json(project, "versions", "--source", str(tarball))
    assert result_code == code, stderr
    builders = {b["file"]: b for b in data["go"]["builders"]}
    assert builders["Dockerfile"]["status"] == status
    assert builders["Dockerfile"]["version"] == go
    assert builders["Dockerfile.llmisvc"]["status"] == "ok"
    check = run_gsvendor(project, "versions", "--check", "--source", str(tarball))
    assert check.returncode == code
    if status == "fail":
        assert f"error: Dockerfile:5: golang:{go} (builder): older than upstream's go 1.25.8" in check.stderr
    elif status == "warn":
        assert "warning: Dockerfile:5: golang:1.26.0 (builder): newer minor" in check.stderr
    else:
        assert check.stderr == ""


@pytest.mark.parametrize("go", ["1.25.8@sha256:zzz", "1.25.8:x"])
def test_a_golang_base_that_is_no_image_reference_fails_the_go_check(tmp_path: Path, tarball: Path, go: str) -> None:
    """A builder docker would refuse to pull is a failing row, not a stage left out of the Go table."""
    project = vendored(make_project(tmp_path / "go", go=go, llmisvc_go="1.25.8"), "v1.0.0")
    code, data, stderr = run_json(project, "versions", "--source", str(tarball))
    assert code == 1, stderr
    assert [(b["file"], b["image"], b["status"]) for b in data["go"]["builders"]] == [
        ("Dockerfile", f"golang:{go}", "fail"),
        ("Dockerfile.llmisvc", "golang:1.25.8", "ok"),
    ]
    check = run_gsvendor(project, "versions", "--check", "--source", str(tarball))
    assert check.returncode == 1
    assert f"error: Dockerfile:5: golang:{go} (builder): not a valid image reference" in check.stderr


def test_the_toolchain_line_counts(tmp_path: Path, upstream: Upstream) -> None:
    project = vendored(make_project(tmp_path / "tc", version="v1.1.0", go="1.25.3", llmisvc_go="1.25.9"), "v1.1.0")
    code, data, _ = run_json(project, "versions", "--source", upstream.url)
    assert code == 1
    assert data["go"]["goMod"] == {"go": "1.25.0", "toolchain": "go1.25.9"}
    assert data["problems"] == ["Dockerfile:5: golang:1.25.3 (builder): older than upstream's toolchain go1.25.9"]


def test_configured_build_files(tmp_path: Path) -> None:
    project = make_project(
        tmp_path / "conf", extra_config="dockerfiles: [build/Dockerfile.a]\npinDockerfile: build/Dockerfile.a\n"
    )
    (project / "build").mkdir()
    (project / "build/Dockerfile.a").write_text("ARG KSERVE_VERSION=v2.0.0\nFROM golang:1.25.8\n")
    vendored(project, "v2.0.0")
    code, data, _ = run_json(project, "versions", "--no-go")
    assert code == 0
    assert data["pin"] == {"file": "build/Dockerfile.a", "line": 1, "value": "v2.0.0"}
    assert [p["file"] for p in data["places"]][:1] == ["build/Dockerfile.a"]


def test_bad_build_file_config_exits_2(tmp_path: Path) -> None:
    project = make_project(tmp_path / "bad", extra_config="dockerfiles: [../outside]\n")
    result = run_gsvendor(project, "versions", "--no-go")
    assert result.returncode == 2
    assert "dockerfiles[0]: '../outside' must be a relative path inside the project" in result.stderr


# Units: Go versions and the judging rules.


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("1.21", "1.21rc1"),
        ("1.21rc1", "1.21rc2"),
        ("1.21beta1", "1.21rc1"),
        ("1.21rc2", "1.21.0"),
        ("1.21.0", "1.21.1"),
    ],
)
def test_go_version_order(older: str, newer: str) -> None:
    assert parse_go_version(older) < parse_go_version(newer)  # type: ignore[operator]


def test_image_tags_and_go_mod() -> None:
    assert str(image_go_version("1.25.8-bookworm")) == "1.25.8"
    assert image_go_version("latest") is None and image_go_version(None) is None
    mod = GoMod(*go_directives("module x\n\ngo 1.25.0 // comment\ntoolchain go1.25.9\n"))
    assert (mod.go, mod.toolchain) == ("1.25.0", "go1.25.9")


@pytest.mark.parametrize(
    ("builder", "go", "toolchain", "status"),
    [
        ("1.25.8", "1.25.8", None, "ok"),  # same
        ("1.25.9", "1.25.8", None, "ok"),  # same minor, newer patch
        ("1.25.7", "1.25.8", None, "fail"),  # below the go line
        ("1.24.12", "1.25.8", None, "fail"),  # older minor
        ("1.26.0", "1.25.8", None, "warn"),  # newer minor
        ("1.25", "1.25.8", None, "ok"),  # floating, newest 1.25.x
        ("1.24", "1.25.8", None, "fail"),
        ("1.26", "1.25.8", None, "warn"),
        ("1.25.3", "1.25.0", "go1.25.9", "fail"),  # below the toolchain line
        ("1.25.9", "1.25.0", "go1.25.9", "ok"),
        ("latest", "1.25.8", None, "warn"),  # cannot tell
    ],
)
def test_judge_go(builder: str, go: str, toolchain: str | None, status: str) -> None:
    assert judge_go(image_go_version(builder), GoMod(go=go, toolchain=toolchain))[0] == status


def test_the_go_table_says_go_mod_came_from_the_lock(tmp_path: Path, tarball: Path) -> None:
    """Without --source the go.mod lines are the lock's (recorded at sync): the caption says so."""
    project = make_project(tmp_path / "lockgo", go="1.25.8", llmisvc_go="1.25.8")
    assert run_gsvendor(project, "sync", "v1.0.0", "--source", str(tarball)).returncode == 0
    result = run_gsvendor(project, "versions")
    assert result.returncode == 0, result.stderr
    assert "go.mod lines recorded in the lock when sync read " in result.stdout
    assert "go.mod read from" not in result.stdout
    given = run_gsvendor(project, "versions", "--source", str(tarball))
    assert f"go.mod read from {tarball}" in " ".join(given.stdout.split())


def run_on_a_terminal(project: Path, *args: str) -> tuple[int, str, str]:
    """Run gsvendor with stderr on a pseudo-terminal (where progress shows); exit code, stdout, stderr."""
    import pty

    master, slave = pty.openpty()
    env = {**git_env(), "GSVENDOR_CACHE_DIR": str(project / ".cache"), "NO_COLOR": "1", "TERM": "xterm"}
    with subprocess.Popen(
        [sys.executable, "-m", "gsvendor", *args], cwd=project, env=env, stdout=subprocess.PIPE, stderr=slave, text=True
    ) as proc:
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO once the child has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout = proc.stdout.read() if proc.stdout else ""
    os.close(master)
    return proc.returncode, stdout, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_go_mod_spinner_shows_only_while_upstream_is_read(synced: Path, tarball: Path) -> None:
    ok = "ok: every version pin agrees (6 pins in 6 files)\n"
    # the lock records upstream's go.mod lines: nothing is read, nothing on the terminal
    assert run_on_a_terminal(synced, "versions", "--check") == (0, ok, "")
    assert run_on_a_terminal(synced, "versions", "--check", "--no-go") == (0, ok, "")
    code, stdout, stderr = run_on_a_terminal(synced, "versions", "--check", "--source", str(tarball))
    assert (code, stdout) == (0, ok)
    assert "reading upstream go.mod" in stderr
    # without a terminal no spinner either way
    piped = run_gsvendor(synced, "versions", "--check", "--source", str(tarball))
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, ok, "")


def test_an_escape_sequence_in_the_pin_reaches_no_terminal(synced: Path) -> None:
    """The table's title 'Upstream version: …' printed the pin's value as written (its rows
    escaped it): an ESC in ARG KSERVE_VERSION cleared the screen."""
    edit(synced / "Dockerfile.llmisvc", "ARG KSERVE_VERSION=v1.0.0", "ARG KSERVE_VERSION=v1.0.0\x1b[2J")
    result = run_gsvendor(synced, "versions")
    assert result.returncode == 1, result.stderr
    shown = result.stdout + result.stderr
    assert "\x1b" not in shown, shown
    assert "Upstream version: v1.0.0\\x1b[2J (pinned by Dockerfile.llmisvc:3" in result.stdout


def test_a_dockerfile_nested_past_the_parsers_stack_is_one_line(synced: Path) -> None:
    """``RUN [[[…`` 100,000 deep in a Dockerfile: `versions` printed a RecursionError traceback."""
    with (synced / "Dockerfile").open("a", encoding="utf-8") as out:
        out.write("RUN " + "[" * 100_000 + "\n")
    result = run_gsvendor(synced, "versions", "--no-go")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "error: Dockerfile: nested too deeply to parse (a JSON array of thousands of '[')\n"


def test_a_go_line_of_thousands_of_digits_is_unreadable_not_a_traceback() -> None:
    # int() refuses past 4300 digits: upstream's go.mod "go 1.999…" was a ValueError traceback
    long = "1." + "9" * 5000
    assert parse_go_version(long) is None
    status, reason = judge_go(image_go_version("1.25.8"), GoMod(go=long, toolchain=None))
    assert (status, reason) == (GO_WARN, f"upstream go.mod has no readable go line ({long[:40] + '…'!r})")
