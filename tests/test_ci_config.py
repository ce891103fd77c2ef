"""The CircleCI pipeline as CircleCI would run it.

Giant Swarm's layout: ``.circleci/config.yml`` is a dynamic-config setup workflow that merges the
repository's ``custom.yml`` into the generated ``workflows.yml`` with mikefarah's yq v4 (``*+``)
and continues with the result. These tests run that very command with the pinned yq
(``hack/install-yq.sh``, ``make tools``), validate the result against CircleCI's JSON schema
(check-jsonschema's built-in copy), check every architect orb job and command against the orb's
own declarations at the pinned version (``tests/data/architect-orb-9.6.0.yaml``), and walk the
merged job graph for each kind of pipeline: a branch, ``main``, a release tag.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CHARTS, ROOT, TAGS
from ruamel.yaml import YAML
from ruamel.yaml.events import AliasEvent

CIRCLECI = ROOT / ".circleci"
ORB = YAML(typ="safe").load((Path(__file__).parent / "data/architect-orb-9.6.0.yaml").read_text())
ORB_PIN = "giantswarm/architect@9.6.0"
YQ = ROOT / ".tools/bin/yq"
# The three kinds of pipeline: (event, ref).
BRANCH, MAIN, TAG = ("branch", "renovate/kserve-0.x"), ("branch", "main"), ("tag", "v1.4.0")
EVENTS = (BRANCH, MAIN, TAG)
# Workflow-entry keys that CircleCI itself defines (not job parameters).
WORKFLOW_KEYS = {"name", "context", "requires", "filters", "matrix", "type", "pre-steps", "post-steps", "serial-group"}
BOTH_PLATFORMS = {"linux/amd64", "linux/arm64"}


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def setup_job_command() -> str:
    """The merge command of config.yml's setup job (what CircleCI runs before anything else)."""
    steps = load(CIRCLECI / "config.yml")["jobs"]["setup"]["steps"]
    runs = [s["run"]["command"] for s in steps if isinstance(s, dict) and "run" in s]
    assert len(runs) == 1, runs
    return runs[0]


def run_setup_merge(folder: Path) -> subprocess.CompletedProcess[str]:
    """Run the setup job's command in ``folder`` (which holds .circleci/) with the pinned yq on PATH."""
    if not YQ.exists():
        raise RuntimeError(f"{YQ} missing: run make tools (hack/install-yq.sh)")
    env = {**os.environ, "PATH": f"{YQ.parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", setup_job_command()],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def merged_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``.circleci/continue.yml`` as the setup job writes it from this repository's files."""
    folder = tmp_path_factory.mktemp("circleci")
    shutil.copytree(CIRCLECI, folder / ".circleci")
    result = run_setup_merge(folder)
    assert result.returncode == 0, result.stderr
    return folder / ".circleci/continue.yml"


@pytest.fixture(scope="module")
def merged(merged_path: Path) -> dict:
    return load(merged_path)


# --------------------------------------------------------------------------------------------
# The job graph


class Graph:
    """The merged configuration's ``build`` workflow: jobs by name, with what they run."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.entries: dict[str, dict] = {}
        for entry in config["workflows"]["build"]["jobs"]:
            ((job, params),) = entry.items()
            params = dict(params or {})
            name = params.get("name", job)
            assert name not in self.entries, f"two workflow jobs named {name}"
            self.entries[name] = {"job": job, **params}

    def requires(self, name: str) -> list[str]:
        return list(self.entries[name].get("requires", ()))

    def upstream(self, name: str) -> set[str]:
        """Every job ``name`` waits for, directly or through others."""
        seen: set[str] = set()
        todo = self.requires(name)
        while todo:
            job = todo.pop()
            if job not in seen:
                seen.add(job)
                todo += self.requires(job)
        return seen

    def runs(self, name: str, event: tuple[str, str]) -> bool:
        """Whether CircleCI starts ``name`` in a pipeline for ``event`` (its filters)."""
        filters = self.entries[name].get("filters", {})
        kind, ref = event
        if kind == "tag":  # tag pipelines run only jobs whose tag filter admits the tag
            tags = filters.get("tags")
            return bool(tags) and admits(tags, ref)
        branches = filters.get("branches")
        return admits(branches, ref) if branches else True

    def orb_jobs(self, job: str) -> dict[str, dict]:
        return {n: p for n, p in self.entries.items() if p["job"] == f"architect/{job}"}

    def commands(self, name: str) -> str:
        """Every shell command a repository-defined job runs (its own commands expanded)."""
        job = self.config["jobs"].get(self.entries[name]["job"])
        return "\n".join(step_commands(self.config, job["steps"])) if job else ""

    def running(self, needle: str) -> set[str]:
        return {n for n in self.entries if needle in self.commands(n)}

    def attaches(self, name: str) -> bool:
        entry = self.entries[name]
        if entry["job"] == "architect/push-to-registries":
            return True
        if entry["job"] == "architect/push-to-app-catalog":
            return bool(entry.get("attach_workspace"))
        job = self.config["jobs"].get(entry["job"])
        return bool(job) and any(isinstance(s, dict) and "attach_workspace" in s for s in job["steps"])

    def persists(self, name: str) -> set[str]:
        entry = self.entries[name]
        if entry["job"] == "architect/push-to-registries":
            return set(ORB["jobs"]["push-to-registries"]["workspace"]["persists"])
        if entry["job"] == "architect/push-to-app-catalog":
            if not entry.get("persist_chart_archive"):
                return set()
            return {
                p.replace("<chart>", entry["chart"])
                for p in ORB["jobs"]["push-to-app-catalog"]["workspace"]["persists"]
            }
        job = self.config["jobs"].get(entry["job"])
        out: set[str] = set()
        for step in job["steps"] if job else ():
            if isinstance(step, dict) and "persist_to_workspace" in step:
                out |= set(step["persist_to_workspace"]["paths"])
        return out


def admits(filter_: dict, ref: str) -> bool:
    """A CircleCI ``only``/``ignore`` filter (strings, /regex/ or lists of them; regexes match whole refs)."""

    def matches(patterns: Any) -> bool:
        for pattern in patterns if isinstance(patterns, list) else [patterns]:
            if pattern.startswith("/") and pattern.endswith("/"):
                if re.fullmatch(pattern[1:-1], ref):
                    return True
            elif pattern == ref:
                return True
        return False

    if "only" in filter_ and not matches(filter_["only"]):
        return False
    return not ("ignore" in filter_ and matches(filter_["ignore"]))


def step_commands(config: dict, steps: list) -> Iterator[str]:
    for step in steps:
        ((key, value),) = step.items() if isinstance(step, dict) else [(step, None)]
        if key == "run":
            yield value["command"] if isinstance(value, dict) else value
        elif key in config.get("commands", {}):
            yield from step_commands(config, config["commands"][key]["steps"])


@pytest.fixture(scope="module")
def graph(merged: dict) -> Graph:
    return Graph(merged)


def the_job_running(graph: Graph, needle: str) -> str:
    (name,) = graph.running(needle) or {None}
    assert name, f"no job runs {needle!r}"
    return name


# --------------------------------------------------------------------------------------------
# Layout and merge


def test_config_yml_is_the_setup_workflow() -> None:
    config = load(CIRCLECI / "config.yml")
    assert config["setup"] is True
    assert config["orbs"] == {"continuation": "circleci/continuation@2.0.1"}
    steps = config["jobs"]["setup"]["steps"]
    assert steps[0] == "checkout"
    assert steps[-1] == {"continuation/continue": {"configuration_path": ".circleci/continue.yml"}}
    assert "yq eval-all '. as $item ireduce ({}; . *+ $item)'" in setup_job_command()
    # the setup workflow itself must run on release tags, or no tag pipeline ever starts
    assert config["workflows"]["setup"]["jobs"] == [{"setup": {"filters": {"tags": {"only": "/^v.*/"}}}}]
    assert set(config) == {"version", "setup", "orbs", "jobs", "workflows"}  # nothing of the pipeline itself


def test_merge_appends_custom_jobs_to_the_generated_ones(merged: dict) -> None:
    generated, custom = load(CIRCLECI / "workflows.yml"), load(CIRCLECI / "custom.yml")
    assert (
        merged["workflows"]["build"]["jobs"]
        == generated["workflows"]["build"]["jobs"] + custom["workflows"]["build"]["jobs"]
    )
    assert merged["orbs"] == generated["orbs"] == {"architect": ORB_PIN}
    assert merged["jobs"] == custom["jobs"] and merged["commands"] == custom["commands"]
    assert merged["executors"] == custom["executors"]
    assert "jobs" not in generated  # devctl generates no jobs for a language-less repository


def test_merge_without_custom_yml_is_the_generated_file(tmp_path: Path) -> None:
    shutil.copytree(CIRCLECI, tmp_path / ".circleci")
    (tmp_path / ".circleci/custom.yml").unlink()
    assert run_setup_merge(tmp_path).returncode == 0
    assert (tmp_path / ".circleci/continue.yml").read_bytes() == (CIRCLECI / "workflows.yml").read_bytes()


def test_custom_yml_uses_no_aliases() -> None:
    """The merge moves top-level keys, so an alias in custom.yml could land before its anchor."""
    for name in ("workflows.yml", "custom.yml"):
        events = YAML().parse((CIRCLECI / name).read_text())
        assert not [e for e in events if isinstance(e, AliasEvent)], name


def test_an_alias_in_custom_yml_breaks_the_merged_file(tmp_path: Path) -> None:
    """Why the rule above exists: yq keeps the alias where it was and moves the anchor after it."""
    shutil.copytree(CIRCLECI, tmp_path / ".circleci")
    custom = tmp_path / ".circleci/custom.yml"
    custom.write_text(
        "x-filters: &tags\n  tags:\n    only: /^v.*/\nworkflows:\n  build:\n    jobs:\n      - tests:\n"
        "          filters: *tags\n"
    )
    assert run_setup_merge(tmp_path).returncode == 0
    from ruamel.yaml.composer import ComposerError

    with pytest.raises(ComposerError, match="found undefined alias"):
        load(tmp_path / ".circleci/continue.yml")


def check_jsonschema(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "check-jsonschema"),
            "--builtin-schema",
            "vendor.circle-ci",
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_merged_configuration_validates_against_circleci_schema(merged_path: Path, tmp_path: Path) -> None:
    ok = check_jsonschema(merged_path, CIRCLECI / "config.yml")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "validation done" in ok.stdout
    # the validator does judge: a job with a misspelt key fails it
    broken = tmp_path / "broken.yml"
    broken.write_text(merged_path.read_text().replace("    executor: gsvendor\n", "    executer: gsvendor\n", 1))
    bad = check_jsonschema(broken)
    assert bad.returncode == 1 and "executer" in bad.stdout + bad.stderr


# --------------------------------------------------------------------------------------------
# The architect orb, against its own declarations


def check_parameters(kind: str, name: str, given: dict) -> list[str]:
    declared = ORB[kind][name]["parameters"]
    problems = [f"{name}: unknown parameter {key}" for key in given if key not in declared]
    for key, spec in declared.items():
        if key not in given:
            if spec.get("required"):
                problems.append(f"{name}: required parameter {key} missing")
            continue
        value = given[key]
        if spec["type"] == "boolean" and not isinstance(value, bool):
            problems.append(f"{name}: {key} must be a boolean, not {value!r}")
        elif spec["type"] == "string" and not isinstance(value, str):
            problems.append(f"{name}: {key} must be a string, not {value!r}")
        elif spec["type"] == "enum" and value not in spec["enum"]:
            problems.append(f"{name}: {key} must be one of {spec['enum']}, not {value!r}")
    return problems


def test_orb_pin_is_the_checked_declarations(merged: dict) -> None:
    assert ORB["orb"] == ORB_PIN == merged["orbs"]["architect"]
    assert re.fullmatch(r"giantswarm/architect@9\.\d+\.\d+", ORB_PIN)  # Giant Swarm's repositories are on 9.x


def test_orb_jobs_commands_and_executors_match_the_orb(merged: dict, graph: Graph) -> None:
    problems: list[str] = []
    used = set()
    for name, entry in graph.entries.items():
        if not entry["job"].startswith("architect/"):
            assert entry["job"] in merged["jobs"], f"{name}: job {entry['job']} is not defined"
            continue
        job = entry["job"].removeprefix("architect/")
        used.add(job)
        assert job in ORB["jobs"], f"{name}: the orb has no job {job}"
        problems += check_parameters("jobs", job, {k: v for k, v in entry.items() if k not in WORKFLOW_KEYS | {"job"}})
    for name, job in merged["jobs"].items():
        executor = job.get("executor")
        if isinstance(executor, str) and executor.startswith("architect/"):
            assert executor.removeprefix("architect/") in ORB["executors"], name
        for step in job["steps"]:
            if isinstance(step, dict):
                ((key, params),) = step.items()
                if key.startswith("architect/"):
                    assert key.removeprefix("architect/") in ORB["commands"], f"{name}: no orb command {key}"
                    problems += check_parameters("commands", key.removeprefix("architect/"), params or {})
    assert problems == []
    assert used == {"push-to-registries", "push-to-app-catalog", "sync-china-registry"}


def test_parameter_check_catches_mistakes() -> None:
    """The check above judges: the old chart publish (no allowance, string booleans) fails it."""
    assert check_parameters(
        "jobs", "push-to-app-catalog", {"chart": "kserve-crd", "app_catalog": "c", "push_to_oci_registry": "yes"}
    ) == [
        "push-to-app-catalog: required parameter app_catalog_test missing",
        "push-to-app-catalog: push_to_oci_registry must be a boolean, not 'yes'",
    ]
    assert check_parameters("jobs", "push-to-registries", {"platform": "linux/arm64", "provenance": "full"}) == [
        "push-to-registries: unknown parameter platform",
        "push-to-registries: provenance must be one of ['min', 'max', 'false'], not 'full'",
    ]


# --------------------------------------------------------------------------------------------
# The job graph


def test_every_required_job_exists_and_runs_where_its_dependents_run(graph: Graph) -> None:
    for name in graph.entries:
        for required in graph.requires(name):
            assert required in graph.entries, f"{name} requires unknown job {required}"
            for event in EVENTS:
                if graph.runs(name, event):
                    assert graph.runs(required, event), f"{name} runs on {event} but {required} does not"


def test_filters_model() -> None:
    g = Graph(
        {
            "workflows": {
                "build": {
                    "jobs": [
                        {"a": None},
                        {"b": {"filters": {"tags": {"only": "/^v.*/"}}}},
                        {"c": {"filters": {"tags": {"only": "/^v.*/"}, "branches": {"ignore": "/.*/"}}}},
                        {"d": {"filters": {"branches": {"ignore": ["main"]}}}},
                    ]
                }
            }
        }
    )
    assert [[g.runs(j, e) for e in EVENTS] for j in "abcd"] == [
        [True, True, False],
        [True, True, True],
        [False, False, True],
        [True, False, False],
    ]


def test_no_image_build_without_patch_verify_and_tests(graph: Graph) -> None:
    patch_verify = the_job_running(graph, "gsvendor patch-verify")
    tests = the_job_running(graph, "make test")
    images = graph.orb_jobs("push-to-registries")
    assert len(images) == 4  # each controller: a branch build and a release push
    for name in images:
        assert {patch_verify, tests} <= graph.upstream(name), name
    llmisvc = {n for n, p in images.items() if p.get("dockerfile") == "./Dockerfile.llmisvc"}
    assert {graph.entries[n]["image"] for n in llmisvc} == {"giantswarm/llmisvc-controller"} and len(llmisvc) == 2


def test_branches_build_images_without_pushing_them(graph: Graph) -> None:
    for event in (BRANCH, MAIN):
        for name, params in graph.orb_jobs("push-to-registries").items():
            if graph.runs(name, event):
                assert params.get("push") is False, (name, event)
    built = {graph.entries[n]["image"] for n in graph.orb_jobs("push-to-registries") if graph.runs(n, BRANCH)}
    assert built == {"giantswarm/kserve-controller", "giantswarm/llmisvc-controller"}


def effective_platforms(graph: Graph, name: str) -> set[str]:
    """The orb's rule: the parameter, else a `.platforms` file in the workspace, else amd64 + arm64."""
    given = graph.entries[name].get("platforms", "")
    if given:
        return set(given.split(","))
    assert not any(".platforms" in graph.persists(u) for u in graph.upstream(name)), name
    return set(BOTH_PLATFORMS)


def test_tag_builds_push_both_controllers_for_both_platforms(graph: Graph) -> None:
    pushed = {}
    for name, params in graph.orb_jobs("push-to-registries").items():
        if graph.runs(name, TAG):
            assert params.get("push", True) is True, name
            assert effective_platforms(graph, name) == BOTH_PLATFORMS, name
            pushed[params["image"]] = params.get("dockerfile", "./Dockerfile")
    assert pushed == {
        "giantswarm/kserve-controller": "./Dockerfile",
        "giantswarm/llmisvc-controller": "./Dockerfile.llmisvc",
    }
    # both go to Aliyun too, each through its own sync job after its push
    synced = {graph.entries[n]["image"]: graph.requires(n) for n in graph.orb_jobs("sync-china-registry")}
    assert set(synced) == set(pushed)


def test_chart_publishes_are_oci_only_on_tags_behind_every_gate(graph: Graph) -> None:
    verify = the_job_running(graph, "gsvendor verify")
    resolve = the_job_running(graph, "gsvendor check-images --resolve")
    gates = {
        "gsvendor verify": verify,
        "generate --check": the_job_running(graph, "gsvendor generate --check"),
        # versions --check on the vendored helm/ (image-checks runs it too, for the Dockerfiles alone)
        "versions --check": verify if "gsvendor versions --check" in graph.commands(verify) else "(none)",
        "check-images --resolve": resolve,
        "chart tests": the_job_running(graph, "make helm-test"),
        "tests": the_job_running(graph, "make test"),
    }
    assert "--registry-config" in graph.commands(resolve) and graph.entries[resolve].get("context") == "architect"
    publishes = graph.orb_jobs("push-to-app-catalog")
    assert sorted(p["chart"] for p in publishes.values()) == sorted(CHARTS)
    for name, params in publishes.items():
        assert {k: params.get(k) for k in ("push_to_oci_registry", "push_to_appcatalog")} == {
            "push_to_oci_registry": True,
            "push_to_appcatalog": False,
        }, name
        assert params["explicit_allow_chart_name_mismatch"] is True, name
        assert params["persist_chart_archive"] is True and params["attach_workspace"] is True, name
        assert params.get("executor") == "app-build-suite" and params.get("context") == "architect", name
        assert [graph.runs(name, e) for e in EVENTS] == [False, False, True], name
        missing = {gate: job for gate, job in gates.items() if job not in graph.upstream(name)}
        assert missing == {}, name


def test_resolve_runs_after_the_controller_images_exist(graph: Graph) -> None:
    """The charts name the controllers at the KServe version: the release pushes them, then the gate asks."""
    resolve = the_job_running(graph, "gsvendor check-images --resolve")
    assert [graph.runs(resolve, e) for e in EVENTS] == [False, False, True]
    pushes = {n for n in graph.orb_jobs("push-to-registries") if graph.runs(n, TAG)}
    retag = the_job_running(graph, "docker buildx imagetools create")
    assert pushes <= graph.upstream(retag) and retag in graph.upstream(resolve)
    commands = graph.commands(retag)
    assert "sed -n 's/^ARG KSERVE_VERSION=//p' Dockerfile.llmisvc" in commands
    assert "for image in kserve-controller llmisvc-controller" in commands


def test_chart_jobs_read_the_vendored_charts(graph: Graph) -> None:
    vendor = the_job_running(graph, "gsvendor sync")
    assert {"helm", "gsvendor.lock.yaml"} <= graph.persists(vendor)
    readers = (
        graph.running("gsvendor verify") | graph.running("gsvendor check-images") | graph.running("make helm-test")
    )
    readers |= set(graph.orb_jobs("push-to-app-catalog"))
    for name in readers:
        assert graph.attaches(name) and vendor in graph.upstream(name), name


def test_workspace_writers_of_one_file_are_ordered(graph: Graph) -> None:
    """CircleCI refuses to attach a workspace two concurrent jobs wrote the same file to."""
    for name in graph.entries:
        if not graph.attaches(name):
            continue
        writers = sorted(graph.upstream(name))
        for i, a in enumerate(writers):
            for b in writers[i + 1 :]:
                if graph.persists(a) & graph.persists(b):
                    assert a in graph.upstream(b) or b in graph.upstream(a), (name, a, b)


def test_check_manifests_gates_chart_publishes_once_it_exists(graph: Graph) -> None:
    """The check-manifests gate: when the Makefile has check-manifests, every chart publish waits for it."""
    if not re.search(r"^check-manifests:", (ROOT / "Makefile").read_text(), re.MULTILINE):
        assert not graph.running("check-manifests")
        return
    job = the_job_running(graph, "make check-manifests")
    for name in graph.orb_jobs("push-to-app-catalog"):
        assert job in graph.upstream(name), name


# --------------------------------------------------------------------------------------------
# The gsvendor jobs


def test_tests_job_runs_make_test_with_upstream_archives(graph: Graph, merged: dict) -> None:
    tests = the_job_running(graph, "make test")
    commands = graph.commands(tests)
    # where tests/conftest.py (and the tests that name ../shared/upstream) look for them
    assert commands.index("make upstream-archives UPSTREAM_DIR=../shared/upstream") < commands.index("make test")
    assert "apt-get install -y -qq docker-registry" in commands
    chart_tests = the_job_running(graph, "make helm-test")
    assert "make upstream-archives" in graph.commands(chart_tests)
    # the archives are those of the tags the suite reads
    tags = re.search(r"^UPSTREAM_TAGS := (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert tags and tuple(tags.group(1).split()) == TAGS


def test_venv_and_tools_are_cached_on_what_installs_them(merged: dict, graph: Graph) -> None:
    steps = merged["commands"]["install"]["steps"]
    keys_step = steps[0]["run"]["command"]
    assert "{ python3 --version; cat pyproject.toml; } > build/ci-keys/venv" in keys_step
    assert "cat hack/install-*.sh hack/go-install.sh; } > build/ci-keys/tools" in keys_step
    restores = [s["restore_cache"]["keys"] for s in steps if "restore_cache" in s]
    saves = {s["save_cache"]["key"]: s["save_cache"]["paths"] for s in steps if "save_cache" in s}
    assert saves == {
        'gsvendor-venv-v1-{{ checksum "build/ci-keys/venv" }}': [".venv"],
        # the Go module and build caches live outside the clone (hack/go-install.sh)
        'gsvendor-tools-v1-{{ checksum "build/ci-keys/tools" }}': [".tools", "~/.cache/gsvendor-tools"],
    }
    assert restores == [[k] for k in saves]  # exact keys only: a partial match would be a stale venv
    # every job on the gsvendor executor installs through the cached command, never by hand
    for name, job in merged["jobs"].items():
        if job.get("executor") == "gsvendor":
            assert "install" in job["steps"], name
            assert "pip install" not in "\n".join(step_commands(merged, job["steps"])), name


def test_registry_config_from_the_context() -> None:
    env = {"PATH": os.environ["PATH"], "ACR_GSOCI_USERNAME": "robot", "ACR_GSOCI_PASSWORD": 'p:ss"word'}
    result = subprocess.run(
        [str(ROOT / "hack/ci-registry-config.sh")], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    auths = json.loads(result.stdout)["auths"]
    assert list(auths) == ["gsoci.azurecr.io"]
    assert base64.b64decode(auths["gsoci.azurecr.io"]["auth"]).decode() == 'robot:p:ss"word'
    missing = subprocess.run(
        [str(ROOT / "hack/ci-registry-config.sh")],
        env={"PATH": os.environ["PATH"], "ACR_GSOCI_USERNAME": "robot"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode != 0 and "ACR_GSOCI_PASSWORD: not set" in missing.stderr and not missing.stdout


# --------------------------------------------------------------------------------------------
# Renovate


def ci_files() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(CIRCLECI.glob("*.yml"))}


def test_every_image_and_orb_is_pinned_for_renovate(merged: dict) -> None:
    """Renovate's circleci manager reads `orbs:` and `docker: - image:`; both need exact versions."""
    images, orbs = [], []
    for text in ci_files().values():
        config = YAML(typ="safe").load(text)
        orbs += list((config.get("orbs") or {}).values())
        for holder in [*(config.get("executors") or {}).values(), *(config.get("jobs") or {}).values()]:
            images += [d["image"] for d in holder.get("docker", [])]
    assert sorted(orbs) == ["circleci/continuation@2.0.1", ORB_PIN]
    assert images == ["cimg/python:3.11.13-node"]
    for pin in orbs:
        assert re.fullmatch(r"[a-z-]+/[a-z-]+@\d+\.\d+\.\d+", pin), pin
    for image in images:
        assert re.fullmatch(r"[a-z0-9./-]+:\d+\.\d+\.\d+(-[a-z]+)?", image), image


def test_tool_pins_carry_renovate_comments() -> None:
    """Tools the CI installs by version (not through a manager Renovate knows) say where they come from."""
    files = {name: text for name, text in ci_files().items()}
    files["hack/install-yq.sh"] = (ROOT / "hack/install-yq.sh").read_text()
    pins = 0
    for name, text in files.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if re.match(r"\s*[A-Z_]+_VERSION[=:]\s*\S", line):
                pins += 1
                assert i and re.match(r"\s*# renovate: datasource=\S+ depName=\S+", lines[i - 1]), (name, line)
    assert pins >= 1
    assert "# renovate: datasource=go depName=github.com/mikefarah/yq/v4\nYQ_VERSION=v4." in files["hack/install-yq.sh"]


def test_context_credentials_get_check_images_resolve_through_a_login(tmp_path: Path, cli) -> None:
    """End to end: the job's registry config, from the context's variables, opens an htpasswd registry."""
    from registrykit import LocalRegistry

    with LocalRegistry(tmp_path / "registry", users={"robot": "s3cret"}) as registry:
        registry.push("giantswarm/app:v1", b"artifact", auth=("robot", "s3cret"))
        chart = tmp_path / "fixture"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: fixture\nversion: 0.1.0\n")
        (chart / "templates/pod.yaml").write_text(
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
            f"    - name: c\n      image: {registry.host}/giantswarm/app:v1\n"
        )
        (tmp_path / "gsvendor.yaml").write_text("upstream:\n  repository: kserve/kserve\ncharts:\n  - fixture\n")
        (tmp_path / "docker-config").mkdir()
        cli.env["DOCKER_CONFIG"] = str(tmp_path / "docker-config")  # never the user's own credentials

        def resolve(password: str) -> subprocess.CompletedProcess[str]:
            env = {"PATH": os.environ["PATH"], "GSOCI_REGISTRY": registry.host}
            env |= {"ACR_GSOCI_USERNAME": "robot", "ACR_GSOCI_PASSWORD": password}
            config = subprocess.run(
                [str(ROOT / "hack/ci-registry-config.sh")], env=env, capture_output=True, text=True, check=True
            )
            (tmp_path / "registry-config.json").write_text(config.stdout)
            args = ["check-images", str(chart), "--allow", f"{registry.host}/", "--resolve"]
            args += ["--insecure-registry", registry.host, "--registry-config", str(tmp_path / "registry-config.json")]
            return cli(tmp_path, *args, "--json")

        ok = resolve("s3cret")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        (found,) = json.loads(ok.stdout)["resolve"]["references"]
        assert found["outcome"] == "resolved" and found["digest"].startswith("sha256:")
        refused = resolve("wrong")
        assert refused.returncode == 1
        assert json.loads(refused.stdout)["resolve"]["references"][0]["outcome"] == "auth-failed"


def test_upstream_archives_target_downloads_each_tag(tmp_path: Path) -> None:
    """`make upstream-archives` names each download as tests/conftest.py expects. The archives are
    given to curl as file:// URLs: served by a test HTTP server while the suite's workers loaded the
    machine, one download now and then came back empty with curl's exit 0."""
    served = tmp_path / "kserve/archive/refs/tags"
    served.mkdir(parents=True)
    for tag in TAGS:
        (served / f"{tag}.tar.gz").write_text(f"archive {tag}")
    archives = served.as_uri()
    result = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "upstream-archives",
            f"UPSTREAM_DIR={tmp_path / 'up'}",
            f"UPSTREAM_ARCHIVES={archives}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_text() for p in (tmp_path / "up").iterdir()} == {
        f"kserve-{tag}.tar.gz": f"archive {tag}" for tag in TAGS
    }
