"""The command line: parse arguments, call the workflows, map typed errors to exit codes (0 ok, 1 a
check failed, 2 usage or input error: one ``error: …`` line, never a traceback). Heavy modules are
imported inside commands so ``gsvendor --help`` starts fast."""

# isort: off
from gsvendor.cli import commands  # registers the commands on app
from gsvendor.cli import adopt  # after the others: it is listed last in gsvendor --help

# isort: on
from gsvendor.cli.app import app
from gsvendor.cli.main import main

__all__ = ["adopt", "app", "commands", "main"]
