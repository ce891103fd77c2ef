"""A folder or git source without the asked tag is an error naming the tag and what the source holds.

Real git checkouts in ``tmp_path``; ``sync`` and ``patch-verify`` run as processes. Neither may
read the checkout's HEAD in the tag's place (it would label other bytes as the tag).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import TAGS, Cli, assert_one_line_error, tree
from gitkit import PatchMaker, Upstream, git, make_project, numbered, replace_line, run_gsvendor

from gsvendor.upstream.source import nearby_tags

A_GO = numbered("a line", 20)


def _checkout(tmp_path: Path) -> tuple[Upstream, str]:
    """A checkout with tags v1.0.0 and v2.0.0, HEAD at v2.0.0 (no v2.1.0)."""
    repo = Upstream(tmp_path / "upstream", {"charts/README.md": "charts\n", "pkg/a.go": A_GO})
    git(repo.path, "tag", "v1.0.0")
    head = repo.commit({"pkg/a.go": replace_line(A_GO, "a line 3", "a line 3 v2")}, "v2", "v2.0.0")
    return repo, head


def _series(tmp_path: Path, repo: Upstream) -> Path:
    project = make_project(tmp_path / "project")
    maker = PatchMaker(repo, "v1.0.0", tmp_path / "work")
    maker.patch(
        {"pkg/a.go": replace_line(A_GO, "a line 10", "a line 10 patched")}, "a", project / "patches" / "llmisvc", 1
    )
    return project


def test_patch_verify_refuses_a_folder_checkout_without_the_tag(tmp_path: Path) -> None:
    repo, head = _checkout(tmp_path)
    project = _series(tmp_path, repo)
    result = run_gsvendor(project, "patch-verify", "--tag", "v2.1.0", "--source", str(repo.path))
    assert_one_line_error(result, 2)
    assert result.stderr == (
        f"error: {repo.path}: no tag v2.1.0 (tags near it: v1.0.0, v2.0.0; its HEAD is {head[:12]}); "
        "fetch the tag or give another source\n"
    )
    assert "ok" not in result.stdout


def test_patch_verify_names_what_a_git_repository_holds(tmp_path: Path) -> None:
    repo, head = _checkout(tmp_path)
    project = _series(tmp_path, repo)
    result = run_gsvendor(project, "patch-verify", "--tag", "v2.1.0", "--source", repo.url)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {repo.url}: unknown tag v2.1.0 (tags near it: v1.0.0, v2.0.0; its HEAD is {head[:12]}); "
        "fetch the tag or give another source\n"
    )


def test_sync_refuses_a_folder_checkout_without_the_tag(cli: Cli, project: Path, tmp_path: Path, extracted) -> None:
    """A checkout of the latest archive in the upstream folder, asked for a later tag."""
    latest = TAGS[-1]
    checkout = tmp_path / "kserve"
    shutil.copytree(extracted(latest), checkout)
    git(checkout, "init", "-q", "-b", "master")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-q", "-m", latest)
    git(checkout, "tag", latest)
    head = git(checkout, "rev-parse", "HEAD").strip()
    before = tree(project)
    result = cli(project, "sync", "v9.0.0", "--source", str(checkout))
    assert_one_line_error(result, 2, "no tag v9.0.0", f"tags near it: {latest}", f"its HEAD is {head[:12]}")
    assert tree(project) == before  # nothing written


def test_nearby_tags_are_in_version_order_around_the_asked_one() -> None:
    tags = ["v0.20.0", "v0.19.0", "v0.20.0-rc1", "v0.18.1", "v0.22.0", "latest"]
    assert nearby_tags("v0.21.0", tags) == ["v0.20.0-rc1", "v0.20.0", "v0.22.0"]
    assert nearby_tags("v0.20.0-rc2", tags) == ["v0.19.0", "v0.20.0-rc1", "v0.20.0", "v0.22.0"]
    assert nearby_tags("v0.1.0", tags) == ["latest", "v0.18.1", "v0.19.0"]  # a name without numbers sorts first
    assert nearby_tags("v1.0.0", []) == []
