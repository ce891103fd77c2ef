"""Regressions from trying to break gsvendor with bad input: each once wrote outside the project,
lost user files or overlays, hung, or ended in a traceback."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error, default_signals, tarball, tree

from gsvendor.overlays import yamledit


@pytest.fixture
def synced(cli: Cli, project: Path) -> Path:
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 0, result.stderr
    return project


def sync_fails(cli: Cli, project: Path, code: int, *needles: str, source: str | None = None) -> None:
    before = tree(project)
    result = cli(project, "sync", "v0.20.0", "--source", source or str(tarball("v0.20.0")))
    assert_one_line_error(result, code, *needles)
    assert tree(project) == before


@pytest.mark.parametrize(
    ("args", "victim"),
    [
        (["sync", "v0.20.0", "--dry-run", "--report"], "gsvendor.yaml"),
        (["sync", "v0.20.0", "--report"], "gsvendor.lock.yaml"),
        (["check-images", "--junit"], "helm/kserve-crd/Chart.yaml"),
        (["check-manifests", "--junit"], "gsvendor.lock.yaml"),
        (["patch-verify", "--junit"], "gsvendor.yaml"),
    ],
)
def test_a_report_never_overwrites_a_file_it_did_not_write(
    cli: Cli, synced: Path, args: list[str], victim: str, tmp_path: Path
) -> None:
    """``--report``/``--junit`` naming the configuration, the lock or a vendored file by mistake replaced
    it with the report; a report gsvendor wrote is replaced."""
    before = tree(synced)
    source = ["--source", str(tarball("v0.20.0"))] if args[0] == "sync" else []
    result = cli(synced, *args, victim, *source)
    assert_one_line_error(result, 2, f"{victim}: refusing to overwrite a file that is no report gsvendor wrote")
    assert tree(synced) == before
    chart = _tiny_chart(tmp_path / "x", 'image: "gsoci.azurecr.io/giantswarm/x:1"\n')
    for _ in range(2):
        assert cli(tmp_path, "check-images", str(chart), "--junit", "out.xml").returncode == 0
    assert b"<testsuites" in (tmp_path / "out.xml").read_bytes()


@pytest.mark.parametrize(
    "report", ["helm/kserve-crd/NEW.md", "helm/NEW.md", "./helm/../helm/kserve-resources/templates/x.md"]
)
def test_a_report_is_never_written_where_sync_writes(cli: Cli, synced: Path, report: str) -> None:
    """A report path new inside a chart's output passed the overwrite check and was written after the swap:
    a file verify then called a hand edit; the output folder and the lock are refused before any work."""
    before = tree(synced)
    result = cli(synced, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--report", report)
    assert_one_line_error(result, 2, f"--report {report}: sync writes there (the lock, the vendored charts)")
    assert tree(synced) == before


@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
def test_a_junit_report_is_never_written_where_sync_writes(cli: Cli, synced: Path, command: str) -> None:
    """--junit inside a chart's output was written after the check: verify then failed on it and sync refused it
    as a hand edit; it is refused before any work, as sync's --report is."""
    before = tree(synced)
    result = cli(synced, command, "--junit", "helm/kserve-crd/junit.xml")
    assert_one_line_error(result, 2, "--junit helm/kserve-crd/junit.xml: sync writes there (the lock, the vendored")
    assert tree(synced) == before


@pytest.mark.parametrize("to", ["/tmp/gsvendor-evil", "../../evil", "${chart}/../../../evil"])
def test_copy_overlay_cannot_write_outside_the_chart(cli: Cli, synced: Path, to: str) -> None:
    (synced / "overlays/95-evil.yaml").write_text(
        f"charts: [kserve-crd]\noperations:\n  - {{op: copy, content: x, to: '{to}'}}\n"
    )
    sync_fails(cli, synced, 2, "overlays/95-evil.yaml")
    assert not Path("/tmp/gsvendor-evil").exists() and not (synced.parent / "evil").exists()


def test_patch_overlay_takes_paths_from_git_not_from_note_lines(cli: Cli, synced: Path) -> None:
    patch = (
        "--- /etc/hostname\nnote above the diff\n"
        "diff --git a/NEWFILE b/NEWFILE\nnew file mode 100644\n--- /dev/null\n+++ b/NEWFILE\n@@ -0,0 +1 @@\n+x\n"
    )
    (synced / "overlays/95-note.patch").write_text(patch)
    (synced / "overlays/95-note.yaml").write_text(
        "charts: [kserve-crd]\noperations:\n  - {op: patch, patch: 95-note.patch}\n"
    )
    result = cli(synced, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--json")
    assert result.returncode == 0, result.stderr
    assert (synced / "helm/kserve-crd/NEWFILE").read_text() == "x\n"
    assert "/etc/hostname" not in (synced / "gsvendor.lock.yaml").read_text()


def test_patch_overlay_with_a_path_outside_the_chart(cli: Cli, synced: Path) -> None:
    patch = "diff --git a/../x b/../x\nnew file mode 100644\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n"
    (synced / "overlays/95-out.patch").write_text(patch)
    (synced / "overlays/95-out.yaml").write_text(
        "charts: [kserve-crd]\noperations:\n  - {op: patch, patch: 95-out.patch}\n"
    )
    sync_fails(cli, synced, 2, "overlays/95-out.yaml")


def test_a_user_folder_at_a_file_destination_is_a_hand_edit(cli: Cli, synced: Path) -> None:
    config = synced / "gsvendor.yaml"
    config.write_text(config.read_text() + "files:\n  - {from: go.mod, to: patches}\n")
    (synced / "patches").mkdir()
    (synced / "patches/0001-mine.patch").write_text("mine\n")
    sync_fails(cli, synced, 1, "patches")
    forced = cli(synced, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--force")
    assert forced.returncode == 0, forced.stderr
    backups = list((synced / ".gsvendor-backup").glob("*/patches/0001-mine.patch"))
    assert len(backups) == 1 and backups[0].read_text() == "mine\n"


def test_special_files_in_an_output_folder_are_hand_edits(cli: Cli, synced: Path) -> None:
    os.mkfifo(synced / "helm/kserve-crd/pipe")
    sync_fails(cli, synced, 1, "helm/kserve-crd/pipe")


def test_forced_backups_never_overwrite_each_other(cli: Cli, synced: Path) -> None:
    values = synced / "helm/kserve-crd/values.yaml"
    for index in range(3):
        values.write_text(values.read_text() + f"# edit {index}\n")
        result = cli(synced, "-q", "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), "--force")
        assert result.returncode == 0, result.stderr
    kept = sorted(
        p.read_text().count("# edit") for p in (synced / ".gsvendor-backup").glob("*/helm/kserve-crd/values.yaml")
    )
    assert kept == [1, 1, 1]


def test_a_misspelt_overlays_folder_is_an_error(cli: Cli, synced: Path) -> None:
    config = synced / "gsvendor.yaml"
    config.write_text(config.read_text().replace("overlays: overlays", "overlays: overlay"))
    sync_fails(cli, synced, 2, "overlays:", "is not a folder")


def test_an_overlay_naming_no_configured_chart_is_an_error(cli: Cli, synced: Path) -> None:
    keep = synced / "overlays/30-crd-keep.yaml"
    keep.write_text(keep.read_text().replace("charts: [kserve-crd, kserve-llmisvc-crd]", "charts: [kserve-crds]"))
    sync_fails(cli, synced, 2, "overlays/30-crd-keep.yaml: charts: 'kserve-crds' names no configured chart")


def test_a_chart_misspelt_in_the_configuration_is_suggested_by_the_overlay_naming_it(cli: Cli, synced: Path) -> None:
    # sync meets the typo on the first overlay that names the right chart: both sides are named
    config = synced / "gsvendor.yaml"
    config.write_text(config.read_text().replace("  - kserve-resources\n", "  - kserve-resourcez\n"))
    sync_fails(cli, synced, 2, "'kserve-resources' names no configured chart", "did you mean 'kserve-resourcez' (or is")


@pytest.mark.parametrize(
    ("operation", "needle"),
    [
        ("{op: replace, file: values.yaml, regex: true, find: 'a', with: '\\\\1'}", "invalid group reference"),
        ("{op: replace, file: values.yaml, find: 'a', with: '${tag'}", "without a closing"),
        ("{op: yaml-set, file: values.yaml, values: {'': 1}}", "empty JSON Pointer"),
    ],
)
def test_operation_mistakes_are_caught_when_overlays_load(cli: Cli, synced: Path, operation: str, needle: str) -> None:
    (synced / "overlays/95-bad.yaml").write_text(f"charts: [kserve-crd]\noperations:\n  - {operation}\n")
    sync_fails(cli, synced, 2, "overlays/95-bad.yaml", needle)


@pytest.mark.parametrize("tag", ["..", "../../x", "v1;rm", "v 1", "a/b"])
def test_tags_are_checked(cli: Cli, synced: Path, tag: str) -> None:
    before = tree(synced)
    result = cli(synced, "sync", tag, "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "is not an upstream tag")
    assert tree(synced) == before


def test_archive_with_a_symlink_loop(cli: Cli, synced: Path, tmp_path: Path) -> None:
    archive = tmp_path / "loop.tar.gz"
    with tarfile.open(archive, "w:gz") as out:
        for name, target in (("l1", "l2"), ("l2", "l1")):
            info = tarfile.TarInfo(f"kserve-0.20.0/charts/kserve-crd/{name}")
            info.type, info.linkname = tarfile.SYMTYPE, target
            out.addfile(info)
    sync_fails(cli, synced, 2, str(archive), source=str(archive))


def test_oversized_member_is_refused(tmp_path: Path) -> None:
    from gsvendor.errors import SourceError
    from gsvendor.upstream.source import MAX_MEMBER_BYTES, Wanted
    from gsvendor.upstream.tarball import read_tarball

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as out:
        info = tarfile.TarInfo("kserve-1.0.0/charts/kserve-crd/big")
        info.size = MAX_MEMBER_BYTES + 1
        out.addfile(info, io.BytesIO(b"\0" * info.size))
    with pytest.raises(SourceError, match="refusing oversized member"):
        read_tarball(buffer.getvalue(), "v1.0.0", Wanted(folders=("charts/kserve-crd",)), kind="tarball", location="t")


def test_more_files_to_vendor_than_the_limit_are_refused_from_an_archive_and_a_folder(tmp_path: Path) -> None:
    """Each file taken costs time and memory however small: 100,000 empty ones took 73 s and 450 MB."""
    from gsvendor.errors import SourceError
    from gsvendor.upstream.source import MAX_WANTED_FILES, Wanted, read_tree
    from gsvendor.upstream.tarball import read_tarball

    wanted = Wanted(folders=("charts/kserve-crd",))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as out:
        for n in range(MAX_WANTED_FILES + 1):
            out.addfile(tarfile.TarInfo(f"kserve-1.0.0/charts/kserve-crd/f{n}"), io.BytesIO())
    refused = f"t: refusing more than {MAX_WANTED_FILES} files to vendor"
    with pytest.raises(SourceError) as error:
        read_tarball(buffer.getvalue(), "v1.0.0", wanted, kind="tarball", location="t")
    assert str(error.value) == refused
    folder = tmp_path / "charts" / "kserve-crd"
    folder.mkdir(parents=True)
    for n in range(MAX_WANTED_FILES + 1):
        (folder / f"f{n}").touch()
    with pytest.raises(SourceError) as error:
        read_tree(tmp_path, wanted, "t", "checkout")
    assert str(error.value) == refused
    (folder / "f0").unlink()  # at the limit: read
    assert len(read_tree(tmp_path, wanted, "t", "checkout")) == MAX_WANTED_FILES


def test_credentials_never_reach_the_lock(cli: Cli, project: Path, httpserver) -> None:
    httpserver.expect_request("/k.tar.gz").respond_with_data(tarball("v0.20.0").read_bytes())
    url = httpserver.url_for("/k.tar.gz").replace("http://", "http://user:s3cret@") + "?token=t0psecret&x=1"
    result = cli(project, "sync", "v0.20.0", "--source", url)
    assert result.returncode == 0, result.stderr
    lock = (project / "gsvendor.lock.yaml").read_text()
    assert "s3cret" not in lock and "t0psecret" not in lock and "token=REDACTED&x=REDACTED" in lock


def test_a_fifo_as_configuration_does_not_hang(cli: Cli, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "gsvendor.yaml")
    assert_one_line_error(cli(tmp_path, "verify", timeout=30), 2, "gsvendor.yaml: not a regular file")


def test_a_link_loop_as_configuration_is_one_error_line(cli: Cli, tmp_path: Path) -> None:
    """``--config`` naming a link in a loop: Python 3.11's Path.resolve raised RuntimeError, a traceback."""
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    result = cli(tmp_path, "--config", "a", "verify", timeout=30)
    assert_one_line_error(result, 2, f"error: {tmp_path / 'a'}: Too many levels of symbolic links")


def test_alias_bomb_in_configuration(cli: Cli, tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    (tmp_path / "gsvendor.yaml").write_text("\n".join(levels) + "\nupstream: {repository: a/b}\ncharts: [a]\n")
    assert_one_line_error(cli(tmp_path, "verify", timeout=60), 2, "alias bomb")


@pytest.mark.parametrize("word", ["yes", "on", "No", "y", "off", "0x1F", "12:30"])
def test_yaml_set_quotes_what_yaml_1_1_reads_as_non_strings(word: str) -> None:
    assert yamledit.set_value("a: x\n", "/a", word) == f'a: "{word}"\n'


def test_rendered_document_names_cannot_lead_out_of_the_destination() -> None:
    from gsvendor.config import ChartSpec, RenderSpec
    from gsvendor.errors import SourceError
    from gsvendor.vendoring.plan import split_documents

    spec = ChartSpec(name="c", upstream_path="charts/c", dest="out", render=RenderSpec(file_name="{name}.yaml"))
    evil = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../../EVIL\n"
    with pytest.raises(SourceError, match="not a plain file name"):
        split_documents(spec, evil)
    assert split_documents(spec, evil.replace("../../../EVIL", "fine")) == {
        "fine.yaml": evil.replace("../../../EVIL", "fine").encode()
    }


def test_rendering_never_touches_the_chart_it_renders(synced: Path, helm: str) -> None:
    from gsvendor.images.render import template

    chart = synced / "helm/kserve-crd"
    before = tree(chart)
    rendered = template(helm, chart)
    assert rendered.ok, rendered.error
    assert tree(chart) == before
    assert b'version: "[[ .Version ]]"' in (chart / "Chart.yaml").read_bytes()
    assert all(p.stat().st_nlink == 1 for p in chart.rglob("*") if p.is_file())  # no link left behind


def _tiny_chart(folder: Path, values: str) -> Path:
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {folder.name}\nversion: 0.1.0\n")
    (folder / "values.yaml").write_text(values)
    return folder


def test_helm_output_past_the_render_limit_is_not_read(cli: Cli, tmp_path: Path, monkeypatch) -> None:
    """A template writing more manifests than a chart can hold (300 MB: 31 s and 0.9 GB) was read whole
    into memory; past ``GSVENDOR_MAX_RENDER_MIB`` its variant is an error instead."""
    chart = _tiny_chart(tmp_path / "big", "image: gsoci.azurecr.io/giantswarm/x:1\n")
    (chart / "templates" / "big.yaml").write_text('data: {{ repeat 1500000 "a" | quote }}\n')
    monkeypatch.setitem(cli.env, "GSVENDOR_MAX_RENDER_MIB", "1")
    result = cli(tmp_path, "check-images", str(chart), "--json", timeout=60)
    assert result.returncode == 1, result.stderr
    errors = {v["name"]: v["error"] for c in json.loads(result.stdout)["charts"] for v in c["variants"]}
    assert errors["defaults"] == "helm template wrote more than 1 MiB (GSVENDOR_MAX_RENDER_MIB)"
    monkeypatch.setitem(cli.env, "GSVENDOR_MAX_RENDER_MIB", "2")
    assert cli(tmp_path, "check-images", str(chart), timeout=60).returncode == 0


@pytest.mark.parametrize("value", ["2001-02-30", "!!int abc", "!!float x", "2001-02-03 25:61:61"])
def test_a_values_scalar_yaml_cannot_construct_is_the_charts_problem(cli: Cli, tmp_path: Path, value: str) -> None:
    """A values.yaml value whose tag or form ruamel cannot construct (a 30th of February) ended check-images
    and check-manifests in a ValueError traceback; it is the chart's values.yaml problem (exit 1)."""
    chart = _tiny_chart(tmp_path / "v", f"image: gsoci.azurecr.io/giantswarm/x:1\nts: {value}\n")
    result = cli(tmp_path, "check-images", str(chart), timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "v/values.yaml: invalid YAML: a value that cannot be read (" in result.stdout
    assert "Traceback" not in cli(tmp_path, "check-manifests", str(chart), timeout=60).stderr


@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
def test_a_link_out_of_the_chart_is_refused_before_rendering(cli: Cli, tmp_path: Path, command: str) -> None:
    """A chart folder holding a link to / or /etc: the render copy followed it (reading the whole disk,
    hanging on a device); a link inside the chart is copied as its target."""
    chart = _tiny_chart(tmp_path / "l", "image: gsoci.azurecr.io/giantswarm/x:1\n")
    (chart / "notes.txt").write_text("x\n")
    (chart / "same.txt").symlink_to("notes.txt")
    assert cli(tmp_path, command, str(chart), timeout=60).returncode == 0
    (chart / "templates" / "root").symlink_to("/")
    result = cli(tmp_path, command, str(chart), timeout=60)
    assert_one_line_error(result, 2, f"error: {chart}/templates/root: a link to /, outside the chart; remove it")


def test_check_images_with_a_recursive_alias_in_values(cli: Cli, tmp_path: Path) -> None:
    """A values.yaml holding an alias inside the node it names is refused as its file's one error
    line (exit 2) before any parse, as an alias bomb is."""
    chart = _tiny_chart(tmp_path / "r", "a: &x\n  b: *x\n")
    result = cli(tmp_path, "check-images", str(chart), timeout=60)
    assert_one_line_error(result, 2, "r/values.yaml: the alias *x is inside the node it names")


def test_check_images_junit_stays_valid_xml_with_control_characters(cli: Cli, tmp_path: Path) -> None:
    import xml.dom.minidom

    chart = _tiny_chart(tmp_path / "x", 'image: "docker.io/x\\x01\\x1b[31mRED"\n')
    junit = tmp_path / "out.xml"
    result = cli(tmp_path, "check-images", str(chart), "--junit", str(junit), timeout=60)
    assert result.returncode == 1
    xml.dom.minidom.parse(str(junit))  # raises on a control character


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["check-images", "--resolve", "--resolve-jobs", "1000"], "--resolve-jobs"),
        (["patch-verify", "--patches", ""], "--patches is empty"),
        (["patch-verify", "--source", ""], "--source is empty"),
        (["versions", "--source", ""], "--source is empty"),
    ],
)
def test_empty_or_absurd_options(cli: Cli, synced: Path, args: list[str], needle: str) -> None:
    assert_one_line_error(cli(synced, *args, timeout=60), 2, needle)


def test_images_allow_must_not_be_empty(cli: Cli, synced: Path) -> None:
    config = synced / "gsvendor.yaml"
    config.write_text(config.read_text().replace("  allow:\n    - gsoci.azurecr.io/\n", "  allow: []\n"))
    assert_one_line_error(cli(synced, "check-images", timeout=60), 2, "images.allow")


def test_schema_output_must_be_a_file_of_the_chart(cli: Cli, synced: Path) -> None:
    schema = synced / "helm/kserve-resources/.schema.yaml"
    output = "output: helm/kserve-resources/values.schema.json"
    schema.write_text(schema.read_text().replace(output, "output: helm/kserve-resources/templates"))
    before = tree(synced)
    assert_one_line_error(cli(synced, "generate", timeout=60), 2, "is a folder of the chart")
    assert tree(synced) == before


def _sync_signalled_at(cli: Cli, synced: Path, module: str, name: str, signal_name: str) -> None:
    """Sync v0.19.0 over ``synced`` (at v0.20.0) with ``signal_name`` sent to itself when
    ``module.name`` is called (after the swap): the sync completed, and it must say so."""
    import subprocess
    import sys

    before = tree(synced / "helm")
    script = (
        "import importlib, os, signal, sys\n"
        f"module = importlib.import_module({module!r})\n"
        f"real = module.{name}\n"
        f"def late(*args, **kwargs): os.kill(os.getpid(), signal.{signal_name}); return real(*args, **kwargs)\n"
        f"module.{name} = late\n"
        "from gsvendor.__main__ import run\n"
        f"sys.argv = ['gsvendor', 'sync', 'v0.19.0', '--source', {str(tarball('v0.19.0'))!r}]\n"
        "run()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=synced,
        env=cli.env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=default_signals,
    )
    completed = "interrupted, but only after the sync of v0.19.0 had completed\n"
    assert (result.returncode, result.stderr) == (130, completed)
    assert tree(synced / "helm") != before
    assert cli(synced, "verify").returncode == 0  # the whole of v0.19.0


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_swap_says_the_sync_completed(cli: Cli, synced: Path, signal_name: str) -> None:
    """A signal while the summary prints (the output already swapped) must not claim nothing was
    written: it came after the sync completed (a race the interrupted-sync test met under load)."""
    _sync_signalled_at(cli, synced, "gsvendor.report.console", "print_sync", signal_name)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGHUP"])
def test_a_signal_just_after_the_swap_before_the_result_says_the_sync_completed(
    cli: Cli, synced: Path, signal_name: str
) -> None:
    """The swap defers signals only while it renames: one right after (the result not yet back in
    the command) said 'nothing was left half-written' over a changed helm/."""
    _sync_signalled_at(cli, synced, "gsvendor.workflows.sync", "SyncResult", signal_name)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupted_sync_leaves_the_output_whole(cli: Cli, synced: Path, signal_name: str) -> None:
    import signal
    import subprocess
    import sys
    import time

    before = tree(synced / "helm")
    process = subprocess.Popen(
        [sys.executable, "-m", "gsvendor", "sync", "v0.19.0", "--source", str(tarball("v0.19.0"))],
        cwd=synced,
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    number = getattr(signal, signal_name)
    # Wait until gsvendor's code runs, however loaded the machine: it catches SIGTERM (Linux: SigCgt in
    # /proc/PID/status). Python catches SIGINT before importing site, whose interrupt is a fatal error, exit 1.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        caught = next(
            (
                line
                for line in Path(f"/proc/{process.pid}/status").read_text().splitlines()
                if line.startswith("SigCgt:")
            ),
            "SigCgt: 0",
        )
        if int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1:
            break
        time.sleep(0.01)
    time.sleep(0.3)
    process.send_signal(number)
    _, err = process.communicate(timeout=60)
    after = tree(synced / "helm")
    if process.returncode == 130 and "completed" not in err:  # stopped in time: everything as before
        assert err in (
            "interrupted\n",  # still starting
            "interrupted; nothing was left half-written\n",  # before the swap
            "interrupted; nothing was changed\n",  # while staging: undone
        )
        assert after == before
    elif process.returncode == 130:  # the signal came while the swap renamed: deferred until it completed
        assert err == "interrupted, but only after the sync of v0.19.0 had completed\n"
        assert after != before
    else:  # finished first: the whole new tag
        assert process.returncode == 0, err
    assert not list(synced.glob(".gsvendor-staging-*"))
    assert cli(synced, "verify").returncode == 0


def test_deep_nesting_in_rendered_manifests_is_refused_before_libyaml_and_allowed_nesting_loads() -> None:
    """libyaml composes recursively in C: 3,000 levels are refused with the limit's message before it
    parses; 190 levels load as ruamel's safe loader loads them."""
    from ruamel.yaml import YAML

    from gsvendor.yamlio import YamlLimitError, load_all_safe

    allowed = "[" * 190 + "]" * 190
    assert load_all_safe(allowed) == list(YAML(typ="safe").load_all(allowed))
    with pytest.raises(YamlLimitError) as refused:
        load_all_safe("[" * 3000 + "]" * 3000)
    assert str(refused.value) == "rendered manifests:1: nested more than 200 levels deep"


def test_a_file_read_is_allocated_as_its_size_and_one_that_grows_meanwhile_is_refused(
    tmp_path: Path, monkeypatch
) -> None:
    """The read reserved the whole per-file limit up front (GSVENDOR_MAX_MEMBER_MIB=3000 failed under a 2 GB
    address-space limit); it reads the size stat gave, and more than that means the file grew meanwhile."""
    from gsvendor.errors import SourceError
    from gsvendor.upstream.source import FileBudget

    monkeypatch.setenv("GSVENDOR_MAX_MEMBER_MIB", "3000")
    (tmp_path / "a.yaml").write_bytes(b"x: 1\n")
    assert FileBudget("t").read(tmp_path / "a.yaml", "a.yaml") == b"x: 1\n"
    with pytest.raises(SourceError) as grew:  # procfs: stat says 0 bytes, reading gives more
        FileBudget("t").read(Path("/proc/self/status"), "status")
    assert str(grew.value) == "t: status grew while it was read"


def test_a_report_is_written_whole_or_not_at_all_and_never_waits_on_a_pipe(cli: Cli, tmp_path: Path) -> None:
    """--junit was truncated, then written in place: a write cut short (a full disk, a file-size limit, a signal)
    left half a report where the last whole one was; a FIFO nobody reads blocked the command for ever."""
    import resource
    import subprocess
    import sys

    chart = _tiny_chart(tmp_path / "r", "image: gsoci.azurecr.io/giantswarm/x:1\n")
    assert cli(tmp_path, "check-images", str(chart), "--junit", "out.xml", timeout=60).returncode == 0
    whole = (tmp_path / "out.xml").read_bytes()

    def small_files() -> None:
        default_signals()
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))  # less than the report

    limited = subprocess.run(
        [sys.executable, "-m", "gsvendor", "check-images", str(chart), "--junit", "out.xml"],
        cwd=tmp_path,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=small_files,
        check=False,
    )
    assert len(whole) > 300 and limited.returncode == 2 and "File too large" in limited.stderr, limited.stderr
    assert (tmp_path / "out.xml").read_bytes() == whole
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no partial file left
    os.mkfifo(tmp_path / "pipe")
    result = cli(tmp_path, "check-images", str(chart), "--junit", "pipe", timeout=60)
    assert_one_line_error(result, 2, "--junit pipe: cannot write: No such device or address")
