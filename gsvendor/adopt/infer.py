"""Every file of one chart against upstream's: the operations, copies and deletions that reproduce it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gsvendor.adopt.textdiff import text_operations
from gsvendor.adopt.values import VALUE_FILES, declared, value_operations
from gsvendor.errors import GsvendorError
from gsvendor.files import normalize_whitespace
from gsvendor.overlays.engine import Operation, Overlay, apply_overlays, unclosed


@dataclass
class ChartInference:
    """What one chart needs: ``operations`` in application order (overlay dicts), Giant Swarm-only ``copies``
    (chart-relative path → bytes), upstream files ``deleted``, ``problems`` (a file and why, one line each)."""

    chart: str
    operations: list[dict[str, Any]] = field(default_factory=list)
    copies: dict[str, bytes] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _reproduces(chart: str, path: str, upstream: bytes, tree: bytes, ops: list[dict[str, Any]], tag: str) -> bool:
    """Whether ``ops`` turn ``upstream`` into ``tree`` through the overlay engine and sync's whitespace fixes."""
    operations = tuple(
        Operation(op["op"], {"file": path, **{k: v for k, v in op.items() if k != "op"}}, i) for i, op in enumerate(ops)
    )
    overlay = Overlay("adopt", Path("adopt.yaml"), (), None, operations)
    try:
        result = apply_overlays(chart, {path: upstream}, [overlay], tag)
    except GsvendorError:
        return False
    return normalize_whitespace(result.files[path]) == tree


def file_operations(chart: str, path: str, upstream: bytes, tree: bytes, tag: str) -> list[dict[str, Any]]:
    """The operations (dicts with ``op``) that turn upstream's ``path`` into the tree's, checked through the
    engine. Raises :class:`ValueError` (or its :class:`~gsvendor.adopt.textdiff.NoAnchor`) when none do."""
    if b"\0" in upstream or b"\0" in tree:
        raise ValueError("a binary file changed (overlays edit text; copy it as a Giant Swarm-only file by hand)")
    try:
        old, new = upstream.decode("utf-8"), tree.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text (overlays edit text)") from None
    if normalize_whitespace(tree) != tree:
        raise ValueError("trailing whitespace or blank lines at the end, which sync removes")
    ops, rest = value_operations(old, new, tag) if path in VALUE_FILES else ([], old)
    ops += declared(text_operations(rest, new))  # their text written literally (``${`` as ``$${``)
    if unclosed(ops):
        raise ValueError("its text holds '${' without a closing '}', which an overlay cannot write")
    if _reproduces(chart, path, upstream, tree, ops, tag):
        return ops
    if path in VALUE_FILES:  # the value edits may interact: text operations alone
        ops = declared(text_operations(old, new))
        if _reproduces(chart, path, upstream, tree, ops, tag):
            return ops
    raise ValueError("the operations inferred do not reproduce it (a change that needs a regex)")


def infer_chart(
    chart: str, upstream: dict[str, bytes], tree: dict[str, bytes], generated: set[str], tag: str
) -> ChartInference:
    """Compare every file of ``tree`` (chart-relative path → bytes) with ``upstream``'s. ``generated``:
    the tree's files ``generate`` writes (README.md, the schema): neither copied nor edited."""
    result = ChartInference(chart=chart)
    for path in sorted((set(upstream) | set(tree)) - generated):
        up, mine = upstream.get(path), tree.get(path)
        if mine is None:
            result.deleted.append(path)
        elif up is None:
            result.copies[path] = mine
        elif normalize_whitespace(up) != mine:
            try:
                ops = file_operations(chart, path, up, mine, tag)
                result.operations += [{"op": op["op"], "file": path, **op} for op in ops]
            except ValueError as exc:
                result.problems.append(f"{chart}/{path}: {exc}")
    return result
