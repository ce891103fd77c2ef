"""The Dockerfile reader: instructions, ARGs, stages and base images."""

from __future__ import annotations

from pathlib import Path

import pytest

from gsvendor.controller_images import dockerfile
from gsvendor.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]

MULTI = """\
# syntax=docker/dockerfile:1

# renovate: datasource=github-releases depName=kserve/kserve
ARG KSERVE_VERSION=v0.20.0
ARG GO_VERSION=1.25.8
ARG BASE_REGISTRY
ARG DISTROLESS="gcr.io/distroless/static:nonroot"

# not attached to the FROM: a blank line follows

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS builder
ARG KSERVE_VERSION
ARG TARGETOS TARGETARCH
ARG CGO=0 LDFLAGS="-s -w"
RUN echo building \\
    # a comment inside a continuation is dropped
    ${KSERVE_VERSION} \\

    for ${TARGETOS}/${TARGETARCH}
RUN <<EOF
FROM this-is-a-heredoc-body
ARG NOT_AN_ARG=1
EOF

FROM builder AS tested
RUN go test ./...

from ${BASE_REGISTRY:-docker.io}/library/alpine:3.22 as tools

FROM ${DISTROLESS}
COPY --from=builder /out/manager /manager
"""


def test_global_args_with_and_without_default() -> None:
    parsed = dockerfile.parse(MULTI)
    args = {a.name: a for a in parsed.global_args}
    assert list(args) == ["KSERVE_VERSION", "GO_VERSION", "BASE_REGISTRY", "DISTROLESS"]
    assert args["KSERVE_VERSION"].default == "v0.20.0"
    assert args["KSERVE_VERSION"].line == 4
    assert args["KSERVE_VERSION"].renovate == "datasource=github-releases depName=kserve/kserve"
    assert args["GO_VERSION"].renovate is None
    assert args["BASE_REGISTRY"].default is None
    assert args["DISTROLESS"].default == "gcr.io/distroless/static:nonroot"


def test_the_pin() -> None:
    pin = dockerfile.parse(MULTI).pin("KSERVE_VERSION")
    assert pin is not None and (pin.default, pin.line) == ("v0.20.0", 4)
    assert dockerfile.parse(MULTI).pin("NOPE") is None


def test_stages_and_their_base_images() -> None:
    parsed = dockerfile.parse(MULTI)
    assert [(s.index, s.name, s.base, s.line) for s in parsed.stages] == [
        (0, "builder", "golang:1.25.8", 11),
        (1, "tested", "builder", 25),
        (2, "tools", "docker.io/library/alpine:3.22", 28),
        (3, None, "gcr.io/distroless/static:nonroot", 30),
    ]
    builder, tested, tools, _ = parsed.stages
    image = builder.image
    assert image is not None and (image.registry, image.repository, image.tag) == (
        "docker.io",
        "library/golang",
        "1.25.8",
    )
    assert tested.base_stage == "builder" and tested.image is None
    assert tools.image is not None and tools.image.repository == "library/alpine"


def test_stage_args_stay_in_their_stage() -> None:
    builder = dockerfile.parse(MULTI).stages[0]
    assert [(a.name, a.default) for a in builder.args] == [
        ("KSERVE_VERSION", None),
        ("TARGETOS", None),
        ("TARGETARCH", None),
        ("CGO", "0"),
        ("LDFLAGS", "-s -w"),
    ]


def test_continuations_comments_and_heredocs() -> None:
    instructions = dockerfile.parse(MULTI).instructions
    runs = [i for i in instructions if i.name == "RUN"]
    assert runs[0].args == ["echo building     ${KSERVE_VERSION}     for ${TARGETOS}/${TARGETARCH}"]
    assert (runs[0].start_line, runs[0].end_line) == (15, 19)
    assert [h.content for h in runs[1].heredocs] == ["FROM this-is-a-heredoc-body\nARG NOT_AN_ARG=1\n"]
    assert "NOT_AN_ARG" not in {a.name for s in dockerfile.parse(MULTI).stages for a in s.args}
    assert [i.name for i in instructions].count("FROM") == 4
    assert instructions[0].name == "ARG"  # the syntax directive is neither an instruction nor a comment


def test_an_unset_arg_in_from_expands_empty() -> None:
    parsed = dockerfile.parse("ARG TAG\nFROM golang:${TAG}\nFROM alpine:$MISSING\n")
    assert [s.base for s in parsed.stages] == ["golang:", "alpine:"]


def test_only_global_args_reach_from() -> None:
    parsed = dockerfile.parse("FROM golang:1.25 AS a\nARG V=1.24\nFROM golang:${V}\n")
    assert parsed.stages[1].base == "golang:"


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("${A:-x}", {"A": None}, "x"),
        ("${A:-x}", {"A": ""}, "x"),
        ("${A-x}", {"A": ""}, ""),
        ("${A:+y}", {"A": "1"}, "y"),
        ("${A:+y}", {"A": ""}, ""),
        ("${A+y}", {"A": ""}, "y"),
        ("$A/$B", {"A": "1", "B": "2"}, "1/2"),
        ("\\$A", {"A": "1"}, "$A"),
        ("a$", {}, "a$"),
    ],
)
def test_expand(text: str, values: dict[str, str | None], expected: str) -> None:
    assert dockerfile.expand(text, values) == expected


def test_escape_directive() -> None:
    parsed = dockerfile.parse("# escape=`\nARG V=1\nFROM golang:${V} `\n  AS b\nRUN echo a\\b\n")
    assert [(s.name, s.base) for s in parsed.stages] == [("b", "golang:1")]
    assert parsed.instructions[-1].args == ["echo a\\b"]


def test_a_base_that_is_no_reference_has_no_image() -> None:
    """``golang:`` (an unset ARG) breaks the distribution grammar: no image, so no Go builder to judge."""
    stage = dockerfile.parse("ARG TAG\nFROM golang:${TAG}\n").stages[0]
    assert (stage.base, stage.image) == ("golang:", None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FROM a b c d\n", "Dockerfile:1: FROM: expected"),
        ("ARG 1X=2\n", "Dockerfile:1: ARG: '1X' is not a valid name"),
        ("ARG X='unbalanced\n", "Dockerfile:1: ARG: .*matching single-quote"),
        ("FROM a\nRUN <<EOF\nnever ends\n", "Dockerfile:2: unterminated heredoc"),
        ("FROM a\nFROB x\n", "Dockerfile:2: unknown instruction: FROB"),
        ("# escape=x\nFROM a\n", "Dockerfile:1: invalid escape token 'x'"),
        ("FROM ${A\n", "Dockerfile:1: FROM: .*missing '}'"),
    ],
)
def test_errors_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        dockerfile.parse(text)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"Dockerfile\.x: not found"):
        dockerfile.read(tmp_path / "nope", "Dockerfile.x")


@pytest.mark.parametrize("name", ["Dockerfile", "Dockerfile.llmisvc"])
def test_the_projects_dockerfiles(name: str) -> None:
    """The real Dockerfiles: pinned under a renovate comment, cross-compiling golang builder, distroless nonroot."""
    parsed = dockerfile.read(ROOT / name)
    pin = parsed.pin("KSERVE_VERSION")
    assert pin is not None and pin.default is not None and pin.default.startswith("v")
    assert pin.renovate == "datasource=github-releases depName=kserve/kserve"
    assert parsed.global_args[-1] == pin
    builder, runtime = parsed.stages
    assert builder.image is not None and builder.image.repository == "library/golang"
    assert {"TARGETOS", "TARGETARCH", "KSERVE_VERSION"} <= {a.name for a in builder.args}
    assert runtime.base == "gcr.io/distroless/static:nonroot"
    assert any(i.name == "USER" and i.args == ["65532:65532"] for i in parsed.instructions)


def test_the_llmisvc_dockerfile_applies_the_series_before_building() -> None:
    instructions = dockerfile.read(ROOT / "Dockerfile.llmisvc").instructions
    copy = next(i for i in instructions if i.name == "COPY" and "patches/llmisvc/" in i.args)
    apply = next(i for i in instructions if i.name == "RUN" and "git apply" in i.original)
    build = next(i for i in instructions if i.name == "RUN" and "go build" in i.original)
    assert copy.start_line < apply.start_line < build.start_line
    assert "/patches/*.patch" in apply.original and "exit 1" in apply.original


def test_thousands_of_stages_and_args_parse() -> None:
    """20,000 stages, then 20,000 ARGs in one stage: every stage and ARG read, a later FROM naming a
    stage in any case. How long it takes is benchmarks/bench_parse.py's (make bench)."""
    from gsvendor.controller_images.dockerfile import parse

    stages = "".join(f"FROM golang:1.25 AS s{i}\nARG V{i}\nRUN echo {i}\n" for i in range(20_000))
    args = "FROM golang:1.25 AS last\n" + "".join(f"ARG A{i}=1\n" for i in range(20_000)) + "FROM S19999\n"
    parsed = parse("ARG KSERVE_VERSION=v1.0.0\n" + stages + args)
    assert len(parsed.stages) == 20_002
    assert parsed.stages[0].args[0].name == "V0" and len(parsed.stages[-2].args) == 20_000
    assert parsed.stages[-1].base_stage == "s19999"  # a stage's name in any case


def test_the_comments_above_a_stage_arg_in_a_crlf_file() -> None:
    """BuildKit's parser drops comments; the ones directly above an ARG are read from the text, CRs removed."""
    pin = dockerfile.parse("FROM a\r\n\r\n# renovate: depName=x\r\nARG V=1\r\n").pin("V")
    assert pin is not None and (pin.default, pin.line, pin.renovate) == ("1", 4, "depName=x")


def test_json_form_nested_past_the_recursion_limit_is_one_error() -> None:
    """The parser reads ``RUN [[[…`` with json.loads, which recursed out of the stack: a RecursionError
    traceback instead of an error naming the file."""
    with pytest.raises(ConfigError) as caught:
        dockerfile.parse("FROM a\nRUN " + "[" * 100_000 + "\n", "Dockerfile.x")
    assert caught.value.problems == ["Dockerfile.x: nested too deeply to parse (a JSON array of thousands of '[')"]
    assert caught.value.file == "Dockerfile.x"


@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_substitutions_nested_too_deeply_put_the_reason_before_the_word(depth: int) -> None:
    """``${a:-${a:-…}}`` thousands deep: the lexer's RecursionError was reported as 'failed to process
    '<the whole word>': maximum recursion depth exceeded', the reason past the end of a cut line."""
    word = "${a:-" * depth + "x" + "}" * depth
    with pytest.raises(ConfigError) as caught:
        dockerfile.parse(f"ARG a\nFROM {word}\n")
    (problem,) = caught.value.problems
    assert problem == "Dockerfile:2: FROM: ${…} substitutions nested too deeply: '" + word[:80] + "…'"
    assert caught.value.file == "Dockerfile"
    with pytest.raises(ConfigError) as caught:
        dockerfile.parse(f"ARG b={word}\nFROM a\n")
    assert caught.value.problems == ["Dockerfile:1: ARG: ${…} substitutions nested too deeply: 'b=" + word[:78] + "…'"]


def test_a_shallow_nesting_still_expands() -> None:
    word = "${a:-" * 50 + "x" + "}" * 50
    assert dockerfile.parse(f"ARG a\nFROM {word}\n").stages[0].base == "x"
