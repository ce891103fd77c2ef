"""What an upgrade changes in the vendored charts, the lock's build and the new one compared per chart (pure): files,
values keys and defaults, image references of the plain YAML (judged as they render after a template's prefix rewrite),
CRDs, ClusterRole and Role rules and overlay match counts, which :mod:`gsvendor.report.upgrade` renders."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from gsvendor import fastyaml
from gsvendor.images.check import judge
from gsvendor.images.find import Found, configmap_references, key_lines, manifest_references, values_references
from gsvendor.overlays.engine import AppliedOperation, Overlay
from gsvendor.vendoring.compare import statuses
from gsvendor.vendoring.crdchanges import Traits, classify, needs_webhook, traits
from gsvendor.vendoring.plan import Build, ChartBuild
from gsvendor.vendoring.rewrites import Replacement, render, render_rewrites
from gsvendor.yamlio import YamlLimitError, load_all_safe, load_single_safe

Rewrites = Mapping[str, tuple[Replacement, ...]]

# a CRD in a build: its file and what crdchanges.classify reads
CrdShape = tuple[str, Traits]

# a line that is only a template action ({{- if … }}) inside otherwise plain YAML (the CRD charts)
_ACTION_LINE = re.compile(r"^\s*\{\{.*\}\}\s*$")
_ACTION = re.compile(r"\{\{.*?\}\}")
_ACTION_LINES = re.compile(r"(?m)^[ \t]*\{\{.*\}\}[ \t]*$")
_CRD_DOCUMENT = re.compile(r"(?m)^kind:[ \t]*[\"']?CustomResourceDefinition\b")
_PLAIN_YAML_DIRS = ("files/", "crds/")
RBAC_KINDS = ("ClusterRole", "Role")


@dataclass(frozen=True)
class ValueChange:
    """A default that changed: ``path`` (dotted), ``old`` and ``new`` as compact JSON."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class ImageChange:
    """An image reference ``change``d at ``where``: ``old``/``new`` as written, ``*_rendered`` after a template's prefix
    rewrite (``None``: absent or unresolved), ``status``: check-images' verdict on the new one (else the old)."""

    change: str
    where: str
    old: str | None
    new: str | None
    status: str
    rewritten: bool = False
    old_rendered: str | None = None
    new_rendered: str | None = None


@dataclass(frozen=True)
class CrdChange:
    """One CRD (``name``, in ``file``) whose versions or ``spec`` fields changed (``version: field``, of versions in
    both builds); ``classified`` and ``webhook``: :mod:`~gsvendor.vendoring.crdchanges`' lines."""

    file: str
    name: str
    versions_added: tuple[str, ...] = ()
    versions_removed: tuple[str, ...] = ()
    fields_added: tuple[str, ...] = ()
    fields_removed: tuple[str, ...] = ()
    added: bool = False
    removed: bool = False
    classified: tuple[str, ...] = ()
    webhook: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class OverlayUse:
    """One overlay operation in either build: ``(files, matches)`` at the old and the new tag (``None``: not run)."""

    overlay: str
    operation: str
    old: tuple[int, int] | None
    new: tuple[int, int] | None
    description: str = ""  # the operation's, as declared (one line)


@dataclass
class ChartUpgrade:
    """What the upgrade changes in one chart (``dest`` is its output folder); ``keys_below``: every key
    path below each added mapping key (``kserve.servingruntime.vllmserver.devShm``)."""

    name: str
    dest: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    keys_added: list[str] = field(default_factory=list)
    keys_removed: list[str] = field(default_factory=list)
    keys_below: dict[str, list[str]] = field(default_factory=dict)
    defaults_changed: list[ValueChange] = field(default_factory=list)
    images: list[ImageChange] = field(default_factory=list)
    crd_files: list[str] = field(default_factory=list)
    crds: list[CrdChange] = field(default_factory=list)
    rbac: list[RbacChange] = field(default_factory=list)
    overlays: list[OverlayUse] = field(default_factory=list)


@dataclass
class Upgrade:
    """The whole comparison from ``old_tag`` to ``new_tag``; ``patches`` from patch-verify when given, with
    its notes (a dirty checkout, a Dockerfile skipping the series) and why it judged nothing (``--json`` error)."""

    old_tag: str
    new_tag: str
    charts: list[ChartUpgrade]
    patches: list[dict[str, Any]] | None = None
    patches_tag: str | None = None
    patches_notes: list[str] = field(default_factory=list)
    patches_unjudged: list[str] = field(default_factory=list)


def _load_yaml(data: bytes, *, inline_actions: bool = False) -> list[Any]:
    """A YAML file's documents (action lines dropped, ``inline_actions`` as ``TEMPLATED``); ``[]``: not YAML."""
    from ruamel.yaml.error import YAMLError

    lines = data.decode("utf-8", "replace").splitlines()
    kept = ("" if _ACTION_LINE.match(line) else line for line in lines)
    text = "\n".join(_ACTION.sub("TEMPLATED", line) if inline_actions else line for line in kept)
    try:
        return [d for d in load_all_safe(text, "a template") if d is not None]
    except (YAMLError, RecursionError, ValueError, YamlLimitError):
        return []


def _key(name: Any) -> str:
    text = str(name)
    return json.dumps(text) if re.search(r"[.\s\"\[\]]", text) or not text else text


def compare_values(old: Any, new: Any) -> tuple[list[str], list[str], list[ValueChange], dict[str, list[str]]]:
    """Keys added and removed (the topmost, dotted), defaults changed (anything but a mapping compared whole)
    between two values trees, and the :func:`key_paths` below each added key."""
    added: list[str] = []
    removed: list[str] = []
    changed: list[ValueChange] = []
    below: dict[str, list[str]] = {}

    def walk(old: Any, new: Any, path: str) -> None:
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            for key in sorted(set(old) | set(new), key=str):
                here = f"{path}.{_key(key)}" if path else _key(key)
                if key in old and key in new:
                    walk(old[key], new[key], here)
                elif key in old:
                    removed.append(here)
                else:
                    added.append(here)
                    if paths := key_paths(new[key], here):
                        below[here] = paths
        elif old != new or type(old) is not type(new):
            old_text, new_text = (json.dumps(v, sort_keys=True, ensure_ascii=False, default=str) for v in (old, new))
            changed.append(ValueChange(path or "(root)", old_text, new_text))

    walk(old, new, "")
    return added, removed, changed, below


def key_paths(node: Any, path: str) -> list[str]:
    """Every dotted key path below ``node`` (mappings walked, in order), prefixed with ``path``."""
    if not isinstance(node, Mapping):
        return []
    keys = ((f"{path}.{_key(key)}", value) for key, value in node.items())
    return [found for here, value in keys for found in (here, *key_paths(value, here))]


def references(files: Mapping[str, bytes]) -> dict[str, Found]:
    """Image references of a chart's plain YAML, by place (``values.yaml kserve.agent.image``)."""
    from ruamel.yaml.error import YAMLError

    found: list[Found] = []
    with contextlib.suppress(YAMLError, RecursionError, ValueError, YamlLimitError):
        if "values.yaml" in files:
            values, lines = load_single_safe(files["values.yaml"].decode("utf-8", "replace"), key_lines, "values.yaml")
            found += values_references(values, "values.yaml", lines)
    for path in sorted(files):
        if not path.startswith(_PLAIN_YAML_DIRS) or not path.endswith((".yaml", ".yml")):
            continue
        for document in _load_yaml(files[path]):
            if isinstance(document, Mapping):
                in_data = configmap_references(document)[0] if document.get("kind") == "ConfigMap" else []
                for item in [*manifest_references(document), *in_data]:
                    found.append(Found(item.place, f"{path} {item.obj}", item.path, item.written, joined=item.joined))
    return {f"{item.obj} {item.path}": item for item in found}


def compare_images(
    old: Mapping[str, bytes],
    new: Mapping[str, bytes],
    allow: Sequence[str],
    rewrites: tuple[Rewrites, Rewrites] = ({}, {}),
) -> list[ImageChange]:
    """Image references added, removed and changed (as written or rendered) from ``old`` to ``new`` chart
    files, judged by ``allow``; ``rewrites``: :func:`render_rewrites` of the whole old and new chart."""
    before, after = references(old), references(new)
    changes = []
    for where in sorted(set(before) | set(after)):
        was, now = before.get(where), after.get(where)
        (was_rewritten, was_rendered), (now_rewritten, now_rendered) = (
            render(found.written, side.get(found.obj.split(" ", 1)[0], ())) if found else (False, None)
            for found, side in zip((was, now), rewrites, strict=True)
        )
        if was is not None and now is not None and (was.written, was_rendered) == (now.written, now_rendered):
            continue
        change = "added" if was is None else "removed" if now is None else "changed"
        subject, rendered, rewritten = (now, now_rendered, now_rewritten) if now else (was, was_rendered, was_rewritten)
        assert subject is not None
        status = judge(subject if rendered is None else replace(subject, written=rendered), allow).status
        old_ref, new_ref = (found.written if found else None for found in (was, now))
        changes.append(ImageChange(change, where, old_ref, new_ref, status, rewritten, was_rendered, now_rendered))
    return changes


def _crd_documents(data: bytes) -> list[Any]:
    """The CRD documents :func:`_load_yaml` reads, lazily (:func:`gsvendor.fastyaml.load_lazy`: ~20× faster)."""
    text = data.decode("utf-8", "replace")
    if "{{" in text:  # as _load_yaml reads a template, one pass over the whole text
        text = _ACTION.sub("TEMPLATED", _ACTION_LINES.sub("", text))
    out: list[Any] = []
    for chunk in re.split(r"(?m)^---[ \t]*(?:#.*)?$", text):
        if not _CRD_DOCUMENT.search(chunk):
            continue  # a file of many kinds (files/llmisvc/resources.yaml): only its CRDs are read
        try:
            out.append(fastyaml.load_lazy(chunk))
        except fastyaml.NotSimple:
            out += _load_yaml(chunk.encode())
    return [document for document in out if document is not None]


def crd_shapes(files: Mapping[str, bytes]) -> dict[str, CrdShape]:
    """CRD name → (file, :func:`~gsvendor.vendoring.crdchanges.traits`) of every CRD in ``files``."""

    def crds(documents: Iterable[Any]) -> list[tuple[str, Traits]]:
        found = [d for d in documents if isinstance(d, Mapping) and d.get("kind") == "CustomResourceDefinition"]
        return [(str((d.get("metadata") or {}).get("name") or path), traits(d)) for d in found]

    shapes: dict[str, CrdShape] = {}
    for path in sorted(files):
        if not path.endswith((".yaml", ".yml")) or b"CustomResourceDefinition" not in files[path]:
            continue
        try:
            found = crds(_crd_documents(files[path]))
        except fastyaml.NotSimple:  # met while reading a lazily parsed document: the file is parsed whole (libyaml)
            found = crds(_load_yaml(files[path], inline_actions=True))
        for name, details in found:
            shapes.setdefault(name, (path, details))
    return shapes


def compare_crds(before: Mapping[str, CrdShape], after: Mapping[str, CrdShape]) -> list[CrdChange]:
    """CRDs added or removed, and versions and top-level ``spec`` fields added or removed in the others, between
    two builds' :func:`crd_shapes`."""
    out = []
    for name in sorted(set(before) | set(after)):
        if name not in before:
            out.append(CrdChange(after[name][0], name, tuple(sorted(after[name][1]["types"])), added=True))
            continue
        if name not in after:
            out.append(CrdChange(before[name][0], name, (), tuple(sorted(before[name][1]["types"])), removed=True))
            continue
        (_, was_traits), (file, now_traits) = before[name], after[name]
        was, now = ({v: set(fields) for v, fields in t["types"].items()} for t in (was_traits, now_traits))
        both = sorted(set(was) & set(now))
        gone = tuple(f"{v}: {f}" for v in both for f in sorted(was[v] - now[v]))
        fields_added = tuple(f"{v}: {f}" for v in both for f in sorted(now[v] - was[v]))
        versions = tuple(sorted(set(now) - set(was))), tuple(sorted(set(was) - set(now)))
        classified, webhook = classify(was_traits, now_traits, gone), needs_webhook(was_traits, now_traits)
        change = CrdChange(file, name, *versions, fields_added, gone, classified=classified, webhook=webhook)
        if change.classified or change.versions_added or change.versions_removed or change.fields_added:
            out.append(change)
    return out


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


def role_rules(files: Mapping[str, bytes]) -> dict[tuple[str, str], tuple[str, set[str]]]:
    """``(kind, name)`` → (file, flattened rules) of every ClusterRole and Role in ``files`` (read as
    :func:`_load_yaml` with ``inline_actions``)."""
    roles: dict[tuple[str, str], tuple[str, set[str]]] = {}
    for path in sorted(files):
        data = files[path]
        if not path.endswith((".yaml", ".yml")) or not any(f"kind: {k}\n".encode() in data for k in RBAC_KINDS):
            continue
        for document in _load_yaml(data, inline_actions=True):
            if not isinstance(document, Mapping) or document.get("kind") not in RBAC_KINDS:
                continue
            name = str((document.get("metadata") or {}).get("name") or "")
            rules = {
                line for rule in document.get("rules") or [] if isinstance(rule, Mapping) for line in flatten(rule)
            }
            roles.setdefault((str(document["kind"]), name), (path, rules))
    return roles


def compare_rbac(old: Mapping[str, bytes], new: Mapping[str, bytes]) -> list[RbacChange]:
    """The roles added, gone, or whose rules changed from ``old`` to ``new``, by kind and name."""
    before, after = role_rules(old), role_rules(new)
    out = []
    for key in sorted(set(before) | set(after)):
        file, now = after[key] if key in after else (before[key][0], set())
        was = before[key][1] if key in before else set()
        if was != now or key not in before or key not in after:
            added, removed = tuple(sorted(now - was)), tuple(sorted(was - now))
            out.append(RbacChange(*key, file, added, removed, new=key not in before, gone=key not in after))
    return out


def matches(operation: AppliedOperation, overlays: Sequence[Overlay]) -> tuple[int, int]:
    """``(files, matches)`` of an applied operation: the files it touched and the edits it made, as declared
    (``count`` of a replace or insert per file, the keys of a yaml-set/merge/delete, one patch or copy)."""
    if operation.found is not None:  # count: all
        return len(operation.files), operation.found
    ops = (op for o in overlays if o.name == operation.overlay for op in o.operations)
    declared = next((op for op in ops if op.label == operation.operation), None)
    kind, params = (declared.kind, declared.params) if declared is not None else ("", {})
    per_file = 1
    if kind in ("replace", "insert-after", "insert-before"):
        per_file = int(params.get("count", 1))
    elif kind in ("yaml-set", "yaml-merge", "yaml-delete"):
        per_file = len(params.get("keys" if kind == "yaml-delete" else "values") or ())
    return len(operation.files), per_file * len(operation.files)


def compare_overlays(old: ChartBuild | None, new: ChartBuild | None, overlays: Sequence[Overlay]) -> list[OverlayUse]:
    """Every overlay operation applied at either tag, with ``(files, matches)`` at each, in the order they
    apply (overlays by file name, operations as declared): one applied only at the old tag keeps its place."""
    before = {(a.overlay, a.operation): matches(a, overlays) for a in (old.applied if old else [])}
    after = {(a.overlay, a.operation): matches(a, overlays) for a in (new.applied if new else [])}
    described = {(o.name, op.label): getattr(op, "description", "") for o in overlays for op in o.operations}
    rank = {key: index for index, key in enumerate(described)}
    order = sorted(dict.fromkeys([*after, *before]), key=lambda key: rank.get(key, len(rank)))  # stable: ties kept
    return [OverlayUse(o, op, before.get((o, op)), after.get((o, op)), described.get((o, op), "")) for o, op in order]


def compare_chart(
    name: str, old: ChartBuild | None, new: ChartBuild | None, allow: Sequence[str], overlays: Sequence[Overlay]
) -> ChartUpgrade:
    """The upgrade of one chart from ``old`` to ``new`` (either may be ``None``: a chart added or dropped)."""
    before, after = (build.files if build else {} for build in (old, new))
    chart = ChartUpgrade(name=name, dest=(new or old).spec.dest)  # type: ignore[union-attr]
    diff = statuses(before, after)
    chart.added, chart.removed, chart.changed = (
        [p for p, s in diff if s == k] for k in ("added", "removed", "changed")
    )
    chart.keys_added, chart.keys_removed, chart.defaults_changed, chart.keys_below = compare_values(
        *((_load_yaml(f["values.yaml"]) or [{}])[0] if "values.yaml" in f else {} for f in (before, after))
    )
    rewrites = render_rewrites(before), render_rewrites(after)
    # a file the same at both tags holds the same images, CRDs and roles: only the others are parsed,
    # and for images those that render otherwise (a rewrite or its values default changed)
    differ = {p for p, _ in diff}
    images = differ | {p for p in set(rewrites[0]) | set(rewrites[1]) if rewrites[0].get(p) != rewrites[1].get(p)}
    chart.images = compare_images(
        *({p: d for p, d in f.items() if p in images} for f in (before, after)), allow, rewrites
    )
    before, after = ({p: data for p, data in f.items() if p in differ} for f in (before, after))
    shapes = crd_shapes(before), crd_shapes(after)
    chart.crds = compare_crds(*shapes)
    chart.rbac = compare_rbac(before, after)
    chart.crd_files = sorted({shape[0] for side in shapes for shape in side.values()})
    chart.overlays = compare_overlays(old, new, overlays)
    return chart


def compare_builds(
    old: Build, new: Build, allow: Sequence[str], overlays: Sequence[Overlay], patches: dict[str, Any] | None = None
) -> Upgrade:
    """The upgrade from ``old`` (the lock's build) to ``new``, chart by chart in the new build's order;
    ``patches``: ``gsvendor patch-verify --json`` output, its ``results`` listed as given."""
    olds, news = ({c.spec.name: c for c in build.charts} for build in (old, new))
    charts = [compare_chart(n, olds.get(n), news.get(n), allow, overlays) for n in dict.fromkeys([*news, *olds])]
    upgrade = Upgrade(old.snapshot.tag, new.snapshot.tag, charts)
    if patches is not None:
        upgrade.patches = [dict(p) for p in patches.get("results") or [] if isinstance(p, Mapping)]
        upgrade.patches_tag = str(patches.get("tag")) if patches.get("tag") is not None else None
        error = patches.get("error") if isinstance(patches.get("error"), Mapping) else {}
        source = patches.get("source")
        where = source.get("location") if isinstance(source, Mapping) else error.get("value")
        local = isinstance(where, str) and where.startswith("/")  # no path of the machine that ran patch-verify
        upgrade.patches_notes, upgrade.patches_unjudged = (
            [n.replace(where, PurePosixPath(where).name) if local else n for n in lines or [] if isinstance(n, str)]
            for lines in (patches.get("notes"), error.get("problems"))
        )
    return upgrade
