"""Benchmark: `gsvendor adopt --dry-run` on the charts `make sync` wrote, against the synced tag
and against an older tag (whose many upstream differences are inferred too).

Not a test; prints figures. Run from the project root after `make sync`:

    .venv/bin/python benchmarks/bench_adopt.py [--repeat N]

Each run infers the overlays of every chart in helm/, builds the output with them as sync does
and compares it with helm/ (nothing written). Printed per tag: the median wall time, the
operations inferred against the hand-written overlays' count, and what could not be expressed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gsvendor.config import load_config  # noqa: E402
from gsvendor.upstream.source import FetchOptions  # noqa: E402
from gsvendor.vendoring import lock as lockfile  # noqa: E402
from gsvendor.workflows.adopt import adopt  # noqa: E402

UPSTREAM = ROOT.parent / "shared" / "upstream"


def main() -> None:
    """Print the figures of ``--repeat`` runs per tag."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    config = load_config(ROOT / "gsvendor.yaml")
    synced = lockfile.read(config.lock_path).tag
    archives = sorted(UPSTREAM.glob("kserve-*.tar.gz"))
    older = [a.name[len("kserve-") : -len(".tar.gz")] for a in archives][:1]
    tags = [synced, *older]
    for tag in dict.fromkeys(tags):
        source = str(UPSTREAM / f"kserve-{tag}.tar.gz")
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = adopt(ROOT, tag, source, [], FetchOptions(cache_dir=None), dry_run=True)
            times.append(time.perf_counter() - start)
        print(
            f"adopt {tag} on helm/ ({synced}): {statistics.median(times):.2f} s median of {args.repeat}; "
            f"{result.operations} operations (hand-written: {result.existing}); "
            f"{len(result.problems)} not expressible"
        )


if __name__ == "__main__":
    main()
