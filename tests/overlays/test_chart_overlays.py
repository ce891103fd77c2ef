"""The Giant Swarm overlays that change behaviour, proven by rendering with the real helm binary.

Runs for every upstream tag in ../shared/upstream (a project synced here per tag) and, under
`make chart-tests` / `make helm-test`, on the synced helm/ of GSVENDOR_CHART_PROJECT at whatever tag
its lock records (parameter id ``vendored-<tag>``): the pinned version CI vendors. Behaviours that
depend on the upstream version say so and branch on the tag; the expected lists of image names and
presets hold for v0.19.0 to v0.20.x, and a tag that changes them fails here by name.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CHART_PROJECT, CHARTS, ROOT, TAGS, Cli, documents, synced_tag, tarball
from packaging.version import Version

from gsvendor.images.render import find_helm, template
from gsvendor.overlays import yamledit


def _projects() -> list:
    params = [pytest.param(("fixed", tag), id=tag) for tag in TAGS]
    if CHART_PROJECT:
        tag = synced_tag(Path(CHART_PROJECT))
        params.append(pytest.param(("vendored", tag), id=f"vendored-{tag}"))
    return params


@pytest.fixture(scope="module", params=_projects())
def synced(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A project synced at each upstream tag (once per module and tag), and the vendored one as it is."""
    import shutil

    kind, tag = request.param
    if kind == "vendored":
        return tag, Path(CHART_PROJECT).resolve()
    project = tmp_path_factory.mktemp(f"overlays-{tag}")
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    result = Cli(tmp_path_factory.mktemp("cache"))(project, "sync", tag, "--source", str(tarball(tag)))
    assert result.returncode == 0, result.stderr
    return tag, project


def _lock(project: Path) -> dict:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((project / "gsvendor.lock.yaml").read_text())


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
    assert "inject-ca-from: kserve/" not in text  # never upstream's fixed namespace
    if Version(tag) > Version(TAGS[-1].removeprefix("v")) or "inject-ca-from" in text:  # upstream after the latest
        assert "    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/serving-cert\n" in text
    assert _lock(project)["tag"] == tag


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
SINGLE_NODE = ("kserve-config-llm-template", "kserve-config-llm-decode-template", "kserve-config-llm-prefill-template")


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
        # the mirror's tag is pinned in overlays/ (Renovate bumps it there, tests/controller_images/test_pins.py); helm/
        # says where, and carries no Renovate annotation that would make Renovate edit build output
        pinned = re.search(r"kube-rbac-proxy:(v[\w.-]+)'$", (ROOT / "overlays/50-gsoci-images.yaml").read_text(), re.M)
        expected.add(f"kube-rbac-proxy:{pinned.group(1)}")
        assert "    # the tag is pinned in overlays/50-gsoci-images.yaml\n    rbacProxyImage: " in text
        assert "renovate:" not in text
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


def test_overlays_readme_lists_every_declared_overlay() -> None:
    section = (ROOT / "overlays" / "README.md").read_text()
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


def presets(helm: str, project: Path, *sets: str, namespace: str = "kserve", set_json: tuple[str, ...] = ()) -> dict:
    rendered = template(
        helm,
        project / "helm/kserve-runtime-configs",
        namespace=namespace,
        set_values=("kserve.llmisvcConfigs.enabled=true", *sets),
        set_json=set_json,
    )
    assert rendered.ok, rendered.error
    return {d["metadata"]["name"]: d for d in documents(rendered.manifests)}


def test_classic_runtimes_ship_no_image(synced: tuple[str, Path], helm: str) -> None:
    tag, project = synced
    chart = project / "helm/kserve-runtime-configs"
    none = template(helm, chart, set_values=["kserve.servingruntime.enabled=true"])
    assert not none.ok
    assert "no ClusterServingRuntime has an image: set kserve.servingruntime.<runtime>.image" in none.error
    one = template(
        helm,
        chart,
        set_values=[
            "kserve.servingruntime.enabled=true",
            "kserve.servingruntime.sklearnserver.image=gsoci.azurecr.io/giantswarm/sklearnserver",
        ],
    )
    assert one.ok, one.error
    docs = documents(one.manifests)
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [("ClusterServingRuntime", "kserve-sklearnserver")]
    assert docs[0]["spec"]["containers"][0]["image"] == f"gsoci.azurecr.io/giantswarm/sklearnserver:{tag}"


def test_presets_images_default_to_gsoci_and_follow_namespace(synced: tuple[str, Path], helm: str) -> None:
    _, project = synced
    docs = presets(helm, project, namespace="ai")
    upstream = (project / "helm/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml").read_text()
    assert len(docs) == len(upstream.split("\n---\n")) >= 8
    images = [i for d in docs.values() for i in _images(d)]
    assert images and all(i.startswith(GSOCI) for i in images), images
    assert any(i.startswith(f"{GSOCI}llm-d-cuda:") for i in images)
    assert {d["metadata"]["namespace"] for d in docs.values()} == {"ai"}


def test_presets_image_registry_override(synced: tuple[str, Path], helm: str) -> None:
    _, project = synced
    docs = presets(helm, project, "kserve.llmisvcConfigs.imageRegistry=registry.example.com/llm-d/")
    images = [i for d in docs.values() for i in _images(d)]
    assert images and all(i.startswith("registry.example.com/llm-d/llm-d-") for i in images), images


def test_presets_render_byte_for_byte_with_upstream_registry(synced: tuple[str, Path], helm: str) -> None:
    tag, project = synced
    rendered = template(
        helm,
        project / "helm/kserve-runtime-configs",
        namespace="kserve",
        set_values=["kserve.llmisvcConfigs.enabled=true", "kserve.llmisvcConfigs.imageRegistry=ghcr.io/llm-d/"],
    )
    assert rendered.ok, rendered.error
    path = project / "helm/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml"
    upstream = path.read_text()
    if not (CHART_PROJECT and project == Path(CHART_PROJECT).resolve()):  # a fixed tag: the archive's bytes
        from conftest import upstream_files

        expected = upstream_files(tag, "charts/kserve-runtime-configs/")["files/llmisvcconfigs/resources.yaml"]
        assert upstream.encode() == expected
    else:  # the vendored helm/, at any tag: the lock's sha256 of upstream's bytes
        import hashlib

        recorded = _lock(project)["charts"]["kserve-runtime-configs"]["files"]["files/llmisvcconfigs/resources.yaml"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded["upstream"] == recorded["result"]
    for document in upstream.split("\n---\n"):
        assert document.strip() in rendered.manifests


def test_preset_container_override_changes_exactly_one_container(synced: tuple[str, Path], helm: str) -> None:
    _, project = synced
    before = presets(helm, project)
    after = presets(
        helm,
        project,
        set_json=('kserve.llmisvcConfigs.images={"kserve-config-llm-template":{"main":"example.com/vllm:arm64"}}',),
    )
    changed = [
        (name, a, b)
        for name in before
        for a, b in zip(_images(before[name]), _images(after[name]), strict=True)
        if a != b
    ]
    assert len(changed) == 1
    name, old, new = changed[0]
    assert (
        name == "kserve-config-llm-template"
        and old.startswith(f"{GSOCI}llm-d-cuda:")
        and new == "example.com/vllm:arm64"
    )
    main = [c for c in after[name]["spec"]["template"]["containers"] if c["name"] == "main"]
    assert main[0]["image"] == "example.com/vllm:arm64"


def rollout_strategy_schema(project: Path) -> dict | None:
    """spec.rolloutStrategy of the project's vendored LLMInferenceServiceConfig CRD (``None``: no such field)."""
    from gsvendor.config import load_config
    from gsvendor.overlays.crdfield import project_crd_lookup

    return project_crd_lookup(load_config(project / "gsvendor.yaml"))(
        "LLMInferenceServiceConfig", "spec.rolloutStrategy"
    )


def test_rollout_strategy_follows_the_crd_of_the_synced_tag(synced: tuple[str, Path], helm: str) -> None:
    """Where the LLMInferenceServiceConfig CRD has no spec.rolloutStrategy the API server would prune
    the value (check-manifests), so rendering fails, naming it; where it has the field, the value
    (maxSurge/maxUnavailable) lands in the single-node workload presets."""
    tag, project = synced
    rendered = template(
        helm,
        project / "helm/kserve-runtime-configs",
        set_values=["kserve.llmisvcConfigs.enabled=true", "kserve.llmisvcConfigs.rolloutStrategy.maxUnavailable=1"],
    )
    if rollout_strategy_schema(project) is None:
        assert not rendered.ok
        assert f"LLMInferenceServiceConfig CRD of KServe {tag} has no spec.rolloutStrategy" in rendered.error
    else:
        assert rendered.ok, rendered.error
        docs = presets(helm, project, "kserve.llmisvcConfigs.rolloutStrategy.maxUnavailable=1")
        assert {n for n, d in docs.items() if "rolloutStrategy" in d["spec"]} == set(SINGLE_NODE)
    assert presets(helm, project)  # unset, the presets render


def test_rollout_strategy_only_in_single_node_workload_presets(tmp_path: Path, cli: Cli, helm: str) -> None:
    """With the guard off (as where the CRD has the field) the value lands in the single-node
    workload presets only, as the CRD's shape (maxSurge/maxUnavailable)."""
    import shutil

    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    overlay = project / "overlays/60-runtime-configs.yaml"
    guard = "field: spec.rolloutStrategy, present: false}"
    assert overlay.read_text().count(guard) == 1
    overlay.write_text(overlay.read_text().replace(guard, "field: no.such.field, present: true}"))
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 0, result.stderr
    docs = presets(helm, project, set_json=('kserve.llmisvcConfigs.rolloutStrategy={"maxSurge":0,"maxUnavailable":1}',))
    with_rollout = sorted(n for n, d in docs.items() if "rolloutStrategy" in d["spec"])
    assert with_rollout == sorted(SINGLE_NODE)
    assert all(docs[n]["spec"]["rolloutStrategy"] == {"maxSurge": 0, "maxUnavailable": 1} for n in with_rollout)


def test_tracing_preset_takes_values(synced: tuple[str, Path], helm: str) -> None:
    tag, project = synced
    docs = presets(helm, project, set_json=('kserve.llmisvcConfigs.tracing={"samplerArg":"1"}',))
    if Version(tag).release < (0, 20):  # upstream added the tracing preset in v0.20; nothing else may take them
        assert "kserve-config-llm-tracing" not in docs
        assert all("tracing" not in d["spec"] for d in docs.values())
        return
    tracing = docs["kserve-config-llm-tracing"]["spec"]["tracing"]
    assert tracing["samplerArg"] == "1" and tracing["exporter"] == "otlp"


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


@pytest.mark.parametrize("chart", CHARTS)
def test_team_label_in_the_common_labels(synced: tuple[str, Path], helm: str, tmp_path: Path, chart: str) -> None:
    """The labels helper of the chart (found by name in _helpers.tpl) carries the team label and the synced tag."""
    import shutil

    tag, project = synced
    helpers = (project / "helm" / chart / "templates/_helpers.tpl").read_text()
    (helper,) = re.findall(r'define "([\w.-]+\.labels)"', helpers)
    probe = tmp_path / chart
    shutil.copytree(project / "helm" / chart, probe)
    (probe / "templates/zz-probe.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n  labels:\n"
        f'    {{{{- include "{helper}" . | nindent 4 }}}}\n'
    )
    rendered = template(helm, probe, release="r", namespace="kserve")
    assert rendered.ok, rendered.error
    labels = next(d for d in documents(rendered.manifests) if d["metadata"]["name"] == "probe")["metadata"]["labels"]
    assert labels["application.giantswarm.io/team"] == "bumblebee"
    assert labels["app.kubernetes.io/version"] == tag
