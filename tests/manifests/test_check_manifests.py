"""check-manifests: rendered custom resources against the CRDs vendored beside them.

The integration tests run on a project synced at upstream v0.20.0 from ../shared/upstream with the
real helm; the schema tests use small CRDs written here to pin the structural-schema rules.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, Cli, tarball

from gsvendor import fastyaml
from gsvendor.images.documents import CRD_KIND, split_documents
from gsvendor.manifests.crds import CRD
from gsvendor.manifests.schema import check

TAG = "v0.20.0"
SINGLE_NODE = ("kserve-config-llm-decode-template", "kserve-config-llm-prefill-template", "kserve-config-llm-template")
LLMISVC_CRD = "helm/kserve-llmisvc-crd/templates/serving.kserve.io_llminferenceserviceconfigs.yaml"


def _sync(project: Path, cli: Cli) -> Path:
    result = cli(project, "sync", TAG, "--source", str(tarball(TAG)))
    assert result.returncode == 0, result.stderr
    return project


def _project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "gsvendor.yaml", folder / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", folder / "overlays")
    shutil.copytree(ROOT / "hack", folder / "hack")
    return folder


@pytest.fixture(scope="module")
def cli_module(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    return Cli(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, cli_module: Cli) -> Path:
    """This repository's configuration and overlays, synced at v0.20.0."""
    return _sync(_project(tmp_path_factory.mktemp("manifests") / "project"), cli_module)


def _json(result) -> dict:
    return json.loads(result.stdout)


def test_clean_at_v0_20_0_over_every_variant_with_counts_per_kind(synced: Path, cli_module: Cli) -> None:
    verbose = cli_module(synced, "check-manifests", "-v")
    assert "checked per kind: LLMInferenceServiceConfig 10, ClusterStorageContainer 4, ClusterServingRuntime 2" in (
        verbose.stdout
    )
    result = cli_module(synced, "check-manifests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok: checked 16 object(s)" in result.stdout
    # the rollout variant is refused by overlay 60's guard, as declared in gsvendor.yaml (listed with -v)
    assert "failed as declared" not in result.stdout
    data = _json(cli_module(synced, "check-manifests", "--json"))
    variants = {(c["name"], v["name"]): v for c in data["charts"] for v in c["variants"]}
    assert set(variants) == {
        ("kserve-crd", "defaults"),
        ("kserve-llmisvc-crd", "defaults"),
        ("kserve-resources", "defaults"),
        ("kserve-resources", "switches-on"),
        ("kserve-llmisvc-resources", "defaults"),
        ("kserve-llmisvc-resources", "switches-on"),
        ("kserve-runtime-configs", "defaults"),
        ("kserve-runtime-configs", "switches-on"),
        ("kserve-runtime-configs", "servingruntime-without-image"),
        ("kserve-runtime-configs", "llmisvc-rollout-strategy"),
    }
    assert all(v["ok"] and not v["findings"] for v in variants.values())
    assert variants[("kserve-runtime-configs", "switches-on")]["checked"] == {
        "ClusterServingRuntime": 2,
        "LLMInferenceServiceConfig": 10,
    }
    assert data["summary"]["notChecked"]["Deployment"] == 4  # built-in kinds are counted, not failed
    crds = {c["name"]: c["source"] for c in data["crds"]}
    assert crds["llminferenceserviceconfigs.serving.kserve.io"] == LLMISVC_CRD
    assert "inferencepools.inference.networking.k8s.io" in crds
    # the label policy reports coverage and does not fail (fail: false)
    coverage = {c["name"]: c["labelCoverage"] for c in data["charts"]}
    assert coverage["kserve-llmisvc-resources"]["labelled"] > 0


def test_rollout_strategy_is_refused_with_a_clear_message(synced: Path, helm: str) -> None:
    from gsvendor.images.render import template

    rendered = template(
        helm,
        synced / "helm/kserve-runtime-configs",
        set_values=["kserve.llmisvcConfigs.enabled=true", "kserve.llmisvcConfigs.rolloutStrategy.maxUnavailable=1"],
    )
    assert not rendered.ok
    assert "LLMInferenceServiceConfig CRD of KServe v0.20.0 has no spec.rolloutStrategy" in rendered.error


def test_rollout_strategy_without_the_guard_is_pruned_on_the_single_node_presets(
    tmp_path: Path, cli_module: Cli
) -> None:
    """What the guard prevents: the overlay as it was (value rendered on a CRD without the field)."""
    project = _project(tmp_path / "project")
    overlay = project / "overlays/60-runtime-configs.yaml"
    text = overlay.read_text()
    guard = "field: spec.rolloutStrategy, present: false}"
    assert text.count(guard) == 1
    overlay.write_text(text.replace(guard, "field: no.such.field, present: true}"))  # the guard never applies
    config = project / "gsvendor.yaml"
    config.write_text(config.read_text().replace('          expectFailure: "has no spec.rolloutStrategy"\n', ""))
    _sync(project, cli_module)
    result = cli_module(
        project, "check-manifests", "helm/kserve-runtime-configs", "helm/kserve-llmisvc-crd", "--junit", "out.xml"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "spec.rolloutStrategy (pruned)" in result.stderr
    data = _json(
        cli_module(project, "check-manifests", "helm/kserve-runtime-configs", "helm/kserve-llmisvc-crd", "--json")
    )
    findings = [
        f
        for c in data["charts"]
        for v in c["variants"]
        if v["name"] == "llmisvc-rollout-strategy"
        for f in v["findings"]
    ]
    assert sorted(f["object"] for f in findings) == [f"LLMInferenceServiceConfig/{n}" for n in SINGLE_NODE]
    assert {(f["path"], f["problem"], f["crd"], f["version"]) for f in findings} == {
        ("spec.rolloutStrategy", "pruned", LLMISVC_CRD, "v1alpha2")
    }
    junit = (project / "out.xml").read_text()
    assert 'classname="check-manifests.kserve-runtime-configs" name="llmisvc-rollout-strategy"' in junit
    assert "<failure" in junit


def _preset_chart(folder: Path, synced: Path, edit) -> Path:
    """A chart rendering one real v0.20.0 preset (kserve-config-llm-template), changed by ``edit``."""
    from ruamel.yaml import YAML

    presets = (synced / "helm/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml").read_text()
    docs = [d for d in YAML(typ="safe").load_all(presets) if d]
    preset = next(d for d in docs if d["metadata"]["name"] == "kserve-config-llm-template")
    edit(preset)
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: presets\nversion: 0.1.0\n")
    # JSON is YAML; {{ }} in upstream's Go templates must not reach helm's template engine
    text = json.dumps(preset, indent=1).replace("{{", '{{ "{{" }}')
    (folder / "templates/preset.yaml").write_text(text + "\n")
    return folder


def _run_on_preset(tmp_path: Path, synced: Path, cli: Cli, edit) -> tuple[int, list[dict], str]:
    chart = _preset_chart(tmp_path / "presets", synced, edit)
    crd_chart = synced / "helm/kserve-llmisvc-crd"
    result = cli(tmp_path, "check-manifests", str(chart), str(crd_chart), "--json")
    findings = [f for c in _json(result)["charts"] for v in c["variants"] for f in v["findings"]]
    table = cli(tmp_path, "check-manifests", str(chart), str(crd_chart))
    return result.returncode, findings, table.stdout + table.stderr


def test_wrong_type_fails_naming_object_path_and_crd(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    code, findings, text = _run_on_preset(
        tmp_path, synced, cli_module, lambda p: p["spec"].__setitem__("replicas", "two")
    )
    assert code == 1
    assert [(f["object"], f["path"], f["problem"], f["version"]) for f in findings] == [
        ("LLMInferenceServiceConfig/kserve-config-llm-template", "spec.replicas", "wrong type", "v1alpha2")
    ]
    assert findings[0]["crd"].endswith("kserve-llmisvc-crd/templates/serving.kserve.io_llminferenceserviceconfigs.yaml")
    assert "'two' is not of type 'integer'" in findings[0]["message"]
    assert (
        "spec.replicas" in text
        and "wrong type" in text
        and "LLMInferenceServiceConfig/kserve-config-llm-template" in text
    )


def test_missing_required_field_fails(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    code, findings, text = _run_on_preset(
        tmp_path, synced, cli_module, lambda p: p["spec"]["template"]["containers"][0].pop("name")
    )
    assert code == 1
    assert [(f["path"], f["problem"]) for f in findings] == [("spec.template.containers[0].name", "missing required")]
    assert "missing required" in text and "spec.template.containers[0].name" in text
    assert findings[0]["crd"].endswith("serving.kserve.io_llminferenceserviceconfigs.yaml")


def test_duplicate_items_of_a_map_list_fail(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    # containers is an x-kubernetes-list-type: map keyed by name: the API server refuses a second
    # container of the same name ("Duplicate value"), whatever its other fields
    seen: list[tuple[int, str]] = []

    def edit(preset: dict) -> None:
        containers = preset["spec"]["template"]["containers"]
        seen.append((len(containers), containers[0]["name"]))
        containers.append({"name": containers[0]["name"], "image": "other"})

    code, findings, text = _run_on_preset(tmp_path, synced, cli_module, edit)
    index, name = seen[0]
    assert code == 1
    path = f"spec.template.containers[{index}]"
    assert [(f["path"], f["problem"], f["message"]) for f in findings] == [
        (path, "duplicate items", f"Duplicate value: {json.dumps({'name': name})}")
    ]
    assert path in text and "duplicate items" in text


def test_unserved_api_version_fails(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    code, findings, text = _run_on_preset(
        tmp_path, synced, cli_module, lambda p: p.__setitem__("apiVersion", "serving.kserve.io/v1beta1")
    )
    assert code == 1
    assert [(f["object"], f["path"], f["problem"]) for f in findings] == [
        ("LLMInferenceServiceConfig/kserve-config-llm-template", "apiVersion", "version not served")
    ]
    assert "served: v1alpha1, v1alpha2" in findings[0]["message"]
    assert "version not served" in text


def test_fields_under_preserve_unknown_fields_are_accepted(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    def edit(preset: dict) -> None:
        inline = {"apiVersion": "inference.networking.x-k8s.io/v1alpha1", "plugins": [{"type": "x", "any": {"n": 1}}]}
        preset["spec"].setdefault("router", {}).setdefault("scheduler", {})["config"] = {"inline": inline}
        preset["spec"]["model"] = {"uri": "hf://org/model", "lora": {"adapters": [{"free": "form"}]}}

    code, findings, _ = _run_on_preset(tmp_path, synced, cli_module, edit)
    assert (code, findings) == (0, [])

    def beside(preset: dict) -> None:  # the flag holds for its own subtree only
        edit(preset)
        preset["spec"]["router"]["scheduler"]["config"]["bogus"] = 1

    code, findings, _ = _run_on_preset(tmp_path / "second", synced, cli_module, beside)
    assert code == 1
    assert [(f["path"], f["problem"]) for f in findings] == [("spec.router.scheduler.config.bogus", "pruned")]


def test_check_images_and_check_manifests_on_one_rendering(synced: Path, cli_module: Cli) -> None:
    result = cli_module(synced, "check-manifests", "--images", "--junit", "both.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "87 image reference(s)" in result.stdout or "image reference(s)" in result.stdout
    assert "ok: checked 16 object(s)" in result.stdout
    junit = (synced / "both.xml").read_text()
    assert 'classname="check-images.kserve-runtime-configs"' in junit
    assert 'classname="check-manifests.kserve-runtime-configs"' in junit
    data = _json(cli_module(synced, "check-manifests", "--images", "--json"))
    assert data["ok"] and data["images"]["ok"] and data["images"]["summary"]["variantsRendered"] == 10


def test_a_document_two_equal_keys_leave_unread_fails_both_checks(tmp_path: Path, cli_module: Cli) -> None:
    """helm keeps the last of two equal keys, ruamel's loader refuses such a document: both checks passed it
    unread (check-images: "ok: checked 0 image reference(s)" of a Deployment whose first image was docker.io's)."""
    (tmp_path / "c/templates").mkdir(parents=True)
    (tmp_path / "c/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    images = "          image: docker.io/evil/miner:latest\n          image: gsoci.azurecr.io/ok:1\n"
    spec = "spec:\n  template:\n    spec:\n      containers:\n        - name: x\n"
    (tmp_path / "c/templates/d.yaml").write_text(f"apiVersion: apps/v1\nkind: Deployment\n{spec}{images}")
    problem = 'rendered c/templates/d.yaml:11: invalid YAML: found duplicate key "image" with value'
    for command in (["check-images", "c", "--allow", "gsoci.azurecr.io/"], ["check-manifests", "c"]):
        result = cli_module(tmp_path, *command)
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"✗ c defaults: {problem}" in result.stdout
        assert result.stderr == f"error: {command[0]} failed: 1 variant(s) with problems: c defaults\n"


def test_counts_per_kind_wrap_between_kinds_at_80_columns(synced: Path, cli_module: Cli) -> None:
    # at 80 columns the lists broke inside an item: "… ClusterRoleBinding" / "6, Certificate 4, …",
    # "… Secret" / "2"; a kind keeps its count, and the list continues under its first item
    env = {**cli_module.env, "COLUMNS": "80"}
    run = subprocess.run(
        [sys.executable, "-m", "gsvendor", "check-manifests", "-v"], cwd=synced, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    first = lines.index(next(line for line in lines if line.startswith("checked per kind: ")))
    listed = lines[first : next(i for i, line in enumerate(lines) if line.startswith("ok: "))]
    assert all(len(line) <= 80 for line in listed)
    items = [item.strip() for line in listed for item in line.split(":")[-1].split(",") if item.strip()]
    assert all(re.fullmatch(r"[A-Za-z]+ \d+", item) for item in items), items
    assert listed[1] == "                  ClusterServingRuntime 2"


def test_allow_needs_images(synced: Path, cli_module: Cli) -> None:
    from conftest import assert_one_line_error

    assert_one_line_error(cli_module(synced, "check-manifests", "--allow", "x/"), 2, "--allow needs --images")


def test_label_coverage_prints_only_with_verbose_unless_it_fails(synced: Path, cli_module: Cli) -> None:
    # gsvendor.yaml: labels.required [application.giantswarm.io/team], fail: false
    plain = cli_module(synced, "check-manifests")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert re.sub(r" in \d+\.\d s:", " in N s:", plain.stdout).splitlines() == [
        "ok: checked 16 object(s) against 12 CRD(s) (88 without a CRD not checked) in 10 variant(s) of 5 chart(s) in "
        "N s: 0 finding(s), 0 variant problem(s)",
    ]
    verbose = cli_module(synced, "check-manifests", "-v")
    assert verbose.returncode == 0, verbose.stdout + verbose.stderr
    coverage = [line.split(";")[0] for line in verbose.stdout.splitlines() if line.startswith("labels ")]
    assert coverage == [
        "labels kserve-crd: 0/6 object(s) carry application.giantswarm.io/team",
        "labels kserve-llmisvc-crd: 0/3 object(s) carry application.giantswarm.io/team",
        "labels kserve-resources: 0/45 object(s) carry application.giantswarm.io/team",
        "labels kserve-llmisvc-resources: 8/38 object(s) carry application.giantswarm.io/team",
        "labels kserve-runtime-configs: 0/12 object(s) carry application.giantswarm.io/team",
    ]


def test_failed_as_declared_is_listed_only_with_verbose_by_both_checks(synced: Path, cli_module: Cli) -> None:
    declared = [
        "✓ kserve-runtime-configs servingruntime-without-image: failed as declared",
        "✓ kserve-runtime-configs llmisvc-rollout-strategy: failed as declared",
    ]
    for command in ("check-images", "check-manifests"):
        plain, verbose = cli_module(synced, command), cli_module(synced, command, "-v")
        assert (plain.returncode, verbose.returncode) == (0, 0), plain.stderr + verbose.stderr
        assert "failed as declared" not in plain.stdout, command
        assert [line for line in verbose.stdout.splitlines() if "failed as declared" in line] == declared, command
        # the totals are the same with and without -v (a slow run's "in 10.1 s" may wrap them at 80 columns)
        totals = [
            re.sub(r" in \d+\.\d s:", " in N s:", " ".join(("\n" + r.stdout).split("\nok: checked ")[-1].split()))
            for r in (plain, verbose)
        ]
        assert totals[0] == totals[1] and all("\nok: checked " in "\n" + r.stdout for r in (plain, verbose)), command


def test_label_policy_fails_only_when_configured(tmp_path: Path, synced: Path, cli_module: Cli) -> None:
    project = tmp_path / "p"
    shutil.copytree(synced, project, symlinks=True)
    config = project / "gsvendor.yaml"
    config.write_text(config.read_text().replace("    fail: false\n", "    fail: true\n"))
    result = cli_module(project, "check-manifests", "helm/kserve-runtime-configs")
    assert result.returncode == 1
    assert "without a required label" in result.stderr
    # a missing label that fails the check is a problem: printed without -v
    assert "labels kserve-runtime-configs: 0/12 object(s) carry application.giantswarm.io/team; missing on " in (
        result.stdout
    )
    config.write_text(config.read_text().replace("    fail: true\n", "    fail: maybe\n"))
    result = cli_module(project, "check-manifests", "helm/kserve-runtime-configs")
    assert result.returncode == 2 and "manifests.labels.fail" in result.stderr


def test_fast_loader_equals_ruamel_on_every_rendered_and_file_crd(synced: Path, helm: str) -> None:
    from ruamel.yaml import YAML

    from gsvendor.images.render import template

    texts = []
    for chart in ("kserve-crd", "kserve-llmisvc-crd", "kserve-llmisvc-resources"):
        rendered = template(helm, synced / "helm" / chart)
        assert rendered.ok, rendered.error
        texts += [text for text in split_documents(rendered.manifests) if CRD_KIND.search(text)]
    for path in (synced / "helm").glob("*/files/**/*.yaml"):
        texts += [text for text in split_documents(path.read_text()) if CRD_KIND.search(text)]
    fast = 0
    for text in texts:
        expected = YAML(typ="safe").load(text)
        try:
            assert fastyaml.plain(fastyaml.load_lazy(text)) == expected
            assert fastyaml.load_lazy(text) == expected
            fast += 1
        except fastyaml.NotSimple:
            pass
        crd = CRD.from_text(text, "x")  # name, group, kind read without parsing agree with the document
        assert (crd.name, crd.group, crd.kind) == (
            expected["metadata"]["name"],
            expected["spec"]["group"],
            expected["spec"]["names"]["kind"],
        )
        versions = {v["name"]: v for v in expected["spec"]["versions"]}
        # the lazy loader meets what it does not handle only when reading; then ruamel parses it
        assert crd.strictly(lambda crd=crd, want=versions: {n: dict(v) for n, v in crd.versions().items()} == want)
    assert fast >= 10  # the controller-gen CRDs take the fast path


def test_objects_read_label_keys_as_the_api_server_does_and_crds_only_to_their_spec(tmp_path: Path) -> None:
    from gsvendor.images.render import RenderedVariant
    from gsvendor.images.variants import ChartTarget, Variant
    from gsvendor.manifests.check import parse_rendered

    manifests = (
        "---\n# Source: c/templates/a.yaml\nkind: ConfigMap\napiVersion: v1\n"
        "metadata:\n  name: a\n  labels: {true: x, 2: y, app: z}\n"
        "---\n# Source: c/templates/crd.yaml\napiVersion: apiextensions.k8s.io/v1\n"
        "kind: CustomResourceDefinition\nmetadata:\n  name: xs.x.io\nspec:\n  group: [unclosed\n"
    )
    chart = ChartTarget("c", tmp_path, "c")
    parsed = parse_rendered(RenderedVariant(chart, Variant("default"), manifests))
    assert [(o.label, o.labels, o.source) for o in parsed.objects] == [
        ("ConfigMap/a", {"true", "2", "app"}, "c/templates/a.yaml"),
        ("CustomResourceDefinition/xs.x.io", set(), "c/templates/crd.yaml"),
    ]
    assert [source for source, _ in parsed.crds] == ["c/templates/crd.yaml"] and parsed.unreadable == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 1\nb:\n- x\n- 'y: z'\nc: {}\nd: []\ne: yes\nf: null\ng: ~\nh: '0755'\n", None),
        ("- a: 1\n  b: [1, 2]\n", "flow"),
        ("a: |\n  text\n", "block"),
        ("a: b\n  c\n", "multi-line"),
        ("a: &x 1\nb: *x\n", "anchor"),
    ],
)
def test_fast_loader_parses_the_subset_or_refuses(text: str, value: str | None) -> None:
    from ruamel.yaml import YAML

    if value is None:
        assert fastyaml.plain(fastyaml.load_lazy(text)) == YAML(typ="safe").load(text)
    else:
        with pytest.raises(fastyaml.NotSimple):
            fastyaml.plain(fastyaml.load_lazy(text))


SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "minimum": 1, "maximum": 5},
                "port": {"x-kubernetes-int-or-string": True},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "name": {"type": "string", "pattern": "^[a-z]+$"},
                "free": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"strict": {"type": "object", "properties": {"x": {"type": "string"}}}},
                },
                "raw": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
                "list": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "string"}}}},
                "ip": {"type": "string", "format": "ipv4"},
            },
        }
    },
}


def _problems(spec: dict) -> list[tuple[str, str]]:
    obj = {"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "n", "labels": {"a": "b"}}, "spec": spec}
    return [(v.path, v.problem) for v in check(SCHEMA, obj)]


def test_schema_rules() -> None:
    assert _problems({"size": 2, "port": 80, "mode": "a", "name": "ok", "map": {"k": "v"}, "list": [{"v": "s"}]}) == []
    assert _problems({"size": 2, "port": "http"}) == []  # int-or-string
    assert _problems({"size": 2, "port": 1.5}) == [("spec.port", "wrong type")]
    assert _problems({}) == [("spec.size", "missing required")]
    assert _problems({"size": 9}) == [("spec.size", "out of range")]
    assert _problems({"size": 1, "mode": "c", "name": "A1"}) == [
        ("spec.mode", "not in enum"),
        ("spec.name", "pattern mismatch"),
    ]
    assert _problems({"size": 1, "extra": 1, "list": [{"v": "s", "w": 1}]}) == [
        ("spec.extra", "pruned"),
        ("spec.list[0].w", "pruned"),
    ]
    # preserve-unknown-fields keeps its own unknown fields; a nested object with properties prunes again
    assert _problems({"size": 1, "free": {"anything": {"deep": 1}, "strict": {"x": "s", "y": 1}}}) == [
        ("spec.free.strict.y", "pruned")
    ]
    # an embedded resource needs apiVersion and kind; its metadata is an ObjectMeta
    assert _problems({"size": 1, "raw": {"apiVersion": "v1", "kind": "Pod", "spec": {}}}) == []
    assert _problems({"size": 1, "raw": {"spec": {}}}) == [
        ("spec.raw.apiVersion", "missing required"),
        ("spec.raw.kind", "missing required"),
    ]
    assert _problems({"size": 1, "raw": {"apiVersion": "v1", "kind": "Pod", "metadata": {"nome": "x"}}}) == [
        ("spec.raw.metadata.nome", "pruned")
    ]
    assert _problems({"size": 1, "ip": "300.1.1.1"}) == [("spec.ip", "bad format")]
    assert _problems({"size": 1, "mode": None}) == []  # a null of a non-nullable field is pruned, not an error
    obj = {"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "n", "bogus": 1}, "spec": {"size": 1}, "top": 1}
    assert [(v.path, v.problem) for v in check(SCHEMA, obj)] == [("metadata.bogus", "pruned"), ("top", "pruned")]
