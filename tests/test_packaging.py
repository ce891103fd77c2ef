"""pyproject.toml: the licence as an SPDX expression, built without setuptools' deprecation warnings,
the runtime dependencies exactly what the package imports."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from conftest import ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_licence_is_an_spdx_expression_for_setuptools_77() -> None:
    assert PROJECT["project"]["license"] == "Apache-2.0"
    # setuptools reads a licence string as SPDX from 77 on (older ones reject it)
    assert PROJECT["build-system"] == {"requires": ["setuptools>=77"], "build-backend": "setuptools.build_meta"}


def imported_distributions() -> set[str]:
    """The installed distributions providing the non-stdlib modules ``gsvendor/`` imports (lazy imports too)."""
    tops: set[str] = set()
    for path in (ROOT / "gsvendor").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                tops.add(node.module.split(".")[0])
    tops -= {*sys.stdlib_module_names, "gsvendor", "__future__"}
    providers = importlib.metadata.packages_distributions()
    assert sorted(t for t in tops if t not in providers) == []  # every import resolves to an installed distribution
    return {canonicalize_name(dist) for top in tops for dist in providers[top]}


def test_the_runtime_dependencies_are_exactly_the_imported_distributions() -> None:
    declared = {canonicalize_name(Requirement(text).name) for text in PROJECT["project"]["dependencies"]}
    assert imported_distributions() == declared


def test_the_wheel_builds_without_a_licence_deprecation_warning(tmp_path: Path) -> None:
    # a copy of the sources, so the build leaves no build/ or egg-info in the repository
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "gsvendor", source / "gsvendor", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-cache-dir", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    log = built.stdout + built.stderr
    assert built.returncode == 0, log
    # the isolated build used a setuptools that reads the SPDX string (>=77), and said nothing about it
    majors = re.findall(r"Successfully installed setuptools-(\d+)\.", log)
    assert majors and int(majors[0]) >= 77, log
    assert [line for line in log.splitlines() if "Deprecat" in line or "license" in line.lower()] == []
    (wheel,) = tmp_path.glob("gsvendor-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("gsvendor-0.1.0.dist-info/METADATA").decode()
    licence = [line for line in metadata.splitlines() if line.startswith(("License", "Classifier: License"))]
    assert licence == ["License-Expression: Apache-2.0"]
