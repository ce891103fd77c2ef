"""Mutations of custom resources for the check-manifests differential (hypothesis strategies), and
the shrinking of an object on which gsvendor's emulation and the API server disagree.

An object is walked beside its CRD version's schema; every place in ``spec`` is a site:

- ``add``: an object node gets a field its schema does not name (unknown at that depth; kept
  inside ``x-kubernetes-preserve-unknown-fields`` subtrees);
- ``replace``: a field's value becomes another one: another JSON type (wrong scalar types), the
  other half of an int-or-string, an enum value or one outside the enum, or a value generated
  from the field's schema;
- ``delete``: a field is removed (a required one is then missing);
- ``fill``: a property the schema names but the object lacks is set from its schema.
"""

from __future__ import annotations

import copy
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

Path = tuple[Any, ...]
_NAMES = st.text(alphabet=string.ascii_letters, min_size=1, max_size=6)
SCALARS = st.one_of(
    st.integers(min_value=-3, max_value=100),
    st.text(alphabet=string.ascii_letters + string.digits + "-.", max_size=6),
    st.booleans(),
    st.floats(min_value=-10, max_value=10, allow_nan=False).filter(lambda f: not f.is_integer()),
)
ANY = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_NAMES, inner, max_size=2), max_leaves=4
)


@dataclass(frozen=True)
class Site:
    """One place to mutate: ``op`` (add, replace, delete, fill), ``path`` of the node (for add: the
    object; for fill: the missing property's path), its schema ``node``."""

    op: str
    path: Path
    node: Mapping[str, Any]


def _child(node: Mapping[str, Any], key: Any, value: Any) -> Mapping[str, Any] | None:
    if isinstance(key, int):
        items = node.get("items")
        return items if isinstance(items, Mapping) else {}
    specified = node.get("properties") or {}
    if key in specified:
        return specified[key]
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        return extra
    return {} if node.get("x-kubernetes-preserve-unknown-fields") else None


def sites(schema: Mapping[str, Any], obj: Mapping[str, Any]) -> list[Site]:
    """Every :class:`Site` in ``obj["spec"]`` (``schema``: the version's ``openAPIV3Schema``)."""
    found: list[Site] = []
    spec_schema = (schema.get("properties") or {}).get("spec")
    if not isinstance(spec_schema, Mapping) or "spec" not in obj:
        return found

    def walk(value: Any, node: Mapping[str, Any], path: Path) -> None:
        found.append(Site("replace", path, node))
        if path != ("spec",):
            found.append(Site("delete", path, node))
        if isinstance(value, dict):
            found.append(Site("add", path, node))
            for key, item in value.items():
                sub = _child(node, key, item)
                if sub is not None:
                    walk(item, sub, (*path, key))
            for key, sub in (node.get("properties") or {}).items():
                if key not in value and isinstance(sub, Mapping):
                    found.append(Site("fill", (*path, key), sub))
        elif isinstance(value, list):
            for index, item in enumerate(value[:3]):
                walk(item, _child(node, index, item) or {}, (*path, index))

    walk(obj["spec"], spec_schema, ("spec",))
    return found


def from_schema(node: Mapping[str, Any], depth: int = 3) -> st.SearchStrategy[Any]:
    """Values shaped by ``node`` (a CRD schema node): its enum, type, int-or-string, items and
    properties (required ones always, others at random), down to ``depth`` levels."""
    if node.get("enum"):
        return st.sampled_from(list(node["enum"]))
    if node.get("x-kubernetes-int-or-string"):
        return st.integers(min_value=0, max_value=100) | st.text(alphabet=string.digits + "%", min_size=1, max_size=4)
    kind = node.get("type")
    if kind == "string":
        return st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=8)
    if kind == "integer":
        return st.integers(min_value=0, max_value=100)
    if kind == "number":
        return st.integers(min_value=0, max_value=100) | st.floats(min_value=0, max_value=100, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if depth <= 0:
        return st.just({}) if kind == "object" else (st.just([]) if kind == "array" else SCALARS)
    if kind == "array":
        items = node.get("items")
        return st.lists(from_schema(items if isinstance(items, Mapping) else {}, depth - 1), max_size=2)
    properties = {k: v for k, v in (node.get("properties") or {}).items() if isinstance(v, Mapping)}
    if properties:
        required = [k for k in node.get("required") or [] if k in properties]
        optional = [k for k in properties if k not in required]
        return st.fixed_dictionaries(
            {k: from_schema(properties[k], depth - 1) for k in required},
            optional={k: from_schema(properties[k], depth - 1) for k in optional[:8]},
        )
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        return st.dictionaries(_NAMES, from_schema(extra, depth - 1), max_size=2)
    return ANY if kind is None or node.get("x-kubernetes-preserve-unknown-fields") else st.just({})


def _other_values(node: Mapping[str, Any], current: Any) -> st.SearchStrategy[Any]:
    choices = [SCALARS, from_schema(node), st.lists(SCALARS, max_size=1), st.dictionaries(_NAMES, SCALARS, max_size=1)]
    if node.get("enum"):
        choices.append(st.sampled_from([*node["enum"], "NotInTheEnum"]))
    if node.get("x-kubernetes-int-or-string") or node.get("type") in ("integer", "string"):
        if isinstance(current, int) and not isinstance(current, bool):
            choices.append(st.just(str(current)))
        elif isinstance(current, str):
            choices.append(st.just(int(current)) if current.isdigit() else st.just(len(current)))
    return st.one_of(choices)


def _get(obj: Any, path: Path) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def mutate(draw: Callable[[st.SearchStrategy[Any]], Any], obj: Mapping[str, Any], site: Site) -> dict[str, Any]:
    """A copy of ``obj`` with one mutation at ``site``, values drawn with ``draw`` (hypothesis'
    ``data.draw``)."""
    out = copy.deepcopy(dict(obj))
    *parent_path, last = site.path
    parent = _get(out, tuple(parent_path))
    if site.op == "add":
        target = _get(out, site.path)
        name = draw(_NAMES.filter(lambda n: n not in target and n not in (site.node.get("properties") or {})))
        target["x" + name] = draw(ANY)
    elif site.op == "delete":
        del parent[last]
    elif site.op == "fill":
        parent[last] = draw(from_schema(site.node))
    else:
        parent[last] = draw(_other_values(site.node, parent[last]))
    return out


def shrink(obj: dict[str, Any], keep: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The smallest object found from ``obj`` for which ``keep`` holds (``keep(obj)`` must): fields
    of ``spec`` are removed, and lists cut to one element, as long as ``keep`` still holds."""
    current = copy.deepcopy(obj)
    changed = True
    while changed:
        changed = False
        for path in _paths(current.get("spec"), ("spec",)):
            candidate = copy.deepcopy(current)
            *parent_path, last = path
            try:
                del _get(candidate, tuple(parent_path))[last]
            except (KeyError, IndexError, TypeError):
                continue
            if keep(candidate):
                current, changed = candidate, True
                break
    return current


def _paths(value: Any, path: Path) -> list[Path]:
    """Every path below ``value``, deepest last (shallow removals first: they cut most)."""
    out: list[Path] = []
    if isinstance(value, dict):
        out += [(*path, key) for key in value]
        for key, item in value.items():
            out += _paths(item, (*path, key))
    elif isinstance(value, list):
        out += [(*path, index) for index in reversed(range(len(value)))]
        for index, item in enumerate(value):
            out += _paths(item, (*path, index))
    return out


def minimal(node: Mapping[str, Any], depth: int = 12) -> Any:
    """The smallest value ``node`` (a CRD schema node) admits by its structure: required properties
    only, the first enum value, ``minItems`` elements, ``minimum`` or 1, a string of ``minLength``
    (at least 1) letters. Patterns, formats and CEL rules are not considered."""
    if node.get("enum"):
        return node["enum"][0]
    if "default" in node:
        return node["default"]
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string") or kind == "integer":
        return int(node.get("minimum", 1))
    if kind == "number":
        return node.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "string":
        return "a" * max(1, int(node.get("minLength", 1)))
    if kind == "array":
        items = node.get("items") if isinstance(node.get("items"), Mapping) else {}
        return [minimal(items, depth - 1) for _ in range(int(node.get("minItems", 0)))] if depth > 0 else []
    properties = node.get("properties") or {}
    return {
        key: minimal(properties[key], depth - 1)
        for key in node.get("required") or []
        if key in properties and depth > 0
    }
