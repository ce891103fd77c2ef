"""Other layouts by configuration alone: provider-kserve's crds/ and presets file (examples/provider-kserve)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, Cli, assert_one_line_error, tarball, tree, upstream_files
from ruamel.yaml import YAML

EXAMPLE = ROOT / "examples" / "provider-kserve"
CRDS = "charts/provider-kserve/crds"
PRESETS = "charts/provider-kserve/files/llmisvcconfigs/resources.yaml"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    folder = tmp_path / "provider-kserve"
    folder.mkdir()
    shutil.copy(EXAMPLE / "gsvendor.yaml", folder)
    return folder


def sync(cli: Cli, project: Path, tag: str, *extra: str) -> None:
    result = cli(project, "sync", tag, "--source", str(tarball(tag)), *extra)
    assert result.returncode == 0, result.stderr


def upstream_crd_names(tag: str, chart: str) -> set[str]:
    """CRD names of an upstream chart, read from its template and files/ sources."""
    names = set()
    for path, data in upstream_files(tag, f"charts/{chart}/").items():
        if path.startswith(("templates/", "files/")) and b"kind: CustomResourceDefinition" in data:
            text = data.decode()
            if "{{" in text:
                continue  # the ClusterStorageContainer template only loads the files/ document
            for document in YAML(typ="safe").load_all(text):
                if document:
                    names.add(document["metadata"]["name"])
    return names


def test_example_reproduces_provider_kserve_layout(cli: Cli, example: Path) -> None:
    sync(cli, example, "v0.20.0")
    crds = tree(example / CRDS)
    expected = upstream_crd_names("v0.20.0", "kserve-crd") | upstream_crd_names("v0.20.0", "kserve-llmisvc-crd")
    assert "clusterstoragecontainers.serving.kserve.io" in expected
    names = []
    for file_name, data in crds.items():
        text = data.decode()
        assert "{{" not in text, file_name
        documents = [d for d in YAML(typ="safe").load_all(text) if d is not None]
        assert len(documents) == 1 and documents[0]["kind"] == "CustomResourceDefinition", file_name
        assert file_name == documents[0]["metadata"]["name"] + ".yaml"
        names.append(documents[0]["metadata"]["name"])
    assert sorted(names) == sorted(expected)  # ClusterStorageContainer exactly once
    presets = upstream_files("v0.20.0", "charts/kserve-runtime-configs/")["files/llmisvcconfigs/resources.yaml"]
    assert (example / PRESETS).read_bytes() == presets
    assert set(tree(example)) == {f"{CRDS}/{n}" for n in crds} | {PRESETS, "gsvendor.yaml", "gsvendor.lock.yaml"}
    assert cli(example, "verify").returncode == 0


def test_crd_files_match_upstream_documents(cli: Cli, example: Path) -> None:
    sync(cli, example, "v0.20.0")
    template = upstream_files("v0.20.0", "charts/kserve-crd/")["templates/serving.kserve.io_inferenceservices.yaml"]
    vendored = (example / CRDS / "inferenceservices.serving.kserve.io.yaml").read_bytes()
    yaml = YAML(typ="safe")
    assert yaml.load(vendored) == yaml.load(template)


@pytest.mark.parametrize("edited", [f"{CRDS}/inferenceservices.serving.kserve.io.yaml", PRESETS])
def test_verify_fails_after_hand_edit_and_sync_refuses(cli: Cli, example: Path, edited: str) -> None:
    sync(cli, example, "v0.20.0")
    path = example / edited
    path.write_bytes(path.read_bytes() + b"# hand edit\n")
    verify = cli(example, "verify")
    assert verify.returncode == 1 and edited in verify.stderr
    assert "+# hand edit" in verify.stdout
    before = tree(example)
    refused = cli(example, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(refused, 1, edited)
    assert tree(example) == before
    sync(cli, example, "v0.20.0", "--force")
    assert cli(example, "verify").returncode == 0


def test_foreign_file_in_a_vendored_folder_is_not_clobbered(cli: Cli, example: Path) -> None:
    sync(cli, example, "v0.20.0")
    (example / CRDS / "mine.yaml").write_text("kind: Mine\n")
    assert_one_line_error(cli(example, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))), 1, f"{CRDS}/mine.yaml")
    assert (example / CRDS / "mine.yaml").read_text() == "kind: Mine\n"


def test_upgrade_equals_fresh_run(cli: Cli, example: Path, tmp_path: Path) -> None:
    sync(cli, example, "v0.19.0")
    old = tree(example / "charts")
    sync(cli, example, "v0.20.0")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    shutil.copy(EXAMPLE / "gsvendor.yaml", fresh)
    sync(cli, fresh, "v0.20.0")
    assert tree(example / "charts") == tree(fresh / "charts") != old
    assert (example / "gsvendor.lock.yaml").read_bytes() == (fresh / "gsvendor.lock.yaml").read_bytes()


def test_diff_of_rendered_charts_and_copies(cli: Cli, example: Path) -> None:
    sync(cli, example, "v0.20.0")
    assert cli(example, "diff").stdout == ""  # no overlays: identical to upstream
    (example / PRESETS).write_bytes((example / PRESETS).read_bytes() + b"# x\n")
    result = cli(example, "diff")
    assert f"--- upstream/{PRESETS}\n+++ vendored/{PRESETS}\n" in result.stdout


@pytest.mark.parametrize(
    ("charts", "needle"),
    [
        (
            "  - {name: kserve-crd, dest: out/a}\n  - {name: kserve-llmisvc-crd, dest: out/a/b}\n",
            "destination out/a/b overlaps out/a of chart kserve-crd",
        ),
        ("  - {name: kserve-crd, include: [{kind: CustomResourceDefinition}]}\n", "include: use path globs"),
        ("  - {name: kserve-crd, render: {}, exclude: ['*.yaml']}\n", "exclude: use {kind, name} selectors"),
        ("  - {name: kserve-crd, render: {fileName: 'fixed.yaml'}}\n", "fileName: 'fixed.yaml' does not match"),
    ],
)
def test_layout_configuration_errors(cli: Cli, tmp_path: Path, charts: str, needle: str) -> None:
    (tmp_path / "gsvendor.yaml").write_text(f"upstream: {{repository: kserve/kserve}}\ncharts:\n{charts}")
    assert_one_line_error(cli(tmp_path, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))), 2, needle)


def test_two_charts_writing_one_file_is_an_error(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "gsvendor.yaml").write_text(
        "upstream: {repository: kserve/kserve}\ncharts:\n"
        "  - {name: kserve-crd, dest: crds, render: {fileName: '{name}.yaml'}}\n"
        "  - {name: kserve-llmisvc-crd, dest: crds, render: {fileName: '{name}.yaml'}}\n"
    )
    result = cli(tmp_path, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(
        result,
        2,
        "charts kserve-crd and kserve-llmisvc-crd both write crds/clusterstoragecontainers.serving.kserve.io.yaml",
    )
    assert not (tmp_path / "crds").exists()


def test_file_copy_missing_upstream(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "gsvendor.yaml").write_text(
        "upstream: {repository: kserve/kserve}\ncharts: [kserve-crd]\n"
        "files:\n  - {from: charts/nope.yaml, to: x.yaml}\n"
    )
    result = cli(tmp_path, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "upstream v0.20.0 has no charts/nope.yaml")
