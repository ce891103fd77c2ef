"""Checking a YAML document against a JSON Schema: one ``file:line: key: message`` line per mistake,
naming the key path (``charts[2].name``), and for an unknown key the closest known one."""

from __future__ import annotations

import re
from typing import Any

from gsvendor.errors import MAX_SHOWN_CHARS, ConfigError, closest, did_you_mean, shorten


def line_of(node: Any, path: list[Any]) -> int | None:
    """1-based line of the key at ``path`` in a ruamel round-trip document, if known."""
    line = None
    for key in path:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None:
                line = (lc.key(key) if isinstance(key, str) else lc.item(key))[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line


def format_path(path: list[Any]) -> str:
    """``['charts', 2, 'name']`` → ``charts[2].name`` (the key notation used in messages)."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "(top level)"


def validate(document: Any, schema: dict[str, Any], filename: str) -> None:
    """Validate ``document`` (a ruamel document) against ``schema`` (JSON Schema 2020-12); raises
    :class:`ConfigError` with one ``file:line: key: message`` line per violation, in document order. A
    required key that an unknown key there misspells (``{nam: x}``) is not reported missing as well."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.path])
    if not errors:
        return
    chosen = [_chosen(error) for error in errors]
    # jsonschema names the missing key only in its message, one error per key
    meant = {
        (tuple(error.absolute_path), f"{meant_key!r} is a required property")
        for error in chosen
        if error.validator == "additionalProperties" and isinstance(error.instance, dict)
        for key in _unknown_keys(error.instance, error.schema)
        if (meant_key := closest(str(key), error.schema.get("properties", {}))) is not None
    }
    lines = []
    for error in chosen:
        path, message = list(error.absolute_path), error.message
        if error.validator == "required" and (tuple(path), message) in meant:
            continue
        if error.validator == "not":
            message = f"{shorten(repr(error.instance))} must be a relative path inside the project"
        if error.validator == "enum" and isinstance(error.instance, str):
            message += did_you_mean(error.instance, error.validator_value)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = sorted(error.schema.get("properties", {}))
            for key in _unknown_keys(error.instance, error.schema):
                line = line_of(document, [*path, key])
                # a line break, a control character or 100,000 characters keep the message one short line
                plain = isinstance(key, str) and key.isprintable() and len(key) <= MAX_SHOWN_CHARS
                shown = format_path([*path, key if plain else shorten(repr(key))])
                hint = did_you_mean(str(key), known)
                lines.append(
                    f"{filename}{f':{line}' if line else ''}: {shown}: unknown key {shorten(repr(key))}{hint} "
                    f"(known here: {', '.join(known) or 'none'})"
                )
            continue
        if len(message) > 2 * MAX_SHOWN_CHARS:  # a huge value quoted whole: keep its start and the verdict
            message = f"{message[:MAX_SHOWN_CHARS]}…{message[-MAX_SHOWN_CHARS // 2 :]}"
        line = line_of(document, path)
        where = f"{filename}:{line}" if line else filename
        lines.append(f"{where}: {format_path(path)}: {message}")
    raise ConfigError(*lines, file=filename)


def _chosen(error: Any) -> Any:
    """The error to report: of a ``oneOf``, the alternative that got furthest into the document, then one of the
    value's type (an unknown key, not "is not of type 'string'"), then an unknown key before a missing one."""
    if error.validator != "oneOf" or not error.context:
        return error
    rank = {"type": 0, "additionalProperties": 2}
    return max(error.context, key=lambda e: (len(e.absolute_path), rank.get(e.validator, 1), -len(e.message)))


def _unknown_keys(mapping: dict[Any, Any], schema: dict[str, Any]) -> list[Any]:
    """The keys of ``mapping`` that ``schema``'s ``properties`` and ``patternProperties`` do not name."""
    known = schema.get("properties", {})
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return [k for k in mapping if k not in known and not any(p.search(str(k)) for p in patterns)]
