"""Reporting: rich tables for people, JSON and JUnit XML for machines.

Every function takes the console to print to, so nothing here holds global state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from gsvendor.sync import FileDiff, SyncResult


def print_json(console: Console, data: Any) -> None:
    """Print ``data`` as indented JSON on ``console`` (no colour, no wrapping)."""
    console.out(json.dumps(data, indent=2), highlight=False)


def sync_summary(result: SyncResult) -> dict[str, Any]:
    """The machine-readable form of a sync result."""
    snapshot = result.build.snapshot
    return {
        "tag": snapshot.tag,
        "source": {
            "kind": snapshot.kind,
            "location": snapshot.location,
            "sha256": snapshot.sha256,
            "commit": snapshot.commit,
        },
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


def print_sync(console: Console, result: SyncResult, verbose: bool = False) -> None:
    """A table per chart: files added/changed/removed and overlays applied; then the outcome line."""
    from rich.table import Table

    snapshot = result.build.snapshot
    from rich.markup import escape

    title = escape(f"{'Plan' if result.dry_run else 'Synced'} {snapshot.tag} from {snapshot.kind} {snapshot.location}")
    default_dests = all(c.spec.dest.rsplit("/", 1)[-1] == c.spec.name for c in result.build.charts)
    parents = {c.spec.dest.rsplit("/", 1)[0] if "/" in c.spec.dest else "." for c in result.build.charts}
    show_dest = not (default_dests and len(parents) == 1) or bool(result.build.copies)
    if not show_dest:
        title += escape(f" into {parents.pop()}/")
    table = Table(title=title, title_justify="left")
    table.add_column("chart", overflow="fold")
    if show_dest:
        table.add_column("destination", overflow="fold")
    for column in ("files", "+", "~", "-", "overlays"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    first_of_dest: dict[str, str] = {}
    for chart in result.build.charts:
        first_of_dest.setdefault(chart.spec.dest, chart.spec.name)
    for chart in result.build.charts:
        counts = {s: 0 for s in ("added", "changed", "removed")}
        for change in result.changes:
            # a folder several charts write: a change belongs to the chart that writes the file
            # (a removed file to the folder's first chart)
            ours = change.path in chart.files or (
                change.status == "removed" and first_of_dest[chart.spec.dest] == chart.spec.name
            )
            if change.dest == chart.spec.dest and ours:
                counts[change.status] += 1
        cells = [chart.spec.name, *([chart.spec.dest] if show_dest else [])]
        cells += [str(len(chart.files)), str(counts["added"]), str(counts["changed"]), str(counts["removed"])]
        table.add_row(*cells, str(len(chart.overlays)))
    for copy in result.build.copies:
        status = next((c.status for c in result.changes if c.dest == copy.spec.dest and not c.path), None)
        cells = [copy.spec.source, *([copy.spec.dest] if show_dest else [])]
        cells += ["1", str(int(status == "added")), str(int(status == "changed")), "0", "-"]
        table.add_row(*cells)
    console.print(table)
    if result.dry_run or verbose:
        for chart in result.build.charts:
            console.print(
                f"  {chart.spec.name}: overlays {', '.join(chart.overlays) or '-'}", highlight=False, markup=False
            )
        for change in result.changes:
            mark = {"added": "[green]+[/]", "changed": "[yellow]~[/]", "removed": "[red]-[/]"}[change.status]
            console.print(f"  {mark} {escape(change.full_path)}", highlight=False)
        for chart in result.build.charts:
            for skipped in chart.skipped:
                console.print(f"  [dim]{chart.spec.name}: skipped {escape(skipped)}[/]", highlight=False)
    if result.forced:
        console.print(
            f"[yellow]replaced {len(result.forced)} hand-edited file(s); backup in {escape(str(result.backup))}[/]"
        )
    if result.dry_run:
        console.print(f"dry run: {len(result.changes)} file change(s) planned, nothing written")
    elif result.changes or result.lock_changed:
        console.print(f"[green]wrote {len(result.changes)} file change(s)[/] and the lock file")
    else:
        console.print("[green]up to date[/]: nothing changed")


def diff_line_style(line: str) -> str:
    """The rich style of one unified-diff line: headers bold, hunks cyan, additions green, removals red."""
    if line.startswith(("---", "+++")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    return {"+": "green", "-": "red"}.get(line[:1], "")


def print_diffs(console: Console, diffs: Sequence[FileDiff]) -> None:
    """Unified diffs, coloured on a terminal, plain when piped."""
    for item in diffs:
        if not console.is_terminal:
            console.out(item.text, end="", highlight=False)
            continue
        from rich.text import Text

        for line in item.text.splitlines():
            style = diff_line_style(line)
            console.print(Text(line, style=style))


def print_diff_stat(console: Console, diffs: Sequence[FileDiff]) -> None:
    """A table of changed files with lines added and removed."""
    from rich.table import Table

    table = Table()
    for column in ("file", "status", "+", "-"):
        table.add_column(column, justify="right" if column in "+-" else "left")
    for item in diffs:
        lines = item.text.splitlines()
        plus = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        minus = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        table.add_row(item.path, item.status, str(plus), str(minus))
    console.print(table)


@dataclass
class TestCase:
    """One JUnit test case: ``name`` within ``classname``; ``failures`` are messages (empty: passed)."""

    classname: str
    name: str
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids (a values.yaml may hold any)."""
    return _NOT_XML.sub("\ufffd", text)


def write_junit(path: Path, suite: str, cases: Iterable[TestCase]) -> None:
    """Write JUnit XML (the schema CircleCI's ``store_test_results`` reads) for ``cases`` to ``path``.

    Raises :class:`~gsvendor.errors.UsageError` when ``path`` cannot be written.
    """
    import xml.etree.ElementTree as ET

    cases = list(cases)
    root = ET.Element(
        "testsuites",
        name=suite,
        tests=str(len(cases)),
        failures=str(sum(bool(c.failures) for c in cases)),
        errors=str(sum(bool(c.errors) for c in cases)),
    )
    element = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(cases)),
        failures=str(sum(bool(c.failures) for c in cases)),
        errors=str(sum(bool(c.errors) for c in cases)),
    )
    for case in cases:
        node = ET.SubElement(
            element, "testcase", classname=_xml(case.classname), name=_xml(case.name), time=f"{case.seconds:.3f}"
        )
        if case.failures:
            failure = ET.SubElement(node, "failure", message=_xml(case.failures[0][:200]))
            failure.text = _xml("\n".join(case.failures))
        if case.errors:
            error = ET.SubElement(node, "error", message=_xml(case.errors[0][:200]))
            error.text = _xml("\n".join(case.errors))
        if case.output:
            ET.SubElement(node, "system-out").text = _xml(case.output)
    ET.indent(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
    except OSError as exc:
        from gsvendor.errors import UsageError

        raise UsageError(f"--junit {path}: cannot write: {exc.strerror or exc}") from None
