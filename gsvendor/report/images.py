"""Reporting check-images: tables, JSON, JUnit and the failure summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gsvendor.report.writer import Writer
    from gsvendor.workflows.check_images import ImagesRun

from gsvendor.images.check import ALLOWED, EMPTY, INVALID, OFFENDER, TEMPLATED, Checked
from gsvendor.report import failed, listed, ok_prefix
from gsvendor.report import resolve as resolving
from gsvendor.report.junit import TestCase


def run_json(run: ImagesRun) -> dict[str, Any]:
    """The JSON document of ``check-images --json``: per chart its variants, references and skipped data; with
    ``--resolve`` each reference's lookup (``null``: not asked) and the lookups' block, ``ok`` including them."""
    result, resolved = run.result, run.resolved

    def reference(checked: Checked) -> dict[str, Any]:
        found, ref = checked.found, checked.reference
        data = {
            "status": checked.status,
            "written": found.written,
            "normalized": checked.normalized,
            **{key: getattr(ref, key) if ref else None for key in ("registry", "repository", "tag", "digest")},
            **{key: getattr(found, name) for key, name in (("place", "place"), ("object", "obj"), ("path", "path"))},
            "line": found.line,
            "source": found.source,
            "joined": list(found.joined),
            "location": found.location,
            "message": checked.message,
        }
        return {**data, "resolve": resolving.reference_json(resolved, checked)} if resolved else data

    def variant(item: Any) -> dict[str, Any]:
        return {
            "name": item.name,
            "ok": item.ok,
            "rendered": item.rendered,
            "expectFailure": getattr(item.variant.expect_failure(), "pattern", None),
            "expectedFailure": item.expected_failure,
            "error": item.error,
            "problem": item.problem,
            "switches": list(item.variant.switches),
            "valuesFiles": [str(p) for p in item.variant.values_files],
            "set": list(item.variant.set_json),
            "documents": item.documents,
            "crdsNotSearched": item.crds,
            "seconds": round(item.seconds, 3),
            "references": [reference(c) for c in item.references],
            "skipped": [{"object": s.obj, "path": s.path, "reason": s.reason} for s in item.skipped],
        }

    charts = [
        {"name": c.name, "path": c.label, "variants": [variant(r) for r in result.results if r.chart is c]}
        for c in result.charts
    ]
    data = {
        "ok": run.ok,
        "allow": list(result.allow),
        "summary": {
            "charts": len(result.charts),
            "variantsRendered": result.variants_rendered,
            "references": result.references,
            **{status: result.count(status) for status in (ALLOWED, OFFENDER, INVALID, TEMPLATED, EMPTY)},
            "problems": len(result.problems),
            "seconds": round(result.seconds, 3),
        },
        "charts": charts,
    }
    return {**data, "resolve": resolving.to_json(resolved)} if resolved else data


def run_cases(run: ImagesRun) -> list[TestCase]:
    """JUnit test cases: one per chart × variant (and per chart's values.yaml), then one per looked-up reference."""
    cases = []
    for item in run.result.results:
        failures = [item.problem] if item.problem else []
        for c in item.failing:
            normalized = "" if c.normalized == c.found.written else f" ({c.normalized or c.message})"
            failures.append(f"{c.status}: {c.found.written}{normalized} at {c.found.location}")
        lines = [f"{c.status}: {c.found.written} at {c.found.location}" for c in item.references]
        lines += [f"skipped: {s.location}: {s.reason}" for s in item.skipped]
        cases.append(
            TestCase(f"check-images.{item.chart.name}", item.name, failures, [], "\n".join(lines), item.seconds)
        )
    return cases + (resolving.junit_cases(run.resolved) if run.resolved else [])


def print_run(console: Writer, run: ImagesRun, verbose: bool = False) -> None:
    """A table per chart of the offending and invalid references (every one with ``verbose`` or ``--resolve``),
    a row per reference naming its variants; then problems, skipped data and the totals. With ``--resolve``:
    ``digest`` and ``resolve`` columns, then the lookups' totals; ``ok:`` only when both pass."""
    result, resolved, ok = run.result, run.resolved, run.ok
    for chart in result.charts:
        items = [r for r in result.results if r.chart is chart]
        rows: dict[tuple[str, str, str], tuple[Checked, list[str]]] = {}
        for item in items:
            for c in item.references:
                if c.status in (OFFENDER, INVALID) or verbose or resolved is not None:
                    rows.setdefault((c.found.location, c.found.written, c.status), (c, []))[1].append(item.name)
        if rows:
            # "normalized" only where it differs from "as written": a note line when the width is short
            cells = []
            for c, variants in rows.values():
                normalized = "" if c.normalized == c.found.written else c.normalized or c.message or ""
                extra = resolving.table_cells(resolved, c) if resolved else ()
                cells.append((", ".join(variants), c.found.location, c.found.written, normalized, c.status, *extra))
            console.table(
                ("variant", "found in", "as written", "normalized", "status", *("digest", "resolve") * bool(resolved)),
                cells,
                title=f"{chart.name} ({chart.label})",
                below=("normalized",),
                keep=("as written",),
                findings=True,
            )
        seen: set[tuple[str, str]] = set()
        for item in items:
            variant_label = f"{chart.name} {item.name}"
            if item.problem:
                console.say("[red]✗[/] {}: {}", variant_label, item.problem)
            elif item.expected_failure and verbose:
                console.say("[green]✓[/] {}: failed as declared", variant_label)
            for s in item.skipped if verbose else ():
                if (s.location, s.reason) not in seen:
                    seen.add((s.location, s.reason))
                    console.say("[dim]skipped {}: {}[/]", s.location, s.reason)
    offenders, invalid = result.count(OFFENDER), result.count(INVALID)
    unjudged = result.count(TEMPLATED) + result.count(EMPTY)
    console.say(
        ok_prefix(ok)
        + f"checked {result.references} image reference(s) in {result.variants_rendered} rendered variant(s) "
        f"and the values.yaml of {len(result.charts)} chart(s) in {result.seconds:.1f} s: "
        f"{offenders} outside {{}}, {invalid} invalid, {len(result.problems)} variant problem(s)"
        + (f", {unjudged} templated or empty (not judged)" if unjudged else ""),
        ", ".join(result.allow),
    )
    if resolved:
        resolving.print_report(console, resolved, ok=ok)


def run_failure(run: ImagesRun) -> str:
    """The one-line reason check-images exits 1, with ``--resolve`` its failing lookups too."""
    result, resolved = run.result, run.resolved
    offenders = sorted(
        {c.reference.name if c.reference else c.found.written for r in result.results for c in r.failing}
    )
    return failed(
        "check-images",
        listed(f"image(s) outside {', '.join(result.allow)} or invalid", offenders),
        listed("variant(s) with problems", [f"{r.chart.name} {r.name}" for r in result.problems]),
        resolving.failure_message(resolved) if resolved else "",
    )
