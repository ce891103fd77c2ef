"""Test helpers: real git repositories, real ``git format-patch`` output, gsvendor run as a process.

Nothing is mocked: upstream repositories are built with git in ``tmp_path``, patches are what
``git format-patch`` writes, and the CLI runs as ``python -m gsvendor`` in a project folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from conftest import default_signals, tools_required

if shutil.which("git") is None:  # pragma: no cover
    if tools_required():  # a collection error: CI must not pass with the git tests skipped
        raise RuntimeError("git is not installed; CI requires it")
    pytest.skip("git is not installed", allow_module_level=True)


def git_env() -> dict[str, str]:
    """A hermetic git environment: fixed identity and dates, no user or system configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_AUTHOR_NAME": "Test Author",
            "GIT_AUTHOR_EMAIL": "author@example.invalid",
            "GIT_COMMITTER_NAME": "Test Author",
            "GIT_COMMITTER_EMAIL": "author@example.invalid",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "LC_ALL": "C",
        }
    )
    return env


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd``; fail the test with git's output when it fails. Returns stdout."""
    result = subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}:\n{result.stdout}{result.stderr}")
    return result.stdout


def write_files(root: Path, files: dict[str, str | None]) -> None:
    """Write ``files`` (relative path → text) under ``root``; ``None`` deletes the file."""
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def numbered(prefix: str, count: int) -> str:
    """``count`` distinct lines ``prefix 1`` … ``prefix N``, newline-terminated."""
    return "".join(f"{prefix} {i}\n" for i in range(1, count + 1))


class Upstream:
    """A synthetic upstream repository (branch ``main``), served to gsvendor as ``file://``."""

    def __init__(self, path: Path, files: dict[str, str | None]) -> None:
        self.path = path
        path.mkdir(parents=True)
        git(path, "init", "-q", "-b", "main")
        # what GitHub allows, so gsvendor's blob-filtered clone really filters
        git(path, "config", "uploadpack.allowFilter", "true")
        git(path, "config", "uploadpack.allowAnySHA1InWant", "true")
        self.commit(files, "initial import")

    @property
    def url(self) -> str:
        """The ``file://`` URL gsvendor clones from."""
        return self.path.resolve().as_uri()

    def commit(self, files: dict[str, str | None], message: str, tag: str | None = None) -> str:
        """Change ``files``, commit on main, optionally tag; returns the commit id."""
        write_files(self.path, files)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "-m", message)
        if tag:
            git(self.path, "tag", tag)
        return git(self.path, "rev-parse", "HEAD").strip()

    def branch_from(self, tag: str, branch: str) -> None:
        """Start ``branch`` at ``tag`` and check it out (later commits go there)."""
        git(self.path, "checkout", "-q", "-b", branch, tag)

    def checkout(self, rev: str) -> None:
        """Check out ``rev`` (for folder sources, whose HEAD must be the tag)."""
        git(self.path, "checkout", "-q", rev)

    def archive(self, tag: str, dest: Path, top: str | None = None) -> Path:
        """A GitHub-archive-shaped ``.tar.gz`` of ``tag`` (one top folder ``kserve-<version>``)."""
        top = top or f"kserve-{tag.removeprefix('v')}"
        tar = dest / f"kserve-{tag}.tar"
        git(self.path, "archive", "--format=tar", f"--prefix={top}/", "-o", str(tar), tag)
        out = dest / f"kserve-{tag}.tar.gz"
        with tarfile.open(tar) as src, tarfile.open(out, "w:gz") as dst:
            for member in src.getmembers():
                dst.addfile(member, src.extractfile(member) if member.isfile() else None)
        tar.unlink()
        return out


class PatchMaker:
    """Makes patches with ``git format-patch`` in a clone of an upstream at a given revision."""

    def __init__(self, upstream: Upstream, base: str, work: Path) -> None:
        self.work = work
        git(upstream.path, "worktree", "add", "-q", "--detach", str(work), base)

    def patch(
        self, files: dict[str, str | None], subject: str, out: Path, number: int, *, allow_empty: bool = False
    ) -> Path:
        """Commit ``files`` in the work tree and write it as patch ``number`` into ``out``."""
        write_files(self.work, files)
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", subject, *(["--allow-empty"] if allow_empty else []))
        out.mkdir(parents=True, exist_ok=True)
        always = ["--always"] if allow_empty else []  # format-patch skips empty commits without it
        written = git(self.work, "format-patch", *always, f"--start-number={number}", "-o", str(out), "-1", "HEAD")
        return Path(written.split()[-1])


def replace_line(text: str, old: str, new: str) -> str:
    """``text`` with the single line ``old`` replaced by ``new`` (asserting it is there once)."""
    lines = text.split("\n")
    assert lines.count(old) == 1, f"{old!r} occurs {lines.count(old)} times"
    return "\n".join(new if line == old else line for line in lines)


DOCKERFILE = """\
# syntax=docker/dockerfile:1
# renovate: datasource=github-releases depName=kserve/kserve
ARG KSERVE_VERSION={version}

FROM --platform=$BUILDPLATFORM golang:{go} AS builder
ARG KSERVE_VERSION
ARG TARGETOS
ARG TARGETARCH
RUN git clone --depth 1 --branch "${{KSERVE_VERSION}}" https://github.com/kserve/kserve.git .
{extra}
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH go build -o /out/manager ./cmd/{cmd}

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
"""

APPLY_STEP = """\
COPY patches/llmisvc/ /patches/
RUN set -eu; \\
    for patch in /patches/*.patch; do \\
        [ -f "$patch" ] || continue; \\
        git apply --verbose "$patch"; \\
    done"""


def dockerfile(version: str, go: str = "1.25.8", *, llmisvc: bool = False) -> str:
    """A Dockerfile shaped like the project's (global pinned ARG, golang builder, distroless)."""
    return DOCKERFILE.format(
        version=version, go=go, extra=APPLY_STEP if llmisvc else "", cmd="llmisvc" if llmisvc else "manager"
    )


def make_project(
    root: Path,
    *,
    version: str = "v1.0.0",
    charts: tuple[str, ...] = ("kserve-resources",),
    go: str = "1.25.8",
    llmisvc_go: str | None = None,
    extra_config: str = "",
) -> Path:
    """A gsvendor project folder: gsvendor.yaml, both Dockerfiles pinning ``version``, patches/llmisvc/."""
    root.mkdir(parents=True, exist_ok=True)
    chart_lines = "".join(f"  - {name}\n" for name in charts)
    (root / "gsvendor.yaml").write_text(
        f"upstream:\n  repository: kserve/kserve\noutput: helm\n{extra_config}charts:\n{chart_lines}", encoding="utf-8"
    )
    (root / "Dockerfile").write_text(dockerfile(version, go), encoding="utf-8")
    (root / "Dockerfile.llmisvc").write_text(dockerfile(version, llmisvc_go or go, llmisvc=True), encoding="utf-8")
    (root / "patches" / "llmisvc").mkdir(parents=True, exist_ok=True)
    return root


def run_gsvendor(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gsvendor args`` in ``project`` (a cache folder of its own, no colour)."""
    full_env = {**git_env(), "GSVENDOR_CACHE_DIR": str(project / ".cache"), "NO_COLOR": "1", "COLUMNS": "200"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args],
        cwd=project,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        preexec_fn=default_signals,
    )


def run_json(project: Path, *args: str) -> tuple[int, Any, str]:
    """Run gsvendor with ``--json``; returns the exit code, the parsed JSON and stderr."""
    result = run_gsvendor(project, *args, "--json")
    try:
        data = json.loads(result.stdout)
    except ValueError as exc:
        raise AssertionError(f"not JSON ({exc}):\nstdout: {result.stdout}\nstderr: {result.stderr}") from None
    return result.returncode, data, result.stderr
