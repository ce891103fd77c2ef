"""The console entry point: global options after the command, signals, usage errors in one line."""

from __future__ import annotations

import sys
from typing import Any

from gsvendor.cli.app import GLOBAL_OPTIONS, app, console, exit_interrupted
from gsvendor.errors import GsvendorError


def global_options_first(args: list[str]) -> list[str]:
    """``args`` with the global options after the command moved in front of it (``sync v0.20.0 -q`` reads
    as ``-q sync v0.20.0``); nothing after ``--`` moves."""
    import itertools

    command = _command_index(args)
    if command is None:
        return args
    moved: list[str] = []
    rest: list[str] = []
    tail = iter(args[command + 1 :])
    for arg in tail:
        name = arg.split("=", 1)[0]
        if arg == "--":
            rest += [arg, *tail]
        elif name in GLOBAL_OPTIONS:  # with its value, unless written --name=value or missing
            moved += [arg, *itertools.islice(tail, int(GLOBAL_OPTIONS[name] and "=" not in arg))]
        else:
            rest.append(arg)
    return [*args[:command], *moved, args[command], *rest]


def _command_index(args: list[str]) -> int | None:
    """The index of the first word in ``args`` that is no option nor a global option's value."""
    values = [False] + [GLOBAL_OPTIONS.get(arg) is True for arg in args]
    return next((i for i, arg in enumerate(args) if not arg.startswith("-") and not values[i]), None)


def failed_command(exc: Any, args: list[str]) -> str:
    """The command path (``gsvendor check-images``) whose --help explains the usage error ``exc``: its
    context's, else (click raises some without one) the command ``args`` name when only global options,
    spelled as listed, stand before it (``-qc FILE`` hides its value from :func:`_command_index`), else the group."""
    if getattr(exc, "ctx", None) is not None:
        return str(exc.ctx.command_path)
    index = _command_index(args)
    i = 0
    while index is not None and i < index:
        name, equals, _ = args[i].partition("=")
        if name not in GLOBAL_OPTIONS or (equals and not GLOBAL_OPTIONS[name]):
            return "gsvendor"
        i += 1 + int(GLOBAL_OPTIONS[name] and not equals)
    named = index is not None and i == index and args[index] in {info.name for info in app.registered_commands}
    return f"gsvendor {args[index]}" if named else "gsvendor"


def flag_value_hint(message: str, args: list[str]) -> str:
    """click's "unexpected extra argument" ``message``, naming the flag when the extra word follows an
    option (one taking a value would have consumed it): ``verify --json true``."""
    import itertools
    import re

    extra = re.fullmatch(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)", message)
    first = extra.group(1).split(" ")[0] if extra else None
    flags = [
        b for b, word in itertools.pairwise(args) if word == first and b.startswith("-") and b != "--" and "=" not in b
    ]
    return f"{message}: {flags[0]} is a flag and takes no value" if flags else message


def main() -> None:
    """Console-script entry point (also ``python -m gsvendor``): a usage error is one ``error:`` line, exit 2."""
    from gsvendor.signals import interrupt_on_termination

    interrupt_on_termination()  # as __main__ did: also when main() is called directly
    from gsvendor.report.layout import StrippedLines, drop_unreadable_size

    drop_unreadable_size()  # before any rich console reads them

    if sys.stderr is None:  # descriptor 2 closed (2>&-): the messages are discarded, the exit codes stay
        import os

        sys.stderr = open(os.devnull, "w")  # the process's stderr from now on: open until the end
    # --help and every other print: no line ends in spaces (rich pads its help panels with them);
    # a closed stdout (>&-) fails at the first write, one error line and exit 2
    sys.stdout = StrippedLines(sys.stdout)  # type: ignore[assignment]
    try:
        args = global_options_first(sys.argv[1:])
        code = app(args=args, prog_name="gsvendor", standalone_mode=False)
    except KeyboardInterrupt:
        exit_interrupted()
    except Exception as exc:
        if type(exc).__name__ == "Abort":  # click's form of a KeyboardInterrupt inside a command
            exit_interrupted()
        # outside a command: --help or --version into a full disk, an empty option (cli.options.text)
        if isinstance(exc, GsvendorError):
            console("stderr").errors(exc.problems)
            sys.exit(exc.exit_code)
        # click's usage errors (typer's parser): duck-typed, as typer ships its own copy of click
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            print(exc.format_message())
            sys.exit(0)
        message = flag_value_hint(" ".join(exc.format_message().split()), args)
        console("stderr").labelled("error:", "red", f"{message} (see: {failed_command(exc, args)} --help)")
        sys.exit(exc.exit_code)
    if code == 130:  # typer turns a KeyboardInterrupt inside a command into exit code 130
        exit_interrupted()
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
