"""The adopt workflow: infer gsvendor.yaml and overlays/ from hand-vendored charts (:mod:`gsvendor.adopt`),
build them as ``sync`` does, and write them when every chart comes out byte for byte; ``detect`` finds the tag."""

from __future__ import annotations

import contextlib
import functools
import glob
import itertools
import os
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gsvendor.adopt.infer import infer_chart
from gsvendor.adopt.layout import OverlayFile, arrange, dump, yaml_text
from gsvendor.config import CONFIG_FILE, DEFAULT_ARCHIVE_URL, ChartSpec, Config, GenerateSettings, Selector
from gsvendor.errors import GsvendorError, OverlayApplyError, OverlayDefinitionError, SourceError, UsageError
from gsvendor.files import leads_outside, normalize_whitespace, read_tree, write_tree
from gsvendor.upstream.fetch import fetch_upstream
from gsvendor.upstream.source import FetchOptions, UpstreamSnapshot, Wanted

_GENERATED = ("README.md", "values.schema.json")
_SETTINGS = [GenerateSettings(o, n) for o in ("alphabetical", "file") for n in ("none", "schemalint")]


@dataclass
class AdoptResult:
    """What adopt inferred (per chart: ``deleted`` upstream files, ``generated`` files); ``existing``: the operation
    count of the project's overlays (``None`` without); ``plain``: the charts kept out of the themed files."""

    tag: str
    overlays: list[OverlayFile]
    deleted: dict[str, list[str]]
    generated: dict[str, list[str]]
    problems: list[str]
    settings: GenerateSettings
    existing: int | None
    written: bool = False
    plain: list[str] = field(default_factory=list)

    @property
    def operations(self) -> int:
        """The overlays' operations (deletions are chart ``exclude``s, not counted)."""
        return sum(len(o.operations) for o in self.overlays)


def chart_folders(root: Path, given: list[Path]) -> list[tuple[str, str]]:
    """``(chart name, project-relative folder)`` of the given folders, else of every chart in ``helm/``.
    Raises :class:`UsageError` naming a folder that is no chart, or when there is none."""
    folders = given or sorted(p for p in (root / "helm").glob("*") if (p / "Chart.yaml").is_file())
    if not folders:
        raise UsageError(f"{root / 'helm'}: no chart folder (a folder with a Chart.yaml); give CHART_DIR")
    charts = []
    for folder in folders:
        if not (folder / "Chart.yaml").is_file():
            raise UsageError(f"{folder}: not a chart folder (no Chart.yaml)")
        if leads_outside(folder, root):
            raise UsageError(f"{folder}: outside the project {root}")
        charts.append((_chart_name(folder), folder.resolve().relative_to(root.resolve()).as_posix()))
    name, count = Counter(n for n, _ in charts).most_common(1)[0]
    if count > 1:
        raise UsageError(f"two chart folders are named {name}")
    return charts


def _chart_name(folder: Path) -> str:
    """The ``name`` in its Chart.yaml (upstream's folder is named after it), else the folder's name."""
    from gsvendor.yamlio import load_plain

    try:
        name = load_plain(folder.joinpath("Chart.yaml").read_text(encoding="utf-8")).get("name")
    except Exception:  # unreadable, not YAML or not a mapping: the folder's name
        name = None
    valid = isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name)
    return str(name) if valid else folder.resolve().name


def _config(
    root: Path,
    repository: str,
    charts: list[tuple[str, str]],
    overlays: Path,
    settings: GenerateSettings,
    deleted: dict[str, list[str]],
) -> Config:
    """The configuration :func:`config_text` writes, reading the overlays from ``overlays``."""
    excluded = {name: tuple(Selector(path=glob.escape(p)) for p in paths) for name, paths in deleted.items()}
    specs = tuple(ChartSpec(name, f"charts/{name}", dest, exclude=excluded.get(name, ())) for name, dest in charts)
    return Config(
        path=root / CONFIG_FILE,
        root=root,
        repository=repository,
        archive_url=DEFAULT_ARCHIVE_URL,
        git_url=f"https://github.com/{repository}.git",
        output="helm",
        overlays_dir=overlays,
        lock_path=root / "gsvendor.lock.yaml",
        charts=specs,
        generate=settings,
    )


def _generated(config: Config, trees: dict[str, dict[str, bytes]]) -> tuple[GenerateSettings, dict[str, list[str]]]:
    """The generate settings that reproduce most generated files of the trees, and those files per chart."""
    from gsvendor.generate.chart import generate_chart, project_reader

    generate = functools.partial(generate_chart, outside=project_reader(config), project_root=config.root.as_posix())

    def found(settings: GenerateSettings) -> dict[str, list[str]]:
        files: dict[str, list[str]] = {}
        for spec in config.charts:
            tree = trees[spec.name]
            given = {p: d for p, d in tree.items() if p not in _GENERATED}
            try:
                out = generate(given, chart_dir=(config.root / spec.dest).as_posix(), settings=settings)
            except GsvendorError:
                continue
            files[spec.name] = sorted(p for p in set(out) - set(given) if tree.get(p) == out[p])
        return files

    return max(((s, found(s)) for s in _SETTINGS), key=lambda best: sum(map(len, best[1].values())))


def adopt(
    root: Path,
    tag: str,
    source: str,
    folders: list[Path],
    options: FetchOptions,
    *,
    repository: str = "kserve/kserve",
    force: bool = False,
    partial: bool = False,
    dry_run: bool = False,
) -> AdoptResult:
    """Infer and prove the overlays that make upstream ``tag`` at ``source`` into the charts of ``folders``
    (default every chart in ``helm/``), and write gsvendor.yaml, overlays/ and the lock (with problems, only
    when ``partial``). Raises :class:`UsageError` (exit 2), before reading anything, when one of those exists
    without ``force``; :class:`SourceError` for an unreadable source."""
    from gsvendor.overlays.engine import load_overlays
    from gsvendor.vendoring import lock as lockfile
    from gsvendor.vendoring.plan import build, chart_files, wanted_for
    from gsvendor.workflows.sync import check_tag_syntax

    check_tag_syntax(tag)
    overlays_dir = root / "overlays"
    present = [n for n in (CONFIG_FILE, "overlays", "gsvendor.lock.yaml") if os.path.lexists(root / n)]
    if present and not force and not dry_run:
        raise UsageError(f"{present[0]} exists: adopt writes a new one; re-run with --force to replace it")
    existing = None
    if overlays_dir.is_dir():
        with contextlib.suppress(GsvendorError):  # a broken hand-written overlay: nothing to compare with
            existing = sum(len(o.operations) for o in load_overlays(overlays_dir))
    charts = chart_folders(root, folders)
    trees = {name: read_tree(root, dest) for name, dest in charts}
    probe = _config(root, repository, charts, overlays_dir, GenerateSettings(), {})
    snapshot = fetch_upstream(tag, source, wanted_for(probe), options)
    upstream = {spec.name: chart_files(snapshot, spec) for spec in probe.charts}
    settings, generated = _generated(probe, trees)
    inferences = [
        infer_chart(name, upstream[name], trees[name], set(generated.get(name, ())), tag) for name, _ in charts
    ]
    deleted = {i.chart: i.deleted for i in inferences if i.deleted}
    problems = [p for i in inferences for p in i.problems]
    universes = {name: set(files) for name, files in upstream.items()}
    with tempfile.TemporaryDirectory(prefix=".gsvendor-adopt-", dir=root) as tmp:
        plain: set[str] = set()  # charts whose operations themes reordered into a failing order
        known = tuple(p.split(": ")[0] for p in problems)
        for attempt in itertools.count():  # ends: each new attempt keeps one more chart plain
            stage = Path(tmp) / f"attempt-{attempt}"
            layout = arrange(inferences, universes, plain)
            stage.mkdir(parents=True)
            for overlay in layout:
                (stage / f"{overlay.name}.yaml").write_text(dump(overlay), encoding="utf-8")
                write_tree(stage, overlay.assets)
            config = _config(root, repository, charts, stage, settings, deleted)
            try:
                built = build(config, snapshot, load_overlays(stage))
                left = [x for x in _differences(built, trees) if not x.split(": ")[0].endswith(known)]
                failing = {name for name, dest in charts for x in left if x.startswith(f"{dest}/")}
            except (OverlayDefinitionError, OverlayApplyError) as exc:
                # an OverlayDefinitionError: text the YAML of an overlay cannot carry as written
                left = [str(exc)]
                failing = {n for n, _ in charts if isinstance(exc, OverlayApplyError) and str(exc).startswith(f"{n}/")}
            if not failing - plain:
                break
            plain |= failing  # themes reordered operations that depend on each other: keep them apart
        result = AdoptResult(tag, layout, deleted, generated, problems + left, settings, existing, plain=sorted(plain))
        if dry_run or (result.problems and not partial):
            return result
        location = lockfile.source_location(snapshot.kind, source, root)
        lock_bytes = None if result.problems else lockfile.render(lockfile.document(built, location))
        _write(root, Path(tmp), stage, config_text(root, repository, charts, deleted, settings), lock_bytes)
    result.written = True
    return result


_DIFFERENCES = {
    "added": "sync would add it",
    "generated": "differs from what generate writes (edit its template or .schema.yaml instead)",
    "removed": "sync would remove it",
    "changed": "the overlays inferred do not reproduce it",
}


def _differences(built: Any, trees: dict[str, dict[str, bytes]]) -> list[str]:
    """One line per file whose build differs from the tree."""
    from gsvendor.vendoring.compare import statuses

    left = []
    for chart in built.charts:
        for path, status in statuses(trees[chart.spec.name], chart.files):
            what = "generated" if status != "added" and path in chart.generated else status
            left.append(f"{chart.spec.dest}/{path}: {_DIFFERENCES[what]}")
    return left


def config_text(
    root: Path,
    repository: str,
    charts: list[tuple[str, str]],
    deleted: dict[str, list[str]],
    settings: GenerateSettings,
) -> str:
    """gsvendor.yaml for the adopted charts (deleted upstream files as ``exclude``) and generate
    ``settings``; the other settings of an existing gsvendor.yaml (images, Dockerfiles…) kept."""
    from gsvendor.yamlio import load_yaml_document

    kept: dict[str, Any] = {}
    old_path = root / CONFIG_FILE
    # a link to a file elsewhere (~/.kube/config) is not carried into the project's gsvendor.yaml
    if old_path.is_file() and not leads_outside(old_path, root):
        with contextlib.suppress(Exception):  # unreadable: written afresh
            old = load_yaml_document(old_path, CONFIG_FILE)  # the YAML limits first
            replaced = ("charts", "overlays", "output", "generate", "lock")
            kept = {k: v for k, v in (old or {}).items() if k not in replaced}
    data: dict[str, Any] = {"upstream": kept.pop("upstream", {"repository": repository})}
    data.update({"output": "helm", "overlays": "overlays", "lock": "gsvendor.lock.yaml"})
    entries: list[Any] = []
    for name, dest in charts:
        entry: dict[str, Any] = {"name": name}
        if dest != f"helm/{name}":
            entry["dest"] = dest
        if deleted.get(name):
            entry["exclude"] = [glob.escape(p) for p in deleted[name]]
        entries.append(name if len(entry) == 1 else entry)
    data["charts"] = entries
    data["generate"] = {
        "readme": {"sortValuesOrder": settings.sort_values_order},
        "schema": {"normalize": settings.normalize},
    }
    data.update(kept)
    header = "# gsvendor configuration, written by gsvendor adopt: what to vendor from upstream, and where.\n"
    return yaml_text(data, header=header)


def _write(root: Path, tmp: Path, stage: Path, text: str, lock_bytes: bytes | None) -> None:
    """Put overlays/, gsvendor.yaml and the lock in place; on any failure put back what was there."""
    from gsvendor.signals import Deferred

    config_new, lock_new = tmp / "gsvendor.yaml.new", tmp / "lock.new"
    config_new.write_text(text, encoding="utf-8")
    targets = [(stage, root / "overlays"), (config_new, root / CONFIG_FILE)]
    if lock_bytes is not None:
        lock_new.write_bytes(lock_bytes)
        targets.append((lock_new, root / "gsvendor.lock.yaml"))
    # a signal between the renames would leave overlays/ of one adoption beside another gsvendor.yaml
    with Deferred(redeliver=True):
        _swap(targets, [], tmp)


def _swap(targets: list[tuple[Path, Path]], moved: list[tuple[Path, Path | None]], tmp: Path) -> None:
    """Rename each new file over its target, the old one kept in ``tmp``; on failure put back what was."""
    try:
        for index, (new, target) in enumerate(targets):
            old = None
            if target.exists() or target.is_symlink():
                old = tmp / f"old-{index}"
                os.replace(target, old)
            moved.append((target, old))
            os.replace(new, target)
    except BaseException:
        for target, old in reversed(moved):
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()
            if old is not None:
                os.replace(old, target)
        raise


ARCHIVE = re.compile(r"^(?P<name>.+?)-(?P<tag>v?\d[0-9A-Za-z.+-]*?)\.(tar\.gz|tgz)$")


@dataclass(frozen=True)
class Match:
    """How well upstream ``tag`` at ``source`` matches: ``ratio`` of the lines (0..1), ``identical`` files of
    ``files``."""

    tag: str
    source: str
    ratio: float
    identical: int
    files: int


def detect(root: Path, source: str, folders: list[Path], options: FetchOptions, newest: int = 10) -> list[Match]:
    """Score the tag archives of a folder (``<name>-<tag>.tar.gz``) or the ``newest`` release tags of
    a git URL against the tree, best first. Raises :class:`UsageError` when ``source`` offers no tag."""
    from gsvendor.upstream.source import classify_source

    charts = chart_folders(root, folders)
    trees = {name: read_tree(root, dest) for name, dest in charts}
    wanted = Wanted(folders=tuple(f"charts/{name}" for name, _ in charts), files=())
    if classify_source(source) == "git":
        candidates = [(tag, source) for tag in _git_tags(source, options)[:newest]]
    else:
        archives = sorted(Path(source).iterdir()) if Path(source).is_dir() else []
        candidates = [(match["tag"], str(p)) for p in archives if (match := ARCHIVE.match(p.name))]
    if not candidates:
        raise UsageError(
            f"--source {source}: no tags to detect from (a folder of <name>-<tag>.tar.gz archives, or a git URL)"
        )
    matches = []
    for tag, location in candidates:
        try:
            snapshot = fetch_upstream(tag, location, wanted, options)
        except SourceError:
            continue  # another project's archive, or a tag without these charts
        matches.append(_score(tag, location, snapshot, trees))
    if not matches:
        raise UsageError(f"--source {source}: no tag holds the charts {', '.join(trees)}")
    return sorted(matches, key=lambda m: (-m.ratio, -m.identical, m.tag))


def _git_tags(url: str, options: FetchOptions) -> list[str]:
    """The release tags (:data:`gsvendor.config.DEFAULT_TAG_PATTERN`) at ``url``, newest first. Raises
    :class:`SourceError` when git cannot list them in ``options.max_time`` seconds."""
    from packaging.version import InvalidVersion, Version

    from gsvendor.config import DEFAULT_TAG_PATTERN
    from gsvendor.upstream.git import remote_tags
    from gsvendor.upstream.source import tag_version

    tags = []
    for tag in filter(re.compile(DEFAULT_TAG_PATTERN).search, remote_tags(url, options)):
        with contextlib.suppress(InvalidVersion):  # a semver pre-release PEP 440 cannot order
            tags.append((Version(tag_version(tag)), tag))
    return [tag for _, tag in sorted(tags, reverse=True)]


def _score(tag: str, source: str, snapshot: UpstreamSnapshot, trees: dict[str, dict[str, bytes]]) -> Match:
    lines = total = identical = files = 0
    for name, tree in trees.items():
        prefix = f"charts/{name}/"
        upstream = {p[len(prefix) :]: d for p, d in snapshot.files.items() if p.startswith(prefix)}
        for path in set(tree) | set(upstream):
            mine, theirs = tree.get(path, b""), normalize_whitespace(upstream.get(path, b""))
            files += 1
            identical += mine == theirs
            a, b = Counter(mine.splitlines()), Counter(theirs.splitlines())
            lines += sum((a & b).values())
            total += max(sum(a.values()), sum(b.values()))
    return Match(tag, source, lines / total if total else 0.0, identical, files)
