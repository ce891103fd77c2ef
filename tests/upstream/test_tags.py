"""Tags are checked against the upstream's tag pattern (``upstream.tagPattern``, default ``v<semver>``).

A tag without its ``v`` would vendor charts saying ``appVersion: 0.20.0`` and a controller image
default ``…/kserve-controller:0.20.0`` that does not exist; it is a usage error (exit 2) that
suggests the tag meant, and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, assert_one_line_error, tarball, tree

from gsvendor.config import DEFAULT_TAG_PATTERN, load_config


def test_a_tag_without_its_v_is_refused_and_helm_is_untouched(cli: Cli, project: Path) -> None:
    assert cli(project, "sync", "v0.19.0", "--source", str(tarball("v0.19.0"))).returncode == 0
    before = tree(project / "helm")
    lock = (project / "gsvendor.lock.yaml").read_bytes()
    result = cli(project, "sync", "0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(
        result,
        2,
        "'0.20.0' is not a release tag of kserve/kserve "
        "(upstream.tagPattern: v<major>.<minor>.<patch>[-<pre-release>]); did you mean v0.20.0?",
    )
    assert result.stdout == ""
    assert tree(project / "helm") == before
    assert (project / "gsvendor.lock.yaml").read_bytes() == lock
    # the same for --dry-run, and with a capital V
    dry = cli(project, "sync", "V0.20.0", "--dry-run", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(dry, 2, "did you mean v0.20.0?")


@pytest.mark.parametrize(
    ("tag", "ok"),
    [
        ("v0.20.0", True),
        ("v0.20.0-rc1", True),
        ("v1.0.0-rc.1", True),
        ("v10.2.33", True),
        ("0.20.0", False),
        ("v0.20", False),
        ("v0.20.0.1", False),
        ("v01.2.3", False),
        ("release-0.20", False),
        ("v0.20.0-", False),
    ],
)
def test_the_default_pattern_is_v_semver_with_an_optional_pre_release(project: Path, tag: str, ok: bool) -> None:
    config = load_config(project / "gsvendor.yaml")
    assert config.tag_pattern == DEFAULT_TAG_PATTERN
    if ok:
        config.check_tag(tag)
    else:
        with pytest.raises(Exception, match="is not a release tag of kserve/kserve") as raised:
            config.check_tag(tag)
        assert getattr(raised.value, "exit_code", None) == 2


def test_a_configured_pattern(cli: Cli, project: Path) -> None:
    config = project / "gsvendor.yaml"
    config.write_text(
        config.read_text().replace(
            "  repository: kserve/kserve\n", "  repository: kserve/kserve\n  tagPattern: '^release-[0-9]+$'\n"
        )
    )
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(
        result, 2, "'v0.20.0' is not a release tag of kserve/kserve (upstream.tagPattern: ^release-[0-9]+$)"
    )
    assert "did you mean" not in result.stderr
    assert not (project / "helm").exists()


def test_a_pattern_that_is_no_regular_expression_is_a_config_error(cli: Cli, project: Path) -> None:
    config = project / "gsvendor.yaml"
    config.write_text(
        config.read_text().replace(
            "  repository: kserve/kserve\n", "  repository: kserve/kserve\n  tagPattern: 'v(['\n"
        )
    )
    result = cli(project, "sync", "v0.20.0", "--source", str(tarball("v0.20.0")))
    assert_one_line_error(result, 2, "gsvendor.yaml:5: upstream.tagPattern: 'v([' is not a regular expression")
