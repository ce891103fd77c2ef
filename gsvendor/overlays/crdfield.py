"""Conditions on a field of a vendored CRD (an operation's ``crd: {kind: K, field: spec.x, present: false}``, a
check variant's ``expectFailureWhile``): ``field`` (dotted, below ``openAPIV3Schema``) is present when any version
of the CRD of ``kind`` declares it; and the values schema ``${crd:<Kind>:<field>}`` expands to."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gsvendor import fastyaml
from gsvendor.errors import SourceError
from gsvendor.files import sha256
from gsvendor.stamps import code_version, read_stamp, stamp_path, write_stamp
from gsvendor.yamlio import YamlLimitError, check_text, load_plain

FieldLookup = Callable[[str, str], "dict[str, Any] | None"]

# ${name} in an overlay operation's strings ($${ escapes it); ${crd:<Kind>:<dotted field>} names a CRD field
VARIABLE = re.compile(r"\$(\$?)\{([^}]*)\}")
CRD_VARIABLE = re.compile(r"^crd:([A-Za-z][A-Za-z0-9]*):([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)$")


@dataclass(frozen=True)
class CRDCondition:
    """Apply only when the CRD of ``kind`` has (``present``) or lacks the schema ``field``."""

    kind: str
    field: str
    present: bool = True

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None) -> CRDCondition | None:
        """The condition of an overlay's or operation's ``crd`` key (already schema-checked)."""
        return cls(str(raw["kind"]), str(raw["field"]), bool(raw.get("present", True))) if raw else None

    def holds(self, lookup: FieldLookup) -> bool:
        """Whether the vendored CRD (``lookup``, see :func:`crd_field_lookup`) meets the condition."""
        return (lookup(self.kind, self.field) is not None) == self.present

    def __str__(self) -> str:
        return f"only where the {self.kind} CRD {'has' if self.present else 'lacks'} {self.field}"


def field_schema(crd: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    """The openAPIV3Schema of ``field`` (dotted) in the first version of ``crd`` declaring it, else ``None``."""
    for version in crd.get("spec", {}).get("versions") or []:
        node: Any = (version.get("schema") or {}).get("openAPIV3Schema")
        for part in field.split("."):
            node = (node or {}).get("properties", {}).get(part) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping):
            return fastyaml.plain(node)
    return None


def values_schema(schema: Any) -> Any:
    """A CRD field's structural schema as a JSON schema for the chart's values: without ``x-kubernetes-*``
    and descriptions; an int-or-string as ``anyOf: [integer, string]``; an object with ``properties``
    not preserving unknown fields ``additionalProperties: false`` (the API server prunes other keys)."""
    if isinstance(schema, list):
        return [values_schema(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {  # properties' keys are field names, not keywords
        str(key): {str(name): values_schema(field) for name, field in value.items()}
        if key == "properties" and isinstance(value, Mapping)
        else values_schema(value)
        for key, value in schema.items()
        if not str(key).startswith("x-kubernetes-") and key != "description"
    }
    if schema.get("x-kubernetes-int-or-string") and "anyOf" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "properties" in out and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
    return out


def crd_variable(name: str, lookup: FieldLookup) -> str | None:
    """``${crd:<Kind>:<field>}`` (``name`` without ``${}``) expanded: the field's :func:`values_schema`
    as one line of JSON; ``None`` when the vendored CRD lacks the field (or ``name`` is no such variable)."""
    match = CRD_VARIABLE.match(name)
    schema = lookup(match.group(1), match.group(2)) if match else None
    if schema is None:
        return None
    # one line: JSON escapes the C0 controls only, YAML (and Go's yaml.v3) also break at NEL, LS and PS
    text = json.dumps(values_schema(schema), ensure_ascii=False, default=str)  # a date default as the API server
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def strings(value: Any) -> Iterator[str]:
    """Every string in ``value`` (mappings, lists, scalars as loaded from YAML), mapping keys included, in order."""
    if isinstance(value, Mapping):
        value = [item for pair in value.items() for item in pair]
    if isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of ``value`` (as loaded from YAML) with ``change`` applied to every string, dict keys included."""
    if isinstance(value, dict):
        return {map_strings(k, change): map_strings(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [map_strings(v, change) for v in value]
    return change(value) if isinstance(value, str) else value


def crd_variable_names(value: Any) -> set[str]:
    """The ``crd:…`` variables named in the strings of ``value`` (escaped ``$${`` ones excepted)."""
    return {name for text in strings(value) for esc, name in VARIABLE.findall(text) if not esc and name[:4] == "crd:"}


_CRD_KIND = re.compile(r"^kind:[ \t]*[\"']?CustomResourceDefinition[\"']?[ \t]*\r?$", re.M)
_DOCUMENT_END = re.compile(r"^---[ \t]*(?:#.*)?\r?$", re.M)
_ACTION_LINE = re.compile(r"^[ \t]*\{\{-?.*-?\}\}[ \t]*\n", re.M)
_ACTION = re.compile(r"\{\{.*?\}\}")


def _untemplate(text: str) -> str:
    """A CRD template as YAML: lines that are only an action dropped, inline actions a placeholder."""
    return _ACTION.sub("x", _ACTION_LINE.sub("", text))


def _load(text: str, label: str) -> Any:
    """One CRD document within the YAML limits, lazily by :mod:`gsvendor.fastyaml` when it can read it."""
    text = _untemplate(text)
    check_text(text, label)
    try:
        return fastyaml.load_lazy(text)
    except fastyaml.NotSimple:
        return load_plain(text, label)


def expect_failure_holds(raw: Mapping[str, Any] | None, config: Any) -> bool:
    """Whether a check variant's ``expectFailure`` applies: always without an ``expectFailureWhile``
    condition (``raw``), else while the vendored CRD of ``config`` (a :class:`~gsvendor.config.Config`) meets it."""
    condition = CRDCondition.parse(raw)
    return condition is None or condition.holds(project_crd_lookup(config))


def project_crd_lookup(config: Any) -> FieldLookup:
    """:func:`crd_field_lookup` over the YAML files of the vendored charts of ``config`` (a ``Config``)."""
    paths = [path for spec in config.charts for path in sorted((config.root / spec.dest).rglob("*.y*ml"))]
    files = {p.relative_to(config.root).as_posix(): p.read_bytes() for p in paths if p.is_file() and not p.is_symlink()}
    return crd_field_lookup(files, config.stamps)


def crd_field_lookup(files: Mapping[str, bytes], stamps: Any = None) -> FieldLookup:
    """``lookup(kind, field)`` → the field's schema in the CRD of ``kind`` among ``files`` (upstream
    path → bytes), or ``None``. A CRD is parsed once, on first use; an answer is kept in the folder ``stamps``
    (a ``Path``, :mod:`gsvendor.stamps`) keyed by the files holding ``kind`` and gsvendor's code, as a 2 MB
    CRD costs ~0.1 s to read again."""

    @functools.cache
    def crds_of(kind: str) -> list[tuple[str, str, Any]]:
        found = []
        for path, data in sorted(files.items()):  # the kind's name anywhere: quoted, or before CRLF, it is there
            if not path.endswith((".yaml", ".yml")) or kind.encode() not in data:
                continue
            for chunk in _DOCUMENT_END.split(data.decode("utf-8", "replace")):
                try:
                    doc = _load(chunk, path) if _CRD_KIND.search(chunk) else None
                    if doc is not None and doc["spec"]["names"]["kind"] == kind:
                        found.append((path, chunk, doc))
                except YamlLimitError:
                    raise
                except Exception:  # a template that is not YAML until rendered: not this CRD
                    continue
        return found

    @functools.cache  # each operation with a crd: condition asks again
    def lookup(kind: str, field: str) -> dict[str, Any] | None:
        held = [f"{p}\0{sha256(d)}" for p, d in sorted(files.items()) if kind.encode() in d]
        stamp = stamp_path(stamps, f"crd-field\0{code_version() if stamps else ''}\0{kind}\0{field}", "\n".join(held))
        if isinstance(schema := (read_stamp(stamp) or {}).get("data", {}).get("schema", 0), dict | None):
            return schema  # a schema (or None: no such field); anything else in the stamp is damage
        schema = None
        for path, chunk, crd in crds_of(kind):
            try:
                try:
                    schema = field_schema(crd, field)
                except fastyaml.NotSimple:  # a value beyond fastyaml's subset, met while reading: parse it all
                    schema = field_schema(load_plain(_untemplate(chunk), path), field)
            except (AttributeError, TypeError):  # a list or scalar where the CRD schema has a mapping
                raise SourceError(
                    f"{path}: the CustomResourceDefinition of {kind} is malformed: its spec.versions[].schema."
                    f"openAPIV3Schema properties down to {field} are not mappings"
                ) from None
            if schema is not None:
                break
        write_stamp(stamp, {"schema": schema})
        return schema

    return lookup
