"""What kind of change a CRD went through between two builds, for the upgrade report's reviewer, read from its
versions, conversion strategy and top-level ``spec`` fields (types, enums, required)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Traits = dict[str, Any]


def traits(document: Mapping[str, Any]) -> Traits:
    """The classified traits of one CRD document (a mapping as the YAML loaders give it)."""
    spec = document.get("spec") or {}
    out: Traits = {key: {} for key in ("served", "required", "types", "enums")}
    out.update(conversion=str((spec.get("conversion") or {}).get("strategy") or "None"), storage=None)
    for version in spec.get("versions") or []:
        if not isinstance(version, Mapping):
            continue
        name = str(version.get("name"))
        out["served"][name] = bool(version.get("served"))
        if version.get("storage"):
            out["storage"] = name
        schema = ((version.get("schema") or {}).get("openAPIV3Schema") or {}).get("properties") or {}
        node = schema.get("spec") or {}
        out["required"][name] = frozenset(str(r) for r in node.get("required") or [])
        fields = node.get("properties") or {}
        out["types"][name] = {str(k): _type(v) for k, v in fields.items()}
        out["enums"][name] = {
            str(k): tuple(str(e) for e in v.get("enum"))
            for k, v in fields.items()
            if isinstance(v, Mapping) and v.get("enum")
        }
    return out


def _type(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "?"
    if schema.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    if schema.get("x-kubernetes-preserve-unknown-fields") and not schema.get("properties"):
        return "any"
    return str(schema.get("type") or "any")


def classify(was: Traits, now: Traits, fields_removed: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Lines naming each change: served or storage version, conversion strategy, ``spec`` fields removed,
    types changed (narrowed from ``any`` or int-or-string), new required fields, enums narrowed."""
    out = []
    if was["storage"] != now["storage"]:
        out.append(f"storage version {was['storage']} → {now['storage']}")
    for version in sorted(set(was["served"]) & set(now["served"])):
        if was["served"][version] != now["served"][version]:
            out.append(f"{version} {'now served' if now['served'][version] else 'no longer served'}")
    if was["conversion"] != now["conversion"]:
        out.append(f"conversion {was['conversion']} → {now['conversion']}")
    out += [f"field removed: {field}" for field in fields_removed]
    for version in sorted(set(was["types"]) & set(now["types"])):
        before, after = was["types"][version], now["types"][version]
        for field in sorted(set(before) & set(after)):
            if before[field] != after[field]:
                narrowed = "narrowed" if before[field] in ("any", "int-or-string") else "changed"
                out.append(f"{version}: spec.{field} type {narrowed}: {before[field]} → {after[field]}")
        for field in sorted(now["required"][version] - was["required"][version]):
            out.append(f"{version}: spec.{field} newly required")
        old_enums, new_enums = was["enums"][version], now["enums"][version]
        for field in sorted(set(old_enums) & set(new_enums)):
            if gone := [e for e in old_enums[field] if e not in new_enums[field]]:
                out.append(f"{version}: spec.{field} enum narrowed (no longer: {', '.join(gone)})")
        for field in sorted(set(new_enums) - set(old_enums)):
            if field in before:
                out.append(f"{version}: spec.{field} enum narrowed (now only: {', '.join(new_enums[field])})")
    return tuple(out)


def needs_webhook(was: Traits, now: Traits) -> tuple[str, ...]:
    """Lines naming the reads that need the conversion webhook: when the storage or served versions change under
    ``strategy: Webhook``, objects stored at the old storage version are read at other versions only through it."""
    served_was = {v for v, on in was["served"].items() if on}
    served_now = sorted(v for v, on in now["served"].items() if on)
    stored = was["storage"]
    if now["conversion"] != "Webhook" or stored is None or (stored == now["storage"] and served_was == set(served_now)):
        return ()
    return tuple(
        f"objects stored at {stored} need the conversion webhook (the controller) to be read at {version}"
        for version in served_now
        if version != stored
    )
