"""Finding image references in parsed data (gsvendor.images) and the pure parts of gsvendor.checkimages."""

from __future__ import annotations

import json
import textwrap

from ruamel.yaml import YAML

from gsvendor.images.check import judge
from gsvendor.images.documents import scan_manifests, split_documents
from gsvendor.images.find import Found, configmap_references, key_lines, manifest_references, values_references
from gsvendor.images.variants import discover_switches


def pairs(found: list[Found]) -> list[tuple[str, str]]:
    return [(item.location, item.written) for item in found]


def test_containers_of_every_list_and_depth_are_found_by_name():
    pod_spec = {
        "initContainers": [{"name": "init", "image": "docker.io/a/init:1"}],
        "containers": [{"name": "main", "image": "gsoci.azurecr.io/giantswarm/main:1"}],
        "ephemeralContainers": [{"name": "debug", "image": "busybox"}],
    }
    document = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"router": {"scheduler": {"template": pod_spec}}, "workers": [{"template": pod_spec}]},
    }
    assert pairs(manifest_references(document)) == [
        ("Widget/w spec.router.scheduler.template.initContainers[init].image", "docker.io/a/init:1"),
        ("Widget/w spec.router.scheduler.template.containers[main].image", "gsoci.azurecr.io/giantswarm/main:1"),
        ("Widget/w spec.router.scheduler.template.ephemeralContainers[debug].image", "busybox"),
        ("Widget/w spec.workers[0].template.initContainers[init].image", "docker.io/a/init:1"),
        ("Widget/w spec.workers[0].template.containers[main].image", "gsoci.azurecr.io/giantswarm/main:1"),
        ("Widget/w spec.workers[0].template.ephemeralContainers[debug].image", "busybox"),
    ]


def test_single_container_env_images_and_image_volumes():
    document = {
        "kind": "ClusterStorageContainer",
        "metadata": {"name": "default"},
        "spec": {
            "container": {
                "name": "storage-initializer",
                "image": "kserve/storage-initializer:v0.20.0",
                "env": [
                    {"name": "AGENT_IMAGE", "value": "quay.io/x/agent:1"},
                    {"name": "IMAGE_PULL_POLICY", "value": "Always"},
                    {"name": "SIDECAR_IMAGE", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}},
                ],
            },
            "volumes": [{"name": "model", "image": {"reference": "ghcr.io/x/model:1", "pullPolicy": "Always"}}],
        },
    }
    assert pairs(manifest_references(document, source="chart/templates/x.yaml")) == [
        ("ClusterStorageContainer/default spec.container.image", "kserve/storage-initializer:v0.20.0"),
        ("ClusterStorageContainer/default spec.container.env[AGENT_IMAGE].value", "quay.io/x/agent:1"),
        ("ClusterStorageContainer/default spec.volumes[model].image.reference", "ghcr.io/x/model:1"),
    ]
    assert manifest_references(document, source="chart/templates/x.yaml")[0].source == "chart/templates/x.yaml"


def test_empty_and_null_images_are_returned_for_the_caller_to_report():
    document = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": None}]}}
    assert pairs(manifest_references(document)) == [("Pod/p spec.containers[a].image", "")]
    assert judge(manifest_references(document)[0], ["gsoci.azurecr.io/"]).status == "empty"


def test_configmap_json_images_split_versions_and_non_json_keys():
    config_map = {
        "kind": "ConfigMap",
        "metadata": {"name": "inferenceservice-config"},
        "data": {
            "_example": "################\n# EXAMPLE\n################\n",
            "agent": json.dumps({"image": "kserve/agent:v0.20.0", "cpuLimit": "1"}),
            "explainers": json.dumps({"art": {"image": "kserve/art-explainer", "defaultImageVersion": "v0.20.0"}}),
            "localModel": json.dumps({"defaultJobImage": "kserve/storage-initializer:v0.20.0", "enabled": False}),
            "router": json.dumps({"image": "gsoci.azurecr.io/giantswarm/router", "tag": "v0.20.0"}),
            "list": json.dumps([{"image": "quay.io/a/b"}]),
            "deploy": json.dumps({"defaultDeploymentMode": "Knative"}),
            "SIDECAR_IMAGE": "quay.io/plain/value:1",
        },
    }
    found, skipped = configmap_references(config_map)
    assert pairs(found) == [
        ("ConfigMap/inferenceservice-config data.agent $.image", "kserve/agent:v0.20.0"),
        (
            "ConfigMap/inferenceservice-config data.explainers $.art.image (+ defaultImageVersion)",
            "kserve/art-explainer:v0.20.0",
        ),
        ("ConfigMap/inferenceservice-config data.localModel $.defaultJobImage", "kserve/storage-initializer:v0.20.0"),
        ("ConfigMap/inferenceservice-config data.router $.image (+ tag)", "gsoci.azurecr.io/giantswarm/router:v0.20.0"),
        ("ConfigMap/inferenceservice-config data.list $[0].image", "quay.io/a/b"),
        ("ConfigMap/inferenceservice-config data.SIDECAR_IMAGE", "quay.io/plain/value:1"),
    ]
    assert [(s.location, s.reason) for s in skipped] == [
        ("ConfigMap/inferenceservice-config data._example", "not JSON (Expecting value: line 1 column 1 (char 0))")
    ]


VALUES = textwrap.dedent(
    """\
    kserve:
      agent:
        image: kserve/agent
        tag: ''
      controller:
        rbacProxyImage: quay.io/brancz/kube-rbac-proxy:v0.18.0
        image: gsoci.azurecr.io/giantswarm/kserve-controller
        tag: v0.20.0
      localmodel:
        defaultJobImage: kserve/storage-initializer
        defaultJobTag: v0.20.0
        enabled: false
      proxy:
        image:
          registry: quay.io
          repository: brancz/kube-rbac-proxy
          tag: v0.18.0
      runtimes:
        - name: a
          image: "{{ .Values.x }}"
      gateway:
        createGateway: false
        create: true
      weird.key:
        enabled: false
    """
)

VALUES_EXPECTED = [
    ("values.yaml:3 kserve.agent.image", "kserve/agent"),
    ("values.yaml:6 kserve.controller.rbacProxyImage", "quay.io/brancz/kube-rbac-proxy:v0.18.0"),
    ("values.yaml:7 kserve.controller.image (+ tag)", "gsoci.azurecr.io/giantswarm/kserve-controller:v0.20.0"),
    ("values.yaml:10 kserve.localmodel.defaultJobImage (+ defaultJobTag)", "kserve/storage-initializer:v0.20.0"),
    ("values.yaml:16 kserve.proxy.image.repository (+ registry, tag)", "quay.io/brancz/kube-rbac-proxy:v0.18.0"),
    ("values.yaml:20 kserve.runtimes[0].image", "{{ .Values.x }}"),
]


def test_values_references_with_libyaml_line_numbers():
    yaml = YAML(typ="safe")
    found = values_references(yaml.load(VALUES), "values.yaml", key_lines(yaml.compose(VALUES)))
    assert pairs(found) == VALUES_EXPECTED
    assert [judge(item, ["gsoci.azurecr.io/"]).status for item in found] == [
        "offender",
        "offender",
        "allowed",
        "offender",
        "offender",
        "templated",
    ]


def test_switches_are_false_booleans_named_enabled_or_create():
    assert discover_switches(YAML(typ="safe").load(VALUES)) == [
        "kserve.localmodel.enabled",
        "kserve.gateway.createGateway",
        "kserve.weird\\.key.enabled",
    ]
    assert discover_switches({"a": {"enabled": ""}, "b": [{"enabled": False}], "c": {"created": "false"}}) == [
        "b[0].enabled"
    ]


def test_split_documents_and_crds_are_not_parsed():
    stream = textwrap.dedent(
        """\
        ---
        # Source: c/templates/crd.yaml
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec: {x: {image: {type: string}, default: "evil/image"}}
        ---
        # Source: c/templates/empty.yaml
        ---
        # Source: c/templates/cm.yaml
        kind: ConfigMap
        metadata: {name: plain}
        data: {a: "----", b: "x"}
        ---
        # Source: c/templates/pod.yaml
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: c
              image: busybox
              args: ["---", "--- x"]
        """
    )
    assert len(split_documents(stream)) == 5  # the leading empty piece, then four documents
    found, skipped, documents, crds = scan_manifests(stream)
    assert (documents, crds) == (3, 1)
    assert [(f.location, f.written, f.source) for f in found] == [
        ("Pod/p spec.containers[c].image", "busybox", "c/templates/pod.yaml")
    ]
    assert [(s.location, s.reason) for s in skipped] == [
        ("ConfigMap/plain data.a", "not JSON (Expecting value: line 1 column 1 (char 0))"),
        ("ConfigMap/plain data.b", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    ]


def test_an_empty_image_with_a_tag_stays_empty():
    values = {
        "tensorflow": {"image": "", "tag": "2.6.2"},
        "proxy": {"image": {"registry": "quay.io", "repository": "", "tag": "v1"}},
        "jobs": {"defaultJobImage": "", "defaultJobTag": "v1"},
    }
    found = values_references(values, "values.yaml", {})
    assert pairs(found) == [
        ("values.yaml tensorflow.image", ""),
        ("values.yaml proxy.image.repository", ""),
        ("values.yaml jobs.defaultJobImage", ""),
    ]
    assert {judge(item, ["gsoci.azurecr.io/"]).status for item in found} == {"empty"}
    config_map = {
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"art": '{"image": "", "defaultImageVersion": "v1"}'},
    }
    assert pairs(configmap_references(config_map)[0]) == [("ConfigMap/c data.art $.image", "")]


def test_a_charts_copy_goes_once_its_renders_end_while_other_charts_still_render(helm, tmp_path, monkeypatch):
    """The larger chart renders first; the smaller chart's consumer waits in its worker until the larger
    chart's renderable copy is removed, which happens while that worker still runs."""
    import tempfile
    import time

    from gsvendor.images.render import render_charts
    from gsvendor.images.variants import ChartTarget, ImagesConfig

    charts = []
    for name, padding in (("big", 200_000), ("small", 0)):
        chart = tmp_path / name
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n")
        (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
        (chart / "padding.txt").write_text("x" * padding)
        charts.append(ChartTarget(name, chart, name))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    def big_copy_gone(rendered) -> bool | None:
        if rendered.chart.name != "small":
            return None
        for _ in range(600):
            if not list(scratch.glob("gsvendor-render-*/big")):
                return True
            time.sleep(0.05)
        return False

    rendering = render_charts(charts, ImagesConfig(), helm, {"gone": big_copy_gone})
    assert [(r.chart.name, r.rendered, r.outputs["gone"]) for r in rendering.variants] == [
        ("big", True, None),
        ("small", True, True),
    ]
    assert list(scratch.iterdir()) == []


def test_switch_paths_escape_what_helms_set_parser_splits_keys_at():
    keys = ("a.b", "x[0]", "k=v", "a,b", "back\\slash", "ü.ö", "plain")
    assert discover_switches({key: {"enabled": False} for key in keys}) == [
        "a\\.b.enabled",
        "x\\[0].enabled",
        "k\\=v.enabled",
        "a\\,b.enabled",
        "back\\\\slash.enabled",
        "ü\\.ö.enabled",
        "plain.enabled",
    ]
