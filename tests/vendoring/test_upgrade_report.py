"""The upgrade review: `gsvendor sync TAG --dry-run` / `--report FILE` / `--diff`, on the real v0.19.0 → v0.20.0.

The report compares the lock's build (v0.19.0) with TAG's, after the overlays, chart by chart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error, documents, tarball, tree
from gitkit import PatchMaker, Upstream

from gsvendor.config import load_config
from gsvendor.images import render
from gsvendor.images.check import judge
from gsvendor.images.find import Found, manifest_references
from gsvendor.vendoring.upgrade import compare_values, key_paths


@pytest.fixture
def at_v019(cli: Cli, project: Path) -> Path:
    """The project synced at v0.19.0."""
    result = cli(project, "sync", "v0.19.0", "--source", str(tarball("v0.19.0")))
    assert result.returncode == 0, result.stderr
    return project


def section(report: str, chart: str) -> str:
    """The report's section of ``chart``."""
    return report.split(f"\n## {chart} (`helm/{chart}`)\n", 1)[1].split("\n## ", 1)[0]


def test_the_v0_19_to_v0_20_report(cli: Cli, at_v019: Path, tmp_path: Path, helm: str) -> None:
    before = tree(at_v019 / "helm")
    lock = (at_v019 / "gsvendor.lock.yaml").read_bytes()
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    for path in (first, second):
        result = cli(
            at_v019, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run", "--report", str(path)
        )
        assert result.returncode == 0, result.stderr
        assert f"upgrade report: {path}" in result.stdout
    assert first.read_bytes() == second.read_bytes()  # deterministic
    assert tree(at_v019 / "helm") == before and (at_v019 / "gsvendor.lock.yaml").read_bytes() == lock  # dry run
    report = first.read_text()
    assert report.startswith("# Upgrade report: v0.19.0 → v0.20.0\n")
    assert str(tmp_path) not in report and str(at_v019) not in report  # no machine paths
    # every table row fits 100 columns: long cells are listed below their table
    assert [line for line in report.splitlines() if line.startswith("|") and len(line) > 100] == []
    # files: +1 is the tracing helm-unittest suite, copied from v0.20.0-rc0 on (overlay 95)
    assert "| kserve-runtime-configs | 1/0/8 | 2/0 | 1 | 6/0/13 | 0 |" in report

    runtime = section(report, "kserve-runtime-configs")
    added = runtime.split("Keys added (2):\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line for line in added if line.startswith("- ")] == [
        "- `kserve.servingruntime.autogluonserver`",
        "- `kserve.servingruntime.vllmserver`",
    ]
    assert "  - `kserve.servingruntime.vllmserver.devShm`" in added
    assert "  - `kserve.servingruntime.autogluonserver.image`" in added
    assert '| `kserve.version` | `"v0.19.0"` | `"v0.20.0"` |' in runtime
    # the new runtime's image: empty in values.yaml after the Giant Swarm overlay, upstream's in files/
    assert '| added | `values.yaml kserve.servingruntime.autogluonserver.image` | - | `""` | empty |' in runtime
    assert "| added | (26) | - | `kserve/autogluonserver:latest` | no, as written |" in runtime
    assert (
        "\n- (26) where: `files/runtimes/resources.yaml ClusterServingRuntime/kserve-autogluonserver "
        "spec.containers[kserve-container].image`\n"
    ) in runtime
    # the presets' ghcr.io/llm-d/ images: the chart's template rewrites them when rendering (to
    # kserve.llmisvcConfigs.imageRegistry); checked against helm's rendering below. A value moved
    # once is a marker in every row of its column
    cuda = " | (2) | (3) | yes |\n"
    assert runtime.count(cuda) == 9
    assert (
        "\n- (3) new: `ghcr.io/llm-d/llm-d-cuda:v0.8.0` → `gsoci.azurecr.io/giantswarm/llm-d-cuda:v0.8.0`\n" in runtime
    )
    assert "allowed: rewritten at render time" not in runtime and "| rewritten at render time" not in runtime

    # the CRD files that changed, and how
    crd = section(report, "kserve-crd")
    assert "CRD files changed (1):\n\n- `templates/serving.kserve.io_inferenceservices.yaml`\n" in crd
    assert (
        "| `inferenceservices.serving.kserve.io` | (1) | - | - | `v1beta1: canary` | - |\n"
        "\n"
        "- (1) file: `templates/serving.kserve.io_inferenceservices.yaml`\n"
    ) in crd
    # overlay 40 writes `{{ .Release.Namespace }}` into these CRDs' annotations: read as a placeholder
    llmisvc_crd = section(report, "kserve-llmisvc-crd")
    assert "CRD files changed (2):\n" in llmisvc_crd
    assert "| `llminferenceservices.serving.kserve.io` | (3) | - | - | (2) | - |\n" in llmisvc_crd
    assert "- (2) spec fields added: `v1alpha1: tracing`, `v1alpha2: kvCacheOffloading`, `v1alpha2: tracing`\n" in (
        llmisvc_crd
    )
    assert "| kserve-llmisvc-crd | 0/0/4 | 0/0 | 0 | 0/0/0 | 2 |\n" in report
    assert "TEMPLATED" not in report  # placeholders never become image references
    llmisvc = section(report, "kserve-llmisvc-resources")
    assert "CRD files changed (1):\n\n- `files/llmisvc/resources.yaml`\n" in llmisvc
    assert "| `inferencemodelrewrites.llm-d.ai` (new) | (1) | `v1alpha2` | - | - | - |" in llmisvc
    assert "| `inferenceobjectives.llm-d.ai` (new) | (1) | `v1alpha2` | - | - | - |" in llmisvc  # fits, same (1)
    assert "\n- (1) file: `files/llmisvc/resources.yaml`\n" in llmisvc
    # the overlays, with their match counts at each tag and their descriptions (long ones listed below)
    assert "| 60-runtime-configs | (4) | - | 1 × 13 **changed** |" in runtime
    assert (
        "\n- (4) operation: operations[2] (replace): every classic runtime image empty "
        "(vllmserver added in v0.20; runtimes added later too)\n"
    ) in runtime
    assert "| 60-runtime-configs | operations[4] (insert-after) | 1 × 1 | 1 × 1 |" in runtime  # none declared
    assert "| 30-crd-keep | (2) | 5 × 5 | 5 × 5 |" in crd
    assert "\n- (2) operation: operations[1] (insert-after): every CRD template that holds its document inline\n" in crd
    # footnote markers in reading order, listed so
    for block in re.findall(r"(?m)(?:^- \(\d+\) .*\n)+", report):
        markers = [int(m) for m in re.findall(r"(?m)^- \((\d+)\) ", block)]
        assert markers == list(range(1, len(markers) + 1)), block
    # RBAC: the llmisvc manager role's new permissions, rule by rule
    rbac = llmisvc.split("### RBAC\n\n", 1)[1].split("\n### ", 1)[0]
    assert rbac.splitlines()[:5] == [
        "Rules of each ClusterRole and Role, as `verbs × group/resource`, added and removed:",
        "",
        "| role | file | rules added | rules removed |",
        "|---|---|---|---|",
        "| ClusterRole `kserve-llmisvc-manager-role` | `files/llmisvc/resources.yaml` | (1) | - |",
    ]
    assert rbac.splitlines()[6] == (
        "- (1) rules added: `create,delete,get,list,patch,update,watch × resource.k8s.io/resourceclaims`, "
        "`create,delete,get,list,patch,update,watch × resource.k8s.io/resourceclaimtemplates`, "
        "`get,list,watch × llm-d.ai/inferencemodelrewrites`, `get,list,watch × llm-d.ai/inferenceobjectives`, "
        "`get,patch,update × serving.kserve.io/llminferenceserviceconfigs/status`"
    )

    # a real sync writes the same report, then the lock is at v0.20.0
    real = tmp_path / "real.md"
    synced = cli(at_v019, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--report", str(real))
    assert synced.returncode == 0, synced.stderr
    assert real.read_bytes() == first.read_bytes()
    assert "tag: v0.20.0\n" in (at_v019 / "gsvendor.lock.yaml").read_text()

    # every preset row shows, and judges, the image helm renders from the synced chart's defaults
    rendered = rendered_presets(helm, at_v019 / "helm" / "kserve-runtime-configs")
    allow = load_config(at_v019 / "gsvendor.yaml").raw["images"]["allow"]  # the policy the report judges by
    presets = {row[1]: row for row in image_rows(runtime) if row[1].startswith("files/llmisvcconfigs/")}
    assert len(presets) == 15
    for where, (_, _, _, new, allowed) in presets.items():
        written, shown = re.fullmatch(r"`([^`]+)` → `([^`]+)`", new).groups()  # type: ignore[union-attr]
        assert (shown, allowed) == (rendered[where], "yes"), where
        assert written != shown and judge(Found("manifest", "", "", shown), allow).status == "allowed", where


def image_rows(section: str) -> list[list[str]]:
    """The rows of a section's image table, markers replaced by the values listed below it, ``where`` unquoted."""
    block = section.split("### Image references\n", 1)[1].split("\n### ", 1)[0]
    listed = dict(re.findall(r"(?m)^- \((\d+)\) [a-z]+: (.*)$", block))
    rows = []
    for line in block.splitlines():
        if not line.startswith("| ") or line.startswith("| change |"):
            continue
        cells = [listed.get(cell.strip("()"), cell) for cell in line[2:-2].split(" | ")]
        rows.append([cells[0], cells[1].strip("`"), *cells[2:]])
    return rows


def rendered_presets(helm: str, chart: Path) -> dict[str, str]:
    """``files/llmisvcconfigs/resources.yaml Kind/name path`` → the image reference helm renders there."""
    rendered = render.template(helm, chart, namespace="kserve", set_values=["kserve.llmisvcConfigs.enabled=true"])
    assert rendered.ok, rendered.error
    return {
        f"files/llmisvcconfigs/resources.yaml {found.obj} {found.path}": found.written
        for document in documents(rendered.manifests)
        if document.get("kind") == "LLMInferenceServiceConfig"
        for found in manifest_references(document)
    }


def test_dry_run_prints_the_report_and_diff_prints_the_upgrade(cli: Cli, at_v019: Path) -> None:
    result = cli(at_v019, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run", "--diff")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dry run: " in out and "# Upgrade report: v0.19.0 → v0.20.0\n" in out
    diff = out.split("--- v0.19.0/helm/kserve-runtime-configs/values.yaml\n", 1)[1].split("\n--- ", 1)[0]
    assert diff.startswith("+++ v0.20.0/helm/kserve-runtime-configs/values.yaml\n@@ ")
    assert "\n+    autogluonserver:\n" in diff and "\n+      devShm:\n" in diff
    assert re.search(r"(?m)^-  version: v0\.19\.0\n\+  version: v0\.20\.0$", diff)
    # --report - is stdout; --json stays JSON alone
    plain = cli(at_v019, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run", "--json")
    assert json.loads(plain.stdout)["tag"] == "v0.20.0"
    # at the lock's tag already there is nothing to review
    same = cli(at_v019, "sync", "v0.19.0", "--source", str(tarball("v0.19.0")), "--dry-run")
    assert same.returncode == 0 and "Upgrade report" not in same.stdout


def test_report_to_stdout_is_the_report_alone(cli: Cli, at_v019: Path) -> None:
    """``--report -`` > upgrade.md is the Markdown document: the plan's summary goes to stderr."""
    source = ("--source", str(tarball("v0.20.0")))
    result = cli(at_v019, "sync", "v0.20.0", *source, "--dry-run", "--report", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Upgrade report: v0.19.0 → v0.20.0\n")
    assert "dry run: " not in result.stdout and "dry run: " in result.stderr
    for mixed in ("--json", "--diff"):
        refused = cli(at_v019, "sync", "v0.20.0", *source, "--dry-run", "--report", "-", mixed)
        assert_one_line_error(refused, 2, f"--report - writes the report to stdout, which {mixed} would write into")
    # ./- is a file named "-"
    named = cli(at_v019, "sync", "v0.20.0", *source, "--dry-run", "--report", "./-")
    assert named.returncode == 0, named.stderr
    assert "upgrade report: ./-\n" in named.stdout and "# Upgrade report" not in named.stdout
    assert (at_v019 / "-").read_text(encoding="utf-8") == result.stdout


def test_a_report_needs_a_lock_to_start_from(cli: Cli, project: Path, tmp_path: Path) -> None:
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--report", str(tmp_path / "r.md"))
    assert_one_line_error(result, 2, "no version to report the upgrade from; sync the tag before the upgrade first")
    assert not (project / "helm").exists() and not (tmp_path / "r.md").exists()
    # a lock at the report's own tag (a sync of the new pin first): a report of no change, and a warning why
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    same = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--report", str(tmp_path / "r.md"))
    assert same.returncode == 0, same.stderr
    assert same.stderr.startswith(
        "warning: the lock is at v0.20.0 already: the report compares it with itself; sync the old tag first\n"
    )
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("# Upgrade report: v0.20.0 → v0.20.0")


def test_a_report_whose_locked_source_is_gone_says_how_to_get_it_back(cli: Cli, project: Path, tmp_path: Path) -> None:
    # sync's --source is the new tag's upstream: the message must not suggest it for the old side
    copy = tmp_path / "downloads" / "kserve-v0.19.0.tar.gz"
    copy.parent.mkdir()
    copy.write_bytes(tarball("v0.19.0").read_bytes())
    assert cli(project, "sync", "v0.19.0", "--source", str(copy)).returncode == 0
    copy.unlink()
    new = ("sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run")
    wanted = "the upgrade report rebuilds v0.19.0 from it: sync v0.19.0 again from a copy (--source) first"
    asked = cli(project, *new, "--report", str(tmp_path / "r.md"))
    assert_one_line_error(asked, 2, "the locked source ../downloads/kserve-v0.19.0.tar.gz does not exist here", wanted)
    plan = cli(project, *new)  # the plan still comes, with a note instead of the report
    assert plan.returncode == 0 and plan.stderr == f"note: no upgrade report: {asked.stderr[len('error: ') :]}"


def test_the_report_lists_the_patches_patch_verify_judged(cli: Cli, at_v019: Path, tmp_path: Path) -> None:
    upstream = Upstream(tmp_path / "upstream", {"pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n"})
    upstream.commit({"VERSION": "0.20.0\n"}, "release", tag="v0.20.0")
    series = at_v019 / "patches/llmisvc"
    PatchMaker(upstream, "v0.20.0", tmp_path / "work").patch(
        {"pkg/a.go": "package pkg\n\nfunc A() int { return 2 }\n"}, "pkg: A returns 2", series, 1
    )
    (at_v019 / "Dockerfile.llmisvc").write_text(
        "# renovate: datasource=github-releases depName=kserve/kserve\nARG KSERVE_VERSION=v0.20.0\n"
        "FROM golang:1.25.8 AS builder\nCOPY patches/llmisvc/ /patches/\n"
    )
    verified = cli(at_v019, "patch-verify", "--source", upstream.url, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    (tmp_path / "patches.json").write_text(verified.stdout)
    report = tmp_path / "r.md"
    result = cli(
        at_v019,
        "sync",
        "v0.20.0",
        "--source",
        str(tarball("v0.20.0")),
        "--dry-run",
        "--report",
        str(report),
        "--patch-report",
        str(tmp_path / "patches.json"),
    )
    assert result.returncode == 0, result.stderr
    text = report.read_text()
    assert "## Carried patches (patch-verify at v0.20.0)\n" in text
    assert "| `0001-pkg-A-returns-2.patch` | applies |" in text
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    refused = cli(at_v019, "sync", "v0.20.0", "--dry-run", "--report", "-", "--patch-report", str(bad))
    assert_one_line_error(refused, 2, "not gsvendor patch-verify --json output")
    # a report of the series at another tag is not this upgrade's
    other = cli(at_v019, "sync", "v0.19.0", "--dry-run", "--patch-report", str(tmp_path / "patches.json"))
    assert_one_line_error(
        other,
        2,
        f"error: --patch-report: {tmp_path / 'patches.json'}: the series was checked against v0.20.0, not "
        "v0.19.0 (gsvendor patch-verify --tag v0.19.0 --json)",
    )
    missing = cli(at_v019, "sync", "v0.20.0", "--dry-run", "--patch-report", "nosuch.json")
    assert_one_line_error(missing, 2, "error: --patch-report: nosuch.json: cannot read: not found")
    # bounded as a user file is: /dev/zero took 1.9 GB, and deep nesting was a RecursionError traceback
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for name, reason in ((str(tmp_path / "deep.json"), "maximum recursion depth"), ("/dev/zero", "not a regular file")):
        refused = cli(at_v019, "sync", "v0.20.0", "--dry-run", "--patch-report", name)
        assert_one_line_error(refused, 2, f"error: --patch-report: {name}: cannot read: {reason}")


def test_a_table_moves_the_cells_that_make_a_row_too_wide_to_a_list_below() -> None:
    from gsvendor.report.upgrade import code, table

    wide = "x" * 90
    assert table(("a", "b"), [("1", "2")]) == ["| a | b |", "|---|---|", "| 1 | 2 |"]
    # the widest column's cell moves first; the same value elsewhere in its column shares the marker
    assert table(
        ("key", "file", "new"),
        [("k1", code(wide), code("v|1")), ("k2", code(wide), "-"), ("k3", "short", "-")],
    ) == [
        "| key | file | new |",
        "|---|---|---|",
        "| k1 | (1) | `v\\|1` |",
        "| k2 | (1) | - |",
        "| k3 | short | - |",
        "",
        f"- (1) file: `{wide}`",
    ]
    # then the next widest; the first column only when nothing else is left; a pipe is plain in the list
    assert table(("name", "old", "new"), [(wide, code("o|" + "o" * 60), code("n" * 50))]) == [
        "| name | old | new |",
        "|---|---|---|",
        "| (1) | (2) | (3) |",
        "",
        f"- (1) name: {wide}",
        f"- (2) old: `o|{'o' * 60}`",
        f"- (3) new: `{'n' * 50}`",
    ]
    # markers follow reading order across rows too, whichever column moved first
    assert table(("key", "a", "b"), [("k1", "s", code("b" * 95)), ("k2", code("a" * 95), code("b" * 95))]) == [
        "| key | a | b |",
        "|---|---|---|",
        "| k1 | s | (1) |",
        "| k2 | (2) | (1) |",
        "",
        f"- (1) b: `{'b' * 95}`",
        f"- (2) a: `{'a' * 95}`",
    ]
    # the first column moves last; a cell no longer than a marker stays, even when its row stays too wide
    assert table(("name", "n"), [("y" * 120, "1")])[2] == "| (1) | 1 |"
    many = [f"{n:02}" for n in range(30)]
    assert table(many, [many])[2] == "| " + " | ".join(many) + " |"


def test_values_comparison_names_the_topmost_new_key_and_every_path_below() -> None:
    old = {"a": {"b": 1, "gone": {"x": 1}}, "list": [1]}
    new = {"a": {"b": 2, "new": {"c": {"d": True}}, "dot.ted": 1}, "list": [1, 2]}
    added, removed, changed, below = compare_values(old, new)
    assert added == ['a."dot.ted"', "a.new"]
    assert below == {"a.new": ["a.new.c", "a.new.c.d"]}
    assert removed == ["a.gone"]
    assert [(c.path, c.old, c.new) for c in changed] == [("a.b", "1", "2"), ("list", "[1]", "[1, 2]")]
    assert key_paths(new["a"]["new"], "a.new") == ["a.new.c", "a.new.c.d"]


def test_a_dry_run_whose_lock_source_is_gone_notes_the_missing_report(cli: Cli, project: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "kserve-v0.19.0.tar.gz"
    shutil.copy(tarball("v0.19.0"), copy)
    assert cli(project, "sync", "v0.19.0", "--source", str(copy)).returncode == 0
    copy.unlink()
    dry = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "note: no upgrade report: " in dry.stderr and "kserve-v0.19.0.tar.gz" in dry.stderr
    assert "Upgrade report" not in dry.stdout and "dry run: " in dry.stdout
    asked = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--dry-run", "--report", "-")
    assert_one_line_error(asked, 2, "kserve-v0.19.0.tar.gz")


def test_overlay_rows_keep_the_order_the_operations_apply_in() -> None:
    # an operation applied only at the old tag stays in its place, not after every other overlay
    from types import SimpleNamespace as NS

    from gsvendor.overlays.engine import AppliedOperation
    from gsvendor.vendoring.upgrade import compare_overlays

    ops = [NS(label=f"operations[{i}] (copy)", kind="copy", params={}) for i in range(3)]
    overlays = [NS(name="60-runtime-configs", operations=ops), NS(name="95-chart-tests", operations=ops[:1])]

    def applied(*keys: tuple[str, int]) -> NS:
        return NS(applied=[AppliedOperation(name, ops[i].label, ("f",)) for name, i in keys])

    old = applied(("60-runtime-configs", 0), ("60-runtime-configs", 1), ("95-chart-tests", 0))
    new = applied(("60-runtime-configs", 0), ("60-runtime-configs", 2), ("95-chart-tests", 0))
    rows = [(use.overlay, use.operation, use.old, use.new) for use in compare_overlays(old, new, overlays)]  # type: ignore[arg-type]
    assert rows == [
        ("60-runtime-configs", "operations[0] (copy)", (1, 1), (1, 1)),
        ("60-runtime-configs", "operations[1] (copy)", (1, 1), None),
        ("60-runtime-configs", "operations[2] (copy)", None, (1, 1)),
        ("95-chart-tests", "operations[0] (copy)", (1, 1), (1, 1)),
    ]


def test_the_report_carries_patch_verify_notes_without_the_machine_path() -> None:
    # a charts-only archive holds none of the patched files: "does not apply" alone would mislead the reviewer
    from types import SimpleNamespace as NS

    from gsvendor.report.upgrade import markdown
    from gsvendor.vendoring.upgrade import compare_builds

    where = "/home/me/upstream/kserve-v0.20.0.tar.gz"
    patches = {
        "tag": "v0.20.0",
        "source": {"kind": "tarball", "location": where},
        "notes": [f"{where} holds none of the files the patches touch: is it the full upstream source tree?"],
        "results": [{"name": "0001-a.patch", "status": "does not apply", "message": "upstream v0.20.0 has no a.go"}],
    }
    upgrade = compare_builds(
        NS(snapshot=NS(tag="v0.19.0"), charts=[]), NS(snapshot=NS(tag="v0.20.0"), charts=[]), [], [], patches
    )  # type: ignore[arg-type]
    text = markdown(upgrade)
    assert (
        "## Carried patches (patch-verify at v0.20.0)\n\n**Note:** `kserve-v0.20.0.tar.gz holds none of the files "
        "the patches touch: is it the full upstream source tree?`\n\n| patch | result | message |\n"
    ) in text
    assert "/home/me" not in text


def test_a_patch_verify_error_document_is_a_series_not_judged(tmp_path: Path) -> None:
    """``patch-verify --json`` on a source without the patched files writes an error document;
    ``--patch-report`` read it as "no results list" and refused the whole report (exit 2)."""
    from types import SimpleNamespace as NS

    from gsvendor.report.upgrade import markdown
    from gsvendor.vendoring.upgrade import compare_builds
    from gsvendor.workflows.sync import read_patch_report

    where = "/home/me/upstream/kserve-v0.20.0.tar.gz"
    problem = f"{where} holds none of the files the patches touch (pkg/a.go): not the full upstream source tree"
    document = {
        "ok": False,
        "error": {"code": "source-incomplete", "exitCode": 2, "problems": [problem], "value": where},
    }
    (tmp_path / "patches.json").write_text(json.dumps(document))
    patches = read_patch_report(tmp_path / "patches.json", "v0.20.0")
    upgrade = compare_builds(
        NS(snapshot=NS(tag="v0.19.0"), charts=[]), NS(snapshot=NS(tag="v0.20.0"), charts=[]), [], [], patches
    )  # type: ignore[arg-type]
    text = markdown(upgrade)
    assert (
        "## Carried patches (patch-verify at v0.20.0)\n\nNot judged: patch-verify could not check the series.\n\n"
        "- `kserve-v0.20.0.tar.gz holds none of the files the patches touch (pkg/a.go): not the full upstream "
        "source tree`\n"
    ) in text
    assert "/home/me" not in text


def test_a_report_that_cannot_be_written_leaves_one_json_document(cli: Cli, at_v019: Path, tmp_path: Path) -> None:
    """--report naming a folder, with --json: the error is the only document on stdout (the summary of the
    completed sync was printed first, then the error, two documents no JSON reader takes)."""
    (tmp_path / "folder").mkdir()
    args = ("sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--report", str(tmp_path / "folder"), "--json")
    result = cli(at_v019, *args)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    assert document["ok"] is False and document["error"]["problems"][0].startswith(f"--report: {tmp_path / 'folder'}: ")
    assert "but the sync of v0.20.0 was completed" in document["error"]["problems"][0]
