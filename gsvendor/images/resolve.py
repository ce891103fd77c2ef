"""check-images --resolve: look up every allowed reference, and mirrors against their upstream."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gsvendor.errors import UsageError
from gsvendor.images import registry
from gsvendor.images.check import ALLOWED, EMPTY, TEMPLATED, CheckResult
from gsvendor.images.credentials import insecure_hosts, load_credentials
from gsvendor.images.reference import ImageReference, InvalidReference, parse
from gsvendor.images.registry import DEFAULT_JOBS, Mirror, Resolution, ResolveOptions, Resolver, Target, target_of
from gsvendor.images.variants import config_error

if TYPE_CHECKING:
    from gsvendor.config import Config


def _prefix_problem(prefix: str) -> str | None:
    """Why an ``images.mirrors`` prefix is not one of a valid name in normalized form (``docker.io/kserve/``)."""
    if "/" not in prefix or any(c in prefix for c in "@ \t"):
        return f"{prefix!r}: expected a registry host and a name prefix (gsoci.azurecr.io/giantswarm/)"
    probe = prefix + "x"  # the prefix of a name: some name must start with it
    try:
        reference = parse(probe)
    except InvalidReference as exc:
        return f"{prefix!r}: no image name can start with it ({exc})"
    return None if reference.name == probe else f"{prefix!r}: write it normalized, as {reference.name[:-1]!r}"


def find_mirror(mirrors: Sequence[Mirror], name: str) -> Mirror | None:
    """The mirror whose prefix starts ``name`` (``registry/repository``); the longest prefix wins."""
    return max((m for m in mirrors if name.startswith(m.mirror)), key=lambda m: len(m.mirror), default=None)


def cli_options(
    config: Config | None,
    *,
    resolve: bool,
    compare_upstream: bool,
    jobs: int | None,
    registry_config: Path | None,
    insecure: Sequence[str] | None,
) -> ResolveOptions | None:
    """The command line's :class:`ResolveOptions` (``None`` without ``--resolve``), with ``config``'s
    ``images.mirrors``. Raises :class:`UsageError` for a resolve option without ``--resolve``, ``--compare-upstream``
    without ``images.mirrors``, a bad ``--registry-config`` or ``--insecure-registry``; :class:`ConfigError`
    (``gsvendor.yaml:line: images.mirrors[0].mirror: …``) for a malformed, repeated or non-normalized prefix."""
    if not resolve:
        given = {
            "--compare-upstream": compare_upstream,
            "--resolve-jobs": jobs is not None,
            "--registry-config": registry_config is not None,
            "--insecure-registry": bool(insecure),
        }
        if any(given.values()):
            raise UsageError(f"{', '.join(name for name, value in given.items() if value)} needs --resolve")
        return None
    mirrors: dict[str, Mirror] = {}
    for index, entry in enumerate(((config.raw.get("images") or {}).get("mirrors") or []) if config else []):
        mirror = Mirror(str(entry["mirror"]), str(entry["upstream"]))
        for key, prefix in (("mirror", mirror.mirror), ("upstream", mirror.upstream)):
            if problem := _prefix_problem(prefix):
                raise config_error(config, ["images", "mirrors", index, key], problem)
        if mirror.mirror in mirrors:
            raise config_error(config, ["images", "mirrors", index, "mirror"], f"{mirror.mirror!r} is listed twice")
        mirrors[mirror.mirror] = mirror
    if compare_upstream and not mirrors:
        where = config.path.name if config else "no gsvendor.yaml"
        raise UsageError(f"--compare-upstream: no images.mirrors configured ({where}); nothing to compare")
    hosts, credentials = insecure_hosts(insecure or ()), load_credentials(registry_config)
    return ResolveOptions(jobs or DEFAULT_JOBS, hosts, credentials, compare_upstream, tuple(mirrors.values()))


@dataclass(frozen=True)
class Place:
    """Where a reference was found: chart name, variant name, location (``Deployment/x spec…image``)."""

    chart: str
    variant: str
    location: str


@dataclass(frozen=True)
class Comparison:
    """A mirror reference compared with its upstream: ``outcome`` one of :data:`COMPARISONS`;
    ``upstream`` ``None`` when the mirror prefix maps the name to an invalid one (``detail`` says so);
    ``resolution``: the upstream's lookup."""

    mirror: Mirror
    outcome: str
    upstream: ImageReference | None = None
    resolution: Resolution | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        """Equal, or not compared (the mirror's own lookup failed and reports that)."""
        return self.outcome in (registry.EQUAL, registry.NOT_COMPARED)


@dataclass
class ReferenceResolution:
    """One distinct allowed reference (normalized), its lookup, where it was found, and its mirror comparison."""

    reference: ImageReference
    resolution: Resolution
    places: list[Place] = field(default_factory=list)
    comparison: Comparison | None = None

    @property
    def ok(self) -> bool:
        """Resolved, and equal to upstream when compared."""
        return self.resolution.ok and (self.comparison is None or self.comparison.ok)

    @property
    def outcome(self) -> str:
        """The lookup's outcome."""
        return self.resolution.outcome

    @property
    def implicit_latest(self) -> bool:
        """No tag and no digest written: the kubelet pulls ``latest``."""
        return self.reference.tag is None and self.reference.digest is None


@dataclass
class ResolveReport:
    """What ``--resolve`` found: ``references`` sorted by normalized name; ``occurrences`` of them in
    charts × variants; references not asked: ``templated``, ``empty`` and ``not_allowed``."""

    references: list[ReferenceResolution]
    occurrences: int = 0
    templated: int = 0
    empty: int = 0
    not_allowed: int = 0
    compare_upstream: bool = False
    jobs: int = DEFAULT_JOBS
    lookups: int = 0
    requests: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def get(self, normalized: str | None) -> ReferenceResolution | None:
        """The entry of a normalized reference, if it was resolved (``None``: a reference that did not parse)."""
        return next((r for r in self.references if r.reference.normalized == normalized), None)

    @property
    def ok(self) -> bool:
        """Every reference resolved (and equal to its upstream when compared)."""
        return all(r.ok for r in self.references)

    @property
    def failing(self) -> list[ReferenceResolution]:
        """References that did not resolve, or whose mirror comparison failed."""
        return [r for r in self.references if not r.ok]

    def count(self, outcome: str) -> int:
        """References whose lookup has ``outcome``."""
        return sum(1 for r in self.references if r.outcome == outcome)

    def count_comparison(self, outcome: str) -> int:
        """Mirror references whose comparison has ``outcome``."""
        return sum(1 for r in self.references if r.comparison is not None and r.comparison.outcome == outcome)


def resolve_check(result: CheckResult, options: ResolveOptions) -> ResolveReport:
    """Resolve every distinct allowed reference of a check-images ``result`` once, counting the others; with
    ``options.compare_upstream`` compare each under an ``images.mirrors`` prefix with its upstream at the
    same tag. Raises nothing: every registry problem is an outcome."""
    start = time.perf_counter()
    entries: dict[str, tuple[ImageReference, list[Place]]] = {}
    counts = {TEMPLATED: 0, EMPTY: 0, "other": 0, "unpinned": 0}
    for item in result.results:
        for checked in item.references:
            ref = checked.reference
            if checked.found.place == "values" and ref is not None and ref.tag is None and ref.digest is None:
                # a values.yaml image whose tag the chart fills in at render time (kserve.version):
                # the rendered variants carry the full reference, which is what gets resolved
                counts["unpinned"] += 1
            elif checked.status == ALLOWED and ref is not None:
                place = Place(item.chart.name, item.name, checked.found.location)
                entries.setdefault(ref.normalized, (ref, []))[1].append(place)
            else:
                counts[checked.status if checked.status in (TEMPLATED, EMPTY) else "other"] += 1
    upstreams: dict[str, tuple[Mirror, ImageReference | None, str]] = {}
    for name, (ref, _) in entries.items() if options.compare_upstream else ():
        if mirror := find_mirror(options.mirrors, ref.name):
            try:
                upstreams[name] = (mirror, mirror.upstream_of(ref), "")
            except InvalidReference as exc:
                upstreams[name] = (mirror, None, f"upstream name is not a valid reference: {exc}")
    resolver = Resolver(options)
    try:
        targets = [target_of(ref) for ref, _ in entries.values()]
        targets += [target_of(up, by_tag=True) for _, up, _ in upstreams.values() if up is not None]
        answers = resolver.resolve(targets)
    finally:
        resolver.close()
    notes = list(options.credentials.notes)
    if unpinned := counts["unpinned"]:
        notes.append(
            f"{unpinned} values.yaml image default(s) without a tag not asked: the chart sets the tag at render time"
        )
    references = [
        ReferenceResolution(ref, answers[target_of(ref)], places) for _, (ref, places) in sorted(entries.items())
    ]
    for entry in references:
        if up := upstreams.get(entry.reference.normalized):
            entry.comparison = _compare(entry.resolution, *up, answers)
    return ResolveReport(
        references=references,
        occurrences=sum(len(places) for _, places in entries.values()),
        templated=counts[TEMPLATED],
        empty=counts[EMPTY],
        not_allowed=counts["other"],
        compare_upstream=options.compare_upstream,
        jobs=options.jobs,
        lookups=resolver.lookups,
        requests=resolver.requests,
        notes=notes,
        seconds=time.perf_counter() - start,
    )


def _compare(
    mine: Resolution, mirror: Mirror, upstream: ImageReference | None, detail: str, answers: Mapping[Target, Resolution]
) -> Comparison:
    if upstream is None:
        return Comparison(mirror, f"upstream-{registry.REGISTRY_ERROR}", detail=detail)
    theirs = answers[target_of(upstream, by_tag=True)]
    if not mine.ok:
        return Comparison(
            mirror, registry.NOT_COMPARED, upstream, theirs, f"the mirror did not resolve ({mine.outcome})"
        )
    if not theirs.ok:
        outcome = registry.UPSTREAM_MISSING if theirs.outcome in registry.MISSING else f"upstream-{theirs.outcome}"
        return Comparison(mirror, outcome, upstream, theirs, f"{theirs.outcome}: {theirs.detail}")
    if theirs.digest == mine.digest:
        return Comparison(mirror, registry.EQUAL, upstream, theirs)
    return Comparison(mirror, registry.DIFFERENT, upstream, theirs, f"mirror {mine.digest} ≠ upstream {theirs.digest}")


def short_digest(digest: str | None) -> str:
    """``sha256:`` and the first 12 hex digits (what ``docker images`` shows), or ``-``."""
    return digest[: digest.index(":") + 13] if digest else "-"
