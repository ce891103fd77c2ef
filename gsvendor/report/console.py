"""Console output of the sync, verify and diff workflows: summaries, unified diffs, diff stats, JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gsvendor import __version__

if TYPE_CHECKING:
    from rich.console import Console

    from gsvendor.report.writer import Writer
    from gsvendor.vendoring.compare import FileDiff
    from gsvendor.workflows.sync import SyncResult


def print_json(console: Console, data: Any) -> None:
    """``data`` as indented JSON, unstyled; a mapping gets ``gsvendorVersion`` first (who wrote a stored report)."""
    data = {"gsvendorVersion": __version__, **data} if isinstance(data, dict) else data
    console.out(json.dumps(data, indent=2), highlight=False)


def sync_summary(result: SyncResult) -> dict[str, Any]:
    """The machine-readable form of a sync result."""
    snapshot = result.build.snapshot
    return {
        "ok": True,  # a sync that fails prints {"ok": false, "error": …} instead
        "tag": snapshot.tag,
        "source": {key: getattr(snapshot, key) for key in ("kind", "location", "sha256", "commit")},
        "dryRun": result.dry_run,
        "charts": [
            {
                "name": chart.spec.name,
                "dest": chart.spec.dest,
                "files": len(chart.files),
                "overlays": chart.overlays,
                "applied": [
                    {"overlay": a.overlay, "operation": a.operation, "files": list(a.files)} for a in chart.applied
                ],
                "skipped": chart.skipped,
                "normalized": chart.normalized,
                "generated": chart.generated,
                "changes": [{"path": c.path, "status": c.status} for c in result.changes if c.dest == chart.spec.dest],
            }
            for chart in result.build.charts
        ],
        "lockChanged": result.lock_changed,
        "backup": str(result.backup) if result.backup else None,
        "replacedHandEdits": result.forced,
    }


def print_sync(console: Writer, result: SyncResult, verbose: bool = False) -> None:
    """The outcome line; with ``verbose`` or a dry run first the per-chart table and every file change."""
    snapshot = result.build.snapshot
    origin = f"{snapshot.tag} from {snapshot.kind} {snapshot.location}"  # user text: the writer quotes it
    if result.dry_run or verbose:
        _print_sync_details(console, result)
    if result.forced:
        # project-relative, as every other path printed: <root>/.gsvendor-backup/<time>-<random>
        backup = f"{result.backup.parent.name}/{result.backup.name}" if result.backup else "-"
        console.say(f"[yellow]replaced {len(result.forced)} hand-edited file(s); backup in {{}}[/]", backup)
    if result.dry_run:
        down = " (downgrade from {})" if result.downgrade else ""
        planned = f"dry run: {len(result.changes)} file change(s) planned{down}, nothing written"
        console.say(planned, result.previous_tag or "")
    elif result.changes:
        lock = " and the lock file" if result.lock_changed else ""
        console.say(f"[green]wrote {len(result.changes)} file change(s)[/]{lock}: {{}}", origin)
    elif result.lock_changed:
        console.say("[green]wrote the lock file[/], no chart file changed: {}", origin)
    else:
        console.say("[green]up to date[/]: nothing changed ({})", origin)


def _print_sync_details(console: Writer, result: SyncResult) -> None:
    snapshot = result.build.snapshot
    down = f" (downgrade from {result.previous_tag})" if result.downgrade else ""
    title = f"{'Plan' if result.dry_run else 'Synced'} {snapshot.tag}{down} from {snapshot.kind} {snapshot.location}"
    default_dests = all(c.spec.dest.rsplit("/", 1)[-1] == c.spec.name for c in result.build.charts)
    parents = {c.spec.dest.rsplit("/", 1)[0] if "/" in c.spec.dest else "." for c in result.build.charts}
    show_dest = not (default_dests and len(parents) == 1) or bool(result.build.copies)
    if not show_dest:
        title += f" into {parents.pop()}/"
    numbers = ("files", "+", "~", "-", "overlays")
    rows = []
    first_of_dest = {chart.spec.dest: chart.spec.name for chart in reversed(result.build.charts)}
    for chart in result.build.charts:
        # a folder several charts write: a change is the writing chart's, a removal the folder's first chart's
        first = first_of_dest[chart.spec.dest] == chart.spec.name
        counts = Counter(
            c.status
            for c in result.changes
            if c.dest == chart.spec.dest and (c.path in chart.files or (c.status == "removed" and first))
        )
        cells = [chart.spec.name, *([chart.spec.dest] if show_dest else []), str(len(chart.files))]
        rows.append([*cells, *(str(counts[s]) for s in ("added", "changed", "removed")), str(len(chart.overlays))])
    for copy in result.build.copies:
        status = next((c.status for c in result.changes if c.dest == copy.spec.dest and not c.path), None)
        cells = [copy.spec.source, *([copy.spec.dest] if show_dest else [])]
        rows.append([*cells, "1", str(int(status == "added")), str(int(status == "changed")), "0", "-"])
    console.table(("chart", *(["destination"] if show_dest else []), *numbers), rows, title=title, right=numbers)
    for chart in result.build.charts:
        console.hanging(f"  {chart.spec.name}: overlays ", ", ".join(chart.overlays) or "-")
    for change in result.changes:
        # the marker stays with its path; a long path continues under it
        mark, style = {"added": ("+", "green"), "changed": ("~", "yellow"), "removed": ("-", "red")}[change.status]
        console.hanging(f"  {mark} ", change.full_path, head_style=style)
    for chart in result.build.charts:
        for skipped in chart.skipped:
            console.hanging(f"  {chart.spec.name}: skipped ", skipped, style="dim")


def diff_line_style(line: str) -> str:
    """The rich style of one unified-diff line: headers bold, hunks cyan, additions green, removals red."""
    if line.startswith(("---", "+++")):
        return "bold"
    return "cyan" if line.startswith("@@") else {"+": "green", "-": "red"}.get(line[:1], "")


def print_diffs(console: Console, diffs: Sequence[FileDiff]) -> None:
    """Unified diffs: on a terminal each line styled by :func:`diff_line_style`; piped, byte for byte in one
    write (:meth:`~gsvendor.report.layout.StrippedLines.verbatim`), so the output stays a patch that applies."""
    if not console.is_terminal:
        console.file.verbatim("".join(item.text for item in diffs))
        return
    from rich.text import Text

    # one Text of every styled line: rich's per-print set-up is paid once
    lines = [line for item in diffs for line in item.text.splitlines()]
    if lines:
        console.print(Text("\n").join(Text(line, diff_line_style(line)) for line in lines), soft_wrap=True)


def diff_stat(diffs: Sequence[FileDiff]) -> list[dict[str, Any]]:
    """Per changed file: ``path``, ``status``, lines ``added`` and ``removed`` (``diff --stat``, also as JSON)."""
    styles = [[diff_line_style(line) for line in item.text.splitlines()] for item in diffs]
    return [
        {"path": item.path, "status": item.status, "added": lines.count("green"), "removed": lines.count("red")}
        for item, lines in zip(diffs, styles, strict=True)
    ]


def print_diff_stat(console: Writer, diffs: Sequence[FileDiff]) -> None:
    """A table of changed files with lines added and removed, then the totals."""
    stat = diff_stat(diffs)
    rows = [(row["path"], row["status"], row["added"], row["removed"]) for row in stat]
    console.table(("file", "status", "+", "-"), rows, right=("+", "-"), hang=("file",), findings=True)
    added, removed = sum(r["added"] for r in stat), sum(r["removed"] for r in stat)
    console.print(f"{len(stat)} file(s) differ from upstream, +{added} -{removed} line(s)", highlight=False)
