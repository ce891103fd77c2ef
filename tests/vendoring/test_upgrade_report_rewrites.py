"""The upgrade report's image rows as the chart renders them: a template that reads a chart file and
rewrites it by prefix (``replace "ghcr.io/llm-d/" $registry``), resolved from the templates and
values.yaml without helm, on a small hand-written chart that helm renders to check the result."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from gsvendor.config import ChartSpec
from gsvendor.report.upgrade import REWRITTEN, _images
from gsvendor.vendoring.plan import ChartBuild
from gsvendor.vendoring.rewrites import Replacement, render, render_rewrites, template_rewrites
from gsvendor.vendoring.upgrade import ChartUpgrade, ImageChange, compare_chart, compare_images

PRESETS = """\
apiVersion: v1
kind: Pod
metadata:
  name: preset
spec:
  containers:
    - name: main
      image: ghcr.io/llm-d/llm-d-cuda:{tag}
    - name: vllm
      image: docker.io/vllm/vllm-openai:{tag}
    - name: side
      image: quay.io/other/side:{tag}
    - name: pause
      image: registry.k8s.io/pause:{tag}
"""

# $registry from values with a default; a chained replace acting on the one before it; a literal;
# and one whose argument is an include (what it gives is for a render to know)
TEMPLATE = b"""\
{{- define "c.presets" -}}
{{- $values := .Values.mirror -}}
{{- $registry := $values.registry | default "gsoci.azurecr.io/giantswarm/" -}}
{{- range $doc := splitList "\\n---\\n" (.Files.Get "files/presets.yaml") -}}
{{ $doc | replace "ghcr.io/llm-d/" $registry | replace "gsoci.azurecr.io/giantswarm/llm-d-" \
"gsoci.azurecr.io/giantswarm/llm-d/" | replace "docker.io/vllm/" "gsoci.azurecr.io/giantswarm/" \
| replace "quay.io/other/" (include "c.mirror" $) }}
{{- end -}}
{{- end -}}
{{- define "c.mirror" -}}quay.io/mirror/{{- end -}}
"""
ALLOW = ["gsoci.azurecr.io/"]
WHERE = "files/presets.yaml Pod/preset spec.containers[{}].image"


def chart(tag: str, registry: str = '""') -> dict[str, bytes]:
    """The chart's files at ``tag``, its values.yaml setting ``mirror.registry``."""
    return {
        "Chart.yaml": b"apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "templates/_presets.tpl": TEMPLATE,
        "templates/presets.yaml": b'{{ include "c.presets" . }}\n',
        "values.yaml": f"mirror:\n  registry: {registry}\n".encode(),
        "files/presets.yaml": PRESETS.format(tag=tag).encode(),
    }


def helm_images(files: dict[str, bytes], helm: str, folder: Path) -> dict[str, str]:
    """Container name → image, as ``helm template`` renders the chart."""
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    out = subprocess.run([helm, "template", "r", str(folder)], check=True, capture_output=True, text=True).stdout
    pod = next(d for d in YAML(typ="safe").load_all(out) if d)
    return {c["name"]: c["image"] for c in pod["spec"]["containers"]}


def test_rewrites_resolved_from_the_templates_and_values() -> None:
    replacements = (
        Replacement("ghcr.io/llm-d/", "gsoci.azurecr.io/giantswarm/"),
        Replacement("gsoci.azurecr.io/giantswarm/llm-d-", "gsoci.azurecr.io/giantswarm/llm-d/"),
        Replacement("docker.io/vllm/", "gsoci.azurecr.io/giantswarm/"),
        Replacement("quay.io/other/", None),
    )
    assert render_rewrites(chart("v1")) == {"files/presets.yaml": replacements}
    # a value set in values.yaml wins over the default
    assert render_rewrites(chart("v1", "registry.example/mirror/"))["files/presets.yaml"][0] == Replacement(
        "ghcr.io/llm-d/", "registry.example/mirror/"
    )
    assert render("ghcr.io/llm-d/llm-d-cuda:v1", replacements) == (True, "gsoci.azurecr.io/giantswarm/llm-d/cuda:v1")
    assert render("quay.io/other/side:v1", replacements) == (True, None)
    assert render("registry.k8s.io/pause:v1", replacements) == (False, "registry.k8s.io/pause:v1")


def test_image_changes_and_rows_as_rendered(helm: str, tmp_path: Path) -> None:
    old, new = chart("v1"), chart("v2")
    images = compare_images(old, new, ALLOW, (render_rewrites(old), render_rewrites(new)))
    assert images == [
        ImageChange(
            "changed",
            WHERE.format("main"),
            "ghcr.io/llm-d/llm-d-cuda:v1",
            "ghcr.io/llm-d/llm-d-cuda:v2",
            "allowed",
            True,
            "gsoci.azurecr.io/giantswarm/llm-d/cuda:v1",
            "gsoci.azurecr.io/giantswarm/llm-d/cuda:v2",
        ),
        ImageChange(
            "changed",
            WHERE.format("pause"),
            "registry.k8s.io/pause:v1",
            "registry.k8s.io/pause:v2",
            "offender",
            False,
            "registry.k8s.io/pause:v1",
            "registry.k8s.io/pause:v2",
        ),
        ImageChange(
            "changed", WHERE.format("side"), "quay.io/other/side:v1", "quay.io/other/side:v2", "offender", True
        ),
        ImageChange(
            "changed",
            WHERE.format("vllm"),
            "docker.io/vllm/vllm-openai:v1",
            "docker.io/vllm/vllm-openai:v2",
            "allowed",
            True,
            "gsoci.azurecr.io/giantswarm/vllm-openai:v1",
            "gsoci.azurecr.io/giantswarm/vllm-openai:v2",
        ),
    ]
    # what helm renders is what the rows say, where they say it
    rendered = helm_images(new, helm, tmp_path / "c")
    assert {i.where: i.new_rendered for i in images if i.new_rendered} == {
        WHERE.format(name): rendered[name] for name in ("main", "pause", "vllm")
    }
    assert rendered["side"] == "quay.io/mirror/side:v2"
    assert _images(ChartUpgrade(name="c", dest="helm/c", images=images)) == [
        "### Image references",
        "",
        "0 added, 0 removed, 4 changed (after the overlays; allowed: the check-images policy):",
        "",
        "| change | where | old | new | allowed |",
        "|---|---|---|---|---|",
        f"| changed | `{WHERE.format('main')}` | (1) | (2) | yes |",
        f"| changed | `{WHERE.format('pause')}` | (3) | (4) | (5) |",
        f"| changed | `{WHERE.format('side')}` | (6) | (7) | (8) |",
        f"| changed | `{WHERE.format('vllm')}` | (9) | (10) | yes |",
        "",
        "- (1) old: `ghcr.io/llm-d/llm-d-cuda:v1` → `gsoci.azurecr.io/giantswarm/llm-d/cuda:v1`",
        "- (2) new: `ghcr.io/llm-d/llm-d-cuda:v2` → `gsoci.azurecr.io/giantswarm/llm-d/cuda:v2`",
        "- (3) old: `registry.k8s.io/pause:v1`",
        "- (4) new: `registry.k8s.io/pause:v2`",
        "- (5) allowed: no, as written",
        "- (6) old: `quay.io/other/side:v1`",
        "- (7) new: `quay.io/other/side:v2`",
        f"- (8) allowed: {REWRITTEN}",
        "- (9) old: `docker.io/vllm/vllm-openai:v1` → `gsoci.azurecr.io/giantswarm/vllm-openai:v1`",
        "- (10) new: `docker.io/vllm/vllm-openai:v2` → `gsoci.azurecr.io/giantswarm/vllm-openai:v2`",
        "",
        "References under `files/` and `crds/` are as the chart's files hold them; where a template reading the "
        'file rewrites them by prefix (`replace "ghcr.io/llm-d/" $registry`), written → rendered, the replacement '
        "resolved from the chart's templates and values.yaml defaults, and judged as rendered; "
        f'"{REWRITTEN}" marks those whose replacement is not resolvable without rendering. '
        "`gsvendor check-images` judges the rendered charts.",
        "",
    ]


def test_a_values_default_that_changes_the_rendering_is_a_row() -> None:
    # the presets file is the same at both tags: only values.yaml changed, and with it what renders
    old, new = chart("v1", "registry.example/llm-d/"), chart("v1")
    spec = ChartSpec(name="c", upstream_path="charts/c", dest="helm/c")
    upgrade = compare_chart("c", ChartBuild(spec, old, old), ChartBuild(spec, new, new), ALLOW, [])
    assert upgrade.changed == ["values.yaml"]
    images = upgrade.images
    assert [(i.where, i.old, i.old_rendered, i.new_rendered, i.status) for i in images] == [
        (
            WHERE.format("main"),
            "ghcr.io/llm-d/llm-d-cuda:v1",
            "registry.example/llm-d/llm-d-cuda:v1",
            "gsoci.azurecr.io/giantswarm/llm-d/cuda:v1",
            "allowed",
        )
    ]


def test_what_is_not_resolved_statically() -> None:
    def resolved(template: str, values: object) -> list[str | None]:
        return [r.new for r in template_rewrites(template, values)[1]]

    values = {"registry": "gsoci.azurecr.io/x/", "empty": "", "node": {"registry": 7}}
    # set in one branch only: it may or may not be, so nothing is said
    assert resolved(
        '{{ $r := .Values.registry }}{{ if .Values.on }}{{ $r = "other/" }}{{ end }}{{ replace "a/" $r "t" }}',
        values,
    ) == [None]
    # set at its own level: known
    assert resolved('{{ $r := "x/" }}{{ $r = .Values.registry }}{{ replace "a/" $r "t" }}', values) == [
        "gsoci.azurecr.io/x/"
    ]
    # under range and with the dot is another value; $.Values is still the chart's
    assert resolved('{{ range .Values.list }}{{ replace "a/" .Values.registry "t" }}{{ end }}', values) == [None]
    assert resolved('{{ range .Values.list }}{{ replace "a/" $.Values.registry "t" }}{{ end }}', values) == [
        "gsoci.azurecr.io/x/"
    ]
    # a replace under if or with may not run at all
    assert resolved('{{ if .Values.on }}{{ $t := replace "a/" "b/" "t" }}{{ end }}', values) == [None]
    assert resolved(
        '{{ with .Values.node }}{{ replace "a/" "b/" "t" }}{{ end }}{{ replace "c/" "d/" "t" }}', values
    ) == [
        None,
        "d/",
    ]
    # a range's variables hold its elements, whatever a variable of that name held before
    assert resolved('{{ $r := "x/" }}{{ range $i, $r := .Values.list }}{{ replace "a/" $r "t" }}{{ end }}', values) == [
        None
    ]
    # a define sees no variable declared outside it: text/template refuses the template, helm renders nothing
    assert resolved('{{ $r := "x/" }}{{ define "d" }}{{ replace "a/" $r "t" }}{{ end }}', values) == []
    assert resolved('{{ define "d" }}{{ $r := "x/" }}{{ replace "a/" $r "t" }}{{ end }}', values) == ["x/"]
    # default replaces an empty value (piped or called); a parenthesized pipeline as the argument is not read
    assert resolved('{{ replace "a/" (.Values.empty | default "d/") "t" }}', values) == [None]
    assert resolved('{{ $r := .Values.empty | default "d/" }}{{ replace "a/" $r "t" }}', values) == ["d/"]
    assert resolved('{{ $r := default "d/" .Values.missing }}{{ replace "a/" $r "t" }}', values) == ["d/"]
    # a missing key without a default, a number, a call: not a string helm's replace accepts
    assert resolved('{{ replace "a/" .Values.missing "t" }}', values) == [None]
    assert resolved('{{ replace "a/" .Values.node.registry "t" }}', values) == [None]
    assert resolved('{{ replace "a/" .Values.missing.registry "t" }}', values) == [None]
    assert resolved('{{ replace "a/" (printf "%s/" .Values.registry) "t" }}', values) == [None]
    # comments and "}}" inside a string end no action
    assert resolved('{{/* replace "a/" "no/" */}}{{ replace "a/" "}}/" "t" }}', values) == ["}}/"]


def test_an_unclosed_action_ends_the_template_in_one_pass() -> None:
    """Every "{{" after an unclosed one was tried against the rest of the template: 40 kB of "{{"
    (or of "/*" in one action) ran for a minute, a chart file of megabytes for hours. text/template
    fails at the unclosed action, so the template gives nothing; a comment closes before its "}}" only."""
    import sys

    script = (
        "from gsvendor.vendoring.rewrites import template_rewrites as t\n"
        "print(t('{{' * 500_000, {}), t('{{ ' + '/*' * 500_000, {}), t('{{ \"x' * 200_000, {}))\n"
    )
    # a separate interpreter, stopped if it runs on: the quadratic scan never finished
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "([], []) ([], []) ([], [])\n"
    before, after = '{{ replace "a/" "b/" "t" }}', '{{ replace "c/" "d/" "t" }}'
    assert template_rewrites(before + "{{ $x := `oops" + after, {}) == ([], [])
    assert [r.new for r in template_rewrites("{{- /* a }} b */ -}}" + after, {})[1]] == ["d/"]


def test_a_template_longer_than_the_limit_is_not_parsed() -> None:
    """The report's parse of a template is bounded: one above MAX_TEMPLATE characters gives nothing
    (no chart's template comes near)."""
    from gsvendor.vendoring.rewrites import MAX_TEMPLATE

    action = '{{ .Files.Get "files/x.yaml" | replace "a/" "b/" }}'
    assert template_rewrites(action, {}) == (["files/x.yaml"], [Replacement("a/", "b/")])
    assert template_rewrites(action + " " * (MAX_TEMPLATE - len(action)), {})[1] == [Replacement("a/", "b/")]
    assert template_rewrites(action + " " * (MAX_TEMPLATE - len(action) + 1), {}) == ([], [])


@pytest.mark.parametrize(
    "nest",
    [
        lambda n: "(" * n + ".Values.r" + ")" * n,
        lambda n: "(print " * n + ".Values.r" + ")" * n,
    ],
    ids=["parentheses", "calls"],
)
def test_a_replacement_nested_past_the_stack_gives_nothing_and_raises_nothing(nest) -> None:
    """The parse caught its RecursionError, the walk of the tree did not: about 300 nested parentheses
    (a depth the parse held and the walk did not, whatever the stack below) raised out of the report.
    Every depth gives the replacement whole, or nothing when too deep (as a template too long does)."""
    whole = Replacement("a/", None)  # a pipeline in parentheses is not resolved
    shallow = template_rewrites('{{ .Files.Get "files/a.yaml" }}{{ replace "a/" ' + nest(3) + ' "t" }}', {"r": "x/"})
    assert shallow == (["files/a.yaml"], [whole])
    results = set()
    for depth in range(50, 1_500, 10):
        reads, replacements = template_rewrites(
            '{{ .Files.Get "files/a.yaml" }}{{ replace "a/" ' + nest(depth) + ' "t" }}', {"r": "x/"}
        )
        assert (reads, replacements) in ((["files/a.yaml"], [Replacement("a/", None)]), ([], []))
        results.add(bool(replacements))
    assert results == {True, False}  # both sides of the stack's limit were tried
    assert template_rewrites("{{ " + "(" * 100_000 + "1" + ")" * 100_000 + " }}", {}) == ([], [])
