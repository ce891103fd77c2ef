"""The upgrade keeps what clusters store: on an API server of its own, the charts of the previous
upstream tag (synced from ../shared/upstream into a temporary project) are installed, custom
resources are created (a copy of every preset and runtime the charts render, and a minimal object
of every other kind at every served version), the charts are upgraded with helm to the project's
synced tag, and every object is read back at every version the new CRD serves, its fields intact.

A CRD whose ``conversion.strategy`` is ``Webhook`` needs the controller's conversion webhook to
write or read at any version but the stored one; no webhook runs here, so its objects are written
and read at the storage version only.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.version import InvalidVersion, Version

from cluster.chartkit import (
    CRD_CHARTS,
    NAMESPACE,
    ORDER,
    STAND_IN_LABEL,
    Helm,
    Installed,
    crd_names,
    defined_kinds,
    has_webhooks,
    install_all,
    install_args,
    install_stand_ins,
    install_variant,
    installable,
    label,
    synced_variants,
)
from cluster.kubekit import ROOT, Cluster, missing, require_binaries, running_cluster
from cluster.mutations import minimal

UPSTREAM = ROOT.parent / "shared" / "upstream"
USER = "gsvendor-upgrade-"
SUMMARY: dict[str, str] = {}  # printed by conftest.pytest_terminal_summary


def pinned_tag() -> str | None:
    """The tag the project's helm/ is synced at (gsvendor.lock.yaml), if synced."""
    from ruamel.yaml import YAML

    lock = ROOT / "gsvendor.lock.yaml"
    return str(YAML(typ="safe").load(lock.read_text())["tag"]) if lock.is_file() else None


def previous_tag(pinned: str, folder: Path) -> str | None:
    """The newest release (no pre-release) in ``folder``'s ``kserve-<tag>.tar.gz`` archives older than
    ``pinned``."""
    found = []
    for path in folder.glob("kserve-*.tar.gz"):
        tag = path.name.removeprefix("kserve-").removesuffix(".tar.gz")
        try:
            version = Version(tag)
        except InvalidVersion:
            continue
        if not version.is_prerelease and version < Version(pinned):
            found.append((version, tag))
    return max(found)[1] if found else None


@dataclass
class Stored:
    """An object the test wrote: the ``obj`` as sent, the ``crd`` name serving it."""

    obj: dict[str, Any]
    crd: str


def _crds(cluster: Cluster) -> dict[str, Mapping[str, Any]]:
    answer = cluster.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    return {item["metadata"]["name"]: item for item in answer.body["items"]}


def _write_versions(crd: Mapping[str, Any]) -> list[str]:
    spec = crd["spec"]
    webhook = (spec.get("conversion") or {}).get("strategy") == "Webhook"
    return [v["name"] for v in spec["versions"] if v.get("served") and (v.get("storage") or not webhook)]


def create_custom_resources(cluster: Cluster, installed: Installed) -> list[Stored]:
    """A copy (another name, not helm's) of every custom resource of the charts' CRDs the install
    rendered (not of the stand-ins' kinds), and a minimal object of every other kserve.io kind at
    every version it can be written at. Raises :class:`AssertionError` naming each object the
    server refused."""
    crds = _crds(cluster)
    by_kind = {(c["spec"]["group"], c["spec"]["names"]["kind"]): c for c in crds.values()}
    wanted: list[tuple[dict[str, Any], str]] = []
    rendered_kinds = set()
    for _variant, objects in installed.releases.values():
        for obj in objects:
            crd = by_kind.get((obj["apiVersion"].rpartition("/")[0], obj["kind"]))
            if crd is None or STAND_IN_LABEL in (crd["metadata"].get("labels") or {}):
                continue  # a built-in kind, or one a stand-in CRD serves (not the charts' to keep)
            rendered_kinds.add(crd["metadata"]["name"])
            copy = {**obj, "metadata": {**obj["metadata"], "name": USER + obj["metadata"]["name"]}}
            wanted.append((copy, crd["metadata"]["name"]))
    for name, crd in sorted(crds.items()):
        spec = crd["spec"]
        if not spec["group"].endswith("kserve.io") or name in rendered_kinds:
            continue
        for version in _write_versions(crd):
            schema = next(v for v in spec["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]
            body = minimal((schema.get("properties") or {}).get("spec") or {})
            meta = {"name": f"{USER}{version}"}
            if spec["scope"] == "Namespaced":
                meta["namespace"] = NAMESPACE
            obj = {"apiVersion": f"{spec['group']}/{version}", "kind": spec["names"]["kind"], "metadata": meta}
            wanted.append(({**obj, "spec": body}, name))
    stored, refused = [], []
    for obj, crd_name in wanted:
        answer = cluster.create(obj, namespace=NAMESPACE)
        if answer.ok:
            stored.append(Stored(obj, crd_name))
        else:
            refused.append(f"{label(obj)} ({obj['apiVersion']}): {answer.status} {answer.message}")
    assert refused == []
    return stored


def _contains(read: Any, written: Any) -> bool:
    """Whether every field of ``written`` is in ``read`` with the same value (defaults may add)."""
    if isinstance(written, Mapping):
        return isinstance(read, Mapping) and all(k in read and _contains(read[k], v) for k, v in written.items())
    if isinstance(written, list):
        return isinstance(read, list) and len(read) == len(written) and all(map(_contains, read, written))
    return bool(read == written)


@dataclass
class Upgrade:
    """The cluster after the upgrade, the objects written before it, and the tags."""

    cluster: Cluster
    stored: list[Stored]
    previous: str
    pinned: str


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upgrade]:
    """Install the previous tag's charts, write the custom resources, upgrade to the pinned tag."""
    apiserver, etcd = require_binaries()
    pinned = pinned_tag()
    new_variants = synced_variants(ROOT)
    if pinned is None or not new_variants:
        missing(f"{ROOT / 'helm'}: charts not synced")
    previous = previous_tag(pinned, UPSTREAM)
    if previous is None:
        missing(f"{UPSTREAM}: no archive of a release before {pinned}")
    project = tmp_path_factory.mktemp("previous") / "project"
    project.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", project / "overlays")
    shutil.copytree(ROOT / "hack", project / "hack")  # the variants' values files (gsvendor.yaml)
    subprocess.run(
        [sys.executable, "-m", "gsvendor", "sync", previous, "--source", str(UPSTREAM / f"kserve-{previous}.tar.gz")],
        cwd=project,
        check=True,
        capture_output=True,
    )
    with running_cluster(tmp_path_factory.mktemp("upgrade-cluster"), apiserver, etcd) as cluster:
        helm = Helm(str(ROOT / ".tools" / "bin" / "helm"), cluster, tmp_path_factory.mktemp("upgrade-helm"))
        with installable(project / "helm") as old_copies:
            before = install_all(cluster, helm, old_copies, synced_variants(project))
        stored = create_custom_resources(cluster, before)
        with installable(ROOT / "helm") as copies:
            renders = {cv.id: helm.template(copies[cv.chart], cv.chart, install_args(cv)) for cv in new_variants}
            everything = [o for objects in renders.values() for o in objects]
            install_stand_ins(cluster, everything, defined_kinds(everything))
            for name in ORDER:
                cv = install_variant(new_variants, name)
                helm.install(copies[name], name, install_args(cv), upgrade=True, webhooks=has_webhooks(renders[cv.id]))
                if name in CRD_CHARTS:
                    cluster.wait_established(crd_names(renders[f"{name}/defaults"]))
        yield Upgrade(cluster, stored, previous, pinned)


def test_previous_tag_is_older_than_the_pin(upgraded: Upgrade) -> None:
    assert Version(upgraded.previous) < Version(upgraded.pinned)
    assert upgraded.stored


def test_every_object_is_readable_at_every_served_version_after_the_upgrade(upgraded: Upgrade) -> None:
    cluster = upgraded.cluster
    crds = _crds(cluster)
    problems, reads = [], 0
    for item in upgraded.stored:
        crd = crds.get(item.crd)
        if crd is None:
            problems.append(f"{label(item.obj)}: CRD {item.crd} is gone after the upgrade")
            continue
        spec = crd["spec"]
        webhook = (spec.get("conversion") or {}).get("strategy") == "Webhook"
        written = item.obj["apiVersion"].rpartition("/")[2]
        served = [v["name"] for v in spec["versions"] if v.get("served")]
        readable = [v for v in served if not webhook or v == written]
        if not readable:
            problems.append(f"{label(item.obj)}: written at {written}, served now {served}, conversion by webhook")
        for version in readable:
            obj = {**item.obj, "apiVersion": f"{spec['group']}/{version}"}
            answer = cluster.get(cluster.path(obj, NAMESPACE))
            reads += 1
            if not answer.ok:
                problems.append(f"{label(obj)} at {version}: {answer.status} {answer.message}")
            elif not _contains(answer.body.get("spec"), item.obj.get("spec")):
                problems.append(
                    f"{label(obj)} at {version}: spec changed: wrote {json.dumps(item.obj.get('spec'))[:300]},"
                    f" read {json.dumps(answer.body.get('spec'))[:300]}"
                )
    kinds = sorted({item.obj["kind"] for item in upgraded.stored})
    SUMMARY["upgrade"] = (
        f"{upgraded.previous} → {upgraded.pinned}: {len(upgraded.stored)} objects written"
        f" ({', '.join(kinds)}), {reads} reads after the upgrade"
    )
    assert problems == []
    assert reads >= len(upgraded.stored)
