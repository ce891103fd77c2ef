"""Fixture charts and a check-images runner for the check-images tests (test_check_images*.py).

``write_chart`` writes a chart with Giant Swarm's unrenderable version placeholder, so the
renderable copy is exercised; ``check`` runs ``gsvendor check-images --json`` in-process.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gsvendor.cli import app

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "upstream" / "kserve-v0.20.0.tar.gz"
CHARTS = ["kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs"]


def invoke(*args: Any) -> Any:
    """``gsvendor ARGS`` in-process, 200 columns wide (table rows stay one line), without a traceback."""
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def write_config(folder: Path, images: str = "") -> Path:
    """A gsvendor.yaml configuring the one chart ``fixture``, then ``images`` (YAML text)."""
    path = folder / "gsvendor.yaml"
    text = "upstream:\n  repository: kserve/kserve\ncharts:\n  - fixture\n"
    path.write_text(text + textwrap.dedent(images), encoding="utf-8")
    return path


BASE_VALUES = """\
# fixture values: the base image is a gsoci one
base:
  image: gsoci.azurecr.io/giantswarm/base
  tag: "1.0.0"
"""

BASE_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: base
spec:
  template:
    spec:
      containers:
        - name: base
          image: "{{ .Values.base.image }}:{{ .Values.base.tag }}"
"""


def write_chart(folder: Path, name: str = "fixture", templates: dict[str, str] | None = None, values: str = "") -> Path:
    """A chart with Giant Swarm's unrenderable version placeholder, so the renderable copy is exercised."""
    chart = folder / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        f'apiVersion: v2\nname: {name}\nversion: "[[ .Version ]]"\nappVersion: v0.20.0\n', encoding="utf-8"
    )
    (chart / "values.yaml").write_text(BASE_VALUES + textwrap.dedent(values), encoding="utf-8")
    (chart / "templates" / "base.yaml").write_text(BASE_TEMPLATE, encoding="utf-8")
    for filename, text in (templates or {}).items():
        (chart / "templates" / filename).write_text(textwrap.dedent(text), encoding="utf-8")
    return chart


def check(helm: str, *charts: Path, config: Path, args: tuple[Any, ...] = ()) -> tuple[int, dict[str, Any], Any]:
    result = invoke("--config", config, "check-images", *charts, "--helm", helm, "--json", *args)
    return result.exit_code, json.loads(result.stdout), result


def rows(data: dict[str, Any], statuses: tuple[str, ...] = ("offender", "invalid")) -> list[tuple[str, ...]]:
    """(chart, variant, location, written, normalized) of the references with ``statuses``."""
    return [
        (chart["name"], variant["name"], ref["location"], ref["written"], ref["normalized"])
        for chart in data["charts"]
        for variant in chart["variants"]
        for ref in variant["references"]
        if ref["status"] in statuses
    ]


def variant_of(data: dict[str, Any], chart: str, name: str) -> dict[str, Any]:
    return next(v for c in data["charts"] if c["name"] == chart for v in c["variants"] if v["name"] == name)
