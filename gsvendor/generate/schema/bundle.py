"""$ref loading and bundling, as helm-values-schema-json v2.5.0 bundles."""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.schema import model
from gsvendor.generate.schema.config import CONFIG_FILE, Reader
from gsvendor.generate.schema.model import Referrer, Schema, SchemaError, ptr_string
from gsvendor.generate.schema.parse import _k8s_aliases, _set_referrer


@dataclass
class _Files:
    """Chart files and a reader for absolute paths outside; relative paths resolve against ``cwd``."""

    chart_dir: str
    files: dict[str, bytes]
    outside: Reader | None
    cwd: str

    def absolute(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.cwd, path))

    def read(self, absolute: str) -> bytes | None:
        relative = posixpath.relpath(absolute, self.chart_dir)
        if not relative.startswith(".."):
            return self.files.get(relative)
        return self.outside(absolute) if self.outside is not None else None


def _split_ref(ref: str) -> tuple[str, str, str]:
    """(scheme, path-or-url without fragment, fragment) of a ``$ref``."""
    base, _, fragment = ref.partition("#")
    scheme = urlsplit(base).scheme if "://" in base or base.startswith("file:") else ""
    return scheme, base, fragment


@dataclass
class _Loader:
    """hvsj's default loader, offline: chart files under ``bundle_root``; http(s) from ``local_refs``."""

    files: _Files
    bundle_root: str
    local_refs: str
    k8s_url: Callable[[], str]
    cache: dict[str, Schema | None] = field(default_factory=dict)

    def load(self, target: str) -> Schema | None:
        key = target.partition("#")[0]
        if key not in self.cache:
            self.cache[key] = self._load(key)
        return self.cache[key]

    def _load(self, target: str) -> Schema | None:
        parts = urlsplit(target)
        scheme = parts.scheme if "://" in target else ""
        if scheme in ("http", "https"):
            if not self.local_refs:
                raise SchemaError(
                    f'$ref "{target}" needs the network; gsvendor generate works offline: set localRefs in '
                    f"{CONFIG_FILE} to a folder holding a copy at <localRefs>/{parts.netloc}{parts.path}"
                )
            local = posixpath.join(self.local_refs, parts.netloc + parts.path)
            data = self.files.read(posixpath.normpath(posixpath.join(self.files.chart_dir, local)))
            if data is None:
                raise SchemaError(
                    f'$ref "{target}" needs the network; gsvendor generate works offline and found no copy at '
                    f"{posixpath.normpath(local)} (localRefs)"
                )
            path, referrer = parts.path, Referrer(url=urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
        elif scheme in ("", "file"):
            path = parts.path if scheme == "file" else target
            if not (path + "/").startswith(self.bundle_root.rstrip("/") + "/"):
                raise SchemaError(f"{path}: path escapes from parent (outside bundleRoot {self.bundle_root})")
            data = self.files.read(path)
            if data is None:
                raise SchemaError(f"open {posixpath.relpath(path, self.bundle_root)}: no such file or directory")
            referrer = Referrer(dir=posixpath.dirname(path))
        else:
            raise SchemaError(f'cannot load schema from $ref="{target}", supported schemes: http,https,file')
        is_yaml = posixpath.splitext(path)[1] in (".yml", ".yaml", ".kyml", ".kyaml")
        try:
            document: Any = goyaml.parse(data) if is_yaml else gojson.loads(data)
        except (goyaml.YAMLError, gojson.GoJSONError) as exc:
            raise SchemaError(f"parse {'YAML' if is_yaml else 'JSON'} file: {exc}") from None
        if is_yaml:
            schema = model.schema_from_node(document.content[0]) if document and document.content else Schema()
        else:
            schema = model.schema_from_json(document)
        if schema is not None:
            _k8s_aliases([], schema, self.k8s_url)
        _set_referrer(schema, referrer)
        return schema


def _ref_target(schema: Schema) -> str:
    """hvsj's ``ParseRef``: the ``$ref`` resolved against its referrer (file paths absolute)."""
    ref, referrer = schema.ref, schema.ref_referrer
    scheme, base, fragment = _split_ref(ref)
    if referrer is None or scheme not in ("", "file"):
        return ref
    path = urlsplit(base).path if scheme == "file" else base
    if scheme == "file" and urlsplit(base).netloc:
        path = posixpath.join(urlsplit(base).netloc, path.lstrip("/"))
    if path.startswith("/"):
        raise SchemaError("absolute paths not supported")
    return referrer.join(path, fragment)


def _relative_to(target: str, base_dir: str) -> str:
    scheme, base, fragment = _split_ref(target)
    if scheme or not base.startswith("/"):
        return target
    return posixpath.relpath(base, base_dir) + (f"#{fragment}" if fragment else "")


def _def_with_id(defs: dict[str, Schema] | None, schema_id: str) -> str | None:
    """The first name (in Go's key order) in ``defs`` of a schema with ``$id`` ``schema_id``."""
    defs = defs or {}
    return next((name for name in sorted(defs, key=model._go_key) if defs[name].id == schema_id), None)


# the keywords hvsj's Ptr.Resolve steps through: a schema, a map of schemas (then a key), a list (then an index)
_RESOLVED = ("additionalItems", "additionalProperties", "items", "not", "$defs", "definitions", "patternProperties")
_RESOLVED += ("properties", "allOf", "anyOf", "oneOf")


def _resolve_ptr(ptr: list[str], schema: Schema | None) -> list[tuple[list[str], Schema]]:
    """hvsj's ``Ptr.Resolve``: the schemas met along ``ptr``, deepest last."""
    result: list[tuple[list[str], Schema]] = []
    offset = 0
    while schema is not None:
        result.append((ptr[:offset], schema))
        rest = ptr[offset:]
        if not rest or rest[0] not in _RESOLVED:
            break
        attr, kind = model._BY_JSON[rest[0]]
        value = getattr(schema, attr)
        if kind == "schema":
            schema, offset = value, offset + 1
            continue
        if len(rest) < 2 or (kind == "schemas" and not rest[1].lstrip("-").isdigit()):
            break
        if kind == "schema_map":
            schema = (value or {}).get(rest[1])
        else:
            index = int(rest[1])
            schema = value[index] if value and 0 <= index < len(value) else None
        offset += 2
    return result


def _parse_ptr(fragment: str) -> list[str]:
    path = fragment.removeprefix("#").removeprefix("/")
    return [] if not path else [model._escape(model._unescape(p)) for p in path.split("/")]


def _bundled_name(schema_id: str, defs: dict[str, Schema]) -> str:
    if (found := _def_with_id(defs, schema_id)) is not None:
        return found
    base = posixpath.basename(schema_id.rstrip("/")) or "/"
    name, number = base, 1
    while defs.get(name) is not None:
        number += 1
        name = f"{base}_{number}"
    return name


def _move_defs(root: Any, owner: Any, attr: str) -> None:
    mapping = getattr(owner, attr) or {}
    for key in [key for key in sorted(mapping, key=model._go_key) if mapping[key].id]:
        sub = mapping.pop(key)
        root.defs[_bundled_name(sub.id, root.defs)] = sub
    if not mapping:
        setattr(owner, attr, None)


def _bundle(ptr: list[str], loader: _Loader, root: Any, schema: Any, base_dir: str) -> None:
    for path, sub in list(schema.subschemas()):
        _bundle([*ptr, *path], loader, root, sub, base_dir)
    ref = schema.ref
    if not ref or ref.startswith("#") or _def_with_id(root.defs, ref.partition("#")[0]) is not None:
        return  # local, or already bundled
    try:
        target = _ref_target(schema)
    except SchemaError as exc:
        raise SchemaError(f"{ptr_string([*ptr, '$ref'])}: {exc}") from None
    schema.ref = _relative_to(target, base_dir)
    try:
        loaded: Any = loader.load(target)
    except SchemaError as exc:
        raise SchemaError(f"bundle schemas: {ptr_string([*ptr, '$ref'])}: {exc}") from None
    if loaded is None:
        return
    loaded.id = _relative_to(target, base_dir).partition("#")[0]
    root.defs = {} if root.defs is None else root.defs
    fragment_ptr = _parse_ptr(target.partition("#")[2])
    with_id = [(match_ptr, match) for match_ptr, match in _resolve_ptr(fragment_ptr, loaded) if match.id]
    if with_id:  # the reference goes through the deepest schema with an $id on its way
        match_ptr, nearest = with_id[-1]
        suffix = fragment_ptr[len(match_ptr) :]
        schema.ref = f"{nearest.id}#{ptr_string(suffix)}" if suffix else nearest.id
    _move_defs(root, loaded, "defs")
    _move_defs(root, loaded, "definitions")
    root.defs[_bundled_name(loaded.id, root.defs)] = loaded
    _bundle(ptr, loader, root, loaded, base_dir)


def _remove_ids(parent: list[str] | None, ptr: list[str], root: Any, schema: Any) -> None:
    parent = ptr if schema.id else parent
    for path, sub in list(schema.subschemas()):
        _remove_ids(parent, [*ptr, *path], root, sub)
    ref = schema.ref
    if not ref or ref.startswith("#"):
        if ref and parent:
            schema.ref = "#" + ptr_string(parent) + ref[1:]
        return
    name = _def_with_id(root.defs, ref.partition("#")[0])
    if name is None:
        raise SchemaError(f'{ptr_string([*ptr, "$ref"])}: no $defs found that matches $ref="{ref}"')
    fragment = ref.partition("#")[2]
    base = ptr_string(["$defs", model._escape(name)])
    schema.ref = f"#{base}/{fragment.removeprefix('/')}" if fragment else f"#{base}"


def _count_refs(ptr: list[str], root: Any, schema: Any, counts: Counter[int]) -> Counter[int]:
    """``counts`` with the schemas each reference under ``schema`` goes through counted (by ``id``)."""
    for path, sub in list(schema.subschemas()):
        _count_refs([*ptr, *path], root, sub, counts)
    ref = schema.ref
    if ref.startswith("#/"):
        target = _parse_ptr(ref)
        if not (target and ptr[: len(target)] == target):  # not self-referential
            counts.update(id(match) for _, match in _resolve_ptr(target, root))
    elif ref and (name := _def_with_id(root.defs, ref.partition("#")[0])) is not None:
        counts[id(root.defs[name])] += 1
    return counts


def _drop_unused(schema: Any, counts: Counter[int]) -> int:
    """Remove the ``$defs``/``definitions`` no reference counted; how many were removed."""
    deleted = sum(_drop_unused(sub, counts) for _, sub in list(schema.subschemas()))
    for attr in ("defs", "definitions"):
        mapping = getattr(schema, attr) or {}
        for name in [name for name in mapping if not counts[id(mapping[name])]]:
            del mapping[name]
            deleted += 1
        if not mapping:
            setattr(schema, attr, None)
    return deleted


def bundle(schema: Schema, loader: _Loader, base_dir: str, without_ids: bool) -> None:
    """hvsj's ``Bundle``: load every ``$ref`` into root ``$defs``, optionally drop ``$id``s, prune."""
    _bundle([], loader, schema, schema, base_dir)
    if without_ids:
        _remove_ids(None, [], schema, schema)
        for sub in (schema.defs or {}).values():
            sub.id = ""
    while _drop_unused(schema, _count_refs([], schema, schema, Counter())):
        pass  # a removed definition may have held the only reference to another
