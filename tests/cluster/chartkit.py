"""The project's charts on the test API server: their variants (as check-images renders them), helm
run against the server, renders parsed, stand-in CRDs for the kinds the charts expect from
elsewhere, and the install in the documented order.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cluster.kubekit import Cluster, ClusterError
from gsvendor.images.check import Variant

# the documented order: CRD charts, then the presets and runtimes, then the controllers
ORDER = ("kserve-crd", "kserve-llmisvc-crd", "kserve-runtime-configs", "kserve-resources", "kserve-llmisvc-resources")
CRD_CHARTS = ("kserve-crd", "kserve-llmisvc-crd")
NAMESPACE = "kserve"
WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
STAND_IN_LABEL = "gsvendor.test/stand-in"
# the chart README's rule for two resources charts in one namespace: one of them creates the shared
# resources (inferenceservice-config, the Issuer, the default ClusterStorageContainer)
INSTALL_SET = {"kserve-llmisvc-resources": ("kserve.createSharedResources=false",)}

# helm's post-renderer for the real install: the webhook configurations point at controllers that do
# not run here (every create of a kind they cover would fail calling them); the strict dry-run of each
# render still sends them to the server
_DROP_WEBHOOKS = """#!{python}
import sys
import yaml
documents = yaml.load_all(sys.stdin, Loader=yaml.CSafeLoader)
kept = [d for d in documents if isinstance(d, dict) and d.get("kind") not in {kinds!r}]
yaml.dump_all(kept, sys.stdout, Dumper=yaml.CSafeDumper)
"""


@dataclass(frozen=True)
class ChartVariant:
    """One renderable variant of one chart: ``chart`` (name), ``variant`` (check-images' plan)."""

    chart: str
    variant: Variant

    @property
    def id(self) -> str:
        """``kserve-resources/switches-on``."""
        return f"{self.chart}/{self.variant.name}"


def variant_args(variant: Variant) -> list[str]:
    """helm's flags for ``variant``: ``--values``, ``--set``, ``--set-json``."""
    args: list[str] = []
    for path in variant.values_files:
        args += ["--values", str(path)]
    for value in variant.set_values:
        args += ["--set", value]
    for value in variant.set_json:
        args += ["--set-json", value]
    return args


def chart_variants(project: Path) -> list[ChartVariant]:
    """Every variant check-images renders of ``project``'s charts (gsvendor.yaml), in install order,
    without the variants declared to fail. Raises gsvendor's errors for an unsynced project."""
    from gsvendor.config import load_config
    from gsvendor.images.render import load_values
    from gsvendor.images.variants import chart_targets, images_config, plan_variants

    config = load_config(project / "gsvendor.yaml")
    settings = images_config(config)
    found = []
    targets = {t.name: t for t in chart_targets([], config)}
    for name in ORDER:
        target = targets[name]
        for variant in plan_variants(load_values(target).data, settings.chart(name)):
            if variant.expect_failure() is None:
                found.append(ChartVariant(name, variant))
    return found


def synced_variants(project: Path) -> list[ChartVariant]:
    """The chart variants of ``project`` (:func:`chart_variants`), or an empty list when its helm/ is
    not synced."""
    if not all((project / "helm" / name / "Chart.yaml").is_file() for name in ORDER):
        return []
    return chart_variants(project)


@contextlib.contextmanager
def installable(helm_dir: Path) -> Iterator[dict[str, Path]]:
    """Renderable copies (a SemVer version in Chart.yaml) of every chart of ``helm_dir``, by name."""
    from gsvendor.images.render import renderable_copy

    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(renderable_copy(helm_dir / name)) for name in ORDER}


class Helm:
    """helm (.tools/bin/helm) against ``cluster``, with its own cache, configuration and data folders
    under ``home`` (the user's repositories and plugins stay out)."""

    def __init__(self, binary: str, cluster: Cluster, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.binary, self.cluster = binary, cluster
        self.env = {
            **os.environ,
            "KUBECONFIG": str(cluster.kubeconfig),
            "HELM_CACHE_HOME": str(home / "cache"),
            "HELM_CONFIG_HOME": str(home / "config"),
            "HELM_DATA_HOME": str(home / "data"),
        }
        self.post_renderer = home / "drop-webhooks"
        self.post_renderer.write_text(_DROP_WEBHOOKS.format(python=sys.executable, kinds=WEBHOOK_KINDS))
        self.post_renderer.chmod(0o755)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """helm ``args``; raises :class:`ClusterError` with helm's message when it fails."""
        done = subprocess.run(
            [self.binary, *args], env=self.env, capture_output=True, text=True, timeout=600, check=False
        )
        if done.returncode != 0:
            raise ClusterError(f"helm {' '.join(args)}: {done.stderr.strip()}")
        return done

    def template(
        self, chart: Path, release: str, args: Sequence[str] = (), server: bool = False
    ) -> list[dict[str, Any]]:
        """The objects ``helm template`` renders (``--namespace`` :data:`NAMESPACE`); ``server``: the
        templates' ``lookup`` reads the cluster, as at install (``--dry-run=server``)."""
        extra = ["--dry-run=server"] if server else []
        out = self.run("template", release, str(chart), "--namespace", NAMESPACE, *extra, *args).stdout
        return parse(out)

    def install(
        self, chart: Path, release: str, args: Sequence[str] = (), upgrade: bool = False, webhooks: bool = True
    ) -> None:
        """``helm install`` (``upgrade``: ``helm upgrade``) of ``chart`` as ``release`` in
        :data:`NAMESPACE`; ``webhooks``: the chart renders webhook configurations, which the
        post-renderer removes (it parses and writes every document again: megabytes for the CRDs)."""
        verb = "upgrade" if upgrade else "install"
        extra = ["--post-renderer", str(self.post_renderer)] if webhooks else []
        self.run(verb, release, str(chart), "--namespace", NAMESPACE, *extra, *args)


_PARSED: dict[str, Any] = {}


def parse(stream: str) -> list[dict[str, Any]]:
    """The mappings of a multi-document YAML ``stream`` (libyaml), each distinct document parsed
    once per run (the CRD charts render megabytes, again at every install); shared, not to be
    changed in place."""
    import yaml

    from gsvendor.images.documents import split_documents

    found = []
    for chunk in split_documents(stream):
        if chunk not in _PARSED:
            _PARSED[chunk] = yaml.load(chunk, Loader=yaml.CSafeLoader)
        if isinstance(_PARSED[chunk], dict):
            found.append(_PARSED[chunk])
    return found


def label(obj: Mapping[str, Any]) -> str:
    """``Kind/name`` of ``obj``."""
    return f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"


def stand_in(api_version: str, kind: str, namespaced: bool) -> dict[str, Any]:
    """A minimal CRD serving ``kind`` at ``api_version`` with a schema that keeps any field: a stand-in
    for a CRD the charts expect another project to install (cert-manager, Gateway API, …), labelled
    :data:`STAND_IN_LABEL` so nobody takes it for the real one."""
    group, version = api_version.split("/")
    plural = kind.lower() + ("es" if kind.lower().endswith("s") else "s")
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{group}",
            "labels": {STAND_IN_LABEL: "true"},
            "annotations": {"gsvendor.test/note": "stand-in written by the cluster tests, not the real CRD"},
        },
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "scope": "Namespaced" if namespaced else "Cluster",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                }
            ],
        },
    }


def install_stand_ins(
    cluster: Cluster, objects: Sequence[Mapping[str, Any]], defined: set[tuple[str, str]]
) -> list[str]:
    """Create a stand-in CRD (:func:`stand_in`) for every kind of ``objects`` that neither the server
    serves nor ``defined`` (``(group, kind)`` of the charts' own CRDs) covers; returns their names, Established."""
    wanted: dict[tuple[str, str], bool] = {}
    for obj in objects:
        api_version, kind = str(obj.get("apiVersion")), str(obj.get("kind"))
        group = api_version.rpartition("/")[0]
        if "." not in group or (group, kind) in defined or cluster.resource(api_version, kind) is not None:
            continue
        wanted[(api_version, kind)] = bool((obj.get("metadata") or {}).get("namespace"))
    names = []
    for (api_version, kind), namespaced in sorted(wanted.items()):
        crd = stand_in(api_version, kind, namespaced)
        answer = cluster.apply(crd, dry_run=False)
        if not answer.ok:
            raise ClusterError(f"stand-in CRD {crd['metadata']['name']}: {answer.status} {answer.message}")
        names.append(crd["metadata"]["name"])
    cluster.wait_established(names)
    return names


def has_webhooks(objects: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``objects`` hold an admission webhook configuration."""
    return any(o.get("kind") in WEBHOOK_KINDS for o in objects)


def crd_names(objects: Sequence[Mapping[str, Any]]) -> list[str]:
    """``metadata.name`` of the CRDs among ``objects``."""
    return [str(o["metadata"]["name"]) for o in objects if o.get("kind") == "CustomResourceDefinition"]


def defined_kinds(objects: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """``(group, kind)`` of every CRD among ``objects``."""
    return {
        (str(o["spec"]["group"]), str(o["spec"]["names"]["kind"]))
        for o in objects
        if o.get("kind") == "CustomResourceDefinition"
    }


def strict_rejections(cluster: Cluster, variant_id: str, objects: Sequence[Mapping[str, Any]]) -> list[str]:
    """Server-side apply (dry run, ``fieldValidation=Strict``) of every object of ``objects`` in
    :data:`NAMESPACE`: one line ``<variant_id>: <Kind/name>: <HTTP status> <server message>`` per
    object the server refuses, in order; empty when it accepts them all."""
    rejected = []
    for obj in objects:
        answer = cluster.apply(obj, namespace=NAMESPACE)
        if not answer.ok:
            rejected.append(f"{variant_id}: {label(obj)}: {answer.status} {answer.message}")
    return rejected


@dataclass
class Installed:
    """The charts installed on a cluster: ``renders`` per :class:`ChartVariant` id (the objects
    ``helm template`` gives), ``releases`` (chart → the variant id installed and the objects that
    install rendered, webhook configurations included), the ``stand_ins`` written, ``helm`` and the
    chart ``copies``."""

    helm: Helm
    copies: dict[str, Path]
    variants: list[ChartVariant]
    renders: dict[str, list[dict[str, Any]]]
    releases: dict[str, tuple[str, list[dict[str, Any]]]]
    stand_ins: list[str]


def install_variant(variants: Sequence[ChartVariant], chart: str) -> ChartVariant:
    """The variant of ``chart`` to install: the one with its feature switches on where it has
    switches (kserve-runtime-configs renders nothing with its defaults), else its defaults."""
    mine = [cv for cv in variants if cv.chart == chart]
    return next((cv for cv in mine if cv.variant.name == "switches-on"), mine[0])


def install_args(cv: ChartVariant) -> list[str]:
    """helm's flags installing ``cv`` (its variant's, and :data:`INSTALL_SET`)."""
    return variant_args(cv.variant) + [a for s in INSTALL_SET.get(cv.chart, ()) for a in ("--set", s)]


def install_all(cluster: Cluster, helm: Helm, copies: dict[str, Path], variants: list[ChartVariant]) -> Installed:
    """Render every variant, write the stand-in CRDs, then ``helm install`` each chart in
    :data:`ORDER` (:func:`install_variant`), waiting for a CRD chart's CRDs to be Established before
    the next chart. Raises :class:`ClusterError` when helm or the server refuses."""
    cluster.ensure_namespace(NAMESPACE)
    renders = {cv.id: helm.template(copies[cv.chart], cv.chart, variant_args(cv.variant)) for cv in variants}
    everything = [o for objects in renders.values() for o in objects]
    stand_ins = install_stand_ins(cluster, everything, defined_kinds(everything))
    releases = {}
    for name in ORDER:
        cv = install_variant(variants, name)
        args = install_args(cv)
        releases[name] = (cv.id, helm.template(copies[name], name, args, server=True))
        helm.install(copies[name], name, args, webhooks=has_webhooks(releases[name][1]))
        if name in CRD_CHARTS:
            cluster.wait_established(crd_names(releases[name][1]))
    return Installed(helm, copies, variants, renders, releases, stand_ins)
