"""Options that may not be given empty (cli/options.py's ``text``): an unset CI variable
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
    (["adopt", "v0.20.0", "--repository"], "--repository", False),
    (["sync", "v0.20.0", "--source"], "--source", False),
    (["sync", "v0.20.0", "--helm"], "--helm", False),
    (["verify", "--helm"], "--helm", False),
    (["diff", "--helm"], "--helm", False),
    (["check-images", "--allow"], "--allow", False),  # an empty prefix would allow every image
    (["check-images", "--helm"], "--helm", False),
    (["check-images", "--registry-config"], "--registry-config", True),
    (["check-images", "--insecure-registry"], "--insecure-registry", False),
    (["check-manifests", "--allow"], "--allow", False),
    (["check-manifests", "--helm"], "--helm", False),
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


def test_every_option_taking_text_or_a_path_is_in_the_list_above() -> None:
    """An option added later that takes text or a path gets options.text and a row in OPTIONS: the
    options of every command, from typer's own parameters (numbers and flags take no empty value)."""
    import typer.main

    from gsvendor.cli import app

    def options(command: object, name: str) -> set[tuple[str, str]]:
        found = {
            (name, param.opts[0])
            for param in command.params  # type: ignore[attr-defined]
            if param.param_type_name == "option" and not param.is_flag and not param.count
            if param.type.name not in ("integer", "float", "int range", "float range")
        }
        for sub, child in getattr(command, "commands", {}).items():
            found |= options(child, sub)
        return found

    listed = {(args[0] if not args[0].startswith("-") else "", option) for args, option, _ in OPTIONS}
    assert options(typer.main.get_command(app), "") == listed
