"""``gsvendor patch-verify``: real git upstreams, real format-patch series, the CLI as a process."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gitkit import PatchMaker, Upstream, git, make_project, numbered, replace_line, run_gsvendor, run_json

from gsvendor.controller_images.patch_files import list_series, parse_patch, wanted_files
from gsvendor.controller_images.patches import locate

A_GO = numbered("a line", 40)
B_GO = numbered("b line", 40)
NEW_TEST = "package pkg\n\nfunc TestNew() {}\n"
PATCHED = replace_line(A_GO, "a line 10", "a line 10 patched")


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    """Upstream with tags: v1.0.0 base; v2.0.0 changes the line the patch changes; v3.0.0 carries the patch.

    v4.0.0 has no pkg/b.go; v5.0.0 carries only the first hunk of the two-hunk patch.
    """
    repo = Upstream(
        tmp_path / "upstream",
        {
            "charts/README.md": "charts live here\n",
            "go.mod": "module example.com/kserve\n\ngo 1.25.8\n",
            "pkg/a.go": A_GO,
            "pkg/b.go": B_GO,
            "pkg/untouched.go": numbered("untouched", 10),
        },
    )
    git(repo.path, "tag", "v1.0.0")
    repo.commit({"pkg/a.go": replace_line(A_GO, "a line 10", "a line 10 changed upstream")}, "upstream edit", "v2.0.0")
    repo.branch_from("v1.0.0", "carried")
    repo.commit({"pkg/a.go": PATCHED, "pkg/new_test.go": NEW_TEST}, "upstream took the patch", "v3.0.0")
    repo.branch_from("v1.0.0", "no-b")
    repo.commit({"pkg/b.go": None}, "drop b", "v4.0.0")
    repo.branch_from("v1.0.0", "half")
    repo.commit({"pkg/b.go": replace_line(B_GO, "b line 5", "b line 5 fixed")}, "first half", "v5.0.0")
    repo.commit({"pkg/b.go": replace_line(replace_line(B_GO, "b line 5", "b line 5 fixed"), "b line 35", "b 35")}, "x")
    git(repo.path, "tag", "v5.1.0")
    repo.checkout("main")
    return repo


@pytest.fixture
def maker(upstream: Upstream, tmp_path: Path) -> PatchMaker:
    """Makes patches on top of v1.0.0."""
    return PatchMaker(upstream, "v1.0.0", tmp_path / "work")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose Dockerfile.llmisvc pins v1.0.0."""
    return make_project(tmp_path / "project")


def series(project: Path) -> Path:
    return project / "patches" / "llmisvc"


def patch_0001(maker: PatchMaker, project: Path) -> Path:
    return maker.patch({"pkg/a.go": PATCHED, "pkg/new_test.go": NEW_TEST}, "pkg: patch a line 10", series(project), 1)


def verify(project: Path, upstream: Upstream, tag: str | None = "v1.0.0", *extra: str) -> tuple[int, dict, str]:
    args = ["patch-verify", "--source", upstream.url, *(["--tag", tag] if tag else []), *extra]
    return run_json(project, *args)


def test_a_patch_that_applies(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    code, data, stderr = verify(project, upstream)
    assert code == 0, stderr
    assert data["ok"] is True and data["empty"] is False
    [result] = data["results"]
    assert result["name"] == "0001-pkg-patch-a-line-10.patch"
    assert result["status"] == "applies"
    assert result["subject"] == "pkg: patch a line 10"
    assert result["files"] == ["pkg/a.go", "pkg/new_test.go"]
    # only what the patch touches came from upstream (pkg/new_test.go does not exist there yet)
    assert data["fetched"] == ["pkg/a.go"]
    assert data["source"]["kind"] == "git"
    assert data["source"]["commit"] == git(upstream.path, "rev-parse", "v1.0.0").strip()


def test_a_conflict_names_the_hunk_and_upstreams_lines(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    code, data, stderr = verify(project, upstream, "v2.0.0")
    assert code == 1
    [result] = data["results"]
    assert result["status"] == "does not apply"
    [failure] = result["failures"]
    assert failure["file"] == "pkg/a.go"
    assert failure["hunk"] == 1
    assert failure["header"].startswith("@@ -7,7 +7,7 @@")
    assert failure["expectedLine"] == 7
    assert "a line 10" in failure["expected"]
    assert failure["upstreamLine"] == 7
    assert failure["upstream"] == [f"a line {i}" for i in (7, 8, 9)] + ["a line 10 changed upstream"] + [
        f"a line {i}" for i in (11, 12, 13)
    ]
    assert failure["alreadyUpstream"] is False
    assert "pkg/a.go hunk 1" in result["message"]
    assert "0001-pkg-patch-a-line-10.patch: does not apply" in stderr


def test_a_conflict_for_people(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v2.0.0")
    assert result.returncode == 1
    assert "does not apply" in result.stdout
    assert "-a line 10" in result.stdout
    assert "+a line 10 changed upstream" in result.stdout
    assert "upstream v2.0.0 has (line 7)" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_conflict_at_80_columns_keeps_each_diff_line_and_the_status_whole(
    upstream: Upstream, maker: PatchMaker, project: Path
) -> None:
    """The failing hunk's diff was wrapped at the width (a CI log's 100 columns too) and the table's status
    broke into "does" / "not" / "apply": a diff line, the hunk's heading and the status stay whole."""
    patch_0001(maker, project)
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v2.0.0", env={"COLUMNS": "80"})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    expects = ["    --- the patch expects (line 7)", "    +++ upstream v2.0.0 has (line 7)", "    -a line 10"]
    assert [line for line in lines if line in expects] == expects
    assert "0001-pkg-patch-a-line-10.patch: pkg/a.go: hunk 1 (@@ -7,7 +7,7 @@ a line 6) does not apply" in lines
    assert "\n1  0001-pkg-patch-a-line-10.patch  does not apply  " in result.stdout


def test_a_patch_upstream_already_carries(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    code, data, stderr = verify(project, upstream, "v3.0.0")
    assert code == 1
    [result] = data["results"]
    assert result["status"] == "already upstream"
    assert "drop the patch" in result["message"]
    assert "already upstream" in stderr


def test_not_a_patch_is_malformed(upstream: Upstream, project: Path) -> None:
    series(project).joinpath("0001-notes.patch").write_text("remember to rebase\n", encoding="utf-8")
    code, data, _ = verify(project, upstream)
    assert code == 1
    [result] = data["results"]
    assert result["status"] == "malformed"
    assert "not a git format-patch" in result["message"]
    assert data["source"] is None, "nothing to apply, so nothing is fetched"


def test_a_plain_diff_is_malformed(upstream: Upstream, tmp_path: Path, project: Path) -> None:
    work = tmp_path / "plain"
    git(tmp_path, "clone", "-q", upstream.url, str(work))
    (work / "pkg" / "a.go").write_text(PATCHED, encoding="utf-8")
    series(project).joinpath("0001-plain.patch").write_text(git(work, "diff"), encoding="utf-8")
    code, data, _ = verify(project, upstream)
    assert code == 1
    assert data["results"][0]["status"] == "malformed"
    assert "'From <commit> …' first line" in data["results"][0]["message"]


def test_a_format_patch_without_diff_is_malformed(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    path = maker.patch({}, "an empty commit", series(project), 1, allow_empty=True)
    assert path.read_text().startswith("From ")
    code, data, _ = verify(project, upstream)
    assert code == 1
    [result] = data["results"]
    assert result["status"] == "malformed"
    assert result["message"].startswith("no diff")


def test_an_empty_series_is_ok_and_says_so(upstream: Upstream, project: Path) -> None:
    series(project).joinpath("README.md").write_text("no patches\n", encoding="utf-8")
    code, data, stderr = verify(project, upstream)
    assert code == 0, stderr
    assert data["ok"] is True and data["empty"] is True and data["results"] == []
    assert data["source"] is None
    result = run_gsvendor(project, "patch-verify", "--tag", "v1.0.0")
    assert result.returncode == 0, result.stderr
    assert "empty series" in result.stdout


def test_0002_is_judged_with_0001_applied(upstream: Upstream, maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    patch_0001(maker, project)
    twice = replace_line(PATCHED, "a line 10 patched", "a line 10 patched twice")
    second = maker.patch({"pkg/a.go": twice}, "pkg: patch a line 10 again", series(project), 2)
    code, data, stderr = verify(project, upstream)
    assert code == 0, stderr
    assert [r["status"] for r in data["results"]] == ["applies", "applies"]
    # on its own, 0002 does not apply: proof that it was judged on the tree with 0001 applied
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(second, alone)
    code, data, _ = verify(project, upstream, "v1.0.0", "--patches", str(alone))
    assert code == 1
    assert data["results"][0]["status"] == "does not apply"


def test_a_patch_after_a_failed_one_says_so(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    twice = replace_line(PATCHED, "a line 10 patched", "a line 10 patched twice")
    maker.patch({"pkg/a.go": twice}, "pkg: patch a line 10 again", series(project), 2)
    code, data, _ = verify(project, upstream, "v2.0.0")
    assert code == 1
    first, second = data["results"]
    assert first["status"] == second["status"] == "does not apply"
    assert second["afterFailed"] == ["0001-pkg-patch-a-line-10.patch"]
    assert first["afterFailed"] == []


def test_series_order_is_file_name_order(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    later = maker.patch({"pkg/b.go": replace_line(B_GO, "b line 3", "b 3")}, "b first", series(project), 2)
    earlier = maker.patch({"pkg/a.go": PATCHED}, "a second", series(project), 1)
    assert [p.name for p in list_series(series(project), "patches")] == [earlier.name, later.name]
    code, data, _ = verify(project, upstream)
    assert code == 0
    assert [r["name"] for r in data["results"]] == [earlier.name, later.name]


def test_a_patch_that_is_no_regular_file_is_refused(tmp_path: Path) -> None:
    """A dangling link or a fifo named *.patch was skipped, and an empty series passed."""
    import os

    from gsvendor.errors import ConfigError

    (tmp_path / "0001-a.patch").symlink_to(tmp_path / "gone")
    with pytest.raises(ConfigError, match=r"^patches/0001-a.patch: not a regular file \(the image build applies"):
        list_series(tmp_path, "patches")
    (tmp_path / "0001-a.patch").unlink()
    os.mkfifo(tmp_path / "0002-b.patch")
    with pytest.raises(ConfigError, match=r"^patches/0002-b.patch: not a regular file"):
        list_series(tmp_path, "patches")


def test_a_file_missing_upstream(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    maker.patch({"pkg/b.go": replace_line(B_GO, "b line 3", "b 3")}, "touch b", series(project), 1)
    code, data, _ = verify(project, upstream, "v4.0.0")
    assert code == 1
    [failure] = data["results"][0]["failures"]
    assert failure["file"] == "pkg/b.go"
    assert failure["hunk"] is None
    assert failure["reason"] == "upstream v4.0.0 has no pkg/b.go"
    # said once, in the table (it was repeated below it with nothing more to show)
    text = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v4.0.0")
    assert text.returncode == 1
    assert text.stdout.count("has no pkg/b.go") == 1, text.stdout


def test_a_half_upstreamed_patch_marks_the_hunk(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    both = replace_line(replace_line(B_GO, "b line 5", "b line 5 fixed"), "b line 35", "b line 35 fixed")
    maker.patch({"pkg/b.go": both}, "fix b twice", series(project), 1)
    code, data, _ = verify(project, upstream, "v5.1.0")
    assert code == 1
    result = data["results"][0]
    assert result["status"] == "does not apply"
    by_hunk = {f["hunk"]: f for f in result["failures"]}
    assert set(by_hunk) == {1, 2}
    assert by_hunk[1]["alreadyUpstream"] is True
    assert "already upstream" in by_hunk[1]["reason"]
    assert by_hunk[2]["alreadyUpstream"] is False
    assert "b 35" in by_hunk[2]["upstream"]


@pytest.mark.parametrize("kind", ["git", "folder", "tarball"])
def test_every_source_kind(kind: str, upstream: Upstream, maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    patch_0001(maker, project)
    if kind == "git":
        source = upstream.url
    elif kind == "folder":
        upstream.checkout("v2.0.0")
        source = str(upstream.path)
    else:
        source = str(upstream.archive("v2.0.0", tmp_path))
    code, data, stderr = run_json(project, "patch-verify", "--source", source, "--tag", "v2.0.0")
    assert code == 1, stderr
    assert data["source"]["kind"] == kind
    assert data["results"][0]["status"] == "does not apply"
    assert data["results"][0]["failures"][0]["upstream"][3] == "a line 10 changed upstream"


def test_the_tag_defaults_to_the_dockerfile_pin(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    dockerfile = project / "Dockerfile.llmisvc"
    dockerfile.write_text(dockerfile.read_text().replace("v1.0.0", "v3.0.0"), encoding="utf-8")
    code, data, _ = verify(project, upstream, None)
    assert data["tag"] == "v3.0.0"
    assert code == 1 and data["results"][0]["status"] == "already upstream"


def test_junit_has_one_case_per_patch(upstream: Upstream, maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    patch_0001(maker, project)
    series(project).joinpath("0002-broken.patch").write_text("garbage\n", encoding="utf-8")
    junit = tmp_path / "out" / "patches.xml"
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v2.0.0", "--junit", str(junit))
    assert result.returncode == 1
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["0001-pkg-patch-a-line-10.patch", "0002-broken.patch"]
    failure = cases["0001-pkg-patch-a-line-10.patch"].find("failure")
    assert failure is not None and failure.text is not None
    assert "pkg/a.go" in failure.text and "a line 10 changed upstream" in failure.text
    error = cases["0002-broken.patch"].find("error")
    assert error is not None and "malformed" in (error.get("message") or "")


def test_junit_passes_when_all_apply(upstream: Upstream, maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    patch_0001(maker, project)
    junit = tmp_path / "ok.xml"
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v1.0.0", "--junit", str(junit))
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout and "applies" in result.stdout
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("1", "0")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tag", "v9.9.9"], "unknown tag v9.9.9"),
        (["--tag", "v1.0.0", "--patches", "nowhere"], "nowhere: no such folder"),
        (["--tag", "v1.0.0", "--source", "does/not/exist"], "does/not/exist: no such file or folder"),
    ],
)
def test_input_errors_exit_2(
    args: list[str], message: str, upstream: Upstream, maker: PatchMaker, project: Path
) -> None:
    patch_0001(maker, project)
    full = ["patch-verify", *(["--source", upstream.url] if "--source" not in args else []), *args]
    result = run_gsvendor(project, *full)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_tag_outside_the_tag_pattern_is_refused_as_sync_refuses_it(
    upstream: Upstream, maker: PatchMaker, project: Path
) -> None:
    patch_0001(maker, project)
    result = run_gsvendor(project, "patch-verify", "--tag", "1.0.0", "--source", upstream.url)
    assert result.returncode == 2, result.stderr
    assert result.stderr.endswith("; did you mean v1.0.0?\n") and result.stderr.count("\n") == 1
    assert "is not a release tag" in result.stderr


def test_no_pin_dockerfile_and_no_tag_exits_2(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    (project / "Dockerfile.llmisvc").unlink()
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url)
    assert result.returncode == 2
    assert "Dockerfile.llmisvc: not found" in result.stderr


def test_a_dockerfile_that_does_not_copy_the_series_is_noted(
    upstream: Upstream, maker: PatchMaker, project: Path
) -> None:
    patch_0001(maker, project)
    dockerfile = project / "Dockerfile.llmisvc"
    dockerfile.write_text(dockerfile.read_text().replace("COPY patches/llmisvc/", "COPY other/"), encoding="utf-8")
    code, data, _ = verify(project, upstream)
    assert code == 0
    assert data["notes"] == ["Dockerfile.llmisvc does not COPY patches/llmisvc: the image build skips this series"]


def test_configured_patch_folder(upstream: Upstream, maker: PatchMaker, tmp_path: Path) -> None:
    project = make_project(tmp_path / "configured", extra_config="patches: carried\n")
    maker.patch({"pkg/a.go": PATCHED}, "carried patch", project / "carried", 1)
    code, data, stderr = run_json(project, "patch-verify", "--source", upstream.url, "--tag", "v1.0.0")
    assert code == 0, stderr
    assert data["patches"] == "carried"
    assert [r["status"] for r in data["results"]] == ["applies"]


# Units: the parser and the helpers behind the report.


def test_wanted_files_adds_the_gitattributes_above() -> None:
    patch = parse_patch(
        Path(__file__).resolve().parents[2] / "patches/llmisvc/0001-llmisvc-ready-needs-an-available-replica.patch"
    )
    wanted = wanted_files([patch])
    assert ".gitattributes" in wanted
    assert "pkg/controller/v1alpha2/llmisvc/.gitattributes" in wanted
    assert set(patch.touched) <= set(wanted)


def test_locate_prefers_distinct_lines_and_the_hint() -> None:
    current = ["}", "", "func a() {", "x := 1", "}", "", "func b() {", "x := 2", "}"]
    assert locate(current, ["func b() {", "x := 3", "}"], 0) == (6, True)
    assert locate(current, ["}", ""], 3) == (4, True)
    assert locate(current, ["nothing", "like it"], 100) == (7, False)


def test_quoted_and_renamed_paths(tmp_path: Path) -> None:
    text = (
        "From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n"
        "From: A <a@example.invalid>\n"
        "Subject: [PATCH 1/2] rename\n"
        " and fold\n\n---\n"
        'diff --git "a/dir/sp\\303\\244ce.txt" "b/dir/sp\\303\\244ce.txt"\n'
        "index 1..2 100644\n"
        '--- "a/dir/sp\\303\\244ce.txt"\n'
        '+++ "b/dir/sp\\303\\244ce.txt"\n'
        "@@ -1 +1 @@\n-x\n+y\n"
        "diff --git a/old name.txt b/new name.txt\n"
        "similarity index 100%\nrename from old name.txt\nrename to new name.txt\n"
        "-- \n2.39.5\n"
    )
    path = tmp_path / "0001-rename.patch"
    path.write_text(text, encoding="utf-8")
    patch = parse_patch(path)
    assert patch.problem is None
    assert patch.subject == "rename and fold"
    assert patch.touched == ("dir/späce.txt", "new name.txt", "old name.txt")
    assert patch.files[0].hunks[0].before == ["x"] and patch.files[0].hunks[0].after == ["y"]


def test_a_corrupt_hunk_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "0001-corrupt.patch"
    path.write_text(
        "From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] c\n\n"
        "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n",
        encoding="utf-8",
    )
    assert "corrupt" in (parse_patch(path).problem or "")


def test_a_charts_only_source_is_an_input_error(maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    charts_only = Upstream(tmp_path / "charts-only", {"charts/README.md": "x\n", "go.mod": "module x\n\ngo 1.25.8\n"})
    git(charts_only.path, "tag", "v1.0.0")
    patch_0001(maker, project)
    tarball = charts_only.archive("v1.0.0", tmp_path)
    code, data, _ = run_json(project, "patch-verify", "--source", str(tarball), "--tag", "v1.0.0")
    # not a patch failure (exit 1) but the wrong source (exit 2), named with what the patches touch
    assert code == 2
    assert data["ok"] is False and data["error"]["code"] == "source-incomplete"
    assert data["error"]["problems"] == [
        f"{tarball} holds none of the files the patches touch (pkg/a.go): not the full upstream source tree; "
        "give --source (make: PATCH_SOURCE=) a kserve checkout at v1.0.0 or its git URL"
    ]


def test_a_link_named_like_the_patched_folder_is_not_a_folder(maker: PatchMaker, project: Path, tmp_path: Path) -> None:
    # a checkout holding charts/ and a link pkg -> /etc: judged as git and archives judge it, incomplete
    folder = tmp_path / "linked"
    (folder / "charts").mkdir(parents=True)
    (folder / "charts" / "README.md").write_text("x\n", encoding="utf-8")
    (folder / "pkg").symlink_to("/etc")
    patch_0001(maker, project)
    result = run_gsvendor(project, "patch-verify", "--source", str(folder), "--tag", "v1.0.0")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == (
        f"error: {folder} holds none of the files the patches touch (pkg/a.go): not the full upstream source "
        "tree; give --source (make: PATCH_SOURCE=) a kserve checkout at v1.0.0 or its git URL\n"
    )


def test_a_git_source_with_a_non_ascii_folder_that_lost_the_file(tmp_path: Path) -> None:
    # git ls-tree quotes "p\303\244ckage" unless -z: the folder must still count as there
    base = Upstream(tmp_path / "base", {"charts/README.md": "x\n", "päckage/a.go": A_GO})
    git(base.path, "tag", "v1.0.0")
    project = make_project(tmp_path / "project")
    PatchMaker(base, "v1.0.0", tmp_path / "work").patch({"päckage/a.go": PATCHED}, "edit", series(project), 1)
    lost = Upstream(tmp_path / "lost", {"charts/README.md": "x\n", "päckage/other.go": B_GO})
    git(lost.path, "tag", "v1.0.0")
    code, data, stderr = run_json(project, "patch-verify", "--source", lost.url, "--tag", "v1.0.0")
    assert code == 1, stderr
    assert [r["status"] for r in data["results"]] == ["does not apply"]


def test_the_exec_form_copy_counts(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    dockerfile = project / "Dockerfile.llmisvc"
    text = dockerfile.read_text().replace(
        "COPY patches/llmisvc/ /patches/", 'COPY --chown=0:0 ["patches/llmisvc/", "/p/"]'
    )
    dockerfile.write_text(text, encoding="utf-8")
    code, data, _ = verify(project, upstream)
    assert (code, data["notes"]) == (0, [])


def test_undecodable_bytes_reach_json_and_junit(upstream: Upstream, project: Path, tmp_path: Path) -> None:
    latin = "a line 10 caf\xe9\n".encode("latin-1")
    upstream.branch_from("v1.0.0", "latin")
    (upstream.path / "pkg" / "a.go").write_bytes(A_GO.encode().replace(b"a line 10\n", latin))
    git(upstream.path, "commit", "-q", "-am", "latin-1 bytes")
    git(upstream.path, "tag", "v6.0.0")
    maker = PatchMaker(upstream, "v1.0.0", tmp_path / "work6")
    patch_0001(maker, project)
    junit = tmp_path / "latin.xml"
    code, data, _ = verify(project, upstream, "v6.0.0", "--junit", str(junit))
    assert code == 1
    assert "a line 10 caf\ufffd" in data["results"][0]["failures"][0]["upstream"]
    assert "caf\ufffd" in (ET.parse(junit).getroot().find("testsuite/testcase/failure").text or "")  # type: ignore[union-attr]


def test_an_extract_of_the_patched_files_is_a_source_judged_on_trust(
    upstream: Upstream, maker: PatchMaker, project: Path, tmp_path: Path
) -> None:
    """A folder holding only the files the patches touch (no charts/, no .git), as the docs offer for
    offline use, was refused as "not an upstream checkout"; it is read, and noted as not checked for the tag."""
    patch_0001(maker, project)
    upstream.checkout("v1.0.0")
    extract = tmp_path / "extract"
    (extract / "pkg").mkdir(parents=True)
    (extract / "pkg" / "a.go").write_bytes((upstream.path / "pkg" / "a.go").read_bytes())
    code, data, stderr = run_json(project, "patch-verify", "--source", str(extract), "--tag", "v1.0.0")
    assert code == 0, stderr
    assert [r["status"] for r in data["results"]] == ["applies"]
    assert data["notes"] == [f"{extract}: not a git checkout, so not checked to be v1.0.0: judged as v1.0.0 on trust"]


def test_a_folder_with_local_changes_is_noted(upstream: Upstream, maker: PatchMaker, project: Path) -> None:
    patch_0001(maker, project)
    upstream.checkout("v1.0.0")
    (upstream.path / "pkg" / "a.go").write_text(PATCHED, encoding="utf-8")  # the patch applied by hand
    code, data, _ = run_json(project, "patch-verify", "--source", str(upstream.path), "--tag", "v1.0.0")
    assert data["results"][0]["status"] == "does not apply"  # the new file is not there by hand
    assert code == 1
    [note] = data["notes"]
    assert "local changes to patched files (pkg/a.go)" in note and "not as v1.0.0 has them" in note
    git(upstream.path, "checkout", "--", "pkg/a.go")
    code, data, _ = run_json(project, "patch-verify", "--source", str(upstream.path), "--tag", "v1.0.0")
    assert (code, data["notes"]) == (0, [])


def test_an_escape_sequence_in_a_failing_patch_reaches_no_terminal(
    upstream: Upstream, maker: PatchMaker, project: Path
) -> None:
    """The failing hunk's section printed the patch's name (and its lines) as written: an ESC in
    them was the terminal's escape sequence (OSC 52 writes the clipboard), though the table above
    escaped the same name."""
    written = patch_0001(maker, project)
    hostile = written.with_name("0001-\x1b]52;c;cHduZWQ=\x07x.patch")
    text = written.read_text().replace("+a line 10 patched", "+a line 10 \x1b[2Jpatched")
    written.unlink()
    hostile.write_text(text)
    result = run_gsvendor(project, "patch-verify", "--source", upstream.url, "--tag", "v2.0.0")
    assert result.returncode == 1, result.stderr
    shown = result.stdout + result.stderr
    assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "0001-\\x1b]52;c;cHduZWQ=\\x07x.patch: pkg/a.go: hunk 1" in result.stdout


def test_a_hunk_header_number_of_thousands_of_digits_is_malformed(upstream: Upstream, project: Path) -> None:
    # unidiff's int() refuses past 4300 digits: this was a ValueError traceback
    head = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
    head += "From: a <a@b.c>\nSubject: x\n\n---\n"
    diff = f"diff --git a/pkg/a.go b/pkg/a.go\n--- a/pkg/a.go\n+++ b/pkg/a.go\n@@ -{'9' * 5000},1 +1,1 @@\n-a\n+b\n"
    series(project).joinpath("0001-huge.patch").write_text(head + diff, encoding="utf-8")
    code, data, _ = verify(project, upstream)
    assert code == 1
    [result] = data["results"]
    assert result["status"] == "malformed"
    assert result["message"] == "line 9: a hunk header number too large to read (corrupt patch)"
