"""The plain console writes what rich writes: every call it takes itself is checked against rich."""

from __future__ import annotations

import io
import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsvendor.report import layout
from gsvendor.report.plain import LazyConsole, plain_for_rich, strip_markup

PIECES = st.lists(
    st.sampled_from(
        [
            "ok",
            "error:",
            " ",
            "  ",
            "a",
            "x" * 30,
            ":",
            ":smile:",
            "[green]",
            "[/]",
            "[/green]",
            "[red]",
            "[bold]",
            "[link=x]",
            "[@click]",
            "\\",
            "\\[",
            "[",
            "]",
            "[x]",
            "\n",
            "\t",
            "ü",
            "\r",
            "v0.20.0",
            "/",
            "-",
            "[/red]",
            "[0]",
            "[a b]",
        ]
    ),
    max_size=25,
)


def _rich(text: str, width: int | None, method: str, **options: object) -> str:
    from rich.console import Console

    stream = io.StringIO()
    console = Console(file=stream, highlight=False, width=width)
    try:
        getattr(console, method)(text, **options)
    except Exception as exc:  # a MarkupError: the plain console must hand the call to rich
        return f"raised {type(exc).__name__}"
    return stream.getvalue()


def _plain(text: str, width: int | None, method: str, **options: object) -> tuple[str, bool]:
    stream = io.StringIO()
    console = LazyConsole(stream, width)
    try:
        getattr(console, method)(text, **options)
    except Exception as exc:
        return f"raised {type(exc).__name__}", console._rich is None
    return stream.getvalue(), console._rich is None


@pytest.fixture(autouse=True)
def _no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@settings(max_examples=600, deadline=None)
@given(PIECES, st.sampled_from([None, 20, 40, 100]), st.booleans(), st.booleans(), st.sampled_from(["\n", ""]))
@example(["[green]", "ok", "[/]", ":", " ", "output"], 100, False, True, "\n")
@example(["x" * 30, " ", "x" * 30], 40, False, True, "\n")
def test_print_writes_what_rich_writes(
    pieces: list[str], width: int | None, soft: bool, markup: bool, end: str
) -> None:
    text = "".join(pieces)
    options = {"soft_wrap": soft, "markup": markup, "end": end, "emoji": len(pieces) % 2 == 0}
    written, _ = _plain(text, width, "print", **options)
    assert written == _rich(text, width, "print", **options)


WORDS = st.lists(st.sampled_from(["a", "bb", "x" * 7, " ", "  ", "/", "-", "ccc ", "[/]", "[green]"]), max_size=30)


@settings(max_examples=1500, deadline=None)
@given(WORDS, st.integers(min_value=1, max_value=16), st.booleans())
@example(["x" * 7, " ", "x" * 7], 7, False)  # a line full to the width keeps its blank
@example([" ", "x" * 7, "x" * 7], 5, False)  # a folded word after a leading blank
def test_wrapping_is_riches(words: list[str], width: int, markup: bool) -> None:
    """Lines wider than the console are wrapped exactly as rich wraps them, and rich stays unloaded."""
    text = "".join(words)
    written, took_it = _plain(text, width, "print", markup=markup, emoji=False)
    assert written == _rich(text, width, "print", markup=markup, emoji=False)
    assert took_it or written == "raised MarkupError"


@settings(max_examples=300, deadline=None)
@given(PIECES, st.sampled_from([None, 20, 100]))
def test_out_writes_what_rich_writes(pieces: list[str], width: int | None) -> None:
    text = "".join(pieces)
    written, _ = _plain(text, width, "out", highlight=False)
    assert written == _rich(text, width, "out", highlight=False)


@pytest.mark.parametrize(
    ("text", "options", "plain"),
    [
        ("[green]ok[/]: output is upstream v0.20.0 plus the declared overlays", {}, True),
        ("[red]error:[/] verify failed: 2 file(s) differ", {"soft_wrap": True}, True),
        ("x" * 101, {}, True),  # wider than the console: wrapped as rich wraps it
        ("x" * 101, {"end": ""}, False),  # rich wraps the end with the text: rich does it
        ("a\n" + "x" * 101, {}, False),  # several lines to wrap: rich does it
        ("x" * 101, {"soft_wrap": True}, True),
        ("a :smile: b", {}, False),  # an emoji code
        ("[link=https://x]x[/link]", {}, False),
        ("tab\there", {}, False),
        ("über", {}, False),
    ],
)
def test_which_calls_the_plain_console_writes_itself(text: str, options: dict, plain: bool) -> None:
    written, took_it = _plain(text, 100, "print", **options)
    assert took_it is plain
    assert written == _rich(text, 100, "print", **options)


def test_once_rich_is_loaded_every_call_goes_there() -> None:
    stream = io.StringIO()
    console = LazyConsole(stream, 100)
    console.print("a :smile: b")
    assert console._rich is not None
    console.print("[green]ok[/]")
    assert stream.getvalue() == "a 😄 b\nok\n"


@pytest.mark.parametrize(
    ("environ", "plain"),
    [
        ({}, True),
        ({"FORCE_COLOR": "1"}, False),
        ({"FORCE_COLOR": ""}, True),
        ({"TTY_COMPATIBLE": "1"}, False),
        ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, True),
    ],
)
def test_a_forced_terminal_goes_to_rich(environ: dict, plain: bool) -> None:
    assert plain_for_rich(environ, io.StringIO()) is plain


def test_markup_is_stripped_as_rich_renders_it() -> None:
    assert strip_markup("[green]ok[/]: a \\[b] c") == "ok: a [b] c"
    assert strip_markup("\\\\[red]x[/red]") == "\\x"
    assert strip_markup("[/]") is None and strip_markup("[red]x[/green]") is None


@settings(max_examples=600, deadline=None)
@given(PIECES)
def test_escape_is_riches(pieces: list[str]) -> None:
    from rich.markup import escape as rich_escape

    from gsvendor.errors import escape_controls
    from gsvendor.report.plain import escape

    text = "".join(pieces)
    assert escape(text) == rich_escape(escape_controls(text))  # control characters escaped first


def test_is_terminal_is_answered_without_rich_until_rich_is_loaded() -> None:
    console = LazyConsole(io.StringIO(), 100)
    assert console.is_terminal is False and console._rich is None
    console.rich()
    assert console.is_terminal is False  # now rich's own answer


@pytest.mark.parametrize(
    "text", ["a [red]b[/] c", "x\\[y:smile:", "über\there", "[PATCH] 0001.patch", "a" * 300, "no markup"]
)
@pytest.mark.parametrize("width", [None, 40])
def test_a_labelled_line_prints_its_text_as_given(text: str, width: int | None) -> None:
    """``labelled``: rich's Text of the label and the text (no markup or emoji codes read), unwrapped."""
    from rich.console import Console
    from rich.text import Text

    ours, theirs = io.StringIO(), io.StringIO()
    LazyConsole(ours, width).labelled("error:", "red", text)
    Console(file=theirs, highlight=False, width=width).print(
        Text.assemble(("error:", "red"), " ", text), soft_wrap=True
    )
    assert ours.getvalue() == theirs.getvalue()
    if "\t" not in text and text.isascii():
        assert ours.getvalue() == f"error: {text}\n"


SUMMARY = (
    "[green]ok[/]: checked 42 image reference(s) in 24 rendered variant(s) and the values.yaml of 5 chart(s) "
    "in 3.1 s: 0 outside gsoci.azurecr.io/giantswarm/, 0 invalid, 0 variant problem(s)"
)


@pytest.mark.parametrize("tail", ["", " \u2713"])  # plain ASCII is written directly; a check mark goes to rich
def test_a_summary_never_parts_a_number_from_its_unit(tail: str) -> None:
    """In a 100-column CI log rich breaks check-images' summary between "3.1" and "s:"; gsvendor does not."""
    assert _rich(SUMMARY + tail, 100, "print").splitlines()[0].endswith(" in 3.1")
    written, took_it = _plain(SUMMARY + tail, 100, "print")
    assert took_it is (tail == "")
    assert written == (
        "ok: checked 42 image reference(s) in 24 rendered variant(s) and the values.yaml of 5 chart(s) in \n"
        f"3.1 s: 0 outside gsoci.azurecr.io/giantswarm/, 0 invalid, 0 variant problem(s){tail}\n"
    )
    wider, _ = _plain(SUMMARY + tail, 104, "print")
    assert wider.splitlines()[0].endswith(" in 3.1 s: ")


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=8, max_value=60),
    st.sampled_from(["3.1 s", "12 ms", "4.4 MB", "2 MiB", "1024 bytes/s"]),
    st.sampled_from(["", "[bold]", "\u00fc "]),
)
def test_no_width_parts_a_number_from_its_unit(width: int, quantity: str, lead: str) -> None:
    number, unit = quantity.split(" ")
    text = f"{lead}took a while: {quantity}, then {quantity}: done in {quantity}"
    written, _ = _plain(text, width, "print")
    lines = [line.rstrip() for line in written.splitlines()]
    assert all(line.lstrip() for line in lines)
    for line, after in itertools.pairwise(lines):
        assert not (line.endswith(number) and after.startswith(unit)), lines


KINDS = (
    "not checked (no CRD in the charts): CustomResourceDefinition 17, ValidatingWebhookConfiguration 14, "
    "Service 10, ClusterRole 7, ClusterRoleBinding 6, Certificate 4, ConfigMap 4, Secret 2"
)


@pytest.mark.parametrize("width", [60, 80, 100])
def test_no_width_parts_a_count_from_its_noun_or_name(width: int) -> None:
    """check-manifests' lists of kinds and every summary's counts ("0 variant problem(s)") at CI widths."""
    summary = "ok: checked 16 object(s) against 12 CRD(s) in 10 variant(s) of 5 chart(s) in 0.8 s: 0 finding(s), "
    for text in (KINDS, summary + "0 variant problem(s)"):
        written, took_it = _plain(text, width, "print")
        lines = written.splitlines()
        assert took_it and len(lines) > 1 and all(len(line.rstrip()) <= width for line in lines)
        for line, after in itertools.pairwise(lines):
            assert not re.search(r"(^|\s)\d+\s*$", line), lines  # a line ends in a count
            assert not re.match(r"\d+(,|$)", after), lines  # the next begins with one
    assert _plain(summary + "0 variant problem(s)", 100, "print")[0] == (
        "ok: checked 16 object(s) against 12 CRD(s) in 10 variant(s) of 5 chart(s) in 0.8 s: 0 finding(s), \n"
        "0 variant problem(s)\n"
    )
    assert layout.wrap(KINDS, 80) == [
        "not checked (no CRD in the charts): CustomResourceDefinition 17,",
        "ValidatingWebhookConfiguration 14, Service 10, ClusterRole 7,",
        "ClusterRoleBinding 6, Certificate 4, ConfigMap 4, Secret 2",
    ]
