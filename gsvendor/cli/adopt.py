"""The adopt command: onboard hand-vendored charts by inferring gsvendor.yaml and overlays/."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from gsvendor.cli import options
from gsvendor.cli.app import command, console, fetch_options, show_status


@command(short_help="Write the overlays that reproduce hand-vendored charts.")
def adopt(
    ctx: typer.Context,
    args: Annotated[
        list[str] | None,
        typer.Argument(metavar="[TAG] [CHART_DIR]...", help="Upstream tag (not with --detect), then chart folders."),
    ] = None,
    source: options.AdoptSource = None,
    detect: Annotated[
        bool, typer.Option("--detect", help="Propose the tag whose files match the charts best; write nothing.")
    ] = False,
    newest: Annotated[
        int,
        typer.Option(
            "--newest", help="--detect on a git URL: score this many newest release tags.", min=1, metavar="N"
        ),
    ] = 10,
    partial: Annotated[
        bool, typer.Option("--partial", help="Write what could be expressed even when some changes could not.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing gsvendor.yaml and overlays/.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Print the report; write nothing.")] = False,
    json_output: options.Json = False,
    repository: options.Repository = "kserve/kserve",
) -> None:
    """Infer the overlays that make upstream TAG into the charts of helm/ (or CHART_DIRs), prove them
    with a build, and write gsvendor.yaml, overlays/ and the lock.

    Key edits of Chart.yaml and values.yaml become value operations, other changes anchored
    inserts and replaces (the shortest anchor that occurs once), files upstream lacks Giant
    Swarm-only copies, removed upstream files chart excludes; README.md and values.schema.json
    that generate writes are left to it. Exit 0 when the overlays reproduce every file byte for
    byte; 1 listing what could not be expressed (nothing written unless --partial); 2 for a usage
    error, or when gsvendor.yaml or overlays/ exist without --force.

    Examples:

      gsvendor adopt v0.20.0 --source ../shared/upstream/kserve-v0.20.0.tar.gz

      gsvendor adopt v0.20.0 -s ~/src/kserve helm/kserve-crd

      gsvendor adopt --detect --source ../shared/upstream

      gsvendor adopt --detect -s https://github.com/kserve/kserve.git --newest 5

      gsvendor adopt v0.20.0 -s ../shared/upstream/kserve-v0.20.0.tar.gz --dry-run
    """
    from gsvendor.errors import CheckFailed, UsageError
    from gsvendor.workflows import adopt as workflow

    if not source:
        raise UsageError("adopt needs --source: the upstream archive, checkout or URL to compare with")
    words = list(args or [])
    root = ctx.obj.config.resolve().parent if ctx.obj.config else Path.cwd()
    out = console("stdout")
    if detect:
        with show_status(ctx, "scoring the archives"):
            matches = workflow.detect(root, source, [Path(w) for w in words], fetch_options(ctx), newest)
        if json_output:
            from gsvendor.report.console import print_json

            return print_json(out, {"best": matches[0].tag, "matches": [vars(match) for match in matches]})
        for match in matches:
            out.say(
                f"{{}}: {match.ratio:.1%} of lines match ({match.identical} of {match.files} files identical): {{}}",
                match.tag,
                Path(match.source).name,
            )
        best = matches[0]
        # the whole command, unwrapped, so that it can be copied as it is
        again = shlex.join(["gsvendor", "adopt", best.tag, "--source", best.source])
        out.say(f"best: {{}} ({best.ratio:.1%}); run {{}}", best.tag, again, soft_wrap=True)
        return
    if not words:
        raise UsageError("adopt needs TAG (or --detect to find it)")
    tag, folders = words[0], [Path(w) for w in words[1:]]
    if (Path(tag) / "Chart.yaml").is_file():
        raise UsageError(f"{tag!r} is a chart folder; give TAG first (or --detect)")
    from gsvendor.files import project_lock

    settings = {"repository": repository, "force": force, "partial": partial, "dry_run": dry_run}
    # another gsvendor writing this project (a sync) must not interleave with the adoption
    lock = project_lock(root, ctx.obj.lock_timeout, lambda line: console("stderr").say("{}", line, soft_wrap=True))
    with lock, show_status(ctx, "inferring the overlays"):
        result = workflow.adopt(root, tag, source, folders, fetch_options(ctx), **settings)
    if json_output:
        from gsvendor.report import console as report

        report.print_json(
            out,
            {
                "tag": tag,
                "ok": not result.problems,
                "written": result.written,
                "operations": result.operations,
                "existingOperations": result.existing,
                "overlays": {f"overlays/{o.name}.yaml": len(o.operations) for o in result.overlays},
                "excluded": result.deleted,
                "generated": result.generated,
                "problems": result.problems,
            },
        )
        raise typer.Exit(1 if result.problems else 0)
    for overlay in result.overlays:
        out.say(f"overlays/{{}}.yaml: {len(overlay.operations)} operation(s)", overlay.name)
    for chart, paths in result.deleted.items():
        out.say(f"{{}}: excludes {len(paths)} upstream file(s): {{}}", chart, ", ".join(paths))
    generated = sum(len(v) for v in result.generated.values())
    compared = f" (the overlays in the project have {result.existing})" if result.existing is not None else ""
    out.print(
        f"{result.operations} operation(s) in {len(result.overlays)} overlay file(s){compared}; "
        f"{generated} generated file(s) left to gsvendor generate (gsvendor.yaml generate: "
        f"readme.sortValuesOrder {result.settings.sort_values_order}, schema.normalize {result.settings.normalize})"
    )
    if result.plain:
        out.say("kept in their own overlay file (themes would reorder their operations): {}", ", ".join(result.plain))
    for problem in result.problems:
        console("stderr").labelled("cannot express:", "yellow", problem)  # one line, as written (no markup read)
    if result.problems:
        said = "wrote the rest (--partial)" if result.written else "wrote nothing (--partial writes the rest)"
        raise CheckFailed(f"{len(result.problems)} change(s) could not be expressed; {said}")
    if result.written:
        out.say("[green]ok[/]: wrote gsvendor.yaml, overlays/ and the lock: {} plus the overlays", tag)
    else:
        out.say("[green]ok[/]: the overlays reproduce every file of {} (--dry-run: nothing written)", tag)
