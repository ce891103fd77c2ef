"""The Giant Swarm overlays that change behaviour, proven by rendering with the real helm binary.

Runs for every upstream tag in ../shared/upstream.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, TAGS, Cli, tarball

from gsvendor import yamledit
from gsvendor.render import documents, template


@pytest.fixture(scope="module", params=TAGS)
def synced(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A project synced at each upstream tag (once per module and tag)."""
    import shutil

    tag = request.param
    project = tmp_path_factory.mktemp(f"overlays-{tag}")
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    result = Cli(tmp_path_factory.mktemp("cache"))(project, "sync", tag, "--source", str(tarball(tag)))
    assert result.returncode == 0, result.stderr
    return tag, project


def crds(helm: str, chart: Path, *sets: str, namespace: str = "kserve") -> dict[str, dict]:
    rendered = template(helm, chart, namespace=namespace, set_values=sets)
    assert rendered.ok, rendered.error
    docs = [d for d in documents(rendered.manifests) if d["kind"] == "CustomResourceDefinition"]
    return {d["metadata"]["name"]: d for d in docs}


@pytest.mark.parametrize("chart", ["kserve-crd", "kserve-llmisvc-crd"])
def test_crd_keep_on_by_default_and_off(synced: tuple[str, Path], helm: str, chart: str) -> None:
    _, project = synced
    on = crds(helm, project / "helm" / chart)
    assert "clusterstoragecontainers.serving.kserve.io" in on
    assert {n: d["metadata"]["annotations"].get("helm.sh/resource-policy") for n, d in on.items()} == dict.fromkeys(
        on, "keep"
    )
    off = crds(helm, project / "helm" / chart, "crd.keep=false")
    assert off.keys() == on.keys()
    assert all("helm.sh/resource-policy" not in d["metadata"].get("annotations", {}) for d in off.values())
    upstream_file = project / "helm" / chart / "files/serving.kserve.io_clusterstoragecontainers.yaml"
    assert b"resource-policy" not in upstream_file.read_bytes()  # files/ stays upstream's verbatim


def test_llmisvc_crds_follow_the_release_namespace(synced: tuple[str, Path], helm: str) -> None:
    _, project = synced
    docs = crds(helm, project / "helm/kserve-llmisvc-crd", namespace="ai")
    webhooks = [n for n, d in docs.items() if d["spec"].get("conversion", {}).get("strategy") == "Webhook"]
    assert sorted(webhooks) == [
        "llminferenceserviceconfigs.serving.kserve.io",
        "llminferenceservices.serving.kserve.io",
    ]
    for name in webhooks:
        doc = docs[name]
        assert doc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "ai/llmisvc-serving-cert"
        assert doc["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["namespace"] == "ai"


def test_inferenceservice_inject_ca_from_is_version_limited(synced: tuple[str, Path]) -> None:
    tag, project = synced
    text = (project / "helm/kserve-crd/templates/serving.kserve.io_inferenceservices.yaml").read_text()
    # absent upstream up to v0.20.0: the operation is limited to later versions and skipped here
    assert "inject-ca-from" not in text
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert "tag: " + tag in lock


def test_later_upstream_with_inject_ca_from_gets_release_namespace(tmp_path: Path, extracted, cli: Cli) -> None:
    import shutil
    import tarfile

    later = tmp_path / "kserve-0.21.0"
    shutil.copytree(extracted("v0.20.0"), later)
    crd = later / "charts/kserve-crd/templates/serving.kserve.io_inferenceservices.yaml"
    crd.write_text(
        crd.read_text().replace(
            "  annotations:\n", "  annotations:\n    cert-manager.io/inject-ca-from: kserve/serving-cert\n", 1
        )
    )
    archive = tmp_path / "kserve-v0.21.0.tar.gz"
    with tarfile.open(archive, "w:gz") as out:
        out.add(later, arcname="kserve-0.21.0")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", project)
    shutil.copytree(ROOT / "overlays", project / "overlays")
    assert cli(project, "sync", "v0.21.0", "--source", str(archive)).returncode == 0
    text = (project / "helm/kserve-crd/templates/serving.kserve.io_inferenceservices.yaml").read_text()
    assert "    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/serving-cert\n" in text
    # where it should apply but upstream dropped it, the sync fails loudly instead of skipping
    crd.write_text(crd.read_text().replace("    cert-manager.io/inject-ca-from: kserve/serving-cert\n", ""))
    with tarfile.open(archive, "w:gz") as out:
        out.add(later, arcname="kserve-0.21.0")
    failed = cli(project, "sync", "v0.21.0", "--source", str(archive))
    assert failed.returncode == 1
    assert (
        "kserve-crd/templates/serving.kserve.io_inferenceservices.yaml: overlay 40-release-namespace" in failed.stderr
    )


GSOCI = "gsoci.azurecr.io/giantswarm/"


@pytest.mark.parametrize("chart", ["kserve-resources", "kserve-llmisvc-resources"])
def test_values_image_defaults_are_gsoci(synced: tuple[str, Path], chart: str) -> None:
    _, project = synced
    text = (project / "helm" / chart / "values.yaml").read_text()
    images = re.findall(r"(?m)^\s*(?:\w*[iI]mage): (\S+)$", text)
    assert images and all(i.startswith(GSOCI) for i in images), images
    expected = {
        "agent",
        "router",
        "storage-initializer",
        "art-explainer",
        "kserve-localmodel-controller",
        "kserve-localmodelnode-agent",
        "kserve-controller" if chart == "kserve-resources" else "llmisvc-controller",
    }
    if chart == "kserve-resources":
        expected.add("kube-rbac-proxy:v0.18.0")
        assert "# renovate: datasource=docker depName=gsoci.azurecr.io/giantswarm/kube-rbac-proxy\n" in text
    assert {i.removeprefix(GSOCI) for i in images} == expected


@pytest.mark.parametrize("chart", ["kserve-resources", "kserve-llmisvc-resources"])
def test_rendered_controller_images_are_gsoci(synced: tuple[str, Path], helm: str, chart: str) -> None:
    tag, project = synced
    rendered = template(helm, project / "helm" / chart, namespace="kserve")
    assert rendered.ok, rendered.error
    images = [
        c["image"]
        for d in documents(rendered.manifests)
        if d["kind"] == "Deployment"
        for c in d["spec"]["template"]["spec"]["containers"]
    ]
    assert images and all(i.startswith(GSOCI) for i in images), images
    controller = "kserve-controller" if chart == "kserve-resources" else "llmisvc-controller"
    assert f"{GSOCI}{controller}:{tag}" in images
    version = yamledit.get_value((project / "helm" / chart / "values.yaml").read_text(), "/kserve/version")
    assert version == tag


def test_readme_lists_every_declared_overlay() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Giant Swarm overlays", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([0-9]{2}-[a-z0-9-]+)` \|", section, re.MULTILINE))
    declared = {p.stem for p in (ROOT / "overlays").glob("*.yaml")}
    assert documented == declared, (
        f"documented but not declared: {documented - declared}; declared but not documented: {declared - documented}"
    )
