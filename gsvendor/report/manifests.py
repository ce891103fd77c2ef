"""Reporting check-manifests: tables, JSON, JUnit and the failure summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from gsvendor.report import failed, images, listed, ok_prefix
from gsvendor.report.junit import TestCase

if TYPE_CHECKING:
    from gsvendor.manifests.check import VariantManifests
    from gsvendor.report.writer import Writer
    from gsvendor.workflows.check_manifests import ManifestsRun


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"


def run_json(run: ManifestsRun) -> dict[str, Any]:
    """``check-manifests --json``: per chart its variants, counts and findings; with ``--images`` check-images'
    document under ``images``."""
    result = run.result

    def variant(item: VariantManifests) -> dict[str, Any]:
        return {
            "name": item.variant,
            "ok": item.ok(result.policy),
            "rendered": item.rendered,
            "expectedFailure": item.expected_failure,
            "problem": item.problem,
            "error": item.error,
            "objects": item.objects,
            "checked": dict(item.checked),
            "notChecked": dict(item.not_checked),
            # a Finding's fields, "obj" named "object"
            "findings": [{"object" if k == "obj" else k: v for k, v in asdict(f).items()} for f in item.findings],
            "missingLabels": [{"object": o, "label": label} for o, label in item.missing_labels],
            "seconds": round(item.seconds, 3),
        }

    charts = []
    for chart in result.charts:
        items = [r for r in result.results if r.chart is chart]
        entry: dict[str, Any] = {"name": chart.name, "path": chart.label, "variants": [variant(r) for r in items]}
        if result.policy.required:
            entry["labelCoverage"] = {key: sum(getattr(r, key) for r in items) for key in ("labelled", "objects")}
        charts.append(entry)
    data = {
        "ok": result.ok,
        "summary": {
            "charts": len(result.charts),
            "variants": len(result.results),
            "checked": dict(result.checked()),
            "notChecked": dict(result.not_checked()),
            "findings": len(result.findings),
            "problems": len(result.problems),
            "seconds": round(result.seconds, 3),
        },
        "labels": {"required": list(result.policy.required), "fail": result.policy.fail},
        "crds": [{"name": c.name, "group": c.group, "kind": c.kind, "source": c.source} for c in result.crds],
        "notes": result.notes,
        "charts": charts,
    }
    if run.images is not None:
        data["images"] = images.run_json(run.images)
        data["ok"] = run.ok
    return data


def run_cases(run: ManifestsRun) -> list[TestCase]:
    """JUnit cases: check-images' (``--images``), then one per chart × variant."""
    cases = images.run_cases(run.images) if run.images is not None else []
    for item in run.result.results:
        failures = [item.problem] if item.problem else []
        failures += [f"{f.obj} {f.path}: {f.problem}: {f.message} ({f.crd} {f.version})" for f in item.findings]
        if run.result.policy.fail:
            failures += [f"{o}: no label {label}" for o, label in item.missing_labels]
        output = f"checked: {_counts(item.checked)}\nnot checked: {_counts(item.not_checked)}"
        cases.append(TestCase(f"check-manifests.{item.chart.name}", item.variant, failures, [], output, item.seconds))
    return cases


def print_run(console: Writer, run: ManifestsRun, verbose: bool = False) -> None:
    """check-images' report (``--images``); per chart a table of the findings (a row naming its variants), render
    problems, label coverage (``verbose``: also when it does not fail), then the totals."""
    if run.images is not None:
        images.print_run(console, run.images, verbose=verbose)
    result = run.result
    for chart in result.charts:
        items = [r for r in result.results if r.chart is chart]
        rows: dict[tuple[str, str, str, str, str, str], list[str]] = {}
        for item in items:
            for f in item.findings:
                rows.setdefault((f.obj, f.path, f.problem, f.message, f.crd, f.version), []).append(item.variant)
        if rows:
            console.table(
                ("variant", "object", "path", "problem", "message", "CRD", "version"),
                [(", ".join(variants), *finding) for finding, variants in rows.items()],
                title=f"{chart.name} ({chart.label})",
                findings=True,
            )
        for item in items:
            label = f"{chart.name} {item.variant}"
            if item.problem:
                console.say("[red]✗[/] {}: {}", label, item.problem)
            elif not verbose:  # as check-images: only problems without -v
                continue
            elif item.expected_failure:
                console.say("[green]✓[/] {}: failed as declared", label)
            else:
                console.say("  {}: checked {}", label, _counts(item.checked))
        if result.policy.required:
            labelled, objects = sum(r.labelled for r in items), sum(r.objects for r in items)
            missing = sorted({f"{o} ({label})" for r in items for o, label in r.missing_labels})
            if not (verbose or (missing and result.policy.fail)):
                continue
            style = "red" if missing and result.policy.fail else ("yellow" if missing else "green")
            shown = ("; missing on {}" + (" …" if len(missing) > 8 else "")) if missing else ""
            console.say(
                f"[{style}]labels[/] {{}}: {labelled}/{objects} object(s) carry {{}}{shown}",
                chart.name,
                ", ".join(result.policy.required),
                *([", ".join(missing[:8])] if missing else []),
            )
    for note in result.notes:
        console.say("[dim]note: {}[/]", note)
    checked, skipped = result.checked(), result.not_checked()
    if verbose:  # else the summary's counts: one line on success, as every command
        console.hanging("checked per kind: ", _counts(checked))
        console.hanging("not checked (no CRD in the charts): ", _counts(skipped), style="dim")
    console.print(
        ok_prefix(result.ok) + f"checked {sum(checked.values())} object(s) against {len(result.crds)} CRD(s) "
        f"({sum(skipped.values())} without a CRD not checked) in "
        f"{len(result.results)} variant(s) of {len(result.charts)} chart(s) in {result.seconds:.1f} s: "
        f"{len(result.findings)} finding(s), {len(result.problems)} variant problem(s)"
    )


def run_failure(run: ManifestsRun) -> str:
    """The one-line reason check-manifests exits 1 (check-images' first with ``--images``)."""
    result = run.result
    findings = sorted({f"{f.obj} {f.path} ({f.problem})" for f in result.findings})
    missing = {(o, label) for r in result.results for o, label in r.missing_labels} if result.policy.fail else set()
    mine = failed(
        "check-manifests",
        listed("finding(s)", findings),
        listed("variant(s) with problems", [f"{r.chart.name} {r.variant}" for r in result.problems]),
        f"{len(missing)} object(s) without a required label" if missing else "",
    )
    theirs = images.run_failure(run.images) if run.images is not None and not run.images.ok else ""
    return "; ".join(part for part in (theirs, "" if result.ok else mine) if part)
