"""gsvendor adopt: overlays inferred from a hand-vendored tree reproduce it through verify and sync.

The trees are made from ../shared/upstream: this repository's own overlays synced to a tag, then
hand edits of every kind, with README.md/values.schema.json regenerated as a person's pre-commit
would.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import CHARTS, ROOT, TAGS, UPSTREAM, Cli, assert_one_line_error, tarball, tree, upstream_files
from pytest_httpserver import HTTPServer
from ruamel.yaml import YAML

from gsvendor.adopt.textdiff import text_operations
from gsvendor.overlays import yamledit
from gsvendor.overlays.engine import load_overlays, matches_chart

TAG = TAGS[-1]


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository's gsvendor.yaml and overlays synced to TAG (its own output)."""
    folder = tmp_path_factory.mktemp("synced") / "project"
    folder.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", folder / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", folder / "overlays")
    result = Cli(folder.parent / "cache")(folder, "sync", TAG, "--source", str(tarball(TAG)))
    assert result.returncode == 0, result.stderr
    return folder


def _copy(synced: Path, tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(synced, project)
    return project


def _unconfigured(project: Path) -> None:
    """What a hand-vendored repository has: the charts, no gsvendor configuration."""
    (project / "gsvendor.yaml").unlink()
    (project / "gsvendor.lock.yaml").unlink()
    shutil.rmtree(project / "overlays")


def _hand_edit(project: Path, cli: Cli) -> dict[str, str]:
    """Hand edits of every kind to the synced tree; returns what each edit touched."""
    chart = project / "helm" / "kserve-resources"
    values = chart / "values.yaml"
    text = values.read_text()
    text = yamledit.set_value(text, "/kserve/router/imagePullPolicy", "Always")  # a value change
    key = "serviceClusterIPNone"  # a renamed key (same value, same place)
    assert text.count(f"{key}:") == 1
    text = text.replace(f"{key}:", "clusterIPNone:")
    values.write_text(text)
    templates = sorted(p for p in (chart / "templates").rglob("*.yaml"))
    deleted = templates[-1]
    deleted.unlink()  # a deleted upstream file
    edited = templates[0]
    lines = edited.read_text().splitlines(keepends=True)
    block = "# Giant Swarm: an inserted block\n# of two lines\n"
    edited.write_text("".join([*lines[:3], block, *lines[3:]]))  # an inserted block
    only = project / "helm" / "kserve-crd" / "ci" / "ci-values.yaml"
    only.parent.mkdir()
    only.write_text("crd:\n  keep: false\n")  # a Giant Swarm-only file
    regenerated = cli(project, "generate")  # the README and schema follow values.yaml, as pre-commit makes them
    assert regenerated.returncode == 0, regenerated.stderr
    return {
        "deleted": deleted.relative_to(chart).as_posix(),
        "edited": edited.relative_to(chart).as_posix(),
        "only": only.relative_to(project / "helm" / "kserve-crd").as_posix(),
    }


def test_adopt_hand_edited_tree_verifies_and_resyncs_byte_identical(synced: Path, tmp_path: Path, cli: Cli) -> None:
    project = _copy(synced, tmp_path)
    edits = _hand_edit(project, cli)
    _unconfigured(project)
    before = tree(project / "helm")

    result = cli(project, "adopt", TAG, "--source", str(tarball(TAG)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok: wrote gsvendor.yaml" in result.stdout

    verified = cli(project, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    resynced = cli(project, "sync", TAG, "--source", str(tarball(TAG)))
    assert resynced.returncode == 0, resynced.stderr
    assert "nothing changed" in resynced.stdout
    assert tree(project / "helm") == before

    config = (project / "gsvendor.yaml").read_text()
    assert f"- {edits['deleted']}" in config  # the deletion is the chart's exclude
    overlays = load_overlays(project / "overlays")
    ops = [(o, op) for o in overlays for op in o.operations]
    copies = [op.params["to"] for _, op in ops if op.kind == "copy"]
    assert edits["only"] in copies
    assert not any(p.endswith(("README.md", "values.schema.json")) for p in copies)  # left to generate
    values_ops = [
        op
        for overlay, op in ops
        if op.params.get("file") == "values.yaml"
        and matches_chart("kserve-resources", op.charts)
        and matches_chart("kserve-resources", overlay.charts)
    ]
    assert {"/kserve/router/imagePullPolicy": "Always"}.items() <= next(
        op.params["values"] for op in values_ops if op.kind == "yaml-set" and "values" in op.params
    ).items()
    renamed = [op for op in values_ops if op.kind == "replace" and "clusterIPNone:" in op.params["with"]]
    assert [op.params["find"].strip().split(":")[0] for op in renamed] == ["serviceClusterIPNone"]
    inserted = [op for _, op in ops if op.params.get("text", "").startswith("# Giant Swarm: an inserted block")]
    assert [op.params.get("file") for op in inserted] == [edits["edited"]]


def test_adopted_overlays_are_readable(synced: Path, tmp_path: Path, cli: Cli) -> None:
    """Every overlay and operation is described; no anchor holds a line it does not need."""
    project = _copy(synced, tmp_path)
    _hand_edit(project, cli)
    _unconfigured(project)
    assert cli(project, "adopt", TAG, "--source", str(tarball(TAG))).returncode == 0
    upstream = upstream_files(TAG, "charts/")
    checked = 0
    for overlay in load_overlays(project / "overlays"):
        raw = YAML(typ="safe").load(overlay.path.read_text())
        assert raw["description"].strip()
        assert all(op["description"].strip() for op in raw["operations"]), overlay.name
        for op in overlay.operations:
            if op.kind not in ("insert-after", "insert-before") or "file" not in op.params:
                continue
            anchor = op.params["anchor"]
            lines = anchor.splitlines(keepends=True)
            if len(lines) == 1:
                checked += 1
                continue
            shorter = "".join(lines[1:] if op.kind == "insert-after" else lines[:-1])
            for chart in CHARTS:
                if f"{chart}/{op.params['file']}" not in upstream:
                    continue
                if not (matches_chart(chart, op.charts) and matches_chart(chart, overlay.charts)):
                    continue
                original = upstream[f"{chart}/{op.params['file']}"].decode()
                assert original.count(shorter) != 1, (overlay.name, anchor)
                checked += 1
    assert checked


def test_adopt_own_sync_output_reports_counts_and_resyncs(synced: Path, tmp_path: Path, cli: Cli) -> None:
    project = _copy(synced, tmp_path)
    before = tree(project / "helm")
    hand_written = sum(len(o.operations) for o in load_overlays(ROOT / "overlays"))

    dry = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"(the overlays in the project have {hand_written})" in dry.stdout

    report = json.loads(cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--dry-run", "--json").stdout)
    assert (report["ok"], report["written"], report["existingOperations"]) == (True, False, hand_written)
    assert report["operations"] == sum(report["overlays"].values()) > 0
    assert f"{report['operations']} operation(s) in {len(report['overlays'])} overlay file(s)" in dry.stdout
    # the settings chosen for generate are named by their gsvendor.yaml keys, as this project sets them
    said = " ".join(dry.stdout.split())  # the summary wraps as wide as the output is
    assert "generate (gsvendor.yaml generate: readme.sortValuesOrder file, schema.normalize none)" in said

    refused = cli(project, "adopt", TAG, "--source", str(tarball(TAG)))
    assert_one_line_error(refused, 2, "gsvendor.yaml exists", "--force")

    forced = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    written = sum(len(o.operations) for o in load_overlays(project / "overlays"))
    assert f"{written} operation(s) in " in forced.stdout
    assert cli(project, "verify").returncode == 0
    resynced = cli(project, "sync", TAG, "--source", str(tarball(TAG)))
    assert "nothing changed" in resynced.stdout, resynced.stdout + resynced.stderr
    assert tree(project / "helm") == before


def test_binary_change_is_reported_and_nothing_written_unless_partial(synced: Path, tmp_path: Path, cli: Cli) -> None:
    project = _copy(synced, tmp_path)
    _unconfigured(project)
    target = project / "helm" / "kserve-resources" / "templates" / "_helpers.tpl"
    target.write_bytes(target.read_bytes() + b"\0binary\n")

    failed = cli(project, "adopt", TAG, "--source", str(tarball(TAG)))
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "cannot express: kserve-resources/templates/_helpers.tpl: a binary file changed" in failed.stderr
    assert sorted(p.name for p in project.iterdir()) == ["helm"]

    partial = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--partial")
    assert partial.returncode == 1
    assert (project / "gsvendor.yaml").is_file() and (project / "overlays").is_dir()
    assert not (project / "gsvendor.lock.yaml").exists()  # the output is not upstream plus these overlays


def test_detect_proposes_the_synced_tag(synced: Path, cli: Cli) -> None:
    result = cli(synced, "adopt", "--detect", "--source", str(UPSTREAM))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith(f"{TAG}: ")
    best = result.stdout.splitlines()[-1]
    assert best.startswith(f"best: {TAG} (")
    # the proposed command is whole, with the archive to read, ready to copy
    assert best.endswith(f"; run gsvendor adopt {TAG} --source {tarball(TAG)}")
    as_json = cli(synced, "adopt", "--detect", "--source", str(UPSTREAM), "--json")  # --json was ignored
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["best"] == TAG == data["matches"][0]["tag"]
    assert data["matches"][0]["source"] == str(tarball(TAG))
    assert [m["tag"] for m in data["matches"]] == [line.split(":")[0] for line in result.stdout.splitlines()[:-1]]


def test_usage_errors_are_one_line(synced: Path, tmp_path: Path, cli: Cli) -> None:
    assert_one_line_error(cli(synced, "adopt", TAG), 2, "--source")
    assert_one_line_error(cli(synced, "adopt", TAG, "--source", ""), 2, "--source is empty")
    assert_one_line_error(
        cli(synced, "adopt", TAG, "-s", str(tarball(TAG)), "overlays", "--dry-run"), 2, "no Chart.yaml"
    )
    stranger = synced / "helm" / "not-upstream"
    stranger.mkdir()
    (stranger / "Chart.yaml").write_text("apiVersion: v2\nname: not-upstream\nversion: 0.1.0\n")
    try:
        missing = cli(synced, "adopt", TAG, "-s", str(tarball(TAG)), "helm/not-upstream", "--dry-run")
        assert_one_line_error(missing, 2, "charts/not-upstream")
    finally:
        shutil.rmtree(stranger)
    assert_one_line_error(cli(synced, "adopt", "--source", str(tarball(TAG))), 2, "TAG")
    assert_one_line_error(cli(synced, "adopt", "--detect", "--source", str(tarball(TAG))), 2, "no tags to detect from")


def test_text_operations_take_the_shortest_unique_anchor_and_counts() -> None:
    old = "a:\n  b: 1\n  c: 2\nx: 1\n  c: 2\nimage: kserve/a\nz: 0\nimage: kserve/a\n"
    new = "a:\n  b: 1\n  c: 2\n  d: 3\nx: 1\n  c: 2\nimage: gs/a\nz: 0\nimage: gs/a\n"
    assert text_operations(old, new) == [
        {"op": "insert-before", "anchor": "x: 1", "text": "  d: 3\n"},
        {"op": "replace", "find": "image: kserve/a\n", "with": "image: gs/a\n", "count": 2},
    ]


def test_a_failed_write_puts_back_what_was_there(tmp_path: Path) -> None:
    from gsvendor.workflows.adopt import _swap

    root, work = tmp_path / "project", tmp_path / "work"
    (root / "overlays").mkdir(parents=True)
    (root / "overlays" / "10-old.yaml").write_text("old overlay\n")
    (root / "gsvendor.yaml").write_text("old config\n")
    work.mkdir()
    (work / "overlays").mkdir()
    (work / "overlays" / "10-new.yaml").write_text("new overlay\n")
    (work / "config").write_text("new config\n")
    targets = [
        (work / "overlays", root / "overlays"),
        (work / "config", root / "gsvendor.yaml"),
        (work / "missing-lock", root / "gsvendor.lock.yaml"),  # the last rename fails
    ]
    with pytest.raises(FileNotFoundError):
        _swap(targets, [], work)
    assert tree(root) == {"overlays/10-old.yaml": b"old overlay\n", "gsvendor.yaml": b"old config\n"}


def test_detect_scores_the_release_tags_of_a_git_repository(synced: Path, tmp_path: Path, cli: Cli) -> None:
    from gitkit import Upstream

    repository: Upstream | None = None
    previous: set[str] = set()
    for tag in TAGS:  # one commit per upstream tag, tagged as upstream tags it
        files: dict[str, str | None] = {f"charts/{p}": d.decode() for p, d in upstream_files(tag, "charts/").items()}
        files.update({p: None for p in previous - set(files)})
        previous = {p for p, d in files.items() if d is not None}
        if repository is None:
            repository = Upstream(tmp_path / "upstream", files)
            repository.commit({"go.mod": "module example\n"}, "release", tag=tag)
        else:
            repository.commit(files, "release", tag=tag)
    assert repository is not None
    result = cli(synced, "adopt", "--detect", "--source", repository.url)
    assert result.returncode == 0, result.stderr
    scored = [line.split(":")[0] for line in result.stdout.splitlines() if not line.startswith("best")]
    assert sorted(scored) == sorted(TAGS)
    assert scored[0] == TAG


def test_an_existing_lock_is_not_replaced_without_force(synced: Path, tmp_path: Path, cli: Cli) -> None:
    project = _copy(synced, tmp_path)
    (project / "gsvendor.yaml").unlink()
    shutil.rmtree(project / "overlays")
    lock = (project / "gsvendor.lock.yaml").read_bytes()
    refused = cli(project, "adopt", TAG, "--source", str(tarball(TAG)))
    assert_one_line_error(refused, 2, "gsvendor.lock.yaml exists", "--force")
    assert (project / "gsvendor.lock.yaml").read_bytes() == lock
    assert sorted(p.name for p in project.iterdir()) == ["gsvendor.lock.yaml", "helm"]


def test_git_hunks_turn_the_old_lines_into_the_new() -> None:
    """The histogram diff for large files (real git) gives blocks that rebuild the new lines exactly."""
    import random

    from gsvendor.adopt.textdiff import _git_hunks

    generator = random.Random(7)
    for _ in range(100):
        old = [generator.choice("abcde") for _ in range(generator.randint(0, 30))]
        new = list(old)
        for _ in range(generator.randint(0, 6)):
            where = generator.randint(0, len(new))
            if generator.random() < 0.4 and new:
                del new[min(where, len(new) - 1)]
            else:
                new.insert(where, generator.choice("abcxyz"))
        rebuilt, position = [], 0
        for i1, i2, j1, j2 in _git_hunks(old, new):
            rebuilt += old[position:i1] + new[j1:j2]
            position = i2
        assert rebuilt + old[position:] == new, (old, new)


@pytest.mark.parametrize(
    ("upstream", "tree", "reason"),
    [
        (b"a\nb\n", b"a\n\0\nb\n", "a binary file changed"),
        (b"a\nb\n", b"a\necho ${X\nb\n", "'${' without a closing '}'"),
        (b"a\nb\n", b"a \nb\n", "trailing whitespace"),
    ],
)
def test_what_no_operation_can_write_is_named(upstream: bytes, tree: bytes, reason: str) -> None:
    from gsvendor.adopt.infer import file_operations

    with pytest.raises(ValueError, match=re.escape(reason)):
        file_operations("chart", "templates/x.sh", upstream, tree, TAG)


def test_text_with_variables_is_written_escaped_and_reproduced() -> None:
    from gsvendor.adopt.infer import file_operations

    ops = file_operations("chart", "templates/x.sh", b"a\nb\n", b"a\necho ${HOME}\nb\n", TAG)
    assert ops == [{"op": "insert-before", "anchor": "b", "text": "echo $${HOME}\n"}]


def test_chart_folders_named_otherwise_keep_their_dest(synced: Path, tmp_path: Path, cli: Cli) -> None:
    """CHART_DIR picks the charts; a folder named unlike its chart is the chart's dest."""
    project = _copy(synced, tmp_path)
    _unconfigured(project)
    (project / "helm" / "kserve-crd").rename(project / "helm" / "crds")
    for generated in (".schema.yaml", "values.schema.json"):  # its paths name the chart's old folder
        (project / "helm" / "crds" / generated).unlink()
    before = tree(project / "helm")
    result = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "helm/crds", "helm/kserve-llmisvc-crd")
    assert result.returncode == 0, result.stdout + result.stderr
    from gsvendor.config import load_config

    config = load_config(project / "gsvendor.yaml")
    assert [(c.name, c.dest) for c in config.charts] == [
        ("kserve-crd", "helm/crds"),
        ("kserve-llmisvc-crd", "helm/kserve-llmisvc-crd"),
    ]
    assert cli(project, "verify").returncode == 0
    assert "nothing changed" in cli(project, "sync", TAG, "--source", str(tarball(TAG))).stdout
    assert tree(project / "helm") == before


def test_sigterm_while_fetching_leaves_the_project_as_it_was(
    synced: Path, tmp_path: Path, cli: Cli, httpserver: HTTPServer
) -> None:
    import signal
    import subprocess
    import sys
    import threading

    from werkzeug import Request, Response

    project = _copy(synced, tmp_path)
    _unconfigured(project)
    before = tree(project)
    arrived, release = threading.Event(), threading.Event()

    def held(request: Request) -> Response:
        arrived.set()
        release.wait(60)
        return Response(tarball(TAG).read_bytes())

    httpserver.expect_request("/kserve.tar.gz").respond_with_handler(held)
    process = subprocess.Popen(
        [sys.executable, "-m", "gsvendor", "adopt", TAG, "--source", httpserver.url_for("/kserve.tar.gz")],
        cwd=project,
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert arrived.wait(120), "adopt never asked for the archive"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert tree(project) == before
    assert sorted(p.name for p in project.iterdir()) == ["helm"]


def test_a_file_name_with_a_line_break_and_escape_is_one_problem_line(synced: Path, tmp_path: Path, cli: Cli) -> None:
    """templates/"e<ESC>]0;T<BEL>x<LF>error: [y].txt" with a trailing blank (no overlay reproduces it):
    the problem line was cut in two at the name's line feed, its second half an ``error:`` line."""
    project = _copy(synced, tmp_path)
    _unconfigured(project)
    name = "e\x1b]0;T\x07x\nerror: [y].txt"
    (project / "helm/kserve-crd/templates" / name).write_text("x \n")
    failed = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--dry-run")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert failed.stderr.splitlines() == [
        "cannot express: helm/kserve-crd/templates/e\\x1b]0;T\\x07x\\x0aerror: [y].txt: "
        "the overlays inferred do not reproduce it",
        "error: 1 change(s) could not be expressed; wrote nothing (--partial writes the rest)",
    ]


def _processes_naming(text: str) -> list[str]:
    """The command lines of this machine's processes that hold ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in line:
            found.append(line)
    return found


def test_detect_on_a_git_server_that_never_answers_stops_git_and_its_http_helper(tmp_path: Path) -> None:
    """``adopt --detect -s http://127.0.0.1:<port>/x.git`` where the server accepts and says nothing:
    git ls-remote was killed alone at --max-time and its git-remote-http child stayed connected."""
    import socket

    from gsvendor.errors import SourceError
    from gsvendor.upstream.source import FetchOptions
    from gsvendor.workflows.adopt import _git_tags

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/silent.git"
        options = FetchOptions(cache_dir=tmp_path / "cache", timeout=30, retries=0, max_time=2, min_rate=1)
        with pytest.raises(
            SourceError, match=r"^http://127\.0\.0\.1:\d+/silent\.git: git ls-remote took longer than 2 s"
        ):
            _git_tags(url, options)
        assert _processes_naming(url) == []


def test_a_gsvendor_yaml_linking_outside_the_project_is_not_carried_over(
    synced: Path, tmp_path: Path, cli: Cli
) -> None:
    """gsvendor.yaml as a link to a YAML file elsewhere (a kubeconfig): ``adopt --force`` copied
    that file's other keys (its users and tokens) into the project's new gsvendor.yaml."""
    project = _copy(synced, tmp_path)
    _unconfigured(project)
    outside = tmp_path / "kubeconfig"
    outside.write_text("users:\n  - name: admin\n    user: {token: not-for-a-repository}\n")
    (project / "gsvendor.yaml").symlink_to(outside)
    result = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--force")
    assert result.returncode == 0, result.stdout + result.stderr
    written = project / "gsvendor.yaml"
    assert not written.is_symlink() and "not-for-a-repository" not in written.read_text()
    assert YAML(typ="safe").load(written.read_text())["upstream"] == {"repository": "kserve/kserve"}
    assert outside.read_text() == "users:\n  - name: admin\n    user: {token: not-for-a-repository}\n"


def test_descriptions_name_escaped_keys_as_written() -> None:
    """A removed ``helm.sh/resource-policy`` key (pointer ``~1``) was described as ``helm.sh~1resource-policy``."""
    from gsvendor.adopt.layout import describe

    pointer = "/metadata/annotations/helm.sh~1resource-policy"
    assert describe({"op": "yaml-delete", "file": "Chart.yaml", "keys": [pointer]}) == (
        "removes metadata.annotations.helm.sh/resource-policy from Chart.yaml"
    )
    assert describe({"op": "yaml-set", "file": "Chart.yaml", "values": {pointer: "keep"}}) == (
        "sets metadata.annotations.helm.sh/resource-policy in Chart.yaml"
    )


def test_a_link_to_a_folder_outside_is_refused_as_verify_refuses_it(synced: Path, tmp_path: Path, cli: Cli) -> None:
    """A chart folder holding a link to / (a folder os.walk lists and does not enter): adopt said the
    overlays reproduce every file, and verify then failed on it; a link to a folder within is no file."""
    project = _copy(synced, tmp_path)
    (project / "helm/kserve-crd/inner").symlink_to("templates")
    inner = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--dry-run")
    assert inner.returncode == 0, inner.stdout + inner.stderr
    (project / "helm/kserve-crd/root").symlink_to("/")
    result = cli(project, "adopt", TAG, "--source", str(tarball(TAG)), "--dry-run")
    assert_one_line_error(result, 2, "helm/kserve-crd/root: a link to /, outside the project; remove it")
