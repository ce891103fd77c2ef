"""compare.unified on bytes: difflib's text of the decoded lines, byte for byte, with head and tail trimmed."""

from __future__ import annotations

import difflib

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsvendor.vendoring import compare

LABELS = ("a", "b")


def _reference(before: bytes | None, after: bytes | None) -> str:
    """difflib over the decoded text's lines."""
    if before == after:
        return ""
    old = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old,
        new,
        fromfile="a/f" if before is not None else "/dev/null",
        tofile="b/f" if after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# line breaks str.splitlines cuts besides \n (\r, \x0b, U+2028, U+0085) and invalid UTF-8
PIECES = st.lists(
    st.sampled_from(
        [
            *(b"a\n", b"b\n", b"c\n", b"  d: e\n", b"\xc3\xbc\n", b"x", b"\n", b"a"),
            *(b"\r\n", b"\x0b", b"\xe2\x80\xa8", b"\xc2\x85", b"\xff\n", b"\xfe\n", b"\xe2\x80\n"),
        ]
    ),
    max_size=40,
)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.none(), PIECES.map(b"".join)), st.one_of(st.none(), PIECES.map(b"".join)), st.sampled_from([0, 5]))
@example(b"a\nb", b"a\nb\n", 0)
@example(b"a\nb\n", b"a\nb", 0)
@example(b"x\na\nb\n", b"a\nb\n", 0)
@example(b"a\nb\n", b"x\na\nb\n", 0)
@example(b"a\na\na\n", b"a\na\n", 0)
@example(b"\xff\n", b"\xfe\n", 0)  # different bytes, the same replaced text: no diff
def test_unified_is_difflibs_text(before: bytes | None, after: bytes | None, trim_above: int) -> None:
    if (before and b"\0" in before) or (after and b"\0" in after):
        return
    assert compare.unified("f", before, after, LABELS, trim_above=trim_above) == _reference(before, after)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=300, unique=True), st.data())
def test_unified_of_a_local_edit_in_bytes(base: list[int], data: st.DataObject) -> None:
    """Long files with an edit somewhere: head and tail are trimmed, the text is difflib's."""
    old = [b"line %d\n" % n for n in base] + [b"common\n"] * 3
    at = data.draw(st.integers(0, len(old)))
    cut = data.draw(st.integers(0, 5))
    added = data.draw(st.lists(st.sampled_from([b"new 1\n", b"new 2\n", b"common\n", b"line", b"ne"]), max_size=6))
    before = b"".join(old) + data.draw(st.sampled_from([b"", b"end", b"common"]))
    after = b"".join(old[:at] + added + old[at + cut :]) + data.draw(st.sampled_from([b"", b"end", b"mon"]))
    for one, other in ((before, after), (after, before)):
        assert compare.unified("f", one, other, LABELS, trim_above=0) == _reference(one, other)


def test_a_large_crd_like_edit_prints_the_hunk() -> None:
    lines = [b"      description: field %d\n" % n for n in range(5000)]
    before = b"".join(lines)
    after = b"".join([*lines[:2500], b"      description: {{ .Values.x }}\n", *lines[2501:]])
    assert compare.unified("crd.yaml", before, after, ("upstream", "vendored")) == (
        "--- upstream/crd.yaml\n"
        "+++ vendored/crd.yaml\n"
        "@@ -2498,7 +2498,7 @@\n"
        "       description: field 2497\n"
        "       description: field 2498\n"
        "       description: field 2499\n"
        "-      description: field 2500\n"
        "+      description: {{ .Values.x }}\n"
        "       description: field 2501\n"
        "       description: field 2502\n"
        "       description: field 2503\n"
    )


def test_a_change_among_lines_ending_alike_prints_difflibs_hunk() -> None:
    """A line that 3,000 others end with is not popular: the whole lines are counted."""
    lines = [b"a\n"] + [b"x%da\n" % n for n in range(3000)]  # 3,000 lines end with b"a\n"
    before = b"".join(lines)
    after = b"".join([*lines[:1500], b"changed\n", *lines[1501:]])
    assert after.count(b"a\n") > len(lines) // 100 + 1
    text = compare.unified("f", before, after, LABELS)
    assert text == _reference(before, after)
    assert text.splitlines()[2:] == [
        *("@@ -1498,7 +1498,7 @@", " x1496a", " x1497a", " x1498a"),
        *("-x1499a", "+changed", " x1500a", " x1501a", " x1502a"),
    ]


def test_a_file_name_with_control_characters_is_quoted_as_git_quotes_it(tmp_path) -> None:
    """A name holding an escape sequence or a bidirectional control was written raw into the ``---``/``+++``
    header, reaching the terminal; quoted as git quotes it, the diff still applies with ``git apply``."""
    import subprocess

    name = 'd/x\x1b[31m\u202e"q\\.yaml'
    text = compare.unified(name, b"a\n", b"b\n", LABELS)
    assert text.splitlines()[:2] == [
        '--- "a/d/x\\033[31m\\342\\200\\256\\"q\\\\.yaml"',
        '+++ "b/d/x\\033[31m\\342\\200\\256\\"q\\\\.yaml"',
    ]
    assert compare.unified("d/é.yaml", b"a\n", b"b\n", LABELS).startswith("--- a/d/é.yaml\n+++ b/d/é.yaml\n")
    # an undecodable byte of a name (0x9b, a terminal's one-byte CSI) as os.fsdecode gives it, octal as git writes it
    assert compare.git_quoted("a/\udc9bcsi.yaml") == '"a/\\233csi.yaml"'
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "d").mkdir()
    (tmp_path / name).write_bytes(b"a\n")
    subprocess.run(["git", "apply"], input=text.encode(), cwd=tmp_path, check=True)
    assert (tmp_path / name).read_bytes() == b"b\n"
