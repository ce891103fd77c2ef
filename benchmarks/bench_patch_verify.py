#!/usr/bin/env python3
"""Benchmark: ``gsvendor patch-verify`` against a plain clone + ``git apply --check``.

Not a test: it prints figures and asserts nothing. Both sides read the same local upstream
through ``file://`` (git's pack transport, as for a remote) and check the same patch series:

* gsvendor: ``python -m gsvendor patch-verify --source file://… --tag TAG`` end to end (Python
  start-up included), which clones shallow, blob-filtered and sparse — only the patched files;
* baseline: ``git clone --depth 1 --branch TAG file://…`` (every file at the tag), then
  ``git apply --check`` of each patch.

The upstream is either synthetic (``--files`` files of ``--size`` bytes, default 3000 × 8 KiB,
with a two-patch series), or, with ``--checkout PATH`` (or ``$GSVENDOR_KSERVE_SRC``), a fresh
single-commit repository holding the files present in that kserve checkout, checked with the
project's real patches/llmisvc series. The target is a ratio gsvendor/baseline of at most 0.5.

    .venv/bin/python benchmarks/bench_patch_verify.py [--runs 5] [--checkout /tmp/kserve-src]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
]


def env() -> dict[str, str]:
    """Hermetic git: fixed identity, no user configuration (so no credential helpers or hooks)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(
        {
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
    )
    return base


def run(*args: str, cwd: Path) -> str:
    result = subprocess.run(args, cwd=cwd, env=env(), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


def init_repo(path: Path) -> None:
    run("git", "init", "-q", "-b", "main", str(path), cwd=path.parent)
    # what GitHub allows; without it git ignores the blob filter and gsvendor would fetch every blob
    run("git", "config", "uploadpack.allowFilter", "true", cwd=path)
    run("git", "config", "uploadpack.allowAnySHA1InWant", "true", cwd=path)


def commit_and_tag(path: Path, tag: str) -> None:
    run("git", "add", "-A", cwd=path)
    run("git", "commit", "-q", "-m", f"upstream {tag}", cwd=path)
    run("git", "tag", tag, cwd=path)


def synthetic_upstream(path: Path, files: int, size: int, tag: str, seed: int = 1) -> None:
    """``files`` text files of about ``size`` bytes in nested folders, one commit, tagged."""
    rng = random.Random(seed)
    init_repo(path)
    (path / "charts").mkdir()
    (path / "charts" / "README.md").write_text("charts\n")
    for index in range(files):
        folder = path / "pkg" / f"group{index % 40:02d}" / f"sub{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines, length = [], 0
        line_number = 0
        while length < size:
            line_number += 1
            line = f"{line_number:05d} " + " ".join(rng.choice(WORDS) for _ in range(10))
            lines.append(line)
            length += len(line) + 1
        (folder / f"file{index:05d}.go").write_text("\n".join(lines) + "\n")
    commit_and_tag(path, tag)


def synthetic_series(upstream: Path, tag: str, out: Path, work: Path) -> list[Path]:
    """Two independent format-patches, each changing two files, made on ``tag``."""
    run("git", "worktree", "add", "-q", "--detach", str(work), tag, cwd=upstream)
    targets = sorted((work / "pkg").rglob("*.go"))
    for number, picked in enumerate((targets[:2], targets[-2:]), 1):
        for path in picked:
            text = path.read_text().splitlines()
            text[5] += " patched"
            text[-5] += " patched"
            path.write_text("\n".join(text) + "\n")
        run("git", "commit", "-q", "-am", f"patch {number}", cwd=work)
        run("git", "format-patch", "-q", f"--start-number={number}", "-o", str(out), "-1", "HEAD", cwd=work)
    return sorted(out.glob("*.patch"))


def upstream_from_checkout(checkout: Path, path: Path, tag: str) -> int:
    """A fresh repository holding the files of ``tag`` in the kserve clone ``checkout``.

    Blobs come from the clone's object store (not its work tree, which may hold local edits);
    blobs the clone lacks (a partial mirror) are left out. Returns how many were left out.
    """
    init_repo(path)
    entries = []
    for record in filter(None, run("git", "ls-tree", "-r", "-z", tag, cwd=checkout).split("\0")):
        meta, rel = record.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode in ("100644", "100755"):
            entries.append((oid, rel))
    batch = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=checkout,
        env=env(),
        input="".join(f"{oid}\n" for oid, _ in entries).encode(),
        capture_output=True,
        check=True,
    ).stdout
    missing, offset = 0, 0
    for _, rel in entries:
        end = batch.index(b"\n", offset)
        header = batch[offset:end].split()
        offset = end + 1
        if header[-1] == b"missing":
            missing += 1
            continue
        size = int(header[2])
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[offset : offset + size])
        offset += size + 1  # the content is followed by a newline
    commit_and_tag(path, tag)
    return missing


def project(path: Path, tag: str, patches: list[Path]) -> None:
    """A gsvendor project whose Dockerfile.llmisvc pins ``tag`` and whose series is ``patches``."""
    (path / "patches" / "llmisvc").mkdir(parents=True)
    (path / "gsvendor.yaml").write_text("upstream:\n  repository: kserve/kserve\ncharts:\n  - kserve-crd\n")
    (path / "Dockerfile.llmisvc").write_text(
        f"ARG KSERVE_VERSION={tag}\nFROM golang:1.25.8\nCOPY patches/llmisvc/ /patches/\n"
    )
    for patch in patches:
        shutil.copy(patch, path / "patches" / "llmisvc" / patch.name)


def time_it(function: Callable[[], None], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=3000, help="synthetic upstream: number of files")
    parser.add_argument("--size", type=int, default=8192, help="synthetic upstream: bytes per file")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per side (median reported)")
    parser.add_argument("--checkout", type=Path, default=os.environ.get("GSVENDOR_KSERVE_SRC") or None)
    parser.add_argument("--tag", default="v0.20.0", help="tag of the checkout's files (with --checkout)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    options = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="gsvendor-bench-"))
    try:
        upstream = tmp / "upstream"
        if options.checkout:
            tag = options.tag
            missing = upstream_from_checkout(options.checkout.resolve(), upstream, tag)
            print(f"upstream: {tag} of {options.checkout}, one commit ({missing} blobs absent there left out)")
            patches = sorted((ROOT / "patches" / "llmisvc").glob("*.patch"))
        else:
            tag = "v1.0.0"
            print(f"upstream: synthetic, {options.files} files of {options.size} bytes")
            synthetic_upstream(upstream, options.files, options.size, tag)
            patches = synthetic_series(upstream, tag, tmp / "series", tmp / "work")
        files = len(run("git", "ls-tree", "-r", "--name-only", tag, cwd=upstream).splitlines())
        print(f"  {files} files at {tag}; series: {', '.join(p.name for p in patches)}")
        url = upstream.as_uri()
        proj = tmp / "project"
        project(proj, tag, patches)

        def gsvendor() -> None:
            result = subprocess.run(
                [sys.executable, "-m", "gsvendor", "--quiet", "patch-verify", "--source", url, "--tag", tag, "--json"],
                cwd=proj,
                env={**env(), "GSVENDOR_CACHE_DIR": str(tmp / "cache")},
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode != 0:
                sys.exit(f"gsvendor patch-verify failed ({result.returncode}):\n{result.stderr}")

        def baseline() -> None:
            clone = tmp / "clone"
            shutil.rmtree(clone, ignore_errors=True)
            run("git", "clone", "-q", "--depth", "1", "--branch", tag, url, str(clone), cwd=tmp)
            for patch in patches:
                run("git", "apply", "--check", str(patch), cwd=clone)

        gsvendor()  # warm-up: imports compiled, page cache filled, for both sides alike
        baseline()
        ours = time_it(gsvendor, options.runs)
        theirs = time_it(baseline, options.runs)
        ratio = statistics.median(ours) / statistics.median(theirs)
        print(f"runs per side: {options.runs}")
        print(f"gsvendor patch-verify : median {statistics.median(ours):.3f} s  (min {min(ours):.3f} s)")
        print(f"clone --depth 1 + apply: median {statistics.median(theirs):.3f} s  (min {min(theirs):.3f} s)")
        print(f"ratio gsvendor/baseline: {ratio:.2f}  (target <= 0.5: {'met' if ratio <= 0.5 else 'NOT met'})")
    finally:
        if options.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
