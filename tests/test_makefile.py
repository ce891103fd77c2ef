"""The Makefile entry points: `make help` lists every target, and the targets run gsvendor as documented.

`.ci/run` runs `make test` and then the vendoring and check targets on the repository itself
(sync, verify, generate, versions, check-image-registry, pre-commit); this file covers `help`
and `patch-verify`, which needs an upstream git repository (built here) instead of GitHub.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from gitkit import PatchMaker, Upstream, git_env, make_project

VENV = Path(sys.executable).parent.parent  # the environment running the tests stands in for .venv


def make(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``make -f <repo Makefile>`` in ``cwd`` with this environment as VENV (never re-created)."""
    venv_args = [f"VENV={VENV}", "-o", f"{VENV}/.installed"]
    env = {**git_env(), "NO_COLOR": "1", "COLUMNS": "200", "GSVENDOR_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run(
        ["make", "--no-print-directory", "-f", str(ROOT / "Makefile"), *venv_args, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_help_lists_every_documented_target() -> None:
    result = make(ROOT, "help")
    assert result.returncode == 0, result.stderr
    listed = set(re.findall(r"^  ([a-z-]+) ", result.stdout, re.MULTILINE))
    defined = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    assert listed == defined
    for target in (
        "sync",
        "verify",
        "test",
        "check-image-registry",
        "helm-test",
        "patch-verify",
        "versions",
        "generate",
    ):
        assert target in listed
    # an 80-column terminal: descriptions wrap under their column, no word is cut
    assert [line for line in result.stdout.splitlines() if len(line) > 80] == []
    assert (
        "  tools                  Install the pinned helm, yq, helm-docs,\n" + " " * 25 + "helm-values-schema-json"
        in (result.stdout)
    )


def test_patch_verify_target(tmp_path: Path) -> None:
    upstream = Upstream(tmp_path / "upstream", {"pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n"})
    upstream.commit({"VERSION": "1.0.0\n"}, "release", tag="v1.0.0")
    project = make_project(tmp_path / "project", version="v1.0.0")
    PatchMaker(upstream, "v1.0.0", tmp_path / "work").patch(
        {"pkg/a.go": "package pkg\n\nfunc A() int { return 2 }\n"}, "pkg: A returns 2", project / "patches/llmisvc", 1
    )
    ok = make(project, "patch-verify", f"PATCH_SOURCE={upstream.url}")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "0001-pkg-A-returns-2.patch" in ok.stdout and "applies" in ok.stdout
    upstream.commit({"pkg/a.go": "package pkg\n\nfunc A() int { return 3 }\n"}, "rework", tag="v1.1.0")
    (project / "Dockerfile.llmisvc").write_text(
        (project / "Dockerfile.llmisvc").read_text().replace("v1.0.0", "v1.1.0")
    )
    failed = make(project, "patch-verify", f"PATCH_SOURCE={upstream.url}")
    assert failed.returncode != 0 and "does not apply" in failed.stdout


def test_tag_and_source_values_with_shell_and_make_syntax_run_no_command(tmp_path: Path) -> None:
    """A TAG like ``v1"; touch marker; echo "``, ``v1'; touch marker; echo '`` or ``$(shell touch marker)``
    (a tag taken from a branch name in CI), a SOURCE, PATCH_SOURCE or CHART_PROJECT like ``x; touch
    marker``: each is one argument to the command, never a command itself."""
    (tmp_path / "hack").symlink_to(ROOT / "hack")
    values = [
        'v1"; touch marker-double-quote; echo "',
        "v1'; touch marker-single-quote; echo '",
        "$(shell touch marker-make-shell)v1",
        "v1$$(touch marker-command-substitution)",
    ]
    for value in values:
        result = make(tmp_path, "-o", "tools", "upgrade", f"TAG={value}")
        assert (result.returncode, result.stderr.splitlines()[0]) == (
            2,
            f"error: TAG={value} is not an upstream tag (like v0.21.0)",
        )
        synced = make(tmp_path, "sync", f"TAG={value}", "SOURCE=$(shell touch marker-source); touch marker-source")
        assert synced.returncode == 2, synced.stdout + synced.stderr
        verified = make(tmp_path, "patch-verify", "PATCH_SOURCE=x; touch marker-patch-source")
        assert verified.returncode != 0
        unittest = make(tmp_path, "-o", "tools", "helm-unittest", "CHART_PROJECT=x; touch marker-chart-project")
        assert unittest.returncode != 0
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("marker")) == []
