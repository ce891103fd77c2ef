"""RBAC in the upgrade report: the rules of every ClusterRole and Role, added and removed per role, each
flattened to one line per API group × resource or URL with its verbs sorted
(``get,list,watch × admissionregistration.k8s.io/validatingwebhookconfigurations``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

RBAC_KINDS = ("ClusterRole", "Role")

Loader = Callable[[bytes], list[Any]]


@dataclass(frozen=True)
class RbacChange:
    """One role (``kind``, ``name``, in the new ``file``) whose flattened rules were ``added`` or ``removed``;
    ``new`` or ``gone`` for a whole role."""

    kind: str
    name: str
    file: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    new: bool = False
    gone: bool = False


def flatten(rule: Mapping[str, Any]) -> set[str]:
    """The lines of one policy rule: ``verbs × group/resource`` (the core group has no ``group/``), and
    ``verbs × URL`` for nonResourceURLs; ``resourceNames`` narrow a line as ``resource[name,…]``."""
    verbs = ",".join(sorted(str(v) for v in rule.get("verbs") or [])) or "-"
    names = sorted(str(n) for n in rule.get("resourceNames") or [])
    only = f"[{','.join(names)}]" if names else ""
    lines = {
        f"{verbs} × {f'{group}/' if group else ''}{resource}{only}"
        for group in (rule.get("apiGroups") or [""])
        for resource in rule.get("resources") or []
    }
    lines |= {f"{verbs} × {url}" for url in rule.get("nonResourceURLs") or []}
    return lines


def role_rules(files: Mapping[str, bytes], load: Loader) -> dict[tuple[str, str], tuple[str, set[str]]]:
    """``(kind, name)`` → (file, flattened rules) of every ClusterRole and Role in ``files`` (``load``: a
    file's YAML documents)."""
    roles: dict[tuple[str, str], tuple[str, set[str]]] = {}
    for path in sorted(files):
        data = files[path]
        if not path.endswith((".yaml", ".yml")) or not any(f"kind: {k}\n".encode() in data for k in RBAC_KINDS):
            continue
        for document in load(data):
            if not isinstance(document, Mapping) or document.get("kind") not in RBAC_KINDS:
                continue
            name = str((document.get("metadata") or {}).get("name") or "")
            rules: set[str] = set()
            for rule in document.get("rules") or []:
                if isinstance(rule, Mapping):
                    rules |= flatten(rule)
            roles.setdefault((str(document["kind"]), name), (path, rules))
    return roles


def compare_rbac(old: Mapping[str, bytes], new: Mapping[str, bytes], load: Loader) -> list[RbacChange]:
    """The roles added, gone, or whose rules changed from ``old`` to ``new``, by kind and name."""
    before, after = role_rules(old, load), role_rules(new, load)
    out = []
    for key in sorted(set(before) | set(after)):
        kind, name = key
        if key not in before:
            out.append(RbacChange(kind, name, after[key][0], tuple(sorted(after[key][1])), new=True))
        elif key not in after:
            out.append(RbacChange(kind, name, before[key][0], (), tuple(sorted(before[key][1])), gone=True))
        elif before[key][1] != after[key][1]:
            was, now = before[key][1], after[key][1]
            out.append(RbacChange(kind, name, after[key][0], tuple(sorted(now - was)), tuple(sorted(was - now))))
    return out
