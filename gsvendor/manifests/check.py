"""check-manifests: every rendered object whose group and kind a CRD of the project defines, validated against
the served version's schema per chart × variant (an object identical in several variants once), and the label
policy (``manifests.labels``). The renders are check-images', each split by :func:`parse_rendered` in its worker."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gsvendor.errors import ConfigError
from gsvendor.images.documents import CONTENT, CRD_KIND, source_of
from gsvendor.manifests.crds import CRD, CRDError, CRDSet, chart_file_crds
from gsvendor.manifests.schema import Violation, check
from gsvendor.yamlio import YamlLimitError, invalid_yaml, load_all_safe

if TYPE_CHECKING:
    from gsvendor.config import Config
    from gsvendor.images.render import RenderedVariant, Rendering
    from gsvendor.images.variants import ChartTarget


CONSUMER = "manifests"
NOT_SERVED, UNREADABLE = "version not served", "not YAML"


@dataclass(frozen=True)
class LabelPolicy:
    """``manifests.labels``: label keys every rendered object must carry; ``fail``: whether a missing one fails."""

    required: tuple[str, ...] = ()
    fail: bool = False


def label_policy(config: Config | None) -> LabelPolicy:
    """``manifests.labels`` of ``config`` (schema-validated already). Raises :class:`ConfigError` for a blank key."""
    if config is None:
        return LabelPolicy()
    section = (config.raw.get("manifests") or {}).get("labels") or {}
    required = tuple(str(key) for key in section.get("required") or ())
    if any(not key.strip() for key in required):
        raise ConfigError(f"{config.path.name}: manifests.labels.required: a label key must not be empty")
    return LabelPolicy(required=required, fail=bool(section.get("fail", False)))


@dataclass(frozen=True)
class Obj:
    """A rendered object: its header fields, its ``labels`` keys and its parsed YAML ``data`` (a CRD's up to
    ``spec``)."""

    kind: str
    api_version: str
    name: str
    labels: set[str]
    source: str | None
    data: dict[str, Any] = field(repr=False)

    @property
    def label(self) -> str:
        """``LLMInferenceServiceConfig/kserve-config-llm-template``."""
        return f"{self.kind}/{self.name}"


@dataclass
class Parsed:
    """One render split: its objects (CRDs too), its CRD documents as ``(source, text)``, why a document is unread."""

    objects: list[Obj] = field(default_factory=list)
    crds: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def parse_rendered(rendered: RenderedVariant) -> Parsed:
    """The check-manifests consumer of :func:`gsvendor.images.render.render_charts`: every document parsed, a CRD
    only up to its ``spec`` (CRDs are megabytes: their schemas are read from ``crds``)."""
    from ruamel.yaml.error import YAMLError

    parsed, prefix = Parsed(), f"{rendered.chart.name}/"
    for chunk in rendered.chunks if rendered.rendered else ():
        if not CONTENT.search(chunk):
            continue
        source = source_of(chunk)
        where = f"{rendered.chart.label}/{source.removeprefix(prefix)}" if source else rendered.chart.label
        head = chunk
        if CRD_KIND.search(chunk):
            parsed.crds.append((where, chunk))
            spec = chunk.find("\nspec:")
            head = chunk[:spec] if spec > 0 else chunk
        try:
            documents = [dict(d) for d in load_all_safe(head, where) if isinstance(d, Mapping)]
        except (YamlLimitError, YAMLError, ValueError) as exc:  # a limit's message names the document already
            why = str(exc) if isinstance(exc, YamlLimitError) else invalid_yaml(exc, f"rendered {where}")
            parsed.unreadable.append(why)
            continue
        for document in documents:
            metadata = document.get("metadata") if isinstance(document.get("metadata"), Mapping) else {}
            labels = metadata.get("labels") if isinstance(metadata.get("labels"), Mapping) else {}
            # the API server's YAML reads a key true or 2 as the label key "true" or "2"
            keys = {key if isinstance(key, str) else json.dumps(key, default=str) for key in labels}
            kind, api_version = (str(document.get(key) or "") for key in ("kind", "apiVersion"))
            name = str(metadata.get("name") or "?")
            parsed.objects.append(Obj(kind, api_version, name, keys, where, document))
    return parsed


@dataclass(frozen=True)
class Finding:
    """A problem of one object (``Kind/name``) against a CRD (its file) at ``version``."""

    obj: str
    path: str
    problem: str
    message: str
    crd: str
    version: str
    source: str | None = None


@dataclass
class VariantManifests:
    """check-manifests' result for one chart × variant: ``checked``/``not_checked``, objects per kind with and
    without a CRD; ``missing_labels``: ``(object, label)``; ``problem``: the render's own."""

    chart: ChartTarget
    variant: str
    rendered: bool
    expected_failure: bool = False
    problem: str | None = None
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    not_checked: Counter[str] = field(default_factory=Counter)
    objects: int = 0
    labelled: int = 0
    missing_labels: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def ok(self, policy: LabelPolicy) -> bool:
        """No render problem, no finding, and (when the policy fails) no missing label."""
        return self.problem is None and not self.findings and not (policy.fail and self.missing_labels)


@dataclass
class ManifestsResult:
    """Everything check-manifests found: ``results`` per chart × variant, the ``crds`` collected."""

    charts: list[ChartTarget]
    results: list[VariantManifests]
    crds: list[CRD]
    policy: LabelPolicy
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the check passes (exit 0)."""
        return all(r.ok(self.policy) for r in self.results)

    @property
    def findings(self) -> list[Finding]:
        """Every finding, in chart and variant order."""
        return [f for r in self.results for f in r.findings]

    def checked(self) -> Counter[str]:
        """Objects validated, per kind, over every variant."""
        return sum((r.checked for r in self.results), Counter())

    def not_checked(self) -> Counter[str]:
        """Objects no CRD defines, per kind, over every variant."""
        return sum((r.not_checked for r in self.results), Counter())

    @property
    def problems(self) -> list[VariantManifests]:
        """Variants with a render problem."""
        return [r for r in self.results if r.problem]


def check_manifests(rendering: Rendering, policy: LabelPolicy) -> ManifestsResult:
    """Validate every object of every render (:func:`parse_rendered`) against the CRDs of the renders, ``crds/``
    and ``files/``: a kind no CRD defines is not checked, an apiVersion it does not serve is a finding."""
    start = time.perf_counter()
    crds = CRDSet()  # the rendered ones first: what helm installs wins
    crds.add_all(d for rendered in rendering.variants for d in rendered.outputs[CONSUMER].crds)
    crds.add_all(d for chart in rendering.charts for d in chart_file_crds(chart.path, chart.label))
    memo: dict[tuple[str, str, str], list[Violation]] = {}
    results = []
    for rendered in rendering.variants:
        item = VariantManifests(variant=rendered.variant.name, **rendered.verdict())
        begin = time.perf_counter()
        split = rendered.outputs[CONSUMER]
        item.problem = item.problem or next(iter(split.unreadable), None)  # objects it holds go unchecked
        item.objects = len(split.objects)
        for obj in split.objects:
            missing = [key for key in policy.required if key not in obj.labels]
            item.missing_labels.extend((obj.label, key) for key in missing)
            item.labelled += not missing
            group = obj.api_version.rpartition("/")[0]
            crd = None if obj.kind == "CustomResourceDefinition" else crds.find(group, obj.kind)
            if crd is not None:
                item.findings.extend(_validate(obj, crd, memo))
            (item.checked if crd else item.not_checked)[obj.kind] += 1
        item.seconds = rendered.seconds + time.perf_counter() - begin
        results.append(item)
    found = sorted(crds.by_name.values(), key=lambda c: c.name)
    return ManifestsResult(list(rendering.charts), results, found, policy, crds.notes, time.perf_counter() - start)


def _validate(obj: Obj, crd: CRD, memo: dict[tuple[str, str, str], list[Violation]]) -> list[Finding]:
    """The findings of ``obj`` against ``crd``; validations memoized by CRD version and object in ``memo``."""
    version = obj.api_version.rpartition("/")[2]

    def finding(path: str, problem: str, message: str) -> Finding:
        return Finding(obj.label, path, problem, message, crd.source, version, obj.source)

    try:
        served = crd.strictly(lambda: sorted(name for name, v in crd.versions().items() if v.get("served")))
    except CRDError as exc:
        return [finding("(object)", UNREADABLE, str(exc))]
    if version not in served:
        why = "not defined" if version not in crd.versions() else "defined but served: false"
        message = f"{obj.api_version}: {why} by {crd.name} (served: {', '.join(served) or 'none'})"
        return [finding("apiVersion", NOT_SERVED, message)]
    key = (crd.name, version, json.dumps(obj.data, sort_keys=True, default=str))
    if key not in memo:  # the version read inside strictly: a strict parse replaces the document

        def judged() -> list[Violation]:
            schema = (crd.versions()[version].get("schema") or {}).get("openAPIV3Schema") or {}
            return check(schema, obj.data)

        memo[key] = crd.strictly(judged)
    return [finding(v.path, v.problem, v.message) for v in memo[key]]
