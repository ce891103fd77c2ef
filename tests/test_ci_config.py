"""The CircleCI pipeline: no image build without patch-verify, no chart publish without check-images and verify."""

from __future__ import annotations

from conftest import CHARTS, ROOT
from ruamel.yaml import YAML


def jobs() -> dict[str, dict]:
    """Workflow job name → its parameters (the orb jobs' ``name:`` or the job key)."""
    config = YAML(typ="safe").load((ROOT / ".circleci/config.yml").read_text())
    assert config["version"] == 2.1
    out = {}
    for entry in config["workflows"]["build"]["jobs"]:
        ((job, params),) = entry.items()
        params = params or {}
        out[params.get("name", job)] = {"job": job, **params}
    for name, params in out.items():
        for required in params.get("requires", ()):
            assert required in out, f"{name} requires unknown job {required}"
    return out


def upstream_of(graph: dict[str, dict], name: str) -> set[str]:
    """Every job ``name`` waits for, directly or through others."""
    seen: set[str] = set()
    todo = list(graph[name].get("requires", ()))
    while todo:
        job = todo.pop()
        if job not in seen:
            seen.add(job)
            todo += graph[job].get("requires", ())
    return seen


def test_image_builds_require_patch_verify() -> None:
    graph = jobs()
    builds = {n: p for n, p in graph.items() if p["job"] == "architect/push-to-registries"}
    assert {p["dockerfile"] for p in builds.values()} == {"./Dockerfile", "./Dockerfile.llmisvc"}
    assert {p["image"] for p in builds.values()} == {"giantswarm/kserve-controller", "giantswarm/llmisvc-controller"}
    for name in builds:
        assert "patch-verify" in upstream_of(graph, name), name


def test_chart_publishes_require_check_images_and_verify() -> None:
    graph = jobs()
    publishes = {n: p for n, p in graph.items() if p["job"] == "architect/push-to-app-catalog"}
    assert sorted(p["chart"] for p in publishes.values()) == sorted(CHARTS)
    for name, params in publishes.items():
        assert params["push_to_oci_registry"] is True
        assert {"check-images", "verify", "vendor"} <= upstream_of(graph, name), name


def test_check_jobs_run_gsvendor_and_store_results() -> None:
    config = YAML(typ="safe").load((ROOT / ".circleci/config.yml").read_text())

    def commands(job: str) -> str:
        steps = config["jobs"][job]["steps"]
        return "\n".join(
            str(s["run"]["command"] if isinstance(s.get("run"), dict) else s.get("run", ""))
            for s in steps
            if isinstance(s, dict)
        )

    assert "gsvendor check-images --junit test-results/" in commands("check-images")
    assert "gsvendor patch-verify --junit test-results/" in commands("patch-verify")
    for needle in ("gsvendor verify", "gsvendor generate --check", "gsvendor versions --check"):
        assert needle in commands("verify")
    assert any("store_test_results" in s for s in config["jobs"]["check-images"]["steps"] if isinstance(s, dict))
