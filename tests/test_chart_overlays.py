"""The Giant Swarm overlays: what the helm-unittest suites cannot check.

The rendered behaviour (crd.keep, release namespaces, gsoci images, image-less runtimes, the
presets' registry, per-container images, rolloutStrategy, tracing, the team label) is covered by
the helm-unittest suites under overlays/files/tests/ (`make helm-test`, tests/test_helm_unittest.py
on every tag). Here: the vendored files themselves (files/ verbatim, values.yaml text and comments,
version-limited operations), a preset render compared byte for byte with upstream's file, a later
upstream made up for the test, and every workload image with switches discovered from values.yaml.
Runs for every upstream tag in ../shared/upstream.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, TAGS, Cli, tarball

from gsvendor.images.render import documents, find_helm, template
from gsvendor.overlays import yamledit


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


@pytest.mark.parametrize("chart", ["kserve-crd", "kserve-llmisvc-crd"])
def test_crd_keep_leaves_files_verbatim(synced: tuple[str, Path], chart: str) -> None:
    tag, project = synced
    from conftest import upstream_files

    name = "files/serving.kserve.io_clusterstoragecontainers.yaml"
    vendored = (project / "helm" / chart / name).read_bytes()
    assert vendored == upstream_files(tag, f"charts/{chart}/")[name]  # injected at render time, not here
    template = (project / "helm" / chart / "templates/serving.kserve.io_clusterstoragecontainers.yaml").read_text()
    assert ".Values.crd.keep" in template and "helm.sh/resource-policy: keep" in template


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
    presets = later / "charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml"
    tokenizer = "docker.io/vllm/vllm-tokenizer@sha256:" + "ab" * 32
    presets.write_text(presets.read_text().replace("ghcr.io/llm-d/llm-d-uds-tokenizer:vllm-v0.19.1", tokenizer))
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
    # a docker.io/vllm/ image in a preset (later upstream's tokenizer) renders as its gsoci copy, digest kept
    rendered = template(
        find_helm(project_root=ROOT),
        project / "helm/kserve-runtime-configs",
        set_values=["kserve.llmisvcConfigs.enabled=true"],
    )
    assert rendered.ok, rendered.error
    scheduler = next(d for d in documents(rendered.manifests) if d["metadata"]["name"] == "kserve-config-llm-scheduler")
    assert "gsoci.azurecr.io/giantswarm/vllm-tokenizer@sha256:" + "ab" * 32 in _images(scheduler)
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
    tag, project = synced
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
    assert yamledit.get_value(text, "/kserve/version") == tag  # the tag the controller images run at


def test_readme_lists_every_declared_overlay() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Giant Swarm overlays", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([0-9]{2}-[a-z0-9-]+)` \|", section, re.MULTILINE))
    declared = {p.stem for p in (ROOT / "overlays").glob("*.yaml")}
    assert documented == declared, (
        f"documented but not declared: {documented - declared}; declared but not documented: {declared - documented}"
    )


def _images(node: object) -> list[str]:
    """Every ``image`` string anywhere below ``node``."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "image" and isinstance(v, str)] + [
            i for k, v in node.items() if k != "image" for i in _images(v)
        ]
    if isinstance(node, list):
        return [i for v in node for i in _images(v)]
    return []


def test_presets_render_byte_for_byte_with_upstream_registry(synced: tuple[str, Path], helm: str) -> None:
    tag, project = synced
    rendered = template(
        helm,
        project / "helm/kserve-runtime-configs",
        namespace="kserve",
        set_values=["kserve.llmisvcConfigs.enabled=true", "kserve.llmisvcConfigs.imageRegistry=ghcr.io/llm-d/"],
    )
    assert rendered.ok, rendered.error
    upstream = (project / "helm/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml").read_text()
    from conftest import upstream_files

    assert (
        upstream.encode()
        == upstream_files(tag, "charts/kserve-runtime-configs/")["files/llmisvcconfigs/resources.yaml"]
    )
    for document in upstream.split("\n---\n"):
        assert document.strip() in rendered.manifests


def test_new_values_keys_are_documented(synced: tuple[str, Path]) -> None:
    _, project = synced
    text = (project / "helm/kserve-runtime-configs/values.yaml").read_text()
    for key in ("imageRegistry", "images", "rolloutStrategy", "tracing"):
        assert re.search(rf"(?m)^    # -- .+\n    {key}: ", text), key
    crd = (project / "helm/kserve-crd/values.yaml").read_text()
    assert re.search(r"(?m)^  # -- .+\n  keep: true$", crd)


def _switches(values: object, path: str = "") -> list[str]:
    """``--set`` expressions turning on every boolean ``enabled``/``create…`` switch of a values tree."""
    out = []
    if isinstance(values, dict):
        for key, value in values.items():
            dotted = f"{path}.{key}" if path else str(key)
            if isinstance(value, bool) and (key == "enabled" or str(key).startswith("create")):
                out.append(f"{dotted}=true")
            else:
                out += _switches(value, dotted)
    return out


@pytest.mark.parametrize("chart", ["kserve-resources", "kserve-llmisvc-resources"])
def test_every_rendered_container_image_is_gsoci_with_switches_on(
    synced: tuple[str, Path], helm: str, chart: str
) -> None:
    _, project = synced
    values = yamledit.get_value((project / "helm" / chart / "values.yaml").read_text(), "")
    switches = _switches(values)
    assert switches
    for sets in ([], switches):
        rendered = template(helm, project / "helm" / chart, namespace="kserve", set_values=sets)
        assert rendered.ok, rendered.error
        docs = documents(rendered.manifests)
        workloads = [d for d in docs if d["kind"] in ("Deployment", "DaemonSet", "StatefulSet", "Job")]
        images = [i for d in workloads for i in _images(d)]
        assert images and all(i.startswith(GSOCI) for i in images), images
