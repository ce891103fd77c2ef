"""Without a terminal and without $COLUMNS (a CI log) each finding of check-images, check-manifests
and ``diff --stat`` is one line, whole: no word or path split across lines, so grep finds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from imagekit import ROOT, write_chart

from gsvendor.images.render import find_helm

LONG = "registry.example.com/a-team-with-a-rather-long-name/an-image-whose-name-goes-on-and-on-past-the-width"

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgetconfigurations.example.com
spec:
  group: example.com
  names: {kind: WidgetConfigurationWithAVeryLongKindName, plural: widgetconfigurations}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer}
"""

WIDGET = """\
apiVersion: example.com/v1
kind: WidgetConfigurationWithAVeryLongKindName
metadata:
  name: a-widget-configuration-with-a-long-name
spec:
  replicas: 1
  rolloutStrategyThatTheSchemaDoesNotKnow: {maxUnavailable: 1}
"""


def ci_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """gsvendor as in a CI log: output to pipes, no $COLUMNS."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["NO_COLOR"] = "1"
    env["GSVENDOR_HELM"] = find_helm(project_root=ROOT)
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_check_images_finding_is_one_line(tmp_path: Path) -> None:
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: off\nspec:\n  template:\n    spec:\n"
        f"      containers:\n        - name: off\n          image: {LONG}:v1.0.0\n"
    )
    chart = write_chart(tmp_path, templates={"off.yaml": deployment})
    result = ci_run(tmp_path, "check-images", str(chart))
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if LONG in line]
    assert line == (
        f"fixture ({chart}): variant defaults, found in Deployment/off spec.template.spec.containers[off].image, "
        f"as written {LONG}:v1.0.0, status offender"
    )


def test_a_check_manifests_finding_is_one_line(tmp_path: Path) -> None:
    chart = write_chart(tmp_path, templates={"crd.yaml": CRD, "widget.yaml": WIDGET})
    result = ci_run(tmp_path, "check-manifests", str(chart))
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "rolloutStrategyThatTheSchemaDoesNotKnow" in line]
    assert line.startswith(
        f"fixture ({chart}): variant defaults, object "
        "WidgetConfigurationWithAVeryLongKindName/a-widget-configuration-with-a-long-name, "
        "path spec.rolloutStrategyThatTheSchemaDoesNotKnow, problem pruned, message "
    )
    assert line.endswith(", version v1")
