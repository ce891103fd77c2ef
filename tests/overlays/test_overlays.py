"""The overlay engine: each operation, scoping by chart and version, and loud failures."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gsvendor.errors import OverlayApplyError, OverlayDefinitionError
from gsvendor.overlays.engine import apply_overlays, in_range, load_overlays

FILES = {
    "Chart.yaml": b"name: demo\nappVersion: v0.1.0\n",
    "values.yaml": b"kserve:\n  version: v0.1.0\n",
    "templates/a.yaml": b"namespace: kserve\nimage: docker.io/x\n",
    "templates/b.yaml": b"namespace: kserve\n",
}


def overlays_from(tmp_path: Path, **files: str) -> list:
    folder = tmp_path / "overlays"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        target = folder / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return load_overlays(folder)


def test_yaml_set_with_tag_variables(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "a.yaml": """
            operations:
              - op: yaml-set
                file: Chart.yaml
                values: {/appVersion: "${tag}", /name: "${chart}-${version}"}
            """
        },
    )
    result = apply_overlays("demo", FILES, overlays, "v0.20.0-rc1")
    assert result.files["Chart.yaml"] == b"name: demo-0.20.0-rc1\nappVersion: v0.20.0-rc1\n"
    assert [(a.overlay, a.operation, a.files) for a in result.applied] == [
        ("a", "operations[0] (yaml-set)", ("Chart.yaml",))
    ]


def test_replace_over_glob_with_count(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "a.yaml": """
            operations:
              - op: replace
                glob: "templates/*.yaml"
                find: "namespace: kserve"
                with: "namespace: {{ .Release.Namespace }}"
            """
        },
    )
    result = apply_overlays("demo", FILES, overlays, "v1.0.0")
    assert result.files["templates/a.yaml"] == b"namespace: {{ .Release.Namespace }}\nimage: docker.io/x\n"
    assert result.files["templates/b.yaml"] == b"namespace: {{ .Release.Namespace }}\n"
    assert result.applied[0].files == ("templates/a.yaml", "templates/b.yaml")


def test_anchor_gone_fails_loudly_naming_everything(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "gone.yaml": """
            operations:
              - op: insert-after
                file: templates/a.yaml
                anchor: "image: quay.io/x\\n"
                text: "x: 1\\n"
            """
        },
    )
    with pytest.raises(OverlayApplyError) as error:
        apply_overlays("demo", FILES, overlays, "v1.0.0")
    assert str(error.value) == (
        "demo/templates/a.yaml: overlay gone operations[0] (insert-after): "
        "expected 1 match of 'image: quay.io/x\\n', found 0"
    )
    assert error.value.exit_code == 1


def test_regex_replace_and_count_mismatch(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "r.yaml": """
            operations:
              - op: replace
                file: templates/a.yaml
                regex: true
                find: '^image: docker\\.io/(\\w+)$'
                with: 'image: gsoci.azurecr.io/giantswarm/\\1'
            """
        },
    )
    assert apply_overlays("demo", FILES, overlays, "v1")  # no version range: any tag
    assert (
        apply_overlays("demo", FILES, overlays, "v1").files["templates/a.yaml"]
        == b"namespace: kserve\nimage: gsoci.azurecr.io/giantswarm/x\n"
    )
    wrong = overlays_from(
        tmp_path,
        **{"r.yaml": "operations:\n  - {op: replace, file: templates/b.yaml, find: kserve, with: x, count: 2}\n"},
    )
    with pytest.raises(OverlayApplyError, match="expected 2 matches of 'kserve', found 1"):
        apply_overlays("demo", FILES, wrong, "v1")


def test_version_ranges_limit_overlays_and_operations(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "v.yaml": """
            versions: ">=0.20.0-rc1"
            operations:
              - {op: yaml-set, file: Chart.yaml, values: {/name: new}}
              - {op: yaml-set, file: values.yaml, versions: ">=0.21", values: {/kserve/version: later}}
            """
        },
    )
    old = apply_overlays("demo", FILES, overlays, "v0.19.0")
    assert old.files == FILES and old.skipped == ["v (versions >=0.20.0-rc1)"]
    rc = apply_overlays("demo", FILES, overlays, "v0.20.0-rc1")
    assert rc.files["Chart.yaml"] == b"name: new\nappVersion: v0.1.0\n"
    assert rc.files["values.yaml"] == FILES["values.yaml"]
    assert rc.skipped == ["v operations[1] (yaml-set) (versions >=0.21)"]
    assert apply_overlays("demo", FILES, overlays, "v0.21.0").files["values.yaml"] == b"kserve:\n  version: later\n"
    assert in_range("v0.20.0", ">0.20.0-rc1", "x") and not in_range("v0.20.0-rc0", ">=0.20.0-rc1", "x")


def test_chart_scoping(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "c.yaml": """
            charts: ["kserve-*"]
            operations:
              - {op: copy, content: "x\\n", to: new.txt}
              - {op: copy, charts: [kserve-crd], content: "crd\\n", to: crd.txt}
            """
        },
    )
    assert apply_overlays("other", FILES, overlays, "v1").files == FILES
    resources = apply_overlays("kserve-resources", FILES, overlays, "v1").files
    assert resources["new.txt"] == b"x\n" and "crd.txt" not in resources
    assert apply_overlays("kserve-crd", FILES, overlays, "v1").files["crd.txt"] == b"crd\n"


def test_copy_from_file_with_substitution(tmp_path: Path) -> None:
    overlays = overlays_from(
        tmp_path,
        **{
            "files__h.tpl": '{{- define "${chart}.name" -}}$${literal}\n',
            "c.yaml": "operations:\n  - {op: copy, from: files/h.tpl, to: templates/_h.tpl, substitute: true}\n",
        },
    )
    files = apply_overlays("kserve-crd", FILES, overlays, "v1").files
    assert files["templates/_h.tpl"] == b'{{- define "kserve-crd.name" -}}${literal}\n'


def test_a_copied_file_larger_than_an_upstream_file_may_be_is_refused(tmp_path: Path, monkeypatch) -> None:
    """``from:`` is read as an upstream file is, at most GSVENDOR_MAX_MEMBER_MIB (a 2.5 GB file ran out of
    memory); at the limit it is copied."""
    from gsvendor.errors import OverlayDefinitionError
    from gsvendor.overlays.engine import load_overlays

    monkeypatch.setenv("GSVENDOR_MAX_MEMBER_MIB", "1")
    copy = "operations:\n  - {op: copy, from: files/big.bin, to: big.bin}\n"
    overlays = overlays_from(tmp_path, **{"c.yaml": copy, "files__big.bin": "x" * (1 << 20)})
    assert overlays[0].assets["files/big.bin"] == b"x" * (1 << 20)
    big = tmp_path / "overlays" / "files" / "big.bin"
    with big.open("ab") as handle:
        handle.write(b"x")
    with pytest.raises(OverlayDefinitionError) as refused:
        load_overlays(big.parent.parent)
    assert str(refused.value) == "overlays/c.yaml: operations[0] (copy): from: files/big.bin is larger than 1 MiB"


def test_patch_operation_with_git_apply(tmp_path: Path) -> None:
    diff = (
        "diff --git a/templates/b.yaml b/templates/b.yaml\n"
        "--- a/templates/b.yaml\n"
        "+++ b/templates/b.yaml\n"
        "@@ -1 +1,2 @@\n"
        " namespace: kserve\n"
        "+extra: 1\n"
    )
    overlays = overlays_from(tmp_path, **{"p.yaml": "operations:\n  - {op: patch, patch: p.patch}\n", "p.patch": diff})
    result = apply_overlays("demo", FILES, overlays, "v1")
    assert result.files["templates/b.yaml"] == b"namespace: kserve\nextra: 1\n"
    changed = {**FILES, "templates/b.yaml": b"namespace: other\n"}
    with pytest.raises(
        OverlayApplyError, match=r"demo/p.patch: overlay p operations\[0\] \(patch\): the patch does not apply"
    ):
        apply_overlays("demo", changed, overlays, "v1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("operations: []\n", "operations: [] should be non-empty"),
        ("operations:\n  - op: frobnicate\n", "'frobnicate' is not one of"),
        ("operations:\n  - op: yaml-sett\n", "'yaml-sett' is not one of ['copy', "),
        ("operations:\n  - op: yaml-sett\n", "'yaml-merge', 'yaml-set']; did you mean yaml-set?"),
        ("operations:\n  - {op: replace, file: x}\n", "'find' is a required property"),
        ("operations:\n  - {op: yaml-set, file: x, values: {a: 1}}\n", "'a' is not a JSON Pointer"),
        # RFC 6901 escapes only ~0 and ~1: "~2" and a trailing "~" named no key and never applied
        ("operations:\n  - {op: yaml-set, file: x, values: {/a~2b: 1}}\n", "'/a~2b' is not a JSON Pointer"),
        ("operations:\n  - {op: yaml-delete, file: x, keys: [/a~]}\n", "'/a~' is not a JSON Pointer"),
        ("operations:\n  - {op: copy, from: nope.txt, to: x}\n", "from: no file nope.txt under overlays/"),
        # a target outside the chart was looked up upstream and reported as gone (exit 1)
        ("operations:\n  - {op: replace, file: ../x, find: a, with: b}\n", "file: '../x' must be a relative path"),
        ("operations:\n  - {op: replace, file: /etc/passwd, find: a, with: b}\n", "'/etc/passwd' must be a relative"),
        ("operations:\n  - {op: replace, glob: '../*', find: a, with: b}\n", "glob: '../*' must be a relative path"),
        ("versions: '~~1'\noperations:\n  - {op: copy, content: x, to: y}\n", "is not a version range"),
        ("operations:\n  - {op: copy, content: '${nope}', to: y}\n", "unknown variable ${nope}"),
        ("operations: [\n", "invalid YAML"),
    ],
)
def test_malformed_overlays(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(OverlayDefinitionError) as error:
        overlays_from(tmp_path, **{"bad.yaml": text})
    assert error.value.exit_code == 2
    assert str(error.value).startswith("overlays/bad.yaml")
    assert message in str(error.value)


def test_each_schema_problem_of_an_overlay_is_its_own_error_line_naming_the_file(tmp_path: Path) -> None:
    """Two bad operations are two problems (two ``error:`` lines), not one problem holding a line break."""
    with pytest.raises(OverlayDefinitionError) as error:
        overlays_from(tmp_path, **{"bad.yaml": "operations:\n  - op: frobnicate\n  - op: replaec\n"})
    assert [problem.split(": ", 1)[0] for problem in error.value.problems] == [
        "overlays/bad.yaml:2",
        "overlays/bad.yaml:3",
    ]
    assert all("\n" not in problem for problem in error.value.problems)
    assert error.value.as_json()["file"] == "overlays/bad.yaml"
