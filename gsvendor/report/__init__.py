"""Presentation: rich tables and text, JSON and JUnit XML of the results the workflows return.

Computes nothing a check depends on; the phrasing the reports share is here."""

from __future__ import annotations

from collections.abc import Sequence


def ok_prefix(ok: bool) -> str:
    """``[green]ok[/]: `` before a passing run's totals line, nothing before a failing one's."""
    return "[green]ok[/]: " if ok else ""


def some(items: Sequence[str], shown: int = 5) -> str:
    """The first ``shown`` of ``items``, comma-separated, then `` and N more``."""
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def listed(label: str, items: Sequence[str]) -> str:
    """``N label: a, b, …`` (:func:`some` of ``items``), or ``""`` when there are none."""
    return f"{len(items)} {label}: {some(items)}" if items else ""


def failed(command: str, *parts: str) -> str:
    """``<command> failed: part; part``, empty parts left out: the one-line reason a check exits 1."""
    return f"{command} failed: " + "; ".join(part for part in parts if part)
