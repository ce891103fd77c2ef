"""generate_chart in vendoring.plan, ``gsvendor generate [--check]`` on disk, and the generated
schemas validating the charts' values."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest
from generate_helpers import CHARTS, ROOT, TAGS, tarball, upstream_chart, validate_values
from typer.testing import CliRunner

from gsvendor.cli import app
from gsvendor.config import GenerateSettings, load_config
from gsvendor.files import normalize_whitespace
from gsvendor.generate.chart import generate_chart
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.readme.template import render_readme
from gsvendor.overlays.engine import load_overlays
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import FetchOptions
from gsvendor.vendoring.plan import Build, build, wanted_for

GENERATED = ("README.md", "values.schema.json")


@functools.cache
def built(tag: str, project: Path = ROOT) -> Build:
    """The build of ``tag`` with the worktree's configuration and overlays (cached: tests only read it)."""
    config = load_config(project / "gsvendor.yaml")
    snapshot = fetch_upstream(tag, str(tarball(tag)), wanted_for(config), FetchOptions(cache_dir=None))
    return build(config, snapshot, load_overlays(config.overlays_dir))


@pytest.fixture(scope="module", params=TAGS)
def tag_build(request: pytest.FixtureRequest) -> Build:
    return built(request.param)


# --- generate_chart and vendor.build ---------------------------------------------------------


def test_generate_chart_regenerates_schema_and_readme_only_where_configured() -> None:
    files = upstream_chart("v0.20.0", "kserve-llmisvc-resources")
    stale_readme = files["README.md"]
    schema_yaml = b"values: [values.yaml]\n"

    out = generate_chart({**files, ".schema.yaml": schema_yaml, "README.md": b"old"})

    assert out["README.md"] == stale_readme
    assert json.loads(out["values.schema.json"])["properties"]["kserve"]["type"] == "object"
    assert out["values.schema.json"] != files["values.schema.json"]  # upstream's hand-written one is replaced
    assert set(out) == set(files) | {".schema.yaml"}
    # without .schema.yaml the schema is left alone; without README.md.gotmpl the README comes
    # from helm-docs' default template; without values.yaml helm-docs skips the chart
    bare = {k: v for k, v in files.items() if k != "README.md.gotmpl"}
    default = generate_chart(bare)
    assert {p for p in bare if default[p] != bare[p]} == {"README.md"}
    assert default["README.md"].startswith(b"# kserve-llmisvc-resources\n\n![Version: ")
    no_values = {k: v for k, v in bare.items() if k != "values.yaml"}
    assert generate_chart(no_values) == no_values


def test_build_generates_both_files_for_every_chart(tag_build: Build) -> None:
    for chart in tag_build.charts:
        assert chart.generated == ["README.md", "values.schema.json"], chart.spec.name
        schema = json.loads(chart.files["values.schema.json"])
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        # devctl's strict settings: closed root, hvsj's automatic global (admits the app platform's values)
        assert schema["additionalProperties"] is False
        assert schema["properties"]["global"]["type"] == ["object", "null"]
        assert chart.files["README.md"].startswith(f"# {chart.spec.name}\n".encode())


def test_generated_files_are_already_whitespace_clean(tag_build: Build) -> None:
    for chart in tag_build.charts:
        for path in GENERATED:
            data = chart.files[path]
            assert normalize_whitespace(data) == data, f"{chart.spec.name}/{path}"
            assert path not in chart.normalized


def test_readme_after_overlays_differs_from_upstream_only_by_the_overlaid_metadata_and_values() -> None:
    import difflib

    result = built("v0.20.0")
    chart = next(c for c in result.charts if c.spec.name == "kserve-runtime-configs")
    new = chart.files["README.md"].decode().splitlines()
    # upstream's chart as Giant Swarm's helm-docs run writes it (--sort-values-order=file)
    old = (
        (render_readme(chart.upstream, settings=GenerateSettings(sort_values_order="file")) or b"")
        .decode()
        .splitlines()
    )
    # the Giant Swarm section (README.md.gotmpl overlay) comes before the maintainers section
    start = new.index("## Giant Swarm: images of the LLMInferenceServiceConfig presets")
    end = next(i for i in range(start + 1, len(new)) if new[i].startswith("## "))
    assert "`kserve.llmisvcConfigs.images.<preset>.<container>`" in "\n".join(new[start:end])
    assert "exec vllm serve" in "\n".join(new[start:end])
    new = new[:start] + new[end:]
    delta = [line for line in difflib.ndiff(old, new) if line[:2] in ("- ", "+ ")]
    added = [line[2:] for line in delta if line.startswith("+ ")]
    removed = [line[2:] for line in delta if line.startswith("- ")]
    assert added[0] == (
        "![Version: [[ .Version ]]]"
        "(https://img.shields.io/badge/Version-[[ .Version ]]-informational?style=flat-square)"
        " ![Type: application](https://img.shields.io/badge/Type-application-informational?style=flat-square)"
        " ![AppVersion: v0.20.0](https://img.shields.io/badge/AppVersion-v0.20.0-informational?style=flat-square)"
    )
    assert added[1] == (
        "$ helm install kserve-runtime-configs oci://ghcr.io/kserve/charts/kserve-runtime-configs"
        " --set kserve.servingruntime.enabled=true --set kserve.llmisvcConfigs.enabled=true --version [[ .Version ]]"
    )
    # every other change is a values-table row of a key the overlays set or added
    rows = [line.split(" | ")[0].removeprefix("| ") for line in added[2:] + removed[2:]]
    assert len(removed) == len(added) - 4  # four new keys: imageRegistry, images, rolloutStrategy, tracing
    assert {r for r in rows if r.startswith("kserve.llmisvcConfigs.")} == {
        "kserve.llmisvcConfigs.imageRegistry",
        "kserve.llmisvcConfigs.images",
        "kserve.llmisvcConfigs.rolloutStrategy",
        "kserve.llmisvcConfigs.tracing",
    }
    assert all(r.startswith("kserve.llmisvcConfigs.") or r.endswith(".image") for r in rows), rows


# --- validate_values -------------------------------------------------------------------------


@pytest.mark.parametrize("chart", CHARTS)
def test_each_charts_values_validate_against_its_generated_schema(chart: str) -> None:
    result = built("v0.20.0")
    files = next(c for c in result.charts if c.spec.name == chart).files
    schema = json.loads(files["values.schema.json"])
    for values_file in ("values.yaml", "zz_generated.app-platform.values.yaml"):
        values = goyaml.loads(files[values_file]) or {}
        assert validate_values(schema, values) == [], f"{chart}/{values_file}"


def test_validation_failures_name_the_key_path_and_the_rule() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "image": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
        },
    }
    values = {"replicas": "two", "mode": "c", "image": {"tags": ["ok", 3]}, "extra": True}
    assert validate_values(schema, values) == [
        "(root): additionalProperties: Additional properties are not allowed ('extra' was unexpected)",
        "(root): required: 'name' is a required property",
        "image.tags[1]: type: 3 is not of type 'string'",
        "mode: enum: 'c' is not one of ['a', 'b']",
        "replicas: type: 'two' is not of type 'integer'",
    ]


def test_validation_reports_an_unresolvable_ref_as_one_message() -> None:
    schema = {"properties": {"a": {"$ref": "https://example.invalid/schema.json"}}}
    messages = validate_values(schema, {"a": 1})
    assert len(messages) == 1
    assert messages[0].startswith("(schema): cannot validate:")


# --- the CLI ---------------------------------------------------------------------------------


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "gsvendor.yaml", tmp_path / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["-c", str(tmp_path / "gsvendor.yaml"), "-q", "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))],
    )
    assert result.exit_code == 0, result.output
    return tmp_path


def gsvendor(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["-c", str(project / "gsvendor.yaml"), *args])
    return result.exit_code, result.output


def test_check_passes_right_after_sync(project: Path) -> None:
    code, output = gsvendor(project, "generate", "--check")
    assert code == 0, output
    assert "up to date" in output
    assert gsvendor(project, "verify")[0] == 0


def test_check_names_stale_files_after_a_values_edit_and_writes_nothing(project: Path) -> None:
    values = project / "helm/kserve-resources/values.yaml"
    values.write_text(values.read_text().replace("kserve:\n", "kserve:\n  newKey: 3\n", 1))
    before = {p: p.read_bytes() for p in (project / "helm").rglob("*") if p.is_file()}

    code, output = gsvendor(project, "generate", "--check")

    assert code == 1
    assert "stale: helm/kserve-resources/README.md" in output
    assert "stale: helm/kserve-resources/values.schema.json" in output
    # the failure line is an error line, as verify's and check-images' are
    assert output.splitlines()[-1] == (
        "error: generate --check failed: 2 generated file(s) out of date; run gsvendor generate"
    )
    assert "kserve-crd" not in output
    assert {p: p.read_bytes() for p in (project / "helm").rglob("*") if p.is_file()} == before


def test_generate_rewrites_stale_files_then_check_passes(project: Path) -> None:
    values = project / "helm/kserve-resources/values.yaml"
    values.write_text(values.read_text().replace("kserve:\n", "kserve:\n  newKey: 3\n", 1))

    code, output = gsvendor(project, "generate", "kserve-resources")

    assert code == 0, output
    assert output.splitlines() == [
        "wrote helm/kserve-resources/README.md",
        "wrote helm/kserve-resources/values.schema.json",
    ]
    schema = json.loads((project / "helm/kserve-resources/values.schema.json").read_text())
    assert schema["properties"]["kserve"]["properties"]["newKey"] == {"type": "integer"}
    assert "| kserve.newKey | int | `3` |  |" in (project / "helm/kserve-resources/README.md").read_text()
    assert gsvendor(project, "generate", "--check") == (0, "ok: the generated files of 5 chart(s) are up to date\n")
    # verify still compares with upstream + overlays + generation: only the hand edit differs
    code, output = gsvendor(project, "verify")
    assert code == 1
    assert "helm/kserve-resources/values.yaml" in output


def test_generate_errors_are_one_line_without_traceback(project: Path) -> None:
    code, output = gsvendor(project, "generate", "no-such-chart")
    assert code == 2
    assert output.startswith("error: gsvendor.yaml: charts: no chart named 'no-such-chart'")

    (project / "helm/kserve-crd/.schema.yaml").write_text("draft: 5\n")
    code, output = gsvendor(project, "generate", "--check")
    assert code == 2
    assert output == ("error: helm/kserve-crd: invalid draft version. Please use one of: 4, 6, 7, 2019, 2020\n")
    assert "Traceback" not in output

    shutil.rmtree(project / "helm/kserve-llmisvc-crd")
    code, output = gsvendor(project, "generate", "kserve-llmisvc-crd")
    assert code == 2
    assert output == "error: helm/kserve-llmisvc-crd/ does not exist: run gsvendor sync\n"


def test_pre_commit_hooks_are_declared() -> None:
    hooks = goyaml.loads((ROOT / ".pre-commit-hooks.yaml").read_bytes())
    by_id = {hook["id"]: hook for hook in hooks}
    assert by_id["gsvendor-generate"]["entry"] == "gsvendor generate"
    assert by_id["gsvendor-versions"]["entry"] == "gsvendor versions --check"
    for hook in by_id.values():
        assert hook["language"] in ("python", "system")
        assert hook["pass_filenames"] is False


def test_local_refs_may_live_in_the_project_but_not_in_chart_outputs(project: Path) -> None:
    chart = project / "helm/kserve-crd"
    copy = project / "k8s-schemas/raw.githubusercontent.com/yannh/kubernetes-json-schema/master/v1.33.1/quantity.json"
    copy.parent.mkdir(parents=True)
    copy.write_text('{"type": "string", "pattern": "^[0-9]+$"}')
    (chart / ".schema.yaml").write_text(
        # values and output from the project root (the tool's working directory); localRefs from the chart
        "values: [helm/kserve-crd/values.yaml]\noutput: helm/kserve-crd/values.schema.json\n"
        "bundle: true\nbundleWithoutID: true\nk8sSchemaVersion: v1.33.1\nlocalRefs: ../../k8s-schemas\n"
    )
    (chart / "values.yaml").write_text("memory: '1' # @schema $ref: $k8s/quantity.json\n")

    assert gsvendor(project, "generate", "kserve-crd")[0] == 0
    schema = json.loads((chart / "values.schema.json").read_text())
    assert schema["properties"]["memory"] == {"$ref": "#/$defs/quantity.json", "type": "string"}
    assert schema["$defs"] == {"quantity.json": {"type": "string", "pattern": "^[0-9]+$"}}

    (chart / ".schema.yaml").write_text(
        "values: [helm/kserve-crd/values.yaml]\noutput: helm/kserve-crd/values.schema.json\nbundle: true\n"
    )
    (chart / "values.yaml").write_text("x: {} # @schema $ref: ../kserve-resources/values.schema.json\n")
    code, output = gsvendor(project, "generate", "kserve-crd")
    assert code == 2
    assert (
        "helm/kserve-crd: bundle schemas: /properties/x/$ref: open helm/kserve-resources/values.schema.json" in output
    )
