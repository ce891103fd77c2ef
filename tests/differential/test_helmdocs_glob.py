"""Differential: ``.Files.Glob`` patterns — character classes above all, where gobwas/glob's lexer
has rules of its own (``[!…]``, a range only when the second character is ``-``, ``\\`` escapes in
a list but not in a range, an empty list refused) — compiled by gsvendor and by the real helm-docs
on the same chart: the README bytes must be equal. A pattern gobwas refuses matches nothing."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from diff_tools import tool

from gsvendor.config import GenerateSettings
from gsvendor.generate.readme.template import render_readme

NAMES = ("a", "b", "c", "]", "-", "\\", "!", "^", "ab", "d/x")
CRAFTED = (
    "a", "[]", "[]]", "[!]", "[]a]", "a[]", "[\\]", "[a-]", "[^a]", "[!a]", "[z-a]", "[ab-c]", "[\\]]",
    "[a-c-d]", "[!-a]", "[\\-a]", "[a\\-c]", "[!!]", "[a-a]", "[]-a]", "[-]", "[!]]", "[\\\\]", "[a-\\]",
    "[b-\\\\]", "[a", "{a,b", "{a,[bc]}", "*/x", "**", "?", "[!a-b]", "\\[", "[[]",
)  # fmt: skip
ALPHABET = "ab[]!-\\^*?/"  # no braces: gobwas panics on some unclosed ones (`]{`), failing the chart


def _patterns() -> list[str]:
    """The crafted patterns and 400 drawn from :data:`ALPHABET` (a fixed seed: the same every run)."""
    draw = random.Random(7)
    drawn = ["".join(draw.choice(ALPHABET) for _ in range(draw.randint(1, 7))) for _ in range(400)]
    return list(dict.fromkeys(CRAFTED + tuple(drawn)))


def test_glob_patterns_match_helm_docs(tmp_path: Path) -> None:
    patterns = _patterns()
    template = "".join(
        f"{i}: {{{{ range $p, $_ := (.Files.Glob `{p}`).AsMap }}}}<{{{{ $p }}}}>{{{{ end }}}}\n"
        for i, p in enumerate(patterns)
    )
    chart = tmp_path / "helm" / "c"
    files = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "values.yaml": "a: 1\n"}
    files |= {"README.md.gotmpl": template} | {name: "x\n" for name in NAMES}
    for name, text in files.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    subprocess.run([tool("helm-docs"), "--chart-search-root=helm", "--log-level=error"], cwd=tmp_path, check=True)
    real = (chart / "README.md").read_bytes().decode().splitlines()
    walked = {p.relative_to(chart).as_posix(): p.read_bytes() for p in chart.rglob("*") if p.is_file()}
    walked.pop("README.md")
    ours = render_readme(walked, template, chart_dir="helm/c", settings=GenerateSettings()).decode().splitlines()
    assert len(real) == len(patterns) == len(ours)
    assert any("<helm/c/]>" in line for line in real)  # the chart's odd names are there to be matched
    wrong = [
        f"{pattern!r}: helm-docs {r!r}, gsvendor {o!r}"
        for pattern, r, o in zip(patterns, real, ours, strict=True)
        if r != o
    ]
    assert wrong == [], "\n".join(wrong)
