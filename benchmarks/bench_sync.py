"""Print sync, verify and diff against their floors (plain `tar` + `cp`/`diff`), in one paired run.

Not a test: figures for the CI log (``make bench``). Each repeat times gsvendor and then its floor
back to back, and the median of the per-repeat ratios is printed, so load from other processes on
the machine hits both sides of a pair alike. Targets on the 2-core build machine:

- ``sync v0.20.0`` into an empty helm/ ≤ 4× ``tar xzf`` + ``cp -r`` of the charts;
- no-op re-sync and ``verify`` ≤ 4× ``tar xzf`` + ``diff -rq``;
- ``diff`` ≤ 3× ``tar xzf`` + ``diff -ruN``, and its matcher linear in the changed lines;
- sync of 100 charts: peak RSS ≤ 150 MB, ≤ 0.03 s CPU per chart added (every chart generated);
- ``gsvendor --help`` ≤ 0.12 s.

    .venv/bin/python benchmarks/bench_sync.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARBALL = ROOT.parent / "shared" / "upstream" / "kserve-v0.20.0.tar.gz"
CHARTS = ["kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs"]
GSVENDOR = [sys.executable, "-m", "gsvendor", "--quiet"]
# as installed for users: byte code cached (PYTHONDONTWRITEBYTECODE would compile every module each run);
# the cache (validation stamps, generated files) is the benchmark's own (main() sets it), warm after
# the first run as a user's is; the "generating" rows start without the generated files
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one process and its children, waited for with wait4. Dirty pages are
    written out first, off the clock: else a run pays for the previous run's writeback, and ``tar`` + ``cp``
    (which leave ~10 MB unwritten; sync fsyncs what it writes) measured 0.075 s of CPU or 0.2 s by turns."""
    os.sync()
    start = time.perf_counter()
    process = subprocess.Popen(args, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if process.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {process.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def shell(script: str, cwd: Path) -> tuple[float, float]:
    return run(["sh", "-c", script], cwd)[:2]


def project(folder: Path, charts: list[dict[str, str]] | None = None) -> Path:
    """A copy of this project's configuration and overlays (or ``charts`` and no overlays) in ``folder``."""
    folder.mkdir()
    if charts is None:
        shutil.copy(ROOT / "gsvendor.yaml", folder)
        shutil.copytree(ROOT / "overlays", folder / "overlays")
    else:
        (folder / "overlays").mkdir()
        lines = ["upstream:", "  repository: kserve/kserve", "output: helm", "overlays: overlays"]
        lines += ["lock: gsvendor.lock.yaml", "charts:"]
        lines += [f"  - {{name: {c['name']}, path: {c['path']}, dest: {c['dest']}}}" for c in charts]
        (folder / "gsvendor.yaml").write_text("\n".join(lines) + "\n")
    return folder


def without_generated(base: Path) -> Path:
    """A copy of the benchmark's cache without the generated files (validation stamps kept): a run
    with it generates every chart, as the first run after a change to a chart's inputs does."""
    copy = Path(tempfile.mkdtemp(prefix="cache-", dir=base))
    shutil.copytree(base / "cache", copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("generated"))
    return copy


def paired(label: str, ours: object, floor: object, repeats: int, target: float) -> None:
    """Time ``ours`` and ``floor`` (each returning (wall, CPU)) back to back; print median ratios."""
    walls, cpus, mine, base = [], [], [], []
    for _ in range(repeats):
        a, b = ours(), floor()  # type: ignore[operator]
        mine.append(a)
        base.append(b)
        walls.append(a[0] / b[0])
        cpus.append(a[1] / b[1])
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    mark = "ok" if min(wall, cpu) <= target else "OVER"
    print(
        f"{label:<26} {statistics.median(m[0] for m in mine):6.3f} s ({statistics.median(m[1] for m in mine):.3f} CPU)"
        f"  floor {statistics.median(b[0] for b in base):6.3f} s ({statistics.median(b[1] for b in base):.3f} CPU)"
        f"  ratio wall {wall:5.2f}x CPU {cpu:5.2f}x  (target <= {target}x, {mark})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats
    tag = "v0.20.0"
    source = ["sync", tag, "--source", str(TARBALL)]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ENV["GSVENDOR_CACHE_DIR"] = str(base / "cache")
        work = project(base / "project")
        charts = " ".join(f"x/*/charts/{c}" for c in CHARTS)
        untar = f"mkdir x && tar xzf {TARBALL} -C x"  # the folders it fills are removed before the clock starts
        diff_each = " ; ".join(f"diff {{flags}} x/*/charts/{c} helm/{c}" for c in CHARTS)

        def fresh() -> tuple[float, float]:
            shutil.rmtree(work / "helm", ignore_errors=True)
            (work / "gsvendor.lock.yaml").unlink(missing_ok=True)
            return run([*GSVENDOR, *source], work)[:2]

        def copy_floor() -> tuple[float, float]:
            for folder in (base / "x", base / "out"):
                shutil.rmtree(folder, ignore_errors=True)
            return shell(f"{untar} && mkdir out && cp -r {charts} out/", base)

        print(f"paired medians of {repeats} repeats. Other processes may share this machine's cores: then")
        print("wall times are noisy and the CPU ratio (user + system, children included) is the steadier figure")
        fresh()  # warm-up: byte code, page cache
        paired("sync v0.20.0, empty helm/", fresh, copy_floor, repeats, 4)

        def fresh_cold() -> tuple[float, float]:
            shutil.rmtree(work / "helm", ignore_errors=True)
            (work / "gsvendor.lock.yaml").unlink(missing_ok=True)
            return run([*GSVENDOR, "--cache-dir", str(without_generated(base)), *source], work)[:2]

        paired("  the same, generating", fresh_cold, copy_floor, repeats, 4)
        fresh()

        def diff_floor(flags: str) -> object:
            def timed() -> tuple[float, float]:
                shutil.rmtree(work / "x", ignore_errors=True)
                return shell(f"{untar} && ({diff_each.format(flags=flags)}) >/dev/null; true", work)

            return timed

        paired("no-op re-sync", lambda: run([*GSVENDOR, *source], work)[:2], diff_floor("-rq"), repeats, 4)
        paired("verify", lambda: run([*GSVENDOR, "verify"], work)[:2], diff_floor("-rq"), repeats, 4)
        paired("diff", lambda: run([*GSVENDOR, "diff"], work)[:2], diff_floor("-ruN"), repeats, 3)
        many_charts(base, repeats)
        help_times = sorted(run([*GSVENDOR, "--help"], work)[:2] for _ in range(repeats))
        wall, cpu = help_times[len(help_times) // 2]
        print(f"{'gsvendor --help':<26} {wall:6.3f} s  ({cpu:.3f} s CPU)  (target <= 0.12 s)")
        # last: it grows this process by ~200 MB, and a child forked after that reports this
        # process's peak as its own (Linux keeps ru_maxrss across fork and exec)
        linear_diff()


def linear_diff() -> None:
    """The unified-diff matcher on one large file: cost follows the changed lines, not the file size."""
    from gsvendor.vendoring.compare import unified

    crd = next((ROOT / "helm" / "kserve-crd").rglob("serving.kserve.io_inferenceservices.yaml"), None)
    if crd is None:
        print("diff linearity: skipped (run `make sync` first)")
        return
    # every line made unique, so the change alone differs (a changed line that also occurs in the
    # unchanged head or tail makes the matcher fall back to difflib over the whole file)
    lines = crd.read_bytes().splitlines()

    def unique(copies: int) -> bytes:
        return b"".join(b"%s # %d\n" % (line, n) for n, line in enumerate(lines * copies))

    def timed(data: bytes, changed: int) -> float:
        split = data.splitlines(keepends=True)
        middle = len(split) // 2
        edited = split[:middle] + [b"# changed %d\n" % n for n in range(changed)] + split[middle + changed :]
        after = b"".join(edited)
        start = time.perf_counter()
        unified("f", data, after, ("a", "b"))
        return time.perf_counter() - start

    text, bigger = unique(1), unique(10)
    small, large = timed(text, 10), timed(bigger, 10)
    few, many = timed(bigger, 10), timed(bigger, 100)
    print(
        f"{'diff matcher, 10 lines':<26} {len(text) >> 20} MiB file {small * 1000:.1f} ms, "
        f"10x the file {large * 1000:.1f} ms ({large / small:.1f}x); 10x the changes {many / few:.1f}x"
    )


def many_charts(base: Path, repeats: int) -> None:
    """Sync of 5 and of 100 charts (copies of the upstream charts): peak RSS and CPU per added chart."""
    measured = {}
    for count in (5, 100):
        specs = [
            {"name": f"c{n}", "path": f"charts/{CHARTS[n % len(CHARTS)]}", "dest": f"helm/c{n}"} for n in range(count)
        ]
        folder = project(base / f"charts-{count}", specs)
        samples = []
        for _ in range(max(1, repeats // 2)):
            shutil.rmtree(folder / "helm", ignore_errors=True)
            (folder / "gsvendor.lock.yaml").unlink(missing_ok=True)
            cache = ["--cache-dir", str(without_generated(base))]  # every chart generated
            samples.append(run([*GSVENDOR, *cache, "sync", "v0.20.0", "--source", str(TARBALL)], folder))
        measured[count] = (statistics.median(s[1] for s in samples), max(s[2] for s in samples) / 1024)
    per_chart = (measured[100][0] - measured[5][0]) / 95
    print(
        f"{'sync of 100 charts':<26} {measured[100][0]:6.2f} s CPU, peak RSS {measured[100][1]:.0f} MB "
        f"(target <= 150 MB); {per_chart:.3f} s CPU per added chart (target <= 0.03 s)"
    )


if __name__ == "__main__":
    main()
