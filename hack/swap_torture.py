"""Signals aimed at every step of sync's swap, then the next plain syncs: is helm/ always one version?

For each signal (KILL, TERM, INT) and each step N of the swap (every journal write, staged file,
backup, unlink, rmtree, rename, clean-up), a `gsvendor sync NEW` is started from a project synced
at OLD, with the test hook ``GSVENDOR_TEST_SWAP_STEP=N:SIGNAL`` (the process signals itself just
before step N). Then, on two copies of what it left, the plain syncs ``NEW`` then ``OLD``, and
``OLD`` then ``NEW``. Two scenarios: ``plain`` (no hand edit) and ``forced`` (a hand edit,
``sync NEW --force``; the follow-ups then use ``--force`` for NEW too, as the user asked for it).

Checked after every run: helm/ is exactly OLD's or NEW's tree (a hand edit aside, before it was
forced away) and the lock names that tag; the hand edit is in helm/ or in a backup; after each
follow-up no journal or staging folder remains and the follow-up succeeded without --force;
no traceback anywhere. After a TERM or INT the interrupted run itself left one version.

Each run is a fork of this process calling gsvendor's CLI entry point (no interpreter start-up),
so a few thousand runs take minutes. Prints counts; ``--json`` prints them as JSON; exit 1 when
any check failed.

    python hack/swap_torture.py                      # small synthetic project, every step
    python hack/swap_torture.py --real --stride 3    # v0.19.0 → v0.20.0 from ../shared/upstream
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = Path(os.environ.get("GSVENDOR_UPSTREAM_DIR") or ROOT.parent / "shared" / "upstream")
EDIT = b"# a hand edit\n"

SMALL = {  # OLD → NEW: a changed, a removed and an added file, a removed and an added folder, two charts
    "v1.0.0": {
        "charts/demo/Chart.yaml": b"apiVersion: v2\nname: demo\nversion: 1.0.0\n",
        "charts/demo/values.yaml": b"replicas: 1\n",
        "charts/demo/templates/a.yaml": b"kind: A\n",
        "charts/demo/templates/old/x.yaml": b"kind: X\n",
        "charts/other/Chart.yaml": b"apiVersion: v2\nname: other\nversion: 1.0.0\n",
    },
    "v1.1.0": {
        "charts/demo/Chart.yaml": b"apiVersion: v2\nname: demo\nversion: 1.1.0\n",
        "charts/demo/values.yaml": b"replicas: 1\n",
        "charts/demo/templates/new/y.yaml": b"kind: Y\n",
        "charts/other/Chart.yaml": b"apiVersion: v2\nname: other\nversion: 1.1.0\n",
    },
}
SMALL_CONFIG = "upstream: {repository: example/demo}\noutput: helm\ncharts: [demo, other]\n"


def tree(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def strays(project: Path) -> list[str]:
    found = [p for p in project.rglob(".gsvendor-staging-*")] + list(project.glob(".git/gsvendor/journal*"))
    return sorted(p.relative_to(project).as_posix() for p in found)


def lock_tag(project: Path) -> str | None:
    lock = project / "gsvendor.lock.yaml"
    if not lock.is_file():
        return None
    for line in lock.read_text().splitlines():
        if line.startswith("tag: "):
            return line[5:].strip()
    return None


def run(project: Path, args: list[str], hook: str | None = None, trace: Path | None = None) -> tuple[int, str]:
    """Fork, run ``gsvendor ARGS`` in ``project`` in the child, return (exit status, stderr).

    A status below 0 is the signal that ended the child.
    """
    err_path = project.parent / f".stderr-{os.getpid()}"
    pid = os.fork()
    if pid == 0:  # the child: a gsvendor process as a user starts it, minus the interpreter start-up
        code = 70
        try:
            os.chdir(project)
            if hook:
                os.environ["GSVENDOR_TEST_SWAP_STEP"] = hook
            if trace:
                os.environ["GSVENDOR_TEST_SWAP_TRACE"] = str(trace)
            out = os.open(os.devnull, os.O_WRONLY)
            err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(err, 2)
            sys.argv = ["gsvendor", "--quiet", *args]
            from gsvendor.cli import main

            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 71
        finally:
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    stderr = err_path.read_text(errors="replace") if err_path.exists() else ""
    err_path.unlink(missing_ok=True)
    return code, stderr


class Torture:
    def __init__(self, work: Path, real: bool) -> None:
        self.work = work
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []
        if real:
            self.old, self.new = "v0.19.0", "v0.20.0"
            self.sources = {t: str(UPSTREAM / f"kserve-{t}.tar.gz") for t in (self.old, self.new)}
            self.config = (ROOT / "gsvendor.yaml").read_text()
            self.overlays = ROOT / "overlays"
            self.edited = "helm/kserve-resources/values.yaml"
        else:
            self.old, self.new = "v1.0.0", "v1.1.0"
            self.sources = {}
            for tag, files in SMALL.items():
                folder = work / f"upstream-{tag}"
                for rel, data in files.items():
                    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                    (folder / rel).write_bytes(data)
                self.sources[tag] = str(folder)
            self.config = SMALL_CONFIG
            self.overlays = None
            self.edited = "helm/demo/values.yaml"
        self.expected = {}
        for tag in (self.old, self.new):
            project = self.fresh(f"expected-{tag}")
            self.sync(project, tag, must=0)
            self.expected[tag] = tree(project / "helm")
        self.base = self.fresh("base")
        self.sync(self.base, self.old, must=0)

    def fresh(self, name: str) -> Path:
        """A new project folder, a git work tree: its journal (in .git/) travels with its copies."""
        project = self.work / name
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True, stdin=subprocess.DEVNULL)
        (project / "gsvendor.yaml").write_text(self.config)
        if self.overlays:
            shutil.copytree(self.overlays, project / "overlays")
        else:
            (project / "overlays").mkdir()
        return project

    def sync(
        self,
        project: Path,
        tag: str,
        *extra: str,
        must: int | None = None,
        hook: str | None = None,
        trace: Path | None = None,
    ) -> tuple[int, str]:
        code, stderr = run(project, ["sync", tag, "--source", self.sources[tag], *extra], hook, trace)
        self.counts["runs"] += 1
        if "Traceback" in stderr:
            self.problem("traceback", project, stderr.strip().splitlines()[-1])
        if must is not None and code != must:
            self.problem(f"exit {code} (expected {must})", project, stderr.strip()[-300:])
        return code, stderr

    def problem(self, kind: str, project: Path, detail: str = "") -> None:
        self.counts[f"problem: {kind}"] += 1
        self.problems.append(f"{project.name}: {kind}: {detail}")

    def steps(self, forced: bool) -> int:
        project = self.copy(self.base, "trace")
        trace = self.work / "trace.txt"
        trace.unlink(missing_ok=True)
        args = ["--force"] if forced else []
        if forced:
            (project / self.edited).write_bytes(EDIT)
        self.sync(project, self.new, *args, must=0, trace=trace)
        count = len(trace.read_text().splitlines())
        shutil.rmtree(project)
        return count

    def copy(self, source: Path, name: str) -> Path:
        target = self.work / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, symlinks=True)
        return target

    def check_edit(self, project: Path, when: str) -> None:
        """The hand edit is in helm/ or in a backup folder."""
        if (project / self.edited).is_file() and (project / self.edited).read_bytes() == EDIT:
            return
        if not [p for p in project.glob(".gsvendor-backup/*/" + self.edited) if p.read_bytes() == EDIT]:
            self.problem("hand edit lost", project, when)

    def check(self, project: Path, when: str, *, edit_pending: bool, settled: bool) -> str | None:
        """Classify helm/ as OLD or NEW (a pending hand edit allowed); count what is wrong."""
        helm = tree(project / "helm")
        edited = self.edited.removeprefix("helm/")
        in_helm = edit_pending and helm.get(edited) == EDIT
        if edit_pending:
            self.check_edit(project, when)
        version = None
        for tag, expected in self.expected.items():
            if in_helm:  # the edit not yet forced away: every other file must match
                expected = {k: v for k, v in expected.items() if k != edited}
            if {k: v for k, v in helm.items() if not (in_helm and k == edited)} == expected:
                version = tag
        if version is None:
            self.problem("helm/ is not one version", project, when)
        elif lock_tag(project) != version:
            self.problem("lock disagrees with helm/", project, f"{when}: lock {lock_tag(project)}, helm {version}")
        if settled and strays(project):
            self.problem("stray journal or staging", project, f"{when}: {strays(project)}")
        return version

    def trial(self, forced: bool, sig: str, step: int, quick: bool = False) -> None:
        project = self.copy(self.base, "victim")
        args = ["--force"] if forced else []
        if forced:
            (project / self.edited).write_bytes(EDIT)
        code, stderr = self.sync(project, self.new, *args, hook=f"{step}:{sig}")
        self.counts[f"{'forced' if forced else 'plain'} {sig} exit {code}"] += 1
        settled = sig != "KILL"
        if settled and code not in (0, 130):
            self.problem(f"exit {code} after SIG{sig}", project, stderr.strip()[-300:])
        if settled and code == 130 and len(stderr.strip().splitlines()) != 1:
            self.problem("not one line on interrupt", project, stderr)
        if settled:  # after SIGKILL helm/ may be mid-swap until the next run recovers it
            version = self.check(project, f"SIG{sig} at step {step}", edit_pending=forced, settled=settled)
            self.counts[f"left {'nothing' if version is None else version} after SIG{sig}"] += 1
        elif forced:
            self.check_edit(project, f"SIG{sig} at step {step}")
        orders = [(self.new, self.old), (self.old, self.new)]
        for order in [orders[step % 2]] if quick else orders:
            follow = self.copy(project, "follow")
            for tag in order:
                code, stderr = self.sync(follow, tag)
                edited = (follow / self.edited).is_file() and (follow / self.edited).read_bytes() == EDIT
                if code == 1 and forced and edited and self.edited in stderr:  # the edit is still there: refused
                    self.counts["follow-up refused the hand edit, then --force"] += 1
                    self.sync(follow, tag, "--force", must=0)
                elif code != 0:  # no hand edit on disk: a plain sync must succeed, whatever the last run left
                    self.problem(f"follow-up exit {code}", follow, stderr.strip()[-300:])
                self.check(
                    follow, f"SIG{sig} at step {step}, then sync {' '.join(order)}", edit_pending=forced, settled=True
                )
            self.counts["follow-up pairs"] += 1
        self.counts["trials"] += 1


def preload() -> None:
    """Run one small sync in this process, so everything a sync imports is loaded before the forks."""
    import contextlib
    import io

    from gsvendor.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for rel, data in SMALL["v1.0.0"].items():
            (folder / "up" / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / "up" / rel).write_bytes(data)
        (folder / "p" / "overlays").mkdir(parents=True)
        (folder / "p" / "gsvendor.yaml").write_text(SMALL_CONFIG)
        argv, cwd = sys.argv, os.getcwd()
        sys.argv = ["gsvendor", "sync", "v1.0.0", "--source", str(folder / "up")]
        os.chdir(folder / "p")
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                main()
        except SystemExit:
            pass
        finally:
            sys.argv = argv
            os.chdir(cwd)
    for name in ("SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", action="store_true", help="v0.19.0 → v0.20.0 with this project's configuration")
    parser.add_argument("--signals", default="KILL,TERM,INT", help="comma-separated (default KILL,TERM,INT)")
    parser.add_argument("--stride", type=int, default=1, help="aim at every Nth step only (default 1: all)")
    parser.add_argument("--repeat", type=int, default=1, help="repeat the whole sweep (default 1)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument(
        "--quick", action="store_true", help="one follow-up order per step (NEW then OLD, OLD then NEW alternately)"
    )
    options = parser.parse_args()
    preload()

    with tempfile.TemporaryDirectory(prefix="gsvendor-torture-") as tmp:
        torture = Torture(Path(tmp), options.real)
        for _ in range(options.repeat):
            for forced in (False, True):
                total = torture.steps(forced)
                torture.counts[f"{'forced' if forced else 'plain'} swap steps"] = total
                for sig in options.signals.split(","):
                    for step in range(1, total + 2, options.stride):  # one past the end: a clean run
                        torture.trial(forced, sig, step, options.quick)
    counts = dict(sorted(torture.counts.items()))
    failed = sum(v for k, v in counts.items() if k.startswith("problem"))
    if options.json:
        print(json.dumps({"counts": counts, "problems": torture.problems[:50], "failed": failed}, indent=1))
    else:
        for key, value in counts.items():
            print(f"{key:60} {value}")
        for line in torture.problems[:50]:
            print("  " + line)
        print(f"{'FAILED' if failed else 'ok'}: {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
