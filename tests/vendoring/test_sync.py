"""`gsvendor sync`, `verify` and `diff` end to end, on the real upstream tags."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CHARTS, Cli, archive_sha256, assert_one_line_error, documents, tarball, tree, upstream_files
from pytest_httpserver import HTTPServer

from gsvendor.images.render import template
from gsvendor.overlays import yamledit

# chart → files the declared overlays change or add (everything else must be upstream's bytes)
_COMMON = {
    "Chart.yaml",
    "values.yaml",
    "templates/_helpers.tpl",
    ".schema.yaml",
    "zz_generated.app-platform.values.yaml",
}
_CRD = {f"templates/{p}" for p in upstream_files("v0.20.0", "charts/kserve-crd/templates/")}
_LLMISVC_CRD = {f"templates/{p}" for p in upstream_files("v0.20.0", "charts/kserve-llmisvc-crd/templates/")}
# overlay 95-chart-tests: the helm-unittest suites at v0.20.0 and the .helmignore that excludes them
_TESTS = {
    "kserve-crd": {"tests/crd_keep_test.yaml"},
    "kserve-llmisvc-crd": {"tests/crd_keep_test.yaml", "tests/release_namespace_test.yaml"},
    "kserve-resources": {"tests/gsoci_images_test.yaml"},
    "kserve-llmisvc-resources": {"tests/gsoci_images_test.yaml", "tests/team_label_test.yaml"},
    "kserve-runtime-configs": {
        "tests/servingruntimes_test.yaml",
        "tests/llmisvc_presets_test.yaml",
        "tests/llmisvc_tracing_test.yaml",
        "tests/llmisvc_rollout_guard_test.yaml",
    },
}
OVERLAID = {
    "kserve-crd": _COMMON | _CRD | _TESTS["kserve-crd"] | {".helmignore"},
    "kserve-llmisvc-crd": _COMMON | _LLMISVC_CRD | _TESTS["kserve-llmisvc-crd"] | {".helmignore"},
    "kserve-resources": _COMMON | {".kube-linter.yaml"} | _TESTS["kserve-resources"] | {".helmignore"},
    "kserve-llmisvc-resources": _COMMON | {".kube-linter.yaml"} | _TESTS["kserve-llmisvc-resources"] | {".helmignore"},
    "kserve-runtime-configs": _COMMON
    | _TESTS["kserve-runtime-configs"]
    | {".helmignore"}
    | {
        "templates/runtimes/resources.yaml",
        "templates/llmisvcconfigs/resources.yaml",
        "templates/_giantswarm_llmisvcconfigs.tpl",
        "README.md.gotmpl",  # the Giant Swarm section on the presets' images
    },
}


def entry_of(summary: dict, chart: str) -> dict:
    """One chart's entry of ``sync --json``."""
    return next(c for c in summary["charts"] if c["name"] == chart)


def sync(cli: Cli, project: Path, tag: str, *extra: str) -> subprocess.CompletedProcess[str]:
    result = cli(project, "sync", tag, "--source", str(tarball(tag)), *extra)
    assert result.returncode == 0, result.stderr
    return result


def lock_of(project: Path) -> dict:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((project / "gsvendor.lock.yaml").read_text())


def test_sync_writes_upstream_bytes_plus_declared_overlays(cli: Cli, project: Path, helm: str) -> None:
    result = sync(cli, project, "v0.20.0", "--json")
    summary = json.loads(result.stdout)
    assert [c["name"] for c in summary["charts"]] == list(CHARTS)
    normalized = {c["name"]: set(c["normalized"]) for c in summary["charts"]}
    for chart in CHARTS:
        upstream = upstream_files("v0.20.0", f"charts/{chart}/")
        vendored = tree(project / "helm" / chart)
        generated = set(entry_of(summary, chart)["generated"])
        assert generated == {"README.md", "values.schema.json"}  # gsvendor generate, run by sync
        assert set(vendored) == set(upstream) | OVERLAID[chart] | generated
        entry = next(c for c in summary["charts"] if c["name"] == chart)
        assert {f for a in entry["applied"] for f in a["files"]} == OVERLAID[chart]
        for path, data in upstream.items():
            if path in OVERLAID[chart] | generated:
                continue
            if path in normalized[chart]:  # pre-commit's whitespace hooks would fix these
                assert vendored[path] != data
                assert [line.rstrip() for line in vendored[path].splitlines()] == [
                    line.rstrip() for line in data.rstrip(b"\n").splitlines()
                ]
            else:
                assert vendored[path] == data, f"{chart}/{path} differs from upstream"
        rendered = template(helm, project / "helm" / chart, namespace="kserve")
        assert rendered.ok, rendered.error
        if chart != "kserve-runtime-configs":  # renders nothing with its defaults (switches off)
            assert documents(rendered.manifests)
    assert normalized["kserve-crd"] == set()
    assert yamledit.get_value((project / "helm/kserve-crd/values.yaml").read_text(), "/crd") == {"keep": True}


def test_chart_metadata_overlay_values(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0")
    for chart in CHARTS:
        text = (project / "helm" / chart / "Chart.yaml").read_text()
        assert 'version: "[[ .Version ]]"\n' in text
        assert yamledit.get_value(text, "/appVersion") == "v0.20.0"
        assert yamledit.get_value(text, "/icon") == "https://s.giantswarm.io/app-icons/kserve/1/light.svg"
        assert yamledit.get_value(text, "/annotations") == {
            "category": "AI/Machine Learning",
            "application.giantswarm.io/team": "bumblebee",
        }
        helpers = (project / "helm" / chart / "templates/_helpers.tpl").read_text()
        assert (
            'application.giantswarm.io/team: {{ index .Chart.Annotations "application.giantswarm.io/team" | quote }}'
            in helpers
        )
    crd_helpers = (project / "helm/kserve-llmisvc-crd/templates/_helpers.tpl").read_text()
    assert '{{- define "kserve-llmisvc-crd.labels" -}}' in crd_helpers and "${chart}" not in crd_helpers


@pytest.mark.parametrize(
    ("chart", "helper"),
    [
        ("kserve-crd", "kserve-crd.labels"),
        ("kserve-llmisvc-crd", "kserve-llmisvc-crd.labels"),
        ("kserve-resources", "kserve-resources.labels"),
        ("kserve-llmisvc-resources", "llm-isvc-resources.labels"),
        ("kserve-runtime-configs", "kserve-runtime-configs.labels"),
    ],
)
def test_team_label_renders_from_the_labels_helper(
    cli: Cli, project: Path, helm: str, tmp_path: Path, chart: str, helper: str
) -> None:
    sync(cli, project, "v0.20.0")
    probe = tmp_path / chart
    shutil.copytree(project / "helm" / chart, probe)
    (probe / "templates" / "zz-probe.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n  labels:\n"
        f'    {{{{- include "{helper}" . | nindent 4 }}}}\n'
    )
    rendered = template(helm, probe, release="r", namespace="kserve")
    assert rendered.ok, rendered.error
    probe_doc = next(d for d in documents(rendered.manifests) if d["metadata"]["name"] == "probe")
    labels = probe_doc["metadata"]["labels"]
    assert labels["application.giantswarm.io/team"] == "bumblebee"
    assert labels["app.kubernetes.io/version"] == "v0.20.0"


def test_release_candidate_gets_its_own_tag(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0-rc1")
    for chart in ("kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs"):
        values = (project / "helm" / chart / "values.yaml").read_text()
        assert yamledit.get_value(values, "/kserve/version") == "v0.20.0-rc1"
    for chart in CHARTS:
        assert yamledit.get_value((project / "helm" / chart / "Chart.yaml").read_text(), "/appVersion") == "v0.20.0-rc1"
    assert b"v0.20.0-rc0" in upstream_files("v0.20.0-rc1", "charts/kserve-resources/")["values.yaml"]


def test_upgrade_equals_fresh_sync(cli: Cli, project: Path, tmp_path: Path) -> None:
    sync(cli, project, "v0.19.0")
    old = tree(project / "helm")
    upgrade = sync(cli, project, "v0.20.0")
    assert "wrote" in upgrade.stdout
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("helm", "gsvendor.lock.yaml"))
    sync(cli, fresh, "v0.20.0")
    assert tree(project / "helm") == tree(fresh / "helm") != old
    assert (project / "gsvendor.lock.yaml").read_bytes() == (fresh / "gsvendor.lock.yaml").read_bytes()


def test_second_sync_is_byte_identical_and_verify_passes(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0")
    first, lock = tree(project / "helm"), (project / "gsvendor.lock.yaml").read_bytes()
    again = sync(cli, project, "v0.20.0")
    assert "up to date" in again.stdout
    assert tree(project / "helm") == first and (project / "gsvendor.lock.yaml").read_bytes() == lock
    verify = cli(project, "verify")
    assert verify.returncode == 0, verify.stderr
    assert "output is upstream v0.20.0 plus the declared overlays" in verify.stdout


def test_lock_file_records_source_and_hashes(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0")
    lock = lock_of(project)
    assert lock["tag"] == "v0.20.0"
    assert lock["source"] == {
        "kind": "tarball",
        # relative, and without resolving links: a ../shared link stays ../shared
        "location": os.path.relpath(os.path.abspath(tarball("v0.20.0")), os.path.abspath(project)),
        "sha256": archive_sha256("v0.20.0"),
        "commit": "1fb781055dd1567164358233e1125142ca6ef1fe",
    }
    assert not lock["source"]["location"].startswith("/")
    crd = lock["charts"]["kserve-crd"]
    assert crd["dest"] == "helm/kserve-crd"
    assert crd["overlays"] == [
        "10-chart-metadata",
        "20-team-label",
        "30-crd-keep",
        "90-giantswarm-files",
        "95-chart-tests",
    ]
    import hashlib

    upstream_chart = upstream_files("v0.20.0", "charts/kserve-crd/")["Chart.yaml"]
    assert crd["files"]["Chart.yaml"] == {
        "upstream": hashlib.sha256(upstream_chart).hexdigest(),
        "result": hashlib.sha256((project / "helm/kserve-crd/Chart.yaml").read_bytes()).hexdigest(),
    }
    assert set(crd["files"][".schema.yaml"]) == {"result"}


def test_hand_edit_fails_verify_and_blocks_sync_until_forced(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0")
    edited = project / "helm/kserve-resources/values.yaml"
    edited.write_text(edited.read_text().replace("createSharedResources: true", "createSharedResources: false"))
    verify = cli(project, "verify")
    assert verify.returncode == 1
    assert "helm/kserve-resources/values.yaml" in verify.stderr
    assert "-  createSharedResources: true\n+  createSharedResources: false\n" in verify.stdout
    before = tree(project)
    refused = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(refused, 1, "helm/kserve-resources/values.yaml", "--force")
    assert tree(project) == before
    forced = sync(cli, project, "v0.20.0", "--force")
    backups = list((project / ".gsvendor-backup").glob("*/helm/kserve-resources/values.yaml"))
    assert len(backups) == 1 and b"createSharedResources: false" in backups[0].read_bytes()
    backup = backups[0].parents[2]
    assert f"backup in .gsvendor-backup/{backup.name}\n" in forced.stdout  # project-relative
    assert b"createSharedResources: true" in edited.read_bytes()
    assert cli(project, "verify").returncode == 0


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: (
            text.replace("result: ", "result: 0", 1)[: text.index("result: ") + 8]
            + "0" * 63
            + text[text.index("result: ") + 72 :]
        ),  # one result sha256 another: sync would take a hand edit for its own
        lambda text: "\n".join(line for line in text.splitlines() if not line.startswith("  sha256: ")) + "\n",
        lambda text: text.replace("commit: ", "commit: 0", 1),
    ],
    ids=["result-sha256", "no-archive-sha256", "other-commit"],
)
def test_verify_fails_on_a_lock_that_does_not_record_the_rebuild(cli: Cli, project: Path, edit) -> None:
    """A lock edited with the output untouched passed verify: a result sha256 changed, the archive's sha256
    dropped (then any bytes at the location pass). verify compares the lock's data with the rebuild's."""
    sync(cli, project, "v0.20.0")
    lock = project / "gsvendor.lock.yaml"
    lock.write_text(edit(lock.read_text()))
    result = cli(project, "verify")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == "gsvendor.lock.yaml: its sources or sha256s are not the rebuild's; run sync\n"
    sync(cli, project, "v0.20.0")
    assert cli(project, "verify").returncode == 0


def test_dry_run_prints_plan_and_writes_nothing(cli: Cli, project: Path) -> None:
    before = tree(project)
    result = sync(cli, project, "v0.20.0", "--dry-run")
    assert tree(project) == before
    assert "+ helm/kserve-crd/Chart.yaml" in result.stdout
    # 99 upstream files + 10 test suites + 5 .helmignore
    assert "dry run: 114 file change(s) planned, nothing written\n" in result.stdout
    sync(cli, project, "v0.19.0")
    plan = sync(cli, project, "v0.20.0", "--dry-run", "--json")
    crd = next(c for c in json.loads(plan.stdout)["charts"] if c["name"] == "kserve-llmisvc-crd")
    assert {"path": "templates/serving.kserve.io_llminferenceservices.yaml", "status": "changed"} in crd["changes"]


def test_the_plan_wraps_overlay_lists_under_their_first_item_at_80_columns(cli: Cli, project: Path) -> None:
    cli.env["COLUMNS"] = "80"
    result = sync(cli, project, "v0.20.0", "--dry-run")
    lines = result.stdout.splitlines()
    start = lines.index("  kserve-crd: overlays 10-chart-metadata, 20-team-label, 30-crd-keep,")
    assert lines[start : start + 14] == [
        "  kserve-crd: overlays 10-chart-metadata, 20-team-label, 30-crd-keep,",
        "                       90-giantswarm-files, 95-chart-tests",
        "  kserve-llmisvc-crd: overlays 10-chart-metadata, 20-team-label, 30-crd-keep,",
        "                               40-release-namespace, 90-giantswarm-files,",
        "                               95-chart-tests",
        "  kserve-resources: overlays 10-chart-metadata, 20-team-label, 50-gsoci-images,",
        "                             85-schema-annotations, 90-giantswarm-files,",
        "                             95-chart-tests",
        "  kserve-llmisvc-resources: overlays 10-chart-metadata, 20-team-label,",
        "                                     50-gsoci-images, 85-schema-annotations,",
        "                                     90-giantswarm-files, 95-chart-tests",
        "  kserve-runtime-configs: overlays 10-chart-metadata, 20-team-label,",
        "                                   60-runtime-configs, 90-giantswarm-files,",
        "                                   95-chart-tests",
    ]
    assert max(map(len, lines)) <= 80


def test_diff_shows_delta_from_upstream(cli: Cli, project: Path) -> None:
    sync(cli, project, "v0.20.0")
    result = cli(project, "diff", "kserve-crd")
    assert result.returncode == 0, result.stderr
    assert "--- upstream/helm/kserve-crd/Chart.yaml\n+++ vendored/helm/kserve-crd/Chart.yaml\n" in result.stdout
    assert "+  application.giantswarm.io/team: bumblebee\n" in result.stdout
    assert "--- /dev/null\n+++ vendored/helm/kserve-crd/.schema.yaml\n" in result.stdout
    assert "kserve-resources" not in result.stdout
    unknown = cli(project, "diff", "nope")
    assert_one_line_error(unknown, 2, "no chart named 'nope'")


def _all_sources_equal(cli: Cli, project: Path, tmp_path: Path, source: str, kind: str) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(project, reference)
    sync(cli, reference, "v0.20.0")
    result = cli(project, "sync", "v0.20.0", "--source", source)
    assert result.returncode == 0, result.stderr
    assert tree(project / "helm") == tree(reference / "helm")
    lock, ref_lock = lock_of(project), lock_of(reference)
    assert lock["charts"] == ref_lock["charts"]
    assert lock["source"]["kind"] == kind
    assert lock["source"]["commit"] in ("1fb781055dd1567164358233e1125142ca6ef1fe", None) or kind == "git"


def test_folder_source(cli: Cli, project: Path, tmp_path: Path, extracted) -> None:
    _all_sources_equal(cli, project, tmp_path, str(extracted("v0.20.0")), "folder")


def test_http_source(cli: Cli, project: Path, tmp_path: Path, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/kserve/archive/refs/tags/v0.20.0.tar.gz").respond_with_data(
        tarball("v0.20.0").read_bytes()
    )
    url = httpserver.url_for("/kserve/archive/refs/tags/v0.20.0.tar.gz")
    _all_sources_equal(cli, project, tmp_path, url, "http")
    assert lock_of(project)["source"]["sha256"] == archive_sha256("v0.20.0")
    assert cli(project, "verify").returncode == 0  # served from the cache by sha256


def test_git_source(cli: Cli, project: Path, tmp_path: Path, extracted) -> None:
    repo = tmp_path / "upstream.git-work"
    shutil.copytree(extracted("v0.20.0"), repo)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "big.go").write_text("package pkg\n" * 1000)  # not wanted: must not be checked out

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "master")
    git("add", "-A")
    git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "v0.20.0")
    git("tag", "v0.20.0")
    commit = git("rev-parse", "HEAD")
    git("config", "uploadpack.allowFilter", "true")
    _all_sources_equal(cli, project, tmp_path, f"file://{repo}", "git")
    assert lock_of(project)["source"]["commit"] == commit
    unknown = cli(project, "sync", "v9.9.9", "--source", f"file://{repo}")
    assert_one_line_error(unknown, 2, "unknown tag v9.9.9")


@pytest.mark.parametrize("tag", ["v0.19.0", "v0.20.0-rc1", "v0.20.0"])
def test_every_tag_syncs_and_verifies(cli: Cli, project: Path, tag: str) -> None:
    sync(cli, project, tag)
    assert cli(project, "verify").returncode == 0
