"""Differential (d): gsvendor's schemalint-normalize emulation against what the real schemalint
v2.6.1 ``normalize`` wrote for 810 inputs (../shared/fidelity/schemalint-v2.6.1, see its README):
every case byte for byte, and the exit code (0: the normalized bytes; 1: the input refused).

The Go module proxy refuses schemalint's module, so the tool is usually absent; where a
``schemalint`` binary is installed (.tools/bin or PATH) the same cases also run through it, and
the recorded outputs must still be what it writes. Missing recorded outputs fail the test under CI.
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, require_tool, tool_path
from diff_tools import normalize_json, tally

from gsvendor.generate.schema.model import SchemaError

FIDELITY = ROOT.parent / "shared" / "fidelity" / "schemalint-v2.6.1"


def _cases() -> list[dict[str, str]]:
    """The manifest's rows (id, kind, source, normalize_exit, verify_exit)."""
    manifest = require_tool(
        "the recorded schemalint v2.6.1 outputs",
        FIDELITY / "manifest.tsv" if (FIDELITY / "manifest.tsv").is_file() else None,
        f"{FIDELITY}: ../shared/fidelity beside the repository",
    )
    with open(manifest, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _recorded(row: dict[str, str]) -> tuple[bytes, int, bytes | None]:
    """(input bytes, normalize's exit code, the bytes it wrote or ``None``) of one case."""
    cases = FIDELITY / "cases"
    written = cases / f"{row['id']}.normalized.json"
    code = int(row["normalize_exit"])
    return (cases / f"{row['id']}.input.json").read_bytes(), code, written.read_bytes() if code == 0 else None


def _ours(data: bytes) -> bytes | None:
    try:
        return normalize_json(data)
    except SchemaError:
        return None


def _real(schemalint: str, data: bytes, work: Path) -> tuple[int, bytes | None]:
    """``schemalint normalize IN -o OUT --force`` as the outputs were recorded: (exit code, OUT or None)."""
    source, out = work / "in.json", work / "out.json"
    source.write_bytes(data)
    out.unlink(missing_ok=True)
    done = subprocess.run(
        [schemalint, "normalize", str(source), "-o", str(out), "--force"], capture_output=True, check=False, timeout=60
    )
    return done.returncode, out.read_bytes() if done.returncode == 0 and out.is_file() else None


def test_every_recorded_case_normalizes_byte_for_byte(tmp_path: Path) -> None:
    """The emulation on every case; where schemalint is installed, the real tool on every case too
    (the module proxy refuses its module, so CI cannot require it: the recorded outputs stand in)."""
    rows = _cases()
    schemalint = tool_path("schemalint")
    result = tally("schemalint normalize, recorded v2.6.1 outputs")
    real = tally("schemalint normalize, recorded v2.6.1 outputs, real tool") if schemalint else None
    for row in rows:
        data, code, written = _recorded(row)
        assert (written is not None) == (code == 0), row
        label = f"{row['id']} {row['kind']} {row['source']}"
        result.check(label, written, _ours(data))
        if schemalint and real is not None:
            real_code, real_written = _real(schemalint, data, tmp_path)
            real.check(f"{label} (exit {real_code})", written, real_written)
    assert result.compared == len(rows) == 810
    assert sum(1 for r in rows if r["normalize_exit"] == "1") == 8  # the refused inputs stay refused
    assert result.differences == [], "\n".join(result.differences[:20])
    assert real is None or real.differences == [], "\n".join(real.differences[:20])


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"b":1,"type":"x","a":-0}', b'{\n    "type": "x",\n    "a": -0,\n    "b": 1\n}\n'),
        (b"[1.0, 1e21, 123456789012345678901234567890]", b"[\n    1,\n    1e+21,\n    1.2345678901234568e+29\n]\n"),
        (b'{"a":"\xff<&>","a":"\\ud800"}', '{\n    "a": "\ufffd"\n}\n'.encode()),
        (b'"x"', b'"x"\n'),
    ],
)
def test_inputs_read_as_go_reads_json(data: bytes, expected: bytes) -> None:
    assert normalize_json(data) == expected


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf{}", b"{} {}", b"{}x", b"", b"  ", b"1e400", b"NaN", b"[1,]"])
def test_inputs_go_refuses_are_refused(data: bytes) -> None:
    with pytest.raises(SchemaError, match=r"invalid JSON|cannot unmarshal"):
        normalize_json(data)
