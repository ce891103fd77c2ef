"""``gsvendor generate`` as Giant Swarm's pipeline makes it.

Giant Swarm's pre-commit runs, from the repository root, ``helm schema --config
helm/<chart>/.schema.yaml`` (helm-values-schema-json v2.5.0, devctl's settings) and ``helm-docs
--chart-search-root=helm --sort-values-order=file`` (v1.14.2). The expected bytes below were worked
out from those tools' source (hvsj ``pkg/schema.go`` ``Schema`` field order and ``WriteOutput``'s
``json.MarshalIndent``; helm-docs ``sortValueRowsByOrder``, ``ParseComment``) and confirmed by the
real binaries built at those tags (tests/differential/ compares them on many more inputs).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import ROOT, TAGS, tarball

from gsvendor.config import GenerateSettings
from gsvendor.generate.readme.template import render_readme
from gsvendor.images.render import template

DEVCTL_SCHEMA_YAML = (ROOT / "overlays/files/common/schema.yaml").read_text().replace("${chart}", "demo")
DEVCTL_README = (
    '{{ template "chart.header" . }}\n{{ template "chart.deprecationWarning" . }}\n\n'
    '{{ template "chart.description" . }}\n\n{{ template "chart.homepageLine" . }}\n\n'
    '{{ template "chart.maintainersSection" . }}\n\n{{ template "chart.sourcesSection" . }}\n\n'
    '{{ template "chart.requirementsSection" . }}\n\n{{ template "chart.valuesSection" . }}\n'
)
VALUES = (
    "# -- Image of the <main> container & friends.\n"
    "image: gsoci.azurecr.io/giantswarm/app:v1\n"
    "replicas: 2\n"
    "# -- Labels added to every pod.\n"
    'podLabels: {}  # @schema additionalProperties: {"type": "string"}\n'
    "resources:\n"
    "  limits:\n"
    "    # -- CPU limit,\n"
    "    # two lines with a trailing space \n"  # the trailing space is the point
    "    # here.\n"
    "    cpu: 500m\n"
)

# helm-values-schema-json v2.5.0's own bytes: Schema struct field order ($schema, description,
# $comment, type, properties, additionalProperties), map keys sorted, <>& escaped, 4 spaces
HVSJ_SCHEMA = """\
{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "global": {
            "description": "Global values shared between all subcharts",
            "$comment": "Added automatically by 'helm schema' to allow this chart to be used as a Helm dependency, as the `additionalProperties` setting would otherwise collide with Helm's special 'global' values key.",
            "type": [
                "object",
                "null"
            ]
        },
        "image": {
            "description": "Image of the \\u003cmain\\u003e container \\u0026 friends.",
            "type": "string"
        },
        "podLabels": {
            "description": "Labels added to every pod.",
            "type": "object",
            "additionalProperties": {
                "type": "string"
            }
        },
        "replicas": {
            "type": "integer"
        },
        "resources": {
            "type": "object",
            "properties": {
                "limits": {
                    "type": "object",
                    "properties": {
                        "cpu": {
                            "description": "CPU limit, two lines with a trailing space here.",
                            "type": "string"
                        }
                    },
                    "additionalProperties": false
                }
            },
            "additionalProperties": false
        }
    },
    "additionalProperties": false
}
"""  # noqa: E501

# the same after schemalint v2.6.1 normalize: keys by importance, <>& unescaped
SCHEMALINT_SCHEMA = """\
{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": false,
    "properties": {
        "global": {
            "type": [
                "object",
                "null"
            ],
            "description": "Global values shared between all subcharts",
            "$comment": "Added automatically by 'helm schema' to allow this chart to be used as a Helm dependency, as the `additionalProperties` setting would otherwise collide with Helm's special 'global' values key."
        },
        "image": {
            "type": "string",
            "description": "Image of the <main> container & friends."
        },
        "podLabels": {
            "type": "object",
            "description": "Labels added to every pod.",
            "additionalProperties": {
                "type": "string"
            }
        },
        "replicas": {
            "type": "integer"
        },
        "resources": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "limits": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "cpu": {
                            "type": "string",
                            "description": "CPU limit, two lines with a trailing space here."
                        }
                    }
                }
            }
        }
    }
}
"""  # noqa: E501

# helm-docs v1.14.2 --sort-values-order=file: rows in values.yaml order; the multi-line comment
# joined from its raw lines, so the trailing space of a line makes a double space
README_FILE_ORDER = """\
# demo

A Giant Swarm-shaped chart.

## Values

| Key | Type | Default | Description |
|-----|------|---------|-------------|
| image | string | `"gsoci.azurecr.io/giantswarm/app:v1"` | Image of the <main> container & friends. |
| replicas | int | `2` |  |
| podLabels | object | `{}` | Labels added to every pod. |
| resources.limits.cpu | string | `"500m"` | CPU limit, two lines with a trailing space  here. |
"""


def giant_swarm_project(tmp_path: Path, generate: str = "") -> Path:
    """A project shaped like Giant Swarm's repository: one chart under helm/ with devctl's files."""
    project = tmp_path / "project"
    chart = project / "helm" / "demo"
    chart.mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(
        "upstream:\n  repository: example/demo\ncharts:\n  - demo\n" + dedent(generate)
    )
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: demo\ndescription: A Giant Swarm-shaped chart.\nversion: 1.2.3\nappVersion: v1.0.0\n"
    )
    (chart / "values.yaml").write_text(VALUES)
    (chart / "README.md.gotmpl").write_text(DEVCTL_README)
    (chart / ".schema.yaml").write_text(DEVCTL_SCHEMA_YAML)
    return project


def gsvendor(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args], cwd=project, capture_output=True, text=True, check=False, timeout=300
    )


PIPELINE = """\
generate:
  readme:
    sortValuesOrder: file
  schema:
    normalize: none
"""


def test_devctl_schema_yaml_from_the_project_root_gives_the_tools_bytes(tmp_path: Path) -> None:
    project = giant_swarm_project(tmp_path, PIPELINE)

    done = gsvendor(project, "generate")

    assert done.returncode == 0, done.stderr
    assert (project / "helm/demo/values.schema.json").read_text() == HVSJ_SCHEMA
    assert (project / "helm/demo/README.md").read_text() == README_FILE_ORDER
    assert gsvendor(project, "generate", "--check").returncode == 0


def test_schemalint_order_only_when_asked(tmp_path: Path) -> None:
    project = giant_swarm_project(tmp_path, "generate:\n  schema:\n    normalize: schemalint\n")

    assert gsvendor(project, "generate").returncode == 0

    assert (project / "helm/demo/values.schema.json").read_text() == SCHEMALINT_SCHEMA


def test_default_settings_are_helm_docs_and_hvsj_defaults(tmp_path: Path) -> None:
    project = giant_swarm_project(tmp_path)

    assert gsvendor(project, "generate").returncode == 0

    assert (project / "helm/demo/values.schema.json").read_text() == HVSJ_SCHEMA
    rows = (project / "helm/demo/README.md").read_text().splitlines()[-4:]
    assert [row.split(" | ")[0] for row in rows] == ["| image", "| podLabels", "| replicas", "| resources.limits.cpu"]


@pytest.mark.parametrize(
    ("generate", "message"),
    [
        (
            "generate:\n  readme:\n    sortValuesOrder: random\n",
            "gsvendor.yaml:7: generate.readme.sortValuesOrder: 'random' is not one of ['alphabetical', 'file']",
        ),
        (
            "generate:\n  schema:\n    normalise: none\n",
            "gsvendor.yaml:7: generate.schema.normalise: unknown key 'normalise'; did you mean normalize? "
            "(known here: normalize)",
        ),
    ],
)
def test_generate_settings_are_validated(tmp_path: Path, generate: str, message: str) -> None:
    done = gsvendor(giant_swarm_project(tmp_path, generate), "generate")

    assert done.returncode == 2
    assert message in done.stderr


def test_chart_relative_paths_are_not_what_the_tool_reads(tmp_path: Path) -> None:
    """The tool reads values relative to its working directory, the repository root: a chart-relative
    .schema.yaml would make it read ./values.yaml, and gsvendor says so the same way."""
    project = giant_swarm_project(tmp_path)
    (project / "helm/demo/.schema.yaml").write_text("values: [values.yaml]\n")

    done = gsvendor(project, "generate")

    assert done.returncode == 2
    assert done.stderr == (
        'error: helm/demo: read --values="values.yaml": error reading YAML file(s): '
        "open values.yaml: no such file or directory\n"
    )


def test_output_outside_the_chart_is_refused(tmp_path: Path) -> None:
    project = giant_swarm_project(tmp_path)
    (project / "helm/demo/.schema.yaml").write_text("values: [helm/demo/values.yaml]\noutput: values.schema.json\n")

    done = gsvendor(project, "generate")

    assert done.returncode == 2
    assert "output: values.schema.json must be inside the chart (helm/demo/)" in done.stderr


# --- helm-docs details ---------------------------------------------------------------------------


def test_file_order_follows_values_yaml() -> None:
    """helm-docs sorts by line then column (``global`` of the chart itself is no dependency global)."""
    files = {
        "Chart.yaml": b"apiVersion: v2\nname: c\nversion: 1.0.0\n",
        "values.yaml": b"zeta: 1\nalpha:\n  b: 2\n  a: 3\nglobal:\n  x: 4\n",
    }
    table = '{{ template "chart.valuesTable" . }}'

    by_file = render_readme(files, table, settings=GenerateSettings(sort_values_order="file"))
    by_name = render_readme(files, table)

    assert by_file is not None and by_name is not None
    assert [line.split(" | ")[0] for line in by_file.decode().splitlines()[2:]] == [
        "| zeta",
        "| alpha.b",
        "| alpha.a",
        "| global.x",
    ]
    assert [line.split(" | ")[0] for line in by_name.decode().splitlines()[2:]] == [
        "| alpha.a",
        "| alpha.b",
        "| global.x",
        "| zeta",
    ]


def test_trailing_space_in_a_multi_line_comment_keeps_the_double_space() -> None:
    files = {
        "Chart.yaml": b"apiVersion: v2\nname: c\nversion: 1.0.0\n",
        "values.yaml": b"# -- first line \n# second line\nkey: 1\n",
    }

    readme = render_readme(files, '{{ template "chart.valuesTable" . }}')

    assert readme is not None
    assert readme.decode().splitlines()[-1] == "| key | int | `1` | first line  second line |"


@pytest.mark.parametrize("values", ["---\n", "---\n# nothing yet\n", "~\n", "---\nnull\n"])
def test_values_that_are_only_a_null_document_generate_like_empty_values(tmp_path: Path, values: str) -> None:
    project = giant_swarm_project(tmp_path, PIPELINE)
    empty = giant_swarm_project(tmp_path / "empty", PIPELINE)
    (project / "helm/demo/values.yaml").write_text(values)
    (empty / "helm/demo/values.yaml").write_text("")

    assert gsvendor(project, "generate").returncode == 0
    assert gsvendor(empty, "generate").returncode == 0

    for name in ("README.md", "values.schema.json"):
        assert (project / "helm/demo" / name).read_bytes() == (empty / "helm/demo" / name).read_bytes()
    # (written after pre-commit's end-of-file-fixer, as generate always writes)
    assert (project / "helm/demo/README.md").read_text() == "# demo\n\nA Giant Swarm-shaped chart.\n"


def test_a_chart_whose_values_are_only_dashes_syncs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    overlay = project / "overlays/95-dashes.yaml"
    overlay.write_text(
        "description: values.yaml that is only a document marker\ncharts: [kserve-resources]\n"
        'operations:\n  - op: copy\n    content: "---\\n"\n    to: values.yaml\n'
    )
    done = gsvendor(project, "--quiet", "sync", TAGS[-1], "--source", str(tarball(TAGS[-1])))

    assert done.returncode == 0, done.stderr
    assert (project / "helm/kserve-resources/values.yaml").read_text() == "---\n"
    schema = json.loads((project / "helm/kserve-resources/values.schema.json").read_text())
    assert set(schema["properties"]) == {"global"}
    assert "## Values" not in (project / "helm/kserve-resources/README.md").read_text()


# --- the strict schema of the synced charts, in helm ----------------------------------------------


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("synced")
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    done = gsvendor(project, "--quiet", "sync", TAGS[-1], "--source", str(tarball(TAGS[-1])))
    assert done.returncode == 0, done.stderr
    return project


OVERRIDES = """\
kserve:
  llmisvcConfigs:
    enabled: true
    imageRegistry: ghcr.io/llm-d/
    images:
      kserve-config-llm-template:
        main: registry.example.com/vllm-arm64:v0.11.0
      kserve-config-llm-decode-template:
        main: registry.example.com/vllm-arm64:v0.11.0
        llm-d-routing-sidecar: registry.example.com/routing-sidecar:v0.9.0
    tracing:
      samplerArg: "0.5"
"""


def test_every_documented_override_passes_the_strict_schema(synced: Path, helm: str, tmp_path: Path) -> None:
    values = tmp_path / "overrides.yaml"
    values.write_text(OVERRIDES)

    rendered = template(helm, synced / "helm/kserve-runtime-configs", values_files=[values])

    assert rendered.ok, rendered.error
    assert "image: registry.example.com/routing-sidecar:v0.9.0" in rendered.manifests
    assert "image: registry.example.com/vllm-arm64:v0.11.0" in rendered.manifests


def test_rollout_strategy_passes_the_schema_and_meets_the_crd_guard(synced: Path, helm: str, tmp_path: Path) -> None:
    """The schema admits rolloutStrategy in the CRD's shape (maxSurge/maxUnavailable) and refuses a
    Deployment's (type/rollingUpdate); where the vendored CRD lacks spec.rolloutStrategy the overlay's
    guard refuses the value after the schema check, where it has the field the value renders."""
    from gsvendor.config import load_config
    from gsvendor.overlays.crdfield import project_crd_lookup

    crd_has_it = project_crd_lookup(load_config(synced / "gsvendor.yaml"))(
        "LLMInferenceServiceConfig", "spec.rolloutStrategy"
    )
    chart = synced / "helm/kserve-runtime-configs"
    head = "kserve:\n  llmisvcConfigs:\n    enabled: true\n    rolloutStrategy:\n"
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(head + "      maxSurge: 0\n      maxUnavailable: 25%\n")
    bad.write_text(head + "      type: RollingUpdate\n      rollingUpdate: {maxSurge: 0, maxUnavailable: 1}\n")

    rendered = template(helm, chart, values_files=[good])
    refused = template(helm, chart, values_files=[bad])

    assert not refused.ok
    assert "kserve.llmisvcConfigs.rolloutStrategy: Additional property type is not allowed" in refused.error
    if crd_has_it:
        assert rendered.ok, rendered.error
    else:
        assert not rendered.ok
        assert "schema" not in rendered.error
        assert "kserve.llmisvcConfigs.rolloutStrategy is set, but the LLMInferenceServiceConfig CRD" in rendered.error


@pytest.mark.parametrize(
    ("chart", "expression"),
    [
        ("kserve-resources", "kserve.controller.nodeSelector.kubernetes\\.io/os=linux"),
        ("kserve-resources", "kserve.controller.labels.team=bumblebee"),
        ("kserve-llmisvc-resources", "commonLabels.team=bumblebee"),
        ("kserve-llmisvc-resources", "kserve.llmisvc.controller.affinity.nodeAffinity.x=y"),
    ],
)
def test_user_keyed_maps_of_the_resources_charts_admit_any_key(
    synced: Path, helm: str, chart: str, expression: str
) -> None:
    rendered = template(helm, synced / "helm" / chart, set_values=[expression])

    assert rendered.ok, rendered.error


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("kserve.llmisvcConfigs.imageRegistri=example.com/", "Additional property imageRegistri is not allowed"),
        ("kserve.llmisvcConfigs.enable=true", "Additional property enable is not allowed"),
        ("kserv.version=v1", "Additional property kserv is not allowed"),
        ("kserve.llmisvcConfigs.images.kserve-config-llm-template.main.tag=x", "kserve-config-llm-template.main"),
    ],
)
def test_a_typo_in_a_fixed_key_fails_in_helm(synced: Path, helm: str, expression: str, message: str) -> None:
    rendered = template(helm, synced / "helm/kserve-runtime-configs", set_values=[expression])

    assert not rendered.ok
    assert "values don't meet the specifications of the schema" in rendered.error
    assert message in rendered.error


def test_giant_swarm_only_files(synced: Path) -> None:
    linter = (synced / "helm/kserve-resources/.kube-linter.yaml").read_text()
    for check in ("env-var-secret", "liveness-port", "readiness-port"):
        assert f"    - {check}\n" in linter
    schema_yaml = (synced / "helm/kserve-crd/.schema.yaml").read_text()
    assert "values:\n  - helm/kserve-crd/values.yaml\n" in schema_yaml
    assert "output: helm/kserve-crd/values.schema.json\n" in schema_yaml
    readme = (synced / "helm/kserve-runtime-configs/README.md").read_text()
    section = readme[readme.index("## Giant Swarm: images") : readme.index("## Values")]
    for needle in (
        "1. `kserve.llmisvcConfigs.images.<preset>.<container>`",
        "2. `kserve.llmisvcConfigs.imageRegistry` (default `gsoci.azurecr.io/giantswarm/`)",
        "`exec vllm serve …`",
        "`/app/pd-sidecar`",
    ):
        assert needle in section, needle
