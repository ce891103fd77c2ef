"""The parameters the commands share or declare at length, as ``Annotated`` types, and the parser
that refuses an option given empty."""

import math
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from gsvendor.errors import UsageError


def text(*names: str, metavar: str, help: str, kind: Any = str) -> Any:
    """``Annotated[kind | None, typer.Option(*names, …)]`` (``kind``: ``str``, ``list[str]`` or ``Path``) refusing
    an empty value (an unset CI variable, not "the default") and, for a ``Path``, "." (typer's reading of an empty
    one): :class:`~gsvendor.errors.UsageError` (exit 2) while the command line is parsed."""
    option = names[0]

    def parse(value: str) -> str:
        if value.strip() in (("", ".") if kind is Path else ("",)):
            problem = "is empty or '.'; give a file, or" if kind is Path else "is empty;"
            raise UsageError(f"{option} {problem} leave it out for the default", key=option, value=value)
        return value

    return Annotated[kind | None, typer.Option(*names, help=help, metavar=metavar, parser=parse)]


def finite(param: typer.CallbackParam, value: float) -> float:
    """A number option's ``value`` unless NaN or infinite, which click's ranges let through (``--lock-timeout nan``
    waited for ever, ``--timeout nan`` failed in the socket). Raises :class:`UsageError` (exit 2)."""
    if not math.isfinite(value):
        raise UsageError(f"{param.opts[0]}: {value} is not a number", key=param.opts[0], value=value)
    return value


source = partial(text, "--source", "-s", metavar="SOURCE")  # an upstream source as help= says
path = partial(text, kind=Path)
texts = partial(text, kind=list[str])

ConfigFile = path(
    "--config",
    "-c",
    metavar="FILE",
    help="Configuration file (default: the nearest gsvendor.yaml in this folder or a parent).",
)
# "." would put the cache (and its stamps) in the project
CacheDir = path(
    "--cache-dir", metavar="DIR", help="Cache (default: $GSVENDOR_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/gsvendor)"
)
UPSTREAM = "Upstream source: a checkout folder, a .tar.gz, an http(s) tarball URL or a git URL "
UPSTREAM += "(default: kserve-TAG.tar.gz in $GSVENDOR_UPSTREAM_DIR when there, else "
Source = source(help=UPSTREAM + "the GitHub archive of TAG).")
PatchSource = source(help=UPSTREAM + "the configured upstream git URL).")
LockedSource = source(
    help="Read upstream here instead of the lock's source: the same bytes elsewhere (the lock's sha256 must match)."
)
GoSource = source(
    help="Read upstream's go.mod from SOURCE (as sync takes it) instead of the lock, which records it "
    "(no network); a lock without it reads its own source."
)
AdoptSource = source(
    help="Upstream source: a .tar.gz, a checkout folder, a tarball URL or a git URL; "
    "with --detect a folder of <name>-<tag>.tar.gz archives or a git URL."
)
Tag = text("--tag", "-t", metavar="TAG", help="Upstream tag (default: Dockerfile.llmisvc's KSERVE_VERSION).")
Patches = path("--patches", metavar="DIR", help="Patch folder (default: patches from gsvendor.yaml).")
PatchJunit = path("--junit", metavar="FILE", help="Also write JUnit XML, one test per patch.")
Repository = text("--repository", metavar="OWNER/NAME", help="The upstream GitHub repository written to gsvendor.yaml.")
Helm = text(
    "--helm",
    metavar="PATH",
    help="helm binary (for charts vendored rendered) (default: $GSVENDOR_HELM, .tools/bin/helm, PATH).",
)
RenderHelm = text("--helm", metavar="PATH", help="helm binary (default: $GSVENDOR_HELM, .tools/bin/helm, PATH).")
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
ChartDirs = Annotated[
    list[Path] | None,
    typer.Argument(metavar="[CHART_DIR]...", help="Chart folders [default: every configured chart's dest]."),
]
RendersJunit = path("--junit", metavar="FILE", help="Write JUnit XML, a test case per chart × variant.")
number = partial(typer.Option, callback=finite)
Timeout = Annotated[float, number(help="HTTP timeout per request, seconds.", min=0.1, metavar="SECONDS")]
Retries = Annotated[int, typer.Option(help="HTTP retries on 5xx and timeouts.", min=0, max=10, metavar="N")]
MaxTime = Annotated[
    float, number(help="Seconds for the whole fetch: every HTTP attempt, or every git run.", min=1, metavar="SECONDS")
]
MinRate = Annotated[
    float, number(help="Bytes/s below which a download is dropped (averaged over --timeout).", min=0, metavar="BYTES/S")
]
# a string: "./-" is a file named "-", which a Path would read as "-" (stdout)
Report = text(
    "--report",
    metavar="FILE",
    help="Write the Markdown upgrade report from the lock's tag to TAG to this file "
    "(- for stdout, the plan or summary then goes to stderr).",
)
PatchReport = path(
    "--patch-report", metavar="FILE", help="gsvendor patch-verify --json output to list in the upgrade report."
)
RegistryConfig = path(
    "--registry-config",
    metavar="FILE",
    help="Docker config.json with registry credentials "
    "[default: $DOCKER_CONFIG/config.json, else ~/.docker/config.json].",
)
InsecureRegistry = texts(
    "--insecure-registry", metavar="HOST[:PORT]", help="Ask this registry over plain HTTP, repeatable."
)
# an empty prefix would allow every image
ImagesAllow = texts(
    "--allow", metavar="PREFIX", help="Allowed prefix, repeatable; replaces images.allow of the configuration."
)
ManifestsAllow = texts("--allow", metavar="PREFIX", help="With --images: allowed prefix, repeatable (as check-images).")
