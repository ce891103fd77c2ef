"""The synced charts installed on a real API server in the documented order (CRD charts, then
kserve-runtime-configs, then the resources charts), and every object of every variant check-images
renders accepted by the server under server-side apply with ``fieldValidation=Strict``.

Left out, on purpose: the charts' admission webhook configurations are not installed (they call
controllers that do not run here, and would refuse every object they cover); the strict dry-run
still sends them to the server. cert-manager's kinds come from stand-in CRDs (chartkit.stand_in).
"""

from __future__ import annotations

import copy
import json

import pytest

from cluster.chartkit import (
    NAMESPACE,
    ORDER,
    STAND_IN_LABEL,
    WEBHOOK_KINDS,
    ChartVariant,
    Installed,
    label,
    parse,
    strict_rejections,
    synced_variants,
)
from cluster.kubekit import ROOT, Cluster

VARIANTS = synced_variants(ROOT)


def test_every_chart_installs_in_the_documented_order(installed: Installed, cluster: Cluster) -> None:
    releases = json.loads(installed.helm.run("list", "--namespace", NAMESPACE, "--output", "json").stdout)
    assert sorted((r["name"], r["status"]) for r in releases) == sorted((name, "deployed") for name in ORDER)
    # helm installed what the chart renders, without the webhook configurations, and the server has it
    missing = []
    for name in ORDER:
        variant, rendered = installed.releases[name]
        manifest = parse(installed.helm.run("get", "manifest", name, "--namespace", NAMESPACE).stdout)
        expected = [label(o) for o in rendered if o["kind"] not in WEBHOOK_KINDS]
        assert sorted(label(o) for o in manifest) == sorted(expected), variant
        missing += [f"{variant}: {label(o)}" for o in manifest if not cluster.get(cluster.path(o, NAMESPACE)).ok]
    assert missing == []


def test_stand_ins_are_only_for_kinds_from_elsewhere(installed: Installed, cluster: Cluster) -> None:
    listed = cluster.get(
        f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector={STAND_IN_LABEL}%3Dtrue"
    )
    names = sorted(item["metadata"]["name"] for item in listed.body["items"])
    assert names == sorted(installed.stand_ins)
    assert names, "the charts render cert-manager objects: a stand-in serves them"
    assert not [n for n in names if n.endswith(".kserve.io")]


@pytest.mark.parametrize("chart_variant", VARIANTS, ids=[cv.id for cv in VARIANTS])
def test_every_object_passes_strict_server_side_apply(
    installed: Installed, cluster: Cluster, chart_variant: ChartVariant
) -> None:
    assert strict_rejections(cluster, chart_variant.id, installed.renders[chart_variant.id]) == []


def test_strict_validation_rejects_a_field_the_crd_lacks(installed: Installed, cluster: Cluster) -> None:
    # the check above can fail: a custom resource of the charts with one field its CRD does not have
    custom = next(
        o
        for objects in installed.renders.values()
        for o in objects
        if o["apiVersion"].startswith("serving.kserve.io/") and isinstance(o.get("spec"), dict)
    )
    changed = copy.deepcopy(custom)
    changed["spec"]["notAFieldOfTheCRD"] = {"type": "RollingUpdate"}
    applied = cluster.apply(changed, namespace=NAMESPACE)
    assert (applied.status, applied.message.endswith(".spec.notAFieldOfTheCRD: field not declared in schema")) == (
        500,
        True,
    )
    changed["metadata"]["name"] = "gsvendor-not-installed"
    created = cluster.create(changed, dry_run=True, namespace=NAMESPACE)
    assert created.status == 400
    assert 'unknown field "spec.notAFieldOfTheCRD"' in created.message
    assert cluster.apply(custom, namespace=NAMESPACE).ok
