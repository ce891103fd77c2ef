"""The generated-files cache returns exactly what generation returns, and generates again whenever an input changed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import Cli, tarball
from generate_helpers import upstream_chart

from gsvendor.config import GenerateSettings
from gsvendor.generate import cache as cache_module
from gsvendor.generate.cache import GenerateCache
from gsvendor.generate.chart import generate_chart
from gsvendor.generate.schema.model import SchemaError
from gsvendor.stamps import framed, read_stamp

SETTINGS = GenerateSettings(sort_values_order="file")
SCHEMA_YAML = b"values: [values.yaml]\n"


def chart() -> dict[str, bytes]:
    """kserve-llmisvc-resources at v0.20.0 with a .schema.yaml: both generators run."""
    return {**upstream_chart("v0.20.0", "kserve-llmisvc-resources"), ".schema.yaml": SCHEMA_YAML}


def run(cache: GenerateCache, files: dict[str, bytes], **where: object) -> dict[str, bytes]:
    options = {"chart_dir": "/chart", "outside": None, "project_root": None, "settings": SETTINGS, **where}
    return cache.generate(files, **options)  # type: ignore[arg-type]


def entries(stamps: Path) -> list[Path]:
    return sorted((stamps / "generated").iterdir())


def test_a_hit_is_the_bytes_generation_gives(tmp_path: Path) -> None:
    files = chart()
    fresh = generate_chart(files, chart_dir="/chart", settings=SETTINGS)
    first = GenerateCache(tmp_path)
    assert run(first, files) == fresh
    assert (first.hits, first.misses) == (0, 1)
    second = GenerateCache(tmp_path)
    hit = run(second, files)
    assert (second.hits, second.misses) == (1, 0)
    assert hit == fresh
    assert hit["values.schema.json"] != files["values.schema.json"] and hit["README.md"] == fresh["README.md"]
    # the entry holds the two outputs and their sha256, nothing else of the chart
    [entry] = entries(tmp_path)
    held = read_stamp(entry)
    assert held is not None and sorted(held["data"]["outputs"]) == ["README.md", "values.schema.json"]


@pytest.mark.parametrize(
    "change",
    [
        lambda files: {**files, "values.yaml": files["values.yaml"] + b"extra: 1\n"},
        lambda files: {**files, "README.md.gotmpl": files["README.md.gotmpl"] + b"\nmore\n"},
        lambda files: {**files, "templates/new.yaml": b"kind: ConfigMap\n"},
    ],
    ids=["values", "template", "a-new-file"],
)
def test_any_changed_input_generates_again(tmp_path: Path, change) -> None:
    files = chart()
    run(GenerateCache(tmp_path), files)
    changed = change(files)
    cache = GenerateCache(tmp_path)
    assert run(cache, changed) == generate_chart(changed, chart_dir="/chart", settings=SETTINGS)
    assert (cache.hits, cache.misses) == (0, 1)


def test_settings_the_folder_and_the_code_are_part_of_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = chart()
    run(GenerateCache(tmp_path), files)
    for where in ({"settings": GenerateSettings()}, {"chart_dir": "/elsewhere"}):
        cache = GenerateCache(tmp_path)
        run(cache, files, **where)
        assert cache.misses == 1, where
    edited = GenerateCache(tmp_path)
    monkeypatch.setattr(cache_module, "code_version", lambda: "0" * 64)  # gsvendor's code (or Python…) changed
    run(edited, files)
    assert edited.misses == 1
    assert len(entries(tmp_path)) == 4


def test_a_file_read_outside_the_chart_is_checked_on_each_hit(tmp_path: Path) -> None:
    """``$ref`` bundling reads a project file: the entry records its sha256 and a changed file misses."""
    shared = {"/p/shared.json": b'{"type": "string"}'}
    files = {
        "values.yaml": b"x: a # @schema $ref: ../shared.json\n",
        ".schema.yaml": b"values: [chart/values.yaml]\noutput: chart/values.schema.json\n"
        b"bundle: true\nbundleRoot: .\nbundleWithoutID: true\n",
    }
    where = {"chart_dir": "/p/chart", "outside": shared.get, "project_root": "/p"}
    first = run(GenerateCache(tmp_path), files, **where)
    assert json.loads(first["values.schema.json"])["$defs"] == {"shared.json": {"type": "string"}}
    again = GenerateCache(tmp_path)
    assert run(again, files, **where) == first and again.hits == 1
    shared["/p/shared.json"] = b'{"type": "integer"}'
    changed = GenerateCache(tmp_path)
    out = run(changed, files, **where)
    assert (changed.hits, changed.misses) == (0, 1)
    assert json.loads(out["values.schema.json"])["$defs"] == {"shared.json": {"type": "integer"}}
    del shared["/p/shared.json"]  # gone: generation's own error, not a stale hit
    with pytest.raises(SchemaError, match=r"shared\.json"):
        run(GenerateCache(tmp_path), files, **where)


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    files = chart()
    fresh = run(GenerateCache(tmp_path), files)
    [entry] = entries(tmp_path)
    held = read_stamp(entry)
    held["data"]["outputs"]["README.md"] = held["data"]["outputs"]["README.md"].replace("kserve", "kservf", 1)
    entry.write_text(framed(json.dumps(held)))
    cache = GenerateCache(tmp_path)
    assert run(cache, files) == fresh and cache.misses == 1
    for damage in ("{", '{"data": {"outputs": 3}}', '{"data": {"outputs": {}, "sha256": {}, "reads": 7}}'):
        entry.write_text(framed(damage))
        cache = GenerateCache(tmp_path)
        assert run(cache, files) == fresh and cache.misses == 1, damage


@pytest.mark.parametrize("path", ["../../outside.txt", "/tmp/outside.txt", "values.yaml", "a/../README.md", ""])
def test_an_entry_naming_a_file_generation_never_writes_is_a_miss(tmp_path: Path, path: str) -> None:
    # with its sha256 right, such an entry wrote outside the chart or over the chart's own values
    files = chart()
    fresh = run(GenerateCache(tmp_path), files)
    [entry] = entries(tmp_path)
    held = read_stamp(entry)
    held["data"]["outputs"][path] = "a: 2\n"
    held["data"]["sha256"][path] = hashlib.sha256(b"a: 2\n").hexdigest()
    entry.write_text(framed(json.dumps(held)))
    cache = GenerateCache(tmp_path)

    assert run(cache, files) == fresh and (cache.hits, cache.misses) == (0, 1)


def test_errors_are_not_remembered(tmp_path: Path) -> None:
    files = {**chart(), ".schema.yaml": b"values: [missing.yaml]\n"}
    for _ in range(2):
        with pytest.raises(SchemaError):
            run(GenerateCache(tmp_path), files)
    assert not (tmp_path / "generated").exists()


def test_the_folder_keeps_the_entries_used_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "KEEP", 2)
    base = {"values.yaml": b"a: 1\n", ".schema.yaml": SCHEMA_YAML}
    variants = [{**base, "values.yaml": f"a: {n}\n".encode()} for n in range(3)]
    for n, files in enumerate(variants[:2]):
        run(GenerateCache(tmp_path), files)
        os.utime(entries(tmp_path)[-1] if n else entries(tmp_path)[0], ns=(n * 10**9, n * 10**9))
    assert run(GenerateCache(tmp_path), variants[0])  # a hit: the first entry is used last now
    run(GenerateCache(tmp_path), variants[2])  # a third entry: the one used longest ago goes
    assert len(entries(tmp_path)) == 2
    for files, kept in ((variants[0], True), (variants[2], True), (variants[1], False)):
        cache = GenerateCache(tmp_path)
        run(cache, files)
        assert cache.hits == int(kept)
    one_run = GenerateCache(tmp_path)  # a run evicts once (at its first write): it keeps all it adds
    for n in range(3, 6):
        run(one_run, {**base, "values.yaml": f"a: {n}\n".encode()})
    assert len(entries(tmp_path)) == 2 + 2


def test_sync_verify_and_generate_share_the_cache(cli: Cli, project: Path) -> None:
    """The second sync of a tag generates nothing, and its output is byte for byte the first's."""
    source = ("--source", str(tarball("v0.20.0")))
    assert cli(project, "sync", "v0.20.0", *source).returncode == 0
    cached = Path(cli.env["GSVENDOR_CACHE_DIR"]) / "validated" / "generated"
    assert len(list(cached.iterdir())) == 5  # one entry per chart
    first = {p: p.read_bytes() for p in (project / "helm").rglob("*") if p.is_file()}
    for entry in cached.iterdir():
        os.utime(entry, ns=(0, 0))
    for path in first:
        path.unlink()
    assert cli(project, "sync", "v0.20.0", *source).returncode == 0
    assert {p: p.read_bytes() for p in (project / "helm").rglob("*") if p.is_file()} == first
    assert all(entry.stat().st_mtime_ns > 0 for entry in cached.iterdir())  # every chart came from the cache
    assert len(list(cached.iterdir())) == 5
    assert cli(project, "verify").returncode == 0
    assert cli(project, "generate", "--check").returncode == 0
    assert len(list(cached.iterdir())) == 5 + 5  # generate reads the charts on disk: other inputs, own entries
