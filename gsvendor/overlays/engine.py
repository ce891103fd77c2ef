"""Declared overlays (``overlays/*.yaml``, docs/configuration-and-overlays.md): their JSON Schema, and the
Giant Swarm changes re-applied to upstream charts on every sync, in file-name order, operations in order."""

from __future__ import annotations

import fnmatch
import re
import tempfile
from dataclasses import dataclass, field
from functools import partial, reduce
from pathlib import Path
from typing import Any

import regex

from gsvendor import gitcmd
from gsvendor.config import MATCH_SECONDS, compile_pattern
from gsvendor.config_schema import CRD_CONDITION_SCHEMA, RELPATH
from gsvendor.errors import ConfigError, OverlayApplyError, OverlayDefinitionError, closest, shorten
from gsvendor.files import is_clean_path, write_tree
from gsvendor.overlays import crdfield, yamledit
from gsvendor.overlays.crdfield import FieldLookup
from gsvendor.upstream.source import MAX_MEMBER_BYTES, limit, tag_version
from gsvendor.yamlio import YamlLimitError, load_validated

# The JSON Schema of an overlay file: OPERATIONS holds each operation's keys, OVERLAY_SCHEMA the whole file
_STRING = {"type": "string"}
_TEXT = {"type": "string", "minLength": 1}
_STRINGS = {"type": "array", "items": _STRING, "minItems": 1}
_TARGET = {"file": RELPATH, "glob": RELPATH, "exclude": _STRINGS}
_COMMON = {"description": _STRING, "charts": _STRINGS, "versions": _STRING, "crd": CRD_CONDITION_SCHEMA}


def _op(name: str, required: list[str], props: dict[str, Any], one_of: tuple[str, ...] = ("file", "glob")) -> Any:
    """The schema of operation ``name``: its ``props``, and the target keys unless ``one_of`` names others."""
    target = _TARGET if one_of == ("file", "glob") else {}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["op", *required],
        "properties": {"op": {"const": name}, **_COMMON, **target, **props},
        **({"oneOf": [{"required": [key]} for key in one_of]} if one_of else {}),
    }


_VALUES = {"values": {"type": "object", "minProperties": 1}}
_INSERT = {"anchor": _TEXT, "text": _STRING, "count": {"type": "integer", "minimum": 1}}
# "all": every match, at least one (a list upstream grows, such as its runtimes)
_COUNT_OR_ALL = {"anyOf": [_INSERT["count"], {"const": "all"}]}
_REPLACE = {"find": _STRING, "with": _STRING, "regex": {"type": "boolean"}, "count": _COUNT_OR_ALL}
_COPY = {"from": _TEXT, "content": _STRING, "to": RELPATH, "substitute": {"type": "boolean"}}
OPERATIONS: dict[str, dict[str, Any]] = {
    "yaml-set": _op("yaml-set", ["values"], _VALUES),
    "yaml-merge": _op("yaml-merge", ["values"], _VALUES),
    "yaml-delete": _op("yaml-delete", ["keys"], {"keys": _STRINGS}),
    "replace": _op("replace", ["find", "with"], _REPLACE),
    "insert-after": _op("insert-after", ["anchor", "text"], _INSERT),
    "insert-before": _op("insert-before", ["anchor", "text"], _INSERT),
    "patch": _op("patch", ["patch"], {"patch": _TEXT}, ()),
    "copy": _op("copy", ["to"], _COPY, ("from", "content")),
}

_OPERATION = {
    "type": "object",
    "required": ["op"],
    "properties": {"op": {"enum": sorted(OPERATIONS)}},
    "allOf": [{"if": {"properties": {"op": {"const": n}}}, "then": s} for n, s in OPERATIONS.items()],
}
_OPERATIONS = {"type": "array", "minItems": 1, "items": _OPERATION}
OVERLAY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["operations"],
    "properties": {"description": _STRING, "charts": _STRINGS, "versions": _STRING, "operations": _OPERATIONS},
}


# replace's patterns run on the regex module (re's syntax and templates) for its time limit (MATCH_SECONDS)
_REGEX_FLAGS = regex.MULTILINE | regex.VERSION0


class PatternTimeout(OverlayDefinitionError):
    """A ``replace`` pattern over :data:`MATCH_SECONDS` in one search (exit 2: the overlay is at fault)."""


@dataclass(frozen=True)
class Operation:
    """One declared operation: ``kind`` (``yaml-set`` …) with its ``params`` as written."""

    kind: str
    params: dict[str, Any]
    index: int
    charts: tuple[str, ...] = ()
    versions: str | None = None
    crd: crdfield.CRDCondition | None = None
    description: str = ""

    @property
    def label(self) -> str:
        """``operations[2] (replace)``: how messages name the operation."""
        return f"operations[{self.index}] ({self.kind})"


@dataclass(frozen=True)
class Overlay:
    """One overlay file: ``name`` (file stem), its scope and operations; ``assets`` maps the
    overlays/-relative paths of the files it brings (copy sources, patches) to their bytes."""

    name: str
    path: Path
    charts: tuple[str, ...]
    versions: str | None
    operations: tuple[Operation, ...]
    assets: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class AppliedOperation:
    """What one operation did to one chart: the ``files`` it touched; ``found``: a ``count: all``'s matches."""

    overlay: str
    operation: str
    files: tuple[str, ...]
    found: int | None = None


@dataclass
class ChartOverlayResult:
    """The overlaid files of one chart and what was applied or skipped (by version range)."""

    files: dict[str, bytes]
    applied: list[AppliedOperation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def load_overlays(folder: Path, stamps: Path | None = None) -> list[Overlay]:
    """Every ``*.yaml`` overlay in ``folder`` (none when missing; by name) with the files it references;
    ``stamps``: the validation stamps folder. Raises :class:`OverlayDefinitionError` naming the file
    (and line) for invalid YAML or schema, version ranges, ``${…}`` variables and missing files."""
    if not folder.is_dir():
        return []
    overlays = []
    paths = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")], key=lambda p: p.name)
    stems = [p.stem for p in paths]
    for stem in sorted({s for s in stems if stems.count(s) > 1}):
        raise OverlayDefinitionError(f"{folder.name}/: two overlays are named {stem} (.yaml and .yml)")
    for path in paths:
        label = f"{folder.name}/{path.name}"
        try:
            data = load_validated(path, OVERLAY_SCHEMA, label, stamps).data
        except ConfigError as exc:
            raise OverlayDefinitionError(*exc.problems, file=exc.file or label, key=exc.key, value=exc.value) from None
        operations = []
        assets: dict[str, bytes] = {}
        for index, raw in enumerate(data["operations"]):
            params = {k: v for k, v in raw.items() if k not in ("op", "charts", "versions", "crd", "description")}
            charts, crd = tuple(raw.get("charts", ())), crdfield.CRDCondition.parse(raw.get("crd"))
            description = " ".join(str(raw.get("description", "")).split())
            op = Operation(raw["op"], params, index, charts, raw.get("versions"), crd, description)
            where = f"{label}: {op.label}"
            if op.versions:
                _specifier(op.versions, f"{where}: versions")
            _check_params(op, params, where)
            for key in params.keys() & {"from", "patch"}:
                asset = folder / params[key]
                if not asset.is_file() or folder.resolve() not in asset.resolve().parents:
                    raise OverlayDefinitionError(f"{where}: {key}: no file {params[key]} under {folder.name}/")
                most = limit("GSVENDOR_MAX_MEMBER_MIB", MAX_MEMBER_BYTES)  # as an upstream file (a 2.5 GB one: OOM)
                if asset.stat().st_size > most:  # unreadable: the CLI's one line naming the file
                    raise OverlayDefinitionError(f"{where}: {key}: {params[key]} is larger than {most >> 20} MiB")
                assets[params[key]] = asset.read_bytes()
            operations.append(op)
        if data.get("versions"):
            _specifier(data["versions"], f"{label}: versions")
        charts = tuple(data.get("charts", ("*",)))
        overlays.append(Overlay(path.stem, path, charts, data.get("versions"), tuple(operations), assets))
    return overlays


def unclosed(value: Any) -> bool:
    """Whether a string in ``value`` holds ``${`` that no ``}`` closes (``$${`` is a literal)."""
    return any("${" in crdfield.VARIABLE.sub("", text) for text in crdfield.strings(value))


def _check_params(op: Operation, params: dict[str, Any], where: str) -> None:
    """Mistakes that would otherwise only show when the operation runs (and exit 1, not 2)."""
    for value in crdfield.strings(params):
        if not value.isascii() and re.search("[\ud800-\udfff]", value):  # YAML's "\ud800": no UTF-8 holds it
            raise OverlayDefinitionError(f"{where}: {value!r} holds a lone surrogate, which is not UTF-8 text")
        for escape, name in crdfield.VARIABLE.findall(value):
            if not escape and name not in ("tag", "version", "chart") and not crdfield.CRD_VARIABLE.match(name):
                raise OverlayDefinitionError(
                    f"{where}: unknown variable ${{{name}}} (known: tag, version, chart, crd:<Kind>:<field>)"
                )
        if unclosed(value):
            raise OverlayDefinitionError(f"{where}: '${{' without a closing '}}' in {value!r} ($${{ is a literal)")
    if op.kind == "replace" and params.get("regex") and "${" not in params["find"]:
        try:
            pattern = compile_pattern(params["find"], _REGEX_FLAGS)
            groups = [int(n) for n in re.findall(r"\\(\d+)", params["with"])]
            if groups and max(groups) > pattern.groups:
                raise regex.error(f"invalid group reference {max(groups)}")
        except regex.error as exc:
            raise OverlayDefinitionError(f"{where}: invalid regex or replacement: {exc}") from None
    pointers = [*params.get("values", {}), *params.get("keys", ())]
    if "" in pointers:
        raise OverlayDefinitionError(f"{where}: the empty JSON Pointer names the whole document, not a key")
    for pointer in pointers:
        try:
            yamledit.parse_pointer(pointer)
        except yamledit.YamlEditError as exc:
            raise OverlayDefinitionError(f"{where}: {exc}") from None


def expand(value: Any, variables: dict[str, str]) -> Any:
    """Expand ``${name}`` in every string of ``value``; ``$${`` stays a literal ``${``."""
    return crdfield.map_strings(
        value, partial(crdfield.VARIABLE.sub, lambda m: "${" + m[2] + "}" if m[1] else variables[m[2]])
    )


def _specifier(spec: str, where: str) -> Any:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(spec.replace(" ", ""), prereleases=True)
    except InvalidSpecifier:
        raise OverlayDefinitionError(f"{where}: {spec!r} is not a version range (e.g. '>=0.20.0,<0.21')") from None


def in_range(tag: str, spec: str | None, where: str) -> bool:
    """Whether upstream ``tag`` (``v0.20.0-rc1``) falls in the PEP 440 range ``spec`` (pre-releases
    count). Raises :class:`OverlayDefinitionError` when a range must be checked but the tag is no version."""
    if not spec:
        return True
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(tag_version(tag))
    except InvalidVersion:
        raise OverlayDefinitionError(f"{where}: limited to versions {spec!r}: tag {tag!r} is no version") from None
    return _specifier(spec, where).contains(version, prereleases=True)


def check_scope(overlays: list[Overlay], charts: list[str]) -> None:
    """Raise :class:`OverlayDefinitionError` for a ``charts:`` pattern naming no configured chart (a
    misspelt name would drop the overlay silently), suggesting a close chart (either may hold the typo)."""
    for overlay in overlays:
        scopes = [("charts", p) for p in overlay.charts]
        for where, pattern in scopes + [(f"{op.label}: charts", p) for op in overlay.operations for p in op.charts]:
            if not any(fnmatch.fnmatchcase(c, pattern) for c in charts):
                close = closest(pattern, charts)
                hint = f"; did you mean {close!r} (or is that chart misspelt in the configuration)?" * bool(close)
                raise OverlayDefinitionError(
                    f"overlays/{overlay.path.name}: {where}: {pattern!r} names no configured chart "
                    f"({', '.join(charts)}){hint}"
                )


def matches_chart(chart: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``chart`` matches any name or fnmatch glob in ``patterns`` (empty: every chart)."""
    return not patterns or any(fnmatch.fnmatchcase(chart, p) for p in patterns)


def apply_overlays(
    chart: str, files: dict[str, bytes], overlays: list[Overlay], tag: str, crd_fields: FieldLookup | None = None
) -> ChartOverlayResult:
    """Apply every overlay in scope for ``chart`` at ``tag`` to a copy of ``files`` (chart-relative path
    → bytes); ``crd_fields`` answers ``crd`` conditions and variables (default: the CRDs of ``files``).
    Raises :class:`OverlayApplyError` naming chart, file, overlay, operation and what it expected."""
    result = ChartOverlayResult(files=dict(files))
    variables = {"tag": tag, "version": tag_version(tag), "chart": chart}
    crd_fields = crd_fields or crdfield.crd_field_lookup(files)  # parses a CRD only when a condition or variable asks
    for overlay in overlays:
        if not matches_chart(chart, overlay.charts):
            continue
        where = f"overlays/{overlay.path.name}"
        if not in_range(tag, overlay.versions, where):
            result.skipped.append(f"{overlay.name} (versions {overlay.versions})")
            continue
        for op in overlay.operations:
            if not matches_chart(chart, op.charts):
                continue
            if not in_range(tag, op.versions, f"{where}: {op.label}"):
                result.skipped.append(f"{overlay.name} {op.label} (versions {op.versions})")
                continue
            if op.crd is not None and not op.crd.holds(crd_fields):
                result.skipped.append(f"{overlay.name} {op.label} ({op.crd})")
                continue
            for name in sorted(crdfield.crd_variable_names(op.params)):
                if (value := crdfield.crd_variable(name, crd_fields)) is None:
                    kind, field_name = name.split(":")[1:]
                    what = f"${{{name}}}: the vendored {kind} CRD has no {field_name}"
                    target = str(op.params.get("file") or op.params.get("glob") or "")
                    raise _fail(chart, target, overlay, op, f"{what} (condition the operation on it with crd)")
                variables[name] = value
            params = expand(op.params, variables)
            touched, found = _apply_operation(chart, result.files, overlay, op, params, variables)
            found = found if params.get("count") == "all" else None  # the matches before the edit
            result.applied.append(AppliedOperation(overlay.name, op.label, tuple(touched), found))
    return result


def _targets(chart: str, files: dict[str, bytes], overlay: Overlay, op: Operation, params: dict[str, Any]) -> list[str]:
    if "file" in params:
        if params["file"] not in files:
            raise _fail(chart, params["file"], overlay, op, "the file does not exist upstream")
        return [params["file"]]
    excluded = {p for e in params.get("exclude", ()) for p in files if fnmatch.fnmatchcase(p, e)}
    matched = sorted(p for p in files if fnmatch.fnmatchcase(p, params["glob"]) and p not in excluded)
    if not matched:
        raise _fail(chart, params["glob"], overlay, op, "the glob matches no file")
    return matched


def _fail(chart: str, file: str, overlay: Overlay, op: Operation, what: str) -> OverlayApplyError:
    return OverlayApplyError(f"{chart}/{file}: overlay {overlay.name} {op.label}: {what}")


def _text(chart: str, path: str, data: bytes, overlay: Overlay, op: Operation) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(chart, path, overlay, op, "not UTF-8 text") from None


def _apply_operation(
    chart: str, files: dict[str, bytes], overlay: Overlay, op: Operation, params: dict[str, Any], subs: dict[str, str]
) -> tuple[list[str], int]:
    """Apply ``op`` (``params`` expanded by ``subs``) to ``files`` in place: the paths touched and the matches."""
    if op.kind == "copy":
        to = params["to"]
        if not is_clean_path(to):  # "templates/" or "a//b" named no file a swap can write
            raise OverlayDefinitionError(
                f"overlays/{overlay.path.name}: {op.label}: to: {to!r} must be a path inside the chart, with no empty, "
                "'.' or '..' part"
            )
        data = params["content"].encode() if "content" in params else overlay.assets[op.params["from"]]
        if "from" in params and params.get("substitute"):
            data = expand(_text(chart, params["from"], data, overlay, op), subs).encode()
        files[to] = data
        return [to], 0
    if op.kind == "patch":
        return _apply_patch(chart, files, overlay, op, overlay.assets[op.params["patch"]]), 0
    touched, found = [], 0
    edit = _yaml_edit if op.kind.startswith("yaml-") else _regex_replace if params.get("regex") else _literal_edit
    for path in _targets(chart, files, overlay, op, params):
        try:
            new, matches = edit(op.kind, _text(chart, path, files[path], overlay, op), params)
            files[path] = new.encode()
            found += matches
        except (_Mismatch, yamledit.YamlEditError) as exc:
            raise _fail(chart, path, overlay, op, str(exc)) from None
        except PatternTimeout as exc:  # the overlay's pattern: an input error (exit 2)
            raise PatternTimeout(f"{chart}/{path}: overlay {overlay.name} {op.label}: {exc}") from None
        except YamlLimitError as exc:  # hostile upstream text: an input error (exit 2), not a stale overlay
            raise YamlLimitError(str(exc).replace(yamledit.DOCUMENT, f"{chart}/{path}", 1)) from None
        touched.append(path)
    return touched, found


class _Mismatch(Exception):
    """An anchor or pattern matched another number of times than declared."""


def _count(found: int, expected: int | str, what: str) -> None:
    if found != expected and not (expected == "all" and found):
        wanted = "at least one match" if expected == "all" else f"{expected} match{'es' * (expected != 1)}"
        raise _Mismatch(f"expected {wanted} of {what}, found {found}")


def _literal_edit(kind: str, text: str, params: dict[str, Any]) -> tuple[str, int]:
    """A literal ``replace`` or an insert: the new text, and the matches."""
    if kind == "replace":
        needle, new = params["find"], params["with"]
    else:
        needle = params["anchor"]
        new = needle + params["text"] if kind == "insert-after" else params["text"] + needle
    found = text.count(needle)
    _count(found, params.get("count", 1), repr(needle))
    return text.replace(needle, new), found


def _regex_replace(kind: str, text: str, params: dict[str, Any]) -> tuple[str, int]:
    try:
        pattern = compile_pattern(params["find"], _REGEX_FLAGS)
    except regex.error as exc:
        raise _Mismatch(f"invalid regex {params['find']!r}: {exc}") from None
    most = limit("GSVENDOR_MAX_MEMBER_MIB", MAX_MEMBER_BYTES)  # as an upstream file ("\\1" * 600 of "(?s)(.*)": GBs)
    room, refs = [most - len(text)], len(re.findall(r"\\(?:\d|g<)", params["with"]))  # each at most the match

    def grown(match: Any) -> str:  # the result's size bounded before it is built
        room[0] -= len(params["with"]) + (refs - 1) * len(match.group())
        if room[0] < 0:
            raise _Mismatch(f"the result could be larger than {most >> 20} MiB (GSVENDOR_MAX_MEMBER_MIB)")
        return match.expand(params["with"])

    try:
        new, found = pattern.subn(grown, text, timeout=MATCH_SECONDS)
    except (regex.error, IndexError) as exc:  # IndexError: a group the pattern lacks
        raise _Mismatch(f"invalid replacement {params['with']!r}: {exc}") from None
    except TimeoutError:
        raise PatternTimeout(
            f"/{shorten(pattern.pattern)}/ did not finish in {MATCH_SECONDS:g} s (it backtracks exponentially, "
            "like (a+)+$); write a pattern without nested repetition"
        ) from None
    _count(found, params.get("count", 1), f"/{params['find']}/")
    return new, found


def _yaml_edit(kind: str, text: str, params: dict[str, Any]) -> tuple[str, int]:
    if kind == "yaml-delete":
        return reduce(yamledit.delete, params["keys"], text), 0
    edit = yamledit.set_value if kind == "yaml-set" else yamledit.merge
    return reduce(lambda text, item: edit(text, *item), params["values"].items(), text), 0


def _stderr(done: Any) -> str:
    return " ".join(gitcmd.readable(done.stderr).split())


def _apply_patch(chart: str, files: dict[str, bytes], overlay: Overlay, op: Operation, patch: bytes) -> list[str]:
    """Apply a unified diff (chart-relative paths, ``a/``/``b/`` prefixes allowed) with ``git apply``."""
    where = f"overlays/{overlay.path.name}: {op.label}: {op.params['patch']}"
    strip = "-p1" if re.search(rb"^\+\+\+ b/", patch, re.MULTILINE) else "-p0"
    with tempfile.TemporaryDirectory(prefix="gsvendor-patch-") as tmp:
        patch_file, root = Path(tmp, "overlay.patch"), Path(tmp, "chart")
        patch_file.write_bytes(patch)
        root.mkdir()
        done = gitcmd.run(["apply", strip, "--numstat", "-z", str(patch_file)], root, timeout=300, isolated=True)
        if done.returncode != 0:
            raise OverlayDefinitionError(f"{where}: not a patch git can read: {_stderr(done)}")
        # -z: "added<TAB>deleted<TAB>path<NUL>", or for a rename "added<TAB>deleted<TAB><NUL>old<NUL>new<NUL>"
        paths = sorted({field.rsplit("\t", 1)[-1] for field in done.stdout.split("\0")} - {""})
        if not paths:
            raise OverlayDefinitionError(f"{where}: the patch holds no diff")
        for path in paths:
            if path.startswith("/") or ".." in path.split("/"):
                raise OverlayDefinitionError(f"{where}: refusing a path outside the chart: {path}")
        write_tree(root, {path: files[path] for path in paths if path in files})
        done = gitcmd.run(["apply", strip, "--whitespace=nowarn", str(patch_file)], root, timeout=300, isolated=True)
        if done.returncode != 0:
            raise _fail(chart, op.params["patch"], overlay, op, f"the patch does not apply: {_stderr(done)}")
        touched = []
        for path in paths:
            target = root / path
            if target.is_symlink():
                raise _fail(chart, path, overlay, op, "the patch creates a symbolic link, which a chart must not hold")
            if target.is_file():
                files[path] = target.read_bytes()
            elif files.pop(path, None) is None:
                continue  # neither there before nor after
            touched.append(path)
    return touched
