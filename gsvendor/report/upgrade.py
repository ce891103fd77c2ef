"""The upgrade report: an :class:`~gsvendor.vendoring.upgrade.Upgrade` as Markdown for the reviewer of a
version bump; the same upgrade gives the same bytes (sorted lists, no time stamps, no local paths)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from gsvendor.errors import escape_controls, escape_line_breaks
from gsvendor.upstream.source import direction

if TYPE_CHECKING:
    from gsvendor.vendoring.upgrade import ChartUpgrade, Upgrade

ALLOWED = {"allowed": "yes", "offender": "**no**", "invalid": "**invalid**", "empty": "empty", "templated": "templated"}
# the verdict on a reference a template rewrites in a way not resolvable statically (vendoring.rewrites)
REWRITTEN = "rewritten at render time (check-images judges the rendered reference)"
ROW_WIDTH = 100  # a table row wider than this (in the Markdown text) lists cells below its table, see table()
# what CommonMark reads in running text: emphasis, code, links, HTML, entities, a table's cell bound
_MARKDOWN = re.compile(r"([\\`*_<>|~&[])")


def _one_line(text: str) -> str:
    """``text`` on one line: a line feed as a blank, other line breaks and controls escaped (CommonMark ends a
    table's row at a CR too)."""
    return escape_line_breaks(escape_controls(text.replace("\n", " ")))


def code(text: str | None) -> str:
    """``text`` as a Markdown code span safe in a table cell (``-`` for none): one line, ``|`` escaped (GFM
    splits cells first), fenced by one backtick more than its longest run (CommonMark "Code spans")."""
    if not text:
        return "-" if text is None else '`""`'
    text = _one_line(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence, pad = "`" * (longest + 1), " " * bool(longest)
    return f"{fence}{pad}{text}{pad}{fence}"


def plain(text: str) -> str:
    """``text`` as Markdown showing it as written on one line: punctuation CommonMark reads backslash-escaped."""
    return _MARKDOWN.sub(r"\\\1", _one_line(text))


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table's lines, rows kept within :data:`ROW_WIDTH` characters where they can: in a wider row
    cells move out (the widest column's first, the first column's last), each value becoming a marker
    ``(n)`` in every row of its column holding it, listed below as ``- (n) column: value`` (numbered in
    reading order)."""
    body = [list(row) for row in rows]
    order = [*sorted(range(1, len(header)), key=lambda i: -max((len(row[i]) for row in body), default=0)), 0]
    moved: dict[tuple[int, str], int] = {}

    def shown(row: list[str]) -> list[str]:
        return [f"({moved[(i, cell)]})" if (i, cell) in moved else cell for i, cell in enumerate(row)]

    for row in body:
        cells = shown(row)
        for i in order:
            if len(_row(cells)) <= ROW_WIDTH:
                break
            marker = f"({len(moved) + 1})"
            if (i, row[i]) not in moved and len(row[i]) > len(marker):
                moved[(i, row[i])] = len(moved) + 1
                cells[i] = marker
    reading = [(i, cell) for row in body for i, cell in enumerate(row) if (i, cell) in moved]
    moved = {key: number for number, key in enumerate(dict.fromkeys(reading), 1)}
    lines = [_row(header), "|" + "---|" * len(header), *(_row(shown(row)) for row in body)]
    # "\|": a code span outside a table would show the backslash
    notes = [f"- ({number}) {header[i]}: " + value.replace("\\|", "|") for (i, value), number in moved.items()]
    return [*lines, "", *notes] if notes else lines


def _bullets(items: Iterable[str], indent: str = "") -> list[str]:
    return [f"{indent}- {code(item)}" for item in items]


def _files(chart: ChartUpgrade) -> list[str]:
    lines = [f"**Files:** {len(chart.added)} added, {len(chart.removed)} removed, {len(chart.changed)} changed", ""]
    for label, names in (("Added", chart.added), ("Removed", chart.removed), ("Changed", chart.changed)):
        if names:
            lines += [f"{label}:", "", *_bullets(names), ""]
    return lines


def _values(chart: ChartUpgrade) -> list[str]:
    lines = ["### Values", ""]
    if not (chart.keys_added or chart.keys_removed or chart.defaults_changed):
        return [*lines, "No values key added, removed or changed.", ""]
    if chart.keys_added:
        lines += [f"Keys added ({len(chart.keys_added)}):", ""]
        for key in chart.keys_added:
            lines += [f"- {code(key)}", *_bullets(chart.keys_below.get(key, ()), "  ")]
        lines.append("")
    if chart.keys_removed:
        lines += [f"Keys removed ({len(chart.keys_removed)}):", "", *_bullets(chart.keys_removed), ""]
    if chart.defaults_changed:
        rows = [(code(c.path), code(c.old), code(c.new)) for c in chart.defaults_changed]
        lines += [f"Defaults changed ({len(chart.defaults_changed)}):", "", *table(("key", "old", "new"), rows), ""]
    return lines


def shown(written: str | None, rendered: str | None) -> str:
    """A reference's cell: as written, then ``→`` as rendered when it differs."""
    return code(written) if rendered in (None, written) else f"{code(written)} → {code(rendered)}"


def _images(chart: ChartUpgrade) -> list[str]:
    lines = ["### Image references", ""]
    if not chart.images:
        return [*lines, "No image reference added, removed or changed.", ""]
    added, removed, changed = _image_counts(chart)
    policy = "after the overlays; allowed: the check-images policy"
    lines += [f"{added} added, {removed} removed, {changed} changed ({policy}):", ""]
    rows = []
    for i in chart.images:
        allowed = ALLOWED.get(i.status, i.status)
        if i.rewritten and (i.new_rendered if i.new is not None else i.old_rendered) is None:
            allowed = REWRITTEN
        elif i.where.startswith(("files/", "crds/")) and i.status == "offender" and not i.rewritten:
            allowed = "no, as written"
        rows.append((i.change, code(i.where), shown(i.old, i.old_rendered), shown(i.new, i.new_rendered), allowed))
    lines += table(("change", "where", "old", "new", "allowed"), rows)
    if any(i.where.startswith(("files/", "crds/")) for i in chart.images):
        lines += [
            "",
            "References under `files/` and `crds/` are as the chart's files hold them; where a template "
            'reading the file rewrites them by prefix (`replace "ghcr.io/llm-d/" $registry`), written → '
            "rendered, the replacement resolved from the chart's templates and values.yaml defaults, and "
            f'judged as rendered; "{REWRITTEN}" marks those whose replacement is not resolvable without '
            "rendering. `gsvendor check-images` judges the rendered charts.",
        ]
    return [*lines, ""]


def _crds(chart: ChartUpgrade) -> list[str]:
    if not chart.crd_files and not chart.crds:
        return []
    lines = ["### CRDs", ""]
    if chart.crd_files:
        lines += [f"CRD files changed ({len(chart.crd_files)}):", "", *_bullets(chart.crd_files), ""]
    if chart.crds:
        rows = []
        for crd in chart.crds:
            name = f"{code(crd.name)}" + (" (new)" if crd.added else " (gone)" if crd.removed else "")
            changes = (crd.versions_added, crd.versions_removed, crd.fields_added, crd.fields_removed)
            rows.append((name, code(crd.file), *(", ".join(map(code, values)) or "-" for values in changes)))
        header = ("CRD", "file", "versions added", "versions removed", "spec fields added", "spec fields removed")
        lines += [*table(header, rows), ""]
    if classified := [crd for crd in chart.crds if crd.classified]:
        lines += ["Changes a reviewer should look at (served and stored versions, conversion, `spec` fields):", ""]
        lines += [f"- {code(crd.name)}: " + "; ".join(map(plain, crd.classified)) for crd in classified] + [""]
    if webhook := [f"- {code(crd.name)}: {plain(line)}" for crd in chart.crds for line in crd.webhook]:
        lines += ["Reads that need the conversion webhook (`conversion.strategy: Webhook`):", "", *webhook, ""]
    return lines


def _rbac(chart: ChartUpgrade) -> list[str]:
    if not chart.rbac:
        return []
    lines = ["### RBAC", "", "Rules of each ClusterRole and Role, as `verbs × group/resource`, added and removed:", ""]
    rows = []
    for role in chart.rbac:
        name = f"{role.kind} {code(role.name)}" + (" (new)" if role.new else " (gone)" if role.gone else "")
        added, removed = (", ".join(map(code, rules)) or "-" for rules in (role.added, role.removed))
        rows.append((name, code(role.file), added, removed))
    return [*lines, *table(("role", "file", "rules added", "rules removed"), rows), ""]


def _overlays(chart: ChartUpgrade, old_tag: str, new_tag: str) -> list[str]:
    if not chart.overlays:
        return []
    lines = ["### Overlays", "", "Applied operations, as files × matches (`-`: not applied at that tag):", ""]
    rows = []
    for use in chart.overlays:
        old, new = ("{} × {}".format(*count) if count else "-" for count in (use.old, use.new))
        mark = "" if use.old == use.new else " **changed**"
        operation = f"{use.operation}: {plain(use.description)}" if use.description else use.operation
        rows.append((plain(use.overlay), operation, old, new + mark))
    return [*lines, *table(("overlay", "operation", old_tag, new_tag), rows), ""]


def _image_counts(chart: ChartUpgrade) -> list[int]:
    return [sum(1 for i in chart.images if i.change == c) for c in ("added", "removed", "changed")]


def _summary(upgrade: Upgrade) -> list[str]:
    rows = [
        (
            chart.name,
            f"{len(chart.added)}/{len(chart.removed)}/{len(chart.changed)}",
            f"{len(chart.keys_added)}/{len(chart.keys_removed)}",
            str(len(chart.defaults_changed)),
            "/".join(map(str, _image_counts(chart))),
            str(len(chart.crds)),
        )
        for chart in upgrade.charts
    ]
    header = ("chart", "files +/−/~", "values keys +/−", "defaults changed", "images +/−/~", "CRDs changed")
    return [*table(header, rows), ""]


def _patches(upgrade: Upgrade) -> list[str]:
    if upgrade.patches is None:
        return []
    tag = f" at {upgrade.patches_tag}" if upgrade.patches_tag else ""
    lines = [f"## Carried patches (patch-verify{tag})", ""]
    lines += [*(f"**Note:** {code(note)}" for note in upgrade.patches_notes), ""] if upgrade.patches_notes else []
    if unjudged := upgrade.patches_unjudged:
        return [*lines, "Not judged: patch-verify could not check the series.", "", *_bullets(unjudged), ""]
    if not upgrade.patches:
        return [*lines, "The series is empty.", ""]
    rows = [
        (code(str(patch.get("name"))), str(patch.get("status")), code(str(patch.get("message") or "")))
        for patch in upgrade.patches
    ]
    return [*lines, *table(("patch", "result", "message"), rows), ""]


def markdown(upgrade: Upgrade) -> str:
    """The upgrade report as Markdown text (ends with one newline)."""
    down = direction(upgrade.old_tag, upgrade.new_tag) == "downgrade"
    kind = "downgrade" if down else "upgrade"
    lines = [
        f"# {kind.capitalize()} report: {upgrade.old_tag} → {upgrade.new_tag}",
        "",
        f"What the {kind} changes in the vendored charts (upstream plus the "
        "Giant Swarm overlays), written by `gsvendor sync`.",
        "",
    ]
    if down:
        lines += [f"**This is a downgrade**: {upgrade.new_tag} is older than the synced {upgrade.old_tag}.", ""]
    lines += _summary(upgrade)
    for chart in upgrade.charts:
        lines += [f"## {chart.name} ({code(chart.dest)})", ""]
        for section in (_files, _values, _images, _crds, _rbac):
            lines += section(chart)
        lines += _overlays(chart, upgrade.old_tag, upgrade.new_tag)
    lines += _patches(upgrade)
    return "\n".join(lines).rstrip("\n") + "\n"
