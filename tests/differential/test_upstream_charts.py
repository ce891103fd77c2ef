"""Differential (a): every upstream chart with a README.md.gotmpl, unmodified (27), and the five
synced charts per tag (15), through gsvendor and through the real tools, byte for byte."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from diff_tools import (
    ROOT,
    first_difference,
    normalize_source,
    ours_readme,
    ours_schema,
    real_normalize,
    real_readmes,
    real_schema,
    tally,
    tool,
)

UPSTREAM = ROOT.parent / "shared" / "upstream"
TAGS = ("v0.19.0", "v0.20.0-rc1", "v0.20.0")
CHARTS = ("kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs")


@pytest.fixture(scope="module")
def unmodified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three upstream archives extracted side by side, their committed READMEs removed."""
    root = tmp_path_factory.mktemp("upstream")
    for tag in TAGS:
        with tarfile.open(UPSTREAM / f"kserve-{tag}.tar.gz") as archive:
            archive.extractall(root / tag, filter="data")
    for readme in root.rglob("README.md"):
        readme.unlink()
    return root


@pytest.mark.parametrize("order", ["alphanum", "file"])
def test_every_upstream_chart_unmodified(unmodified: Path, order: str, tmp_path: Path) -> None:
    tool("helm-docs")
    work = tmp_path / "charts"
    shutil.copytree(unmodified, work)
    real_readmes(work, order)  # one helm-docs process for all 27 charts
    charts = sorted(t.parent for t in work.rglob("README.md.gotmpl"))
    assert len(charts) == 27
    result = tally(f"upstream charts, README ({order})")
    for chart in charts:
        real = (chart / "README.md").read_bytes() if (chart / "README.md").is_file() else None
        result.check(str(chart.relative_to(work)), real, ours_readme(chart, order))
    assert result.differences == []


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """This repository's project synced at every tag (gsvendor sync, offline), one folder per tag."""
    out = {}
    for tag in TAGS:
        project = tmp_path_factory.mktemp(f"synced-{tag}")
        shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
        shutil.copytree(ROOT / "overlays", project / "overlays")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "gsvendor",
                "--quiet",
                "sync",
                tag,
                "--source",
                str(UPSTREAM / f"kserve-{tag}.tar.gz"),
            ],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        out[tag] = project
    return out


def test_synced_charts_equal_the_real_tools_run_from_the_project_root(synced: dict[str, Path], tmp_path: Path) -> None:
    """What sync wrote is what Giant Swarm's pre-commit leaves: helm schema --config helm/<chart>/.schema.yaml
    from the repository root, then helm-docs --chart-search-root=helm --sort-values-order=file."""
    schemas, readmes = tally("synced charts, values.schema.json"), tally("synced charts, README")
    for tag, project in synced.items():
        work = tmp_path / tag
        shutil.copytree(project / "helm", work / "helm")
        for chart in CHARTS:
            (work / "helm" / chart / "README.md").unlink()
            real = real_schema(work, f"helm/{chart}/.schema.yaml", f"helm/{chart}/values.schema.json")
            schemas.check(f"{tag} {chart}", real, (project / "helm" / chart / "values.schema.json").read_bytes())
        real_readmes(work / "helm", "file")
        for chart in CHARTS:
            ours = (project / "helm" / chart / "README.md").read_bytes()
            readmes.check(f"{tag} {chart}", (work / "helm" / chart / "README.md").read_bytes(), ours)
    assert schemas.compared == readmes.compared == 15
    assert schemas.differences == [] and readmes.differences == []


def test_synced_schemas_normalized_like_schemalint(synced: dict[str, Path]) -> None:
    """generate.schema.normalize: schemalint gives schemalint normalize's bytes of the tool's output."""
    result = tally(f"synced charts, schemalint normalize ({normalize_source()})")
    for tag, project in synced.items():
        for chart in CHARTS:
            folder = project / "helm" / chart
            ours = ours_schema(project, folder, normalize="schemalint")
            assert ours is not None
            real = real_normalize(folder / "values.schema.json")
            result.check(f"{tag} {chart}", real, ours[1])
    assert result.compared == 15
    assert result.differences == [], "\n".join(result.differences)


def test_first_difference_names_the_byte() -> None:
    assert first_difference(b"abc", b"abd").startswith("byte 2:")
    assert first_difference(None, b"x") == "real wrote nothing, ours 1 bytes"
