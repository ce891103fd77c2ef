"""The regular expressions overlays declare (``replace`` with ``regex: true``): compiled and run
in this one place, by the ``regex`` module (the syntax and replacement templates of :mod:`re`, its
VERSION0) with a time limit per search. Python's :mod:`re` has none, and a pattern that backtracks
exponentially (``^(\\s*\\w+\\s?)+;$`` over a values.yaml) held sync, verify and a CI job until
they were killed.
"""

from __future__ import annotations

from typing import Any

import regex

from gsvendor.errors import OverlayDefinitionError, shorten

MATCH_SECONDS = 5.0  # one search over one file; an overlay's pattern over a chart's largest CRD takes milliseconds
error = regex.error  # an invalid pattern or replacement template


class PatternTimeout(OverlayDefinitionError):
    """A pattern that did not finish one search in :data:`MATCH_SECONDS` (exit 2: the overlay's
    pattern is the input at fault, not upstream's text)."""


def compile_pattern(find: str) -> Any:
    """``find`` compiled as :func:`re.compile` with ``re.MULTILINE`` would; raises :data:`error`."""
    return regex.compile(find, regex.MULTILINE | regex.VERSION0)


def _timed_out(pattern: Any) -> PatternTimeout:
    return PatternTimeout(
        f"/{shorten(pattern.pattern)}/ did not finish in {MATCH_SECONDS:g} s (it backtracks exponentially, "
        "like (a+)+$); write a pattern without nested repetition"
    )


def subn(pattern: Any, template: str, text: str) -> tuple[str, int]:
    """``pattern.subn(template, text)`` within :data:`MATCH_SECONDS`; raises :class:`PatternTimeout`,
    :data:`error` or ``IndexError`` for a template naming a group the pattern lacks."""
    try:
        return pattern.subn(template, text, timeout=MATCH_SECONDS)
    except TimeoutError:
        raise _timed_out(pattern) from None
