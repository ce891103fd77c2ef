"""Hostile and odd input: stamps, the lock, archives, global options."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, Cli, assert_one_line_error, tarball

OBJECT = {"type": "object"}


def _both_ways(tmp_path: Path, text: str, schema: dict = OBJECT) -> tuple[object, object]:
    """The data of ``text`` loaded with a fresh stamps folder, then again with its stamp."""
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text(text)
    stamps = tmp_path / "stamps"
    fresh = load_validated(file, schema, "f.yaml", stamps).data
    assert len(list(stamps.iterdir())) == 1
    return fresh, load_validated(file, schema, "f.yaml", stamps).data


def test_an_anchored_boolean_stays_a_boolean_with_or_without_a_stamp(tmp_path: Path) -> None:
    """``&on true`` is ruamel's ScalarBoolean (an int): it was 1 on a fresh cache and true once stamped."""
    fresh, stamped = _both_ways(tmp_path, "values:\n  /a: &on true\n  /b: *on\n")
    assert fresh == stamped == {"values": {"/a": True, "/b": True}}
    assert all(type(v) is bool for v in fresh["values"].values())  # type: ignore[index]


def test_a_tag_after_the_colon_of_a_json_key_takes_the_full_path(tmp_path: Path) -> None:
    """``{"a":!!str 3}``: the tag follows the colon directly; libyaml alone would read a plain "3"."""
    from gsvendor.yamlio import _TAG, load_validated

    assert _TAG.search('{"a":!!str 3}')
    file = tmp_path / "f.yaml"
    file.write_text('values: {"/a":!!str 3}\n')
    stamps = tmp_path / "stamps"
    first = load_validated(file, OBJECT, "f.yaml", stamps)
    second = load_validated(file, OBJECT, "f.yaml", stamps)
    assert second._document is not None  # not the libyaml-only path
    assert str(second.data["values"]["/a"]) == str(first.data["values"]["/a"]) == "3"


@pytest.mark.parametrize(
    "value", ["2001-13-45", "!!int abc", "!!float abc", "!!bool maybe", "!!int 0x", "1" * 5000, "-" + "9" * 4400]
)
def test_a_scalar_that_cannot_be_constructed_is_one_config_error(tmp_path: Path, value: str) -> None:
    from gsvendor.errors import ConfigError
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text(f"a: {value}\n")
    with pytest.raises(ConfigError, match=r"^f\.yaml: invalid YAML: a value that cannot be read \("):
        load_validated(file, OBJECT, "f.yaml", tmp_path / "stamps")


def test_text_ruamels_parser_slips_on_is_one_config_error(tmp_path: Path) -> None:
    """A comment before a line separator (U+2028) then NEL: ruamel's round-trip parser raised
    NotImplementedError ("overlap in comment"), a traceback for gsvendor.yaml or an overlay."""
    from gsvendor.errors import ConfigError
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text("k: # c\u2028a\n\x85", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^f\.yaml: invalid YAML: ruamel cannot read it \(NotImplementedError\)$"):
        load_validated(file, OBJECT, "f.yaml", tmp_path / "stamps")


def test_a_stamps_folder_that_cannot_be_searched_costs_only_the_stamp(tmp_path: Path, monkeypatch) -> None:
    """A stamps folder without search permission (EACCES on stat) is no stamp, not a traceback."""
    from gsvendor.config import load_config

    config = tmp_path / "gsvendor.yaml"
    (tmp_path / "overlays").mkdir()
    config.write_text("upstream:\n  repository: kserve/kserve\ncharts: [kserve-crd]\n")
    stamps = tmp_path / "stamps"
    load_config(config, stamps=stamps)  # stamped
    is_file = Path.is_file

    def denied(self: Path) -> bool:
        if self.parent == stamps:
            raise PermissionError(13, "Permission denied", str(self))
        return is_file(self)

    monkeypatch.setattr(Path, "is_file", denied)
    assert load_config(config, stamps=stamps).charts[0].name == "kserve-crd"


@pytest.mark.parametrize("value", ["2001-01-01", "!!binary aGk=", "!!set {a}"])
def test_render_values_helm_cannot_take_are_a_config_error(tmp_path: Path, value: str, monkeypatch) -> None:
    """Inline render values go to helm as JSON: a date was a TypeError traceback at render time."""
    from gsvendor.config import load_config
    from gsvendor.errors import ConfigError

    config = tmp_path / "gsvendor.yaml"
    config.write_text(
        "upstream: {repository: kserve/kserve}\n"
        f"charts:\n  - name: r\n    render:\n      values:\n        a: {value}\n"
    )
    monkeypatch.chdir(tmp_path)  # the file is named by its name
    with pytest.raises(ConfigError, match=r"gsvendor\.yaml:3: charts\[0\]: render\.values: a value helm cannot take"):
        load_config(config)


def test_a_lock_with_nel_in_a_path_reads_back_as_written() -> None:
    """NEL (U+0085) is escaped: written raw inside quotes, every reader takes it for a line break (a space)."""
    from gsvendor.vendoring import lock
    from gsvendor.yamlio import load_plain

    for value in ("../n\x85d/kserve-v0.20.0.tar.gz", "\x85", "é\x85\u2028 x"):
        document = {"source": {"kind": "tarball", "location": value, "commit": None}, "charts": {value: {}}}
        assert load_plain(lock.render(document).decode()) == document
    plain = {"source": {"location": "../shared/é.tar.gz"}}  # no NEL: the bytes as before, UTF-8 kept
    assert lock.render(plain).decode() == lock.HEADER + "source:\n  location: ../shared/é.tar.gz\n"


def _archive(size: int) -> bytes:
    """A gzip bomb: one member of ``size`` zero bytes under kserve-0.1.0/."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9) as gz:
        info = tarfile.TarInfo("kserve-0.1.0/other/big.bin")
        info.size = size
        gz.write(info.tobuf(format=tarfile.GNU_FORMAT))
        for _ in range(size // (1 << 20)):
            gz.write(bytes(1 << 20))
        gz.write(bytes(1024))
    return raw.getvalue()


def test_a_gzip_bomb_is_read_as_a_stream() -> None:
    """A 32 MiB bomb (~1000×) is read header by header: its unwanted member never sits in memory."""
    import tracemalloc

    from gsvendor.upstream import tarball
    from gsvendor.upstream.source import Wanted

    bomb = _archive(32 << 20)
    tracemalloc.start()
    try:
        snapshot = tarball.read_tarball(bomb, "v0.1.0", Wanted(folders=("charts",)), kind="tarball", location="x")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert snapshot.files == {} and snapshot.folders == frozenset({"other"})
    assert peak < 1 << 20


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--config", "", "verify"), "--config is empty"),
        (("verify", "--config="), "--config is empty"),
        (("--cache-dir=", "verify"), "--cache-dir is empty"),
        (("--lock-timeout", "nan", "verify"), "--lock-timeout: nan is not a number"),
        (("sync", "v0.20.0", "--timeout", "nan"), "--timeout: nan is not a number"),  # a traceback in the socket
        (("sync", "v0.20.0", "--max-time", "inf"), "--max-time: inf is not a number"),  # retries for ever
        (("sync", "v0.20.0", "--min-rate", "nan"), "--min-rate: nan is not a number"),
    ],
)
def test_an_empty_global_option_is_one_error_line(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    """``--config ''`` was a UsageError traceback (raised in the callback); ``--cache-dir ''`` put the
    cache and its validation stamps in the project folder; ``--lock-timeout nan`` waited for ever."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "gsvendor.yaml").write_text("upstream: {repository: kserve/kserve}\ncharts: [x]\n")
    result = cli(project, *args)
    assert_one_line_error(result, 2, needle)
    assert result.stderr.count("\n") == 1 and sorted(p.name for p in project.iterdir()) == ["gsvendor.yaml"]


def test_the_sync_summary_escapes_control_characters_of_the_source() -> None:
    """A source path (given, or read from the lock) with ESC in it was printed raw to the terminal."""
    from types import SimpleNamespace

    from gsvendor.report.console import print_sync
    from gsvendor.report.writer import Writer

    snapshot = SimpleNamespace(tag="v0.20.0", kind="tarball", location="/tmp/e\x1b[31mRED/\x85k.tar.gz")
    result = SimpleNamespace(
        build=SimpleNamespace(snapshot=snapshot), dry_run=False, forced=[], changes=[1], lock_changed=True
    )
    console = Writer(record=True, width=200, file=io.StringIO())
    print_sync(console, result)  # type: ignore[arg-type]
    text = console.export_text()
    assert "\x1b" not in text and "\x85" not in text
    assert text == "wrote 1 file change(s) and the lock file: v0.20.0 from tarball /tmp/e\\x1b[31mRED/\\x85k.tar.gz\n"


def test_a_planted_stamp_cannot_send_writes_outside_the_project(tmp_path, monkeypatch) -> None:
    """Stamps name a text as valid and hold its data; what gsvendor writes is still checked to stay in the project."""
    import json

    import pytest

    from gsvendor.config import CONFIG_SCHEMA, load_config
    from gsvendor.errors import ConfigError
    from gsvendor.stamps import framed, stamp_path

    (tmp_path / "overlays").mkdir()
    config = tmp_path / "gsvendor.yaml"
    text = "upstream:\n  repository: kserve/kserve\ncharts: [kserve-crd]\n"
    config.write_text(text)
    stamps = tmp_path / "stamps"
    stamps.mkdir()
    stamp = stamp_path(stamps, json.dumps(CONFIG_SCHEMA, sort_keys=True), text)
    planted = {"upstream": {"repository": "kserve/kserve"}, "output": "../../tmp/x", "charts": ["kserve-crd"]}
    stamp.write_text(framed(json.dumps({"data": planted})))  # as if a run had validated it
    monkeypatch.chdir(tmp_path)  # the file is named by its name
    with pytest.raises(ConfigError, match=r"^gsvendor.yaml: '\.\./\.\./tmp/x' must be a relative path inside"):
        load_config(config, stamps=stamps)


@pytest.mark.parametrize(
    "make",
    [
        # a link to a folder (one out of the project is refused, exit 2): helm packages what it points to
        lambda path: path.symlink_to("../../kserve-resources"),
        lambda path: os.mkfifo(path),  # helm cannot read it
        lambda path: path.symlink_to("../Chart.yaml"),  # a link to a file: compared by content, still no file
    ],
    ids=["link-to-folder", "fifo", "link-to-file"],
)
def test_verify_fails_on_a_link_or_special_file_in_the_output(cli: Cli, project: Path, make) -> None:
    """verify compared files by content: a link to a folder or a FIFO inside helm/ passed as
    'upstream plus the declared overlays' (sync refuses to overwrite them)."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    odd = project / "helm/kserve-crd/templates/odd.yaml"
    make(odd)
    result = cli(project, "verify")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "verify failed: 1 file(s) differ" in result.stderr and "helm/kserve-crd/templates/odd.yaml" in result.stderr
    assert "Traceback" not in result.stderr


def test_verify_refuses_a_link_to_a_folder_out_of_the_project(cli: Cli, project: Path) -> None:
    """A link to /etc inside helm/ (a folder os.walk lists and does not enter) is refused as a link to a
    file outside is: exit 2, naming it, before any diff could print a file of the machine."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    (project / "helm/kserve-crd/templates/odd").symlink_to("/etc")
    result = cli(project, "verify")
    assert_one_line_error(result, 2, "helm/kserve-crd/templates/odd: a link to /etc, outside the project; remove it")


def test_a_gsvendor_helm_that_is_not_executable_is_named_not_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GSVENDOR_HELM naming no helm (a typo) was passed over for .tools/bin/helm or PATH's helm, a
    helm the user did not ask for, or ended in 'helm not found: … set GSVENDOR_HELM'."""
    from gsvendor.errors import ToolError
    from gsvendor.images.render import find_helm

    tools = tmp_path / ".tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "helm").write_text("#!/bin/sh\n")
    (tools / "helm").chmod(0o755)
    monkeypatch.setenv("GSVENDOR_HELM", str(tmp_path / "no-helm"))
    with pytest.raises(ToolError, match=r"^GSVENDOR_HELM=.*/no-helm: not an executable file$"):
        find_helm(project_root=tmp_path)
    assert find_helm(str(tools / "helm"), project_root=tmp_path) == str(tools / "helm")  # --helm wins
    monkeypatch.setenv("GSVENDOR_HELM", "")  # empty: unset
    assert find_helm(project_root=tmp_path) == str(tools / "helm")


def test_a_values_file_linking_outside_the_project_is_refused(cli: Cli, project: Path, tmp_path: Path) -> None:
    """switchValues (and a variant's values) must be relative paths inside the project, but a link
    there led anywhere: helm read it and its schema errors printed the lines of the file it points
    to (/etc/shadow's, hashes and all)."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    secret = tmp_path / "secret"
    secret.write_text("root:$6$not-for-a-ci-log:20228:0:99999:7:::\n")
    switches = project / "hack/check-images/runtime-configs-switches.yaml"
    switches.parent.mkdir(parents=True)
    switches.symlink_to(secret)
    for command in ("check-images", "check-manifests"):
        result = cli(project, command)
        assert_one_line_error(
            result, 2, "switchValues[0]: hack/check-images/runtime-configs-switches.yaml: a link leading outside"
        )
        assert "not-for-a-ci-log" not in result.stdout + result.stderr


def test_a_render_values_file_linking_outside_the_project_is_refused(cli: Cli, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("a: 1\n")
    project = tmp_path / "p"
    project.mkdir()
    (project / "values.yaml").symlink_to(secret)
    (project / "gsvendor.yaml").write_text(
        "upstream: {repository: kserve/kserve}\ncharts:\n"
        "  - {name: kserve-crd, dest: crds, render: {fileName: '{name}.yaml', valuesFiles: [values.yaml]}}\n"
    )
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "chart kserve-crd: render.valuesFiles: values.yaml: a link out of the project")


def test_escape_sequences_in_rendered_text_reach_no_terminal(cli: Cli, project: Path, tmp_path: Path) -> None:
    """A chart's text (an object's name, an image, helm's error message: upstream's) holding
    ESC ... went to the terminal as written: OSC 52 writes the clipboard, CSI 2J clears the screen."""
    import shutil

    from conftest import ROOT

    shutil.copytree(ROOT / "hack", project / "hack")
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    manifest = (
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "x\\e]52;c;cHduZWQ=\\a"\n'
        "spec:\n  template:\n    spec:\n      containers:\n        - name: a\n"
        '          image: "evil.io/\\e[2Jimg:1"\n'
    )
    helm = tmp_path / "helm"
    helm.write_text(f"#!/bin/sh\ncat <<'EOF'\n{manifest}EOF\nprintf 'warn \\033[2J\\n' >&2\n")
    helm.chmod(0o755)
    failing = tmp_path / "failing-helm"
    failing.write_text("#!/bin/sh\nprintf 'Error: \\033[2J\\033]0;pwned\\007 boom\\n' >&2\nexit 1\n")
    failing.chmod(0o755)
    for shim in (helm, failing):
        for command in ("check-images", "check-manifests"):
            result = cli(project, command, "-v", "--helm", str(shim))
            assert result.returncode == 1, result.stderr
            shown = result.stdout + result.stderr
            assert "\x1b" not in shown and "\x07" not in shown, shown
            assert "\\x1b" in shown  # shown escaped


def test_an_escape_sequence_in_a_file_name_reaches_no_terminal(cli: Cli, project: Path) -> None:
    """verify's 'N file(s) differ: …' line printed a file name holding ESC as written."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    (project / "helm/kserve-crd/templates/x\x1b[2Jy.yaml").write_text("a: 1\n")
    result = cli(project, "verify")
    assert result.returncode == 1
    assert "\x1b" not in result.stderr and "templates/x\\x1b[2Jy.yaml" in result.stderr


def test_a_chart_file_linking_outside_the_project_is_never_read(cli: Cli, project: Path, tmp_path: Path) -> None:
    """helm/<chart>/templates/_helpers.tpl as a link to a text file elsewhere on the machine: verify
    and diff read it through the link and printed its lines (+token: …) in the diff."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    secret = tmp_path / "secret.txt"
    secret.write_text("token: not-for-a-ci-log\n")
    helpers = project / "helm/kserve-resources/templates/_helpers.tpl"
    helpers.unlink()
    helpers.symlink_to(secret)
    for command in ("verify", "diff", "generate", "adopt"):
        result = cli(
            project, command, *(["v0.20.0", "--source", str(tarball("v0.20.0")), "--force"] * (command == "adopt"))
        )
        assert_one_line_error(
            result, 2, f"error: helm/kserve-resources/templates/_helpers.tpl: a link to {secret}, outside the project"
        )
        assert "not-for-a-ci-log" not in result.stdout + result.stderr


def test_a_fifo_in_a_chart_folder_is_skipped_without_blocking(cli: Cli, project: Path) -> None:
    """A FIFO in helm/<chart>/ (nothing writes to it): reading the tree opens it without blocking
    and skips it as no file."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    os.mkfifo(project / "helm/kserve-crd/templates/pipe.yaml")
    from gsvendor.files import read_tree

    tree = read_tree(project, "helm/kserve-crd")
    assert (
        "templates/pipe.yaml" not in tree
        and tree["Chart.yaml"] == (project / "helm/kserve-crd/Chart.yaml").read_bytes()
    )


def _crd_with_nested_aliases(kind: str, levels: int = 9) -> str:
    """A CRD of ``kind`` whose spec.rolloutStrategy enum is ``levels`` lists of ten aliases of the
    list before: 10**levels values once expanded, a few hundred bytes written."""
    lines = [
        "apiVersion: apiextensions.k8s.io/v1",
        "kind: CustomResourceDefinition",
        "metadata: {name: x}",
        "spec:",
        "  names:",
        f"    kind: {kind}",
        "  versions:",
        "    - name: v1",
        "      schema:",
        "        openAPIV3Schema:",
        "          x-l0: &l0 [x, x, x, x, x, x, x, x, x, x]",
    ]
    lines += [f"          x-l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]" for n in range(1, levels)]
    lines += [
        "          properties:",
        "            spec:",
        "              properties:",
        "                rolloutStrategy:",
    ]
    lines += ["                  type: object", f"                  enum: *l{levels - 1}", ""]
    return "\n".join(lines)


def test_a_crd_whose_aliases_expand_a_billion_fold_is_refused_by_its_field_lookup() -> None:
    """The ${crd:…} variable and crd: conditions parsed a CRD with ruamel directly: the schema of
    a field made of nested aliases was copied value by value until memory ran out (MemoryError
    traceback after about 40 s under a 3 GB limit)."""
    from gsvendor.overlays.crdfield import crd_field_lookup
    from gsvendor.yamlio import YamlLimitError

    files = {
        "charts/kserve-llmisvc-crd/templates/x.yaml": _crd_with_nested_aliases("LLMInferenceServiceConfig").encode()
    }
    with pytest.raises(YamlLimitError, match=r"^charts/kserve-llmisvc-crd/templates/x\.yaml: its aliases expand"):
        crd_field_lookup(files)("LLMInferenceServiceConfig", "spec.rolloutStrategy")


def test_check_manifests_refuses_a_vendored_crd_whose_aliases_expand_a_billion_fold(cli: Cli, project: Path) -> None:
    """gsvendor.yaml's expectFailureWhile reads the vendored LLMInferenceServiceConfig CRD from helm/:
    a second document of that kind made of nested aliases is one error line naming it, exit 2."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    extra = project / "helm/kserve-llmisvc-crd/templates/zz-extra.yaml"
    extra.write_text(_crd_with_nested_aliases("LLMInferenceServiceConfig"))
    shutil.copytree(ROOT / "hack/check-images", project / "hack/check-images")  # the images section valid
    result = cli(project, "check-manifests", timeout=120)
    assert_one_line_error(result, 2, "error: helm/kserve-llmisvc-crd/templates/zz-extra.yaml: its aliases expand")


def test_an_overlay_pattern_that_backtracks_exponentially_is_stopped(cli: Cli, project: Path) -> None:
    """``find: '((\\w|\\w)+)+:\\s\\d{40}'`` with ``regex: true`` over kserve-resources' values.yaml
    (keys of words, no value of 40 digits): Python's re backtracked for minutes and sync never ended."""
    from gsvendor.config import MATCH_SECONDS

    (project / "overlays/99-pattern.yaml").write_text(
        "description: a pattern with nested repetition\n"
        "charts: [kserve-resources]\n"
        "operations:\n"
        "  - op: replace\n"
        "    description: a key before a value of 40 digits\n"
        "    file: values.yaml\n"
        "    regex: true\n"
        "    find: '((\\w|\\w)+)+:\\s\\d{40}'\n"
        "    with: x\n"
    )
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")), timeout=120)
    assert_one_line_error(
        result,
        2,
        "error: kserve-resources/values.yaml: overlay 99-pattern operations[0] (replace): "
        "/((\\w|\\w)+)+:\\s\\d{40}/ did not finish in "
        f"{MATCH_SECONDS:g} s (it backtracks exponentially",
    )
    assert not (project / "helm").exists()


def test_reading_a_chart_folder_stops_at_a_file_or_a_tree_past_the_upstream_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 33 MiB file in helm/<chart>/ (sparse: its size is refused before a byte is read), and a
    tree past the total (three 2-byte files under a 5-byte total): verify, diff, generate and adopt
    read them whole into memory, however large."""
    from gsvendor import files
    from gsvendor.errors import GsvendorError

    chart = tmp_path / "helm/demo"
    chart.mkdir(parents=True)
    with (chart / "big.yaml").open("wb") as handle:
        handle.truncate(33 * 1024 * 1024)
    with pytest.raises(GsvendorError, match=r"^helm/demo/big\.yaml: larger than 32 MiB$"):
        files.read_tree(tmp_path, "helm/demo")
    (chart / "big.yaml").unlink()
    for name in ("a", "b", "c"):
        (chart / name).write_bytes(b"x\n")
    assert files.read_tree(tmp_path, "helm/demo") == {"a": b"x\n", "b": b"x\n", "c": b"x\n"}
    monkeypatch.setattr(files, "MAX_TREE_BYTES", 5)
    with pytest.raises(GsvendorError, match=r"^helm/demo: its files hold more than 0 MiB$"):
        files.read_tree(tmp_path, "helm/demo")


def test_verify_names_a_file_with_a_line_feed_on_its_one_error_line(cli: Cli, project: Path) -> None:
    """helm/kserve-crd/templates/"a<LF>error: b.yaml": verify's error line was cut at the line feed,
    and "error: b.yaml" read as an error of its own."""
    assert cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0"))).returncode == 0
    (project / "helm/kserve-crd/templates/a\nerror: b.yaml").write_text("x: 1\n")
    result = cli(project, "verify")
    assert result.returncode == 1
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        "error: verify failed: 1 file(s) differ from v0.20.0 + overlays: helm/kserve-crd/templates/a\\x0aerror: b.yaml"
    ]


def test_each_problem_of_an_error_is_one_line_with_its_breaks_and_escapes_shown(capsys) -> None:
    """An error is data: its problems print one ``error:`` line each through the writer, a line
    feed, U+2028 or ESC inside one (a file name's) shown escaped, never a line or a colour of its own."""
    import pytest
    import typer

    from gsvendor.cli.app import handles_errors
    from gsvendor.errors import ConfigError

    error = ConfigError("helm/a\nb: bad [red]x[/]", "c\u2028d\x1b[31m: worse", file="gsvendor.yaml")

    @handles_errors
    def command() -> None:
        raise error

    with pytest.raises(typer.Exit) as exit_info:
        command()
    assert exit_info.value.exit_code == 2
    assert (error.code, error.file, str(error)) == (
        "config",
        "gsvendor.yaml",
        "helm/a\nb: bad [red]x[/]\nc\u2028d\x1b[31m: worse",
    )
    assert capsys.readouterr().err == "error: helm/a\\x0ab: bad [red]x[/]\nerror: c\\u2028d\\x1b[31m: worse\n"


def test_a_huge_source_name_is_cut_alike_in_the_json_error_document(cli: Cli, project: Path) -> None:
    """A 100 000-character ``--source`` was cut on the ``error:`` line but whole in ``--json``'s problems."""
    import json

    result = cli(project, "sync", "v1.0.0", "--json", "--source", "/nope/" + "a" * 100_000)
    assert_one_line_error(result, 2)
    [line] = result.stderr.splitlines()
    [problem] = json.loads(result.stdout)["error"]["problems"]
    assert len(problem) == 2001 and problem.endswith("a…") and line == f"error: {problem}"


def test_a_json_error_value_is_redacted_before_it_is_cut() -> None:
    """A password longer than the cut: cutting first left the user info without its ``@`` for redaction."""
    from gsvendor.errors import SourceError

    error = SourceError("x", value="https://user:" + "p" * 300 + "@example.invalid/kserve.tar.gz")
    assert error.as_json()["value"] == "https://example.invalid/kserve.tar.gz"
