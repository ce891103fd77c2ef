"""Benchmark: `gsvendor check-images` against a plain serial loop of the same `helm template` calls.

Not a test; prints figures. Run from the project root after `make sync` and `hack/install-helm.sh`:

    .venv/bin/python benchmarks/bench_check_images.py [--repeats N]

The baseline is the cheapest way to get the same renders: the same helm invocations (one per
chart × variant, the variant list that check-images plans) run one after another on renderable
copies prepared before the clock starts. check-images is timed end to end as a user runs it:
process start, configuration, rendering, parsing, judging and the report. The ratio is
check-images / serial helm; the target is ≤ 1.0 (on a 2-core machine). The same calls under
``xargs -P2`` are the parallel floor: check-images ≤ 1.15× of it (paired per repeat).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gsvendor.config import load_config  # noqa: E402
from gsvendor.images import render, variants  # noqa: E402

# as installed for users: byte code cached (PYTHONDONTWRITEBYTECODE would compile every module each run)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def helm_calls(helm: str, stack: ExitStack) -> list[list[str]]:
    """The helm command lines check-images runs, on renderable copies that live as long as ``stack``."""
    config = load_config(ROOT / "gsvendor.yaml")
    settings = variants.images_config(config)
    calls = []
    for chart in variants.chart_targets([], config):
        values = render.load_values(chart).data
        copy = stack.enter_context(render.renderable_copy(chart.path))
        for variant in variants.plan_variants(values, settings.chart(chart.name)):
            args = [helm, "template", "release", str(copy), "--namespace", "default"]
            for values_file in variant.values_files:
                args += ["--values", str(values_file)]
            for expression in variant.set_values:
                args += ["--set", expression]
            for expression in variant.set_json:
                args += ["--set-json", expression]
            calls.append(args)
    return calls


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def serial(calls: list[list[str]]) -> tuple[float, float]:
    """(wall, CPU) seconds of the helm calls run one after another."""
    cpu, start = _children_cpu(), time.perf_counter()
    for args in calls:
        subprocess.run(args, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, _children_cpu() - cpu


def parallel(calls: list[list[str]], jobs: int = 2, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of the helm calls under ``xargs -P2``: the floor check-images is held to
    (helm's own defaults; ``env``: the environment, e.g. with check-images' Go collector settings)."""
    import shlex

    script = "".join(shlex.join(args) + " >/dev/null 2>&1\0" for args in calls)
    cpu, start = _children_cpu(), time.perf_counter()
    command = ["xargs", "-0", f"-P{jobs}", "-n1", "sh", "-c"]
    subprocess.run(command, input=script, text=True, env=env or ENV, check=False)
    return time.perf_counter() - start, _children_cpu() - cpu


def pooled(calls: list[list[str]], jobs: int = 2) -> tuple[float, float]:
    """(wall, CPU) seconds of the helm calls from ``jobs`` threads of this process, each into an unnamed
    file read back once: check-images' own way of running helm, without its start-up and its parsing."""
    from concurrent.futures import ThreadPoolExecutor

    environ = render.helm_environment(ENV) or ENV  # as check-images runs helm

    def one(args: list[str]) -> bytes:
        with tempfile.TemporaryFile() as out:
            subprocess.run(args, stdout=out, stderr=subprocess.PIPE, env=environ, check=False)
            out.seek(0)
            return out.read()

    cpu, start = _children_cpu(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, calls))
    return time.perf_counter() - start, _children_cpu() - cpu


def first_render_delay(gsvendor: str, helm: str, folder: Path) -> float:
    """Seconds from starting `gsvendor check-images` to its first helm process (a bash shim in
    ``folder`` stands in for helm: it notes the time, then runs helm)."""
    log, shim = folder / "starts.log", folder / "helm"
    shim.write_text(f'#!/bin/bash\nprintf "%s\\n" "$EPOCHREALTIME" >> {log}\nexec {helm} "$@"\n')
    shim.chmod(0o755)
    log.write_text("")
    start = time.time()
    environ = {**ENV, "GSVENDOR_HELM": str(shim)}
    subprocess.run([gsvendor, "check-images"], cwd=ROOT, env=environ, capture_output=True, text=True, check=False)
    return min(float(line) for line in log.read_text().split()) - start


def check_images(gsvendor: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `gsvendor check-images`, its helm processes included."""
    cpu, start = _children_cpu(), time.perf_counter()
    process = subprocess.run([gsvendor, "check-images"], cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if process.returncode == 2:
        sys.exit(f"check-images failed to run: {process.stderr.strip()}")
    return elapsed, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    helm = render.find_helm(project_root=ROOT)
    gsvendor = str(ROOT / ".venv" / "bin" / "gsvendor")
    with ExitStack() as stack, tempfile.TemporaryDirectory() as scratch:
        calls = helm_calls(helm, stack)
        serial(calls)  # warm the page cache and helm's binary
        check_images(gsvendor)
        tuned = render.helm_environment(ENV) or ENV
        serial_runs, parallel_runs, tuned_runs, pool_runs, tool_runs, delays = [], [], [], [], [], []
        for _ in range(args.repeats):  # interleaved, so drift on the machine hits both alike
            serial_runs.append(serial(calls))
            parallel_runs.append(parallel(calls))
            tuned_runs.append(parallel(calls, env=tuned))
            pool_runs.append(pooled(calls))
            tool_runs.append(check_images(gsvendor))
            delays.append(first_render_delay(gsvendor, helm, Path(scratch)))
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} CPU(s), load average {load:.2f}; {len(calls)} helm calls; {args.repeats} repeats")
    labelled = (
        ("serial helm template loop", serial_runs),
        ("helm under xargs -P2", parallel_runs),
        ("the same, helm's GC tuned", tuned_runs),
        ("helm from 2 Python threads", pool_runs),
    )
    for label, runs in (*labelled, ("gsvendor check-images", tool_runs)):
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{label:26} wall median {statistics.median(walls):6.3f} s (min {min(walls):.3f}, max {max(walls):.3f})"
            f"   CPU median {statistics.median(cpus):6.3f} s"
        )
    s, t = statistics.median(w for w, _ in serial_runs), statistics.median(w for w, _ in tool_runs)
    best = min(w for w, _ in tool_runs) / min(w for w, _ in serial_runs)
    print(f"ratio check-images / serial helm: median {t / s:.2f}, best {best:.2f} (target ≤ 1.00)")
    pairs = [tool[0] / floor[0] for tool, floor in zip(tool_runs, parallel_runs, strict=True)]
    print(f"ratio check-images / xargs -P2 helm (paired): median {statistics.median(pairs):.2f} (target ≤ 1.15)")
    # check-images runs helm with Go's collector off (render.HELM_GC): against a floor tuned alike,
    # what is left is gsvendor's own cost
    tuned_pairs = [tool[0] / floor[0] for tool, floor in zip(tool_runs, tuned_runs, strict=True)]
    gc = " ".join(f"{k}={v}" for k, v in render.HELM_GC.items())
    print(f"ratio check-images / xargs -P2 helm with {gc} (paired): median {statistics.median(tuned_pairs):.2f}")
    # CPU is steadier than wall on a shared machine: what check-images costs beyond the same helm work
    cpu_pairs = [tool[1] / floor[1] for tool, floor in zip(tool_runs, parallel_runs, strict=True)]
    beyond = [tool[1] - floor[1] for tool, floor in zip(tool_runs, parallel_runs, strict=True)]
    print(
        f"CPU check-images / xargs -P2 helm (paired): median {statistics.median(cpu_pairs):.2f}, "
        f"{statistics.median(beyond):.3f} s beyond helm's"
    )
    # Where the rest goes: the same renders run as check-images runs them, minus its start-up and parsing
    own = [tool[0] - pool[0] for tool, pool in zip(tool_runs, pool_runs, strict=True)]
    print(
        f"check-images beyond the same renders from 2 Python threads (paired): median {statistics.median(own):.3f} s; "
        f"its first helm starts {statistics.median(delays):.3f} s after it does (interpreter, imports, configuration)"
    )
    # Wall time gains need an idle CPU: with other load on the machine the ratio drifts toward the CPU ratio.


if __name__ == "__main__":
    main()
