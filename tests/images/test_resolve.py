"""`gsvendor check-images --resolve` end to end against a real OCI registry.

Debian's docker-registry (the CNCF distribution registry) runs on 127.0.0.1 at a free port with
its storage in a temporary folder; artifacts are pushed with oras-py. Fixture charts reference
``127.0.0.1:PORT/...``; ``--allow 127.0.0.1:PORT/`` lets the prefix check pass so that --resolve
does the work, and ``--insecure-registry 127.0.0.1:PORT`` lets it speak plain HTTP. Nothing here
talks to any address but 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from imagekit import invoke, write_config
from registrykit import FlakyProxy, LocalRegistry, free_port

USER, PASSWORD = "alice", "s3cret"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    """An anonymous registry with ``test/app:v1`` (content ``one``) and mirror/upstream pairs."""
    with LocalRegistry(tmp_path_factory.mktemp("registry")) as reg:
        reg.push("test/app:v1", b"one")
        reg.push("mirror/same:v1", b"same content")
        reg.push("upstream/same:v1", b"same content")
        reg.push("mirror/drift:v1", b"rebuilt by someone")
        reg.push("upstream/drift:v1", b"the original")
        reg.push("mirror/lonely:v1", b"no upstream")
        yield reg


@pytest.fixture(scope="module")
def auth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    """A registry behind htpasswd (bcrypt) with ``private/app:v1``."""
    with LocalRegistry(tmp_path_factory.mktemp("auth-registry"), users={USER: PASSWORD}) as reg:
        reg.push("private/app:v1", b"secret artifact", auth=(USER, PASSWORD))
        yield reg


@pytest.fixture(autouse=True)
def no_user_docker_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's ~/.docker/config.json is never read: DOCKER_CONFIG points at an empty folder."""
    folder = tmp_path / "docker-config"
    folder.mkdir()
    monkeypatch.setenv("DOCKER_CONFIG", str(folder))
    return folder


def write_chart(folder: Path, *images: str, values: str = "") -> Path:
    """A chart whose Deployment runs one container per image (plus ``values`` in values.yaml)."""
    chart = folder / "fixture"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: fixture\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "values.yaml").write_text(textwrap.dedent(values), encoding="utf-8")
    containers = "".join(f"        - name: c{i}\n          image: {image}\n" for i, image in enumerate(images))
    (chart / "templates" / "app.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n"
        "      containers:\n" + containers,
        encoding="utf-8",
    )
    return chart


def resolve_args(host: str) -> list[str]:
    return ["--allow", f"{host}/", "--resolve", "--insecure-registry", host]


def check(
    helm: str, tmp_path: Path, chart: Path, *args: Any, images: str = "", host: str | None = None
) -> tuple[int, dict[str, Any], Any]:
    """check-images --json --resolve on ``chart``; (exit code, JSON, CliRunner result)."""
    config = write_config(tmp_path, images)
    extra = resolve_args(host) if host else []
    result = invoke("--config", config, "check-images", chart, "--helm", helm, "--json", *extra, *args)
    return result.exit_code, json.loads(result.stdout), result


def entry(data: dict[str, Any], reference: str) -> dict[str, Any]:
    """The resolve entry of a normalized reference."""
    return next(r for r in data["resolve"]["references"] if r["reference"] == reference)


# --------------------------------------------------------------------------------------------
# Lookups


def test_a_present_tag_resolves_to_its_digest(helm, tmp_path, registry):
    digest = registry.push("present/app:v1", b"present")
    ref = f"{registry.host}/present/app:v1"
    code, data, result = check(helm, tmp_path, write_chart(tmp_path, ref), host=registry.host)
    assert code == 0, result.stderr
    found = entry(data, ref)
    assert (found["outcome"], found["digest"], found["ok"]) == ("resolved", digest, True)
    assert found["lookup"]["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
    assert data["ok"] is True and data["resolve"]["ok"] is True
    # each reference in the check-images JSON carries its outcome
    refs = data["charts"][0]["variants"][0]["references"]
    assert refs[0]["resolve"]["outcome"] == "resolved" and refs[0]["resolve"]["digest"] == digest


def test_a_missing_tag_is_tag_missing_and_exit_1(helm, tmp_path, registry):
    ref = f"{registry.host}/test/app:v2"
    code, data, result = check(helm, tmp_path, write_chart(tmp_path, ref), host=registry.host)
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "tag-missing" and found["digest"] is None
    assert "MANIFEST_UNKNOWN" in found["lookup"]["detail"]
    assert data["ok"] is False
    assert "check-images failed: 1 reference(s) did not resolve" in result.stderr
    assert f"{ref} (tag-missing)" in result.stderr


def test_a_missing_repository_is_told_from_a_missing_tag(helm, tmp_path, registry):
    ref = f"{registry.host}/test/never-pushed:v1"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=registry.host)
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "repository-missing"
    assert "NAME_UNKNOWN" in found["lookup"]["detail"]


def test_a_digest_pin_present_resolves_and_a_missing_one_is_digest_missing(helm, tmp_path, registry):
    digest = registry.push("pinned/app:v1", b"pinned")
    present = f"{registry.host}/pinned/app@{digest}"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, present), host=registry.host)
    assert code == 0
    assert (entry(data, present)["outcome"], entry(data, present)["digest"]) == ("resolved", digest)

    missing = f"{registry.host}/pinned/app@sha256:{'0' * 64}"
    other = tmp_path / "other"
    other.mkdir()
    code, data, _ = check(helm, other, write_chart(other, missing), host=registry.host)
    assert code == 1
    assert entry(data, missing)["outcome"] == "digest-missing"


def test_tag_and_digest_resolve_by_the_digest_the_kubelet_pulls(helm, tmp_path, registry):
    digest = registry.push("both/app:v1", b"both")
    ref = f"{registry.host}/both/app:v9@{digest}"  # the tag is ignored by the runtime
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=registry.host)
    assert code == 0
    assert entry(data, ref)["lookup"]["target"] == f"{registry.host}/both/app@{digest}"


def test_no_tag_resolves_latest_and_says_so(helm, tmp_path, registry):
    registry.push("bare/app:latest", b"latest")
    ref = f"{registry.host}/bare/app"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=registry.host)
    assert code == 0
    found = entry(data, ref)
    assert found["implicitLatest"] is True and found["lookup"]["target"].endswith("/bare/app:latest")


def test_an_unreachable_registry_is_unreachable_and_exit_1(helm, tmp_path):
    host = f"127.0.0.1:{free_port()}"  # nothing listens there: connection refused
    ref = f"{host}/test/app:v1"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=host)
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "unreachable"
    assert found["lookup"]["detail"] == "connection refused"
    assert found["lookup"]["attempts"] == 1  # refused is not retried; 5xx and timeouts are


def test_a_500_answer_is_retried_with_backoff(helm, tmp_path, registry):
    registry.push("flaky/app:v1", b"flaky")
    with FlakyProxy(registry.host, failures=1) as proxy:
        ref = f"{proxy.host}/flaky/app:v1"
        code, data, result = check(helm, tmp_path, write_chart(tmp_path, ref), host=proxy.host)
    assert code == 0, result.stderr
    found = entry(data, ref)
    assert found["outcome"] == "resolved" and found["lookup"]["attempts"] == 2
    assert [status for _, _, status in proxy.requests] == [500, 200]


def test_plain_http_only_for_hosts_named_insecure(helm, tmp_path, registry):
    ref = f"{registry.host}/test/app:v1"
    config = write_config(tmp_path)
    result = invoke(
        "--config", config, "check-images", write_chart(tmp_path, ref), "--helm", helm, "--json",
        "--allow", f"{registry.host}/", "--resolve",
    )  # fmt: skip
    assert result.exit_code == 1
    found = entry(json.loads(result.stdout), ref)
    assert found["outcome"] == "registry-error"  # HTTPS to a plain-HTTP registry: the TLS handshake fails
    assert found["lookup"]["detail"].startswith("TLS: ")
    assert f"--insecure-registry {registry.host}" in found["lookup"]["detail"]


# --------------------------------------------------------------------------------------------
# Authentication


def test_auth_failure_without_credentials(helm, tmp_path, auth_registry):
    ref = f"{auth_registry.host}/private/app:v1"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=auth_registry.host)
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "auth-failed" and found["lookup"]["status"] == 401
    assert f"no credentials for {auth_registry.host}" in found["lookup"]["detail"]


def test_auth_failure_with_wrong_credentials(helm, tmp_path, auth_registry):
    ref = f"{auth_registry.host}/private/app:v1"
    config = tmp_path / "registry.json"
    token = base64.b64encode(f"{USER}:wrong".encode()).decode()
    config.write_text(json.dumps({"auths": {auth_registry.host: {"auth": token}}}), encoding="utf-8")
    code, data, _ = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--registry-config", config, host=auth_registry.host
    )
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "auth-failed"
    assert "were refused" in found["lookup"]["detail"]


def test_credentials_from_registry_config_base64_auth(helm, tmp_path, auth_registry):
    ref = f"{auth_registry.host}/private/app:v1"
    config = tmp_path / "registry.json"
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    config.write_text(json.dumps({"auths": {f"http://{auth_registry.host}": {"auth": token}}}), encoding="utf-8")
    code, data, _ = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--registry-config", config, host=auth_registry.host
    )
    assert code == 0
    assert entry(data, ref)["outcome"] == "resolved"


def test_credentials_from_docker_config_username_password(helm, tmp_path, auth_registry, no_user_docker_config):
    ref = f"{auth_registry.host}/private/app:v1"
    (no_user_docker_config / "config.json").write_text(
        json.dumps({"auths": {auth_registry.host: {"username": USER, "password": PASSWORD}}, "credsStore": "desktop"}),
        encoding="utf-8",
    )
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), host=auth_registry.host)
    assert code == 0
    assert entry(data, ref)["outcome"] == "resolved"
    assert any("credsStore 'desktop' is not run" in note for note in data["resolve"]["notes"])


# --------------------------------------------------------------------------------------------
# Mirrors


def mirrors(host: str) -> str:
    return f"""\
    images:
      mirrors:
        - mirror: {host}/mirror/
          upstream: {host}/upstream/
    """


def test_a_mirror_with_the_upstream_digest_is_equal(helm, tmp_path, registry):
    ref = f"{registry.host}/mirror/same:v1"
    code, data, result = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--compare-upstream", images=mirrors(registry.host),
        host=registry.host,
    )  # fmt: skip
    assert code == 0, result.stderr
    mirror = entry(data, ref)["mirror"]
    assert mirror["outcome"] == "equal"
    assert mirror["upstream"] == f"{registry.host}/upstream/same:v1"
    assert mirror["upstreamDigest"] == entry(data, ref)["digest"]
    assert data["resolve"]["summary"]["mirrors"]["equal"] == 1


def test_a_mirror_with_another_digest_is_different_and_both_are_shown(helm, tmp_path, registry):
    ref = f"{registry.host}/mirror/drift:v1"
    code, data, _ = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--compare-upstream", images=mirrors(registry.host),
        host=registry.host,
    )  # fmt: skip
    assert code == 1
    found = entry(data, ref)
    assert found["outcome"] == "resolved" and found["mirror"]["outcome"] == "different"
    assert found["digest"] != found["mirror"]["upstreamDigest"]
    assert (
        found["digest"] in found["mirror"]["detail"] and found["mirror"]["upstreamDigest"] in found["mirror"]["detail"]
    )
    # the table run prints both digests in full
    config = write_config(tmp_path, mirrors(registry.host))
    text = invoke(
        "--config", config, "check-images", tmp_path / "fixture", "--helm", helm, *resolve_args(registry.host),
        "--compare-upstream",
    )  # fmt: skip
    assert text.exit_code == 1
    assert f"mirror of {registry.host}/upstream/drift:v1: different: mirror {found['digest']}" in text.stdout
    assert "(mirror different)" in text.stderr
    assert "mirrors against upstream: 1 different" in text.stdout


def test_a_mirror_without_upstream_is_upstream_missing(helm, tmp_path, registry):
    ref = f"{registry.host}/mirror/lonely:v1"
    code, data, _ = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--compare-upstream", images=mirrors(registry.host),
        host=registry.host,
    )  # fmt: skip
    assert code == 1
    assert entry(data, ref)["mirror"]["outcome"] == "upstream-missing"


def test_a_mirror_that_does_not_resolve_is_not_compared(helm, tmp_path, registry):
    ref = f"{registry.host}/mirror/same:v2"
    code, data, _ = check(
        helm, tmp_path, write_chart(tmp_path, ref), "--compare-upstream", images=mirrors(registry.host),
        host=registry.host,
    )  # fmt: skip
    assert code == 1
    found = entry(data, ref)
    assert (found["outcome"], found["mirror"]["outcome"]) == ("tag-missing", "not-compared")


def test_without_compare_upstream_mirrors_are_not_compared(helm, tmp_path, registry):
    ref = f"{registry.host}/mirror/drift:v1"
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, ref), images=mirrors(registry.host), host=registry.host)
    assert code == 0
    assert entry(data, ref)["mirror"] is None and data["resolve"]["summary"]["mirrors"] is None


# --------------------------------------------------------------------------------------------
# Counting, caching, reports


def test_each_reference_is_asked_once_and_unresolvable_ones_are_counted(helm, tmp_path, registry):
    ref = f"{registry.host}/test/app:v1"
    chart = write_chart(
        tmp_path,
        "{{ .Values.image }}",
        ref,
        values=f"""\
        image: {ref}
        helperImage: "{{{{ .Values.image }}}}-helper"
        sidecarImage: ""
        feature:
          enabled: false
        """,
    )
    code, data, result = check(helm, tmp_path, chart, host=registry.host)
    assert code == 0, result.stderr
    summary = data["resolve"]["summary"]
    # defaults and switches-on render it twice each, values.yaml once: five occurrences, one lookup
    assert summary["occurrences"] == 5
    assert (summary["references"], summary["lookups"], summary["requests"]) == (1, 1, 1)
    assert (summary["templated"], summary["empty"]) == (1, 1)
    places = entry(data, ref)["places"]
    assert {p["variant"] for p in places} == {"defaults", "switches-on", "values.yaml"}


def test_offenders_are_not_resolved(helm, tmp_path, registry):
    ref = f"{registry.host}/test/app:v1"
    chart = write_chart(tmp_path, ref, "quay.io/somebody/else:v1")
    code, data, result = check(helm, tmp_path, chart, host=registry.host)
    assert code == 1  # the offender fails the prefix check; quay.io is never asked
    assert data["resolve"]["ok"] is True and data["resolve"]["summary"]["notAllowed"] == 1
    assert [r["reference"] for r in data["resolve"]["references"]] == [ref]
    assert "outside" in result.stderr and "did not resolve" not in result.stderr


def test_the_table_shows_digests_and_outcomes(helm, tmp_path, registry):
    digest = registry.push("table/app:v1", b"table")
    good, bad = f"{registry.host}/table/app:v1", f"{registry.host}/table/app:v2"
    result = invoke(
        "--config", write_config(tmp_path), "check-images", write_chart(tmp_path, good, bad), "--helm", helm,
        *resolve_args(registry.host),
    )  # fmt: skip
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(good in line and digest[:19] in line and "resolved" in line for line in lines), result.stdout
    assert any(bad in line and "tag-missing" in line for line in lines)
    assert f"✗ {bad}: tag-missing: HTTP 404 (MANIFEST_UNKNOWN: manifest unknown) (in fixture defaults)" in result.stdout
    assert "resolved 2 distinct reference(s) (2 occurrence(s)) with 8 job(s)" in result.stdout
    assert "1 resolved, 1 tag-missing" in result.stdout
    # the image policy passed, but the run failed: no line says ok
    assert [line for line in lines if line.startswith("ok:")] == []


def test_junit_has_a_case_per_reference(helm, tmp_path, registry):
    good, bad = f"{registry.host}/test/app:v1", f"{registry.host}/test/app:v3"
    junit = tmp_path / "out" / "check-images.xml"
    code, _, _ = check(helm, tmp_path, write_chart(tmp_path, good, bad), "--junit", junit, host=registry.host)
    assert code == 1
    cases = {
        (case.get("classname"), case.get("name")): case.find("failure")
        for case in ET.parse(junit).getroot().iter("testcase")
    }
    assert ("check-images.fixture", "defaults") in cases  # the chart × variant cases stay as they were
    assert cases[("check-images.resolve", good)] is None
    failure = cases[("check-images.resolve", bad)]
    assert failure is not None and failure.get("message", "").startswith(f"{bad}: tag-missing")


def test_resolve_jobs_one_gives_the_same_answers(helm, tmp_path, registry):
    refs = [f"{registry.host}/test/app:v1", f"{registry.host}/test/app:v4", f"{registry.host}/mirror/same:v1"]
    code, data, _ = check(helm, tmp_path, write_chart(tmp_path, *refs), "--resolve-jobs", "1", host=registry.host)
    assert code == 1
    assert data["resolve"]["summary"]["jobs"] == 1
    assert [entry(data, r)["outcome"] for r in refs] == ["resolved", "tag-missing", "resolved"]


# --------------------------------------------------------------------------------------------
# Usage errors (exit 2, one line, no traceback)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--compare-upstream"], "--compare-upstream needs --resolve"),
        (["--registry-config", "x.json"], "--registry-config needs --resolve"),
        (["--resolve", "--resolve-jobs", "0"], "--resolve-jobs"),
        (["--resolve", "--no-such-option"], "No such option"),
        (["--resolve", "--insecure-registry", "http://127.0.0.1:1"], "--insecure-registry 'http://127.0.0.1:1'"),
        (["--resolve", "--compare-upstream"], "--compare-upstream: no images.mirrors configured"),
        (["--resolve", "--registry-config", "missing.json"], "--registry-config missing.json: no such file"),
    ],
)
def test_usage_errors_exit_2(helm, tmp_path, args, needle):
    result = invoke(
        "--config", write_config(tmp_path), "check-images", write_chart(tmp_path, "127.0.0.1:1/x:v1"), "--helm", helm,
        *args,
    )  # fmt: skip
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert needle in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{not json", "not JSON"),
        ('["a list"]', "not a Docker configuration"),
        ('{"auths": {"h": {"auth": "%%%"}}}', "auths.h.auth: not base64"),
        ('{"auths": []}', "auths: must be an object"),
    ],
)
def test_a_malformed_registry_config_is_exit_2(helm, tmp_path, text, needle):
    config = tmp_path / "registry.json"
    config.write_text(text, encoding="utf-8")
    result = invoke(
        "--config", write_config(tmp_path), "check-images", write_chart(tmp_path, "127.0.0.1:1/x:v1"), "--helm", helm,
        "--resolve", "--registry-config", config,
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and needle in result.stderr, result.stderr


def test_a_bad_mirror_entry_is_a_configuration_error(helm, tmp_path):
    images = """\
    images:
      mirrors:
        - mirror: giantswarm/
          upstream: ghcr.io/llm-d/
    """
    result = invoke(
        "--config", write_config(tmp_path, images), "check-images", write_chart(tmp_path, "127.0.0.1:1/x:v1"),
        "--helm", helm, "--resolve",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "gsvendor.yaml:7: images.mirrors[0].mirror: 'giantswarm/': write it normalized" in result.stderr


def test_a_mirror_entry_missing_upstream_breaks_the_schema(helm, tmp_path):
    images = """\
    images:
      mirrors:
        - mirror: gsoci.azurecr.io/giantswarm/
    """
    result = invoke(
        "--config", write_config(tmp_path, images), "check-images", write_chart(tmp_path, "127.0.0.1:1/x:v1"),
        "--helm", helm,
    )  # fmt: skip
    assert result.exit_code == 2
    assert "images.mirrors[0]: 'upstream' is a required property" in result.stderr
