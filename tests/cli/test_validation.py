"""Schema errors of gsvendor.yaml and overlays/*.yaml: one line per mistake, a misspelt key once."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

from gsvendor.config import CONFIG_SCHEMA
from gsvendor.errors import ConfigError
from gsvendor.overlays.engine import OVERLAY_SCHEMA
from gsvendor.yamlio import load_validated

TOP = (
    "charts, dockerfiles, files, generate, images, lock, manifests, output, overlays, patches, pinDockerfile, upstream"
)
OPERATION = "charts, crd, description, exclude, file, glob, op, values, versions"


def errors(tmp_path: Path, text: str, schema: dict, label: str = "gsvendor.yaml") -> list[str]:
    path = tmp_path / "file.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_validated(path, schema, label)
    return str(caught.value).splitlines()


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "upstreem: {repository: a/b}\ncharts: [a]\n",
            [f"gsvendor.yaml:1: upstreem: unknown key 'upstreem'; did you mean upstream? (known here: {TOP})"],
        ),
        (
            "upstream: {repositry: a/b}\ncharts: [a]\n",
            [
                "gsvendor.yaml:1: upstream.repositry: unknown key 'repositry'; did you mean repository? "
                "(known here: archiveUrl, gitUrl, repository, tagPattern)"
            ],
        ),
        # a chart entry is a oneOf (name or mapping): the mapping's alternative alone is reported
        (
            "upstream: {repository: a/b}\ncharts:\n  - {nam: kserve-crd}\n",
            [
                "gsvendor.yaml:3: charts[0].nam: unknown key 'nam'; did you mean name? "
                "(known here: dest, exclude, include, name, path, render)"
            ],
        ),
        (
            "upstream: {repository: a/b}\ncharts: [a]\nimages:\n  mirrors:\n    - {mirror: x/, upstreem: y/}\n",
            [
                "gsvendor.yaml:5: images.mirrors[0].upstreem: unknown key 'upstreem'; did you mean upstream? "
                "(known here: mirror, upstream)"
            ],
        ),
        # the other missing key has no look-alike: still reported
        (
            "upstreem: {repository: a/b}\n",
            [
                f"gsvendor.yaml:1: upstreem: unknown key 'upstreem'; did you mean upstream? (known here: {TOP})",
                "gsvendor.yaml: (top level): 'charts' is a required property",
            ],
        ),
        # two unknown keys, one of them the missing key misspelt
        (
            "upstream: {repository: a/b}\nchrats: [a]\nfoo: 1\n",
            [
                f"gsvendor.yaml:2: chrats: unknown key 'chrats'; did you mean charts? (known here: {TOP})",
                f"gsvendor.yaml:3: foo: unknown key 'foo' (known here: {TOP})",
            ],
        ),
        # a missing key with no misspelt look-alike, as before
        (
            "charts: [a]\nfoo: 1\n",
            [
                f"gsvendor.yaml:2: foo: unknown key 'foo' (known here: {TOP})",
                "gsvendor.yaml: (top level): 'upstream' is a required property",
            ],
        ),
    ],
    ids=["top-level", "nested", "chart-entry", "list-item", "another-missing", "one-of-two-unknown", "no-lookalike"],
)
def test_a_misspelt_required_key_is_one_line(tmp_path: Path, text: str, lines: list[str]) -> None:
    assert errors(tmp_path, text, CONFIG_SCHEMA) == lines


def test_overlays_follow_the_same_rule(tmp_path: Path) -> None:
    label = "overlays/50-bad.yaml"
    head = "operations:\n  - op: yaml-set\n    file: Chart.yaml\n"
    assert errors(tmp_path, head + "    valeus: {a: 1}\n", OVERLAY_SCHEMA, label) == [
        f"{label}:4: operations[0].valeus: unknown key 'valeus'; did you mean values? (known here: {OPERATION})"
    ]
    assert errors(tmp_path, head, OVERLAY_SCHEMA, label) == [
        f"{label}:2: operations[0]: 'values' is a required property"
    ]


def test_the_cli_says_it_in_one_line(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "gsvendor.yaml").write_text("upstreem: {repository: a/b}\ncharts: [a]\n")
    result = cli(tmp_path, "verify")
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"error: gsvendor.yaml:1: upstreem: unknown key 'upstreem'; did you mean upstream? (known here: {TOP})\n",
    )
