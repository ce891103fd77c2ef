"""Helpers of the generate tests: the upstream tarballs are read in place from ../shared/upstream."""

from __future__ import annotations

import functools
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"
TAGS = ("v0.19.0", "v0.20.0-rc1", "v0.20.0")
CHARTS = ("kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs")


def tarball(tag: str) -> Path:
    """The GitHub-archive-shaped upstream tarball of ``tag``."""
    return UPSTREAM / f"kserve-{tag}.tar.gz"


@functools.cache
def _members(tag: str) -> dict[str, bytes]:
    path = tarball(tag)
    if not path.is_file():
        pytest.fail(f"upstream test data missing: {path}")
    with tarfile.open(path) as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}  # type: ignore[union-attr]


def upstream_chart(tag: str, chart: str) -> dict[str, bytes]:
    """The files of ``charts/<chart>`` at ``tag``, chart-relative path → bytes (read from the tarball)."""
    prefix = f"kserve-{tag.removeprefix('v')}/charts/{chart}/"
    files = {name[len(prefix) :]: data for name, data in _members(tag).items() if name.startswith(prefix)}
    assert files, f"{chart} not in {tag}"
    return files
