"""The one rule for a missing tool (tests/conftest.py ``require_tool``): a failure naming the tool
under CI (``CI`` set, or ``GSVENDOR_REQUIRE_TOOLS=1``), a skip naming it elsewhere. Run through a
real pytest on a test that asks for a tool nowhere installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PROBE = """
from conftest import require_tool, tool_path


def test_needs_a_tool():
    require_tool("gsvendor-absent-tool", tool_path("gsvendor-absent-tool"), "nowhere: it does not exist")
"""


def _pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "GSVENDOR_REQUIRE_TOOLS", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfs", "-p", "no:cacheprovider", f"--rootdir={tmp_path}",
         "-c", os.devnull, str(tmp_path / "test_probe.py")],
        cwd=ROOT,
        env={**base, "PYTHONPATH": str(ROOT / "tests"), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize("strict", [{"CI": "true"}, {"CI": "1"}, {"GSVENDOR_REQUIRE_TOOLS": "1"}])
def test_a_missing_tool_fails_under_ci(tmp_path: Path, strict: dict[str, str]) -> None:
    result = _pytest(tmp_path, **strict)
    assert result.returncode == 1, result.stdout
    assert "FAILED" in result.stdout and "1 failed" in result.stdout
    expected = "gsvendor-absent-tool is not installed (nowhere: it does not exist); CI requires it"
    assert expected in result.stdout


@pytest.mark.parametrize("relaxed", [{}, {"CI": "false"}, {"CI": ""}])
def test_a_missing_tool_skips_elsewhere(tmp_path: Path, relaxed: dict[str, str]) -> None:
    result = _pytest(tmp_path, **relaxed)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
    assert "gsvendor-absent-tool is not installed (nowhere: it does not exist)" in result.stdout
