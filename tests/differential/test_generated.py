"""Differential (b, c): hypothesis-generated charts shaped like Giant Swarm's (devctl's .schema.yaml
from the project root, devctl's README.md.gotmpl, --sort-values-order=file) and free-form ones.

Each example is a batch of charts under one project, so that helm-docs runs once per batch; the
schema tools run once per chart. ``BATCHES`` × ``BATCH`` ≥ 500 values files per run. A failing
batch is shrunk by hypothesis to the smallest set of charts (and values) that still differs.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from diff_strategies import chart_yaml, readme_template, values_yaml
from diff_tools import (
    DEVCTL_README,
    DEVCTL_SCHEMA,
    PLAIN_SCHEMA,
    Tally,
    normalize_source,
    ours_readme,
    ours_schema,
    real_normalize,
    real_readmes,
    real_schema,
    tally,
    tool,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gsvendor.generate.golang import yaml_v3

BATCH = 110
BATCHES = 5  # per sort order: 2 × 550 values files per run

chart_case = st.tuples(
    values_yaml(),
    st.one_of(st.just(DEVCTL_README), readme_template()),
    st.sampled_from([DEVCTL_SCHEMA, PLAIN_SCHEMA]),
    st.integers(0, 2),
)


def _null_document(text: str) -> bool:
    """values.yaml that is only a null document (``---``, ``~``…): gsvendor reads it as empty, helm-docs
    refuses it (a documented difference), so it is compared with the same chart's empty values file."""
    try:
        document = yaml_v3.parse(text.encode())
    except yaml_v3.YAMLError:
        return False
    if document is None or not document.content:
        return False
    root = document.content[0]
    return root.kind == yaml_v3.SCALAR and root.tag == yaml_v3.NULL_TAG


def _write(project: Path, cases: list[tuple[str, str, str, int]]) -> list[str]:
    if project.exists():
        shutil.rmtree(project)
    names = []
    for index, (values, template, schema, chart_kind) in enumerate(cases):
        name = f"c{index:04d}"
        for suffix, text in ((name, values), *([(f"{name}-empty", "")] if _null_document(values) else [])):
            folder = project / "helm" / suffix
            folder.mkdir(parents=True)
            (folder / "values.yaml").write_text(text)
            (folder / "README.md.gotmpl").write_text(template)
            (folder / "Chart.yaml").write_text(chart_yaml(name, chart_kind))
            (folder / ".schema.yaml").write_text(schema.format(dest=f"helm/{suffix}"))
        names.append(name)
    return names


def _schemas(project: Path, name: str) -> tuple[bytes | None, bytes | None, bytes | None, bytes | None]:
    """(real, ours) of values.schema.json, then (real, ours) of schemalint normalize (``None``: failed)."""
    folder = project / "helm" / name
    real = real_schema(project, f"helm/{name}/.schema.yaml", f"helm/{name}/values.schema.json")
    ours = ours_schema(project, folder)
    if real is None:
        return real, None if ours is None else ours[1], None, None
    normalized = ours_schema(project, folder, normalize="schemalint")
    return (
        real,
        None if ours is None else ours[1],
        real_normalize(folder / "values.schema.json"),
        None if normalized is None else normalized[1],
    )


def _compare(project: Path, names: list[str], order: str, with_schemas: bool) -> tuple[Tally, Tally, Tally]:
    readmes, schemas, normalized = Tally(), Tally(), Tally()
    real_readmes(project / "helm", order)
    for name in names:
        folder = project / "helm" / name
        reference = project / "helm" / f"{name}-empty" if (project / "helm" / f"{name}-empty").is_dir() else folder
        real = (reference / "README.md").read_bytes() if (reference / "README.md").is_file() else None
        readmes.check(f"{project.name}/{name} README ({order})", real, ours_readme(folder, order))
    if with_schemas:  # one tool process per chart: a few in parallel (they mostly wait on the OS)
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda name: _schemas(project, name), names))
        for name, (real_json, ours_json, real_norm, ours_norm) in zip(names, results, strict=True):
            schemas.check(f"{project.name}/{name} values.schema.json", real_json, ours_json)
            if real_json is not None:
                normalized.check(f"{project.name}/{name} schemalint normalize", real_norm, ours_norm)
    return readmes, schemas, normalized


def _collect(count: int) -> list[tuple[str, str, str, int]]:
    """``count`` chart inputs drawn by hypothesis (one example each, so each stays small)."""
    cases: list[tuple[str, str, str, int]] = []

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate,),
    )
    @given(chart_case)
    def collect(case: tuple[str, str, str, int]) -> None:
        cases.append(case)

    collect()
    return cases


@pytest.mark.parametrize("order", ["alphanum", "file"])
def test_generated_charts_match_the_real_tools(tmp_path: Path, order: str) -> None:
    """``BATCHES`` batches of ``BATCH`` charts per sort order, each batch under one project root; the
    schemas (which do not depend on the order) with the ``file`` run, Giant Swarm's."""
    tool("helm-docs")
    if order == "file":
        tool("helm-values-schema-json")
    cases = _collect(BATCH * BATCHES)
    totals = {
        name: tally(f"generated charts, {name}")
        for name in ("README", "values.schema.json", f"schemalint normalize ({normalize_source()})")
    }
    shown: list[str] = []
    for start in range(0, len(cases), BATCH):
        batch = cases[start : start + BATCH]
        project = tmp_path / f"batch-{start // BATCH}"
        names = _write(project, batch)
        parts = _compare(project, names, order, with_schemas=order == "file")
        for total, part in zip(totals.values(), parts, strict=True):
            total.add(part)
            for problem in part.differences[: 3 - len(shown)]:
                case = batch[int(problem.split("/c", 1)[1][:4])]  # batch-N/cNNNN …
                shown.append(f"{problem}\n--- values.yaml:\n{case[0]}\n--- README.md.gotmpl:\n{case[1]}")
    assert len(cases) >= 500
    assert shown == [], "\n\n".join(shown)
