"""`gsvendor check-images` on the raw upstream charts (their upstream images are the offenders the
Giant Swarm overlays exist to remove), on the charts synced with those overlays at every upstream
tag in ../shared/upstream, and its JUnit report as CircleCI lists it. Real helm throughout."""

from __future__ import annotations

import shutil
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from imagekit import CHARTS, ROOT, UPSTREAM, check, invoke, rows, variant_of

# --------------------------------------------------------------------------------------------
# The raw upstream v0.20.0 charts: the offenders the Giant Swarm overlays exist to remove.


@pytest.fixture(scope="session")
def upstream_charts(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("upstream")
    with tarfile.open(UPSTREAM) as archive:
        archive.extractall(folder, filter="data")
    return [folder / "kserve-0.20.0" / "charts" / name for name in CHARTS]


@pytest.fixture(scope="session")
def upstream_result(helm, upstream_charts, tmp_path_factory) -> tuple[int, dict[str, Any], Path]:
    folder = tmp_path_factory.mktemp("upstream-check")
    config = folder / "gsvendor.yaml"
    config.write_text("upstream: {repository: kserve/kserve}\ncharts: [" + ", ".join(CHARTS) + "]\n", encoding="utf-8")
    junit = folder / "junit.xml"
    code, data, _ = check(helm, *upstream_charts, config=config, args=("--junit", junit))
    return code, data, junit


def test_raw_upstream_charts_fail_with_their_upstream_images(upstream_result):
    code, data, _ = upstream_result
    assert code == 1
    offenders = rows(data)
    names = {row[4].split("@")[0].rsplit(":", 1)[0] for row in offenders}
    assert {
        "docker.io/kserve/kserve-controller",
        "docker.io/kserve/llmisvc-controller",
        "docker.io/kserve/agent",
        "docker.io/kserve/router",
        "docker.io/kserve/storage-initializer",
        "quay.io/brancz/kube-rbac-proxy",
        "ghcr.io/llm-d/llm-d-cuda",
        "ghcr.io/llm-d/llm-d-router-endpoint-picker",
    } <= names
    expected_rows = [
        (
            "kserve-resources",
            "defaults",
            "Deployment/kserve-controller-manager spec.template.spec.containers[manager].image",
            "kserve/kserve-controller:v0.20.0",
            "docker.io/kserve/kserve-controller:v0.20.0",
        ),
        (
            "kserve-resources",
            "defaults",
            "Deployment/kserve-controller-manager spec.template.spec.containers[kube-rbac-proxy].image",
            "quay.io/brancz/kube-rbac-proxy:v0.18.0",
            "quay.io/brancz/kube-rbac-proxy:v0.18.0",
        ),
        (
            "kserve-resources",
            "defaults",
            "ConfigMap/inferenceservice-config data.agent $.image",
            "kserve/agent:v0.20.0",
            "docker.io/kserve/agent:v0.20.0",
        ),
        (
            "kserve-resources",
            "defaults",
            "ConfigMap/inferenceservice-config data.explainers $.art.image (+ defaultImageVersion)",
            "kserve/art-explainer:v0.20.0",
            "docker.io/kserve/art-explainer:v0.20.0",
        ),
        (
            "kserve-resources",
            "values.yaml",
            "values.yaml:110 kserve.controller.rbacProxyImage",
            "quay.io/brancz/kube-rbac-proxy:v0.18.0",
            "quay.io/brancz/kube-rbac-proxy:v0.18.0",
        ),
        (
            "kserve-llmisvc-resources",
            "defaults",
            "ConfigMap/inferenceservice-config data.agent $.image",
            "kserve/agent:v0.20.0",
            "docker.io/kserve/agent:v0.20.0",
        ),
        (
            "kserve-runtime-configs",
            "switches-on",
            "LLMInferenceServiceConfig/kserve-config-llm-template spec.template.containers[main].image",
            "ghcr.io/llm-d/llm-d-cuda:v0.8.0",
            "ghcr.io/llm-d/llm-d-cuda:v0.8.0",
        ),
        (
            "kserve-runtime-configs",
            "switches-on",
            "LLMInferenceServiceConfig/kserve-config-llm-scheduler"
            " spec.router.scheduler.template.containers[main].image",
            "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
            "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
        ),
    ]
    for row in expected_rows:
        assert row in offenders
    # the presets render only with their switch on; the switch was found in values.yaml
    assert not [row for row in offenders if row[0] == "kserve-runtime-configs" and row[1] == "defaults"]
    switches = variant_of(data, "kserve-runtime-configs", "switches-on")["switches"]
    assert "kserve.llmisvcConfigs.enabled" in switches and "kserve.servingruntime.enabled" in switches
    # the agent image comes from the ConfigMap JSON
    agent = next(
        r
        for r in variant_of(data, "kserve-resources", "defaults")["references"]
        if r["location"] == "ConfigMap/inferenceservice-config data.agent $.image"
    )
    assert (agent["place"], agent["registry"], agent["repository"], agent["tag"]) == (
        "configmap",
        "docker.io",
        "kserve/agent",
        "v0.20.0",
    )
    assert {
        "object": "ConfigMap/inferenceservice-config",
        "path": "data._example",
        "reason": ("not JSON (Expecting value: line 1 column 1 (char 0))"),
    } in variant_of(data, "kserve-resources", "defaults")["skipped"]
    # CRDs rendered and counted, not searched
    assert variant_of(data, "kserve-crd", "defaults")["crdsNotSearched"] > 0
    assert data["summary"]["offender"] == len(offenders) and data["summary"]["allowed"] == 0


def test_raw_upstream_junit_has_one_case_per_chart_and_variant(upstream_result):
    _, data, junit = upstream_result
    root = ET.parse(junit).getroot()
    cases = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
    assert cases == [(f"check-images.{c['name']}", v["name"]) for c in data["charts"] for v in c["variants"]]
    failed = {(c.get("classname"), c.get("name")) for c in root.iter("testcase") if c.find("failure") is not None}
    assert ("check-images.kserve-resources", "defaults") in failed
    assert ("check-images.kserve-crd", "defaults") not in failed


# --------------------------------------------------------------------------------------------
# The vendored tree with the Giant Swarm overlays.


@pytest.mark.parametrize("tag", ["v0.19.0", "v0.20.0-rc1", "v0.20.0"])
def test_synced_charts_with_the_giant_swarm_overlays_pass(helm, tmp_path, tag):
    # A copy of the project's configuration, overlays and check-images values, synced from the tarball.
    for item in ("gsvendor.yaml", "overlays", "hack"):
        source = ROOT / item
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, tmp_path / item)
    config = tmp_path / "gsvendor.yaml"
    source = UPSTREAM.with_name(f"kserve-{tag}.tar.gz")
    synced = invoke("--config", config, "--cache-dir", tmp_path / "cache", "sync", tag, "--source", source)
    assert synced.exit_code == 0, synced.stderr
    result = invoke("--config", config, "check-images", "--helm", helm)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert " 0 outside gsoci.azurecr.io/, 0 invalid, 0 variant problem(s)" in result.stdout


def test_junit_failures_read_well_in_circleci(tmp_path):
    # the message attribute is what CircleCI lists: one line, cut with … (the body keeps everything);
    # the normalized form is repeated in parentheses only where it differs from the reference as written
    from types import SimpleNamespace as NS

    from gsvendor.report.images import run_cases
    from gsvendor.report.junit import write_junit

    def checked(written: str, normalized: str | None, location: str) -> NS:
        return NS(status="offender", found=NS(written=written, location=location), normalized=normalized, message="")

    failing = [
        checked("quay.io/x/y:1", "quay.io/x/y:1", "Deployment/a spec.template.spec.containers[a].image"),
        checked(
            "busybox:1.36", "docker.io/library/busybox:1.36", "Deployment/b spec.template.spec.containers[b].image"
        ),
    ]
    item = NS(chart=NS(name="c"), name="defaults", failing=failing, problem="", references=[], skipped=[], seconds=0.1)
    long = NS(chart=NS(name="c"), name="long", failing=[], problem="x" * 300 + "\nsecond line", references=[])
    long.skipped, long.seconds = [], 0.1
    path = tmp_path / "r.xml"
    run = NS(result=NS(results=[item, long]), resolved=None)
    write_junit(path, "check-images", run_cases(run))  # type: ignore[arg-type]
    failures = [case.find("failure") for case in ET.parse(path).getroot().iter("testcase")]
    assert failures[0].get("message") == (
        "offender: quay.io/x/y:1 at Deployment/a spec.template.spec.containers[a].image"
    )
    assert failures[0].text.splitlines()[1] == (
        "offender: busybox:1.36 (docker.io/library/busybox:1.36) at Deployment/b spec.template.spec.containers[b].image"
    )
    assert failures[1].get("message") == "x" * 199 + "…"
    assert failures[1].text.endswith("\nsecond line")
