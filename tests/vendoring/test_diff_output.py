"""report.console.print_diffs: piped, the texts byte for byte; on a terminal, one unwrapped print per line."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from gsvendor.report.console import diff_line_style, print_diffs
from gsvendor.report.layout import StrippedLines
from gsvendor.vendoring.compare import FileDiff

DIFF = (
    "--- upstream/helm/c/values.yaml\n"
    "+++ vendored/helm/c/values.yaml\n"
    "@@ -1,3 +1,3 @@\n"
    " a: 1\n"
    "-b: 2  \n"
    "+b: {{ .Values.b }}\t# trailing spaces and tabs stay\n"
    " c: 3\n"
)


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=width, color_system="standard", highlight=False), buffer


def _per_line(console: Console, texts: list[str]) -> None:
    """A terminal's diff printed one rich print per line, unwrapped (soft wrap: the terminal folds)."""
    for text in texts:
        for line in text.splitlines():
            console.print(Text(line, style=diff_line_style(line)), soft_wrap=True)


def test_piped_diffs_are_the_texts_in_one_write() -> None:
    writes: list[str] = []

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return len(text)

    console = Console(file=StrippedLines(Stream()), highlight=False, width=80)
    print_diffs(console, [FileDiff("helm/c/values.yaml", "changed", DIFF), FileDiff("x", "added", "Binary x\n")])
    assert writes == [DIFF + "Binary x\n"]  # trailing spaces kept: StrippedLines is bypassed


def test_terminal_diff_is_coloured_per_line() -> None:
    console, buffer = _terminal(200)
    print_diffs(console, [FileDiff("p", "changed", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n")])
    assert buffer.getvalue() == (
        "\x1b[1m--- a\x1b[0m\n\x1b[1m+++ b\x1b[0m\n\x1b[36m@@ -1 +1 @@\x1b[0m\n"
        "\x1b[31m-x\x1b[0m\n\x1b[32m+y\x1b[0m\n z\n"
    )


def test_a_terminal_diff_line_wider_than_the_terminal_is_not_broken() -> None:
    """Each diff line stays one line with its +/-/space prefix (rich wrapping at the width broke a long
    added line into lines without a prefix, padded with spaces)."""
    console, buffer = _terminal(20)
    line = "+  url: https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/x"
    print_diffs(console, [FileDiff("p", "changed", f"--- a\n+++ b\n@@ -0,0 +1 @@\n{line}\n")])
    shown = buffer.getvalue().replace("\x1b[1m", "").replace("\x1b[36m", "").replace("\x1b[32m", "")
    assert shown.replace("\x1b[0m", "").splitlines() == ["--- a", "+++ b", "@@ -0,0 +1 @@", line]


def test_no_diffs_print_nothing_on_a_terminal() -> None:
    console, buffer = _terminal(80)
    print_diffs(console, [])
    assert buffer.getvalue() == ""


PIECES = ["a", " ", "  ", "\t", "x" * 30, "漢字", "😀", "\x1b[31m", "\r", "\x0b", "\u2028", "\n", "\n", "+", "-"]
PIECES += ["@@", "---", "+++ b", "[bold]", "e\u0301"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), max_size=3), st.sampled_from([9, 33, 80]))
def test_terminal_diff_is_what_one_print_per_line_showed(texts: list[str], width: int) -> None:
    ours, one = _terminal(width)
    theirs, other = _terminal(width)
    print_diffs(ours, [FileDiff("p", "changed", text) for text in texts])
    _per_line(theirs, texts)
    assert one.getvalue() == other.getvalue()


@pytest.mark.parametrize("width", [40, 100])
def test_terminal_diff_of_a_real_diff(width: int) -> None:
    ours, one = _terminal(width)
    theirs, other = _terminal(width)
    texts = [DIFF * 20, "Binary files a/x and b/x differ\n", DIFF]
    print_diffs(ours, [FileDiff("p", "changed", text) for text in texts])
    _per_line(theirs, texts)
    assert one.getvalue() == other.getvalue()
    assert one.getvalue().count("\x1b[32m+b: {{ .Values.b }}") == 21


def test_a_piped_writer_prints_diffs_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's console (report/writer.py) piped: the diff's bytes, trailing spaces kept."""
    from gsvendor.report.writer import Writer

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    buffer = io.StringIO()
    print_diffs(
        Writer(file=StrippedLines(buffer), width=80, highlight=False), [FileDiff("helm/c/values.yaml", "changed", DIFF)]
    )
    assert buffer.getvalue() == DIFF


def test_the_writer_on_a_terminal_colours_the_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    from gsvendor.report.writer import Writer

    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    ours, theirs = io.StringIO(), io.StringIO()
    print_diffs(Writer(file=StrippedLines(ours), width=40, highlight=False), [FileDiff("p", "changed", DIFF)])
    _per_line(Writer(file=StrippedLines(theirs), width=40, highlight=False), [DIFF])  # type: ignore[arg-type]
    assert ours.getvalue() == theirs.getvalue()
    coloured = "\n\x1b[31m-b: 2  \x1b[0m\n\x1b[32m+b: {{ .Values.b }}     \x1b[0m"
    coloured += "\x1b[32m# trailing spaces and tabs stay\x1b[0m\n"
    assert coloured in ours.getvalue()  # styled spaces are text, not padding: they stay
