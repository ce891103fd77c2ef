"""check-images and check-manifests: the configuration their CHART_DIR arguments are read with, the
project guard to hold while rendering, a misspelt or missing folder named with the chart folder it
was probably meant to be, and their shared output (text or --json, --junit, the exit code)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import typer

from gsvendor.cli.app import project_guard, show_status, stamps_dir, stdout_console
from gsvendor.errors import CheckFailed, UsageError, closest


def check_rendered(
    ctx: typer.Context,
    command: str,
    chart_dirs: list[Path] | None,
    run: Callable[..., Any],
    report: str,
    json_output: bool,
    junit: Path | None,
    verbose: bool,
) -> None:
    """Run ``run(config, chart_dirs, progress=…)`` under :func:`rendering_setup` and print its result
    with ``gsvendor.report.<report>`` (``--junit``: ``command``'s suite). Raises
    :class:`~gsvendor.errors.CheckFailed` (exit 1) when the run is not ok.
    """
    config, guard = rendering_setup(ctx, chart_dirs)
    with guard:
        result = run(config, chart_dirs or [], progress=partial(show_status, ctx))
    # the report modules load once helm has rendered: nothing delays the first render
    import importlib

    from gsvendor.report.console import print_json
    from gsvendor.report.junit import write_junit

    module = importlib.import_module(f"gsvendor.report.{report}")
    if junit is not None:
        write_junit(junit, command, module.run_cases(result))
    if json_output:
        print_json(stdout_console(), module.run_json(result))
    else:
        module.print_run(stdout_console(), result, verbose=verbose)
    if not result.ok:
        raise CheckFailed(module.run_failure(result))


def rendering_setup(ctx: typer.Context, chart_dirs: list[Path] | None) -> tuple[Any, Any]:
    """The configuration (``None`` for bare chart folders) and the project guard to hold while rendering.
    Raises :class:`~gsvendor.errors.UsageError` (exit 2) for a missing CHART_DIR (:func:`chart_folder_meant`).
    """
    from gsvendor.workflows import check_images as workflow

    config = workflow.load_optional_config(ctx.obj.config, chart_dirs or [], stamps_dir(ctx))
    for path in chart_dirs or []:
        if (path / "Chart.yaml").is_file():
            continue
        if not path.exists():
            raise UsageError(f"{path}: no such chart folder{chart_folder_meant(path, config)}")
        break  # not a chart: the check names it, in the order given
    # chart folders inside the project are its output too: a sync may be swapping them, or a
    # killed one left them half swapped (the guard completes it first); so are those of an output
    # folder that is a link to a folder elsewhere (helm -> /data/helm)
    inside = config is not None and (not chart_dirs or any(config.holds(folder) for folder in chart_dirs))
    guard = project_guard(ctx, config) if inside else contextlib.nullcontext()
    return config, guard


def chart_folder_meant(path: Path, config: Any) -> str:
    """``"; did you mean helm/kserve-resources?"`` for a missing CHART_DIR named (nearly) as a synced
    configured chart (``check-images kserve-resources``, as ``diff`` takes it); else ``""``."""
    if config is None:
        return ""
    folders = {c.name: config.root / c.dest for c in config.charts if c.render is None}
    name = closest(path.name, [name for name, folder in folders.items() if (folder / "Chart.yaml").is_file()])
    if name is None:
        return ""
    folder = folders[name]
    try:
        shown = os.path.relpath(folder)
    except ValueError:  # another drive (Windows)
        shown = str(folder)
    return f"; did you mean {str(folder) if shown.startswith('..') else shown}?"
