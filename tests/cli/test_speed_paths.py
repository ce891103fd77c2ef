"""The fast paths give the bytes of the slow ones: trimmed diffs, whitespace normalisation, C-parsed YAML."""

from __future__ import annotations

import difflib
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsvendor.files import _normalize_lines, normalize_whitespace
from gsvendor.generate.golang import yaml_v3
from gsvendor.overlays import yamledit
from gsvendor.vendoring import compare

LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "  d: e\n", "ü\n", "x", "\n"]), max_size=40)


def _difflib(old: list[str], new: list[str]) -> list[str]:
    return list(difflib.unified_diff(old, new, fromfile="f", tofile="t"))


@settings(max_examples=500, deadline=None)
@given(LINES, LINES)
def test_trimmed_diff_is_difflibs_diff(old: list[str], new: list[str]) -> None:
    assert compare.unified_lines(old, new, "f", "t", trim_above=0) == _difflib(old, new)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=0, max_size=300, unique=True), st.data())
def test_trimmed_diff_of_a_local_edit(base: list[int], data: st.DataObject) -> None:
    """A long file with an edit somewhere: the trimmed path is taken and still gives difflib's text."""
    old = [f"line {n}\n" for n in base] + ["common\n"] * 3
    at = data.draw(st.integers(0, len(old)))
    cut = data.draw(st.integers(0, 5))
    added = data.draw(st.lists(st.sampled_from(["new 1\n", "new 2\n", "common\n"]), max_size=6))
    new = old[:at] + added + old[at + cut :]
    assert compare.unified_lines(old, new, "f", "t", trim_above=0) == _difflib(old, new)


def test_trimmed_diff_of_a_large_file_with_popular_lines() -> None:
    """autojunk's popularity is judged on the whole file, as difflib does."""
    old = [f"{n % 7}\n" if n % 3 else f"unique {n}\n" for n in range(5000)]
    new = old[:2500] + ["x\n", "y\n", "x\n"] * 30 + old[2510:]
    assert compare.unified_lines(old, new, "f", "t") == _difflib(old, new)
    new = old[:2500] + [f"z{n % 3}\n" for n in range(300)] + old[2500:]
    assert compare.unified_lines(old, new, "f", "t") == _difflib(old, new)


WHITESPACE_BYTES = st.lists(
    st.sampled_from([b"a", b"b", b" ", b"\t", b"\x0b", b"\x0c", b"\r", b"\n", b"\r\n", b"\xc3\xbc"])
)


@settings(max_examples=500, deadline=None)
@given(WHITESPACE_BYTES)
def test_fast_whitespace_normalisation_is_the_line_loop(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert normalize_whitespace(data) == _normalize_lines(data)


def test_clean_files_are_returned_as_they_are() -> None:
    for data in (b"a\n", b"a: b\n  c: d\n", b"a\r\nb\r\n", b"\xc3\xbc\n"):
        assert normalize_whitespace(data) is data


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["0\n", "1\n", "2\n", "unique\n"]), min_size=200, max_size=260),
    st.integers(0, 260),
    st.integers(0, 3),
    st.lists(st.sampled_from(["1\n", "2\n", "x\n", "y\n"]), max_size=4),
)
def test_trimmed_diff_where_autojunk_calls_lines_popular(base: list[str], at: int, cut: int, added: list[str]) -> None:
    """Files of 200 lines or more: difflib ignores popular lines when it looks for matches."""
    old = [line if line != "unique\n" else f"unique {n}\n" for n, line in enumerate(base)]
    new = old[:at] + added + old[at + cut :]
    for one, other in ((old, new), (new, old)):
        assert compare.unified_lines(one, other, "f", "t", trim_above=0) == _difflib(one, other)


# YAML-ish text: keys, values, indentation, flow, quotes, block scalars, anchors, comments, non-ASCII
YAML_PIECES = st.lists(
    st.sampled_from(
        [
            *("a", "ü", "😀", "k: ", "k:", ":", " ", "  ", "\n", "- ", "-", "[", "]", "{", "}", ", ", "'", '"', "|"),
            *(">-", "&x ", "*x", "# c", " #ü", "? ", "---\n", "...\n", "!!str ", "\\\\", "1", "null", "~", "\r\n"),
            *("\t", "\u2028", "\x85", "\ufeff", "%YAML 1.2\n", "é"),
        ]
    ),
    max_size=30,
)


def _event_keys(events: list) -> list[tuple]:
    """What yaml_v3's builder reads of each event (it reads no marks of document and stream ends)."""
    keys: list[tuple] = []
    for event in events:
        name = type(event).__name__
        if name in ("DocumentEndEvent", "StreamEndEvent", "StreamStartEvent"):
            keys.append((name,))
            continue
        start, end = event.start_mark, event.end_mark
        value, style, tag = (
            getattr(event, "value", None),
            getattr(event, "style", None) or None,
            getattr(event, "tag", None),
        )
        flow = bool(getattr(event, "flow_style", None))
        keys.append((name, value, style, tag, getattr(event, "anchor", None), flow))
        keys.append((start.line, start.column, start.index, end.line, end.column, end.index))
    return keys


@settings(max_examples=400, deadline=None)
@given(YAML_PIECES)
def test_libyaml_events_are_ruamels_events(pieces: list[str]) -> None:
    """Where yaml_v3 takes libyaml's events they are ruamel's, marks (character offsets) included."""
    text = "".join(pieces).replace("\r\n", "\n")
    fast = yaml_v3._c_events(text)
    builder = yaml_v3._Builder(text)
    try:
        builder.load_events_pure()
    except yaml_v3.YAMLError:
        assert fast is None  # the error is ruamel's to word
        return
    if fast is not None:
        assert _event_keys(fast) == _event_keys(builder.events)


def _node_keys(node, out: list) -> list:
    kind = type(node).__name__
    style = (node.style or None) if kind == "ScalarNode" else node.flow_style
    value = node.value if kind == "ScalarNode" else None
    out.append((kind, node.tag, value, style, node.start_mark.index, node.start_mark.column))
    out.append((node.end_mark.index, node.end_mark.column))
    children = node.value if kind != "ScalarNode" else []
    for child in children:
        for part in child if isinstance(child, tuple) else (child,):
            _node_keys(part, out)
    return out


@settings(max_examples=400, deadline=None)
@given(YAML_PIECES)
@example(["|", "\n", "...\n"])  # a root block scalar: libyaml ends it elsewhere
@example(["# c", "---\n", "|", " ", "# c"])  # ruamel's composer trips on an assertion: a YamlEditError
@example(["k: ", "# c", "\u2028", "a", "\n", "\x85"])  # ruamel's parser: NotImplementedError moving a comment
def test_libyaml_composed_marks_are_ruamels(pieces: list[str]) -> None:
    """The YAML editor's nodes have ruamel's character marks, libyaml composing or not."""
    text = "".join(pieces)
    try:
        slow = yamledit.compose_pure(text)
    except yamledit.YamlEditError:
        return
    fast = yamledit._compose(text)
    if fast is None or slow is None:
        assert fast is slow
        return
    assert _node_keys(fast, []) == _node_keys(slow, [])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "ü", "b c", "😀"]), st.sampled_from(["x", "ö ü", "", "1"]), min_size=1))
def test_yaml_edits_are_the_same_with_either_composer(values: dict[str, str]) -> None:
    text = "# héllo\n" + yamledit.render_block({"top": values, "ünï": {"k": "v"}}, 0) + "\n# tail\n"
    fast = yamledit.set_value(text, "/ünï/new", "😀")
    yamledit_compose = yamledit._compose
    try:
        yamledit._compose = yamledit.compose_pure
        slow = yamledit.set_value(text, "/ünï/new", "😀")
    finally:
        yamledit._compose = yamledit_compose
    assert fast == slow


def test_a_lock_with_go_mod_and_no_commit_is_written_as_plain_block_yaml() -> None:
    from gsvendor.vendoring import lock

    document = {"source": {"kind": "tarball", "commit": None}, "goMod": {"go": "1.25.8", "toolchain": None}}
    assert (
        lock.render(document).decode()
        == lock.HEADER + "source:\n  kind: tarball\n  commit: null\ngoMod:\n  go: 1.25.8\n  toolchain: null\n"
    )


# --- validation stamps and the libyaml loader of user files -------------------------


def test_a_stamped_file_is_loaded_without_jsonschema_and_as_the_round_trip_gives_it(tmp_path) -> None:
    """The second load of a valid file reads its stamp: no jsonschema import, the same data and lines."""
    import subprocess
    import sys

    from gsvendor.config import load_config

    project = tmp_path / "p"
    project.mkdir()
    (project / "overlays").mkdir()
    config = project / "gsvendor.yaml"
    config.write_text(
        "upstream:\n  repository: kserve/kserve\ncharts:\n  - name: kserve-crd\n  - {name: x, dest: out/x}\n"
    )
    stamps = tmp_path / "stamps"
    first = load_config(config, stamps=stamps)
    assert len(list(stamps.iterdir())) == 1
    second = load_config(config, stamps=stamps)
    assert second.raw == first.raw and second.charts == first.charts
    assert second.source is not None and second.source._document is None  # no round-trip parse yet
    assert second.source.line_of(["charts", 1, "dest"]) == 5 == first.source.line_of(["charts", 1, "dest"])
    probe = (
        "import sys; from pathlib import Path; from gsvendor.config import load_config; "
        f"load_config(Path({str(config)!r}), stamps=Path({str(stamps)!r})); "
        "print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"


def test_an_edited_file_is_validated_again_and_an_invalid_one_gets_no_stamp(tmp_path, monkeypatch) -> None:

    from gsvendor.config import load_config
    from gsvendor.errors import ConfigError

    config = tmp_path / "gsvendor.yaml"
    (tmp_path / "overlays").mkdir()
    config.write_text("upstream:\n  repository: kserve/kserve\ncharts: [kserve-crd]\n")
    stamps = tmp_path / "stamps"
    load_config(config, stamps=stamps)
    config.write_text("upstream:\n  repository: kserve/kserve\ncharts: [kserve-crd]\nsurprise: 1\n")
    monkeypatch.chdir(tmp_path)  # the file is named by its name
    with pytest.raises(ConfigError, match=r"^gsvendor.yaml:4: surprise: unknown key 'surprise'"):
        load_config(config, stamps=stamps)
    assert len(list(stamps.iterdir())) == 1  # the first text's stamp only


def test_an_unwritable_stamp_folder_costs_only_the_stamp(tmp_path) -> None:
    from gsvendor.config import load_config

    config = tmp_path / "gsvendor.yaml"
    (tmp_path / "overlays").mkdir()
    config.write_text("upstream:\n  repository: kserve/kserve\ncharts: [kserve-crd]\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert load_config(config, stamps=blocker / "stamps").charts[0].name == "kserve-crd"


@pytest.mark.parametrize(
    ("text", "holds_data"),
    [
        ("a: 1\nb: [x, 2.5, true, null]\nc: {d: -0.0}\n", True),
        ("a: 2001-12-14\n", False),  # a date: JSON would give back a string
        ("a: .inf\n", False),
        ("1: one\n", True),  # keys are strings in plain data
    ],
)
def test_a_stamp_holds_the_data_when_json_gives_it_back_exactly(tmp_path, text: str, holds_data: bool) -> None:
    """The second load reads the stamp's JSON (no YAML parse); data JSON would change is parsed again."""
    from gsvendor.stamps import read_stamp
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text(text)
    stamps = tmp_path / "stamps"
    first = load_validated(file, {"type": "object"}, "f.yaml", stamps)
    (stamp,) = stamps.iterdir()
    assert read_stamp(stamp) == ({"data": first.data} if holds_data else {})
    second = load_validated(file, {"type": "object"}, "f.yaml", stamps)
    assert second._document is None
    assert second.data == first.data
    assert [type(v) for v in second.data.values()] == [type(v) for v in first.data.values()]


@pytest.mark.parametrize("content", [b"", b"{not json", b"[1]", b'{"data": 1, "more": 2}', b'"x"'])
def test_a_stamp_that_is_not_a_data_object_is_no_stamp(tmp_path, content: bytes) -> None:
    """An old empty stamp, a torn write or a planted oddity: the file is parsed and validated again."""
    import json

    from gsvendor.stamps import framed, read_stamp, stamp_path
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text("a: 1\n")
    stamp = stamp_path(tmp_path / "stamps", json.dumps({"type": "object"}, sort_keys=True), "a: 1\n")
    stamp.parent.mkdir()
    stamp.write_text(framed(content.decode()))
    loaded = load_validated(file, {"type": "object"}, "f.yaml", tmp_path / "stamps")
    assert loaded.data == {"a": 1} and loaded._document is not None
    assert read_stamp(stamp) == {"data": {"a": 1}}  # written again


def test_the_lock_is_parsed_once_per_text(tmp_path) -> None:
    """``lock.read`` with a stamps folder keeps the parsed lock; the next read of the same text loads JSON."""
    from gsvendor.stamps import read_stamp
    from gsvendor.vendoring import lock

    path = tmp_path / "gsvendor.lock.yaml"
    path.write_text(
        "kind: Lock\ntag: v0.20.0\nsource:\n  kind: tarball\n  location: x.tar.gz\n"
        "  sha256: " + "ab" * 32 + "\ncharts: {}\n"
    )
    stamps = tmp_path / "stamps"
    first = lock.read(path, stamps)
    (stamp,) = stamps.iterdir()
    assert read_stamp(stamp)["data"]["source"]["sha256"] == "ab" * 32
    assert lock.read(path, stamps) == first == lock.read(path)
    path.write_text(path.read_text().replace("v0.20.0", "v0.19.0"))
    assert lock.read(path, stamps).tag == "v0.19.0"
    assert len(list(stamps.iterdir())) == 2


PLAIN_YAML = [
    "a: yes\nb: 0777\nc: 0o17\nd: 1:20\ne: ~\nf: .inf\ng: 2001-12-14\nh: '1.0'\ni: 1_000\n",
    "<<: {a: 1}\nb: &x [1, 2]\nc: *x\nd: '3'\ne: |\n  text\n  ü\nf: >-\n  folded\n  line\n",
    "k: \"\\u00fc\\t\"\nl: 'it''s'\nm: -.5\nn: 0x1F\no: +1\np: null\nq: False\n",
]


@pytest.mark.parametrize("text", PLAIN_YAML)
def test_libyaml_plain_data_is_the_round_trip_data(text: str) -> None:
    from gsvendor.yamlio import _parse_round_trip, load_plain, to_plain

    assert to_plain(load_plain(text)) == to_plain(_parse_round_trip(text, "t"))


@pytest.mark.parametrize("text", [*PLAIN_YAML, "a: &x [1, 2]\nb: *x\n", "{a: 1, a: 2}\n", "- [\n", "a: 1\n---\nb: 2\n"])
def test_libyaml_plain_data_is_what_yaml_safe_load_gives(text: str) -> None:
    """load_plain's loader (its class made once) gives what ``YAML(typ="safe").load`` gives, or raises as it does."""
    from ruamel.yaml import YAML

    from gsvendor.yamlio import load_plain

    try:
        expected: object = YAML(typ="safe").load(text)
    except Exception as exc:
        expected = type(exc)
    try:
        got: object = load_plain(text)
    except Exception as exc:
        got = type(exc)
    assert got == expected
    assert repr(got) == repr(expected)  # the same types: 1 vs 1.0 vs "1", True vs 1


def test_a_file_with_explicit_tags_is_never_read_by_libyaml_alone(tmp_path) -> None:
    """``!!str 3`` is a TaggedScalar round-trip and "3" to libyaml: such files always take the full path."""
    from gsvendor.yamlio import load_validated

    file = tmp_path / "f.yaml"
    file.write_text("a: !!str 3\n")
    stamps = tmp_path / "stamps"
    load_validated(file, {"type": "object"}, "f.yaml", stamps)
    assert len(list(stamps.iterdir())) == 1
    assert load_validated(file, {"type": "object"}, "f.yaml", stamps)._document is not None


def test_every_yaml_file_of_the_project_loads_alike_either_way() -> None:
    from pathlib import Path

    from gsvendor.yamlio import _parse_round_trip, load_plain, to_plain

    root = Path(__file__).resolve().parents[2]
    files = [root / "gsvendor.yaml", *sorted((root / "overlays").glob("*.yaml"))]
    files += sorted(root.glob("examples/**/*.yaml"))
    assert len(files) > 10
    for file in files:
        text = file.read_text()
        assert to_plain(load_plain(text)) == to_plain(_parse_round_trip(text, str(file))), file


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=20), st.booleans())
def test_go_json_quote_fast_path_is_the_character_loop(text: str, escape_html: bool) -> None:
    from gsvendor.generate.golang.encoding_json import _quote_chars, quote

    assert quote(text, escape_html) == _quote_chars(text, escape_html)
    assert quote(text + "<\u2028\ud800", escape_html) == _quote_chars(text + "<\u2028\ud800", escape_html)


def test_generate_parses_values_yaml_once_and_writes_what_two_parses_write(monkeypatch) -> None:
    """The schema and the README share values.yaml's tree; the bytes are those of separate parses."""
    from gsvendor.generate import chart
    from gsvendor.generate.golang import yaml_v3
    from gsvendor.generate.readme.template import render_readme
    from gsvendor.generate.schema.output import generate_schema

    values = b"# -- replicas of the controller\nreplicas: 1\nimage:\n  # @ignore\n  tag: x\n  repository: r\n"
    files = {
        "Chart.yaml": b"apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "values.yaml": values,
        ".schema.yaml": b"values: [values.yaml]\noutput: values.schema.json\n",
        "README.md.gotmpl": b'{{ template "chart.valuesTable" . }}\n',
    }
    path, schema = generate_schema(files, "/c")  # each parses values.yaml itself
    separate = {**files, path: schema, "README.md": render_readme({**files, path: schema}, chart_dir="/c")}
    calls: list[bytes] = []
    real = yaml_v3.parse

    def counting(text):
        calls.append(text if isinstance(text, bytes) else text.encode())
        return real(text)

    monkeypatch.setattr(yaml_v3, "parse", counting)
    shared = chart.generate_chart(files, chart_dir="/c")
    assert calls.count(values) == 1
    assert shared == separate and set(shared) == {*files, "values.schema.json", "README.md"}
    assert b"| replicas | int | `1` | replicas of the controller |" in shared["README.md"]


@settings(max_examples=500, deadline=None)
@given(WHITESPACE_BYTES)
def test_whitespace_normalisation_is_idempotent(parts: list[bytes]) -> None:
    """What the lock's result digests may skip: a file sync wrote is its own normalisation."""
    once = normalize_whitespace(b"".join(parts))
    assert normalize_whitespace(once) == once


@pytest.mark.parametrize("tag", ["v0.19.0", "v0.20.0-rc1", "v0.20.0"])
def test_the_members_read_are_tarfiles_bytes(tag: str) -> None:
    """Every wanted member's bytes as tarfile extracts them."""
    from conftest import tarball, upstream_files

    from gsvendor.upstream import tarball as tarball_kind
    from gsvendor.upstream.source import Wanted

    expected = upstream_files(tag, "charts/")
    snapshot = tarball_kind.read_tarball(
        tarball(tag).read_bytes(), tag, Wanted(folders=("charts",)), kind="tarball", location="x"
    )
    assert snapshot.files == {f"charts/{path}": data for path, data in expected.items()}
    assert len(snapshot.files) > 100


# --------------------------------------------------------------------------------------------
# check-images: documents scanned with libyaml.


def _ruamel_scan(manifests: str) -> tuple:
    """check-images' document scan as it was before the fast paths: split_documents and ruamel's loader."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from gsvendor.images import documents as docs
    from gsvendor.images.find import Skipped, configmap_references, manifest_references
    from gsvendor.yamlio import invalid_yaml

    found, skipped, documents, crds = [], [], 0, 0
    for chunk in docs.split_documents(manifests):
        if not docs.CONTENT.search(chunk):
            continue
        documents += 1
        if docs.CRD_KIND.search(chunk):
            crds += 1
            continue
        if not docs._MENTIONS_IMAGE.search(chunk) and not docs._CONFIGMAP.search(chunk):
            continue
        match = docs._SOURCE.search(chunk)
        source = match.group(1).strip() if match else None
        try:
            parsed = [d for d in YAML(typ="safe").load_all(chunk) if isinstance(d, dict)]
        except YAMLError as exc:
            skipped.append(Skipped(source or "?", "(document)", invalid_yaml(exc, f"rendered {source or 'document'}")))
            continue
        for document in parsed:
            found.extend(manifest_references(document, source))
            if document.get("kind") == "ConfigMap":
                more, skip = configmap_references(document)
                found.extend(more)
                skipped.extend(skip)
    return found, skipped, documents, crds


@pytest.fixture(scope="module")
def rendered_project(tmp_path_factory: pytest.TempPathFactory):
    """Every chart × variant check-images renders of this repository synced at v0.20.0, with the real helm."""
    import shutil

    from conftest import ROOT, Cli, tarball

    from gsvendor.config import load_config
    from gsvendor.images import render as rendering
    from gsvendor.images import variants
    from gsvendor.images.render import find_helm

    project = tmp_path_factory.mktemp("speed-images") / "project"
    project.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", project / "gsvendor.yaml")
    for folder in ("overlays", "hack"):
        shutil.copytree(ROOT / folder, project / folder)
    result = Cli(tmp_path_factory.mktemp("cache"))(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert result.returncode == 0, result.stderr
    config = load_config(project / "gsvendor.yaml")
    charts = variants.chart_targets([], config)
    return charts, rendering.render_charts(charts, variants.images_config(config), find_helm(project_root=ROOT))


def test_the_scan_of_every_render_finds_what_the_ruamel_scan_finds(rendered_project) -> None:
    from gsvendor.images import documents

    _, rendering = rendered_project
    images = []
    for rendered in rendering.variants:
        fast = documents.scan_manifests(rendered.manifests)
        assert fast == _ruamel_scan(rendered.manifests)
        assert fast == documents.scan_manifests(rendered.manifests, documents.split_documents(rendered.manifests))
        images += [found.written for found in fast[0]]
    by_variant = {(r.chart.name, r.variant.name): documents.scan_manifests(r.manifests)[2:] for r in rendering.variants}
    assert by_variant[("kserve-crd", "defaults")] == (6, 6)  # documents, CRDs
    assert by_variant[("kserve-llmisvc-crd", "defaults")] == (3, 3)
    assert "gsoci.azurecr.io/giantswarm/kserve-controller:v0.20.0" in images
    assert (len(images), len(set(images))) == (56, 15)


STREAM_PIECES = st.lists(
    st.sampled_from(
        [
            *("---", "----", "--- x", "---#", "\n", "\r", " ", "\t", "#", "# Source: c/t.yaml", "x", "-"),
            *("kind: CustomResourceDefinition", "kind: ConfigMap", "kind: 'ConfigMap'", "image: i", "IMAGE"),
            *('data: {a: \'{"image": "j"}\'}', "metadata: {name: n}", "a: [", "..."),
        ]
    ),
    max_size=40,
)


@settings(max_examples=2000, deadline=None)
@given(STREAM_PIECES)
@example(["---", " ", "kind: ConfigMap"])
@example(["---", "# Source: c/t.yaml", "\n", "image: i"])
@example(["----", "\n", "image: i"])
def test_the_libyaml_scan_finds_what_the_ruamel_scan_finds(pieces: list[str]) -> None:
    from gsvendor.images import documents

    stream = "".join(pieces)
    assert documents.scan_manifests(stream) == _ruamel_scan(stream)


def test_helm_output_read_from_files_is_what_text_mode_pipes_give(tmp_path) -> None:
    """render.template reads helm's output from files; the text is subprocess' text=True text, carriage
    returns (universal newlines) and non-ASCII included, and so is helm's error."""
    import subprocess

    from conftest import ROOT

    from gsvendor.images import render

    helm = render.find_helm(project_root=ROOT)
    chart = tmp_path / "crlf"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: crlf\nversion: 1.0.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\nmetadata: {name: c}\ndata:\n  raw: |\n    {{ .Values.raw }}\n  ü: 😀\n"
        '{{ if .Values.fail }}{{ fail "nö\\r\\ngood" }}{{ end }}\n'
    )
    crlf = 'raw="a\\r\\n    b\\r    c"'  # line breaks YAML reads, each line indented in the block scalar
    for sets in ([crlf], ['raw="plain"'], ['raw="x"', "fail=true"]):
        args = [helm, "template", "release", str(chart), "--namespace", "default"]
        for expression in sets:
            args += ["--set-json", expression]
        piped = subprocess.run(args, capture_output=True, text=True, check=False)
        rendered = render.template(helm, chart, set_json=sets, prepared=True)
        if piped.returncode == 0:
            assert rendered == render.Rendered(piped.stdout)
        else:
            assert rendered.manifests == piped.stdout
            assert rendered.error == re.sub(r"\s+", " ", piped.stderr.strip())
    assert "    a\n    b\n    c\n" in render.template(helm, chart, set_json=[crlf], prepared=True).manifests
