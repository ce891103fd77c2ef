"""The helm-unittest suites of the Giant Swarm overlays, run by the real plugin (`make helm-unittest`,
the first half of `make helm-test`; the pytest half, `make chart-tests`, is tests/test_chart_tests_target.py).

The suites live in overlays/files/tests/<chart>/ and the overlay 95-chart-tests copies them into
helm/<chart>/tests/. hack/install-go-tools.sh (`make tools`) builds the plugin from its Go module;
without it the tests that run it fail under CI and skip elsewhere, naming it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, TAGS, Cli, require_tool, tarball, tool_path

PLUGIN = ROOT / ".tools/helm-plugins/unittest"
INSTALL = ROOT / "hack/install-go-tools.sh"


@pytest.fixture
def needs_plugin() -> None:
    """The helm-unittest plugin .tools/helm-plugins/unittest (make tools): missing, the test fails
    under CI and skips elsewhere."""
    found = PLUGIN / "untt" if (PLUGIN / "plugin.yaml").is_file() and os.access(PLUGIN / "untt", os.X_OK) else None
    require_tool("helm-unittest", found, "the plugin in .tools/helm-plugins/unittest; make tools builds it with go")


# every suite at the pinned tag; the overlay copies the tracing suite from v0.20.0-rc0 on (upstream
# added the preset in v0.20), the rolloutStrategy guard while the vendored LLMInferenceServiceConfig
# CRD lacks spec.rolloutStrategy and the rolloutStrategy suite once it has it
SUITES = {
    "kserve-crd": ["crd.keep"],
    "kserve-llmisvc-crd": ["crd.keep", "release namespace"],
    "kserve-resources": ["gsoci images"],
    "kserve-llmisvc-resources": ["gsoci images", "team label"],
    "kserve-runtime-configs": [
        "llmisvc presets",
        "llmisvc tracing",
        "llmisvc rolloutStrategy guard",
        "image-less serving runtimes",
    ],
}
TRACING = "kserve-runtime-configs llmisvc tracing"


def suite_names(tag: str) -> set[str]:
    names = {f"{chart} {suite}" for chart, suites in SUITES.items() for suite in suites}
    return names - {TRACING} if tag == "v0.19.0" else names


def make_project(tmp_path: Path, tag: str, source: Path | None = None, drop: tuple[str, ...] = ()) -> Path:
    """A project synced at ``tag`` with this repository's Makefile, hack/ and tools (``drop``: overlays left out)."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("gsvendor.yaml", "Makefile"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "overlays", project / "overlays")
    shutil.copytree(ROOT / "hack", project / "hack")
    (project / ".tools").symlink_to(ROOT / ".tools")  # the installed tools, found as installed
    for overlay in drop:
        (project / "overlays" / overlay).unlink()
    synced = Cli(tmp_path / "cache")(project, "sync", tag, "--source", str(source or tarball(tag)))
    assert synced.returncode == 0, synced.stderr
    return project


def make_helm_unittest(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "helm-unittest"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def results(output: str) -> dict[str, str]:
    """Suite name → PASS or FAIL, from helm-unittest's report."""
    return {name: verdict for verdict, name in re.findall(r"^ (PASS|FAIL)  (.+?)\t", output, re.MULTILINE)}


@pytest.mark.usefixtures("needs_plugin")
@pytest.mark.parametrize("tag", TAGS)
def test_make_helm_unittest_passes_on_a_synced_tree(tmp_path: Path, tag: str) -> None:
    project = make_project(tmp_path, tag)
    result = make_helm_unittest(project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert results(result.stdout) == dict.fromkeys(suite_names(tag), "PASS")
    assert "Charts:      5 passed, 5 total" in result.stdout
    junit = ET.parse(project / "build/test-results/helm-unittest.xml").getroot()
    assert len(junit.findall(".//testsuite")) == len(suite_names(tag))
    copied = sorted((project / "helm").glob("*/tests/*_test.yaml"))
    assert len(junit.findall(".//testcase")) == sum(f.read_text().count("\n  - it: ") for f in copied)
    assert not junit.findall(".//failure")
    # the suites ran on copies: helm/ keeps the release pipeline's placeholder
    assert 'version: "[[ .Version ]]"' in (project / "helm/kserve-crd/Chart.yaml").read_text()


@pytest.mark.usefixtures("needs_plugin")
@pytest.mark.parametrize(
    ("overlay", "failing"),
    [
        ("30-crd-keep.yaml", {"kserve-crd crd.keep", "kserve-llmisvc-crd crd.keep"}),
        ("50-gsoci-images.yaml", {"kserve-resources gsoci images", "kserve-llmisvc-resources gsoci images"}),
    ],
)
def test_a_broken_overlay_fails_its_suites(tmp_path: Path, overlay: str, failing: set[str]) -> None:
    project = make_project(tmp_path, "v0.20.0", drop=(overlay,))
    result = make_helm_unittest(project)
    assert result.returncode != 0
    verdicts = results(result.stdout)
    assert verdicts == {name: "FAIL" if name in failing else "PASS" for name in suite_names("v0.20.0")}


@pytest.mark.usefixtures("needs_plugin")
def test_later_upstream_gets_the_inferenceservice_ca_suite(tmp_path: Path, extracted) -> None:
    """Upstream after the latest archive carries inject-ca-from on the InferenceService CRD, and (here)
    spec.rolloutStrategy on the LLMInferenceServiceConfig CRD: their suites are copied and pass."""
    from upgradekit import LATEST, later_archive

    archive = later_archive(extracted(LATEST), tmp_path, "v0.21.0", rollout_strategy=True)
    project = make_project(tmp_path, "v0.21.0", source=archive)
    assert (project / "helm/kserve-crd/tests/inferenceservice_release_namespace_test.yaml").is_file()
    result = subprocess.run(
        [str(project / "hack/helm-test.sh"), "helm", "kserve-crd", "kserve-runtime-configs"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = results(result.stdout)
    assert verdicts["kserve-crd InferenceService CA from the release namespace"] == "PASS"
    # and the rolloutStrategy suite replaces the guard's
    assert verdicts["kserve-runtime-configs llmisvc rolloutStrategy"] == "PASS"
    assert "kserve-runtime-configs llmisvc rolloutStrategy guard" not in verdicts


def test_suites_are_giant_swarm_files_kept_out_of_the_package(tmp_path: Path, helm: str) -> None:
    project = make_project(tmp_path, "v0.20.0")
    chart = tmp_path / "kserve-crd"
    shutil.copytree(project / "helm/kserve-crd", chart)
    (chart / "Chart.yaml").write_text(
        (chart / "Chart.yaml").read_text().replace('version: "[[ .Version ]]"', "version: 1.2.3")
    )

    def packaged() -> list[str]:
        out = tmp_path / "dist"
        shutil.rmtree(out, ignore_errors=True)
        done = subprocess.run(
            [helm, "package", str(chart), "-d", str(out)], capture_output=True, text=True, check=False, timeout=120
        )
        assert done.returncode == 0, done.stderr
        with tarfile.open(out / "kserve-crd-1.2.3.tgz") as archive:
            return archive.getnames()

    assert (chart / "tests/crd_keep_test.yaml").is_file()
    names = packaged()
    assert "kserve-crd/templates/serving.kserve.io_inferenceservices.yaml" in names
    assert not [n for n in names if n.startswith("kserve-crd/tests/")]
    (chart / ".helmignore").unlink()  # the .helmignore is what keeps them out
    assert "kserve-crd/tests/crd_keep_test.yaml" in packaged()
    # the suites are declared Giant Swarm-only files: verify accepts them, diff lists them
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert "tests/crd_keep_test.yaml" in lock and ".helmignore" in lock


def test_every_suite_file_is_copied_by_the_overlay() -> None:
    declared = (ROOT / "overlays/95-chart-tests.yaml").read_text()
    suites = sorted((ROOT / "overlays/files/tests").glob("*/*_test.yaml"))
    assert len(suites) == 12
    for suite in suites:
        chart = suite.parent.name
        source = f"from: files/tests/{chart}/{suite.name}\n    to: tests/{suite.name}\n"
        assert source in declared, suite
        assert re.search(rf"charts: \[{chart}\]\n(    (versions|crd): .+\n)?    {re.escape(source)}", declared), suite


def _install(script: Path = INSTALL, **env: str) -> subprocess.CompletedProcess[str]:
    """hack/install-go-tools.sh with ``env`` over this environment without CI or GSVENDOR_REQUIRE_TOOLS."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "GSVENDOR_REQUIRE_TOOLS")}
    return subprocess.run([str(script)], env={**base, **env}, capture_output=True, text=True, check=False, timeout=300)


def test_install_go_tools_without_go_skips_cleanly_outside_ci() -> None:
    result = _install(GO="/nonexistent/go")
    assert result.returncode == 0
    assert "install-go-tools: go not found (/nonexistent/go): skipping helm-docs" in result.stderr


@pytest.mark.parametrize("strict", [{"CI": "true"}, {"GSVENDOR_REQUIRE_TOOLS": "1"}])
def test_install_go_tools_without_go_fails_in_ci(strict: dict[str, str]) -> None:
    result = _install(GO="/nonexistent/go", **strict)
    assert result.returncode == 1
    assert "install-go-tools: go not found (/nonexistent/go): cannot build helm-docs" in result.stderr


def test_a_tool_that_cannot_be_fetched_fails_in_ci_except_schemalint(tmp_path: Path) -> None:
    """A copy of hack/ in an empty project, the module proxy off and an empty cache: every tool
    fails to fetch. Under CI that is exit 1 naming each, schemalint excepted (the proxy refuses it);
    elsewhere exit 0, one line each."""
    shutil.copytree(ROOT / "hack", tmp_path / "hack")
    script = tmp_path / "hack" / "install-go-tools.sh"
    offline = {"GOPROXY": "off", "GO_TOOLS_CACHE": str(tmp_path / "cache")}
    result = _install(script, CI="true", **offline)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[-1] == "install-go-tools: failed: helm-docs helm-values-schema-json helm-unittest"
    assert (
        "install-go-tools: schemalint skipped: cannot fetch github.com/giantswarm/schemalint/v2@v2.6.1" in result.stderr
    )
    relaxed = _install(script, **offline)
    assert relaxed.returncode == 0, relaxed.stderr
    assert relaxed.stderr.count(" skipped: cannot fetch ") == 4
    assert not (tmp_path / ".tools" / "bin" / "helm-docs").exists()
    assert not any((tmp_path / "cache" / "modules").iterdir())  # the throwaway modules are removed


def test_install_go_tools_pins_each_tool_for_renovate() -> None:
    text = INSTALL.read_text()
    pins = re.findall(r"^# renovate: datasource=go depName=(\S+)\n([A-Z_]+)=(v\d+\.\d+\.\d+)$", text, re.MULTILINE)
    assert {(module, version) for module, _, version in pins} == {
        ("github.com/norwoodj/helm-docs", "v1.14.2"),
        ("github.com/losisin/helm-values-schema-json/v2", "v2.5.0"),
        ("github.com/giantswarm/schemalint/v2", "v2.6.1"),
        ("github.com/helm-unittest/helm-unittest", "v1.1.2"),
    }
    for module, variable, _ in pins:  # the pinned variable is the one installed from that module
        assert re.search(rf"^go_install \S+ {re.escape(module)} \\\n  \S+ \"\${variable}\"", text, re.MULTILINE), module


def test_install_helm_builds_the_pinned_go_module() -> None:
    """helm is built from its Go module like the Go tools: a Renovate go pin, no other carrier, no sha256 pins."""
    text = (ROOT / "hack/install-helm.sh").read_text()
    pins = re.findall(r"^# renovate: datasource=(\S+) depName=(\S+)\n([A-Z_]+)=(\S+)$", text, re.MULTILINE)
    assert [(d, m, v) for d, m, v, _ in pins] == [("go", "helm.sh/helm/v3", "HELM_VERSION")]
    assert 'go_install helm helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm "$HELM_VERSION"' in text
    assert "npm" not in text and not re.search(r"SHA256=", text)


def test_install_go_tools_skips_installed_tools() -> None:
    for tool in ("helm-docs", "helm-values-schema-json", "helm-unittest"):
        require_tool(tool, tool_path(tool) if (ROOT / ".tools/bin" / tool).is_file() else None, "make tools")
    result = subprocess.run([str(INSTALL)], capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    for tool, version in (("helm-docs", "v1.14.2"), ("helm-values-schema-json", "v2.5.0"), ("helm-unittest", "v1.1.2")):
        assert f"install-go-tools: {tool} {version} already installed" in result.stdout
    helm_docs = subprocess.run(
        [str(ROOT / ".tools/bin/helm-docs"), "--version"], capture_output=True, text=True, check=False
    )
    assert helm_docs.stdout.strip() == "helm-docs version 1.14.2"  # the release build's stamp, in every README
