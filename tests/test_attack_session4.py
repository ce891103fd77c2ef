"""Hostile tests of session 4's fast paths (the attack session): each reproduces a defect found."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "args",
    [
        ["--help", "sync"],  # the group's help comes first: it lists every command
        ["-h", "verify"],
        ["-q", "--help", "diff"],
        ["-qc", "verify", "sync"],  # -q and -c verify: "verify" is the config file, not the command
    ],
)
def test_the_pruned_app_reads_args_as_the_whole_app_when_the_command_follows_odd_options(args: list[str]) -> None:
    """Whatever stands before the command name, the pruned app prints and exits as the whole app."""
    from typer.testing import CliRunner

    from gsvendor.cli.app import app
    from gsvendor.cli.main import only_the_invoked_command

    pruned = only_the_invoked_command(app, args)
    whole, part = CliRunner().invoke(app, args), CliRunner().invoke(pruned, args)
    assert (part.exit_code, part.output) == (whole.exit_code, whole.output)
