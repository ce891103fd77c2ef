"""Options that may not be given empty (cli/options.py's ``non_empty``): an unset CI variable
(``--junit=$JUNIT``) is one ``error:`` line and exit 2 while the command line is parsed, before
a configuration is read or any work starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

EMPTY_TEXT = "is empty; leave it out for the default"
EMPTY_PATH = "is empty or '.'; give a file, or leave it out for the default"

# (command line before the value, option, whether it names a path)
OPTIONS = [
    (["--config"], "--config", True),
    (["--cache-dir"], "--cache-dir", True),
    (["sync", "v0.20.0", "--report"], "--report", False),
    (["sync", "v0.20.0", "--patch-report"], "--patch-report", True),
    (["verify", "--source"], "--source", False),
    (["diff", "--source"], "--source", False),
    (["check-images", "--junit"], "--junit", True),
    (["check-manifests", "--junit"], "--junit", True),
    (["patch-verify", "--junit"], "--junit", True),
    (["patch-verify", "--source"], "--source", False),
    (["patch-verify", "--patches"], "--patches", True),
    (["patch-verify", "--tag"], "--tag", False),
    (["versions", "--source"], "--source", False),
    (["adopt", "v0.20.0", "--source"], "--source", False),
]


@pytest.mark.parametrize(("args", "option", "path"), OPTIONS, ids=[" ".join(o[0]) for o in OPTIONS])
def test_an_empty_option_is_refused_before_any_work(
    cli: Cli, tmp_path: Path, args: list[str], option: str, path: bool
) -> None:
    """No gsvendor.yaml here: the empty option is named, not the missing configuration, and nothing
    is written (no download cache either)."""
    for value in ["", " "] + (["."] if path else []):
        command = [*args, value, "verify"] if args[0].startswith("-") else [*args, value]
        result = cli(tmp_path, *command)
        expected = f"error: {option} {EMPTY_PATH if path else EMPTY_TEXT}\n"
        assert (result.returncode, result.stdout, result.stderr) == (2, "", expected), (command, value)
    assert list(tmp_path.iterdir()) == []


def test_a_given_value_passes_the_option_through(cli: Cli, tmp_path: Path) -> None:
    """A real value is no error of the option: the command goes on and stops at the missing configuration."""
    result = cli(tmp_path, "verify", "--source", "x.tar.gz")
    assert result.returncode == 2
    assert result.stderr.startswith("error: gsvendor.yaml: not found")
