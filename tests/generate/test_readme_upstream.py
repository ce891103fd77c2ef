"""README generation equals what helm-docs wrote upstream, byte for byte, for 5 charts × 3 tags."""

from __future__ import annotations

import pytest
from generate_helpers import CHARTS, TAGS, upstream_chart

from gsvendor.generate.readme.template import render_readme


@pytest.mark.parametrize("tag", TAGS)
@pytest.mark.parametrize("chart", CHARTS)
def test_readme_equals_upstream_helm_docs_output(tag: str, chart: str) -> None:
    files = upstream_chart(tag, chart)
    assert "README.md.gotmpl" in files

    generated = render_readme(files)

    assert generated == files["README.md"]


def test_readme_follows_chart_metadata_after_giant_swarm_overlays() -> None:
    files = upstream_chart("v0.20.0", "kserve-crd")
    chart_yaml = files["Chart.yaml"].replace(b"version: v0.20.0\n", b'version: "[[ .Version ]]"\n', 1)

    generated = render_readme({**files, "Chart.yaml": chart_yaml})

    assert generated is not None
    lines = generated.decode().splitlines()
    version = "[[ .Version ]]"
    badge = f"![Version: {version}](https://img.shields.io/badge/Version-{version}-informational?style=flat-square)"
    assert lines[4].startswith(badge + " ")
    assert lines[-2] == "$ helm install kserve-crd oci://ghcr.io/kserve/charts/kserve-crd --version [[ .Version ]]"
    # everything else is what upstream has
    upstream = files["README.md"].decode().splitlines()
    assert [i for i, (a, b) in enumerate(zip(lines, upstream, strict=True)) if a != b] == [4, len(lines) - 2]


def test_rc_badges_escape_dashes_as_shields_io_needs() -> None:
    files = upstream_chart("v0.20.0-rc1", "kserve-runtime-configs")

    generated = render_readme(files)

    assert generated is not None
    assert b"![Version: v0.20.0-rc0](https://img.shields.io/badge/Version-v0.20.0--rc0-informational" in generated
