"""The fast paths give the bytes of the slow ones: trimmed diffs, whitespace normalisation, C-parsed YAML."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from gsvendor.files import _normalize_lines, normalize_whitespace
from gsvendor.vendor import compare

LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "  d: e\n", "ü\n", "x", "\n"]), max_size=40)


def _difflib(old: list[str], new: list[str]) -> list[str]:
    return list(difflib.unified_diff(old, new, fromfile="f", tofile="t"))


@settings(max_examples=500, deadline=None)
@given(LINES, LINES)
def test_trimmed_diff_is_difflibs_diff(old: list[str], new: list[str]) -> None:
    assert compare.unified_lines(old, new, "f", "t", trim_above=0) == _difflib(old, new)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=0, max_size=300, unique=True), st.data())
def test_trimmed_diff_of_a_local_edit(base: list[int], data: st.DataObject) -> None:
    """A long file with an edit somewhere: the trimmed path is taken and still gives difflib's text."""
    old = [f"line {n}\n" for n in base] + ["common\n"] * 3
    at = data.draw(st.integers(0, len(old)))
    cut = data.draw(st.integers(0, 5))
    added = data.draw(st.lists(st.sampled_from(["new 1\n", "new 2\n", "common\n"]), max_size=6))
    new = old[:at] + added + old[at + cut :]
    assert compare.unified_lines(old, new, "f", "t", trim_above=0) == _difflib(old, new)


def test_trimmed_diff_of_a_large_file_with_popular_lines() -> None:
    """autojunk's popularity is judged on the whole file, as difflib does."""
    old = [f"{n % 7}\n" if n % 3 else f"unique {n}\n" for n in range(5000)]
    new = old[:2500] + ["x\n", "y\n", "x\n"] * 30 + old[2510:]
    assert compare.unified_lines(old, new, "f", "t") == _difflib(old, new)
    new = old[:2500] + [f"z{n % 3}\n" for n in range(300)] + old[2500:]
    assert compare.unified_lines(old, new, "f", "t") == _difflib(old, new)


WHITESPACE_BYTES = st.lists(
    st.sampled_from([b"a", b"b", b" ", b"\t", b"\x0b", b"\x0c", b"\r", b"\n", b"\r\n", b"\xc3\xbc"])
)


@settings(max_examples=1000, deadline=None)
@given(WHITESPACE_BYTES)
def test_fast_whitespace_normalisation_is_the_line_loop(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert normalize_whitespace(data) == _normalize_lines(data)


def test_clean_files_are_returned_as_they_are() -> None:
    for data in (b"a\n", b"a: b\n  c: d\n", b"a\r\nb\r\n", b"\xc3\xbc\n"):
        assert normalize_whitespace(data) is data


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["0\n", "1\n", "2\n", "unique\n"]), min_size=200, max_size=260),
    st.integers(0, 260),
    st.integers(0, 3),
    st.lists(st.sampled_from(["1\n", "2\n", "x\n", "y\n"]), max_size=4),
)
def test_trimmed_diff_where_autojunk_calls_lines_popular(base: list[str], at: int, cut: int, added: list[str]) -> None:
    """Files of 200 lines or more: difflib ignores popular lines when it looks for matches."""
    old = [line if line != "unique\n" else f"unique {n}\n" for n, line in enumerate(base)]
    new = old[:at] + added + old[at + cut :]
    for one, other in ((old, new), (new, old)):
        assert compare.unified_lines(one, other, "f", "t", trim_above=0) == _difflib(one, other)
