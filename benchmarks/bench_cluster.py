"""Benchmark: the cluster tests' API server (etcd + kube-apiserver on loopback) from start to ready,
and the wall time of `make cluster-test` (pytest tests/cluster).

Not a test; prints figures. Run from the project root after `make tools` and `make sync`:

    .venv/bin/python benchmarks/bench_cluster.py [--rounds N] [--no-suite]

Start to ready: kube-apiserver's process start to the first 200 from /readyz (etcd started just
before, each round in a fresh folder; the target is ≤ 20 s). The suite runs once, as CI runs it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from cluster.kubekit import binaries, running_cluster  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-suite", action="store_true", help="time the start to ready only")
    args = parser.parse_args()
    found = binaries()
    if None in found.values():
        sys.exit(f"not installed: {', '.join(n for n, p in found.items() if p is None)} (make tools)")
    ready, whole = [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="bench-cluster-") as folder:
            start = time.perf_counter()
            with running_cluster(Path(folder), str(found["kube-apiserver"]), str(found["etcd"])) as cluster:
                ready.append(cluster.ready_seconds)
                whole.append(time.perf_counter() - start)
    print(f"machine: {os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.2f}; {args.rounds} rounds")
    print(
        f"kube-apiserver start to ready    median {statistics.median(ready):6.2f} s"
        f" (min {min(ready):.2f}, max {max(ready):.2f}; target ≤ 20 s)"
    )
    print(f"etcd + key pair + server ready   median {statistics.median(whole):6.2f} s")
    if args.no_suite:
        return
    start = time.perf_counter()
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/cluster"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    summary = suite.stdout.strip().splitlines()[-1] if suite.stdout.strip() else suite.stderr.strip()[-200:]
    print(f"make cluster-test (pytest tests/cluster) wall {wall:6.1f} s: {summary}")


if __name__ == "__main__":
    main()
