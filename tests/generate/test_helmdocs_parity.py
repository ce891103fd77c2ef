"""gsvendor generate against the real helm-docs v1.14.2 and helm-values-schema-json v2.5.0 on the
smallest charts where the emulation once differed: each test runs the real binary on the same
project and compares the bytes.

The tools come from ``.tools/bin`` (``make tools``), then ``PATH``; a missing tool skips the test,
except under ``CI=true``, where it fails.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gsvendor.config import load_config
from gsvendor.files import normalize_whitespace
from gsvendor.generate.chart import generate_chart
from gsvendor.generate.readme.chart import ReadmeError
from gsvendor.generate.readme.template import render_readme
from gsvendor.generate.schema.output import generate_schema

ROOT = Path(__file__).resolve().parents[2]
CHART_C = {"helm/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "helm/c/values.yaml": "a: 1\n"}


def real_tool(name: str) -> str:
    """The path of the real tool ``name``: skipped when absent, a failure under CI=true."""
    local = ROOT / ".tools" / "bin" / name
    found = str(local) if local.is_file() else shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed (.tools/bin/{name} or PATH): run make tools"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def make_project(folder: Path, files: dict[str, str], generate: str = "") -> Path:
    """A project in ``folder``: ``files`` (project-relative path → text) and a gsvendor.yaml naming
    every chart folder directly under helm/ (``generate``: its ``generate:`` settings, YAML)."""
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())
    charts = sorted({p.split("/")[1] for p in files if p.startswith("helm/") and p.count("/") >= 2})
    settings = generate or "generate:\n  readme:\n    sortValuesOrder: file\n"
    (folder / "gsvendor.yaml").write_text(
        "upstream:\n  repository: example/charts\ncharts:\n" + "".join(f"  - {c}\n" for c in charts) + settings
    )
    return folder


def helm_docs(project: Path, *flags: str) -> dict[str, bytes]:
    """Run the real helm-docs as Giant Swarm's pre-commit does (from the project root,
    ``--chart-search-root=helm --sort-values-order=file``); the README.md files it left, by path."""
    subprocess.run(
        [real_tool("helm-docs"), "--chart-search-root=helm", "--sort-values-order=file", "--log-level=error", *flags],
        cwd=project,
        capture_output=True,
        check=False,
        timeout=120,
    )
    return readmes(project)


def readmes(project: Path) -> dict[str, bytes]:
    """Every README.md below ``project/helm``, by project-relative path."""
    return {p.relative_to(project).as_posix(): p.read_bytes() for p in sorted((project / "helm").rglob("README.md"))}


def gsvendor(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m gsvendor ARGS`` in ``project``."""
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args], cwd=project, capture_output=True, text=True, check=False, timeout=300
    )


def same_schema(tmp_path: Path) -> dict:
    """The plugin's values.schema.json of chart c in ``tmp_path/real``, parsed, once gsvendor's in
    ``tmp_path/ours`` is asserted to hold the same bytes."""
    code, schema = helm_schema(tmp_path / "real")
    assert code == 0 and schema is not None
    assert (tmp_path / "ours/helm/c/values.schema.json").read_bytes() == schema
    return json.loads(schema)


def assert_refused(project: Path, error: str) -> None:
    """``gsvendor generate`` in ``project`` exits 2 with ``error`` as its whole stderr."""
    done = gsvendor(project, "generate")
    assert (done.returncode, done.stderr) == (2, error)


def both(tmp_path: Path, files: dict[str, str], *flags: str, generate: str = "") -> tuple[dict, dict]:
    """(the real helm-docs' READMEs, gsvendor generate's) for the same project, each in its own copy."""
    real = helm_docs(make_project(tmp_path / "real", files, generate), *flags)
    ours_project = make_project(tmp_path / "ours", files, generate)
    done = gsvendor(ours_project, "generate")
    assert done.returncode == 0, done.stderr
    return real, readmes(ours_project)


def fixed(readmes: dict[str, bytes]) -> dict[str, bytes]:
    """What pre-commit-hooks' end-of-file-fixer and trailing-whitespace leave of each file."""
    return {path: normalize_whitespace(data) for path, data in readmes.items()}


def test_a_chart_without_a_template_gets_helm_docs_default_readme(tmp_path: Path) -> None:
    real, ours = both(tmp_path, CHART_C)

    assert list(real) == ["helm/c/README.md"]
    assert ours == fixed(real)
    assert ours["helm/c/README.md"].startswith(b"# c\n\n![Version: 0.1.0]")
    # without values.yaml helm-docs skips the chart, and so does gsvendor
    bare = {"helm/c/Chart.yaml": CHART_C["helm/c/Chart.yaml"]}
    assert both(tmp_path / "bare", bare) == ({}, {})


def test_generate_check_reports_a_missing_default_readme(tmp_path: Path) -> None:
    project = make_project(tmp_path, CHART_C)

    done = gsvendor(project, "generate", "--check", "--json")

    assert done.returncode == 1
    assert json.loads(done.stdout)["stale"] == ["helm/c/README.md"]


FILES_TEMPLATE = """\
{{ .ChartDirectory }}
{{ .Files.Get "Chart.yaml" }}{{ .Files.Get "./files/x.txt" }}{{ .Files.Get "missing" }}
{{- range $path, $_ := (.Files.Glob "*.yaml").AsMap }}
{{ $path }}{{ end }}
{{- range $path, $_ := (.Files.Glob "**.txt").AsMap }}
{{ $path }}{{ end }}
{{ .Files.Lines "values.yaml" }} {{ .Files.Lines "helm/c/values.yaml" }}
{{ (.Files.Glob "files/*").AsConfig }}
{{ (.Files.Glob "files/{x,y}.txt").AsSecrets }}
[{{ .Files.Get "README.md" }}]
"""


def test_files_and_chart_directory_are_relative_to_where_helm_docs_runs(tmp_path: Path) -> None:
    files = {**CHART_C, "helm/c/README.md.gotmpl": FILES_TEMPLATE, "helm/c/files/x.txt": "x\n"}
    real, ours = both(tmp_path, files)

    assert ours == fixed(real)
    text = ours["helm/c/README.md"].decode()
    assert text.startswith("helm/c\napiVersion: v2\n")
    assert "\nhelm/c/Chart.yaml\nhelm/c/values.yaml\nhelm/c/files/x.txt\n" in text
    # a second run sees the README.md of the first: helm-docs truncates it before it renders
    assert helm_docs(tmp_path / "real") == real
    assert gsvendor(tmp_path / "ours", "generate", "--check").returncode == 0


TEMPLATE_FILES = (
    "generate:\n  readme:\n    sortValuesOrder: file\n    templateFiles: [README.md.gotmpl, _templates.gotmpl]\n"
)
EXTRA_FLAGS = ("--template-files=README.md.gotmpl", "--template-files=_templates.gotmpl")


def test_extra_template_files_are_read_in_order_and_a_missing_one_adds_the_default(tmp_path: Path) -> None:
    files = {
        **CHART_C,
        "helm/c/README.md.gotmpl": '# {{ template "c.title" . }}\n\n{{ template "chart.valuesSection" . }}\n',
        "helm/c/_templates.gotmpl": '{{ define "c.title" }}The {{ .Name }} chart{{ end }}\n',
        # only README.md.gotmpl: helm-docs appends its default template to it
        "helm/d/Chart.yaml": "apiVersion: v2\nname: d\nversion: 0.1.0\n",
        "helm/d/values.yaml": "b: 2\n",
        "helm/d/README.md.gotmpl": "Intro of d.\n",
    }
    real, ours = both(tmp_path, files, *EXTRA_FLAGS, generate=TEMPLATE_FILES)

    assert ours == fixed(real)
    assert ours["helm/c/README.md"].startswith(b"# The c chart\n\n## Values\n")
    assert ours["helm/d/README.md"].startswith(b"Intro of d.\n# d\n")


@pytest.mark.parametrize(
    ("readme", "message"),
    [
        (
            "templateFiles: [../README.md.gotmpl]",
            "gsvendor.yaml:7: generate.readme.templateFiles[0]: '../README.md.gotmpl': only file names in the "
            "chart folder are emulated (helm-docs reads ./ and ../ paths from the search root)",
        ),
        (
            "documentDependencyValues: true",
            "gsvendor.yaml:7: generate.readme.documentDependencyValues: helm-docs' --document-dependency-values "
            "is not emulated (subcharts get README.md files of their own)",
        ),
    ],
)
def test_helm_docs_settings_gsvendor_cannot_follow_are_refused_by_name(
    tmp_path: Path, readme: str, message: str
) -> None:
    project = make_project(tmp_path, CHART_C, f"generate:\n  readme:\n    {readme}\n")

    done = gsvendor(project, "generate")

    assert (done.returncode, done.stderr) == (2, f"error: {message}\n")
    assert readmes(project) == {}


def test_a_chart_inside_a_chart_is_documented_in_the_same_run(tmp_path: Path) -> None:
    files = {
        "helm/a/Chart.yaml": "apiVersion: v2\nname: a\nversion: 0.1.0\n",
        "helm/a/values.yaml": "x: 1\n",
        "helm/a/README.md.gotmpl": FILES_TEMPLATE,
        "helm/a/charts/b/Chart.yaml": "apiVersion: v2\nname: b\nversion: 0.2.0\n",
        "helm/a/charts/b/values.yaml": "# -- why\ny: 2\n",
        "helm/a/charts/b/README.md.gotmpl": FILES_TEMPLATE + '{{ template "chart.valuesSection" . }}\n',
        # a chart folder without values.yaml: helm-docs skips it
        "helm/a/charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.3.0\n",
    }
    real, ours = both(tmp_path, files)

    assert list(real) == ["helm/a/README.md", "helm/a/charts/b/README.md"]
    assert ours == fixed(real)
    assert ours["helm/a/charts/b/README.md"].startswith(b"helm/a/charts/b\n")


def test_a_nested_chart_destination_names_the_chart_that_documents_it(tmp_path: Path) -> None:
    project = make_project(tmp_path, {**CHART_C, "helm/c/charts/d/Chart.yaml": "apiVersion: v2\nname: d\n"})
    (project / "gsvendor.yaml").write_text(
        "upstream: {repository: example/charts}\ncharts:\n  - c\n  - {name: d, dest: helm/c/charts/d}\n"
    )

    done = gsvendor(project, "generate")

    assert done.returncode == 2
    assert done.stderr.startswith("error: gsvendor.yaml:")
    assert "destination helm/c/charts/d overlaps helm/c of chart c" in done.stderr
    assert done.stderr.endswith("(a chart inside another chart's folder comes with it: list only chart c)\n")


SCHEMA_YAML = "values: [helm/c/values.yaml]\noutput: helm/c/values.schema.json\n"


def helm_schema(project: Path) -> tuple[int, bytes | None]:
    """The real ``helm schema --config helm/c/.schema.yaml`` in ``project``: exit code, what it wrote."""
    output = project / "helm/c/values.schema.json"
    output.unlink(missing_ok=True)
    done = subprocess.run(
        [real_tool("helm-values-schema-json"), "--config", "helm/c/.schema.yaml"],
        cwd=project,
        capture_output=True,
        check=False,
        timeout=120,
    )
    return done.returncode, output.read_bytes() if output.is_file() else None


def test_a_tab_before_a_comment_line_inside_a_comment_block_is_read_as_yaml_v3_reads_it(tmp_path: Path) -> None:
    values = "a: {}\n  # x\n\t# y\nb: 2\n"
    files = {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML}
    real, ours = both(tmp_path, files)

    assert ours == fixed(real)
    assert b"| a | object | `{}` |  |\n| b | int | `2` |  |\n" in ours["helm/c/README.md"]
    same_schema(tmp_path)


@pytest.mark.parametrize(
    "values",
    [
        "a: 1\n\t# y\nb: 2\n",  # the first comment line: a tab at the start of a block line
        "a: 1\n# x\n\t# y\n\t\nb: 2\n",  # a blank line of a tab after the last comment line
        "a: 1 # x\n\t# y\nb: 2\n",  # after a line comment
    ],
)
def test_a_tab_yaml_v3_refuses_before_a_comment_is_refused(tmp_path: Path, values: str) -> None:
    files = {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML}
    project = make_project(tmp_path, files)

    assert helm_schema(project) == (1, None)
    assert helm_docs(project) == {}
    done = gsvendor(project, "generate")
    assert done.returncode == 2
    assert done.stderr.startswith("error: helm/c: helm/c/values.yaml: error unmarshalling YAML: line ")
    assert done.stderr.count("\n") == 1


def test_a_recursive_anchor_gets_the_plugins_schema_and_no_readme(tmp_path: Path) -> None:
    files = {**CHART_C, "helm/c/values.yaml": "a: &x\n  b: *x\n", "helm/c/.schema.yaml": SCHEMA_YAML}
    project = make_project(tmp_path, files)

    code, real = helm_schema(project)
    assert code == 0 and real is not None
    assert json.loads(real)["properties"] == {"a": {"type": "object", "properties": {"b": {}}}}
    chart = {p.removeprefix("helm/c/"): t.encode() for p, t in files.items()}
    assert generate_schema(chart, str(project / "helm/c"), None, cwd=str(project)) == (
        "values.schema.json",
        real,
    )
    # helm-docs follows the alias until its stack overflows (1 GB, a minute and a half): with its
    # address space capped it fails the same way, as it grows, in a second
    done = subprocess.run(
        [real_tool("helm-docs"), "--chart-search-root=helm"],
        cwd=project,
        capture_output=True,
        check=False,
        timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000)),
    )
    assert done.returncode == 2
    assert b"Generating README Documentation for chart helm/c" in done.stderr
    assert b"\nfatal error: " in done.stderr
    assert readmes(project) == {}
    with pytest.raises(ReadmeError, match="line 2: anchor 'x' value contains itself"):
        render_readme(chart)
    with pytest.raises(ReadmeError, match="line 2: anchor 'x' value contains itself"):
        generate_chart(chart, chart_dir=str(project / "helm/c"), project_root=str(project))
    assert_refused(project, "error: helm/c: values.yaml: invalid YAML: line 2: anchor 'x' value contains itself\n")


def test_invalid_yaml_fails_in_both_tools_and_in_gsvendor(tmp_path: Path) -> None:
    files = {**CHART_C, "helm/c/values.yaml": ": x\n", "helm/c/.schema.yaml": SCHEMA_YAML}
    project = make_project(tmp_path, files)

    assert helm_schema(project) == (1, None)
    assert helm_docs(project) == {}
    assert_refused(
        project, "error: helm/c: helm/c/values.yaml: error unmarshalling YAML: line 1: did not find expected key\n"
    )
    assert not (project / "helm/c/values.schema.json").exists()


NOTATION_YAML = """\
# -- folded, literal, comments and anchors
# @notationType -- yaml
a:
  f1: >
    folded text
    more
  f2: >-
    folded strip
  para: >
    one

    two
  lit: |-
    lit
  n: ~ # after null
  n2: # on an empty null
  coll: # on a key
    k: v
  anch: &x
    k: v
  ref: *x
  s: &y plain # on an anchored scalar
  l: &z [1, 2]
  m:
    - &w one
    - x: >
        in a sequence
      y: |
        lit
"""


def test_notation_type_yaml_values_are_written_as_yaml_v3_marshals_them(tmp_path: Path) -> None:
    template = '{{ range .Values }}{{ .Key }}:\n{{ .Default }}<end>\n{{ end }}{{ template "chart.valuesSection" . }}\n'
    files = {**CHART_C, "helm/c/values.yaml": NOTATION_YAML, "helm/c/README.md.gotmpl": template}
    real, ours = both(tmp_path, files)

    assert ours == fixed(real)
    text = ours["helm/c/README.md"].decode()
    assert "f1: >\n    folded text more\n\nf2: >-\n    folded strip\npara: >\n    one\n\n    two\n\n" in text
    assert "n2: # on an empty null\ncoll: # on a key\n    k: v\nanch: &x\n    k: v\nref: *x\n" in text
    assert "    - x: >\n        in a sequence\n\n      y: |\n        lit\n" in text


WHITESPACE_CASES = {
    # a template without a final line break, and one whose line keeps a space after helm-docs' format
    "helm/c/README.md.gotmpl": (
        '{{ template "chart.header" . }}two spaces:  \n\n\n{{ template "chart.valuesSection" . }}'
    ),
    # an empty values section last: the template's line breaks end the file
    "helm/d/Chart.yaml": "apiVersion: v2\nname: d\nversion: 0.1.0\n",
    "helm/d/values.yaml": "{}\n",
    "helm/d/README.md.gotmpl": '{{ template "chart.header" . }}\n{{ template "chart.valuesSection" . }}\n',
}


@pytest.mark.parametrize("mode", ["pre-commit", "helm-docs", None])
def test_whitespace_is_pre_commits_by_default_or_helm_docs_own(tmp_path: Path, mode: str | None) -> None:
    files = {**CHART_C, **WHITESPACE_CASES}
    settings = "generate:\n  readme:\n    sortValuesOrder: file\n" + (f"    whitespace: {mode}\n" if mode else "")
    real, ours = both(tmp_path, files, generate=settings)

    assert ours == (real if mode == "helm-docs" else fixed(real))
    assert real["helm/c/README.md"].endswith(b"| a | int | `1` |  |")  # no final line break
    assert b"two spaces: \n" in real["helm/c/README.md"]
    assert real["helm/d/README.md"] == b"# d\n\n"
    project = tmp_path / "ours"
    assert gsvendor(project, "generate", "--check").returncode == 0
    assert load_config(project / "gsvendor.yaml").generate.whitespace == (mode or "pre-commit")


def test_badge_style_version_footer_and_undescribed_values_as_helm_docs_flags(tmp_path: Path) -> None:
    files = {
        "helm/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0-rc.1\nappVersion: v2\ntype: application\n",
        "helm/c/values.yaml": "# -- described\na: 1\nb: 2\nc:\n  # -- nested\n  d: x\n",
    }
    settings = (
        "generate:\n  readme:\n    sortValuesOrder: file\n    badgeStyle: for-the-badge\n"
        "    skipVersionFooter: true\n    ignoreNonDescriptions: true\n"
    )
    flags = ("--badge-style=for-the-badge", "--skip-version-footer", "--ignore-non-descriptions")
    real, ours = both(tmp_path, files, *flags, generate=settings)

    assert ours == fixed(real)
    text = ours["helm/c/README.md"].decode()
    assert "Version-0.1.0--rc.1-informational?style=for-the-badge" in text
    assert '| a | int | `1` | described |\n| c.d | string | `"x"` | nested |\n' in text
    assert "| b |" not in text and "helm-docs v1.14.2" not in text


def test_a_helmdocsignore_file_is_refused_by_name(tmp_path: Path) -> None:
    project = make_project(tmp_path, CHART_C)
    (project / ".helmdocsignore").write_text("helm/c\n")

    done = gsvendor(project, "generate")

    assert (done.returncode, done.stderr) == (
        2,
        "error: .helmdocsignore: helm-docs' ignore file is not emulated: gsvendor documents every chart folder "
        "of the configured charts; remove it\n",
    )
    assert readmes(project) == {}


def test_a_float_beyond_float64_is_a_string_as_yaml_v3_resolves_it(tmp_path: Path) -> None:
    # strconv.ParseFloat fails with ErrRange on 1e400, so yaml.v3 leaves the scalar a string
    values = "# -- big\na: 1e400\n# -- small\nb: -1e400\n# -- dot\nc: .5e400\n# -- tiny\nd: 1e-400\n"
    files = {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML}
    real, ours = both(tmp_path, files)

    assert ours == fixed(real)
    assert b'| a | string | `"1e400"` | big |\n' in ours["helm/c/README.md"]
    schema = same_schema(tmp_path)
    assert [p["type"] for p in schema["properties"].values()] == ["string", "string", "string", "number"]


def test_tabs_between_tokens_are_read_as_yaml_v3_reads_them(tmp_path: Path) -> None:
    # after a colon, before a line comment, at a line's end and in a flow collection yaml.v3 (and
    # libyaml) skip a tab as a space; inside a comment or a quoted scalar it is kept
    values = '# -- doc\ta\na:\t1\t# -- line\tc\n# -- b doc\nb:\n  # -- c\tdoc\n  c:\t[1,\t2]\t\n  d: "q\tq"\t# x\n'
    files = {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML}
    real, ours = both(tmp_path, files)

    assert ours == fixed(real)
    assert b"| b.c | list | `[1,2]` | c\tdoc |\n" in ours["helm/c/README.md"]
    assert same_schema(tmp_path)["properties"]["b"]["properties"]["d"] == {"type": "string"}


@pytest.mark.parametrize(
    ("template", "error"),
    [
        # Go's strings and slices have no methods: Python's str.upper and list.clear are not reachable
        ('{{ $s := "abc" }}{{ $s.upper }}', "can't evaluate field upper in type string"),
        ("{{ $l := list 1 }}{{ $l.clear }}{{ $l }}", "can't evaluate field clear in type []interface {}"),
        ("{{ range .Values }}{{ .Key.split }}{{ end }}", "can't evaluate field split in type string"),
        # strings.Repeat panics on a negative count; text/template makes the panic the call's error
        ('{{ indent -5 "x" }}', "error calling indent: strings: negative Repeat count"),
        ('{{ nindent -1 "x" }}', "error calling nindent: strings: negative Repeat count"),
        ('{{ repeat -1 "x" }}', "error calling repeat: strings: negative Repeat count"),
        # eq and lt compare values of one basic kind: 1 and "1", 1 and 2.5, lists, bools are errors
        ('{{ eq 1 "1" }}', "error calling eq: incompatible types for comparison"),
        ("{{ lt 1 2.5 }}", "error calling lt: incompatible types for comparison"),
        ("{{ lt true false }}", "error calling lt: invalid type for comparison"),
        ("{{ eq (list 1) (list 1) }}", "error calling eq: non-comparable type [1]: []interface {}"),
        # sprig's substr slices as Go does: bounds Go cannot slice are its runtime error
        (
            '{{ substr -1 5 "abc" }}',
            "error calling substr: runtime error: slice bounds out of range [:5] with length 3",
        ),
        ('{{ substr 2 1 "abc" }}', "error calling substr: runtime error: slice bounds out of range [2:1]"),
        # a function or method given too few or too many arguments, in Go's words (not Python's TypeError)
        ("{{ not }}", "wrong number of args for not: want 1 got 0"),
        ("{{ ternary 1 2 }}", "wrong number of args for ternary: want 3 got 2"),
        ("{{ index }}", "wrong number of args for index: want at least 1 got 0"),
        ('{{ .Files.Get "a" "b" }}', "wrong number of args for Get: want 1 got 2"),
        ("{{ len 5 }}", "error calling len: len of type int"),
    ],
)
def test_a_template_helm_docs_cannot_execute_fails_in_one_line(tmp_path: Path, template: str, error: str) -> None:
    files = {**CHART_C, "helm/c/README.md.gotmpl": template}
    project = make_project(tmp_path, files)

    assert helm_docs(project) == {"helm/c/README.md": b""}  # truncated, then the template failed
    (project / "helm/c/README.md").unlink()
    assert_refused(project, f"error: helm/c: README.md.gotmpl: template: README.md.gotmpl:1: {error}\n")


def test_a_range_over_a_large_int_is_counted_as_it_goes(tmp_path: Path) -> None:
    template = "{{ range $i := 1000000000000 }}{{ if eq $i 2 }}{{ break }}{{ end }}{{ $i }}{{ end }}\n"
    files = {**CHART_C, "helm/c/README.md.gotmpl": template}
    real, ours = both(tmp_path, files)

    assert ours == real == {"helm/c/README.md": b"01\n"}


def test_a_control_character_in_values_is_refused_naming_its_line(tmp_path: Path) -> None:
    files = {**CHART_C, "helm/c/values.yaml": "a: 1\nb: x\x01y\n", "helm/c/.schema.yaml": SCHEMA_YAML}
    project = make_project(tmp_path, files)

    assert helm_schema(project) == (1, None)
    assert helm_docs(project) == {}  # "yaml: control characters are not allowed": the chart is skipped
    assert_refused(
        project,
        "error: helm/c: helm/c/values.yaml: error unmarshalling YAML: line 2: control characters are not allowed"
        " (#x0001)\n",
    )


def test_printf_reports_what_fmt_reports_for_bad_formats(tmp_path: Path) -> None:
    # a precision past what fmt reads (1e6 and a digit) loses the verb rather than writing 100 MB of
    # zeros; unused arguments, missing ones, %c of a surrogate and a format ending early as fmt writes them
    template = (
        '{{ printf "%.100000000f" 1.0 }}|{{ printf "%10000010d" 1 }}|{{ printf "x" 1 "a" (list 1 2) nil }}|'
        '{{ printf "%d %s" 1 }}|{{ printf "%c%c%c" 65 55296 1114112 }}|{{ printf "%5" 1 }}\n'
    )
    files = {**CHART_C, "helm/c/README.md.gotmpl": template}
    real, ours = both(tmp_path, files)

    assert (
        ours
        == real
        == {
            "helm/c/README.md": (
                "%!(NOVERB)%!(EXTRA float64=1)|%!(NOVERB)%!(EXTRA int=1)|"
                "x%!(EXTRA int=1, string=a, []interface {}=[1 2], <nil>)|"
                "1 %!s(MISSING)|A\ufffd\ufffd|%!(NOVERB)%!(EXTRA int=1)\n"
            ).encode()
        }
    )


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ("draft: 7\ndraft: 2020\n", 'line 4: mapping key "draft" already defined at line 3'),
        ("schemaRoot:\n  title: a\n  title: b\n", 'schemaRoot: line 5: mapping key "title" already defined at line 4'),
        ("schemaRoot: [1]\n", "schemaRoot: line 3: cannot unmarshal !!seq into pkg.SchemaRoot"),
        ("schemaRoot: x\n", "schemaRoot: line 3: cannot unmarshal !!str `x` into pkg.SchemaRoot"),
        ("draft: abcdefghijklmnop\n", "draft: line 3: cannot unmarshal !!str `abcdefg...` into int"),
    ],
)
def test_a_schema_config_the_plugin_cannot_decode_is_refused_in_its_words(
    tmp_path: Path, settings: str, error: str
) -> None:
    files = {**CHART_C, "helm/c/.schema.yaml": SCHEMA_YAML + settings}
    project = make_project(tmp_path, files)

    done = subprocess.run(
        [real_tool("helm-values-schema-json"), "--config", "helm/c/.schema.yaml"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.endswith(f"yaml: unmarshal errors:\n  line {error.split('line ', 1)[1]}\n")
    ours = gsvendor(project, "generate")
    assert (ours.returncode, ours.stderr) == (2, f"error: helm/c: .schema.yaml: {error}\n")
    assert not (project / "helm/c/values.schema.json").exists()


@pytest.mark.parametrize("separator", ["\u2028", "\x85"])
def test_a_unicode_line_break_in_a_plain_scalar_is_refused_as_yaml_v3_refuses_it(
    tmp_path: Path, separator: str
) -> None:
    # NEL and U+2028 break lines in YAML 1.1 (yaml.v3, libyaml): "y" starts a key without a ':'
    files = {**CHART_C, "helm/c/values.yaml": f"a: x{separator}y\nb: 2\n", "helm/c/.schema.yaml": SCHEMA_YAML}
    project = make_project(tmp_path, files)

    assert helm_schema(project) == (1, None)
    assert helm_docs(project) == {}
    assert_refused(
        project, "error: helm/c: helm/c/values.yaml: error unmarshalling YAML: line 3: could not find expected ':'\n"
    )


def test_a_values_file_that_is_a_sequence_is_read_in_pairs_as_the_plugin_reads_it(tmp_path: Path) -> None:
    # the plugin walks the root's items two by two, as a mapping's keys and values: [a, [1]] is {a: [1]};
    # an odd count makes it panic (index out of range)
    settings = "values: [helm/c/values.yaml, helm/c/extra.yaml]\noutput: helm/c/values.schema.json\n"
    files = {**CHART_C, "helm/c/extra.yaml": "- b\n- [1]\n", "helm/c/.schema.yaml": settings}
    project = make_project(tmp_path, files)

    code, real = helm_schema(project)
    assert code == 0 and real is not None
    assert json.loads(real)["properties"]["b"] == {"type": "array", "items": {"type": "integer"}}
    assert gsvendor(project, "generate").returncode == 0
    assert (project / "helm/c/values.schema.json").read_bytes() == real
    (project / "helm/c/extra.yaml").write_text("- b\n- [1]\n- c\n")
    assert helm_schema(project)[0] == 2
    assert_refused(
        project, "error: helm/c: helm/c/extra.yaml: a sequence of 3 items: the plugin panics (index out of range)\n"
    )


@pytest.mark.parametrize(
    "template", ["{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}", "{{ if 1 }}" * 3000 + "1" + "{{ end }}" * 3000]
)
def test_a_template_nested_deeper_than_python_reads_is_one_line(tmp_path: Path, template: str) -> None:
    # Go parses thousands of levels (helm-docs writes "1"); gsvendor's parser recurses: one line, exit 2
    files = {**CHART_C, "helm/c/README.md.gotmpl": template}
    project = make_project(tmp_path, files)

    assert helm_docs(project) == {"helm/c/README.md": b"1"}
    (project / "helm/c/README.md").unlink()
    assert_refused(
        project,
        "error: helm/c: README.md.gotmpl: template: README.md.gotmpl: nested too deeply for gsvendor"
        " (parentheses, pipelines or blocks inside each other)\n",
    )


@pytest.mark.parametrize(("deprecated", "shown"), [("yes", b"true"), ("Off", b"false"), ('"on"', b"true")])
def test_chart_deprecated_reads_yaml_1_1_booleans_as_yaml_v3_decodes_a_bool(
    tmp_path: Path, deprecated: str, shown: bytes
) -> None:
    chart = f"apiVersion: v2\nname: c\nversion: 0.1.0\ndeprecated: {deprecated}\n"
    files = {**CHART_C, "helm/c/Chart.yaml": chart, "helm/c/README.md.gotmpl": "{{ .Deprecated }}\n"}
    real, ours = both(tmp_path, files)

    assert ours == real == {"helm/c/README.md": shown + b"\n"}


def test_chart_deprecated_that_is_a_list_is_refused(tmp_path: Path) -> None:
    chart = "apiVersion: v2\nname: c\nversion: 0.1.0\ndeprecated: [1]\n"
    project = make_project(tmp_path, {**CHART_C, "helm/c/Chart.yaml": chart})

    assert helm_docs(project) == {}
    assert_refused(project, "error: helm/c: Chart.yaml: deprecated: cannot unmarshal !!seq into bool\n")


def test_substr_with_a_negative_start_cuts_from_the_start_as_sprig_does(tmp_path: Path) -> None:
    template = '{{ substr -1 2 "abcdef" }}|{{ substr 2 -1 "abcdef" }}|{{ substr 2 100 "abcdef" }}|'
    template += '{{ substr 3 3 "abc" }}\n'
    real, ours = both(tmp_path, {**CHART_C, "helm/c/README.md.gotmpl": template})

    assert ours == real == {"helm/c/README.md": b"ab|cdef|cdef|\n"}


def test_len_of_a_string_counts_its_utf8_bytes_as_go_does(tmp_path: Path) -> None:
    template = '{{ len "héllo" }}|{{ len (list 1 2) }}|{{ len (dict "a" 1) }}\n'
    real, ours = both(tmp_path, {**CHART_C, "helm/c/README.md.gotmpl": template})

    assert ours == real == {"helm/c/README.md": b"6|2|1\n"}


def test_to_yaml_and_to_json_of_helm_docs_structs_name_their_fields_as_go_does(tmp_path: Path) -> None:
    # .Values rows and .Maintainers are Go structs: yaml.v3 writes their fields lower-cased, encoding/json
    # as declared, both in declaration order (a Python repr was written)
    chart = "apiVersion: v2\nname: c\nversion: 0.1.0\nmaintainers: [{name: n, email: e}]\n"
    template = (
        "{{ toYaml .Values }}\n---\n{{ toJson (index .Values 0) }}\n---\n{{ toPrettyJson .Maintainers }}\n"
        '{{ toYaml (dict "b" 1 "a" (list (index .Values 1))) }}\n'
    )
    values = '# -- doc\na: 1\n# -- c <d>\nc: {z: 1, y: "q: r"}\n'
    files = {**CHART_C, "helm/c/Chart.yaml": chart, "helm/c/values.yaml": values, "helm/c/README.md.gotmpl": template}
    real, ours = both(tmp_path, files)

    assert ours == real
    assert b'- key: a\n  type: int\n  notationtype: ""\n' in ours["helm/c/README.md"]
    assert b'{"Key":"a","Type":"int","NotationType":"",' in ours["helm/c/README.md"]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_values_file_with_its_byte_order_mark_is_read_as_yaml_v3_reads_it(
    tmp_path: Path, encoding: str
) -> None:
    values = "\ufeff# -- doc\na: 1\n# b -- old style\nb:\n  c: [x, y] # @schema minItems: 1\n"
    files = {**CHART_C, "helm/c/.schema.yaml": SCHEMA_YAML}
    for side in ("real", "ours"):
        make_project(tmp_path / side, files)
        (tmp_path / side / "helm/c/values.yaml").write_bytes(values.encode(encoding))
    real = helm_docs(tmp_path / "real")
    code, schema = helm_schema(tmp_path / "real")
    done = gsvendor(tmp_path / "ours", "generate")

    assert done.returncode == 0, done.stderr
    assert readmes(tmp_path / "ours") == fixed(real)
    assert b"| a | int | `1` | doc |\n" in real["helm/c/README.md"]
    assert code == 0 and (tmp_path / "ours/helm/c/values.schema.json").read_bytes() == schema
    # with CR line ends yaml.v3 reads UTF-16 comments differently: refused in one line
    (tmp_path / "ours/helm/c/values.yaml").write_bytes(values.replace("\n", "\r\n").encode(encoding))
    done = gsvendor(tmp_path / "ours", "generate")
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    assert "UTF-16 text with CR line ends is not emulated" in done.stderr


@pytest.mark.parametrize("number", ["1e400", "-1e400", "0x1p99999"])
def test_an_annotation_number_beyond_float64_is_the_plugins_range_error(tmp_path: Path, number: str) -> None:
    values = f"a: 1 # @schema minimum: {number}\n"
    project = make_project(tmp_path, {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML})
    message = f'parse schema: /a: parse @schema comments: minimum: invalid number "{number}": value out of range'

    done = subprocess.run(
        [real_tool("helm-values-schema-json"), "--config", "helm/c/.schema.yaml"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (1, f"Error: {message}\n")
    ours = gsvendor(project, "generate")
    assert (ours.returncode, ours.stderr) == (2, f"error: helm/c: helm/c/values.yaml: {message}\n")


def test_an_annotation_integer_of_thousands_of_digits_is_the_plugins_range_error(tmp_path: Path) -> None:
    digits = "9" * 5000  # Python's int() refuses past 4300 digits: this was a traceback
    values = f"a: x # @schema minLength: {digits}\n"
    project = make_project(tmp_path, {**CHART_C, "helm/c/values.yaml": values, "helm/c/.schema.yaml": SCHEMA_YAML})

    assert helm_schema(project) == (1, None)
    ours = gsvendor(project, "generate")
    # one line, the value cut short by the command line's error printing
    assert (ours.returncode, ours.stderr.count("\n")) == (2, 1)
    assert ours.stderr.startswith(
        'error: helm/c: helm/c/values.yaml: parse schema: /a: parse @schema comments: minLength: invalid integer "999'
    )


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ('{{ "\\UFFFFFFFF" }}', 'bad string syntax: "\\UFFFFFFFF"'),  # was an OverflowError traceback
        ('{{ "\\uD800" }}', 'bad string syntax: "\\uD800"'),  # a surrogate: was a UnicodeEncodeError traceback
        ('{{ define "\\x" }}x{{ end }}', 'bad string syntax: "\\x"'),  # was an IndexError traceback
        ('{{ "\\777" }}', 'bad string syntax: "\\777"'),
        ("{{ 0x" + "f" * 5000 + " }}", "illegal number syntax: 0x" + "f" * 5000),  # was a ValueError traceback
        ("{{ 99999999999999999999 }}", "99999999999999999999 overflows int"),
        ("{{ 1e400 }}", "illegal number syntax: 1e400"),
        ("{{ 1i }}", "illegal number syntax: 1i (complex constants are not emulated)"),  # was a traceback
    ],
)
def test_a_template_constant_go_refuses_is_one_line(tmp_path: Path, template: str, error: str) -> None:
    project = make_project(tmp_path, {**CHART_C, "helm/c/README.md.gotmpl": template})

    if "complex" not in error:  # helm-docs writes (0+1i); the others it refuses
        assert helm_docs(project) in ({}, {"helm/c/README.md": b""})
    (project / "helm/c/README.md").unlink(missing_ok=True)
    done = gsvendor(project, "generate")
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    prefix = "error: helm/c: README.md.gotmpl: template: README.md.gotmpl:1: "
    assert done.stderr.startswith(prefix + error[:80])


def test_a_glob_with_many_stars_matches_as_gobwas_does_without_backtracking(tmp_path: Path) -> None:
    # as a backtracking regular expression *a*a…*ab took minutes on a long file name (polynomial in
    # its length, to the power of the stars); gobwas and gsvendor's automaton read the name once
    name = "a" * 60 + ".yaml"
    template = (
        '{{ (.Files.Glob "' + "*a" * 12 + 'b").AsConfig }}|{{ (.Files.Glob "' + "*" * 3000 + 'a.yaml").AsConfig }}\n'
    )
    files = {**CHART_C, f"helm/c/{name}": "x: 1\n", "helm/c/README.md.gotmpl": template}
    real, ours = both(tmp_path, files)

    assert ours == real == {"helm/c/README.md": f"|{name}: |\n    x: 1\n".encode()}
