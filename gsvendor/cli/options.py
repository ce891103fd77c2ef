"""The parameters the commands share or declare at length: typed ``Annotated`` aliases, and the
parser that refuses an option given empty."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from gsvendor.errors import UsageError


def non_empty(option: str, *, path: bool = False) -> Callable[[str], str]:
    """The parser (``typer.Option(parser=…)``) of ``option``, which may not be given empty: an empty
    value is a mistake (an unset CI variable), not "the default". ``path``: "." is refused too, the
    folder typer would read an empty path as. Raises :class:`~gsvendor.errors.UsageError` (exit 2)
    while the command line is parsed, before any work."""

    def parse(value: str) -> str:
        if path and value.strip() in ("", "."):
            raise UsageError(
                f"{option} is empty or '.'; give a file, or leave it out for the default", key=option, value=value
            )
        if not value.strip():
            raise UsageError(f"{option} is empty; leave it out for the default", key=option, value=value)
        return value

    return parse


def given(*names: str, help: str, metavar: str, path: bool = False, **extra: Any) -> Any:
    """``typer.Option(*names, …)`` of an option taking text (``path``: a file or folder) that may not
    be given empty (:func:`non_empty` of ``names[0]``, the long name)."""
    return typer.Option(*names, help=help, metavar=metavar, parser=non_empty(names[0], path=path), **extra)


HelmOption = Annotated[
    str | None,
    given(
        "--helm",
        help="helm binary (for charts vendored rendered) (default: $GSVENDOR_HELM, .tools/bin/helm, PATH).",
        metavar="PATH",
    ),
]
RenderHelmOption = Annotated[str | None, given("--helm", metavar="PATH", help="The helm binary.")]
SourceOption = Annotated[
    str | None,
    given(
        "--source",
        "-s",
        help="Upstream source: a checkout folder, a .tar.gz, an http(s) tarball URL or a git URL "
        "(default: kserve-TAG.tar.gz in $GSVENDOR_UPSTREAM_DIR when there, else the GitHub archive of TAG).",
        metavar="SOURCE",
    ),
]
LockedSourceOption = Annotated[
    str | None,
    given(
        "--source",
        "-s",
        help="Read upstream here instead of the lock's source: the same bytes elsewhere (the lock's sha256 "
        "must match).",
        metavar="SOURCE",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
ChartDirsArgument = Annotated[
    list[Path] | None,
    typer.Argument(metavar="[CHART_DIR]...", help="Chart folders [default: every configured chart's dest]."),
]
# `--junit=` (an unset CI variable) is no file
RendersJunitOption = Annotated[
    Path | None, given("--junit", metavar="FILE", help="Write JUnit XML, a test case per chart × variant.", path=True)
]
TimeoutOption = Annotated[float, typer.Option(help="HTTP timeout per request, seconds.", min=0.1, metavar="SECONDS")]
RetriesOption = Annotated[int, typer.Option(help="HTTP retries on 5xx and timeouts.", min=0, max=10, metavar="N")]
MaxTimeOption = Annotated[
    float,
    typer.Option(help="Seconds for the whole fetch: every HTTP attempt, or every git run.", min=1, metavar="SECONDS"),
]
MinRateOption = Annotated[
    float,
    typer.Option(help="Bytes/s below which a download is dropped (averaged over --timeout).", min=0, metavar="BYTES/S"),
]
ReportOption = Annotated[
    str | None,  # a string: "./-" is a file named "-", which a Path would read as "-" (stdout)
    given(
        "--report",
        help="Write the Markdown upgrade report from the lock's tag to TAG to this file "
        "(- for stdout, the plan or summary then goes to stderr).",
        metavar="FILE",
    ),
]
PatchReportOption = Annotated[
    Path | None,
    given(
        "--patch-report",
        metavar="FILE",
        help="gsvendor patch-verify --json output to list in the upgrade report.",
        path=True,
    ),
]
RegistryConfigOption = Annotated[
    Path | None,
    given(
        "--registry-config",
        metavar="FILE",
        help="Docker config.json with registry credentials "
        "[default: $DOCKER_CONFIG/config.json, else ~/.docker/config.json].",
        path=True,
    ),
]
InsecureRegistryOption = Annotated[
    list[str] | None,
    given("--insecure-registry", metavar="HOST[:PORT]", help="Ask this registry over plain HTTP, repeatable."),
]
# an empty prefix would allow every image
ImagesAllowOption = Annotated[
    list[str] | None,
    given("--allow", metavar="PREFIX", help="Allowed prefix, repeatable; replaces images.allow of the configuration."),
]
ManifestsAllowOption = Annotated[
    list[str] | None,
    given("--allow", metavar="PREFIX", help="With --images: allowed prefix, repeatable (as check-images)."),
]
