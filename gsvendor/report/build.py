"""Reporting ``patch-verify`` and ``versions`` (the image build inputs): rich tables and JUnit cases."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from gsvendor.controller_images.versions import AGREES, DIFFERS, GO_FAIL, MISSING, PIN
from gsvendor.report.console import diff_line_style
from gsvendor.report.junit import TestCase

if TYPE_CHECKING:
    from rich.console import Console

    from gsvendor.controller_images.patches import HunkFailure, PatchResult, SeriesReport
    from gsvendor.controller_images.versions import VersionsReport
    from gsvendor.report.writer import Writer


def print_series(console: Writer, report: SeriesReport) -> None:
    """The per-patch table, then each failing hunk (or file with upstream lines) as a diff: expected → upstream."""
    for note in report.notes:
        console.say("[yellow]note:[/] {}", note)
    if report.empty:
        plain = "empty series: no *.patch in {}; the image builds plain upstream {}"
        console.say(plain, report.patches_dir, report.tag)
        return
    rows = []
    for index, result in enumerate(report.results, 1):
        details = result.message
        if result.after_failed and result.status != "applies":
            details += f" (judged without {', '.join(result.after_failed)}, which did not apply)"
        rows.append((index, result.name, result.status, details))
    where = ""
    if report.source:
        commit = report.source.get("commit")
        where = f" ({report.source['kind']} {report.source['location']}{' @ ' + commit[:12] if commit else ''})"
    title = f"Patch series {report.patches_dir} on upstream {report.tag}{where}"
    columns = {"columns": ("#", "patch", "status", "details"), "keep": ("patch", "status"), "below": ("details",)}
    console.table(rows=rows, title=title, right=("#",), **columns)
    for result in report.results:
        for failure in result.failures:
            if failure.hunk is not None or failure.upstream:  # a bare reason is in the table already
                _print_failure(console, result, failure, report.tag)


def _print_failure(console: Console, result: PatchResult, failure: HunkFailure, tag: str) -> None:
    plain = {"markup": False, "emoji": False, "soft_wrap": True}  # no markup read, no wrap: a diff as it is
    console.print(f"{result.name}: {failure.file}: {failure.reason}", style="bold", **plain)
    if failure.hunk is None:
        for line in failure.upstream:
            console.print(f"    {line}", **plain)
        return
    diff = difflib.unified_diff(
        list(failure.expected),
        list(failure.upstream),
        fromfile=f"the patch expects (line {failure.expected_line})",
        tofile=f"upstream {tag} has (line {failure.upstream_line})",
        n=max(len(failure.expected), len(failure.upstream)),
        lineterm="",
    )
    for line in diff:
        console.print(f"    {line}", style=diff_line_style(line) or None, **plain)


def series_outcome(report: SeriesReport) -> str:
    """The closing line: ok, empty, or the counts needing attention."""
    if report.empty:
        return f"ok: empty series in {report.patches_dir}, nothing to apply to {report.tag}"
    if report.ok:
        return f"ok: all {len(report.results)} patch(es) apply to {report.tag}"
    parts = [f"{n} {status}" for status, n in report.counts().items() if n and status != "applies"]
    return f"{', '.join(parts)} of {len(report.results)} patch(es) on {report.tag}"


def series_cases(report: SeriesReport) -> list[TestCase]:
    """One JUnit test case per patch: an error when malformed, a failure when it does not simply apply."""
    cases = []
    for result in report.results:
        case = TestCase(f"patch-verify.{report.tag}", result.name, output=result.git_output, seconds=result.seconds)
        if result.status != "applies":
            lines = [f"{result.status}: {result.message}"]
            for failure in result.failures:
                lines.append(f"{failure.file}: {failure.reason}")
                if failure.hunk is not None:
                    lines += [f"  expects (line {failure.expected_line}): {t}" for t in failure.expected]
                    lines += [f"  upstream (line {failure.upstream_line}): {t}" for t in failure.upstream]
            (case.errors if result.status == "malformed" else case.failures).extend(["\n".join(lines)])
        cases.append(case)
    return cases


def versions_agree(report: VersionsReport) -> str:
    """The ``versions --check`` line after ``ok:``: the pins agreeing, in how many files, and the notes."""
    pins = [place for place in report.places if place.status in (PIN, AGREES)]
    files = len({place.file for place in pins})
    agree = f"every version pin agrees ({len(pins)} pin{'s' * (len(pins) != 1)} in {files} file{'s' * (files != 1)})"
    return "; ".join([agree, *report.notes])


def print_versions(console: Writer, report: VersionsReport) -> None:
    """The table of places holding the upstream version, then the Go builder table. A place that differs
    has no note: the title names the pin, and :func:`versions_failures` counts the rows."""
    pin = report.pin
    console.table(
        ("place", "key", "value", "status", "note"),
        [(p.where, p.key, p.value or "-", p.status, "" if p.status == DIFFERS else p.note) for p in report.places],
        below=("note",),
        keep=("place",),
        title=f"Upstream version: {pin.value} (pinned by {pin.file}:{pin.line} ARG KSERVE_VERSION)",
    )
    if report.go_mod is not None:
        mod = report.go_mod
        read = "go.mod lines recorded in the lock when sync read" if report.go_from_lock else "go.mod read from"
        # no "go" column (the image's tag says it) and the reason after the verdict: a column of its own
        # had 16 cells at 80 columns ("matches" / "upstream's" / "1.25.8")
        console.table(
            ("place", "stage", "image", "verdict"),
            [(b.where, b.stage, b.image, f"{b.status}: {b.reason}") for b in report.builders],
            title=f"Go builders vs upstream go.mod (go {mod.go or '-'}, toolchain {mod.toolchain or '-'})",
            caption=f"{read} {report.go_source}",
        )
    for note in report.notes:
        console.say("[yellow]note:[/] {}", note)


def versions_failures(report: VersionsReport) -> list[str]:
    """The exit-1 lines after :func:`print_versions` (``report.problems`` less what its rows say, each place
    named once, in its row): how many places do not follow the pin, how many Go builders fail, a stale lock's fix."""
    lines = []
    marked = [p.status for p in report.places if p.status in (DIFFERS, MISSING)]
    if places := len(marked):
        counted, statuses = "1 place does" if places == 1 else f"{places} places do", "/".join(sorted(set(marked)))
        lines.append(f"{counted} not follow the pin {report.pin.value}: see status {statuses} above")
    if builders := sum(b.status == GO_FAIL for b in report.builders):
        counted = "1 Go builder fails" if builders == 1 else f"{builders} Go builders fail"
        lines.append(f"{counted} against upstream's go.mod: see verdict fail above")
    if report.stale_lock is not None:
        lines.append(report.problems[-1])
    return lines
