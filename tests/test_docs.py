"""The README stays short and the command reference stays true to the CLI it documents."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from gsvendor.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 200


def test_readme_is_short_and_starts_with_the_main_job_and_the_tests() -> None:
    """A reader finds how to run the job and the tests first; the reference lives in docs/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES
    commands = [line.split("#")[0].strip() for line in lines[:6] if line.startswith("make ")]
    assert commands == ["make sync", "make test"]


def test_every_local_link_of_the_docs_exists() -> None:
    pages = [ROOT / "README.md", ROOT / "overlays/README.md", ROOT / "benchmarks/README.md", *ROOT.glob("docs/*.md")]
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in pages
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text())
        if not (page.parent / target).exists()
    ]
    assert broken == []


def sections() -> dict[str, str]:
    """docs/commands.md's text per command, from its ``## `gsvendor NAME …``` heading to the next."""
    text = (ROOT / "docs/commands.md").read_text()
    return dict(re.findall(r"^## `gsvendor ([a-z-]+)[^\n]*\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL))


def test_the_command_reference_names_every_command_and_option_of_the_help() -> None:
    """Every command ``gsvendor --help`` lists has its section in docs/commands.md, naming every
    long option its ``--help`` lists (the click command typer builds, which prints both)."""
    group = typer.main.get_command(app)
    documented = sections()
    missing = {
        name: [
            option
            for param in command.params
            for option in (*param.opts, *param.secondary_opts)
            if option.startswith("--") and option != "--help" and option not in documented.get(name, "")
        ]
        for name, command in group.commands.items()
    }
    assert sorted(documented) == sorted(group.commands)
    assert {name: options for name, options in missing.items() if options} == {}


def test_the_command_reference_names_every_global_option() -> None:
    text = (ROOT / "docs/commands.md").read_text()
    group = typer.main.get_command(app)
    options = [o for p in group.params for o in p.opts if o.startswith("--") and o != "--help"]
    assert options and [o for o in options if o not in text] == []


def test_the_synopses_bracket_the_arguments_a_command_may_omit() -> None:
    """The README's command table and docs/commands.md's headings write an argument ``--help`` shows
    as optional (``[TAG]``) in brackets: ``gsvendor sync TAG`` read as if the tag were required."""
    group = typer.main.get_command(app)
    arguments = {
        name: " ".join(str(p.metavar) for p in command.params if p.param_type_name == "argument")
        for name, command in group.commands.items()
    }
    optional = {name: re.findall(r"\[([A-Z_]+)\]", metavars) for name, metavars in arguments.items()}
    readme = re.findall(r"^\| `gsvendor ([a-z-]+)([^`]*)` \|", (ROOT / "README.md").read_text(), re.MULTILINE)
    headings = re.findall(r"^## `gsvendor ([a-z-]+)([^`]*)`", (ROOT / "docs/commands.md").read_text(), re.MULTILINE)
    assert {name for name, _ in readme} == set(group.commands)
    bare = [
        f"gsvendor {name}{synopsis}: {argument}"
        for name, synopsis in readme + headings
        for argument in optional[name]
        if re.search(rf"(?<![\[\w-]){argument}\b", synopsis)
    ]
    assert bare == []
