"""One function per command: parse its options, call one workflow, print through gsvendor.report."""

# Each command imports its workflow and report modules itself: imported here, all of them cost
# 1.4-1.8 s of start-up on top of the CLI's 0.4-0.65 s (measured on the loaded 2-core build
# machine), paid by every command and by --help.

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from gsvendor.cli.app import (
    command,
    fetch_options,
    load_config_for,
    project_guard,
    show_status,
    stderr_console,
    stdout_console,
    warn,
)
from gsvendor.cli.chart_dirs import check_rendered
from gsvendor.cli.options import (
    ChartDirsArgument,
    HelmOption,
    ImagesAllowOption,
    InsecureRegistryOption,
    JsonOption,
    LockedSourceOption,
    ManifestsAllowOption,
    MaxTimeOption,
    MinRateOption,
    PatchReportOption,
    RegistryConfigOption,
    RenderHelmOption,
    RendersJunitOption,
    ReportOption,
    RetriesOption,
    SourceOption,
    TimeoutOption,
    given,
)
from gsvendor.errors import CheckFailed, UsageError


@command(short_help="Vendor upstream TAG's charts with the overlays applied.")
def sync(
    ctx: typer.Context,
    tag: Annotated[
        str | None,
        typer.Argument(
            metavar="[TAG]",
            help="Upstream tag, e.g. v0.20.0 (default: the KSERVE_VERSION pinned in Dockerfile.llmisvc).",
        ),
    ] = None,
    source: SourceOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Print the plan; write nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace hand edits, keeping a backup of them.")] = False,
    json_output: JsonOption = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="A table per chart and every file change, not only the summary.")
    ] = False,
    timeout: TimeoutOption = 10.0,
    retries: RetriesOption = 3,
    max_time: MaxTimeOption = 300.0,
    min_rate: MinRateOption = 1024.0,
    helm: HelmOption = None,
    report_file: ReportOption = None,
    show_diff: Annotated[
        bool, typer.Option("--diff", help="Print the unified diff of the output for the upgrade (lock's tag → TAG).")
    ] = False,
    patch_report: PatchReportOption = None,
) -> None:
    """Vendor the charts of upstream TAG into the output folder, with the overlays applied.

    The new tree is built aside and swapped in only when everything succeeded; a lock file
    records the source and the sha256 of every upstream and result file. Hand edits that the
    lock and the overlays do not explain stop the sync (exit 1) unless --force.

    The upgrade review: with --dry-run from a lock at another tag, or with --report FILE, a
    Markdown report of what the upgrade changes per chart (files, values keys and defaults,
    image references, CRDs, overlays); --diff prints the unified diff of the output.

    Examples:

      gsvendor sync v0.20.0 --source ../shared/upstream/kserve-v0.20.0.tar.gz

      gsvendor sync v0.21.0 --dry-run   # plan and upgrade report, nothing written

      gsvendor sync v0.21.0 --dry-run --report upgrade.md --diff

      gsvendor sync   # the version Dockerfile.llmisvc pins
    """
    from gsvendor.report import console as report
    from gsvendor.workflows import sync as workflow

    if tag is not None and tag.lower() in ("true", "false", "yes", "no", "on", "off"):
        raise UsageError(f"{tag!r} is not an upstream tag: the flags (--dry-run, --force, --json, -v) take no value")
    config = load_config_for(ctx)
    report_to_stdout = report_file == "-"
    if report_to_stdout and (json_output or show_diff):
        mixed = "--json" if json_output else "--diff"
        raise UsageError(f"--report - writes the report to stdout, which {mixed} would write into: use --report FILE")

    def present(reviewed: workflow.Reviewed) -> None:
        out = stdout_console()
        if json_output:
            report.print_json(out, report.sync_summary(reviewed.result))
        else:  # with --report - stdout is the report alone: the summary goes where progress goes
            report.print_sync(stderr_console() if report_to_stdout else out, reviewed.result, verbose=verbose)
        if reviewed.diffs is not None:
            report.print_diffs(out, reviewed.diffs)
        if reviewed.upgrade is not None:
            from gsvendor.report.upgrade import markdown

            text = markdown(reviewed.upgrade)
            if report_file is None or report_to_stdout:
                out.out(text, end="", highlight=False)
            else:
                _write_report(Path(report_file), text)
                if not json_output:
                    out.say("upgrade report: {}", report_file)

    review = workflow.Review(
        report=report_file is not None or patch_report is not None,
        diff=show_diff,
        patch_report=patch_report,
        automatic=dry_run and not json_output and report_file is None,
    )
    workflow.sync_reviewed(
        config,
        tag,
        source,
        fetch_options(ctx, timeout=timeout, retries=retries, max_time=max_time, min_rate=min_rate),
        dry_run=dry_run,
        force=force,
        helm=helm,
        review=review,
        guard=project_guard(ctx, config),
        progress=partial(show_status, ctx),
        note=lambda line: stderr_console().labelled("note:", "", line),
        warn=warn,
        present=present,
    )


def _write_report(path: Path, text: str) -> None:
    """Write the report file (its folder is created); exit 2 when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        from gsvendor.errors import write_failure

        raise UsageError(f"--report: {path}: {write_failure(path, exc)}") from None


def _diffs_json(diffs: list[Any]) -> list[dict[str, str]]:
    """``--json``'s list of file diffs (:class:`~gsvendor.vendoring.compare.FileDiff`): path, status, diff."""
    return [{"path": d.path, "status": d.status, "diff": d.text} for d in diffs]


@command(short_help="Prove the output is the locked upstream plus the overlays.")
def verify(
    ctx: typer.Context,
    source: LockedSourceOption = None,
    json_output: JsonOption = False,
    helm: HelmOption = None,
) -> None:
    """Prove the output is upstream plus the declared overlays: rebuild from the lock and compare.

    Exit 0 when every file is identical; exit 1 with a unified diff (expected → actual) of
    every undeclared change. --source reads the locked upstream from another place (a copy of
    the archive, a mirror); its sha256 must still be the lock's.

    Examples:

      gsvendor verify

      gsvendor verify --source ~/Downloads/kserve-v0.20.0.tar.gz
    """
    from gsvendor.report import console as report
    from gsvendor.workflows import sync as workflow

    config = load_config_for(ctx)
    with project_guard(ctx, config), show_status(ctx, "rebuilding from the lock"):
        lock, diffs = workflow.verify(config, fetch_options(ctx), helm, source=source)
    out = stdout_console()
    if json_output:
        report.print_json(out, {"tag": lock.tag, "ok": not diffs, "differences": _diffs_json(diffs)})
    else:
        report.print_diffs(out, diffs)
    if diffs:
        listed = ", ".join(d.path for d in diffs[:10]) + (" …" if len(diffs) > 10 else "")
        raise CheckFailed(f"verify failed: {len(diffs)} file(s) differ from {lock.tag} + overlays: {listed}")
    if not json_output:
        out.say("[green]ok[/]: output is upstream {} plus the declared overlays", lock.tag)


@command("check-images", short_help="Fail on any image outside the allowed registries.")
def check_images(
    ctx: typer.Context,
    chart_dirs: ChartDirsArgument = None,
    allow: ImagesAllowOption = None,
    json_output: JsonOption = False,
    junit: RendersJunitOption = None,
    helm: RenderHelmOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List allowed references too.")] = False,
    resolve: Annotated[
        bool, typer.Option("--resolve", help="Ask the registries: every allowed reference exists at its tag or digest.")
    ] = False,
    compare_upstream: Annotated[
        bool,
        typer.Option(
            "--compare-upstream", help="With --resolve: mirrors (images.mirrors) have their upstream's digest."
        ),
    ] = False,
    resolve_jobs: Annotated[
        int | None,
        typer.Option("--resolve-jobs", metavar="N", min=1, max=64, help="Parallel registry lookups [default: 8]."),
    ] = None,
    registry_config: RegistryConfigOption = None,
    insecure_registry: InsecureRegistryOption = None,
) -> None:
    """Fail on any image reference outside the allowed registries (default gsoci.azurecr.io/).

    Renders each chart with helm in its variants -- defaults, every feature switch on, and the
    variants declared under images.charts in the configuration -- and searches the manifests
    (containers of every kind, custom resources with pod templates, *_IMAGE variables), the JSON
    in ConfigMap data and values.yaml. Exit 0 clean, 1 offenders or render failures, 2 usage error.

    With --resolve each allowed reference is looked up in its registry (HEAD of the manifest): exit 1
    when a tag, digest or repository is missing, credentials are refused, or a registry is unreachable;
    with --compare-upstream also when a mirror's digest differs from its upstream's at the same tag.

    Examples:

      gsvendor check-images

      gsvendor check-images ~/src/kserve/charts/kserve-resources --json

      gsvendor check-images --resolve --compare-upstream --junit images.xml
    """
    from gsvendor.workflows import check_images as workflow

    check_rendered(
        ctx,
        "check-images",
        chart_dirs,
        partial(
            workflow.run,
            allow=allow,
            helm=helm,
            resolve=resolve,
            compare_upstream=compare_upstream,
            jobs=resolve_jobs,
            registry_config=registry_config,
            insecure=insecure_registry,
        ),
        "images",
        json_output=json_output,
        junit=junit,
        verbose=verbose,
    )


@command("check-manifests", short_help="Fail on any rendered custom resource its CRD rejects.")
def check_manifests(
    ctx: typer.Context,
    chart_dirs: ChartDirsArgument = None,
    json_output: JsonOption = False,
    junit: RendersJunitOption = None,
    helm: RenderHelmOption = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Counts per variant and the label coverage too.")
    ] = False,
    images: Annotated[
        bool, typer.Option("--images", help="Run check-images on the same rendering too (one helm run per variant).")
    ] = False,
    allow: ManifestsAllowOption = None,
) -> None:
    """Fail on any rendered custom resource the API server would reject or prune.

    Renders each chart in check-images' variants, collects the CustomResourceDefinitions of the
    charts (rendered, crds/, files/) and validates every object whose group and kind one defines
    against the served version's openAPIV3Schema: unknown fields are pruned unless
    x-kubernetes-preserve-unknown-fields, then type, enum, required, pattern, min/max, format.
    Kinds no CRD defines are counted, not checked. Exit 0 clean, 1 findings or render failures,
    2 usage error.

    Examples:

      gsvendor check-manifests

      gsvendor check-manifests --images --junit manifests.xml

      gsvendor check-manifests helm/kserve-runtime-configs --json
    """
    from gsvendor.workflows import check_manifests as workflow

    run = partial(workflow.run, helm=helm, images=images, allow=allow)
    check_rendered(ctx, "check-manifests", chart_dirs, run, "manifests", json_output, junit, verbose)


@command(short_help="Show the delta from upstream to the vendored charts.")
def diff(
    ctx: typer.Context,
    chart: Annotated[str | None, typer.Argument(metavar="[CHART]", help="Only this chart.")] = None,
    stat: Annotated[bool, typer.Option("--stat", help="A table of files and line counts instead of diffs.")] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the diffs (with --stat: the table) as JSON.")
    ] = False,
    source: LockedSourceOption = None,
    helm: HelmOption = None,
) -> None:
    """Show the delta from upstream to the vendored charts, per file, as unified diffs.

    What a reviewer of a version bump reads: every overlay and Giant Swarm-only file. Upstream
    is the lock's tag, read from the lock's source or, as verify reads it, from --source.

    Examples:

      gsvendor diff

      gsvendor diff kserve-resources --stat

      gsvendor diff --source ~/Downloads/kserve-v0.20.0.tar.gz
    """
    from gsvendor.report import console as report
    from gsvendor.workflows import sync as workflow

    config = load_config_for(ctx)
    with project_guard(ctx, config):
        lock, diffs = workflow.diff(config, fetch_options(ctx), chart, helm, source=source)
    out = stdout_console()
    if json_output:
        listed = {"stat": report.diff_stat(diffs)} if stat else {"files": _diffs_json(diffs)}
        report.print_json(out, {"tag": lock.tag, **listed})
    elif stat:
        report.print_diff_stat(out, diffs)
    else:
        report.print_diffs(out, diffs)


@command("patch-verify", short_help="Check that the patch series applies to upstream.")
def patch_verify(
    ctx: typer.Context,
    source: Annotated[
        str | None,
        given(
            "--source",
            "-s",
            help="Upstream source: a checkout folder, a .tar.gz, an http(s) tarball URL or a git URL "
            "(default: kserve-TAG.tar.gz in $GSVENDOR_UPSTREAM_DIR when there, else the configured upstream git URL).",
            metavar="SOURCE",
        ),
    ] = None,
    tag: Annotated[
        str | None,
        given(
            "--tag",
            "-t",
            metavar="TAG",
            help="Upstream tag (default: the KSERVE_VERSION pinned in Dockerfile.llmisvc).",
        ),
    ] = None,
    patches: Annotated[
        Path | None,
        given("--patches", help="Patch folder (default: patches from gsvendor.yaml).", metavar="DIR", path=True),
    ] = None,
    json_output: JsonOption = False,
    junit: Annotated[
        Path | None, given("--junit", help="Also write JUnit XML, one test per patch.", metavar="FILE", path=True)
    ] = None,
    timeout: TimeoutOption = 10.0,
    retries: RetriesOption = 3,
) -> None:
    """Check that the patch series applies to upstream, in order, as the llmisvc image build applies it.

    Fetches only the files the patches touch (a sparse clone for a git source), applies every
    *.patch in name order with git apply, and reports each as applies, does not apply (with the
    failing hunks and upstream's current lines), already upstream (drop it) or malformed.
    Exit 0 when all apply (or the series is empty), 1 otherwise, 2 on a usage or input error.

    Examples:

      gsvendor patch-verify

      gsvendor patch-verify --tag v0.21.0 --source ../kserve --junit patches.xml
    """
    from gsvendor.report import build as report_build
    from gsvendor.report import console as report
    from gsvendor.report.junit import write_junit
    from gsvendor.workflows.patch_verify import verify_series

    config = load_config_for(ctx)
    with show_status(ctx, "checking the patch series"):
        result = verify_series(config, tag, source, fetch_options(ctx, timeout=timeout, retries=retries), patches)
    if junit is not None:
        write_junit(junit, "patch-verify", report_build.series_cases(result))
    out = stdout_console()
    if json_output:
        report.print_json(out, result.as_json())
    else:
        report_build.print_series(out, result)
    if not result.ok:
        raise CheckFailed(*report_build.series_problems(result))
    if not json_output:
        out.say("[green]ok[/]: {}", report_build.series_outcome(result).removeprefix("ok: "))


@command(short_help="List every pin of the upstream version; --check they agree.")
def versions(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Print only problems, or one ok line (for CI and pre-commit).")
    ] = False,
    json_output: JsonOption = False,
    source: Annotated[
        str | None,
        given(
            "--source",
            "-s",
            help="Read upstream's go.mod from SOURCE (as sync takes it) instead of the lock, which records it "
            "(no network); a lock without it reads its own source.",
            metavar="SOURCE",
        ),
    ] = None,
    no_go: Annotated[bool, typer.Option("--no-go", help="Skip the Go builder check (no upstream read).")] = False,
) -> None:
    """List every place the upstream version is written and check they follow the pin.

    The pin is ARG KSERVE_VERSION of Dockerfile.llmisvc (Renovate bumps it). Also compared:
    the other Dockerfiles, each chart's Chart.yaml appVersion and values.yaml kserve.version,
    the lock's tag, and each golang builder against upstream go.mod's go and toolchain lines.
    Exit 1 names every place that disagrees.

    Examples:

      gsvendor versions

      gsvendor versions --check
    """
    from gsvendor.report import build as report_build
    from gsvendor.report import console as report
    from gsvendor.workflows.versions import check as check_versions
    from gsvendor.workflows.versions import no_dockerfiles

    config = load_config_for(ctx)
    nothing = no_dockerfiles(config)  # also validates dockerfiles/pinDockerfile
    config.require_outputs()
    out = stdout_console()
    if nothing and json_output:
        report.print_json(out, {"checked": False, "note": nothing, "problems": [], "warnings": []})
    elif nothing:
        out.say("[green]ok[/]: {}", nothing)
    if nothing:
        return
    with project_guard(ctx, config):  # the spinner only while upstream is read, not when the lock answers
        result = check_versions(config, source, fetch_options(ctx), go=not no_go, progress=partial(show_status, ctx))
    if json_output:
        report.print_json(out, result.as_json())
    elif check:
        for warning in result.warnings:
            warn(warning)
    else:
        report_build.print_versions(out, result)
    if result.problems:
        raise CheckFailed(*result.problems)
    if check and not json_output:
        out.say("[green]ok[/]: {}", report_build.versions_agree(result))
    elif not json_output:
        out.say("[green]ok[/]: every place follows {}'s {}", result.pin.file, result.pin.value)


@command(short_help="Regenerate values.schema.json and README.md of the charts.")
def generate(
    ctx: typer.Context,
    charts: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[CHART]...", help="Only these charts (default: every configured chart).", show_default=False
        ),
    ] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 naming each stale file.")] = False,
    json_output: JsonOption = False,
) -> None:
    """Regenerate values.schema.json and README.md of the vendored charts on disk.

    values.schema.json where a chart has .schema.yaml (as helm-values-schema-json v2.5.0 writes
    it, and normalized as schemalint does when gsvendor.yaml sets generate.schema.normalize:
    schemalint), README.md where it has README.md.gotmpl (as helm-docs v1.14.2 writes it).
    Offline and in-process; sync runs the same generation. With --check, exit 1 listing every
    stale file (for CI and pre-commit), exit 0 when all are fresh.

    Examples:

      gsvendor generate

      gsvendor generate --check kserve-resources
    """
    from gsvendor.workflows import generate as workflow

    config = load_config_for(ctx)
    with project_guard(ctx, config):
        results = workflow.generate(config, charts, check=check)
    stale = [path for result in results for path in result.stale]
    failed = bool(check and stale)
    if json_output:
        from gsvendor.report.console import print_json

        data = {"check": check, "ok": not failed, "charts": [r.spec.name for r in results]}
        print_json(stdout_console(), {**data, "stale" if check else "written": stale})
        if failed:
            raise typer.Exit(1)
        return
    if failed:
        for path in stale:
            stderr_console().say("stale: {}", path)
        raise CheckFailed(f"generate --check failed: {len(stale)} generated file(s) out of date; run gsvendor generate")
    out = stdout_console()
    for path in stale:
        out.say("wrote {}", path)
    if not ctx.obj.quiet and not stale:
        out.print(f"[green]ok[/]: the generated files of {len(results)} chart(s) are up to date")
