"""A field the CRD lacks, written by overlay 60, fails the cluster tests naming the object and the
field: a copy of the project's overlays whose 60-runtime-configs.yaml gains one operation (every
llmisvc preset writes ``spec.notAFieldOfTheCRD``) is synced offline from ../shared/upstream into a
temporary project; the LLMInferenceServiceConfig CRD chart of that project is installed, and the
strict server-side apply of test_install (chartkit.strict_rejections) refuses exactly the presets
carrying the field, each line naming the object and the field path. check-manifests, gsvendor's
emulation of the server, reports the same objects and field.

Only kserve-llmisvc-crd is installed (helm, uninstalled afterwards; its CRDs stay, as
``helm.sh/resource-policy: keep`` says, and a later install of the release adopts them); where the
other cluster tests installed the charts already, that release is used as it is.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import UPSTREAM, Cli

from cluster.chartkit import (
    NAMESPACE,
    Helm,
    chart_variants,
    crd_names,
    defined_kinds,
    install_args,
    install_variant,
    installable,
    label,
    strict_rejections,
    variant_args,
)
from cluster.kubekit import ROOT, Cluster, ClusterError

FIELD = "notAFieldOfTheCRD"
OVERLAY = "60-runtime-configs.yaml"
CRD_CHART = "kserve-llmisvc-crd"
CHART = "kserve-runtime-configs"
# appended, as text, to the copy of overlay 60 (its operations list is the file's last key): the
# top-level spec of every document of the presets' file gains the field
EDIT = f"""  - op: replace
    description: every preset writes a field the LLMInferenceServiceConfig CRD lacks
    file: files/llmisvcconfigs/resources.yaml
    regex: true
    find: '(?m)^spec:\\n'
    with: "spec:\\n  {FIELD}: 1\\n"
    count: all
"""


@dataclass
class Changed:
    """The temporary ``project`` synced with the changed overlay, the ``cli`` that synced it, and
    ``renders``: per kserve-runtime-configs variant id, the rendered objects of the kinds the
    installed CRD chart defines."""

    project: Path
    cli: Cli
    renders: dict[str, list[dict[str, Any]]]

    def carrying(self) -> list[tuple[str, str]]:
        """``(variant id, Kind/name)`` of every rendered object with ``spec.<FIELD>``, in order."""
        return [
            (variant, label(obj))
            for variant, objects in self.renders.items()
            for obj in objects
            if FIELD in (obj.get("spec") or {})
        ]


def _released(helm: Helm, name: str) -> bool:
    try:
        helm.run("status", name, "--namespace", NAMESPACE)
    except ClusterError:
        return False
    return True


@pytest.fixture(scope="module")
def changed(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Changed]:
    """Sync the project with overlay 60 changed, install its LLMInferenceServiceConfig CRD chart
    unless installed, and render every variant of kserve-runtime-configs."""
    project = tmp_path_factory.mktemp("overlay-changed") / "project"
    project.mkdir()
    for name in ("gsvendor.yaml", "Dockerfile.llmisvc"):  # the pin Dockerfile gives sync its tag
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "overlays", project / "overlays")
    shutil.copytree(ROOT / "hack" / "check-images", project / "hack" / "check-images")  # variants' values
    overlay = project / "overlays" / OVERLAY
    text = overlay.read_text()
    assert text.endswith("\n") and FIELD not in text
    overlay.write_text(text + EDIT)
    cli = Cli(tmp_path_factory.mktemp("cache"))
    cli.env["GSVENDOR_UPSTREAM_DIR"] = str(UPSTREAM)  # offline: the pinned tag's archive there
    synced = cli(project, "sync")
    assert synced.returncode == 0, synced.stderr
    helm = Helm(str(ROOT / ".tools" / "bin" / "helm"), cluster, tmp_path_factory.mktemp("overlay-helm"))
    variants = chart_variants(project)
    cluster.ensure_namespace(NAMESPACE)
    with installable(project / "helm") as copies:
        crd_variant = install_variant(variants, CRD_CHART)
        crds = helm.template(copies[CRD_CHART], CRD_CHART, install_args(crd_variant))
        ours = not _released(helm, CRD_CHART)
        if ours:
            helm.install(copies[CRD_CHART], CRD_CHART, install_args(crd_variant), webhooks=False)
        try:
            cluster.wait_established(crd_names(crds))
            kinds = defined_kinds(crds)
            renders = {
                cv.id: [
                    obj
                    for obj in helm.template(copies[CHART], CHART, variant_args(cv.variant))
                    if (str(obj.get("apiVersion")).rpartition("/")[0], obj.get("kind")) in kinds
                ]
                for cv in variants
                if cv.chart == CHART
            }
            yield Changed(project, cli, renders)
        finally:
            if ours:
                helm.run("uninstall", CRD_CHART, "--namespace", NAMESPACE)


def test_strict_apply_refuses_each_preset_naming_it_and_the_field(changed: Changed, cluster: Cluster) -> None:
    carrying = changed.carrying()
    assert carrying, f"the changed overlay wrote no spec.{FIELD} into a rendered preset"
    rejected = [
        line for variant, objects in changed.renders.items() for line in strict_rejections(cluster, variant, objects)
    ]
    # the line test_install's strict check fails with: variant, Kind/name, then the server's message
    # ending in the field's path
    assert [tuple(line.split(": ", 2)[:2]) for line in rejected] == carrying
    for line, (_variant, name) in zip(rejected, carrying, strict=True):
        message = line.split(": ", 2)[2]
        assert message.startswith("500 "), line
        assert message.endswith(f".spec.{FIELD}: field not declared in schema"), line
        assert f"{NAMESPACE}/{name.split('/', 1)[1]}" in message, line  # the server names it too


def test_check_manifests_reports_the_same_objects_and_field(changed: Changed) -> None:
    result = changed.cli(changed.project, "check-manifests", f"helm/{CHART}", f"helm/{CRD_CHART}", "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    findings = [
        (f"{chart['name']}/{variant['name']}", finding["object"], finding["path"], finding["problem"])
        for chart in report["charts"]
        for variant in chart["variants"]
        for finding in variant["findings"]
    ]
    assert sorted(findings) == sorted(
        (variant, name, f"spec.{FIELD}", "pruned") for variant, name in changed.carrying()
    )
    assert f"{changed.carrying()[0][1]} spec.{FIELD} (pruned)" in result.stderr
