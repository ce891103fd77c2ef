"""Inferred operations grouped into overlay files by theme (:data:`THEMES`, else one per chart), described
and written as YAML. The same change in several files of a chart becomes one operation with a
``prefix*suffix`` ``glob`` (minus fewer ``exclude``d files), the same one in several charts one with ``charts``."""

from __future__ import annotations

import fnmatch
import io
import os
import re
from dataclasses import dataclass, field
from typing import Any

from gsvendor.adopt.infer import ChartInference
from gsvendor.overlays.yamledit import parse_pointer

THEMES: dict[str, str] = {
    "10-chart-metadata": "Chart metadata: the Chart.yaml keys that differ from upstream, and values that carry "
    "the synced tag (written ${tag}, so the next sync sets the next tag).",
    "20-helpers-labels": "Labels added or changed in the charts' common labels (templates/_helpers.tpl).",
    "30-crd-resource-policy": "Resource policies (helm.sh/resource-policy) on the CustomResourceDefinitions.",
    "40-namespace": "Namespace rewrites: upstream's fixed namespaces replaced.",
    "50-image-registry": "Image registry rewrites: upstream's image references replaced by the mirrored ones.",
    "90-giantswarm-files": "Giant Swarm-only files: files the repository has and upstream does not.",
}
_REGISTRY = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?/[a-z0-9._/-]+", re.IGNORECASE)
# what a literal block cannot keep exactly: trailing blanks, tabs, control characters
_NOT_BLOCK = re.compile(r"[ \t]\n|[ \t]$|[\r\t\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")
_IMAGE_KEY = re.compile(r"^\s*-?\s*[\w.-]*(image|registry|repository)[\w.-]*\s*:", re.IGNORECASE | re.MULTILINE)


@dataclass
class OverlayFile:
    """One overlay file to write: ``name`` (file stem; a :data:`THEMES` key or ``80-<chart>``), its operations,
    and the assets (overlays/-relative path → bytes) its copies read."""

    name: str
    operations: list[dict[str, Any]] = field(default_factory=list)
    assets: dict[str, bytes] = field(default_factory=dict)


def theme(params: dict[str, Any], chart: str) -> str:
    """The overlay file an operation of ``chart`` belongs in: a :data:`THEMES` key, or ``80-<chart>``."""
    file, values = params["file"], params.get("values", {})
    added = "\n".join(f"{k}: {v}" for k, v in values.items()) or str(params.get("with", params.get("text", "")))
    context = added + str(params.get("find", "")) + str(params.get("anchor", ""))
    if file == "Chart.yaml" or (params["op"] == "yaml-set" and all(v == "${tag}" for v in values.values())):
        return "10-chart-metadata"
    if "resource-policy" in added:
        return "30-crd-resource-policy"
    if file.endswith("_helpers.tpl") and re.search(r"label|app\.kubernetes\.io|\.io/", context, re.IGNORECASE):
        return "20-helpers-labels"
    if "namespace" in added.lower():
        return "40-namespace"
    keys = " ".join(values)
    if params["op"] != "yaml-delete" and (
        re.search("image|registry", keys, re.IGNORECASE) or (_IMAGE_KEY.search(added) and _REGISTRY.search(added))
    ):
        return "50-image-registry"
    return f"80-{chart}"


def split(params: dict[str, Any], chart: str) -> list[dict[str, Any]]:
    """A ``yaml-set`` whose keys belong to several themes as one operation per theme (keys are
    independent, so their order does not matter); any other operation as it is."""
    if params["op"] != "yaml-set" or params["file"] == "Chart.yaml":
        return [params]
    parts: dict[str, dict[str, Any]] = {}
    for pointer, value in params["values"].items():
        parts.setdefault(theme({**params, "values": {pointer: value}}, chart), {})[pointer] = value
    return [{**params, "values": values} for values in parts.values()]


def _first(text: str, width: int = 60) -> str:
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def _lines(text: str) -> str:
    n = len(text.splitlines())
    return f"{n} line{'s' * (n != 1)}"


def describe(params: dict[str, Any]) -> str:
    """What one operation changes, in words (its ``description``)."""
    kind = params["op"]
    where = params.get("file") or params.get("glob") or params.get("to", "")
    times = f" ({params['count']} times)" if params.get("count", 1) > 1 else ""
    if kind in ("yaml-set", "yaml-delete"):
        keys = [".".join(parse_pointer(k)) for k in params.get("values") or params["keys"]]
        if kind == "yaml-delete":
            return f"removes {', '.join(keys)} from {where}"
        shown = ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
        return f"sets {shown} in {where}"
    if kind == "copy":
        return f"the Giant Swarm-only {params['to']}"
    if kind == "replace":
        if params["find"] == "":
            return f"the content of {where}, empty upstream ({_lines(params['with'])})"
        if not params["with"]:
            return f"removes {_lines(params['find'])} from {_first(params['find'])!r} in {where}{times}"
        pairs = zip(params["find"].splitlines(), params["with"].splitlines(), strict=False)
        was, now = next(((a, b) for a, b in pairs if a != b), (params["find"], params["with"]))
        return f"replaces {_first(was)!r} with {_first(now)!r} in {where}{times}"
    side = "after" if kind == "insert-after" else "before"
    what = f"{_first(params['text'])!r} ({_lines(params['text'])})"
    return f"inserts {what} {side} {_first(params['anchor'])!r} in {where}{times}"


def _glob_for(files: list[str], universe: set[str]) -> dict[str, Any] | None:
    """A ``prefix*suffix`` ``glob`` selecting exactly ``files`` of ``universe`` but fewer ``exclude``d, if any."""
    prefix = os.path.commonprefix(files)  # noqa: RUF071 (a prefix of characters is wanted)
    suffix = os.path.commonprefix([f[::-1] for f in files])[::-1]  # noqa: RUF071
    if any(c in prefix + suffix for c in "*?["):
        return None
    shortest = min(len(f) for f in files)
    suffix = suffix[max(0, len(prefix) + len(suffix) - shortest) :]
    glob = f"{prefix}*{suffix}"
    extra = sorted(p for p in universe if fnmatch.fnmatchcase(p, glob) and p not in files)
    if extra and (len(extra) >= len(files) or any(c in p for p in extra for c in "*?[")):
        return None
    return {"glob": glob, "exclude": extra} if extra else {"glob": glob}


def _merge_files(chart: str, ops: list[dict[str, Any]], universe: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """One chart's operations with the same change in several files merged into a glob: ``(theme, params)``."""
    keyed = [((theme(op, chart), repr(_params_without(op, "file"))), op) for o in ops for op in split(o, chart)]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for key, op in keyed:
        groups.setdefault(key, []).append(op)
    out: list[tuple[str, dict[str, Any]]] = []
    for key, op in keyed:
        if key not in groups:  # merged into a glob already
            continue
        files = sorted({m["file"] for m in groups[key]})
        found = _glob_for(files, universe) if len(files) > 1 and len(files) == len(groups[key]) else None
        if found:
            del groups[key]
        out.append((key[0], {"op": op["op"], **found, **_params_without(op, "op", "file")} if found else dict(op)))
    return out


def _params_without(params: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in keys}


def arrange(inferences: list[ChartInference], universes: dict[str, set[str]], plain: set[str]) -> list[OverlayFile]:
    """The overlay files for the charts' inferences, in sync's order. ``universes``: per chart, upstream's
    paths (what a glob may select); charts in ``plain`` keep their operations in one file, in inference order."""
    all_charts = sorted(i.chart for i in inferences)
    entries: dict[str, list[tuple[dict[str, Any], list[str]]]] = {}
    for inference in inferences:
        for stem, params in _merge_files(inference.chart, inference.operations, universes.get(inference.chart, set())):
            name = f"80-{inference.chart}" if inference.chart in plain else stem
            bucket = entries.setdefault(name, [])
            same = next((entry for entry in bucket if entry[0] == params), None)
            if same is not None and name in THEMES:
                same[1].append(inference.chart)
            else:
                bucket.append((params, [inference.chart]))
    files = [
        OverlayFile(name, [_declared(params, charts, all_charts, name in THEMES) for params, charts in entries[name]])
        for name in sorted(entries)
    ]
    copies = _copies(inferences, all_charts)
    return [*files, copies] if copies.operations else files


def _declared(params: dict[str, Any], charts: list[str], all_charts: list[str], scoped: bool) -> dict[str, Any]:
    scope = {"charts": sorted(charts)} if scoped and sorted(charts) != all_charts else {}
    return {"op": params["op"], "description": describe(params), **scope, **_params_without(params, "op")}


def _copies(inferences: list[ChartInference], all_charts: list[str]) -> OverlayFile:
    overlay = OverlayFile("90-giantswarm-files")
    owners: dict[tuple[str, bytes], list[str]] = {}
    for inference in inferences:
        for path, data in inference.copies.items():
            owners.setdefault((path, data), []).append(inference.chart)
    for (path, data), charts in sorted(owners.items(), key=lambda item: (item[0][0], item[1])):
        source = f"files/{'common' if len(charts) > 1 else charts[0]}/{path}"
        if source in overlay.assets:  # two different contents shared by different sets of charts
            source = f"files/{charts[0]}/{path}"
        overlay.assets[source] = data
        overlay.operations.append(_declared({"op": "copy", "from": source, "to": path}, charts, all_charts, True))
    return overlay


def dump(overlay: OverlayFile) -> str:
    """The overlay file's YAML: multi-line strings as literal blocks, everything else plain."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    def styled(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: styled(v) for k, v in value.items()}
        if isinstance(value, list):
            return [styled(v) for v in value]
        if isinstance(value, str) and "\n" in value.rstrip("\n") and not _NOT_BLOCK.search(value):
            return LiteralScalarString(value)
        return value

    chart = overlay.name[3:]  # of an 80-<chart> file, the one no theme covers
    about = THEMES.get(overlay.name, f"The changes to {chart} that no theme covers, one operation per change.")
    charts = {} if overlay.name in THEMES else {"charts": [chart]}
    return yaml_text({"description": about, **charts, "operations": styled(overlay.operations)}, 4096)


def yaml_text(data: Any, width: int = 80, header: str = "") -> str:
    """``data`` as block YAML (sequences indented under their key), lines folded at ``width``, after ``header``."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = width
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    yaml.dump(data, out)
    return header + out.getvalue()
