"""Benchmark: `gsvendor check-images` against a plain serial loop of the same `helm template` calls.

Not a test; prints figures. Run from the project root after `make sync` and `hack/install-helm.sh`:

    .venv/bin/python benchmarks/bench_check_images.py [--rounds N]

The baseline is the cheapest way to get the same renders: the same helm invocations (one per
chart × variant, the variant list that check-images plans) run one after another on renderable
copies prepared before the clock starts. check-images is timed end to end as a user runs it:
process start, configuration, rendering, parsing, judging and the report. The ratio is
check-images / serial helm; the target is ≤ 1.0 (on a 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gsvendor import checkimages, render  # noqa: E402
from gsvendor.config import load_config  # noqa: E402


def helm_calls(helm: str, stack: ExitStack) -> list[list[str]]:
    """The helm command lines check-images runs, on renderable copies that live as long as ``stack``."""
    config = load_config(ROOT / "gsvendor.yaml")
    settings = checkimages.images_config(config)
    calls = []
    for chart in checkimages.chart_targets([], config):
        values = checkimages.load_values(chart).data
        copy = stack.enter_context(render.renderable_copy(chart.path))
        for variant in checkimages.plan_variants(values, settings.chart(chart.name)):
            args = [helm, "template", "release", str(copy), "--namespace", "default"]
            for values_file in variant.values_files:
                args += ["--values", str(values_file)]
            for expression in variant.set_values:
                args += ["--set", expression]
            for expression in variant.set_json:
                args += ["--set-json", expression]
            calls.append(args)
    return calls


def serial(calls: list[list[str]]) -> float:
    start = time.perf_counter()
    for args in calls:
        subprocess.run(args, capture_output=True, text=True, check=False)
    return time.perf_counter() - start


def check_images(gsvendor: str) -> float:
    start = time.perf_counter()
    process = subprocess.run([gsvendor, "check-images"], cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if process.returncode == 2:
        sys.exit(f"check-images failed to run: {process.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    helm = render.find_helm(project_root=ROOT)
    gsvendor = str(ROOT / ".venv" / "bin" / "gsvendor")
    with ExitStack() as stack, tempfile.TemporaryDirectory():
        calls = helm_calls(helm, stack)
        serial(calls)  # warm the page cache and helm's binary
        check_images(gsvendor)
        serial_times, tool_times = [], []
        for _ in range(args.rounds):  # interleaved, so drift on the machine hits both alike
            serial_times.append(serial(calls))
            tool_times.append(check_images(gsvendor))
    s, t = statistics.median(serial_times), statistics.median(tool_times)
    print(f"machine: {os.cpu_count()} CPU(s); {len(calls)} helm template calls over 5 charts; {args.rounds} rounds")
    print(f"serial helm template loop  median {s:6.3f} s  (min {min(serial_times):.3f}, max {max(serial_times):.3f})")
    print(f"gsvendor check-images      median {t:6.3f} s  (min {min(tool_times):.3f}, max {max(tool_times):.3f})")
    print(f"ratio check-images / serial helm: {t / s:.2f} (target ≤ 1.00)")


if __name__ == "__main__":
    main()
