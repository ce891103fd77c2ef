"""Reporting check-images --resolve: tables, JSON, JUnit and the failure summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gsvendor.images.check import Checked
    from gsvendor.report.writer import Writer

from gsvendor.images.registry import COMPARISONS, OUTCOMES, RESOLVED, Resolution
from gsvendor.images.resolve import ReferenceResolution, ResolveReport, short_digest
from gsvendor.report import listed, ok_prefix, some
from gsvendor.report.junit import TestCase


def table_cells(report: ResolveReport, checked: Checked) -> tuple[str, str]:
    """The cells of check-images' ``digest`` and ``resolve`` columns for ``checked``: the resolved digest and
    the outcome (and mirror comparison), or ``-`` and ``not resolved``."""
    if (entry := report.get(checked.normalized)) is None:
        return ("-", "not resolved")
    mirror = f", mirror {entry.comparison.outcome}" if entry.comparison is not None else ""
    return (short_digest(entry.resolution.digest), entry.outcome + mirror)


def reference_json(report: ResolveReport, checked: Checked) -> dict[str, Any] | None:
    """The ``resolve`` of ``checked`` in check-images' ``--json`` (its lookup, no places), ``None``: not asked."""
    return _entry_json(entry, places=False) if (entry := report.get(checked.normalized)) else None


def _upstream(comparison: Any) -> str:
    return comparison.upstream.normalized if comparison.upstream else comparison.mirror.upstream


def _lines(entry: ReferenceResolution) -> list[str]:
    """Why ``entry`` fails, one line each (the lookup, then the comparison)."""
    name = entry.reference.normalized + (" (no tag: latest)" if entry.implicit_latest else "")
    lines = [] if entry.resolution.ok else [f"{name}: {entry.outcome}: {entry.resolution.detail}"]
    if (c := entry.comparison) is not None and not c.ok:
        lines.append(f"{name}: mirror of {_upstream(c)}: {c.outcome}: {c.detail}")
    return lines


def print_report(console: Writer, report: ResolveReport, ok: bool) -> None:
    """Each failing reference with the registry's reason, the notes, then the totals (``ok:`` when ``ok``)."""
    for entry in report.failing:
        where = some(sorted({f"{p.chart} {p.variant}" for p in entry.places}), 4)
        for line in _lines(entry):
            console.say("[red]✗[/] {} [dim](in {})[/]", line, where)
    for note in report.notes:
        console.say("[dim]note: {}[/]", note)
    counts = ", ".join(f"{report.count(o)} {o}" for o in OUTCOMES if report.count(o) or o == RESOLVED)
    text = (
        f"resolved {len(report.references)} distinct reference(s) ({report.occurrences} occurrence(s)) "
        f"with {report.jobs} job(s), {report.requests} request(s), in {report.seconds:.1f} s: {counts}"
    )
    if report.compare_upstream:
        parts = ", ".join(f"{report.count_comparison(o)} {o}" for o in COMPARISONS if report.count_comparison(o))
        text += f"; mirrors against upstream: {parts or 'no reference under an images.mirrors prefix'}"
    if unjudged := report.templated + report.empty:
        text += f"; {unjudged} templated or empty not resolved"
    if report.not_allowed:
        text += f"; {report.not_allowed} offender(s) or invalid not resolved"
    console.say(ok_prefix(ok) + "{}", text)


def _resolution_json(resolution: Resolution) -> dict[str, Any]:
    return {
        "target": str(resolution.target),
        "outcome": resolution.outcome,
        "digest": resolution.digest,
        "mediaType": resolution.media_type,
        "detail": resolution.detail,
        "status": resolution.status,
        "attempts": resolution.attempts,
        "seconds": round(resolution.seconds, 3),
    }


def _entry_json(entry: ReferenceResolution, places: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "reference": entry.reference.normalized,
        "ok": entry.ok,
        "outcome": entry.outcome,
        "digest": entry.resolution.digest,
        "implicitLatest": entry.implicit_latest,
    }
    if places:
        data["lookup"] = _resolution_json(entry.resolution)
        data["places"] = [{"chart": p.chart, "variant": p.variant, "location": p.location} for p in entry.places]
    data["mirror"] = None
    if (c := entry.comparison) is not None:
        data["mirror"] = {
            "outcome": c.outcome,
            "mirrorPrefix": c.mirror.mirror,
            "upstreamPrefix": c.mirror.upstream,
            "upstream": c.upstream.normalized if c.upstream else None,
            "upstreamDigest": c.resolution.digest if c.resolution else None,
            "upstreamLookup": _resolution_json(c.resolution) if c.resolution and places else None,
            "detail": c.detail,
        }
    return data


def to_json(report: ResolveReport) -> dict[str, Any]:
    """The ``resolve`` block of ``--json``: the totals, notes, and every distinct reference."""
    return {
        "ok": report.ok,
        "summary": {
            "references": len(report.references),
            "occurrences": report.occurrences,
            **{outcome: report.count(outcome) for outcome in OUTCOMES},
            "mirrors": {o: report.count_comparison(o) for o in COMPARISONS} if report.compare_upstream else None,
            "templated": report.templated,
            "empty": report.empty,
            "notAllowed": report.not_allowed,
            "jobs": report.jobs,
            "lookups": report.lookups,
            "requests": report.requests,
            "seconds": round(report.seconds, 3),
        },
        "notes": list(report.notes),
        "references": [_entry_json(entry) for entry in report.references],
    }


def junit_cases(report: ResolveReport) -> list[TestCase]:
    """One JUnit test case per distinct reference, failed when it does not resolve or its mirror differs."""
    cases = []
    for entry in report.references:
        output = [f"{entry.outcome}: {entry.reference.normalized} {entry.resolution.digest or ''}".rstrip()]
        if (c := entry.comparison) is not None:
            digest = c.resolution.digest if c.resolution and c.resolution.digest else ""
            output.append(f"mirror {c.outcome}: {_upstream(c)} {digest}".rstrip())
        output += [f"found in {p.chart} {p.variant}: {p.location}" for p in entry.places]
        name, seconds = entry.reference.normalized, entry.resolution.seconds
        cases.append(TestCase("check-images.resolve", name, _lines(entry), [], "\n".join(output), seconds))
    return cases


def failure_message(report: ResolveReport) -> str:
    """The one-line reason ``--resolve`` fails the run (the part after ``check-images failed:``)."""
    return listed(
        "reference(s) did not resolve or differ from upstream",
        [f"{r.reference.normalized} ({_why(r)})" for r in report.failing],
    )


def _why(entry: ReferenceResolution) -> str:
    c = entry.comparison
    return f"mirror {c.outcome}" if c is not None and entry.resolution.ok else entry.outcome
