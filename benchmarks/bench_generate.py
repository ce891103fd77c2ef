"""Benchmark: gsvendor's in-process `generate` against the real tools on the same synced charts.

Not a test; prints figures. Run from the project root after `make sync` and `make tools`:

    .venv/bin/python benchmarks/bench_generate.py [--repeats N]

Both sides produce the generated files of every configured chart in helm/ (values.schema.json
where the chart has .schema.yaml, README.md where it has README.md.gotmpl):

* gsvendor: `generate.plan` in this process (read the charts, generate, compare; nothing written);
* the tools, as Giant Swarm's pre-commit runs them from the repository root: helm-values-schema-json
  with each chart's .schema.yaml (whose paths are relative to the root), schemalint normalize on
  each schema when .tools/bin/schemalint exists, and one helm-docs run
  (`--chart-search-root=helm --sort-values-order=file`), on a copy of helm/ prepared before the clock
  starts (their outputs go there).

The ratio is gsvendor / tools; below 1 gsvendor is faster. Without schemalint the tools' figure
lacks normalize, which the output says.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gsvendor.config import load_config  # noqa: E402
from gsvendor.workflows import generate  # noqa: E402

TOOLS = ROOT / ".tools/bin"


def in_process(config) -> float:
    start = time.perf_counter()
    generate.plan(config)
    return time.perf_counter() - start


def real_tools(charts: list[Path], root: Path, schemalint: Path | None) -> float:
    start = time.perf_counter()
    for chart in charts:
        relative = chart.relative_to(root).as_posix()
        if (chart / ".schema.yaml").is_file():
            run([str(TOOLS / "helm-values-schema-json"), "--config", f"{relative}/.schema.yaml"], root)
            if schemalint:
                schema = f"{relative}/values.schema.json"
                run([str(schemalint), "normalize", schema, "-o", schema, "--force"], root)
    helm_docs = [str(TOOLS / "helm-docs"), "--chart-search-root=helm", "--sort-values-order=file"]
    run([*helm_docs, "--log-level", "warning"], root)
    return time.perf_counter() - start


def run(args: list[str], cwd: Path) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} (in {cwd}) failed: {(done.stderr or done.stdout).strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    missing = [tool for tool in ("helm-docs", "helm-values-schema-json") if not (TOOLS / tool).is_file()]
    if missing:
        print(f"bench_generate: skipped: {', '.join(missing)} not in .tools/bin (make tools; needs go)")
        return
    config = load_config(ROOT / "gsvendor.yaml")
    folders = [ROOT / spec.dest for spec in config.charts]
    if not all((folder / "Chart.yaml").is_file() for folder in folders):
        sys.exit("bench_generate: run make sync first (no synced charts in helm/)")
    schemalint = TOOLS / "schemalint" if (TOOLS / "schemalint").is_file() else None

    with tempfile.TemporaryDirectory(prefix="bench-generate-") as tmp:
        root = Path(tmp)
        copies = []
        for folder in folders:
            copies.append(root / folder.relative_to(ROOT))
            shutil.copytree(folder, copies[-1])
        in_process(config), real_tools(copies, root, schemalint)  # warm caches, imports, binaries
        ours = [in_process(config) for _ in range(args.repeats)]
        theirs = [real_tools(copies, root, schemalint) for _ in range(args.repeats)]

    files = sum((f / ".schema.yaml").is_file() for f in folders) + sum(
        (f / "README.md.gotmpl").is_file() for f in folders
    )
    tools = "helm-values-schema-json + " + ("schemalint normalize + " if schemalint else "") + "helm-docs"
    print(f"generate: {len(folders)} charts, {files} generated files, median of {args.repeats} repeats")
    print(f"  {'gsvendor generate (in-process)':<52} {statistics.median(ours) * 1000:8.1f} ms")
    print(f"  {tools:<52} {statistics.median(theirs) * 1000:8.1f} ms")
    print(f"  {'ratio gsvendor / tools':<52} {statistics.median(ours) / statistics.median(theirs):8.2f}")
    if not schemalint:
        print("  (schemalint is not installed: the tools' figure lacks normalize)")


if __name__ == "__main__":
    main()
