"""Differential: hypothesis-generated charts as helm-docs finds them below ``helm/`` — without
README.md.gotmpl, with templates using ``.Files`` and ``.ChartDirectory``, with an extra template
file (``--template-files=README.md.gotmpl --template-files=_templates.gotmpl``), with charts
inside them, with tabs between comment lines and with ``@notationType -- yaml`` collections —
and values files with recursive anchors for helm-values-schema-json. Each compared with the real
tools byte for byte: 0 differences.

gsvendor's side is the README step of :func:`gsvendor.generate.chart.generate_chart` for each
chart folder (named from the project root, as ``gsvendor generate`` names it), exact bytes (no
whitespace fixes); each folder apart, as helm-docs goes on with the others when one fails.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from diff_strategies import helmdocs_chart, recursive_anchor
from diff_tools import PLAIN_SCHEMA, Tally, ours_schema, real_schema, tally, tool
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gsvendor.config import GenerateSettings
from gsvendor.errors import GsvendorError
from gsvendor.generate.chart import chart_folders
from gsvendor.generate.readme.template import render_readme

BATCH = 60
BATCHES = 3
RECURSIVE = 40
TEMPLATE_FILES = ("README.md.gotmpl", "_templates.gotmpl")


def _drawn(strategy: st.SearchStrategy, count: int) -> list:
    """``count`` examples of ``strategy`` (generation only: each stays small)."""
    out: list = []

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate,),
    )
    @given(strategy)
    def collect(example: object) -> None:
        out.append(example)

    collect()
    return out[:count]


def _write(project: Path, charts: list[dict[str, str]]) -> list[str]:
    if project.exists():
        shutil.rmtree(project)
    names = []
    for index, files in enumerate(charts):
        name = f"c{index:03d}"
        for path, text in files.items():
            target = project / "helm" / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode())
        names.append(name)
    return names


def _ours(project: Path, name: str) -> dict[str, bytes | None]:
    """README.md bytes by project-relative path for chart ``name`` and each chart inside it, each
    generated on its own as helm-docs documents it (``None`` where gsvendor stops with an error;
    helm-docs then skips that chart and goes on with the others)."""
    folder = project / "helm" / name
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    out: dict[str, bytes | None] = {}
    for prefix in chart_folders(files):
        if f"{prefix}values.yaml" not in files:
            continue
        inner = {p[len(prefix) :]: d for p, d in files.items() if p.startswith(prefix)}
        path = f"helm/{name}/{prefix}README.md"
        try:  # generate_chart's README step for this folder alone: a failing chart inside it is apart
            out[path] = render_readme(
                inner,
                chart_dir=f"helm/{name}/{prefix}".rstrip("/"),
                # (alphabetical order: helm-docs sorts rows of one line unstably in file order)
                settings=GenerateSettings(template_files=TEMPLATE_FILES),
            )
        except GsvendorError:
            out[path] = None
    return out


def _real(project: Path) -> dict[str, bytes]:
    subprocess.run(
        [
            tool("helm-docs"),
            "--chart-search-root=helm",
            "--sort-values-order=alphanum",
            "--log-level=error",
            *(f"--template-files={name}" for name in TEMPLATE_FILES),
        ],
        cwd=project,
        capture_output=True,
        check=False,
        timeout=600,
    )
    return {p.relative_to(project).as_posix(): p.read_bytes() for p in (project / "helm").rglob("README.md")}


def test_charts_as_helm_docs_finds_them_match_helm_docs(tmp_path: Path) -> None:
    tool("helm-docs")
    readmes = tally("helm-docs charts (default template, .Files, extra templates, nested, tabs, yaml notation)")
    shown: list[str] = []
    for batch in range(BATCHES):
        project = tmp_path / f"batch-{batch}"
        drawn = _drawn(helmdocs_chart("chart", "helm/@@"), BATCH)
        # the chart folder as templates name it (.Files.Lines) once the chart's name is known
        charts = [
            {path: text.replace("helm/@@", f"helm/c{index:03d}") for path, text in files.items()}
            for index, files in enumerate(drawn)
        ]
        names = _write(project, charts)
        real = _real(project)
        part = Tally()
        for index, name in enumerate(names):
            ours = _ours(project, name)
            for path in sorted(set(ours) | {p for p in real if p.startswith(f"helm/{name}/")}):
                part.check(path, real.get(path), ours.get(path))
                if len(shown) < 3 and real.get(path) != ours.get(path):
                    shown.append(f"{part.differences[-1]}\n--- files:\n{charts[index]}")
        readmes.compared += part.compared
        readmes.differences += part.differences
    assert readmes.compared >= BATCH * BATCHES
    assert shown == [], "\n\n".join(shown)


def test_recursive_anchors_match_helm_values_schema_json(tmp_path: Path) -> None:
    tool("helm-values-schema-json")
    schemas = tally("recursive anchors, values.schema.json")
    project = tmp_path / "project"
    shown: list[str] = []
    for index, values in enumerate(_drawn(recursive_anchor(), RECURSIVE)):
        folder = project / "helm" / f"r{index:03d}"
        folder.mkdir(parents=True)
        (folder / "values.yaml").write_text(values)
        (folder / ".schema.yaml").write_text(PLAIN_SCHEMA.format(dest=f"helm/r{index:03d}"))
        real = real_schema(project, f"helm/r{index:03d}/.schema.yaml", f"helm/r{index:03d}/values.schema.json")
        ours = ours_schema(project, folder)
        schemas.check(f"r{index:03d}", real, None if ours is None else ours[1])
        if real is None or (ours is not None and ours[1] != real):
            shown.append(f"{schemas.differences[-1] if schemas.differences else 'real failed'}\n{values}")
    assert schemas.compared == RECURSIVE
    assert shown == [], "\n\n".join(shown[:3])
