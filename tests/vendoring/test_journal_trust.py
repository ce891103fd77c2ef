"""The swap journal is gsvendor's own state: a journal a checkout supplies, or one naming a path
outside the output, a link on the way or a name gsvendor does not make, is reported in one line
and left alone; nothing is written or deleted outside helm/ (nor in it)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error
from test_robust import SMALL_CONFIG, small_upstream

from gsvendor import journal_trust

PAYLOAD = b"#!/bin/sh\necho planted > /tmp/planted\n"
DIGEST = "file:" + "0" * 64


def snapshot(folder: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry below ``folder``, links not followed: path → (kind, bytes or link target, mode)."""
    found: dict[str, tuple[str, bytes | str, int]] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        rel = path.relative_to(folder).as_posix()
        if stat.S_ISLNK(info.st_mode):
            found[rel] = ("link", os.readlink(path), 0)
        elif stat.S_ISDIR(info.st_mode):
            found[rel] = ("dir", "", stat.S_IMODE(info.st_mode))
        else:
            found[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return found


def git(cwd: Path, *args: str) -> str:
    from gitkit import git_env

    return subprocess.run(["git", *args], cwd=cwd, env=git_env(), check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git checkout of a small project synced at v1.0.0, beside its upstream folders."""
    folder = tmp_path_factory.mktemp("template")
    project = folder / "small"
    (project / "overlays").mkdir(parents=True)
    (project / "overlays" / ".keep").write_text("")
    (project / "gsvendor.yaml").write_text(SMALL_CONFIG)
    (project / "Dockerfile").write_text("FROM scratch\n")  # versions then reads the output
    for version in ("1.0.0", "1.1.0"):
        small_upstream(folder / f"up-{version}", version)
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "project")
    result = Cli(folder / "cache")(project, "sync", "v1.0.0", "--source", str(folder / "up-1.0.0"))
    assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture
def checkout(template: Path, tmp_path: Path) -> Path:
    """A copy of ``template``, a folder outside the checkout, a ``docs-link`` link to that folder
    in the checkout and a ``helm/demo/link`` link to it in a chart folder."""
    for name in ("small", "up-1.0.0", "up-1.1.0"):
        subprocess.run(["cp", "-a", str(template / name), str(tmp_path / name)], check=True)
    project = tmp_path / "small"
    outside = tmp_path / "outside"
    (outside / "victim-dir").mkdir(parents=True)
    (outside / "victim.txt").write_text("keep me\n")
    (outside / "victim-dir" / "inner.txt").write_text("keep me too\n")
    (project / "docs-link").symlink_to(outside)
    (project / "helm" / "demo" / "link").symlink_to(outside)
    return project


def plant(project: Path, document: dict[str, object]) -> Path:
    """Write ``document`` where gsvendor keeps the project's journal (``.git/gsvendor/journal.json``)."""
    path = project / ".git" / "gsvendor" / "journal.json"
    assert journal_trust.place(project).path == path
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(document))
    return path


def journal(state: str, steps: list[list[object]], **fields: object) -> dict[str, object]:
    document: dict[str, object] = {"version": 2, "state": state, "tag": "v9.9.9", "pid": 1}
    document.update({"staging": [], "created": [], "backup": None, "steps": steps})
    document.update(fields)
    return document


def run(cli: Cli, project: Path, command: str) -> subprocess.CompletedProcess[str]:
    args = {
        "verify": ["verify"],
        "versions": ["versions"],
        "sync": ["sync", "v1.1.0", "--source", str(project.parent / "up-1.1.0")],
    }[command]
    return cli(project, *args)


STAGING = "helm/.gsvendor-staging-0123abcd"
HOSTILE = {
    "git-hook": (
        [["write", ".git/hooks/pre-commit", "payload.sh", None, DIGEST]],
        {},
        "write .git/hooks/pre-commit: outside the configured output and the lock file",
    ),
    "link-in-checkout": (
        [
            ["unlink", "docs-link/victim.txt", None, DIGEST, None],
            ["rmtree", "docs-link/victim-dir", None, DIGEST, None],
        ],
        {},
        "unlink docs-link/victim.txt: outside the configured output and the lock file",
    ),
    "link-in-chart": (
        [["rmtree", "helm/demo/link/victim-dir", None, DIGEST, None]],
        {},
        "helm/demo/link/victim-dir: helm/demo/link is a link",
    ),
    "plant-through-link": (
        [["write", "helm/demo/link/.bashrc", f"{STAGING}/0", "absent", DIGEST]],
        {"staging": [STAGING]},
        "helm/demo/link/.bashrc: helm/demo/link is a link",
    ),
    "dot-dot": (
        [["unlink", "helm/demo/../../../outside/victim.txt", None, DIGEST, None]],
        {},
        "unlink 'helm/demo/../../../outside/victim.txt': not a clean relative path",
    ),
    "absolute": (
        [["rmtree", "{outside}/victim-dir", None, DIGEST, None]],
        {},
        "rmtree '{outside}/victim-dir': not a clean relative path",
    ),
    "staged-elsewhere": (
        [["write", "helm/demo/values.yaml", "docs-link/victim.txt", None, DIGEST]],
        {"staging": [STAGING]},
        "write helm/demo/values.yaml: staged copy 'docs-link/victim.txt' is not in a staging folder",
    ),
    "staging-shape": (
        [],
        {"staging": ["docs-link"]},
        "'docs-link' is not a staging folder gsvendor makes",
    ),
    "staging-through-link": (
        [],
        {"staging": ["helm/demo/link/.gsvendor-staging-0123abcd"]},
        "staging folder 'helm/demo/link/.gsvendor-staging-0123abcd' is not beside a configured destination",
    ),
    "staging-is-link": (
        [],
        {"staging": [STAGING]},
        f"{STAGING}: {STAGING} is a link",
    ),
    "created-elsewhere": (
        [],
        {"staging": [STAGING], "created": ["docs-link"]},
        "created folder 'docs-link' does not hold a staging folder",
    ),
    "backup-elsewhere": (
        [],
        {"backup": "../outside"},
        "backup '../outside' is not a backup folder gsvendor makes",
    ),
    "state-shape": (
        [["unlink", "helm/demo/values.yaml", None, "file:../../x", None]],
        {},
        "recorded state 'file:../../x' is not one gsvendor records",
    ),
}


@pytest.mark.parametrize("command", ["verify", "versions", "sync"])
@pytest.mark.parametrize("state", ["preparing", "committed"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_journal_is_reported_and_nothing_is_touched(
    checkout: Path, cli: Cli, case: str, state: str, command: str
) -> None:
    steps, fields, reason = HOSTILE[case]
    outside = str(checkout.parent / "outside")
    steps = json.loads(json.dumps(steps).replace("{outside}", outside))
    reason = reason.replace("{outside}", outside)
    if case == "staging-is-link":
        (checkout / STAGING).symlink_to(checkout.parent / "outside")
    (checkout / "payload.sh").write_bytes(PAYLOAD)
    path = plant(checkout, journal(state, steps, **fields))
    planted = path.read_bytes()
    before, around = snapshot(checkout), snapshot(checkout.parent / "outside")
    result = run(cli, checkout, command)
    assert_one_line_error(result, 2)
    assert result.stderr == (
        f"error: .git/gsvendor/journal.json: swap journal not acted on: {reason}; "
        "nothing was changed, remove it by hand\n"
    )
    assert path.read_bytes() == planted
    assert snapshot(checkout) == before  # helm/, .git/hooks, the journal: all as they were
    assert snapshot(checkout.parent / "outside") == around
    assert not (checkout / ".git" / "hooks" / "pre-commit").exists()


def test_an_unreadable_journal_is_reported(checkout: Path, cli: Cli) -> None:
    path = plant(checkout, {})
    path.write_text('{"version": 1, "state": "committed"}')
    before = snapshot(checkout)
    result = cli(checkout, "verify")
    assert result.returncode == 2
    assert result.stderr == (
        "error: .git/gsvendor/journal.json: swap journal not acted on: unknown version or state; "
        "nothing was changed, remove it by hand\n"
    )
    assert snapshot(checkout) == before


def test_a_journal_that_is_a_link_is_not_followed(checkout: Path, cli: Cli) -> None:
    target = checkout.parent / "outside" / "journal.json"
    target.write_text(json.dumps(journal("committed", [["rmtree", "helm/demo", None, DIGEST, None]])))
    (checkout / ".git" / "gsvendor").mkdir(exist_ok=True)
    (checkout / ".git" / "gsvendor" / "journal.json").symlink_to(target)
    before = snapshot(checkout)
    result = cli(checkout, "verify")
    assert result.returncode == 2
    assert result.stderr == "error: .git/gsvendor/journal.json: swap journal not acted on: a link; remove it by hand\n"
    assert snapshot(checkout) == before


@pytest.mark.parametrize("command", ["verify", "versions", "sync"])
@pytest.mark.parametrize("state", ["preparing", "committed"])
def test_a_journal_committed_to_the_repository_is_only_reported(
    checkout: Path, cli: Cli, state: str, command: str
) -> None:
    """The old place in the project root: git tracks it there (``git add -f``), so any pull request
    could supply it; it is named in one warning line and the command goes on without it."""
    (checkout / "helm" / "demo" / "link").unlink()  # not a hand edit for sync to refuse
    (checkout / "payload.sh").write_bytes(PAYLOAD)
    legacy = checkout / ".gsvendor-journal.json"
    document = journal(state, [["write", ".git/hooks/pre-commit", "payload.sh", None, DIGEST]], staging=[STAGING])
    legacy.write_text(json.dumps(document))
    git(checkout, "add", "-f", ".gsvendor-journal.json", "payload.sh")
    git(checkout, "commit", "-qm", "journal")
    before, around = snapshot(checkout), snapshot(checkout.parent / "outside")
    result = run(cli, checkout, command)
    warning = (
        "warning: .gsvendor-journal.json: a swap journal in the project folder is not gsvendor's (it keeps its "
        "journal outside the checkout) and was not acted on; delete it after checking the output (gsvendor verify)"
    )
    assert result.stderr.splitlines()[0] == warning, result.stderr
    assert "Traceback" not in result.stderr
    assert legacy.read_text() == json.dumps(document)
    assert not (checkout / ".git" / "hooks" / "pre-commit").exists()
    assert snapshot(checkout.parent / "outside") == around
    if command == "verify":
        assert result.returncode == 0 and result.stdout.startswith("ok: "), result
        assert snapshot(checkout) == before
    elif command == "sync":
        assert result.returncode == 0, result.stderr
        changed = {k for k in set(before) | set(snapshot(checkout)) if before.get(k) != snapshot(checkout).get(k)}
        written = ("helm/", "gsvendor.lock.yaml", ".git/gsvendor")  # the journal's folder stays
        assert changed and all(k.startswith(written) for k in changed), changed


def test_a_journal_git_tracks_is_refused(tmp_path: Path, cli: Cli) -> None:
    """A ``.git`` file naming a git folder inside the work tree: that folder could come from the
    checkout, so the journal goes to the user cache; with that cache inside the work tree and the
    journal committed there, the cache is refused, and the journal as one a checkout supplied."""
    project = tmp_path / "small"
    (project / "overlays").mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(SMALL_CONFIG)
    small_upstream(tmp_path / "up-1.0.0", "1.0.0")
    git(tmp_path, "init", "-q", "--separate-git-dir", str(project / "gitdata"), str(project))
    cache = project / "cache"
    cli.env["GSVENDOR_CACHE_DIR"] = str(cache)
    assert cli(project, "sync", "v1.0.0", "--source", str(tmp_path / "up-1.0.0")).returncode == 0
    where = journal_trust.place(project, cache)
    assert where.path.parent == cache / "journals" and where.top == project
    where.path.parent.mkdir(parents=True, exist_ok=True)
    where.path.write_text(json.dumps(journal("committed", [["unlink", "helm/demo/values.yaml", None, DIGEST, None]])))
    git(project, "add", "-f", str(where.path))
    before = snapshot(project / "helm")
    result = cli(project, "verify")  # the cache itself is refused first, then the journal in it
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {cache}: git tracks files in this cache folder, so a checkout could")
    with pytest.raises(journal_trust.GsvendorError) as refused:
        journal_trust.read(where)
    assert str(refused.value) == (
        f"{where.label}: swap journal not acted on: git tracks it, so a checkout supplied it; "
        "remove it from the repository"
    )
    assert snapshot(project / "helm") == before


def test_outside_git_the_journal_is_in_the_user_cache(tmp_path: Path, cli: Cli) -> None:
    """A project outside git keeps its journal in ``<cache>/journals``, keyed by the project's path,
    device and inode: two projects never share one, and the project folder holds none."""
    first, second = tmp_path / "a" / "project", tmp_path / "b" / "project"
    cache = tmp_path / "cache"
    for folder in (first, second):
        folder.mkdir(parents=True)
    one, two = journal_trust.place(first, cache), journal_trust.place(second, cache)
    assert one.path.parent == two.path.parent == cache / "journals"
    assert one.path != two.path and one.top is None
    assert one.label == str(one.path)


STEP_KINDS = ("unlink", "rmtree", "write")  # the journal's steps, run after its commit


def test_the_interrupted_sync_of_a_git_checkout_is_journaled_in_its_git_folder(checkout: Path, cli: Cli) -> None:
    up_new = str(checkout.parent / "up-1.1.0")
    (checkout / "helm" / "demo" / "link").unlink()
    args = [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", up_new]
    # the swap's steps, traced on a copy: the first one after the commit is where the kill lands
    probe, trace = checkout.parent / "probe", checkout.parent / "trace"
    subprocess.run(["cp", "-a", str(checkout), str(probe)], check=True)
    traced = {**cli.env, "GSVENDOR_TEST_SWAP_TRACE": str(trace)}
    assert subprocess.run(args, cwd=probe, env=traced, capture_output=True, check=False).returncode == 0
    step = next(int(n) for n, kind, *_ in map(str.split, trace.read_text().splitlines()) if kind in STEP_KINDS)
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{step}:KILL"}
    killed = subprocess.run(args, cwd=checkout, env=env, check=False)
    assert killed.returncode == -9
    document = json.loads((checkout / ".git" / "gsvendor" / "journal.json").read_text())
    assert document["state"] == "committed" and not (checkout / ".gsvendor-journal.json").exists()
    result = cli(checkout, "verify")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "recovered: completed the interrupted sync of v1.1.0\n"
    assert not (checkout / ".git" / "gsvendor" / "journal.json").exists()


def test_a_project_in_a_subfolder_or_a_worktree_keeps_its_journal_in_the_git_folder(tmp_path: Path) -> None:
    """A project below the top of its repository has a journal of its own in the git folder; a
    worktree's ``.git`` file is followed as git follows it (to the main repository's git folder)."""
    top = tmp_path / "repo"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "gsvendor.yaml").write_text(SMALL_CONFIG)
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-qm", "project")
    one, sub = journal_trust.place(top), journal_trust.place(top / "sub")
    assert one.path == top / ".git" / "gsvendor" / "journal.json" and one.label == ".git/gsvendor/journal.json"
    assert sub.path.parent == top / ".git" / "gsvendor" and sub.path.name.startswith("journal-")
    assert sub.top == top and sub.label == str(sub.path)
    git(top, "worktree", "add", "-q", str(tmp_path / "other"))
    other = journal_trust.place(tmp_path / "other")
    assert other.path == top / ".git" / "worktrees" / "other" / "gsvendor" / "journal.json"
    assert other.top == tmp_path / "other"


def test_only_folders_named_as_gsvendor_names_its_staging_are_removed_as_strays(checkout: Path, cli: Cli) -> None:
    """A user's ``.gsvendor-staging-notes`` stays; an interrupted swap's ``.gsvendor-staging-<8 hex>`` goes."""
    notes = checkout / ".gsvendor-staging-notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me\n")
    (checkout / "helm" / ".gsvendor-staging-x").mkdir()
    (checkout / "helm" / ".gsvendor-staging-0123abcd").mkdir()
    (checkout / "helm" / "demo" / "link").unlink()  # the fixture's link: verify would report it
    result = cli(checkout, "verify")
    assert result.returncode == 0, result.stderr
    assert (notes / "todo.txt").read_text() == "keep me\n" and (checkout / "helm" / ".gsvendor-staging-x").is_dir()
    assert not (checkout / "helm" / ".gsvendor-staging-0123abcd").exists()


def test_a_file_to_vendor_in_a_folder_named_as_staging_is_refused(checkout: Path, cli: Cli) -> None:
    """From upstream or an overlay: else the next command would remove it as an interrupted swap's leftover."""
    upstream = checkout.parent / "up-1.1.0"
    (upstream / "charts" / "demo" / ".gsvendor-staging-deadbeef").mkdir()
    (upstream / "charts" / "demo" / ".gsvendor-staging-deadbeef" / "x.yaml").write_text("kind: A\n")
    (checkout / "helm" / "demo" / "link").unlink()  # the fixture's link: a hand edit sync would refuse first
    before = snapshot(checkout)
    result = cli(checkout, "sync", "v1.1.0", "--source", str(upstream))
    assert_one_line_error(result, 2, "helm/demo/.gsvendor-staging-deadbeef/x.yaml: a name gsvendor keeps for its")
    assert snapshot(checkout) == before
    shutil.rmtree(upstream / "charts" / "demo" / ".gsvendor-staging-deadbeef")
    copy = "operations:\n  - {op: copy, charts: [other], content: x, to: .gsvendor-staging-0000abcd/x}\n"
    (checkout / "overlays" / "x.yaml").write_text(copy)
    before = snapshot(checkout)
    result = cli(checkout, "sync", "v1.1.0", "--source", str(upstream))
    assert_one_line_error(result, 2, "helm/other/.gsvendor-staging-0000abcd/x: a name gsvendor keeps for its")
    assert snapshot(checkout) == before


def test_a_backup_folder_that_is_a_link_is_refused_and_nothing_changes(checkout: Path, cli: Cli) -> None:
    """A checkout can hold a ``.gsvendor-backup`` link: the hand edits would be copied where it points."""
    (checkout / ".gsvendor-backup").symlink_to(checkout.parent / "outside")
    (checkout / "helm" / "demo" / "link").unlink()  # the fixture's link out of the project: refused first
    with (checkout / "helm" / "demo" / "Chart.yaml").open("a") as chart:
        chart.write("# a hand edit\n")
    before, outside = snapshot(checkout), snapshot(checkout.parent / "outside")
    result = cli(checkout, "sync", "v1.1.0", "--source", str(checkout.parent / "up-1.1.0"), "--force")
    assert_one_line_error(result, 2, ".gsvendor-backup: a link or a file, not a folder")
    assert snapshot(checkout) == before and snapshot(checkout.parent / "outside") == outside


def test_a_cache_folder_git_tracks_files_in_is_refused(checkout: Path, cli: Cli, tmp_path: Path) -> None:
    """A cache in the checkout (CircleCI's .gsvendor-cache) that a commit fills would supply the downloads
    index: an archive other than upstream's, taken for the URL's. Untracked, it is used."""
    cache = checkout / ".gsvendor-cache"
    cli.env["GSVENDOR_CACHE_DIR"] = str(cache)
    (checkout / "helm" / "demo" / "link").unlink()  # the fixture's link: verify would report it
    result = cli(checkout, "verify")
    assert result.returncode == 0, result.stderr
    (cache / "v1.0.0").mkdir(parents=True)
    (cache / "v1.0.0" / "urls.json").write_text("{}")
    git(checkout, "add", "-f", ".gsvendor-cache/v1.0.0/urls.json")
    before = snapshot(checkout)
    for args in (["verify"], ["sync", "v1.1.0", "--source", str(checkout.parent / "up-1.1.0")]):
        refused = cli(checkout, *args)
        assert_one_line_error(refused, 2, f"{cache}: git tracks files in this cache folder, so a checkout could")
    # reached through a link from outside, or in a checkout git calls of dubious ownership (another user's)
    (checkout.parent / "cache-link").symlink_to(cache)
    for name, extra in ((checkout.parent / "cache-link", {}), (cache, {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})):
        cli.env.update(GSVENDOR_CACHE_DIR=str(name), **extra)
        assert_one_line_error(cli(checkout, "verify"), 2, f"{name}: git tracks files in this cache folder")
    assert snapshot(checkout) == before


def test_a_cache_folder_another_user_owns_or_every_user_may_write_is_refused(
    checkout: Path, cli: Cli, tmp_path: Path
) -> None:
    """A stamp holds a file's parsed data: one rewritten (its sha256 line with it) in a shared cache under /tmp made
    sync write ``appVersion: pwned-v0.20.0``. Only this user's cache folder, closed to others, is read."""
    cache = tmp_path / "shared-cache"
    cli.env["GSVENDOR_CACHE_DIR"] = str(cache)
    (checkout / "helm" / "demo" / "link").unlink()  # the fixture's link: verify would report it
    assert cli(checkout, "verify").returncode == 0
    before = snapshot(checkout)
    cache.chmod(0o777)
    for args in (["verify"], ["sync", "v1.1.0", "--source", str(checkout.parent / "up-1.1.0")]):
        assert_one_line_error(cli(checkout, *args), 2, f"{cache}: a cache folder writable by every user lets others")
    cache.chmod(0o775)  # a user's own group (umask 002): not every user
    assert cli(checkout, "verify").returncode == 0
    if os.getuid() == 0:  # only root can give a folder away
        os.chown(cache, os.getuid() + 4242, -1)
        assert_one_line_error(cli(checkout, "verify"), 2, f"{cache}: a cache folder owned by user {os.getuid() + 4242}")
    assert snapshot(checkout) == before
