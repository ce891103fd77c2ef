"""Every command a CircleCI job calls is there when it runs.

The merged configuration (the setup job's own merge, tests/test_ci_config.py) is walked job by job,
step by step: the commands each ``run`` calls, and for ``make`` the recipes ``make -n -B`` prints
for those targets, in turn; the repository's scripts and entry points add what they run
(``needs`` in tests/data/ci-commands.yaml). Each command must be provided by the job's image (a
table per image there) or installed by an earlier step or recipe (``installers``, ``apt-get
install`` of ``packages``). A job on an image without Node.js, Go or helm, where a step needs them,
fails here instead of in CircleCI.
"""

from __future__ import annotations

import copy
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from ruamel.yaml import YAML
from test_ci_config import load, run_setup_merge

TABLE = YAML(typ="safe").load((Path(__file__).parent / "data/ci-commands.yaml").read_text())
# shell builtins and keywords: never looked up on PATH
BUILTINS = {
    *("cd", "echo", "export", "set", "test", "[", "[[", "]]", "true", "false", "printf", "read", "local", "exit"),
    *("return", "shift", "source", ".", "trap", "wait", "command", "type", "unset", "exec", ":", "eval", "!"),
    *("if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "{", "}"),
}
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "((", "))", ";;", "|&"}
PREFIXES = {"sudo", "env", "nohup", "time", "xargs"}  # the next word is a command too
# CircleCI's own steps: no command of the image
BUILTIN_STEPS = {
    *("checkout", "attach_workspace", "persist_to_workspace", "store_test_results", "store_artifacts"),
    *("restore_cache", "save_cache", "setup_remote_docker", "add_ssh_keys"),
}


def commands_of(script: str) -> list[str]:
    """The command lines of a shell script: each simple command's words from its command name on
    (assignments before it dropped), including those after ``sudo``/``env`` and in ``$( )``."""
    out: list[str] = []
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # an unclosed quote across lines: the words before it
            tokens = line.split()
        current: list[str] = []
        expect, skip_for, redirect = True, False, False
        for token in [*tokens, ";"]:
            if token in SEPARATORS or (expect and token in ("do", "then", "else", "{", "!")):
                if current:
                    out.append(" ".join(current))
                current, expect, skip_for, redirect = [], True, False, False
                continue
            if skip_for:
                continue
            if redirect:  # the file a redirection names
                redirect = False
                continue
            if token in ("<", ">", ">>", "<<", ">&", "<&", "&>"):
                redirect = True
                continue
            if expect and token in ("fi", "done", "esac", "}"):
                continue
            if expect:
                if "=" in token and not token.startswith(("=", "-")) and token.split("=")[0].isidentifier():
                    continue  # NAME=value before the command
                if token == "for" or token == "case":
                    skip_for = True
                    continue
                if token in ("if", "while", "until", "elif", "time"):
                    continue
                expect = False
            current.append(token)
        if current:
            out.append(" ".join(current))
    return out


def _longest(table: dict[str, list[str]], line: str) -> list[str]:
    """The entry of the longest key that ``line`` starts with (whole words), else []."""
    words = line.split()
    best: list[str] | None = None
    best_length = -1
    for key, value in table.items():
        key_words = key.split()
        if words[: len(key_words)] == key_words and len(key_words) > best_length:
            best, best_length = value, len(key_words)
    return list(best or [])


def make_recipes(args: list[str]) -> str:
    """What ``make ARGS`` runs, as ``make -n -B`` prints it (every prerequisite's recipe too)."""
    done = subprocess.run(
        ["make", "-n", "-B", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def missing_commands(config: dict, job_name: str) -> list[str]:
    """Every command job ``job_name`` of the merged ``config`` calls that nothing provides, one line each."""
    job = config["jobs"][job_name]
    image = _image(config, job)
    if image not in TABLE["images"]:
        return [f"{job_name}: image {image} has no table in tests/data/ci-commands.yaml"]
    available: set[str] = set(TABLE["images"][image])
    problems: list[str] = []

    def need(command: str, where: str) -> None:
        name = command.removeprefix("./")
        if name in BUILTINS or name in available:
            return
        if name.startswith(("hack/", ".ci/")) and (ROOT / name).is_file():
            return  # in the checkout
        problems.append(
            f"{job_name}: {where} calls {name}, which {image} does not provide and no earlier step installs"
        )

    def run(script: str, where: str, depth: int = 0) -> None:
        functions: set[str] = set()
        for line in commands_of(script):
            words = line.split()
            if (len(words) > 2 and words[1:3] == ["(", ")"]) or (len(words) > 1 and words[1] == "()"):
                functions.add(words[0])
                continue
            while words and words[0] in PREFIXES:
                need(words[0], where)
                words = [w for w in words[1:] if not w.startswith("-")][:1] + words[2:] if len(words) > 1 else []
            if not words or words[0] in functions:
                continue
            line = " ".join(words)
            need(words[0], where)
            for needed in _longest(TABLE["needs"], line):
                need(needed, f"{where} ({line.split()[0]})")
            if words[0] == "make" and depth < 3:
                run(make_recipes([w for w in words[1:] if not w.startswith("-")]), f"{where} (make)", depth + 1)
            if words[:2] == ["apt-get", "install"]:
                for package in (w for w in words[2:] if not w.startswith("-")):
                    available.update(TABLE["packages"].get(package, []))
            available.update(_longest(TABLE["installers"], line))

    for index, (label, script) in enumerate(_run_steps(config, job["steps"]), 1):
        run(script, f"step {index} ({label})")
    return sorted(set(problems), key=problems.index)


def _image(config: dict, job: dict) -> str:
    executor = job.get("executor")
    name = executor.get("name") if isinstance(executor, dict) else executor
    if name in (config.get("executors") or {}):
        return str(config["executors"][name]["docker"][0]["image"])
    if job.get("docker"):
        return str(job["docker"][0]["image"])
    return str(name)


def _run_steps(config: dict, steps: list) -> list[tuple[str, str]]:
    """``(label, command)`` of every ``run`` step, the repository's own commands expanded in place."""
    out: list[tuple[str, str]] = []
    for step in steps:
        ((key, value),) = step.items() if isinstance(step, dict) else [(step, None)]
        if key == "run":
            command = value["command"] if isinstance(value, dict) else value
            out.append((value.get("name", command) if isinstance(value, dict) else command, command))
        elif key in (config.get("commands") or {}):
            out += _run_steps(config, config["commands"][key]["steps"])
        elif key not in BUILTIN_STEPS and "/" not in key:
            out.append((key, f"unknown-step-{key}"))
    return out


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The merged configuration CircleCI continues with (the setup job's command, run here)."""
    folder = tmp_path_factory.mktemp("circleci")
    subprocess.run(["cp", "-R", str(ROOT / ".circleci"), str(folder / ".circleci")], check=True)
    result = run_setup_merge(folder)
    assert result.returncode == 0, result.stderr
    return load(folder / ".circleci/continue.yml")  # type: ignore[no-any-return]


def test_every_job_has_every_command_it_calls(merged: dict) -> None:
    jobs = sorted(merged["jobs"])
    assert {"tests", "chart-tests", "check-images", "check-manifests", "verify", "vendor"} <= set(jobs)
    problems = [problem for job in jobs for problem in missing_commands(merged, job)]
    assert problems == []


def test_an_image_without_node_fails_the_jobs_that_need_it(merged: dict) -> None:
    """The plain Python image (no Node.js): the tests job installs Renovate with npm and runs the
    Renovate tests; the check names the job, the step and the command."""
    wrong = copy.deepcopy(merged)
    wrong["executors"]["gsvendor"]["docker"][0]["image"] = "cimg/python:3.11.13"
    problems = missing_commands(wrong, "tests")
    assert any(
        p.startswith("tests: step ") and "calls node, which cimg/python:3.11.13 does not provide" in p for p in problems
    ), problems
    assert any("calls npm" in p for p in problems), problems
    assert missing_commands(wrong, "vendor") == []  # a job that needs neither still passes


def test_helm_before_make_tools_is_missing(merged: dict) -> None:
    """A step calling helm's users before the install command: .tools/bin/helm is not there yet."""
    wrong = copy.deepcopy(merged)
    steps = wrong["jobs"]["check-images"]["steps"]
    steps.insert(0, {"run": {"name": "too early", "command": ".venv/bin/gsvendor check-images"}})
    problems = missing_commands(wrong, "check-images")
    assert "check-images: step 1 (too early) calls .venv/bin/gsvendor" in problems[0]
    assert any("calls .tools/bin/helm" in p for p in problems), problems


def test_an_image_without_a_table_is_named(merged: dict) -> None:
    wrong = copy.deepcopy(merged)
    wrong["executors"]["gsvendor"]["docker"][0]["image"] = "cimg/base:2025.01"
    assert missing_commands(wrong, "verify") == [
        "verify: image cimg/base:2025.01 has no table in tests/data/ci-commands.yaml"
    ]


def test_commands_of_a_script() -> None:
    script = (
        'A=1 B="x y" make test && sudo apt-get install -y git # note\n'
        "release=$(tr -d '\\n' < .build_version)\n"
        "for image in a b; do\n  docker buildx create --tag x; done\n"
        "if [ -f x ]; then hack/install-go.sh | tee log; fi\n"
    )
    assert commands_of(script) == [
        "make test",
        "sudo apt-get install -y git",
        "tr -d \\n",
        "docker buildx create --tag x",
        "[ -f x ]",
        "hack/install-go.sh",
        "tee log",
    ]
