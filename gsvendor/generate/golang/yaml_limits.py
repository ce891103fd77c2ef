"""Bounds on a yaml.v3 node tree, so that every reader of it ends in bounded time and memory.

helm-docs and gsvendor's readers (the README's values rows, the schema) follow aliases: a few
lines of anchors, each alias repeated nine times over the last (a "billion laughs"), expand to
billions of values, and helm-docs itself runs out of memory on them. yaml.v3 refuses such a
document when it decodes it ("document contains excessive aliasing"); here the tree is refused
when its aliases add more values than :data:`ALIAS_BUDGET` or than the document holds written
out, whichever is more. The readers recurse, so nesting deeper than :data:`MAX_DEPTH` is refused
too (yaml.v3 allows 10000 levels; no chart's values come near either).
"""

from __future__ import annotations

from typing import Any

from gsvendor.yamlio import ALIAS_BUDGET, MAX_DEPTH, alias_budget  # one rule for every YAML gsvendor reads

__all__ = ["ALIAS_BUDGET", "MAX_DEPTH", "check_aliasing"]


def check_aliasing(document: Any, error: type[Exception]) -> None:
    """Raise ``error("document contains excessive aliasing")`` when following the aliases of
    ``document`` (a yaml.v3 node tree without alias cycles) reaches too many nodes."""
    written = 0
    aliases = []
    stack = [document]
    while stack:  # the nodes as written, and the aliases among them
        node = stack.pop()
        written += 1
        if node.kind == "alias":
            if node.alias is not None:
                aliases.append(node.alias)
        else:
            stack.extend(node.content)
    if not aliases:
        return
    budget = alias_budget(written)
    sizes: dict[int, int] = {}  # node → its size with aliases followed (each alias target once)
    added = 0
    for target in aliases:
        added += _size(target, sizes, budget)
        if added > budget:
            raise error("document contains excessive aliasing")


def _size(root: Any, sizes: dict[int, int], budget: int) -> int:
    """The nodes below ``root``, aliases followed (memoized; stops counting past ``budget``)."""
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = [node.alias] if node.kind == "alias" and node.alias is not None else node.content
        if done:
            sizes[id(node)] = min(budget + 1, 1 + sum(sizes[id(c)] for c in children))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]
