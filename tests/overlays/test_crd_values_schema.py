"""A values schema taken from a vendored CRD: ``${crd:<Kind>:<field>}`` in an overlay expands to the
field's schema as a values JSON schema, and overlay 60 writes the rolloutStrategy annotation from
the LLMInferenceServiceConfig CRD once it has ``spec.rolloutStrategy``."""

from __future__ import annotations

import json
import tarfile
import textwrap
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT, Cli, tarball
from ruamel.yaml import YAML
from upgradekit import LATEST, ROLLOUT_STRATEGY, later_archive

from gsvendor.errors import OverlayApplyError, OverlayDefinitionError
from gsvendor.overlays.crdfield import values_schema
from gsvendor.overlays.engine import apply_overlays, load_overlays

CRD = b"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  names:
    kind: Widget
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                mode:
                  description: How it runs.
                  type: string
                  enum: [fast, safe]
"""

OVERLAY = """\
operations:
  - op: replace
    crd: {kind: Widget, field: spec.mode, present: true}
    file: values.yaml
    find: "mode: fast\\n"
    with: "mode: fast  # @schema allOf: [${crd:Widget:spec.mode}]\\n"
"""


def overlays(tmp_path: Path, text: str) -> list:
    folder = tmp_path / "overlays"
    folder.mkdir(parents=True)
    (folder / "a.yaml").write_text(textwrap.dedent(text))
    return load_overlays(folder)


def test_the_variable_expands_to_the_crd_field_as_a_values_schema(tmp_path: Path) -> None:
    files = {"values.yaml": b"mode: fast\n", "templates/crd.yaml": CRD}
    result = apply_overlays("demo", files, overlays(tmp_path, OVERLAY), "v1")
    assert (
        result.files["values.yaml"] == b'mode: fast  # @schema allOf: [{"type": "string", "enum": ["fast", "safe"]}]\n'
    )


def test_a_field_the_crd_lacks_fails_naming_it(tmp_path: Path) -> None:
    unconditioned = OVERLAY.replace("    crd: {kind: Widget, field: spec.mode, present: true}\n", "")
    files = {"values.yaml": b"mode: fast\n", "templates/crd.yaml": CRD.replace(b"mode:", b"other:")}
    with pytest.raises(OverlayApplyError) as error:
        apply_overlays("demo", files, overlays(tmp_path, unconditioned), "v1")
    assert str(error.value) == (
        "demo/values.yaml: overlay a operations[0] (replace): ${crd:Widget:spec.mode}: the vendored Widget CRD "
        "has no spec.mode (condition the operation on it with crd)"
    )
    assert error.value.exit_code == 1
    # the condition skips it instead
    result = apply_overlays("demo", files, overlays(tmp_path / "conditioned", OVERLAY), "v1")
    assert result.files["values.yaml"] == b"mode: fast\n" and result.skipped == [
        "a operations[0] (replace) (only where the Widget CRD has spec.mode)"
    ]


@pytest.mark.parametrize("name", ["crd:Widget", "crd::spec.mode", "crd:Widget:spec..mode"])
def test_a_malformed_crd_variable_is_a_definition_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(OverlayDefinitionError) as error:
        overlays(tmp_path, OVERLAY.replace("${crd:Widget:spec.mode}", "${" + name + "}"))
    assert error.value.exit_code == 2
    assert f"unknown variable ${{{name}}} (known: tag, version, chart, crd:<Kind>:<field>)" in str(error.value)


def test_values_schema_of_kubernetes_extensions() -> None:
    rollout = YAML(typ="safe").load(textwrap.dedent(ROLLOUT_STRATEGY))["rolloutStrategy"]
    int_or_string = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert values_schema(rollout) == {
        "properties": {"maxSurge": int_or_string, "maxUnavailable": int_or_string},
        "type": "object",
        "additionalProperties": False,
    }
    # a field named like a keyword stays; int-or-string without anyOf gets one; a preserved subtree stays open
    assert values_schema(
        {
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "text"},
                "port": {"x-kubernetes-int-or-string": True},
                "extra": {"type": "object", "properties": {"a": {}}, "x-kubernetes-preserve-unknown-fields": True},
            },
        }
    ) == {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "port": int_or_string,
            "extra": {"type": "object", "properties": {"a": {}}},
        },
        "additionalProperties": False,
    }


def rollout_schema(project: Path) -> tuple[str, dict]:
    """The rolloutStrategy line of the synced values.yaml and its node of the generated values.schema.json."""
    chart = project / "helm/kserve-runtime-configs"
    [line] = [x for x in (chart / "values.yaml").read_text().splitlines() if x.startswith("    rolloutStrategy: ")]
    schema = json.loads((chart / "values.schema.json").read_text())
    node = schema["properties"]["kserve"]["properties"]["llmisvcConfigs"]["properties"]["rolloutStrategy"]
    return line, {k: v for k, v in node.items() if k != "description"}


def errors(schema: dict, value: object) -> list[str]:
    return [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(value)]


def test_the_rollout_strategy_schema_follows_the_vendored_crd(cli: Cli, project: Path, tmp_path: Path) -> None:
    synced = cli(project, "sync", LATEST, "--source", str(tarball(LATEST)))
    assert synced.returncode == 0, synced.stderr
    line, hand = rollout_schema(project)
    # the latest archive's CRD: the overlay's own annotation stays (setting the value fails rendering there)
    declared = (ROOT / "overlays/60-runtime-configs.yaml").read_text()
    assert line.split("  # @schema ", 1)[1] in declared and "${crd:" not in line
    assert errors(hand, {"maxSurge": 0}) == [] and errors(hand, {"type": "RollingUpdate"}) != []

    with tarfile.open(tarball(LATEST)) as archive:
        archive.extractall(tmp_path / "latest", filter="data")
    [tree] = (tmp_path / "latest").iterdir()
    archive_path = later_archive(tree, tmp_path, "v0.21.0", rollout_strategy=True)
    upgraded = cli(project, "sync", "v0.21.0", "--source", str(archive_path))
    assert upgraded.returncode == 0, upgraded.stderr
    line, schema = rollout_schema(project)
    crd = values_schema(YAML(typ="safe").load(textwrap.dedent(ROLLOUT_STRATEGY))["rolloutStrategy"])
    assert line == f"    rolloutStrategy: {{}}  # @schema additionalProperties: true; allOf: [{json.dumps(crd)}]"
    assert schema == {"allOf": [crd], "additionalProperties": True}
    assert errors(schema, {"maxSurge": 0, "maxUnavailable": "25%"}) == []
    assert errors(schema, {"type": "RollingUpdate"}) == [
        "Additional properties are not allowed ('type' was unexpected)"
    ]
    assert errors(schema, {"maxSurge": 1.5}) == ["1.5 is not valid under any of the given schemas"]


def test_a_crd_field_variable_stays_one_line_when_the_schema_holds_unicode_line_breaks() -> None:
    """An enum value "a<U+2028>b: 1" in the CRD's field: json.dumps kept U+2028 (and NEL, U+2029) as
    written, and the ``# @schema`` comment it expands into broke there, "b: 1" a values key for YAML."""
    from gsvendor.overlays.crdfield import crd_variable

    schema = {"type": "string", "enum": ["a\u2028b: 1", "c\x85d", "e\u2029f", "é"]}
    out = crd_variable("crd:Kind:spec.field", lambda kind, field: schema)
    assert out == '{"type": "string", "enum": ["a\\u2028b: 1", "c\\u0085d", "e\\u2029f", "é"]}'
    assert json.loads(out) == schema


@pytest.mark.parametrize(
    "versions", ["abc", "[1]", "[{name: v1, schema: 5}]", "[{name: v1, schema: {openAPIV3Schema: {properties: [a]}}}]"]
)
def test_a_crd_whose_versions_are_not_mappings_is_one_error_naming_its_file(versions: str) -> None:
    """A malformed CRD read for a ``crd:`` condition is a source error naming it, not an AttributeError."""
    from gsvendor.errors import SourceError
    from gsvendor.overlays.crdfield import crd_field_lookup

    crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ws.x.io\n"
        "spec:\n  group: x.io\n  names:\n    kind: Widget\n    plural: ws\n  scope: Namespaced\n"
        f"  versions: {versions}\n"
    )
    lookup = crd_field_lookup({"crds/w.yaml": crd.encode()})
    with pytest.raises(SourceError) as error:
        lookup("Widget", "spec.size")
    assert str(error.value).startswith("crds/w.yaml: the CustomResourceDefinition of Widget is malformed: ")
    assert error.value.exit_code == 2


def test_a_crd_field_answer_is_kept_per_crd_text_and_a_changed_crd_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer of a lookup is kept in the stamps folder under the CRD's text and gsvendor's code, so an
    unchanged CRD is not parsed again and a changed one (or changed code) is; a damaged answer is read past."""
    from gsvendor.overlays import crdfield
    from gsvendor.overlays.crdfield import crd_field_lookup
    from gsvendor.stamps import framed, read_stamp

    stamps = tmp_path / "stamps"
    mode = {"type": "string", "enum": ["fast", "safe"], "description": "How it runs."}
    assert crd_field_lookup({"w.yaml": CRD}, stamps)("Widget", "spec.mode") == mode
    (kept,) = stamps.iterdir()
    assert read_stamp(kept) == {"data": {"schema": mode}}
    kept.write_text(framed('{"data": {"schema": {"type": "integer"}}}'))  # what the folder holds is answered
    assert crd_field_lookup({"w.yaml": CRD}, stamps)("Widget", "spec.mode") == {"type": "integer"}
    renamed = CRD.replace(b"mode:\n", b"speed:\n")
    assert crd_field_lookup({"w.yaml": renamed}, stamps)("Widget", "spec.mode") is None
    assert len(list(stamps.iterdir())) == 2
    for damaged in ("[damaged", '{"data": {"schema": "string"}}', '{"data": {"schema": [1]}}', '{"data": {}}'):
        kept.write_text(framed(damaged))
        assert crd_field_lookup({"w.yaml": CRD}, stamps)("Widget", "spec.mode") == mode
    kept.write_text(framed('{"data": {"schema": {"type": "integer"}}}'))
    monkeypatch.setattr(crdfield, "code_version", lambda: "0" * 64)  # another gsvendor: the answer is made again
    assert crd_field_lookup({"w.yaml": CRD}, stamps)("Widget", "spec.mode") == mode
    assert len(list(stamps.iterdir())) == 3


@pytest.mark.parametrize(
    "variant",
    [
        CRD.replace(b"    kind: Widget\n", b'    kind: "Widget"\n'),
        CRD.replace(b"\n", b"\r\n"),
        CRD.replace(b"    kind: Widget\n", b"    kind: Widget \n"),
    ],
    ids=["quoted", "crlf", "trailing-blank"],
)
def test_a_crd_written_otherwise_is_still_found(variant: bytes) -> None:
    """A CRD whose kind is quoted, with CRLF line ends or a blank after the kind was not found: every field
    read as absent, so a ``present: false`` operation applied where the field is there."""
    from gsvendor.overlays.crdfield import crd_field_lookup

    schema = crd_field_lookup({"crds/w.yaml": variant})("Widget", "spec.mode")
    assert schema == {"description": "How it runs.", "type": "string", "enum": ["fast", "safe"]}


def test_a_date_in_a_crd_field_schema_is_written_as_its_text() -> None:
    """A ``default: 2024-01-01`` in the CRD (a date to YAML) stopped the expansion with a TypeError traceback."""
    import datetime

    from gsvendor.overlays.crdfield import crd_variable

    schema = {"type": "string", "default": datetime.date(2024, 1, 1)}
    assert (
        crd_variable("crd:Kind:spec.field", lambda kind, field: schema) == '{"type": "string", "default": "2024-01-01"}'
    )
