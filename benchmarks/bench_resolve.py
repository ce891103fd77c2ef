"""Benchmark: `check-images --resolve` lookups against a real local OCI registry.

Not a test; prints figures. Needs Debian's docker-registry (`apt-get install docker-registry`):

    .venv/bin/python benchmarks/bench_resolve.py [--references 100] [--repeats 3] [--jobs 8] [--latency 20]

Starts docker-registry on 127.0.0.1 at a free port with a temporary storage folder, pushes
``--references`` small artifacts with oras-py (10 repositories, a tag per artifact), then resolves
every reference with a fresh resolver (no cache carried over) in parallel (``--jobs``) and serially
(one job), and prints the median wall times. The target is ≤ 2 s for 100 references with the
parallelism on. The local registry answers in about a millisecond, which hides what parallelism is
for; the second pair of figures goes through a proxy on 127.0.0.1 that delays every request by
``--latency`` milliseconds, a remote registry's round trip. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from registrykit import FlakyProxy, LocalRegistry  # noqa: E402

from gsvendor.images import registry as resolve  # noqa: E402
from gsvendor.images.reference import parse  # noqa: E402


def timed(targets: list[resolve.Target], options: resolve.ResolveOptions) -> tuple[float, int, int]:
    """(seconds, resolved count, requests) of one fresh resolver asking for every target."""
    resolver = resolve.Resolver(options)
    start = time.perf_counter()
    found = resolver.resolve(targets)
    seconds = time.perf_counter() - start
    resolver.close()
    return seconds, sum(1 for r in found.values() if r.ok), resolver.requests


def compare(host: str, names: list[str], jobs: int, repeats: int) -> tuple[float, float, int, int]:
    """Median (parallel, serial) seconds, resolved count and requests per repeat for ``names`` at ``host``."""
    targets = [resolve.target_of(parse(f"{host}/{name}")) for name in names]
    parallel_options = resolve.ResolveOptions(jobs=jobs, insecure=frozenset({host}))
    serial_options = resolve.ResolveOptions(jobs=1, insecure=frozenset({host}))
    timed(targets[:5], parallel_options)  # warm-up: imports, first connections
    parallel, serial = [], []
    ok = requests = 0
    for _ in range(repeats):
        seconds, ok, requests = timed(targets, parallel_options)
        parallel.append(seconds)
        seconds, ok_serial, _ = timed(targets, serial_options)
        serial.append(seconds)
        ok = min(ok, ok_serial)
    return statistics.median(parallel), statistics.median(serial), ok, requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--references", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=resolve.DEFAULT_JOBS)
    parser.add_argument("--latency", type=float, default=20.0, help="milliseconds per request through the proxy")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, LocalRegistry(Path(tmp) / "registry") as registry:
        start = time.perf_counter()
        names = [f"bench/app-{i % 10}:v{i}" for i in range(args.references)]
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda i: registry.push(names[i], f"artifact {i}".encode()), range(len(names))))
        pushed = time.perf_counter() - start
        print(f"registry: docker-registry on {registry.host}; pushed {len(names)} artifacts in {pushed:.1f} s")
        rows = [("direct", *compare(registry.host, names, args.jobs, args.repeats))]
        with FlakyProxy(registry.host, failures=0, delay=args.latency / 1000) as proxy:
            rows.append((f"+{args.latency:g} ms", *compare(proxy.host, names, args.jobs, args.repeats)))

    for label, par, ser, ok, requests in rows:
        print(
            f"{label:>9}: {ok}/{len(names)} resolved, {requests} requests; "
            f"parallel ({args.jobs} jobs) {par:.3f} s, serial {ser:.3f} s, speed-up {ser / par:.1f}x"
            f"{'  (target ≤ 2 s: met)' if par <= 2 else '  (target ≤ 2 s: MISSED)'}"
        )


if __name__ == "__main__":
    main()
