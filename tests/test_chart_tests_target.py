"""`make chart-tests` (CircleCI's chart-tests job, through `make helm-test`) tests the vendored helm/.

The chart tests run on the suite's fixed upstream tags and on the helm/ of CHART_PROJECT (this
repository by default) at whatever tag it was synced: here projects synced at v0.19.0 and at
v0.20.0, each run naming its tag in the report, and a hand edit of helm/ that the tests see.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, Cli, require_tool, tarball

VENV = Path(sys.executable).parent.parent  # the environment running the tests stands in for .venv


def synced_project(folder: Path, tag: str, cli: Cli) -> Path:
    folder.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", folder)
    shutil.copytree(ROOT / "overlays", folder / "overlays")
    result = cli(folder, "sync", tag, "--source", str(tarball(tag)))
    assert result.returncode == 0, result.stderr
    return folder


def chart_tests(project: Path, cli: Cli, select: str = "vendored") -> subprocess.CompletedProcess[str]:
    """``make chart-tests CHART_PROJECT=project``, only its vendored parameter (the fixed tags run elsewhere)."""
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            f"VENV={VENV}",
            "-o",
            f"{VENV}/.installed",
            "chart-tests",
            f"CHART_PROJECT={project}",
            f"PYTEST_ARGS=-k '{select}' -rA -p no:cacheprovider",
        ],
        cwd=ROOT,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("tag", ["v0.19.0", "v0.20.0"])
def test_chart_tests_run_on_the_vendored_helm_at_its_tag(tmp_path: Path, cli: Cli, tag: str) -> None:
    project = synced_project(tmp_path / "project", tag, cli)
    result = chart_tests(project, cli)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = re.search(
        rf"^chart tests on {re.escape(str(project))}/helm, synced at (\S+): (\d+) passed, 0 failed$",
        result.stdout,
        re.M,
    )
    assert summary and summary.group(1) == tag, result.stdout[-3000:]
    passed = re.findall(
        r"^PASSED tests/overlays/test_chart_overlays\.py::(\w+)\[([^\]]+)\]", result.stdout, re.MULTILINE
    )
    ids = {i for _, i in passed}
    assert ids and all(f"vendored-{tag}" in i for i in ids), ids
    # every test of the module that takes the synced project ran on this one
    module = (ROOT / "tests/overlays/test_chart_overlays.py").read_text()
    taking_synced = set(re.findall(r"^def (test_\w+)\(\s*synced: ", module, re.MULTILINE))
    assert {name for name, _ in passed} == taking_synced and len(taking_synced) == 15
    assert int(summary.group(2)) == len(passed)


def test_chart_tests_read_helm_not_a_fresh_sync(tmp_path: Path, cli: Cli) -> None:
    project = synced_project(tmp_path / "project", "v0.20.0", cli)
    values = project / "helm/kserve-resources/values.yaml"
    values.write_text(values.read_text().replace("  version: v0.20.0\n", "  version: v0.20.1\n", 1))
    result = chart_tests(project, cli, "vendored and controller_images")
    assert result.returncode != 0
    failed = re.findall(r"^FAILED tests/overlays/test_chart_overlays\.py::(\S+)", result.stdout, re.MULTILINE)
    assert failed == ["test_rendered_controller_images_are_gsoci[vendored-v0.20.0-kserve-resources]"]


def test_chart_tests_need_a_synced_project(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "empty").mkdir()
    result = chart_tests(tmp_path / "empty", cli)
    assert result.returncode != 0
    assert f"{tmp_path / 'empty'}: no gsvendor.lock.yaml; run make sync there first" in result.stdout + result.stderr


def test_helm_test_runs_and_reports_both_halves_when_helm_unittest_fails(tmp_path: Path, cli: Cli) -> None:
    """``make helm-test``: a failing helm-unittest suite fails the target, but the pytest chart
    tests still run and report, and the last line says how each half ended."""
    plugin = ROOT / ".tools/helm-plugins/unittest/plugin.yaml"
    require_tool("helm-unittest", plugin if plugin.is_file() else None, "the helm plugin; make tools builds it")
    project = synced_project(tmp_path / "project", "v0.20.0", cli)
    suite = project / "helm/kserve-crd/tests/crd_keep_test.yaml"
    suite.write_text(suite.read_text().replace("value: keep\n", "value: discard\n", 1))
    result = subprocess.run(
        [
            "make",
            "--no-print-directory",
            f"VENV={VENV}",
            "-o",
            f"{VENV}/.installed",
            "helm-test",
            f"CHART_PROJECT={project}",
            "PYTEST_ARGS=-k 'vendored and crd' -p no:cacheprovider",
        ],
        cwd=ROOT,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode != 0
    assert "kserve-crd crd.keep" in result.stdout  # helm-unittest ran and named the failing suite
    assert re.search(
        rf"^chart tests on {re.escape(str(project))}/helm, synced at v0\.20\.0: [1-9]\d* passed, 0 failed$",
        result.stdout,
        re.MULTILINE,
    ), result.stdout[-3000:]
    said = [line for line in result.stderr.splitlines() if line.startswith("helm-test: ")]
    assert len(said) == 1 and re.fullmatch(
        r"helm-test: helm-unittest failed \(make exit \d+\), chart-tests passed", said[0]
    ), result.stderr[-2000:]
    assert result.stderr.rstrip().endswith("helm-test] Error 1")  # make's own line after it
