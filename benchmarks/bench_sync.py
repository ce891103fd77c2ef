"""Print sync timings: offline sync from the local tarball, a no-op re-sync, and `gsvendor --help` start-up.

Targets on the 2-core build machine: sync ≤ 1.5 s, --help ≤ 0.4 s. Figures are the median of
several runs of the real CLI in a subprocess, in a temporary copy of this project.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARBALL = ROOT.parent / "shared" / "upstream" / "kserve-v0.20.0.tar.gz"


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main(runs: int = 5) -> None:
    gsvendor = [sys.executable, "-m", "gsvendor", "--quiet"]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        shutil.copy(ROOT / "gsvendor.yaml", project)
        shutil.copytree(ROOT / "overlays", project / "overlays")
        fresh, noop = [], []
        for _ in range(runs):
            shutil.rmtree(project / "helm", ignore_errors=True)
            (project / "gsvendor.lock.yaml").unlink(missing_ok=True)
            fresh.append(timed([*gsvendor, "sync", "v0.20.0", "--source", str(TARBALL)], project))
            noop.append(timed([*gsvendor, "sync", "v0.20.0", "--source", str(TARBALL)], project))
        help_times = [timed([*gsvendor, "--help"], project) for _ in range(runs)]
    print(f"offline sync v0.20.0 (fresh helm/): {statistics.median(fresh):.3f} s  (target <= 1.5 s)")
    print(f"no-op re-sync:                      {statistics.median(noop):.3f} s")
    print(f"gsvendor --help start-up:           {statistics.median(help_times):.3f} s  (target <= 0.4 s)")


if __name__ == "__main__":
    main()
