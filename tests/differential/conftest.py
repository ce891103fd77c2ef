"""Differential tests (issue 20): gsvendor's emulations against the real Go tools, byte for byte."""

from __future__ import annotations

import pytest
from diff_tools import TALLIES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print what every differential test compared (inputs and differences)."""
    if TALLIES:
        terminalreporter.section("differential tests")
        for name, tally in sorted(TALLIES.items()):
            terminalreporter.write_line(f"{name}: {tally.compared} compared, {len(tally.differences)} different")
