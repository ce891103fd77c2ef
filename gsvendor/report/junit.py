"""JUnit XML for CI: one test case per checked unit."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor.files import write_whole


@dataclass
class TestCase:
    """One JUnit test case: ``name`` within ``classname``; ``failures``/``errors``: messages (none: passed)."""

    classname: str
    name: str
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """``text`` with the characters XML 1.0 forbids replaced (a values.yaml may hold any)."""
    return _NOT_XML.sub("\ufffd", text)


def _message(text: str) -> str:
    """The ``message`` attribute CircleCI shows: the first line of ``text``, cut at 200 characters."""
    line = text.split("\n", 1)[0]
    return _xml(line if len(line) <= 200 else line[:199] + "…")


def write_junit(path: Path, suite: str, cases: Iterable[TestCase]) -> None:
    """Write JUnit XML (as CircleCI's ``store_test_results`` reads it) of ``cases`` to ``path``.
    Raises :class:`~gsvendor.errors.UsageError` when ``path`` cannot be written."""
    cases = list(cases)
    counts = {"name": suite, "tests": str(len(cases))}
    counts |= {kind: str(sum(bool(getattr(c, kind)) for c in cases)) for kind in ("failures", "errors")}
    root = ET.Element("testsuites", counts)
    element = ET.SubElement(root, "testsuite", counts)
    for case in cases:
        node = ET.SubElement(
            element, "testcase", classname=_xml(case.classname), name=_xml(case.name), time=f"{case.seconds:.3f}"
        )
        for tag, messages in (("failure", case.failures), ("error", case.errors)):
            if messages:
                ET.SubElement(node, tag, message=_message(messages[0])).text = _xml("\n".join(messages))
        if case.output:
            ET.SubElement(node, "system-out").text = _xml(case.output)
    ET.indent(root)
    try:
        write_whole(path, ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
    except OSError as exc:
        from gsvendor.errors import UsageError, write_failure

        raise UsageError(f"--junit {path}: {write_failure(path, exc)}") from None
