"""Benchmark: `gsvendor check-manifests --images` (both checks on one rendering) against
`gsvendor check-images` alone.

Not a test; prints figures. Run from the project root after `make sync` and `hack/install-helm.sh`:

    .venv/bin/python benchmarks/bench_check_manifests.py [--repeats N]

Both commands are timed end to end as a user runs them (process start, configuration, rendering
every chart × variant once, parsing, judging, the report), interleaved so drift on the machine
hits both alike; `check-manifests` alone is timed too. The ratio is (check-images +
check-manifests on one rendering) / check-images alone; the target is ≤ 1.10.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one gsvendor command, its helm processes included."""
    cpu, start = _children_cpu(), time.perf_counter()
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if process.returncode == 2:
        sys.exit(f"{' '.join(command[1:])} failed to run: {process.stderr.strip()}")
    return elapsed, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    gsvendor = str(ROOT / ".venv" / "bin" / "gsvendor")
    commands = {
        "check-images": [gsvendor, "--quiet", "check-images"],
        "check-manifests": [gsvendor, "--quiet", "check-manifests"],
        "check-manifests --images": [gsvendor, "--quiet", "check-manifests", "--images"],
    }
    for command in commands.values():  # warm the page cache, helm's binary and Python's bytecode
        timed(command)
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(args.repeats):
        for label, command in commands.items():
            runs[label].append(timed(command))
    print(f"machine: {os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.2f}; {args.repeats} repeats")
    for label, measured in runs.items():
        walls, cpus = [w for w, _ in measured], [c for _, c in measured]
        print(
            f"{label:26} wall median {statistics.median(walls):6.3f} s (min {min(walls):.3f}, max {max(walls):.3f})"
            f"   CPU median {statistics.median(cpus):6.3f} s"
        )
    alone = statistics.median(w for w, _ in runs["check-images"])
    both = statistics.median(w for w, _ in runs["check-manifests --images"])
    best = min(w for w, _ in runs["check-manifests --images"]) / min(w for w, _ in runs["check-images"])
    cpu = statistics.median(c for _, c in runs["check-manifests --images"]) / statistics.median(
        c for _, c in runs["check-images"]
    )
    print(
        f"ratio (check-images + check-manifests, one rendering) / check-images: median {both / alone:.2f}, "
        f"best {best:.2f}, CPU {cpu:.2f} (target ≤ 1.10)"
    )


if __name__ == "__main__":
    main()
