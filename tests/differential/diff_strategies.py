"""Hypothesis strategies for the differential tests: values.yaml texts and README.md.gotmpl texts.

The values files are written as text (not dumped from data) so that they carry what the real
tools read beyond the data: every YAML scalar style, helm-docs ``# --`` comments on one and
several lines (with trailing spaces), ``@default``/``@section``/``@raw`` lines,
helm-values-schema-json ``# @schema`` annotations above and beside keys, anchors and aliases,
``---`` markers, and documents that are empty, only ``---`` or only comments.
"""

from __future__ import annotations

from hypothesis import strategies as st

# scalars as written in YAML; the real parsers decide what they mean
PLAIN_SCALARS = (
    "0",
    "42",
    "-7",
    "+3",
    "007",
    "0x1F",
    "0o17",
    "1_000",
    "123456789012345678901",
    "-0",
    "1.5",
    "-2.25",
    ".5",
    "1e3",
    "6.02e+23",
    "0.0",
    "1.0",
    ".inf",
    "-.Inf",
    ".NaN",
    "true",
    "false",
    "True",
    "FALSE",
    "yes",
    "no",
    "on",
    "off",
    "~",
    "null",
    "Null",
    "hello",
    "hello world",
    "2024-01-01",
    "12:30",
    "a|b",
    "x<y>&z",
    "`code`",
    "v1.2.3",
    "gsoci.azurecr.io/giantswarm/image:v1",
    "ünïcödé",
    "a: b",
    "-",
    "@at",
)
QUOTED_SCALARS = (
    '""',
    "''",
    '"quoted"',
    "'single'",
    '"with \\"escape\\""',
    '"tab\\there"',
    '"\\u00e9"',
    '"line\\nbreak"',
    "'it''s'",
    '"<html> & stuff"',
    '"123"',
    "'true'",
    '"  padded  "',
    '"a|b"',
)
KEYS = (
    "enabled",
    "image",
    "name",
    "replicas",
    "resources",
    "global",
    "tag",
    "a",
    "b",
    "z",
    "llm-d",
    "kserve",
    "camelCase",
    "with_underscore",
    "x1",
    "Zeta",
    "alpha",
    "items",
    '"quoted key"',
    "'single key'",
    "dotted.key",
    "1",
    "true",
    "null",
    "key with space",
)
WORDS = ("first", "second", "line", "value", "the", "`code`", "a|b", "<b>", "&amp;", "ünï", "--", "x")
ANNOTATIONS = (
    "type: string",
    "type: [string, null]",
    "type: integer",
    "type: object",
    "type: array",
    "title: A title",
    "description: From annotation",
    "required: true",
    "hidden: true",
    "minimum: 0",
    "maximum: 10",
    "enum: [a, b, 1]",
    "default: x",
    "pattern: ^a.*$",
    "additionalProperties: true",
    "additionalProperties: false",
    "skipProperties: true",
    "examples: [1, two]",
    "deprecated: true",
    "readOnly: true",
    "format: uri",
    "$comment: note",
    "minLength: 1",
    "maxItems: 3",
    "items: {type: string}",
    "uniqueItems: true",
    'additionalProperties: {"type": "string"}',
    "const: fixed",
    "multipleOf: 2",
    "type: string; description: two keys",
    "mergeProperties: true",
    "writeOnly: true",
)


def _text(draw: st.DrawFn, lo: int = 1, hi: int = 5) -> str:
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=lo, max_size=hi)))


@st.composite
def head_comment(draw: st.DrawFn, pad: str, scalar: bool = True) -> list[str]:
    """Comment lines above a key: helm-docs descriptions, @schema annotations, plain comments."""
    lines: list[str] = []
    kind = draw(st.sampled_from(["none", "none", "doc", "doc", "doc-multi", "plain", "schema", "doc-schema"]))
    if kind == "plain":
        lines.append(f"{pad}# {_text(draw)}")
    if kind in ("schema", "doc-schema"):
        lines.append(f"{pad}# @schema {draw(st.sampled_from(ANNOTATIONS))}")
    if kind.startswith("doc"):
        typ = draw(st.sampled_from(["", "", "(string) ", "(int) ", "(tpl/object) "]))
        trailing = draw(st.sampled_from(["", "", " ", "  "]))
        lines.append(f"{pad}# -- {typ}{_text(draw)}{trailing}")
        if kind == "doc-multi":
            if draw(st.booleans()):
                lines.append(f"{pad}# @raw")
            for _ in range(draw(st.integers(1, 3))):
                trailing = draw(st.sampled_from(["", " ", "  ", "\t"]))
                sep = draw(st.sampled_from([" ", " ", "", "   "]))
                lines.append(f"{pad}#{sep}{_text(draw)}{trailing}")
        extra = draw(st.sampled_from(["", "", "default", "section", "notation"]))
        if extra == "default":
            lines.append(f"{pad}# @default -- {_text(draw)}")
        elif extra == "section":
            lines.append(f"{pad}# @section -- {draw(st.sampled_from(['Section A', 'Section B']))}")
        elif extra == "notation":
            # yaml notation on a collection prints yaml.v3's encoding of the node (a known difference)
            notations = ["yaml", "tpl", "string"] if scalar else ["tpl", "string"]
            lines.append(f"{pad}# @notationType -- {draw(st.sampled_from(notations))}")
    return lines


class _Doc:
    def __init__(self) -> None:
        self.anchors: list[str] = []  # complete anchored nodes an alias may name
        self.count = 0


def _inline_comment(draw: st.DrawFn) -> str:
    choice = draw(st.sampled_from(["", "", "", "", "plain", "schema"]))
    if choice == "plain":
        return f"  # {_text(draw, 1, 3)}"
    if choice == "schema":
        return f"  # @schema {draw(st.sampled_from(ANNOTATIONS))}"
    return ""


def _scalar(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(PLAIN_SCALARS + QUOTED_SCALARS))


def _flow(draw: st.DrawFn) -> str:
    return draw(
        st.sampled_from(
            [
                "[]",
                "{}",
                "[1, 2]",
                '["a", b]',
                "{a: 1}",
                "{a: 1, b: [x, y]}",
                "[{name: n, value: v}]",
                "[[]]",
                "{x: {}}",
            ]
        )
    )


def _value(draw: st.DrawFn, doc: _Doc, indent: int, depth: int) -> list[str]:
    """A value after ``key:`` — its first line's tail (starting with a space or empty) and more lines."""
    pad = " " * (indent + 2)
    choices = ["scalar"] * 5 + ["flow", "block", "alias"]
    if depth < 3:
        choices += ["map"] * 3 + ["list"] * 2
    choice = draw(st.sampled_from(choices))
    anchor = ""
    if choice in ("scalar", "map", "list", "flow") and draw(st.integers(0, 9)) == 0:
        name = f"a{doc.count}"
        doc.count += 1
        anchor = f" &{name}"
    else:
        name = ""
    if choice == "alias" and not doc.anchors:
        choice = "scalar"
    if choice == "scalar":
        out = [f"{anchor} {_scalar(draw)}{_inline_comment(draw)}"]
    elif choice == "flow":
        out = [f"{anchor} {_flow(draw)}{_inline_comment(draw)}"]
    elif choice == "alias":
        out = [f" *{draw(st.sampled_from(doc.anchors))}"]
    elif choice == "block":
        style = draw(st.sampled_from(["|", ">", "|-", ">+", "|2"]))
        body = [f"{pad}{_text(draw)}" for _ in range(draw(st.integers(1, 3)))]
        out = [f" {style}", *body]
    elif choice == "map":
        out = [anchor + _inline_comment(draw), *_mapping(draw, doc, indent + 2, depth + 1)]
    else:
        seq_pad = pad if draw(st.booleans()) else " " * indent
        out = [anchor]
        for _ in range(draw(st.integers(1, 3))):
            if depth < 2 and draw(st.integers(0, 3)) == 0:
                inner = _mapping(draw, doc, len(seq_pad) + 2, depth + 2)
                out.append(f"{seq_pad}- {inner[0].lstrip()}")
                out.extend(inner[1:])
            else:
                out.append(f"{seq_pad}- {_scalar(draw)}")
    if name:
        doc.anchors.append(name)
    return out


def _mapping(draw: st.DrawFn, doc: _Doc, indent: int, depth: int) -> list[str]:
    pad = " " * indent
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4 if depth < 2 else 2, unique=True))
    # keys that YAML reads as the same string would be duplicates: keep one spelling each
    seen: set[str] = set()
    lines: list[str] = []
    for key in keys:
        plain = key.strip("\"'")
        if plain in seen:
            continue
        seen.add(plain)
        value = _value(draw, doc, indent, depth)
        lines.extend(draw(head_comment(pad, scalar=len(value) == 1 and not value[0].startswith(" *"))))
        lines.append(f"{pad}{key}:{value[0]}")
        lines.extend(value[1:])
        if draw(st.integers(0, 6)) == 0:
            lines.append("")
    return lines


@st.composite
def values_yaml(draw: st.DrawFn) -> str:
    """A values.yaml text."""
    shape = draw(st.sampled_from(["map"] * 12 + ["empty", "dashes", "dashes-comment", "comment", "null", "two-docs"]))
    if shape == "empty":
        return ""
    if shape == "dashes":
        return "---\n"
    if shape == "dashes-comment":
        return "---\n# nothing here\n"
    if shape == "comment":
        return "# only a comment\n"
    if shape == "null":
        return draw(st.sampled_from(["~\n", "null\n", "---\n~\n"]))
    doc = _Doc()
    lines = _mapping(draw, doc, 0, 0)
    start = "---\n" if draw(st.integers(0, 4)) == 0 else ""
    end = draw(st.sampled_from(["\n", "\n", "", "\n\n"]))
    if shape == "two-docs":
        end += "---\nother: 1\n"
    return start + "\n".join(lines) + end


SNIPPETS = (
    '{{ template "chart.header" . }}',
    '{{ template "chart.deprecationWarning" . }}',
    '{{ template "chart.badgesSection" . }}',
    '{{ template "chart.description" . }}',
    '{{ template "chart.homepageLine" . }}',
    '{{ template "chart.maintainersSection" . }}',
    '{{ template "chart.sourcesSection" . }}',
    '{{ template "chart.requirementsSection" . }}',
    '{{ template "chart.valuesSection" . }}',
    '{{ template "chart.valuesSectionHtml" . }}',
    '{{ template "chart.valuesTable" . }}',
    '{{ template "chart.valuesHeader" . }}',
    '{{ template "chart.versionBadge" . }}',
    '{{ template "chart.typeBadge" . }}',
    '{{ template "chart.appVersionBadge" . }}',
    '{{ template "helm-docs.versionFooter" . }}',
    "{{ .Name }} {{ .Version }} {{ .AppVersion }}",
    "{{ range .Values }}* {{ .Key }} ({{ .Type }}): {{ .Description }} = {{ .Default }}\n{{ end }}",
    "{{ range .Sections.Sections }}## {{ .SectionName }}\n{{ range .SectionItems }}- {{ .Key }}\n{{ end }}{{ end }}",
    '{{ .Description | default "none" | upper }}',
    "{{ if .Values }}has values{{ else }}no values{{ end }}",
    "Trailing space here \nand more",
    "\n\n\n\nmany blank lines\n\n\n",
    "{{- /* a comment */ -}}",
)


@st.composite
def readme_template(draw: st.DrawFn) -> str:
    """A README.md.gotmpl text made of helm-docs' named templates and plain template text."""
    parts = draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=6))
    sep = draw(st.sampled_from(["\n", "\n\n", " "]))
    return sep.join(parts) + draw(st.sampled_from(["\n", ""]))


CHART_YAMLS = (
    "apiVersion: v2\nname: {name}\nversion: 1.0.0\n",
    "apiVersion: v2\nname: {name}\ndescription: A chart | with <html> & `code`\nversion: 0.1.0\n"
    "appVersion: v1.2.3\ntype: application\nhome: https://example.com\nsources:\n  - https://github.com/x/y\n"
    "maintainers:\n  - name: me\n    email: me@example.com\n  - name: you\n    url: https://you\n",
    'apiVersion: v2\nname: {name}\nversion: "[[ .Version ]]"\nappVersion: "0.20"\ndeprecated: true\n'
    "dependencies:\n  - name: dep\n    version: 1.x\n    repository: https://charts.example.com\n    alias: d\n",
)


def chart_yaml(name: str, kind: int) -> str:
    """A Chart.yaml text for chart ``name``: minimal, full metadata, or deprecated with a dependency."""
    return CHART_YAMLS[kind % len(CHART_YAMLS)].format(name=name)


# --- charts as helm-docs finds them: default template, .Files, extra template files, nested charts,
# tabs between comment lines, recursive anchors, @notationType -- yaml collections

FILES_SNIPPETS = (
    "{{ .ChartDirectory }}",
    '{{ .Files.Get "files/x.txt" }}',
    '{{ .Files.Get "./Chart.yaml" }}',
    '{{ .Files.Get "missing.txt" }}',
    '{{ range $path, $_ := (.Files.Glob "files/*").AsMap }}{{ $path }}\n{{ end }}',
    '{{ range $path, $_ := (.Files.Glob "**.txt").AsMap }}{{ $path }}\n{{ end }}',
    '{{ (.Files.Glob "Chart.yaml").AsConfig }}',
    '{{ (.Files.Glob "files/{x,y}.txt").AsSecrets }}',
    '{{ range (.Files.Lines "{dir}/values.yaml") }}> {{ . }}\n{{ end }}',
    '{{ .Files.Lines "values.yaml" }}',
)
NOTATION_SCALARS = (
    ">\n{pad}folded text\n{pad}more",
    ">-\n{pad}folded strip",
    ">+\n{pad}keep\n",
    ">\n{pad}one\n\n{pad}two",
    "|\n{pad}a\n{pad}b",
    "|-\n{pad}lit",
    "~ # after a null",
    "# on an empty null",
    "",
    "null # c",
    "plain # line comment",
    '"quoted"',
    "[1, 2]",
    "{a: 1}",
    "42",
)


@st.composite
def notation_yaml(draw: st.DrawFn, doc: _Doc, indent: int = 2, depth: int = 0) -> list[str]:
    """A block collection for a ``@notationType -- yaml`` key: block scalars of every style, null
    values with comments, anchors and aliases, nested mappings and sequences of mappings."""
    pad = " " * indent
    lines: list[str] = []
    if depth < 2 and draw(st.integers(0, 3)) == 0:  # a sequence
        for _ in range(draw(st.integers(1, 3))):
            if depth < 1 and draw(st.booleans()):
                inner = draw(notation_yaml(doc, indent + 2, depth + 1))
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
                continue
            item = draw(st.sampled_from(["x", "~ # null item", "one # lc", "anchored"]))
            if item == "anchored":
                item = f"&n{doc.count} one"
                doc.count += 1
            lines.append(f"{pad}- {item}")
        return lines
    for index in range(draw(st.integers(1, 4))):
        key = f"k{index}"
        choice = draw(st.sampled_from(["scalar"] * 4 + ["map", "anchor", "alias"]))
        if choice == "alias" and doc.anchors:
            lines.append(f"{pad}{key}: *{draw(st.sampled_from(doc.anchors))}")
        elif choice in ("map", "anchor") and depth < 2:
            name = f"n{doc.count}"
            doc.count += 1
            # (after an anchor yaml.v3 moves a key's comment into a block sequence: not emulated)
            comment = draw(st.sampled_from(["", " # on a key"])) if choice == "map" else ""
            lines.append(f"{pad}{key}:{' &' + name if choice == 'anchor' else ''}{comment}")
            lines.extend(draw(notation_yaml(doc, indent + 2, depth + 1)))
            if choice == "anchor":
                doc.anchors.append(name)
        else:
            value = draw(st.sampled_from(NOTATION_SCALARS)).replace("{pad}", pad + "  ")
            if draw(st.integers(0, 5)) == 0 and value and not value.startswith(("#", ">", "|")):
                name = f"n{doc.count}"
                doc.count += 1
                value = f"&{name} {value}"
            lines.append(f"{pad}{key}: {value}".rstrip(" ") if value else f"{pad}{key}:")
    return lines


TAB_SMALLEST = "a: {}\n  # x\n\t# y\nb: 2\n"


@st.composite
def tab_comments(draw: st.DrawFn) -> str:
    """A values.yaml whose comment blocks have tabs before their lines (yaml.v3 accepts them after
    the block's first line; a tab before the first is refused by both tools).

    The blocks sit at the column of the key after them, a blank or a tab one column each: a block
    indented deeper than that key, or after an empty line, is given to the key before it, where
    yaml.v3 gives it to the key after (a known difference, tabs or not).
    """
    if draw(st.integers(0, 9)) == 0:
        return TAB_SMALLEST
    lines: list[str] = []
    for index in range(draw(st.integers(1, 3))):
        lines.append(f"k{index}:")
        for child in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                first = draw(st.sampled_from(["  ", "  ", "  ", "\t"]))
                lines.append(f"{first}# {_text(draw, 1, 2)}")
                for _ in range(draw(st.integers(0, 3))):
                    prefix = draw(st.sampled_from(["\t ", " \t", "\t\t", "  "]))
                    description = draw(st.sampled_from(["", "", "-- "]))
                    lines.append(f"{prefix}# {description}{_text(draw, 1, 2)}")
            lines.append(f"  c{child}: {draw(st.sampled_from(['{}', '1', 'x', '[]']))}")
    return "\n".join(lines) + "\n"


@st.composite
def recursive_anchor(draw: st.DrawFn) -> str:
    """A values.yaml with an alias inside the collection its anchor names, at some depth."""
    depth = draw(st.integers(0, 2))
    sequence = draw(st.booleans())
    lines = [f"before: {draw(st.sampled_from(['1', 'x', '{}']))}"] if draw(st.booleans()) else []
    lines.append("# -- the recursive one" if draw(st.booleans()) else "# a comment")
    lines.append("a: &x")
    pad = "  "
    for level in range(depth):
        lines.append(f"{pad}l{level}:")
        pad += "  "
    lines.append(f"{pad}- *x" if sequence else f"{pad}b: *x")
    if not sequence and draw(st.booleans()):
        lines.append(f"{pad}c: 2")
    if draw(st.booleans()):
        lines.append("after: *x")
    return "\n".join(lines) + "\n"


def _content(line: str) -> bool:
    return bool(line.strip()) and not line.startswith(("#", "---")) and line.strip() not in ("~", "null")


@st.composite
def helmdocs_chart(draw: st.DrawFn, name: str, folder: str, nested: bool = True) -> dict[str, str]:
    """One chart's files (chart-relative), as helm-docs finds them below ``folder`` (its path from
    where helm-docs runs): with or without README.md.gotmpl, an extra ``_templates.gotmpl``,
    ``files/``, values with ``@notationType -- yaml`` blocks or tabs in comments, charts inside."""
    files = {"Chart.yaml": chart_yaml(name, draw(st.integers(0, 2)))}
    kind = draw(st.sampled_from(["values", "values", "notation", "tabs"] if nested else ["values", "notation"]))
    if kind == "tabs":
        files["values.yaml"] = draw(tab_comments())
    else:
        # not a values file that is only a null document: a documented difference (helm-docs skips it)
        values = draw(values_yaml().filter(lambda text: not text or any(_content(line) for line in text.splitlines())))
        if kind == "notation":
            doc = _Doc()
            block = draw(notation_yaml(doc))
            entry = ["# -- as YAML", "# @notationType -- yaml", "notation:", *block]
            single = not values.startswith("---") and "\n---" not in values
            values = "\n".join(entry) + "\n" + (values if single else "")
        files["values.yaml"] = values
    template = draw(st.sampled_from(["default", "own", "own", "own+extra", "extra"]))
    snippets = draw(st.lists(st.sampled_from(FILES_SNIPPETS + SNIPPETS), max_size=4))
    pieces = [piece.replace("{dir}", folder) for piece in snippets]
    if template in ("own+extra", "extra"):
        files["_templates.gotmpl"] = '{{ define "extra" }}Extra for {{ .Name }}{{ end }}' + draw(
            st.sampled_from(["", "\n", "\nbody of the extra file\n"])
        )
        pieces.append('{{ template "extra" . }}')
    if template in ("own", "own+extra"):
        files["README.md.gotmpl"] = draw(st.sampled_from(["\n", "\n\n", " "])).join(pieces) + draw(
            st.sampled_from(["\n", ""])
        )
    if draw(st.booleans()):
        files["files/x.txt"] = f"{_text(draw)}\n"
    if nested:
        for index in range(draw(st.integers(0, 2) if draw(st.integers(0, 2)) == 0 else st.just(0))):
            sub = f"charts/s{index}"
            inner = draw(helmdocs_chart(f"{name}-s{index}", f"{folder}/{sub}", nested=False))
            files.update({f"{sub}/{path}": text for path, text in inner.items()})
    return files
