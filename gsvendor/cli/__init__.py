"""The command line: parse arguments, call the workflows, map typed errors to exit codes.

Exit codes: 0 ok, 1 a check failed, 2 usage or input error. Every user mistake is one line on
stderr (``error: …``), never a traceback. Heavy modules are imported inside commands so
``gsvendor --help`` starts fast.

The package: app.py (the typer application, global options, error mapping), commands.py (one
function per command), adopt.py (the adopt command), main.py (the console entry point).
"""

# isort: off
from gsvendor.cli import commands  # registers the commands on app
from gsvendor.cli import adopt  # after the others: it is listed last in gsvendor --help

# isort: on
from gsvendor.cli.app import app
from gsvendor.cli.main import main

__all__ = ["adopt", "app", "commands", "main"]
