"""The package's shape (issue 12): no import cycle, dependencies pointing one way, modules small.

Layers, from the top: ``cli`` → ``workflows`` → the domain packages (upstream, overlays, generate,
vendor, images, build) → ``config``/``validation``/``errors``/``files``/``signals``. ``report`` presents results
and may read the domain's types; nothing below the CLI imports it except for ``report.junit``'s
neutral test-case type. Every import is counted, also those inside functions (lazy imports).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gsvendor"
DOMAIN = ("upstream", "overlays", "generate", "vendoring", "images", "manifests", "controller_images")
MAX_LINES = 900


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """gsvendor modules that ``path`` imports (``from a.b import c`` counts ``a.b.c`` when it is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in known}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(path, known) - {name} for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """The first import cycle found by depth-first search, as a closed path, or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_find_cycle_finds_a_planted_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle() -> None:
    assert find_cycle(graph()) is None


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("package", DOMAIN)
def test_domain_never_imports_cli_or_workflows(package: str) -> None:
    bad = sorted(
        f"{m} imports {d}"
        for m, deps in graph().items()
        if layer(m) == package
        for d in deps
        if layer(d) in ("cli", "workflows", "__main__") or (layer(d) == "report" and d != "gsvendor.report.junit")
    )
    assert bad == []


def test_workflows_never_import_cli() -> None:
    assert (
        sorted(
            f"{m} imports {d}"
            for m, deps in graph().items()
            if layer(m) == "workflows"
            for d in deps
            if layer(d) == "cli"
        )
        == []
    )


def test_config_errors_files_import_no_domain() -> None:
    base = {"config", "errors", "files", "signals", "stamps", "validation", "yamlio"}
    bad = sorted(
        f"{m} imports {d}" for m, deps in graph().items() if layer(m) in base for d in deps if layer(d) not in base
    )
    assert bad == []


def test_golang_emulations_import_nothing_of_gsvendor_outside_their_room() -> None:
    room = "gsvendor.generate.golang"
    shared = {"gsvendor.yamlio"}  # the limits every YAML reader obeys
    bad = sorted(
        f"{m} imports {d}"
        for m, deps in graph().items()
        if m.startswith(room)
        for d in deps
        if not d.startswith(room) and d not in shared
    )
    assert bad == []


def test_modules_stay_small() -> None:
    big = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert big == {}


def test_every_package_says_what_it_is_for() -> None:
    missing = [
        str(init.relative_to(PACKAGE.parent))
        for init in PACKAGE.rglob("__init__.py")
        if init.parent != PACKAGE and len((ast.get_docstring(ast.parse(init.read_text())) or "").splitlines()) < 2
    ]
    assert missing == []
