"""Benchmark: the Dockerfile reader on 20,000 stages and 20,000 ARGs of one stage.

Not a test; prints figures. Run from the project root:

    .venv/bin/python benchmarks/bench_parse.py [--count 20000] [--repeats 3]

Each FROM once rebuilt the map of every earlier stage's name and each stage ARG copied the
stage's ARGs so far (quadratic: 20,000 stages took about 60 s in ``versions --check``); the
reader is linear now. Prints the median seconds for ``count`` and for ``count / 4``: linear
time makes their ratio about 4, quadratic about 16. The target is well under 5 s for 20,000.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gsvendor.controller_images.dockerfile import parse  # noqa: E402


def text(count: int) -> str:
    """``count`` stages with an ARG each, then one stage with ``count`` ARGs."""
    stages = "".join(f"FROM golang:1.25 AS s{i}\nARG V{i}\nRUN echo {i}\n" for i in range(count))
    args = "FROM golang:1.25 AS last\n" + "".join(f"ARG A{i}=1\n" for i in range(count)) + f"FROM S{count - 1}\n"
    return "ARG KSERVE_VERSION=v1.0.0\n" + stages + args


def seconds(count: int, repeats: int) -> float:
    """The median wall time (s) of parsing :func:`text` of ``count`` over ``repeats`` runs."""
    source = text(count)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        parse(source)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Print the figures (no pass/fail)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    full = seconds(options.count, options.repeats)
    quarter = seconds(options.count // 4, options.repeats)
    count, repeats = options.count, options.repeats
    print(f"Dockerfile reader: {count} stages + {count} ARGs: {full:.2f} s (median of {repeats})")
    print(f"Dockerfile reader: {options.count // 4} of each: {quarter:.2f} s; ratio {full / quarter:.1f} (linear ≈ 4)")


if __name__ == "__main__":
    main()
