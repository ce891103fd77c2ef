"""The typer application: global options, error handling and the helpers every command uses."""

import contextlib
import errno
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from gsvendor import __version__
from gsvendor.cli import options
from gsvendor.errors import CheckFailed, GsvendorError, OutputError, UsageError
from gsvendor.report.console import print_json

REPORT_HEAD = r"<\?xml[^>]*\?>\s*<testsuites|# (Upgrade|Downgrade) report: "  # report.junit's, report.upgrade's

app = typer.Typer(
    name="gsvendor",
    help=(
        "Vendor upstream KServe Helm charts with declared Giant Swarm overlays, and check them.\n\n"
        "Reads the nearest gsvendor.yaml, in the current folder or a parent (as git finds its root), "
        "unless --config names one. The global options may come before or after the command."
    ),
    epilog=(
        "Examples:\n\n\b\n"  # \b: click keeps the lines as written
        "  gsvendor sync v0.20.0 --source ../shared/upstream/kserve-v0.20.0.tar.gz\n"
        "  gsvendor verify\n"
        "  gsvendor diff kserve-resources\n"
        "  gsvendor patch-verify\n"
        "  gsvendor versions --check\n"
        "  gsvendor generate --check"
    ),
    no_args_is_help=True,
    add_completion=False,
    # click's plain help: rich's help formatter imports markdown and traceback support, ~0.1 s
    # of start-up before the first line; plain text also reads best in CI logs
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])

# the global options (the app callback's) with whether each takes a value; main() moves them in
# front of the command when given after it (`gsvendor sync -q`)
GLOBAL_OPTIONS = dict.fromkeys(["--config", "-c", "--cache-dir", "--lock-timeout"], True) | dict.fromkeys(
    ["--quiet", "-q"], False
)


def unwrap_help(text: str | None) -> str | None:
    """A docstring for --help: click joins and rewraps each paragraph to the terminal itself, so an
    indented paragraph (an example) is marked ``\\b`` for click to print as written, pasteable."""
    import inspect

    paragraphs = inspect.cleandoc(text or "").split("\n\n")
    return "\n\n".join("\b\n" + p if p.startswith(" ") else p for p in paragraphs) or text


@dataclass(frozen=True)
class Globals:
    """Options shared by every command. ``config`` is ``None`` for the nearest gsvendor.yaml."""

    config: Path | None
    cache_dir: Path | None
    quiet: bool
    lock_timeout: float

    @property
    def stamps(self) -> Path | None:
        """The validation stamps folder in the cache (:func:`gsvendor.yamlio.load_validated`)."""
        return self.cache_dir / "validated" if self.cache_dir else None


def _print_version(value: bool) -> None:
    if value:
        print(f"gsvendor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _globals(
    ctx: typer.Context,
    config: options.ConfigFile = None,
    cache_dir: options.CacheDir = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    lock_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds to wait for another gsvendor working in the same project before giving up (exit 2).",
            min=0,
            metavar="SECONDS",
            callback=options.finite,
        ),
    ] = 60.0,
    version: Annotated[
        bool,
        typer.Option("--version", help="Print gsvendor's version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    from gsvendor.files import default_cache_dir
    from gsvendor.journal_trust import trusted_cache

    cache = trusted_cache(default_cache_dir(cache_dir))
    ctx.obj = Globals(config=config, cache_dir=cache, quiet=quiet, lock_timeout=lock_timeout)


def console(stream: str) -> Any:
    """The console on ``stream`` (``"stdout"`` or ``"stderr"``): :func:`gsvendor.report.writer.open_console`'s."""
    from gsvendor.report.writer import open_console

    return open_console(getattr(sys, stream), stream)


def warn(line: str) -> None:
    """``warning: line`` on stderr, in yellow on a terminal."""
    console("stderr").labelled("warning:", "yellow", line)


def handles_errors(function: F) -> F:
    """Turn :class:`~gsvendor.errors.GsvendorError` into ``error: …`` on stderr and its exit code, and an
    ``OSError`` naming a path (a folder where a file belongs, a link loop) into ``error: PATH: reason``, exit 2."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except (GsvendorError, OSError, RuntimeError) as caught:
            name = caught.filename2 or caught.filename if isinstance(caught, OSError) else None
            if loop := re.fullmatch(r"Symlink loop from '(.*)'", str(caught), re.S):  # Python 3.11's Path.resolve
                caught, name = OSError(errno.ELOOP, os.strerror(errno.ELOOP)), loop[1]
            if not isinstance(caught, GsvendorError) and not isinstance(name, str):
                raise  # no path to name: a defect, whose traceback says where
            exc = caught if isinstance(caught, GsvendorError) else GsvendorError(f"{name}: {caught.strerror}")
            console("stderr").errors(exc.problems)  # one line each, escaped by the writer, no markup read
            if kwargs.get("json_output") and not isinstance(exc, CheckFailed):  # a failed check printed its JSON
                try:
                    print_json(console("stdout"), {"ok": False, "error": exc.as_json()})
                    sys.stdout.flush()
                except OutputError:  # > /dev/full: the error's line is out, its exit code stays; no second error
                    devnull = os.open(os.devnull, os.O_WRONLY)  # stdout's buffer and flush at exit are dropped
                    with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor (a StringIO)
                        os.dup2(devnull, sys.stdout.fileno())
                    os.close(devnull)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt as exc:  # SIGINT, SIGTERM, SIGHUP: say what state the output is in
            exit_interrupted(getattr(exc, "message", None))

    wrapper.__doc__ = unwrap_help(function.__doc__)  # every command's --help, also those added later
    return wrapper  # type: ignore[return-value]


def command(*, short_help: str) -> Callable[[F], F]:
    """Register a function as the command named after it (``_`` as ``-``), errors by :func:`handles_errors`."""
    return lambda f: app.command(f.__name__.replace("_", "-"), short_help=short_help)(handles_errors(f))


def load_config_for(ctx: typer.Context) -> Any:
    """The configuration: ``--config``, else the nearest gsvendor.yaml (the project root). A relative
    ``$GSVENDOR_UPSTREAM_DIR`` is made the root's (the README's ``../shared/upstream``, from any subfolder)."""
    from gsvendor.config import load_config

    config = load_config(ctx.obj.config, stamps=ctx.obj.stamps)
    if (folder := os.environ.get("GSVENDOR_UPSTREAM_DIR", "").strip()) and not os.path.isabs(folder):
        os.environ["GSVENDOR_UPSTREAM_DIR"] = os.path.normpath(config.root / folder)
    return config


def project_guard(ctx: typer.Context, config: Any) -> Any:
    """The project lock (:func:`gsvendor.vendoring.journal.exclusive`), its lines on stderr."""
    from gsvendor.vendoring.journal import exclusive

    # the console (rich, ~40 ms to import) only when the lock is held by another: renders start sooner
    return exclusive(config, ctx.obj.lock_timeout, lambda line: console("stderr").unlabelled(line))


def fetch_options(ctx: typer.Context, **http: Any) -> Any:
    """The :class:`~gsvendor.upstream.source.FetchOptions` of the globals and a command's ``http`` options."""
    from gsvendor.upstream.source import FetchOptions

    return FetchOptions(cache_dir=ctx.obj.cache_dir, progress=not ctx.obj.quiet and sys.stderr.isatty(), **http)


def show_status(ctx: typer.Context, message: str) -> Any:
    """A spinner on stderr for long work (a no-op when quiet or not a terminal)."""
    quiet = ctx.obj.quiet or not sys.stderr.isatty()
    return contextlib.nullcontext() if quiet else console("stderr").status(message)


def refuse_overwriting(option: str, path: Path | str | None, config: Any = None) -> None:
    """Raise :class:`UsageError` (exit 2, before any work) when ``path`` is a file that does not start as a
    report (:data:`REPORT_HEAD`): ``option`` replaces an earlier report, never gsvendor.yaml, the lock, a
    vendored chart's file, a patch or a Dockerfile given by mistake; nor is it written where sync writes in
    ``config``'s project (a :class:`~gsvendor.config.Config`; verify would call it a hand edit)."""
    if path is not None and str(path) != "-" and os.path.isfile(path):
        with contextlib.suppress(OSError), open(path, "rb") as handle:  # unreadable: the write says why
            if not re.match(REPORT_HEAD, handle.read(200).decode("utf-8", "replace")):
                raise UsageError(f"{option} {path}: refusing to overwrite a file that is no report gsvendor wrote")
    if path is not None and str(path) != "-" and config is not None and config.writes(Path(path)):
        raise UsageError(f"{option} {path}: sync writes there (the lock, the vendored charts); name another file")


def exit_interrupted(message: str | None = None) -> None:
    """Say ``message`` (what state the output is in) and end the process with 130 at once."""
    console("stderr").unlabelled(message or "interrupted; nothing was left half-written")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)  # worker threads (registry lookups, renders) must not keep the process alive
