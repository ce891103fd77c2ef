"""The regular expressions overlays declare (``replace`` with ``regex: true``), compiled and run here
by the ``regex`` module (:mod:`re`'s syntax and templates, its VERSION0) with a time limit per search:
:mod:`re` has none, and a pattern backtracking exponentially held sync and CI until killed.
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


def subn(pattern: Any, template: str, text: str) -> tuple[str, int]:
    """``pattern.subn(template, text)`` within :data:`MATCH_SECONDS`; raises :class:`PatternTimeout`,
    :data:`error` or ``IndexError`` for a template naming a group the pattern lacks."""
    try:
        return pattern.subn(template, text, timeout=MATCH_SECONDS)
    except TimeoutError:
        raise PatternTimeout(
            f"/{shorten(pattern.pattern)}/ did not finish in {MATCH_SECONDS:g} s (it backtracks exponentially, "
            "like (a+)+$); write a pattern without nested repetition"
        ) from None
