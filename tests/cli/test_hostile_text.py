"""Hostile text in what gsvendor prints and writes: bidirectional controls, CR, emoji codes, Markdown."""

from __future__ import annotations

import io
from pathlib import Path

from conftest import Cli, tarball


def test_verify_shows_a_bidi_override_and_an_emoji_code_in_a_file_name_as_written(cli: Cli, project: Path) -> None:
    """helm/kserve-crd/templates/"a<U+202E>lmay.exe:smile:": the error line carried U+202E as is (the
    terminal showed the rest of the line reversed, "exe.yaml") and said() turned :smile: into 😄."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    (project / "helm/kserve-crd/templates/a\u202elmay.exe:smile:").write_text("x: 1\n")
    result = cli(project, "verify")
    assert result.returncode == 1
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        "error: verify failed: 1 file(s) differ from v0.20.0 + overlays: "
        "helm/kserve-crd/templates/a\\u202elmay.exe:smile:"
    ]


def test_a_table_cell_shows_cr_bel_and_line_separators_escaped_not_dropped() -> None:
    """A string in a rich table's cell became a Text unseen by the writer's print: CR and BEL were
    dropped, U+2028 became a wrap, U+202E reordered the cell; a tag's :smile: became 😄."""
    from rich.table import Table

    from gsvendor.report.writer import Writer

    out = io.StringIO()
    writer = Writer(file=out, width=60)
    table = Table("image", box=None, show_header=False)
    table.add_row("a\rb\x07c\u2028d\u202ee:smile:")
    writer.print(table)
    writer.say("tag {}", ":smile: [red]x")
    assert out.getvalue() == " a\\x0db\\x07c\\u2028d\\u202ee:smile: \ntag :smile: [red]x\n"


def test_markdown_cells_hold_any_backtick_run_and_line_break_as_code() -> None:
    """code() fenced text holding ``a``b`` with two backticks, so the span closed inside it; a CR
    ended the table's row (CommonMark line endings)."""
    from gsvendor.report.upgrade import code

    assert code("a``b") == "``` a``b ```"
    assert code("x\ry|z\u202e") == "`x\\x0dy\\|z\\u202e`"
    assert code("a\nb") == "`a b`"


def test_an_overlay_description_is_shown_as_written_not_read_as_markdown() -> None:
    """An overlay's name and description went into the report's table as Markdown: ``<img …>`` was
    HTML, ``|`` a new cell (in the list below the table a ``|`` is text), ``docker.io/kserve/<name>``
    lost its ``<name>`` on the rendered page."""
    from gsvendor.report.upgrade import markdown
    from gsvendor.vendoring.upgrade import ChartUpgrade, OverlayUse, Upgrade

    description = "images (docker.io/kserve/<name>) | <img src=x> *b* [l](u) &amp;"
    use = OverlayUse("10_x_", "operations[0] (set)", (1, 1), (1, 1), description)
    chart = ChartUpgrade(name="kserve-crd", dest="helm/`x`", overlays=[use])
    report = markdown(Upgrade("v0.19.0", "v0.20.0", [chart]))
    assert "## kserve-crd (`` helm/`x` ``)\n" in report
    assert (
        "| 10\\_x\\_ | (1) | 1 × 1 | 1 × 1 |\n\n- (1) operation: operations[0] (set): images "
        "(docker.io/kserve/\\<name\\>) | \\<img src=x\\> \\*b\\* \\[l](u) \\&amp;\n"
    ) in report


def test_a_crd_enum_value_in_the_report_is_text_not_html() -> None:
    """An upstream CRD's enum value (``<script>``) and field went raw into the report's list of
    changes a reviewer should look at."""
    from gsvendor.report.upgrade import markdown
    from gsvendor.vendoring.crdchanges import classify
    from gsvendor.vendoring.upgrade import ChartUpgrade, CrdChange, Upgrade

    def traits(enum: tuple[str, ...]) -> dict:
        return {
            "storage": "v1",
            "served": {"v1": True},
            "conversion": "None",
            "types": {"v1": {"a_b_": "string"}},
            "required": {"v1": set()},
            "enums": {"v1": {"a_b_": enum}},
        }

    lines = classify(traits(("<script>x</script>", "ok")), traits(("ok",)))  # type: ignore[arg-type]
    crd = CrdChange(file="crds/x.yaml", name="x.io", fields_added=("v1: f",), classified=lines)
    report = markdown(Upgrade("v0.19.0", "v0.20.0", [ChartUpgrade(name="c", dest="c", crds=[crd])]))
    assert "- `x.io`: v1: spec.a\\_b\\_ enum narrowed (no longer: \\<script\\>x\\</script\\>)\n" in report


def test_a_hand_edited_file_named_with_a_line_break_is_named_on_the_one_error_line(cli: Cli, project: Path) -> None:
    """sync's refusal lists hand-edited files; a line feed in one's name is escaped where the error
    is printed, so the refusal stays one ``error:`` line."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    (project / "helm/kserve-crd/templates/a\nb.yaml").write_text("x: 1\n")
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("error: refusing to overwrite changes the lock and the overlays do not explain: ")
    assert "helm/kserve-crd/templates/a\\x0ab.yaml" in line


def test_a_long_run_of_path_segments_wraps_in_one_pass() -> None:
    """180 kB of "ab/" without a space (a hostile image in values.yaml): each of its 60,000 words tried
    the glued number-and-unit forms, which scan to the run's end, so wrapping took minutes. A number and
    its unit after it stay together."""
    import subprocess
    import sys

    script = (
        "from gsvendor.report.writer import wrap_offsets as w\n"
        "text = 'ab/' * 60_000 + ' 3.1 s'\n"
        "print(w('ab/' * 60_000, 80) == list(range(78, 180_000, 78)), w(text, 80)[-1], len(text))\n"
    )
    # a separate interpreter, stopped if it runs on: the quadratic scan took minutes
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    # 'ab/' * 60_000 breaks every 78 characters, the last line "ab/ab/ 3.1 s" (180,000 is no multiple of 78)
    assert done.stdout == f"True {180_000 // 78 * 78} {180_006}\n"
