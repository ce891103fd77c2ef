"""Odd configuration and cache input (unknown keys, missing outputs, unreplaceable stamps, deep
names): each is one short `error:` line or a miss, never a traceback or a partial file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error

KNOWN = (
    "charts, dockerfiles, files, generate, images, lock, manifests, output, overlays, patches, pinDockerfile, upstream"
)


def test_an_unknown_key_is_one_short_line_whatever_its_text(cli: Cli, tmp_path: Path) -> None:
    """The key path of an unknown key quotes a key with a line break, a control or format character,
    or thousands of characters (it printed the key raw: a line break split the message in two, and a
    long key pushed the verdict past the line's limit); a number or null key reads as no list index."""
    long_key = "k" * 5000
    (tmp_path / "gsvendor.yaml").write_text(
        f'upstream: {{repository: a/b}}\ncharts: [a]\n"a\\nb": 1\n"\\u202eevil": 2\n? {long_key}\n: 3\n1: 4\nnull: 5\n'
    )
    result = cli(tmp_path, "verify")
    assert_one_line_error(result, 2)
    cut = "'" + "k" * 199 + "…"
    assert result.stderr.splitlines() == [
        f"error: gsvendor.yaml:3: 'a\\nb': unknown key 'a\\nb' (known here: {KNOWN})",
        f"error: gsvendor.yaml:4: '\\u202eevil': unknown key '\\u202eevil' (known here: {KNOWN})",
        f"error: gsvendor.yaml:5: {cut}: unknown key {cut} (known here: {KNOWN})",
        f"error: gsvendor.yaml:7: 1: unknown key 1 (known here: {KNOWN})",
        f"error: gsvendor.yaml:8: None: unknown key None (known here: {KNOWN})",
    ]


def test_an_entry_missing_an_output_is_a_miss(tmp_path: Path) -> None:
    """A generated-files entry whose README.md was cut out (its sha256 still recorded) gave the
    chart's old README.md back on a hit: every output recorded must be there."""
    import json

    from generate_helpers import upstream_chart

    from gsvendor.config import GenerateSettings
    from gsvendor.generate.cache import GenerateCache
    from gsvendor.generate.chart import generate_chart
    from gsvendor.stamps import framed, read_stamp

    chart = upstream_chart("v0.20.0", "kserve-llmisvc-resources")
    files = {**chart, ".schema.yaml": b"values: [values.yaml]\n", "README.md": b"an old README\n"}
    where = {"chart_dir": "/chart", "outside": None, "project_root": None, "settings": GenerateSettings()}
    fresh = generate_chart(files, chart_dir="/chart")
    assert fresh["README.md"] == chart["README.md"]
    GenerateCache(tmp_path).generate(files, **where)
    [entry] = (tmp_path / "generated").iterdir()
    held = read_stamp(entry)
    del held["data"]["outputs"]["README.md"]
    entry.write_text(framed(json.dumps(held)))
    cache = GenerateCache(tmp_path)
    assert cache.generate(files, **where) == fresh
    assert (cache.hits, cache.misses) == (0, 1)


def test_a_stamp_that_cannot_be_replaced_leaves_no_partial_file(tmp_path: Path) -> None:
    """A folder where a stamp goes: the write fails (ignored), and its .partial file goes too (each
    run left one behind, ~50 KB for a generated-files entry, in a folder nothing else cleans)."""
    from gsvendor.stamps import read_stamp, write_stamp

    stamp = tmp_path / "stamps" / ("0" * 64)
    (stamp / "inside").mkdir(parents=True)
    for _ in range(2):
        write_stamp(stamp, {"outputs": {"README.md": "x" * 50_000}})
    assert sorted(p.name for p in stamp.parent.iterdir()) == ["0" * 64]
    assert read_stamp(stamp) is None


def test_a_stamp_is_never_written_through_a_link_at_its_partial_name(tmp_path: Path) -> None:
    """A link left in the cache at the name the stamp is first written to: the file it points at (a
    chart's values.yaml, say) was overwritten with the stamp's JSON. The link goes, nothing else."""
    import os

    from gsvendor.stamps import read_stamp, write_stamp

    victim = tmp_path / "values.yaml"
    victim.write_text("replicas: 1\n")
    stamp = tmp_path / "stamps" / ("0" * 64)
    stamp.parent.mkdir()
    (stamp.parent / f".{stamp.name}.{os.getpid()}.partial").symlink_to(victim)
    write_stamp(stamp, {"schema": None})
    assert victim.read_text() == "replicas: 1\n"
    assert sorted(p.name for p in stamp.parent.iterdir()) == []
    write_stamp(stamp, {"schema": None})  # the next run writes it
    assert read_stamp(stamp) == {"data": {"schema": None}}


def test_a_chart_name_nested_thousands_deep_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    """check-images reads each Chart.yaml's name: one nested 5,000 lists deep loaded (ruamel's
    constructor), then str() of it raised RecursionError, a traceback."""
    chart = tmp_path / "deep"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nversion: 0.1.0\nname: " + "[" * 5000 + "]" * 5000 + "\n")
    result = cli(tmp_path, "check-images", str(chart))
    assert_one_line_error(result, 2)
    assert result.stderr == f"error: {chart}/Chart.yaml:3: nested more than 200 levels deep\n"


def test_an_unknown_key_of_a_chart_entry_is_named(cli: Cli, tmp_path: Path) -> None:
    """A chart entry is a name or a mapping (oneOf): the mapping's unknown key is named, with the
    closest known key (the shorter "is not of type 'string'" of the other alternative was shown)."""
    (tmp_path / "gsvendor.yaml").write_text("upstream: {repository: a/b}\ncharts:\n  - name: x\n    destt: y\n  - ''\n")
    result = cli(tmp_path, "verify")
    assert_one_line_error(result, 2)
    assert result.stderr.splitlines() == [
        "error: gsvendor.yaml:4: charts[0].destt: unknown key 'destt'; did you mean dest? "
        "(known here: dest, exclude, include, name, path, render)",
        "error: gsvendor.yaml:5: charts[1]: '' does not match '^[A-Za-z0-9][A-Za-z0-9._-]*$'",
    ]


def test_a_tag_pattern_that_backtracks_for_ever_is_stopped_in_time(cli: Cli, tmp_path: Path) -> None:
    """``upstream.tagPattern`` is searched with the regex limit of overlays (re has none: it ran for ever)."""
    from conftest import tarball

    (tmp_path / "gsvendor.yaml").write_text(
        'upstream: {repository: kserve/kserve, tagPattern: "^(a|a)*$"}\ncharts: [kserve-crd]\n'
    )
    tag = "a" * 48 + "b"
    result = cli(tmp_path, "sync", tag, "--source", str(tarball("v0.20.0")), timeout=120)
    assert_one_line_error(result, 2, f"upstream.tagPattern: '^(a|a)*$' took too long on '{tag}'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "gsvendor.yaml"]


def test_patterns_whose_repeat_counts_multiply_past_the_limit_are_refused(cli: Cli, tmp_path: Path) -> None:
    """The regex module expands repeats while compiling: ``(a|b|c){2000000000}`` took 23 GB before any
    search (and its time limit) began. A tag pattern, an overlay's and a check variant's all compile through
    one function."""
    import regex
    from conftest import tarball

    from gsvendor.config import compile_pattern

    for bomb in ("^v(a|b|c){2000000000}", "((a{1000}){1000}){1000}", "a{1,100001}"):
        with pytest.raises(regex.error, match="its repeat counts multiply past 100000"):
            compile_pattern(bomb)
    assert compile_pattern(r"^v\d{1,9}\.\d{1,9}\.\d{1,9}(-rc\d{1,3})?$").search("v0.20.0")
    (tmp_path / "gsvendor.yaml").write_text(
        'upstream: {repository: kserve/kserve, tagPattern: "^v(a|b|c){2000000000}"}\ncharts: [kserve-crd]\n'
    )
    result = cli(tmp_path, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "upstream.tagPattern: '^v(a|b|c){2000000000}' is not a regular expression")
