"""Print the time of the upgrade review, ``sync v0.20.0 --dry-run --report`` from a lock at v0.19.0,
against a plain ``sync v0.20.0 --dry-run`` of the same project, paired per round.

Not a test: figures for the CI log (``make bench``). Target on the 2-core build machine: the
report ≤ 1.5 s idle; the ratio to the plain dry run shows what the report itself costs (two
builds and their comparison: values, images, CRDs, RBAC, overlays).

    .venv/bin/python benchmarks/bench_upgrade_report.py [--rounds N]
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
UPSTREAM = ROOT.parent / "shared" / "upstream"
GSVENDOR = [sys.executable, "-m", "gsvendor", "--quiet"]


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([*GSVENDOR, *args], cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="gsvendor-bench-report-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
        shutil.copytree(ROOT / "overlays", project / "overlays")
        env = {**os.environ, "GSVENDOR_CACHE_DIR": str(Path(tmp) / "cache")}
        old, new = str(UPSTREAM / "kserve-v0.19.0.tar.gz"), str(UPSTREAM / "kserve-v0.20.0.tar.gz")
        timed(["sync", "v0.19.0", "--source", old], project, env)
        report = str(Path(tmp) / "report.md")
        timed(["sync", "v0.20.0", "--source", new, "--dry-run", "--report", report], project, env)  # warm caches
        pairs = []
        for _ in range(rounds):
            with_report = timed(["sync", "v0.20.0", "--source", new, "--dry-run", "--report", report], project, env)
            plain = timed(["sync", "v0.20.0", "--source", new, "--dry-run", "--json"], project, env)
            pairs.append((with_report, plain))
    reports, plains = [p[0] for p in pairs], [p[1] for p in pairs]
    ratio = statistics.median(r / p for r, p in pairs)
    print(f"sync --dry-run --report (v0.19.0 → v0.20.0): median {statistics.median(reports):.2f} s")
    print(f"sync --dry-run (the same tag, no report):    median {statistics.median(plains):.2f} s")
    print(f"the report costs {ratio:.1f}× the plain dry run (median of {rounds} paired rounds)")


if __name__ == "__main__":
    main()
