"""`gsvendor check-images` end to end, with the real helm (hack/install-helm.sh).

Fixture charts (tests/imagekit.py) are written into tmp_path, each hiding a non-gsoci image in
one place. Nothing here depends on the Giant Swarm gsoci overlays; the raw upstream charts and
the synced ones are tests/images/test_check_images_upstream.py's.
"""

from __future__ import annotations

import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from imagekit import check, invoke, rows, variant_of, write_chart, write_config
from typer.testing import CliRunner

from gsvendor.cli import app

# --------------------------------------------------------------------------------------------
# A non-gsoci image hidden in each place is caught there.

PLACES = {
    "deployment-container": (
        {
            "app.yaml": """\
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: app
            spec:
              template:
                spec:
                  containers:
                    - name: fine
                      image: gsoci.azurecr.io/giantswarm/fine:1.0.0
                    - name: hidden
                      image: docker.io/evil/hidden:1.0.0
            """
        },
        "",
        [
            (
                "defaults",
                "Deployment/app spec.template.spec.containers[hidden].image",
                "docker.io/evil/hidden:1.0.0",
                "docker.io/evil/hidden:1.0.0",
            )
        ],
    ),
    "init-container": (
        {
            "job.yaml": """\
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: setup
            spec:
              template:
                spec:
                  initContainers:
                    - name: prepare
                      image: quay.io/evil/prepare:2
                  containers:
                    - name: run
                      image: gsoci.azurecr.io/giantswarm/run:2
            """
        },
        "",
        [
            (
                "defaults",
                "Job/setup spec.template.spec.initContainers[prepare].image",
                "quay.io/evil/prepare:2",
                "quay.io/evil/prepare:2",
            )
        ],
    ),
    "ephemeral-container": (
        {
            "pod.yaml": """\
            apiVersion: v1
            kind: Pod
            metadata:
              name: debug
            spec:
              containers:
                - name: app
                  image: gsoci.azurecr.io/giantswarm/app:1
              ephemeralContainers:
                - name: debugger
                  image: busybox:1.36
            """
        },
        "",
        [
            (
                "defaults",
                "Pod/debug spec.ephemeralContainers[debugger].image",
                "busybox:1.36",
                "docker.io/library/busybox:1.36",
            )
        ],
    ),
    "custom-resource-nested-pod-template": (
        {
            "preset.yaml": """\
            apiVersion: serving.kserve.io/v1alpha1
            kind: LLMInferenceServiceConfig
            metadata:
              name: kserve-config-llm-scheduler
            spec:
              router:
                scheduler:
                  template:
                    containers:
                      - name: main
                        image: ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0
            """,
            "other.yaml": """\
            apiVersion: example.com/v1
            kind: NobodyKnowsThisKind
            metadata:
              name: pipeline
            spec:
              stages:
                - name: first
                  podTemplate:
                    spec:
                      initContainers:
                        - name: fetch
                          image: gsoci.azurecr.io/giantswarm/fetch:1
            """,
        },
        "",
        [
            (
                "defaults",
                "LLMInferenceServiceConfig/kserve-config-llm-scheduler"
                " spec.router.scheduler.template.containers[main].image",
                "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
                "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0",
            )
        ],
    ),
    "env-image-variable": (
        {
            "app.yaml": """\
            apiVersion: apps/v1
            kind: DaemonSet
            metadata:
              name: agent
            spec:
              template:
                spec:
                  containers:
                    - name: agent
                      image: gsoci.azurecr.io/giantswarm/agent:1
                      env:
                        - name: LOG_LEVEL
                          value: debug
                        - name: STORAGE_INITIALIZER_IMAGE
                          value: kserve/storage-initializer:v0.20.0
            """
        },
        "",
        [
            (
                "defaults",
                "DaemonSet/agent spec.template.spec.containers[agent].env[STORAGE_INITIALIZER_IMAGE].value",
                "kserve/storage-initializer:v0.20.0",
                "docker.io/kserve/storage-initializer:v0.20.0",
            )
        ],
    ),
    "configmap-json-image": (
        {
            "cm.yaml": """\
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: inferenceservice-config
            data:
              agent: |-
                {
                    "image" : "kserve/agent:v0.20.0",
                    "cpuLimit": "1"
                }
              router: |-
                {"image": "gsoci.azurecr.io/giantswarm/router:v0.20.0"}
            """
        },
        "",
        [
            (
                "defaults",
                "ConfigMap/inferenceservice-config data.agent $.image",
                "kserve/agent:v0.20.0",
                "docker.io/kserve/agent:v0.20.0",
            )
        ],
    ),
    "configmap-json-split-image-and-version": (
        {
            "cm.yaml": """\
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: inferenceservice-config
            data:
              explainers: |-
                {
                    "art" : {
                        "image" : "kserve/art-explainer",
                        "defaultImageVersion": "v0.20.0"
                    }
                }
            """
        },
        "",
        [
            (
                "defaults",
                "ConfigMap/inferenceservice-config data.explainers $.art.image (+ defaultImageVersion)",
                "kserve/art-explainer:v0.20.0",
                "docker.io/kserve/art-explainer:v0.20.0",
            )
        ],
    ),
    "values-image": (
        {},
        """\
        agent:
          image: kserve/agent
          tag: v0.20.0
        """,
        [
            (
                "values.yaml",
                "values.yaml:6 agent.image (+ tag)",
                "kserve/agent:v0.20.0",
                "docker.io/kserve/agent:v0.20.0",
            )
        ],
    ),
    "values-something-image": (
        {},
        """\
        controller:
          rbacProxyImage: quay.io/brancz/kube-rbac-proxy:v0.18.0
        """,
        [
            (
                "values.yaml",
                "values.yaml:6 controller.rbacProxyImage",
                "quay.io/brancz/kube-rbac-proxy:v0.18.0",
                "quay.io/brancz/kube-rbac-proxy:v0.18.0",
            )
        ],
    ),
    "values-repository-registry-tag": (
        {},
        """\
        proxy:
          image:
            registry: quay.io
            repository: brancz/kube-rbac-proxy
            tag: v0.18.0
        """,
        [
            (
                "values.yaml",
                "values.yaml:8 proxy.image.repository (+ registry, tag)",
                "quay.io/brancz/kube-rbac-proxy:v0.18.0",
                "quay.io/brancz/kube-rbac-proxy:v0.18.0",
            )
        ],
    ),
    "behind-an-enabled-switch": (
        {
            "extra.yaml": """\
            {{- if .Values.extra.enabled }}
            apiVersion: apps/v1
            kind: StatefulSet
            metadata:
              name: extra
            spec:
              template:
                spec:
                  containers:
                    - name: extra
                      image: "{{ .Values.extra.image }}"
            {{- end }}
            """
        },
        """\
        extra:
          enabled: false
          image: gsoci.azurecr.io/giantswarm/extra:1
        overrides:
          extraImage: "{{ .Values.extra.image }}"
        """,
        [],  # the image is gsoci: nothing offends, but the switch must have rendered it (asserted below)
    ),
    "behind-a-create-switch": (
        {
            "monitor.yaml": """\
            {{- if .Values.monitoring.createExporter }}
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: exporter
            spec:
              template:
                spec:
                  containers:
                    - name: exporter
                      image: quay.io/prometheus/node-exporter:v1.8.0
            {{- end }}
            """
        },
        """\
        monitoring:
          createExporter: false
        """,
        [
            (
                "switches-on",
                "Deployment/exporter spec.template.spec.containers[exporter].image",
                "quay.io/prometheus/node-exporter:v1.8.0",
                "quay.io/prometheus/node-exporter:v1.8.0",
            )
        ],
    ),
}


@pytest.mark.parametrize("place", list(PLACES))
def test_an_image_hidden_in_each_place_is_caught_there(helm, tmp_path, place):
    templates, values, expected = PLACES[place]
    chart = write_chart(tmp_path, templates=templates, values=values)
    code, data, result = check(helm, chart, config=write_config(tmp_path))
    assert rows(data) == [("fixture", *row) for row in expected]
    assert code == (1 if expected else 0), result.stderr
    # the gsoci base image is found and allowed in every rendered variant
    base = "Deployment/base spec.template.spec.containers[base].image"
    assert (
        "fixture",
        "defaults",
        base,
        "gsoci.azurecr.io/giantswarm/base:1.0.0",
        "gsoci.azurecr.io/giantswarm/base:1.0.0",
    ) in rows(data, ("allowed",))
    if expected:
        assert (
            f"check-images failed: 1 image(s) outside gsoci.azurecr.io/ or invalid: {expected[0][3].rsplit(':', 1)[0]}"
            in result.stderr
        )


def test_a_switch_renders_what_defaults_hide(helm, tmp_path):
    templates, values, _ = PLACES["behind-an-enabled-switch"]
    chart = write_chart(tmp_path, templates=templates, values=values)
    code, data, _ = check(helm, chart, config=write_config(tmp_path))
    assert code == 0
    switches_on = variant_of(data, "fixture", "switches-on")
    assert switches_on["switches"] == ["extra.enabled"]
    assert [(r["location"], r["status"]) for r in switches_on["references"]] == [
        ("Deployment/base spec.template.spec.containers[base].image", "allowed"),
        ("StatefulSet/extra spec.template.spec.containers[extra].image", "allowed"),
    ]
    assert all("StatefulSet" not in r["location"] for r in variant_of(data, "fixture", "defaults")["references"])
    # a templated values entry is listed as such, not failed
    values_refs = variant_of(data, "fixture", "values.yaml")["references"]
    assert [(r["location"], r["status"]) for r in values_refs if r["status"] == "templated"] == [
        ("values.yaml:9 overrides.extraImage", "templated")
    ]


def test_a_chart_without_switches_renders_defaults_only(helm, tmp_path):
    code, data, _ = check(helm, write_chart(tmp_path), config=write_config(tmp_path))
    assert code == 0
    assert [v["name"] for v in data["charts"][0]["variants"]] == ["defaults", "values.yaml"]
    assert data["summary"]["variantsRendered"] == 1
    assert data["summary"]["references"] == 2  # the Deployment's image and values.yaml's base.image
    config = write_config(tmp_path)
    quiet = invoke("--config", config, "check-images", tmp_path / "fixture", "--helm", helm)
    assert "allowed" not in quiet.stdout and quiet.stdout.startswith("ok: checked 2 image reference(s)")
    verbose = invoke("--config", config, "check-images", tmp_path / "fixture", "--helm", helm, "-v")
    assert [line.count("allowed") for line in verbose.stdout.splitlines() if "base.image" in line] == [1]
    assert [line.count("allowed") for line in verbose.stdout.splitlines() if "containers[base]" in line] == [1]


@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
@pytest.mark.parametrize("where", ["templates", "chart"])
def test_a_chart_named_dot_or_dot_dot_from_inside_it_renders(helm, tmp_path, monkeypatch, command, where):
    # `cd helm/kserve-crd && gsvendor check-images .` (or `..` from templates/) copied the chart to
    # <tmp>/. or <tmp>/.. : "cannot copy the chart to render it: File exists", exit 2
    config = write_config(tmp_path)
    chart = write_chart(tmp_path)
    monkeypatch.chdir(chart / "templates" if where == "templates" else chart)
    result = invoke("--config", config, command, ".." if where == "templates" else ".", "--helm", helm)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[-1].startswith("ok: checked")


def test_a_non_json_configmap_key_is_listed_as_skipped(helm, tmp_path):
    chart = write_chart(
        tmp_path,
        templates={
            "cm.yaml": """\
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: inferenceservice-config
            data:
              _example: |-
                ################################
                # EXAMPLE CONFIGURATION        #
                ################################
              agent: |-
                {"image": "gsoci.azurecr.io/giantswarm/agent:v0.20.0"}
            """
        },
    )
    config = write_config(tmp_path)
    code, data, _ = check(helm, chart, config=config)
    assert code == 0
    assert variant_of(data, "fixture", "defaults")["skipped"] == [
        {
            "object": "ConfigMap/inferenceservice-config",
            "path": "data._example",
            "reason": "not JSON (Expecting value: line 1 column 1 (char 0))",
        }
    ]
    text = invoke("--config", config, "check-images", chart, "--helm", helm, "-v")
    assert text.exit_code == 0
    assert (
        "skipped ConfigMap/inferenceservice-config data._example: not JSON (Expecting value: line 1 column 1 (char 0))"
        in text.stdout
    )
    assert "checked 3 image reference(s) in 1 rendered variant(s) and the values.yaml of 1 chart(s)" in text.stdout


def test_the_table_names_place_reference_and_normalized_form(helm, tmp_path):
    templates, values, _ = PLACES["ephemeral-container"]
    chart = write_chart(tmp_path, templates=templates, values=values)
    result = invoke("--config", write_config(tmp_path), "check-images", chart, "--helm", helm)
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if "ephemeralContainers" in line)
    cells = re.split(r" {2,}", line.strip())
    assert cells == [
        "defaults",
        "Pod/debug spec.ephemeralContainers[debugger].image",
        "busybox:1.36",
        "docker.io/library/busybox:1.36",
        "offender",
    ]
    assert "0 invalid, 0 variant problem(s)" in result.stdout
    assert "1 outside gsoci.azurecr.io/" in result.stdout


def test_at_80_columns_a_normalized_form_that_differs_is_a_note_and_references_break_at_slashes(helm, tmp_path):
    # and a field path breaks after a "." ("spec.ephemeralContainers[debugger].ima" / "ge" was cut mid-word)
    templates, values, _ = PLACES["ephemeral-container"]
    chart = write_chart(tmp_path, templates=templates, values=values)
    args = ["--config", str(write_config(tmp_path)), "check-images", str(chart), "--helm", helm, "-v"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 1
    # no "normalized" column: only the Docker Hub reference differs from its normalized form, named
    # below the table; the table title above (the chart's path) takes as many lines as the
    # temporary folder's name needs
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("variant "))
    assert lines[header : header + 14] == [
        "variant      found in                                as written         status",
        "------------ --------------------------------------- ------------------ --------",
        "defaults     Pod/debug spec.containers[app].image    gsoci.azurecr.io/  allowed",
        "                                                     giantswarm/app:1",
        "defaults     Pod/debug                               busybox:1.36       offender",
        "             spec.ephemeralContainers[debugger].",
        "             image",
        "defaults     Deployment/base                         gsoci.azurecr.io/  allowed",
        "             spec.template.spec.containers[base].    giantswarm/",
        "             image                                   base:1.0.0",
        "values.yaml  values.yaml:3 base.image (+ tag)        gsoci.azurecr.io/  allowed",
        "                                                     giantswarm/",
        "                                                     base:1.0.0",
        "  busybox:1.36: normalized: docker.io/library/busybox:1.36",
    ]
    assert lines[header + 14].startswith("checked 4 image reference(s)")
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_invalid_references_fail_and_allow_replaces_the_configured_prefixes(helm, tmp_path):
    chart = write_chart(
        tmp_path,
        values="""\
        proxy:
          image: quay.io/brancz/kube-rbac-proxy:v0.18.0
        broken:
          image: quay.io/Brancz/Proxy
        """,
    )
    config = write_config(tmp_path, "images:\n  allow: [quay.io/brancz/]\n")
    code, data, _ = check(helm, chart, config=config)
    assert code == 1
    statuses = {r[2]: s for s in ("allowed", "offender", "invalid") for r in rows(data, (s,))}
    assert statuses == {
        "Deployment/base spec.template.spec.containers[base].image": "offender",  # config allows quay.io/brancz/ only
        "values.yaml:3 base.image (+ tag)": "offender",
        "values.yaml:6 proxy.image": "allowed",
        "values.yaml:8 broken.image": "invalid",
    }
    message = next(
        r["message"] for c in data["charts"] for v in c["variants"] for r in v["references"] if r["status"] == "invalid"
    )
    assert message == "'quay.io/Brancz/Proxy': repository name (Brancz/Proxy) must be lowercase"
    # --allow replaces the configured prefixes: now gsoci is allowed and quay.io/brancz/ is not
    code, data, _ = check(helm, chart, config=config, args=("--allow", "gsoci.azurecr.io"))
    statuses = {r[2]: s for s in ("allowed", "offender", "invalid") for r in rows(data, (s,))}
    assert statuses["Deployment/base spec.template.spec.containers[base].image"] == "allowed"
    assert statuses["values.yaml:6 proxy.image"] == "offender"
    assert data["allow"] == ["gsoci.azurecr.io"]


def test_a_prefix_without_slash_does_not_admit_a_lookalike_registry(helm, tmp_path):
    chart = write_chart(tmp_path, values="evil:\n  image: gsoci.azurecr.io.evil.example/giantswarm/x:1\n")
    code, data, _ = check(helm, chart, config=write_config(tmp_path), args=("--allow", "gsoci.azurecr.io"))
    assert code == 1
    assert rows(data) == [
        (
            "fixture",
            "values.yaml",
            "values.yaml:6 evil.image",
            "gsoci.azurecr.io.evil.example/giantswarm/x:1",
            "gsoci.azurecr.io.evil.example/giantswarm/x:1",
        )
    ]


# --------------------------------------------------------------------------------------------
# Declared variants and expected failures.

GUARDED_TEMPLATE = """\
{{- if .Values.runtime.enabled }}
{{- if not .Values.runtime.image }}
{{- fail "runtime.enabled needs runtime.image" }}
{{- end }}
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: runtime
spec:
  containers:
    - name: kserve-container
      image: "{{ .Values.runtime.image }}"
{{- end }}
"""

GUARDED_VALUES = """\
runtime:
  enabled: false
  image: ""
"""


def guarded(tmp_path: Path, variants: str, switch_values: bool = True) -> tuple[Path, Path]:
    chart = write_chart(tmp_path, templates={"runtime.yaml": GUARDED_TEMPLATE}, values=GUARDED_VALUES)
    (tmp_path / "hack").mkdir()
    (tmp_path / "hack" / "runtime.yaml").write_text(
        "runtime:\n  image: gsoci.azurecr.io/giantswarm/sklearnserver:v0.20.0\n", encoding="utf-8"
    )
    images = "images:\n  charts:\n    fixture:\n"
    if switch_values:
        images += "      switchValues: [hack/runtime.yaml]\n"
    images += "      variants:\n" + textwrap.indent(textwrap.dedent(variants), "        ")
    return chart, write_config(tmp_path, images)


def test_a_variant_that_fails_as_declared_is_not_an_error(helm, tmp_path):
    chart, config = guarded(
        tmp_path,
        """\
        - name: runtime-without-image
          set: {runtime.enabled: true}
          expectFailure: 'runtime\\.enabled needs runtime\\.image'
        """,
    )
    junit = tmp_path / "out" / "junit.xml"
    code, data, result = check(helm, chart, config=config, args=("--junit", junit))
    assert code == 0, result.stderr
    variant = variant_of(data, "fixture", "runtime-without-image")
    assert (variant["rendered"], variant["expectedFailure"], variant["problem"], variant["ok"]) == (
        False,
        True,
        None,
        True,
    )
    assert (
        "execution error at (fixture/templates/runtime.yaml:3:4): runtime.enabled needs runtime.image"
        in variant["error"]
    )
    assert variant["set"] == ["runtime.enabled=true"]
    switches_on = variant_of(data, "fixture", "switches-on")
    assert switches_on["switches"] == ["runtime.enabled"]
    assert switches_on["valuesFiles"] == [str(tmp_path / "hack" / "runtime.yaml")]
    assert [(r["location"], r["normalized"], r["status"]) for r in switches_on["references"]][1] == (
        "ClusterServingRuntime/runtime spec.containers[kserve-container].image",
        "gsoci.azurecr.io/giantswarm/sklearnserver:v0.20.0",
        "allowed",
    )
    suite = ET.parse(junit).getroot()
    cases = [(c.get("classname"), c.get("name"), c.find("failure") is not None) for c in suite.iter("testcase")]
    assert cases == [
        ("check-images.fixture", "defaults", False),
        ("check-images.fixture", "switches-on", False),
        ("check-images.fixture", "runtime-without-image", False),
        ("check-images.fixture", "values.yaml", False),
    ]
    assert "failed as declared" not in invoke("--config", config, "check-images", chart, "--helm", helm).stdout
    text = invoke("--config", config, "check-images", chart, "--helm", helm, "-v")
    assert "✓ fixture runtime-without-image: failed as declared" in text.stdout


def test_a_variant_that_fails_unexpectedly_is_exit_1(helm, tmp_path):
    chart, config = guarded(tmp_path, "- name: runtime-on\n  set: {runtime.enabled: true}\n")
    junit = tmp_path / "junit.xml"
    code, data, result = check(helm, chart, config=config, args=("--junit", junit))
    assert code == 1
    problem = variant_of(data, "fixture", "runtime-on")["problem"]
    assert problem.startswith("failed to render: Error: execution error at (fixture/templates/runtime.yaml:3:4): ")
    assert problem.endswith("runtime.enabled needs runtime.image")
    assert "check-images failed: 1 variant(s) with problems: fixture runtime-on" in result.stderr
    failures = {c.get("name"): c.find("failure") for c in ET.parse(junit).getroot().iter("testcase")}
    assert failures["runtime-on"] is not None and failures["runtime-on"].get("message").startswith("failed to render")
    assert failures["defaults"] is None


def test_a_failure_with_another_message_or_a_render_that_should_fail_is_exit_1(helm, tmp_path):
    chart, config = guarded(
        tmp_path,
        """\
        - name: wrong-message
          set: {runtime.enabled: true}
          expectFailure: 'something else entirely'
        - name: guard-gone
          set: {runtime.enabled: true, runtime.image: gsoci.azurecr.io/giantswarm/x:1}
          expectFailure: 'needs runtime\\.image'
        """,
    )
    code, data, _ = check(helm, chart, config=config)
    assert code == 1
    assert variant_of(data, "fixture", "wrong-message")["problem"].startswith(
        "failed, but not as declared (expectFailure /something else entirely/): Error: execution error"
    )
    guard_gone = variant_of(data, "fixture", "guard-gone")
    assert guard_gone["problem"] == "rendered, but is declared to fail (expectFailure /needs runtime\\.image/)"
    assert guard_gone["set"] == ["runtime.enabled=true", 'runtime.image="gsoci.azurecr.io/giantswarm/x:1"']


def test_an_expect_failure_pattern_that_backtracks_exponentially_is_cut_off_as_a_problem(helm, tmp_path):
    """The search of helm's message has a time limit: such a pattern is a variant problem (exit 1), not a run
    that never ends and, holding the interpreter, ignores Ctrl-C."""
    pattern = "(?:.*?[ a-z]){30}\\d"
    chart, config = guarded(
        tmp_path,
        f"""\
        - name: backtracking
          set: {{runtime.enabled: true}}
          expectFailure: '{pattern}'
        """,
    )
    code, data, _ = check(helm, chart, config=config)
    assert code == 1
    assert variant_of(data, "fixture", "backtracking")["problem"].startswith(
        "failed, but not as declared (expectFailure /(?:.*?[ a-z]){30}\\d/ did not finish in 5 s: write it "
        "without nested repetition): Error: execution error"
    )


def test_switches_on_without_the_values_it_needs_fails(helm, tmp_path):
    chart, config = guarded(tmp_path, "[]\n", switch_values=False)
    code, data, result = check(helm, chart, config=config)
    assert code == 1
    assert variant_of(data, "fixture", "switches-on")["problem"].endswith("runtime.enabled needs runtime.image")
    assert "fixture switches-on" in result.stderr


# --------------------------------------------------------------------------------------------
# Usage and configuration errors: exit 2, one line, no traceback.


@pytest.mark.parametrize(
    ("images", "message"),
    [
        (
            "images:\n  charts:\n    fixture:\n      variants:\n        - name: defaults\n",
            "gsvendor.yaml:9: images.charts.fixture.variants[0].name: 'defaults' is reserved (built-in variant)",
        ),
        (
            "images:\n  charts:\n    fixture:\n      variants:\n        - {name: x, expectFailure: '('}\n",
            "gsvendor.yaml:9: images.charts.fixture.variants[0].expectFailure: not a valid regular expression",
        ),
        (
            "images:\n  charts:\n    fixture:\n      switchValues: [missing.yaml]\n",
            "gsvendor.yaml:8: images.charts.fixture.switchValues[0]: missing.yaml: no such file",
        ),
        (
            "images:\n  allow: gsoci.azurecr.io/\n",
            "gsvendor.yaml:6: images.allow: 'gsoci.azurecr.io/' is not of type 'array'",
        ),
        (
            "images:\n  charts:\n    fixture:\n      variants:\n        - {name: x, expect: y}\n",
            "gsvendor.yaml:9: images.charts.fixture.variants[0].expect: unknown key 'expect'; did you mean "
            "expectFailure? (known here: expectFailure, expectFailureWhile, name, set, values)",
        ),
        (
            "images:\n  charts:\n    fixtur:\n      switchValues: []\n",
            "gsvendor.yaml:7: images.charts.fixtur: no chart named 'fixtur' in charts (known: fixture); did you mean "
            "fixture?",
        ),
    ],
    ids=["reserved-name", "bad-regex", "missing-values-file", "allow-not-a-list", "unknown-key", "unknown-chart"],
)
def test_configuration_errors_exit_2(helm, tmp_path, images, message):
    chart = write_chart(tmp_path)
    result = invoke("--config", write_config(tmp_path, images), "check-images", chart, "--helm", helm)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
@pytest.mark.parametrize("given", ["fixture", "fixtur", "helm/fixtur"])
def test_a_chart_name_or_a_misspelt_folder_suggests_the_chart_folder(helm, tmp_path, monkeypatch, command, given):
    # a user passes the chart name as diff takes it: the CHART_DIR it meant is named
    config = write_config(tmp_path)
    write_chart(tmp_path / "helm")
    monkeypatch.chdir(tmp_path)
    result = invoke("--config", config, command, given, "--helm", helm)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {given}: no such chart folder; did you mean {Path('helm', 'fixture')}?\n",
    )
    assert result.stdout == ""


def test_usage_errors_exit_2(helm, tmp_path):
    config = write_config(tmp_path)
    (tmp_path / "not-a-chart").mkdir()
    result = invoke("--config", config, "check-images", tmp_path / "not-a-chart", "--helm", helm)
    assert (result.exit_code, result.stderr) == (2, f"error: {tmp_path / 'not-a-chart'}: not a chart (no Chart.yaml)\n")
    result = invoke("--config", config, "check-images", tmp_path / "no-such", "--helm", helm)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {tmp_path / 'no-such'}: no such chart folder; give a folder holding a Chart.yaml\n",
    )
    write_chart(tmp_path)  # an empty --allow prefix: tests/test_cli_options.py (refused while parsing)
    result = invoke("--config", config, "check-images", "--helm", helm)  # the configured chart was never synced
    assert (result.exit_code, result.stderr) == (
        2,
        "error: helm/fixture/ does not exist: run gsvendor sync\n",
    )
    result = invoke("--config", config, "check-images", tmp_path / "fixture", "--helm", helm, "--junit", tmp_path)
    assert (result.exit_code, result.stderr) == (2, f"error: --junit {tmp_path}: cannot write: Is a directory\n")
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    for junit in (in_the_way / "x.xml", in_the_way / "sub" / "x.xml"):  # a file where its folder (or one above) goes
        result = invoke("--config", config, "check-images", tmp_path / "fixture", "--helm", helm, "--junit", junit)
        assert (result.exit_code, result.stderr) == (
            2,
            f"error: --junit {junit}: cannot make its folder {junit.parent}: a file is in the way\n",
        )
    result = invoke("--config", config, "check-images", tmp_path / "fixture", "--helm", tmp_path / "no-helm")
    assert (result.exit_code, result.stderr.strip()) == (
        2,
        f"error: --helm {tmp_path / 'no-helm'}: not an executable file",
    )


def test_a_malformed_gomemlimit_fails_each_render_with_gos_message(helm, tmp_path, monkeypatch):
    """A GOMEMLIMIT set by the user is Go's to judge: helm dies at start and each render fails with
    Go's one-line message (exit 1), not the runtime stack after it."""
    chart, config = guarded(tmp_path, "- name: runtime-on\n  set: {runtime.enabled: true}\n")
    monkeypatch.setenv("GOMEMLIMIT", "lots")
    code, data, _ = check(helm, chart, config=config)
    assert code == 1
    problem = variant_of(data, "fixture", "defaults")["problem"]
    assert problem == (
        "failed to render: GOMEMLIMIT=lots fatal error: malformed GOMEMLIMIT; see `go doc runtime/debug.SetMemoryLimit`"
    )


def test_a_chart_folder_name_past_255_bytes_is_a_usage_error(helm, tmp_path):
    # pathlib's is_file raised OSError "File name too long": a traceback, exit 1
    config = write_config(tmp_path)
    given = tmp_path / ("a" * 300)
    for command in ("check-images", "check-manifests"):
        result = invoke("--config", config, command, given, "--helm", helm)
        assert (result.exit_code, result.stderr) == (2, f"error: {given / 'Chart.yaml'}: File name too long\n")
