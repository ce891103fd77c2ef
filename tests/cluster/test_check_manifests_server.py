"""check-manifests' emulation of the API server (gsvendor/manifests/schema.py) against the real one:
every custom resource the charts render, and hypothesis' mutations of them (tests/cluster/mutations.py),
judged by both; the server by a dry-run create with ``fieldValidation=Strict``. A
disagreement fails with the smallest object that shows it.

CEL rules (``x-kubernetes-validations``) are not emulated (the emulation says so): a server refusal
for CEL rules alone counts as the schema accepting the object (counted apart too). A CRD converted by a webhook
is compared at its storage version only (no webhook runs here to convert the others).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cluster.chartkit import NAMESPACE, Installed, label
from cluster.kubekit import Cluster
from cluster.mutations import Site, minimal, mutate, shrink, sites
from gsvendor.manifests.schema import check

NAME = "gsvendor-differential"
MUTATIONS = 1300  # hypothesis examples; ≥ 1,000 distinct objects are compared
COUNTS: dict[str, int] = {}


@dataclass
class Version:
    """One CRD version to compare at: its ``schema``, whether the CRD is ``namespaced``, the CEL
    rule messages and rules in it (``cel``)."""

    crd: str
    api_version: str
    kind: str
    schema: Mapping[str, Any]
    namespaced: bool
    cel: list[str] = field(default_factory=list)


def _cel(node: Any, found: list[str]) -> list[str]:
    if isinstance(node, Mapping):
        for rule in node.get("x-kubernetes-validations") or []:
            found += [str(rule[k]) for k in ("message", "rule") if rule.get(k)]
        for value in node.values():
            _cel(value, found)
    elif isinstance(node, list):
        for value in node:
            _cel(value, found)
    return found


def versions(installed: Installed) -> dict[tuple[str, str], Version]:
    """The versions to compare at, by ``(apiVersion, kind)``: every served version, or the storage
    version alone for a CRD with ``conversion.strategy: Webhook``."""
    found: dict[tuple[str, str], Version] = {}
    for objects in installed.renders.values():
        for crd in objects:
            if crd.get("kind") != "CustomResourceDefinition":
                continue
            spec = crd["spec"]
            webhook = (spec.get("conversion") or {}).get("strategy") == "Webhook"
            for v in spec["versions"]:
                if not v.get("served") or (webhook and not v.get("storage")):
                    continue
                key = (f"{spec['group']}/{v['name']}", spec["names"]["kind"])
                schema = v["schema"]["openAPIV3Schema"]
                found.setdefault(
                    key,
                    Version(
                        crd["metadata"]["name"], key[0], key[1], schema, spec["scope"] == "Namespaced", _cel(schema, [])
                    ),
                )
    return found


def bases(installed: Installed, known: dict[tuple[str, str], Version]) -> list[tuple[Version, dict[str, Any]]]:
    """The objects mutations start from: every rendered custom resource at a compared version, and an
    object with the smallest ``spec`` its schema admits by structure (:func:`mutations.minimal`) for
    every compared version."""
    out: dict[str, tuple[Version, dict[str, Any]]] = {}
    for objects in installed.renders.values():
        for obj in objects:
            version = known.get((obj.get("apiVersion"), obj.get("kind")))
            if version is not None:
                out.setdefault(json.dumps(obj, sort_keys=True), (version, obj))
    for version in known.values():
        spec = minimal((version.schema.get("properties") or {}).get("spec") or {})
        small = {"apiVersion": version.api_version, "kind": version.kind, "metadata": {"name": NAME}, "spec": spec}
        out.setdefault(json.dumps(small, sort_keys=True), (version, small))
    return [(version, _renamed(obj, version)) for version, obj in out.values()]


def _renamed(obj: Mapping[str, Any], version: Version) -> dict[str, Any]:
    """``obj`` under a name nothing has on the server (a dry-run apply on an installed object would
    merge it with the fields stored), in the release namespace when the kind is namespaced."""
    meta: dict[str, Any] = {"name": NAME}
    if version.namespaced:
        meta["namespace"] = NAMESPACE
    return {**obj, "metadata": meta}


@dataclass
class Judge:
    """Both verdicts on objects: ``compared`` (distinct objects, by JSON), ``cel_only`` (objects the
    server refused for CEL rules alone), ``disagreements`` ``(version, object)``."""

    cluster: Cluster
    compared: set[str] = field(default_factory=set)
    cel_only: set[str] = field(default_factory=set)
    disagreements: list[tuple[Version, dict[str, Any], str]] = field(default_factory=list)

    def verdicts(self, version: Version, obj: dict[str, Any]) -> tuple[bool, bool, bool, str]:
        """``(server accepts the schema, emulation accepts, the server refused for CEL rules alone,
        the reasons)``. A refusal whose every cause is a CEL rule of the CRD means the schema passed:
        the apiextensions-apiserver evaluates the rules only when no blocking schema error was found,
        and reports every schema error with them."""
        answer = self.cluster.create(obj, dry_run=True, namespace=NAMESPACE)
        found = check(version.schema, obj)
        emulated = f"emulation: {[f'{v.path}: {v.problem}' for v in found] or 'accepts'}"
        server = f"server: {answer.status} {answer.message}" if not answer.ok else "server: accepts"
        causes = [str(c.get("message", "")) for c in ((answer.body.get("details") or {}).get("causes") or [])]
        cel = (
            not answer.ok
            and answer.status == 422
            and bool(causes)
            and all(any(m in c for m in version.cel) for c in causes)
        )
        return answer.ok or cel, not found, cel, f"{server}; {emulated}"

    def compare(self, version: Version, obj: dict[str, Any]) -> None:
        """Judge ``obj`` both ways; record a disagreement."""
        key = json.dumps(obj, sort_keys=True)
        if key in self.compared:
            return
        server, emulated, cel, why = self.verdicts(version, obj)
        self.compared.add(key)
        if cel:
            self.cel_only.add(key)
        if server != emulated:
            self.disagreements.append((version, obj, why))

    def smallest(self, limit: int = 5) -> list[tuple[Version, dict[str, Any], str]]:
        """The first ``limit`` disagreements, each as its smallest object (:func:`mutations.shrink`)
        with both verdicts on it."""
        found = []
        for version, obj, _why in self.disagreements[:limit]:

            def disagrees(candidate: dict[str, Any], version: Version = version) -> bool:
                server, emulated, _, _ = self.verdicts(version, candidate)
                return server != emulated

            small = shrink(obj, disagrees)
            found.append((version, small, self.verdicts(version, small)[3]))
        return found

    def report(self) -> list[str]:
        """The disagreements, one line each: the object, its smallest form, both verdicts."""
        return [
            f"{label(small)} ({version.api_version}): {json.dumps(small, sort_keys=True)}: {why}"
            for version, small, why in self.smallest()
        ]


@pytest.fixture(scope="module")
def differential(
    installed: Installed, cluster: Cluster
) -> tuple[Judge, list[tuple[Version, dict[str, Any], list[Site]]]]:
    """A :class:`Judge` and the base objects with their mutation sites."""
    known = versions(installed)
    found = [(version, obj, sites(version.schema, obj)) for version, obj in bases(installed, known)]
    return Judge(cluster), found


def test_every_rendered_custom_resource_is_judged_alike(differential: Any) -> None:
    judge, found = differential
    rendered = [(version, obj) for version, obj, _ in found if obj.get("spec")]
    assert rendered, "the charts render custom resources (presets, runtimes, storage containers)"
    for version, obj, _ in found:
        judge.compare(version, obj)
    assert judge.report() == []


def test_mutations_are_judged_alike_by_the_emulation_and_the_server(differential: Any) -> None:
    judge, found = differential
    usable = [(version, obj, places) for version, obj, places in found if places]

    @settings(
        max_examples=MUTATIONS,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        version, obj, places = data.draw(st.sampled_from(usable))
        site = data.draw(st.sampled_from(places))
        judge.compare(version, mutate(data.draw, obj, site))
        if data.draw(st.booleans()):  # a second mutation on top, elsewhere (deeper sites appear)
            once = mutate(data.draw, obj, site)
            again = sites(version.schema, once)
            if again:
                judge.compare(version, mutate(data.draw, once, data.draw(st.sampled_from(again))))

    run()
    COUNTS.update(compared=len(judge.compared), cel_only=len(judge.cel_only), disagreements=len(judge.disagreements))
    assert judge.report() == []
    assert len(judge.compared) >= 1000


def test_a_disagreement_is_reported_with_its_smallest_object(differential: Any, monkeypatch: Any) -> None:
    # the emulation as it was before it knew x-kubernetes-list-type: a second container of the same
    # name passed it, the server refuses it
    cluster_judge, found = differential
    judge = Judge(cluster_judge.cluster)
    unaware = check

    def without_list_types(schema: Any, obj: Any) -> list[Any]:
        return [v for v in unaware(schema, obj) if v.problem != "duplicate items"]

    monkeypatch.setattr(sys.modules[__name__], "check", without_list_types)
    version, preset = next(
        (version, obj)
        for version, obj, _ in found
        if obj["kind"] == "LLMInferenceServiceConfig" and "containers" in (obj["spec"].get("template") or {})
    )
    changed = json.loads(json.dumps(preset))
    containers = changed["spec"]["template"]["containers"]
    containers.append({"name": containers[0]["name"], "image": "another"})
    judge.compare(version, changed)
    assert len(judge.disagreements) == 1
    [(_, small, why)] = judge.smallest()
    name = containers[0]["name"]
    assert small["spec"] == {"template": {"containers": [{"name": name}, {"name": name}]}}
    assert "Duplicate value" in why and "emulation: accepts" in why
