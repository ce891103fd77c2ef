"""The fast paths given odd input (options before the command, large verbatim files, wide lines,
lone surrogates, malformed stamps, quoted user text): each answers as the full path does."""

from __future__ import annotations

import pytest
from conftest import tarball


def test_a_verbatim_copy_of_a_large_file_does_not_make_its_chart_copy_known_clean(tmp_path, cli) -> None:
    """Top-level ``files:`` are copied verbatim, whitespace and all: their digests in the lock are
    no proof of clean bytes, so the same large bytes in a chart are still fixed on the next sync."""
    upstream = tmp_path / "up"
    (upstream / "charts/x/templates").mkdir(parents=True)
    big = b"".join(b"key%06d: value   \n" % i for i in range(20000))  # > 256 KiB, trailing blanks
    (upstream / "charts/x/templates/big.yaml").write_bytes(big)
    (upstream / "charts/x/Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 0.1.0\n")
    (upstream / "go.mod").write_text("module x\n\ngo 1.22\n")
    project = tmp_path / "project"
    (project / "overlays").mkdir(parents=True)
    (project / "gsvendor.yaml").write_text(
        "upstream:\n  repository: kserve/kserve\noutput: helm\ncharts: [x]\n"
        "files:\n  - from: charts/x/templates/big.yaml\n    to: raw/big.yaml\n"
    )
    fixed = big.replace(b"   \n", b"\n")
    for _ in range(2):
        result = cli(project, "sync", "v0.1.0", "--source", str(upstream))
        assert result.returncode == 0, result.stderr
        assert (project / "helm/x/templates/big.yaml").read_bytes() == fixed
        assert (project / "raw/big.yaml").read_bytes() == big


@pytest.mark.parametrize(
    "operation",
    [
        'op: replace\n    file: Chart.yaml\n    find: "\\ud800"\n    with: "y"',  # the byte path encodes the needle
        'op: insert-after\n    file: Chart.yaml\n    anchor: "apiVersion:"\n    text: "\\udfff"',
        'op: replace\n    file: Chart.yaml\n    find: "apiVersion:"\n    with: "\\ud800"',
    ],
)
def test_an_overlay_string_with_a_lone_surrogate_is_a_one_line_definition_error(project, cli, operation: str) -> None:
    """YAML's ``\\ud800`` escape gives a string no UTF-8 can hold: a declaration mistake (exit 2), no traceback."""
    from conftest import assert_one_line_error, tarball

    (project / "overlays/99-surrogate.yaml").write_text(
        f"description: x\ncharts: [kserve-crd]\noperations:\n  - {operation}\n"
    )
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run")
    assert_one_line_error(result, 2, "99-surrogate", "surrogate")


@pytest.mark.parametrize("content", [b'{"data": 5}', b'{"data": [1]}', b'{"data": "x"}', b'{"data": null}'])
def test_a_stamp_whose_data_is_no_mapping_is_no_stamp(tmp_path, content: bytes) -> None:
    """Every stamped document (gsvendor.yaml, an overlay, the lock) is a mapping: a stamp holding
    other data is damaged, and the file is read again instead of crashing on it."""
    import json

    from gsvendor.stamps import framed, stamp_path
    from gsvendor.vendoring import lock
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text("a: 1\n")
    stamp = stamp_path(tmp_path / "stamps", json.dumps({"type": "object"}, sort_keys=True), "a: 1\n")
    stamp.parent.mkdir()
    stamp.write_text(framed(content.decode()))
    assert load_validated(file, {"type": "object"}, "f.yaml", tmp_path / "stamps").data == {"a": 1}
    locked = tmp_path / "gsvendor.lock.yaml"
    text = "kind: Lock\ntag: v0.1.0\nsource: {kind: folder, location: up}\n"
    locked.write_text(text)
    stamp = stamp_path(tmp_path / "stamps", lock.KIND, text)
    stamp.write_text(framed(content.decode()))
    try:
        got = lock.read(locked, tmp_path / "stamps").tag
    except lock.LockError as exc:
        got = str(exc)
    stamp.unlink()
    try:
        expected = lock.read(locked, tmp_path / "stamps").tag
    except lock.LockError as exc:
        expected = str(exc)
    assert got == expected


def test_an_error_line_quotes_user_text_as_given(tmp_path) -> None:
    """Brackets, backslashes and emoji codes of a path in an error print as typed (rich read them as markup)."""
    import subprocess
    import sys

    odd = "[red]x\\[y:smile:.yaml"
    result = subprocess.run(
        [sys.executable, "-m", "gsvendor", "--config", str(tmp_path / odd), "verify"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and odd in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_stamp_edited_by_hand_is_read_past(project, cli, tmp_path) -> None:
    """Every stamp in the cache replaced by ``{"data": {}}`` (the text validated, the data gone): verify
    read it as gsvendor.yaml's data and crashed with ``KeyError: 'upstream'``. A stamp whose first line is
    not the sha256 of its JSON is not read; the files are parsed again."""
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 0, result.stderr
    stamps = [p for p in (tmp_path / "cache" / "validated").rglob("*") if p.is_file()]
    assert stamps
    for stamp in stamps:
        stamp.write_text('{"data":{}}')
    result = cli(project, "verify")
    assert (result.returncode, result.stderr) == (0, "")
    assert "ok" in result.stdout
