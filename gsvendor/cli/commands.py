"""One function per command: parse its options, call one workflow, print through gsvendor.report.
check-images and check-manifests share their CHART_DIR handling and output (:func:`check_rendered`)."""

# Each command imports its workflow and report modules itself: all of them here would add
# 1.4-1.8 s to every command's start-up and to --help (measured on the 2-core build machine).

import contextlib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from gsvendor.cli import app, options
from gsvendor.cli.app import command, console, fetch_options, load_config_for, project_guard, show_status, warn
from gsvendor.errors import CheckFailed, ConfigError, UsageError, closest
from gsvendor.files import write_whole


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
    source: options.Source = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Print the plan; write nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace hand edits, keeping a backup of them.")] = False,
    json_output: options.Json = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="A table per chart and every file change, not only the summary.")
    ] = False,
    timeout: options.Timeout = 10.0,
    retries: options.Retries = 3,
    max_time: options.MaxTime = 300.0,
    min_rate: options.MinRate = 1024.0,
    helm: options.Helm = None,
    report_file: options.Report = None,
    show_diff: Annotated[
        bool, typer.Option("--diff", help="Print the unified diff of the output for the upgrade (lock's tag → TAG).")
    ] = False,
    patch_report: options.PatchReport = None,
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
    app.refuse_overwriting("--report", report_file, config)

    def present(result: workflow.SyncResult, upgrade: Any, diffs: list[Any] | None) -> None:
        out = console("stdout")
        text = None
        if upgrade is not None:
            from gsvendor.report.upgrade import markdown

            text, path = markdown(upgrade), Path(report_file or "-")
            try:  # first: a failure is then the only document on stdout (--json)
                if report_file is not None and not report_to_stdout:
                    write_whole(path, text.encode())
            except OSError as exc:
                from gsvendor.errors import write_failure

                raise UsageError(f"--report: {path}: {write_failure(path, exc)}") from None
        if json_output:
            report.print_json(out, report.sync_summary(result))
        else:  # with --report - stdout is the report alone: the summary goes where progress goes
            report.print_sync(console("stderr") if report_to_stdout else out, result, verbose=verbose)
        if diffs is not None:
            report.print_diffs(out, diffs)
        if text is not None and (report_file is None or report_to_stdout):
            out.out(text, end="", highlight=False)
        elif text is not None and not json_output:
            out.say("upgrade report: {}", report_file)

    workflow.sync_reviewed(
        config,
        tag,
        source,
        fetch_options(ctx, timeout=timeout, retries=retries, max_time=max_time, min_rate=min_rate),
        dry_run=dry_run,
        force=force,
        helm=helm,
        report=report_file is not None or patch_report is not None,
        show_diff=show_diff,
        patch_report=patch_report,
        automatic=dry_run and not json_output and report_file is None,
        guard=project_guard(ctx, config),
        progress=partial(show_status, ctx),
        note=lambda line: console("stderr").labelled("note:", "", line),
        warn=warn,
        present=present,
    )


def _diffs_json(diffs: list[Any]) -> list[dict[str, str]]:
    """``--json``'s list of file diffs (:class:`~gsvendor.vendoring.compare.FileDiff`): path, status, diff."""
    return [{"path": d.path, "status": d.status, "diff": d.text} for d in diffs]


@command(short_help="Prove the output is the locked upstream plus the overlays.")
def verify(
    ctx: typer.Context,
    source: options.LockedSource = None,
    json_output: options.Json = False,
    helm: options.Helm = None,
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
    out = console("stdout")
    if json_output:
        report.print_json(out, {"tag": lock.tag, "ok": not diffs, "differences": _diffs_json(diffs)})
    else:
        report.print_diffs(out, diffs)
    if diffs:
        listed = ", ".join(d.path for d in diffs[:10]) + (" …" if len(diffs) > 10 else "")
        raise CheckFailed(f"verify failed: {len(diffs)} file(s) differ from {lock.tag} + overlays: {listed}")
    if not json_output:
        out.say("[green]ok[/]: output is upstream {} plus the declared overlays", lock.tag)


@command(short_help="Fail on any image outside the allowed registries.")
def check_images(
    ctx: typer.Context,
    chart_dirs: options.ChartDirs = None,
    allow: options.ImagesAllow = None,
    json_output: options.Json = False,
    junit: options.RendersJunit = None,
    helm: options.RenderHelm = None,
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
    registry_config: options.RegistryConfig = None,
    insecure_registry: options.InsecureRegistry = None,
) -> None:
    """Fail on any image reference outside the allowed registries (default gsoci.azurecr.io/).

    Renders each chart with helm in its variants -- defaults, every feature switch on, and the
    variants declared under images.charts in the configuration -- and searches the manifests
    (containers of every kind, custom resources with pod templates, *_IMAGE variables), the JSON
    in ConfigMap data and values.yaml. Exit 0 clean, 1 offenders or render failures, 2 usage error.

    With --resolve each allowed reference is looked up in its registry (HEAD of the manifest): exit 1
    when a tag, digest or repository is missing, credentials are refused, or a registry is unreachable;
    with --compare-upstream (images.mirrors configured) also when a mirror's digest differs from its
    upstream's at the same tag.

    Examples:

      gsvendor check-images

      gsvendor check-images ~/src/kserve/charts/kserve-resources --json

      gsvendor check-images --resolve --junit images.xml
    """
    from gsvendor.workflows import check_images as workflow

    registry = {"resolve": resolve, "compare_upstream": compare_upstream, "jobs": resolve_jobs}
    registry |= {"registry_config": registry_config, "insecure": insecure_registry}
    run = partial(workflow.run, allow=allow, helm=helm, registry=registry)
    check_rendered(ctx, chart_dirs, run, "images", json_output, junit, verbose)


@command(short_help="Fail on any rendered custom resource its CRD rejects.")
def check_manifests(
    ctx: typer.Context,
    chart_dirs: options.ChartDirs = None,
    json_output: options.Json = False,
    junit: options.RendersJunit = None,
    helm: options.RenderHelm = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Counts per variant and the label coverage too.")
    ] = False,
    images: Annotated[
        bool, typer.Option("--images", help="Run check-images on the same rendering too (one helm run per variant).")
    ] = False,
    allow: options.ManifestsAllow = None,
) -> None:
    """Fail on any rendered custom resource the API server would reject or prune.

    Renders each chart in check-images' variants, collects the CustomResourceDefinitions of the
    charts given (rendered, crds/, files/: name the CRD charts too) and validates every object
    whose group and kind one defines against the served version's openAPIV3Schema: unknown fields
    are pruned unless x-kubernetes-preserve-unknown-fields, then type, enum, required, pattern,
    min/max, format. Kinds no CRD defines are counted, not checked. Exit 0 clean, 1 findings or render failures,
    2 usage error.

    Examples:

      gsvendor check-manifests

      gsvendor check-manifests --images --junit manifests.xml

      gsvendor check-manifests helm/kserve-crd helm/kserve-runtime-configs --json
    """
    from gsvendor.workflows import check_manifests as workflow

    run = partial(workflow.run, helm=helm, images=images, allow=allow)
    check_rendered(ctx, chart_dirs, run, "manifests", json_output, junit, verbose)


def check_rendered(
    ctx: typer.Context,
    chart_dirs: list[Path] | None,
    run: Callable[..., Any],
    report: str,
    json_output: bool,
    junit: Path | None,
    verbose: bool,
) -> None:
    """check-``report``: ``run(config, chart_dirs, progress=…)`` (the project guard held for the project's charts),
    printed by ``gsvendor.report.<report>``. Raises :class:`~gsvendor.errors.UsageError` (exit 2) for a CHART_DIR
    missing or unreadable, :class:`~gsvendor.errors.CheckFailed` (exit 1) when the run is not ok."""
    from gsvendor.config import find_config, load_config

    chart_dirs = chart_dirs or []  # a name past 255 bytes: pathlib's OSError, one line by handles_errors
    try:  # named chart folders need no gsvendor.yaml
        found = ctx.obj.config or (find_config() if chart_dirs else None)
    except ConfigError:
        config = None
    else:
        config = load_config(found, stamps=ctx.obj.stamps)
    app.refuse_overwriting("--junit", junit, config)
    # the first that is no chart: a missing one is said here, any other the check names in the order given
    path = next((path for path in chart_dirs if not (path / "Chart.yaml").is_file()), None)
    if path is not None and not path.exists():
        raise UsageError(f"{path}: no such chart folder{chart_folder_meant(path, config)}")
    # chart folders inside the project are its output too: a sync may be swapping them, or a
    # killed one left them half swapped (the guard completes it first); so are those of an output
    # folder that is a link to a folder elsewhere (helm -> /data/helm)
    inside = config is not None and (not chart_dirs or any(config.holds(folder) for folder in chart_dirs))
    with project_guard(ctx, config) if inside else contextlib.nullcontext():
        result = run(config, chart_dirs, progress=partial(show_status, ctx))
    # the report modules load once helm has rendered: nothing delays the first render
    import importlib

    from gsvendor.report.console import print_json
    from gsvendor.report.junit import write_junit

    module = importlib.import_module(f"gsvendor.report.{report}")
    if junit is not None:
        write_junit(junit, f"check-{report}", module.run_cases(result))
    if json_output:
        print_json(console("stdout"), module.run_json(result))
    else:
        module.print_run(console("stdout"), result, verbose=verbose)
    if not result.ok:
        raise CheckFailed(module.run_failure(result))


def chart_folder_meant(path: Path, config: Any) -> str:
    """What to give for a missing CHART_DIR: ``"; did you mean helm/kserve-resources?"`` when named (nearly)
    as a synced configured chart, else ``"; give one under helm/, e.g. helm/kserve-crd"`` (``here`` for the
    working folder; several parents are listed one by one), else ``"; give a folder holding a Chart.yaml"``."""
    folders = {c.name: config.root / c.dest for c in config.charts if c.render is None} if config else {}
    relative = {name: os.path.relpath(f) for name, f in folders.items() if (f / "Chart.yaml").is_file()}
    shown = {name: str(folders[name]) if r.startswith("..") else r for name, r in relative.items()}
    if not shown:
        return "; give a folder holding a Chart.yaml"
    if (name := closest(path.name, shown)) is not None:
        return f"; did you mean {shown[name]}?"
    parents = {os.path.dirname(folder) for folder in shown.values()}
    if len(parents) > 1:
        return f"; give one of {', '.join(shown.values())}"
    parent = parents.pop()
    return f"; give one {f'under {parent}{os.sep}' if parent else 'here'}, e.g. {next(iter(shown.values()))}"


@command(short_help="Show the delta from upstream to the vendored charts.")
def diff(
    ctx: typer.Context,
    chart: Annotated[str | None, typer.Argument(metavar="[CHART]", help="Only this chart.")] = None,
    stat: Annotated[bool, typer.Option("--stat", help="A table of files and line counts instead of diffs.")] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the diffs (with --stat: the table) as JSON.")
    ] = False,
    source: options.LockedSource = None,
    helm: options.Helm = None,
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
    out = console("stdout")
    if json_output:
        listed = {"stat": report.diff_stat(diffs)} if stat else {"files": _diffs_json(diffs)}
        report.print_json(out, {"ok": True, "tag": lock.tag, **listed})
    elif stat:
        report.print_diff_stat(out, diffs)
    else:
        report.print_diffs(out, diffs)


@command(short_help="Check that the patch series applies to upstream.")
def patch_verify(
    ctx: typer.Context,
    source: options.PatchSource = None,
    tag: options.Tag = None,
    patches: options.Patches = None,
    json_output: options.Json = False,
    junit: options.PatchJunit = None,
    timeout: options.Timeout = 10.0,
    retries: options.Retries = 3,
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
    app.refuse_overwriting("--junit", junit, config)
    with show_status(ctx, "checking the patch series"):
        result = verify_series(config, tag, source, fetch_options(ctx, timeout=timeout, retries=retries), patches)
    if junit is not None:
        write_junit(junit, "patch-verify", report_build.series_cases(result))
    out = console("stdout")
    if json_output:
        report.print_json(out, result.as_json())
    else:
        report_build.print_series(out, result)
    if not result.ok:
        raise CheckFailed(*(f"{r.name}: {r.status}: {r.message}" for r in result.results if r.status != "applies"))
    if not json_output:
        out.say("[green]ok[/]: {}", report_build.series_outcome(result).removeprefix("ok: "))


@command(short_help="List every pin of the upstream version; --check they agree.")
def versions(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Print only problems, or one ok line (for CI and pre-commit).")
    ] = False,
    json_output: options.Json = False,
    source: options.GoSource = None,
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
    from gsvendor.workflows import versions as workflow

    config = load_config_for(ctx)
    nothing = workflow.no_dockerfiles(config)  # also validates dockerfiles/pinDockerfile
    config.require_outputs()
    out = console("stdout")
    if nothing:
        if json_output:
            report.print_json(out, {"checked": False, "note": nothing, "problems": [], "warnings": []})
        else:
            out.say("[green]ok[/]: {}", nothing)
        return
    with project_guard(ctx, config):  # the spinner only while upstream is read, not when the lock answers
        result = workflow.check(config, source, fetch_options(ctx), go=not no_go, progress=partial(show_status, ctx))
    if json_output:
        report.print_json(out, result.as_json())
    elif check:
        for warning in result.warnings:
            warn(warning)
    else:  # the table names each place: the error lines count them
        report_build.print_versions(out, result)
    if result.problems:
        raise CheckFailed(*(result.problems if json_output or check else report_build.versions_failures(result)))
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
    json_output: options.Json = False,
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
        print_json(console("stdout"), {**data, "stale" if check else "written": stale})
        raise typer.Exit(1 if failed else 0)
    if failed:
        for path in stale:
            console("stderr").say("stale: {}", path)
        raise CheckFailed(f"generate --check failed: {len(stale)} generated file(s) out of date; run gsvendor generate")
    out = console("stdout")
    for path in stale:
        out.say("wrote {}", path)
    if not ctx.obj.quiet and not stale:
        out.print(f"[green]ok[/]: the generated files of {len(results)} chart(s) are up to date")
