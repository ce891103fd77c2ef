"""Renovate, the real one, on this repository: every pin it must bump is a dependency it finds.

hack/install-renovate.sh installs the pinned Renovate (npm) into .tools/renovate; `.ci/run` runs
it first. hack/renovate-extract.sh runs it offline as `--platform=local --dry-run=extract` on a
temporary git copy of the working tree. Giant Swarm's preset (`github>giantswarm/renovate-presets:default.json5`)
cannot be fetched offline, so the copy's renovate.json5 is the repository's own rules,
renovate-custom.json5, with `extends` emptied; Renovate's built-in managers run as they do for
Giant Swarm.

The expected list is written out below, dependency by dependency. Values that a Renovate pull
request changes (the pins themselves) are read from their files with plain regular expressions,
so a bump keeps this test green and a pin that Renovate stops finding fails it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, require_tool
from ruamel.yaml import YAML

RENOVATE_HOME = Path(os.environ.get("GSVENDOR_RENOVATE_DIR") or ROOT / ".tools" / "renovate")
RENOVATE = RENOVATE_HOME / "node_modules" / ".bin" / "renovate"
VALIDATOR = RENOVATE_HOME / "node_modules" / ".bin" / "renovate-config-validator"
PRESET = "github>giantswarm/renovate-presets:default.json5"
CUSTOM = "github>giantswarm/kserve:renovate-custom.json5"


@pytest.fixture(scope="module", autouse=True)
def renovate_installed() -> None:
    """Every test here runs Renovate (or its json5): missing, it fails under CI and skips elsewhere."""
    require_tool("Renovate", RENOVATE, f"{RENOVATE_HOME}: run hack/install-renovate.sh or make renovate")


def renovate_env(base: Path) -> dict[str, str]:
    """An environment for an offline Renovate run whose caches live below ``base``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RENOVATE_", "GITHUB_", "GH_"))}
    env.update(
        RENOVATE_X_IGNORE_RE2="true",  # the optional native module is not installed (hack/install-renovate.sh)
        RENOVATE_BASE_DIR=str(base / "renovate-base"),
        RENOVATE_CONFIG_FILE=str(base / "global-config.js"),
        LOG_LEVEL="warn",
        LOG_FORMAT="json",
        NO_COLOR="1",
    )
    (base / "global-config.js").write_text("module.exports = {};\n")
    return env


def json5(path: Path) -> dict:
    """Parse a JSON5 file with the json5 package Renovate itself uses."""
    script = (
        "const fs = require('fs');"
        "process.stdout.write(JSON.stringify(require('json5').parse(fs.readFileSync(process.argv[1], 'utf8'))))"
    )
    node_path = str(RENOVATE_HOME / "node_modules")
    out = subprocess.run(
        ["node", "-e", script, str(path)],
        env={**os.environ, "NODE_PATH": node_path},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """Every dependency Renovate extracts with the repository's own rules (hack/renovate-extract.sh)."""
    report = tmp_path_factory.mktemp("renovate") / "report.json"
    run = subprocess.run(
        [str(ROOT / "hack/renovate-extract.sh"), str(report)],
        env={**os.environ, "GSVENDOR_RENOVATE_DIR": str(RENOVATE_HOME)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stderr == ""  # no warning but the expected note about GitHub tokens
    (repository,) = json.loads(report.read_text())["repositories"].values()
    deps = []
    for manager, files in repository["packageFiles"].items():
        for package_file in files:
            for dep in package_file["deps"]:
                deps.append({"manager": manager, "file": package_file["packageFile"], **dep})
    # the script's table is the report, line by line
    assert run.stdout.splitlines() == ["\t".join(row) for row in rows(deps)]
    return deps


def rows(deps: list[dict]) -> list[tuple[str, str, str, str, str]]:
    """(file, manager, datasource, depName, currentValue), sorted."""
    return sorted((d["file"], d["manager"], d["datasource"], d["depName"], d.get("currentValue") or "") for d in deps)


def value(path: str, pattern: str) -> str:
    """The one match of ``pattern``'s group 1 in the file at ``path``."""
    (found,) = re.findall(pattern, (ROOT / path).read_text(), re.MULTILINE)
    return found


def docker_images(node: object) -> list[str]:
    """Every ``image`` of a ``docker:`` list anywhere in a CircleCI configuration."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "docker" and isinstance(value, list):
                found += [item["image"] for item in value if isinstance(item, dict) and "image" in item]
            else:
                found += docker_images(value)
    elif isinstance(node, list):
        for item in node:
            found += docker_images(item)
    return found


def test_renovate_json5_is_the_giant_swarm_form() -> None:
    assert json5(ROOT / "renovate.json5")["extends"] == [PRESET, CUSTOM]


def validate(tmp_path: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    """renovate-config-validator --strict on ``files``."""
    return subprocess.run(
        [str(VALIDATOR), "--strict", *map(str, files)],
        cwd=tmp_path,
        env={**renovate_env(tmp_path), "LOG_LEVEL": "info", "LOG_FORMAT": "pretty"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_both_files_pass_renovates_validator(tmp_path: Path) -> None:
    run = validate(tmp_path, ROOT / "renovate.json5", ROOT / "renovate-custom.json5")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Config validated successfully" in run.stdout
    # the validator is not a formality: a misspelt option fails it
    bad = tmp_path / "renovate-custom.json5"
    bad.write_text((ROOT / "renovate-custom.json5").read_text().replace("matchStrings:", "matchString:"))
    assert validate(tmp_path, bad).returncode == 1


def test_every_pin_of_the_repository_is_a_renovate_dependency(extracted: list[dict]) -> None:
    pin = value("Dockerfile.llmisvc", r"^ARG KSERVE_VERSION=(\S+)$")
    assert value("Dockerfile", r"^ARG KSERVE_VERSION=(\S+)$") == pin
    expected = []
    for dockerfile in ("Dockerfile", "Dockerfile.llmisvc"):
        expected += [
            (dockerfile, "regex", "github-releases", "kserve/kserve", pin),
            (
                dockerfile,
                "regex",
                "go",
                "github.com/google/go-licenses",
                value(dockerfile, r"^ARG GO_LICENSES_VERSION=(\S+)$"),
            ),
            (dockerfile, "dockerfile", "docker", "docker/dockerfile", "1"),
            (dockerfile, "dockerfile", "docker", "golang", value(dockerfile, r"^FROM .*\bgolang:(\S+) AS builder$")),
            (dockerfile, "dockerfile", "docker", "gcr.io/distroless/static", "nonroot"),
        ]
    expected += [
        (
            "hack/install-helm.sh",
            "regex",
            "go",
            "helm.sh/helm/v3",
            value("hack/install-helm.sh", r"^HELM_VERSION=(\S+)$"),
        ),
        (
            "hack/install-go.sh",
            "regex",
            "golang-version",
            "go",
            value("hack/install-go.sh", r"^GO_VERSION=(\S+)$"),
        ),
        (
            "hack/install-renovate.sh",
            "regex",
            "npm",
            "renovate",
            value("hack/install-renovate.sh", r"^RENOVATE_VERSION=(\S+)$"),
        ),
        (
            "hack/install-yq.sh",
            "regex",
            "go",
            "github.com/mikefarah/yq/v4",
            value("hack/install-yq.sh", r"^YQ_VERSION=(\S+)$"),
        ),
        (
            "overlays/50-gsoci-images.yaml",
            "regex",
            "docker",
            "gsoci.azurecr.io/giantswarm/kube-rbac-proxy",
            value("overlays/50-gsoci-images.yaml", r"gsoci\.azurecr\.io/giantswarm/kube-rbac-proxy:([\w.-]+)'$"),
        ),
    ]
    # The Go tools hack/install-go-tools.sh builds: `# renovate: datasource=go depName=<module>`
    # above each `<NAME>_VERSION=v…` line.
    tools = ROOT / "hack/install-go-tools.sh"
    if tools.exists():
        pinned = re.findall(
            r"^# renovate: datasource=go depName=(\S+)\n[A-Z0-9_]+_VERSION=(\S+)$", tools.read_text(), re.M
        )
        assert pinned, "hack/install-go-tools.sh pins no Go tool under a renovate comment"
        expected += [("hack/install-go-tools.sh", "regex", "go", module, version) for module, version in pinned]
    # kube-apiserver and etcd of the cluster tests, from their pinned Go modules
    kube = ROOT / "hack/install-kube.sh"
    if kube.exists():
        pinned = re.findall(
            r"^# renovate: datasource=go depName=(\S+)\n[A-Z0-9_]+_VERSION=(\S+)$", kube.read_text(), re.M
        )
        assert [module for module, _ in pinned] == ["k8s.io/kubernetes", "go.etcd.io/etcd/server/v3"]
        expected += [("hack/install-kube.sh", "regex", "go", module, version) for module, version in pinned]
    # CI: the orbs and the docker images of every .circleci/*.yml (Renovate's circleci manager)
    for path in sorted((ROOT / ".circleci").glob("*.yml")):
        name = path.relative_to(ROOT).as_posix()
        document = YAML(typ="safe").load(path.read_text()) or {}
        for orb in (document.get("orbs") or {}).values():
            if isinstance(orb, str):
                orb_name, version = orb.split("@")
                expected.append((name, "circleci", "orb", orb_name.split("/")[-1], version))
        for image in docker_images(document):
            image_name, tag = image.rsplit(":", 1)
            expected.append((name, "circleci", "docker", image_name, tag))
    # the exact pins of the pre-commit hooks' environments, each place (a regex manager)
    hooks = re.findall(
        r"additional_dependencies: \[([\w.-]+)==([^,\]\s]+)\]", (ROOT / ".pre-commit-config.yaml").read_text()
    )
    assert {name for name, _ in hooks} == {"pre-commit-hooks", "ruff"}
    expected += [(".pre-commit-config.yaml", "regex", "pypi", name, version) for name, version in hooks]
    # Python: pyproject.toml's requirements (Renovate's pep621 manager)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requirements = project["project"]["dependencies"] + [
        r for extra in project["project"]["optional-dependencies"].values() for r in extra
    ]
    expected.append(("pyproject.toml", "pep621", "python-version", "python", project["project"]["requires-python"]))
    for requirement in [*requirements, *project["build-system"]["requires"]]:
        name, spec = re.match(r"([A-Za-z0-9_.-]+)\s*([^;]*)", requirement).groups()
        expected.append(("pyproject.toml", "pep621", "pypi", name, spec.strip()))

    assert rows(extracted) == sorted(expected)


def test_no_python_file_is_read_as_a_dockerfile(extracted: list[dict]) -> None:
    assert [d["file"] for d in extracted if d["file"].endswith(".py")] == []
    assert {d["file"] for d in extracted if d["manager"] == "dockerfile"} == {"Dockerfile", "Dockerfile.llmisvc"}


def test_the_kube_rbac_proxy_bump_lands_in_the_overlay(extracted: list[dict]) -> None:
    """Renovate's edit of the mirror tag is an edit of overlays/, which `gsvendor sync` carries into helm/."""
    (dep,) = [d for d in extracted if d["depName"] == "gsoci.azurecr.io/giantswarm/kube-rbac-proxy"]
    assert dep["file"] == "overlays/50-gsoci-images.yaml"
    # the text Renovate replaces: its comment and the overlay's `with:` line, ending at the tag
    assert dep["replaceString"].startswith(
        "# renovate: datasource=docker depName=gsoci.azurecr.io/giantswarm/kube-rbac-proxy\n"
    )
    assert dep["replaceString"].endswith(
        f"rbacProxyImage: gsoci.azurecr.io/giantswarm/kube-rbac-proxy:{dep['currentValue']}"
    )
