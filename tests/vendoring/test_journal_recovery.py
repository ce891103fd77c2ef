"""Recovery that never destroys, and swaps that end as one line with the output old or new: an edit
made between a crash and the recovery is backed up and named; backups are fsync'd before the
commit and named after a signal past it; a mount point inside a chart folder (EXDEV) and a full
disk (ENOSPC, also on the journal's commit write) stop the swap before anything changed; a sync
whose summary cannot be written after the swap says what changed and exits 1, not 2."""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, require_tool, tree
from test_robust import SMALL_CONFIG, journal_of, small_upstream

from gsvendor.vendoring import backup, journal


@pytest.fixture
def small(tmp_path: Path, cli: Cli) -> Path:
    """A small project synced at v1.0.0 (outside git: its journal is in the ``cli`` cache)."""
    project = tmp_path / "small"
    (project / "overlays").mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(SMALL_CONFIG)
    for version in ("1.0.0", "1.1.0"):
        small_upstream(tmp_path / f"up-{version}", version)
    assert cli(project, "sync", "v1.0.0", "--source", str(tmp_path / "up-1.0.0")).returncode == 0
    return project


def sync_args(project: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gsvendor", "sync", "v1.1.0", "--source", str(project.parent / "up-1.1.0"), *extra]


def steps_of(cli: Cli, project: Path, *extra: str) -> list[str]:
    """The swap's steps (``N label``) of ``sync v1.1.0`` on a copy of ``project``."""
    probe, trace = project.parent / "probe", project.parent / "trace"
    subprocess.run(["cp", "-a", str(project), str(probe)], check=True)
    env = {**cli.env, "GSVENDOR_TEST_SWAP_TRACE": str(trace)}
    assert subprocess.run(sync_args(probe, *extra), cwd=probe, env=env, capture_output=True).returncode == 0
    return trace.read_text().splitlines()


def first_after_commit(steps: list[str]) -> int:
    return next(int(line.split()[0]) for line in steps if line.split()[1] in ("unlink", "rmtree", "write"))


def test_an_edit_made_between_the_crash_and_the_recovery_is_backed_up_and_named(small: Path, cli: Cli) -> None:
    steps = steps_of(cli, small)
    expected = tree(small.parent / "probe" / "helm")
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_after_commit(steps)}:KILL"}
    assert subprocess.run(sync_args(small), cwd=small, env=env, capture_output=True).returncode == -9
    # after the crash: a file the swap replaces and one it removes are edited
    (small / "helm/other/Chart.yaml").write_text("mine\n")
    (small / "helm/demo/templates/only-1.0.0.yaml").write_text("mine too\n")
    result = cli(small, "verify")
    assert result.returncode == 0, result.stderr
    kept = sorted((small / ".gsvendor-backup").iterdir())
    assert len(kept) == 1
    name = kept[0].relative_to(small).as_posix()
    assert result.stderr == (
        f"recovered: completed the interrupted sync of v1.1.0; files changed since were kept in {name}\n"
    )
    assert tree(kept[0]) == {
        "helm/other/Chart.yaml": b"mine\n",
        "helm/demo/templates/only-1.0.0.yaml": b"mine too\n",
    }
    assert tree(small / "helm") == expected
    assert not journal_of(small).exists()


def test_an_unedited_recovery_makes_no_backup(small: Path, cli: Cli) -> None:
    steps = steps_of(cli, small)
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_after_commit(steps) + 2}:KILL"}
    assert subprocess.run(sync_args(small), cwd=small, env=env, capture_output=True).returncode == -9
    result = cli(small, "verify")
    assert result.stderr == "recovered: completed the interrupted sync of v1.1.0\n"
    assert not (small / ".gsvendor-backup").exists()


def test_a_signal_after_the_commit_names_the_hand_edits_backup(small: Path, cli: Cli) -> None:
    (small / "helm/demo/values.yaml").write_text("replicas: 9\n")
    steps = steps_of(cli, small, "--force")
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_after_commit(steps)}:TERM"}
    result = subprocess.run(sync_args(small, "--force"), cwd=small, env=env, capture_output=True, text=True)
    assert result.returncode == 130, result.stderr
    (kept,) = (small / ".gsvendor-backup").iterdir()
    assert result.stderr == (
        "interrupted, but only after the sync of v1.1.0 had completed; "
        f"the hand edits' backup is in .gsvendor-backup/{kept.name}\n"
    )
    assert (kept / "helm/demo/values.yaml").read_text() == "replicas: 9\n"
    assert tree(small / "helm") == tree(small.parent / "probe" / "helm")


def test_backups_are_fsynced_files_and_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file and folder of a backup, its parent and the project folder are fsync'd before
    copy_backup returns (the swap commits only after it)."""
    (tmp_path / "helm/demo/templates").mkdir(parents=True)
    (tmp_path / "helm/demo/templates/a.yaml").write_text("a\n")
    (tmp_path / "helm/demo/values.yaml").write_text("v\n")
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(backup.os, "fsync", spy)
    kept = backup.copy_backup(tmp_path, ["helm/demo/templates", "helm/demo/values.yaml"])
    made = {str(p) for p in kept.rglob("*")} | {str(kept)}
    assert made <= set(synced)
    assert {str(tmp_path / ".gsvendor-backup"), str(tmp_path)} <= set(synced)
    assert tree(kept) == {"helm/demo/templates/a.yaml": b"a\n", "helm/demo/values.yaml": b"v\n"}


def test_a_sync_whose_summary_cannot_be_written_says_what_changed(small: Path, cli: Cli) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            sync_args(small), cwd=small, env=cli.env, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert result.returncode == 1
    assert result.stderr == (
        "error: stdout: cannot write the output: No space left on device; but the sync of v1.1.0 was completed: "
        "the output and gsvendor.lock.yaml changed\n"
    )
    assert "tag: v1.1.0" in (small / "gsvendor.lock.yaml").read_text()
    with open("/dev/full", "w") as full:  # up to date: nothing changed, exit 2
        again = subprocess.run(sync_args(small), cwd=small, env=cli.env, stdout=full, stderr=subprocess.PIPE, text=True)
    assert again.returncode == 2
    assert again.stderr == "error: stdout: cannot write the output: No space left on device\n"


# --- other file systems: a mount point in a chart folder, a full disk -------------------------------


def _namespace() -> list[str] | None:
    """The command that runs a shell in a private mount namespace (mounts vanish with it), or
    ``None`` when this machine allows none (no root and no user namespaces)."""
    for command in (["unshare", "-m"], ["unshare", "-rm"]):
        try:
            if subprocess.run([*command, "true"], capture_output=True, timeout=30).returncode == 0:
                return command
        except (OSError, subprocess.SubprocessError):
            return None
    return None


NAMESPACE = _namespace()


@pytest.fixture
def mount_namespace() -> list[str]:
    """The mount-namespace command; without one the test fails under CI and skips elsewhere."""
    found = shutil.which("unshare") if NAMESPACE is not None else None
    require_tool("a mount namespace", found, "unshare -m as root, or -rm with user namespaces")
    assert NAMESPACE is not None
    return NAMESPACE


needs_mounts = pytest.mark.usefixtures("mount_namespace")


def in_namespace(cli: Cli, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (sh) in a private mount namespace; ``$PY`` is this Python."""
    assert NAMESPACE is not None
    env = {**cli.env, "PY": sys.executable}
    return subprocess.run(
        [*NAMESPACE, "sh", "-ec", script], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def copy_tree_script(source: Path, target: Path) -> str:
    return f"cp -a {shlex.quote(str(source))} {shlex.quote(str(target))}"


@needs_mounts
def test_a_mount_point_inside_a_chart_folder_stops_the_sync_before_anything_changes(small: Path, cli: Cli) -> None:
    """helm/demo/templates on its own file system: the rename of a staged file into it would fail
    with EXDEV half-way; the swap sees it while preparing and changes nothing."""
    before, after = small.parent / "before", small.parent / "after"
    q = shlex.quote
    script = (
        f"mount -t tmpfs -o size=1m tmpfs {q(str(small / 'helm/demo/templates'))}\n"
        f"echo 'kind: A' > {q(str(small / 'helm/demo/templates/only-1.0.0.yaml'))}\n"
        f"{copy_tree_script(small, before)}\n"
        f"cd {q(str(small))}; set +e\n"
        f'$PY -m gsvendor sync v1.1.0 --source {q(str(small.parent / "up-1.1.0"))}; echo "exit $?" >&2\n'
        f"{copy_tree_script(small, after)}\n"
    )
    result = in_namespace(cli, script)
    assert result.stderr == (
        "error: writing the output failed, nothing changed: helm/demo/templates: a mount point (another file "
        "system) inside the output; a swap cannot rename across it, unmount it or mount the whole destination "
        "folder\nexit 2\n"
    )
    assert tree(after) == tree(before)
    assert not list(after.rglob(".gsvendor-staging-*")) and not journal_of(small).exists()


@needs_mounts
def test_a_chart_folder_that_is_a_mount_point_is_staged_inside_it(small: Path, cli: Cli) -> None:
    after, expected = small.parent / "after", small.parent / "expected"
    subprocess.run(["cp", "-a", str(small), str(expected)], check=True)
    assert cli(expected, "sync", "v1.1.0", "--source", str(small.parent / "up-1.1.0")).returncode == 0
    q = shlex.quote
    demo = q(str(small / "helm/demo"))
    script = (
        f"cp -a {demo} {q(str(small.parent / 'demo'))}\n"
        f"mount -t tmpfs -o size=1m tmpfs {demo}\n"
        f"cp -a {q(str(small.parent / 'demo'))}/. {demo}/\n"
        f"cd {q(str(small))}\n"
        f"$PY -m gsvendor sync v1.1.0 --source {q(str(small.parent / 'up-1.1.0'))}\n"
        f"{copy_tree_script(small, after)}\n"
    )
    result = in_namespace(cli, script)
    assert result.returncode == 0, result.stderr
    assert tree(after / "helm") == tree(expected / "helm")


def many_templates(tmp_path: Path, count: int) -> Path:
    """An upstream at v1.1.0 whose demo chart has ``count`` more templates (a long journal)."""
    folder = small_upstream(tmp_path / "up-many", "1.1.0")
    for index in range(count):
        (folder / f"charts/demo/templates/t{index:03}.yaml").write_text(f"kind: T{index}\n")
    return folder


@needs_mounts
@pytest.mark.parametrize("write", ["prepare", "commit"])
def test_a_full_disk_on_a_journal_write_changes_nothing(tmp_path: Path, cli: Cli, write: str) -> None:
    """The journal's folder on a one-page tmpfs: the prepared journal fits, the committed one (each
    step and its states) does not: one line, the swap undone. ``prepare``: the page is taken."""
    project = tmp_path / "project"
    (project / "overlays").mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(SMALL_CONFIG)
    small_upstream(tmp_path / "up-1.0.0", "1.0.0")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert cli(project, "sync", "v1.0.0", "--source", str(tmp_path / "up-1.0.0")).returncode == 0
    up = many_templates(tmp_path, 40)
    before, after = tmp_path / "before", tmp_path / "after"
    subprocess.run(["cp", "-a", str(project), str(before)], check=True)
    q = shlex.quote
    script = (
        f"mount -t tmpfs -o size=4k tmpfs {q(str(project / '.git/gsvendor'))}\n"
        + (f"head -c 4096 /dev/zero > {q(str(project / '.git/gsvendor/full'))}\n" if write == "prepare" else "")
        + f"cd {q(str(project))}; set +e\n"
        f'$PY -m gsvendor sync v1.1.0 --source {q(str(up))}; echo "exit $?" >&2\n'
        f"{copy_tree_script(project, after)}\n"
    )
    result = in_namespace(cli, script)
    assert result.stderr == (
        "error: writing the output failed, nothing changed: .git/gsvendor/journal.json: No space left on device\n"
        "exit 2\n"
    )
    assert tree(after / "helm") == tree(before / "helm")
    assert (after / "gsvendor.lock.yaml").read_bytes() == (before / "gsvendor.lock.yaml").read_bytes()
    assert not list(after.rglob(".gsvendor-staging-*"))
    left = sorted(p.name for p in (after / ".git/gsvendor").iterdir())  # no journal, no temporary file
    assert left == (["full"] if write == "prepare" else [])


@needs_mounts
def test_a_full_disk_while_staging_changes_nothing(tmp_path: Path, cli: Cli) -> None:
    """The whole project on a small tmpfs, nearly full: staging a large new file fails (ENOSPC)."""
    fs = tmp_path / "fs"
    fs.mkdir()
    up = many_templates(tmp_path, 0)
    (up / "charts/demo/templates/big.yaml").write_text("# " + "x" * 400_000 + "\n")
    small_upstream(tmp_path / "up-1.0.0", "1.0.0")
    seed = tmp_path / "seed"
    (seed / "overlays").mkdir(parents=True)
    (seed / "gsvendor.yaml").write_text(SMALL_CONFIG)
    project, after = fs / "project", tmp_path / "after"
    q = shlex.quote
    script = (
        f"mount -t tmpfs -o size=256k tmpfs {q(str(fs))}\n"
        f"cp -a {q(str(seed))} {q(str(project))}\n"
        f"cd {q(str(project))}\n"
        f"$PY -m gsvendor sync v1.0.0 --source {q(str(tmp_path / 'up-1.0.0'))} >/dev/null\n"
        f"cp -a {q(str(project))} {q(str(tmp_path / 'before'))}\n"
        "set +e\n"
        f'$PY -m gsvendor sync v1.1.0 --source {q(str(up))}; echo "exit $?" >&2\n'
        f"{copy_tree_script(project, after)}\n"
    )
    result = in_namespace(cli, script)
    assert result.stderr == (
        "error: writing the output failed, nothing changed: helm/demo/templates/big.yaml: No space left on device\n"
        "exit 2\n"
    )
    assert tree(after) == tree(tmp_path / "before")
    assert not list(after.rglob(".gsvendor-staging-*"))


def test_the_device_check_finds_a_folder_on_another_file_system(tmp_path: Path) -> None:
    """Without mounts: /dev/shm is another file system than the project (a real second device),
    reached through the output folder ``helm``, a link to it."""
    shm = Path("/dev/shm")
    if os.environ.get("CI") != "true" and (not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev):
        pytest.skip("no second file system at /dev/shm")
    import tempfile

    with tempfile.TemporaryDirectory(dir=shm) as elsewhere:
        (Path(elsewhere) / "demo/templates").mkdir(parents=True)
        (tmp_path / "helm").symlink_to(elsewhere)
        device = os.stat(tmp_path).st_dev
        for rel, tree in (("helm/demo/templates/a.yaml", False), ("helm/demo", True)):
            with pytest.raises(OSError) as raised:
                journal._same_device(tmp_path, rel, device, tree)
            assert (raised.value.errno, raised.value.filename) == (errno.EXDEV, str(tmp_path / "helm"))
        journal._same_device(tmp_path, "gsvendor.lock.yaml", device, False)
        journal._same_device(tmp_path, "helm/demo/templates/a.yaml", os.stat(elsewhere).st_dev, False)


@needs_mounts
def test_a_recovery_that_cannot_back_up_an_edit_refuses_and_keeps_it(small: Path, cli: Cli) -> None:
    """The backup folder on a full file system: the recovery stops with one line before replacing
    the edited file, and the journal stays; with space again, the next command recovers."""
    steps = steps_of(cli, small)
    env = {**cli.env, "GSVENDOR_TEST_SWAP_STEP": f"{first_after_commit(steps)}:KILL"}
    assert subprocess.run(sync_args(small), cwd=small, env=env, capture_output=True).returncode == -9
    mine = "# mine\n" * 2000  # more than the one page the full file system has
    (small / "helm/other/Chart.yaml").write_text(mine)
    (small / ".gsvendor-backup").mkdir()
    before = small.parent / "before"
    subprocess.run(["cp", "-a", str(small), str(before)], check=True)
    q = shlex.quote
    script = (
        f"mount -t tmpfs -o size=4k tmpfs {q(str(small / '.gsvendor-backup'))}\n"
        f"cd {q(str(small))}; set +e\n"
        '$PY -m gsvendor verify; echo "exit $?" >&2\n'
    )
    result = in_namespace(cli, script)
    first, second = result.stderr.splitlines()
    label = journal_of(small)
    assert first.startswith(f"error: cannot finish the interrupted sync recorded in {label}: .gsvendor-backup/")
    assert first.endswith("/helm/other/Chart.yaml: No space left on device") and second == "exit 2"
    assert tree(small / "helm") == tree(before / "helm") and label.is_file()
    again = cli(small, "verify")
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith("recovered: completed the interrupted sync of v1.1.0; files changed since were kept")
    (kept,) = (small / ".gsvendor-backup").iterdir()
    assert (kept / "helm/other/Chart.yaml").read_text() == mine
