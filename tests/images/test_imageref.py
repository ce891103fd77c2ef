"""The image reference grammar (gsvendor.imageref), after github.com/distribution/reference."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsvendor.images.check import matches_prefix
from gsvendor.images.reference import ImageReference, InvalidReference, join_tag, parse

SHA = "sha256:" + "0123456789abcdef" * 4

# (written, registry, repository, tag, digest, normalized)
VALID = [
    ("busybox", "docker.io", "library/busybox", None, None, "docker.io/library/busybox"),
    ("kserve/agent:v0.20.0", "docker.io", "kserve/agent", "v0.20.0", None, "docker.io/kserve/agent:v0.20.0"),
    ("docker.io/kserve/agent", "docker.io", "kserve/agent", None, None, "docker.io/kserve/agent"),
    ("index.docker.io/busybox:1", "docker.io", "library/busybox", "1", None, "docker.io/library/busybox:1"),
    (
        "gsoci.azurecr.io/giantswarm/kserve-controller:v0.20.0",
        "gsoci.azurecr.io",
        "giantswarm/kserve-controller",
        "v0.20.0",
        None,
        "gsoci.azurecr.io/giantswarm/kserve-controller:v0.20.0",
    ),
    # host:port — the ':' makes the first component a registry, and 5000 is no tag
    ("registry.local:5000/team/app", "registry.local:5000", "team/app", None, None, "registry.local:5000/team/app"),
    ("myhost:5000/app:1.2", "myhost:5000", "app", "1.2", None, "myhost:5000/app:1.2"),
    # localhost is a registry without '.' or ':'
    ("localhost/app", "localhost", "app", None, None, "localhost/app"),
    ("localhost:5000/a/b:c", "localhost:5000", "a/b", "c", None, "localhost:5000/a/b:c"),
    ("[::1]:5000/app", "[::1]:5000", "app", None, None, "[::1]:5000/app"),
    # digest only, and tag and digest
    ("busybox@" + SHA, "docker.io", "library/busybox", None, SHA, "docker.io/library/busybox@" + SHA),
    (
        "ghcr.io/llm-d/llm-d-cuda:v0.8.0@" + SHA,
        "ghcr.io",
        "llm-d/llm-d-cuda",
        "v0.8.0",
        SHA,
        "ghcr.io/llm-d/llm-d-cuda:v0.8.0@" + SHA,
    ),
    # a first component with an upper-case letter is a registry (splitDockerDomain)
    ("Registry/app", "Registry", "app", None, None, "Registry/app"),
    # tags may hold upper case, '.', '-' and '_'
    ("quay.io/brancz/kube-rbac-proxy:V0.18_0-rc.1", "quay.io", "brancz/kube-rbac-proxy", "V0.18_0-rc.1", None, None),
    ("a__b/c--d/e.f", "docker.io", "a__b/c--d/e.f", None, None, "docker.io/a__b/c--d/e.f"),
]


@pytest.mark.parametrize(
    ("written", "registry", "repository", "tag", "digest", "normalized"), VALID, ids=[v[0][:40] for v in VALID]
)
def test_valid_references(written, registry, repository, tag, digest, normalized):
    reference = parse(written)
    assert (reference.registry, reference.repository, reference.tag, reference.digest) == (
        registry,
        repository,
        tag,
        digest,
    )
    if normalized is not None:
        assert reference.normalized == normalized


# (written, reason, a fragment of the message)
INVALID = [
    ("kserve/Agent:v1", "invalid", "repository name (kserve/Agent) must be lowercase"),
    ("Busybox", "invalid", "must be lowercase"),
    ("", "empty", "empty image reference"),
    ("   ", "empty", "empty image reference"),
    ("{{ .Values.image }}", "templated", "is a template"),
    ("gsoci.azurecr.io/giantswarm/x:{{ .Chart.AppVersion }}", "templated", "is a template"),
    ("busybox@sha256:abc", "invalid", "invalid reference format"),
    ("busybox@sha256:" + "a" * 63, "invalid", "needs 64 hex digits, has 63"),
    ("busybox@sha256:" + "a" * 70, "invalid", "needs 64 hex digits, has 70"),
    ("busybox@md5:" + "a" * 32, "invalid", "unsupported digest algorithm 'md5'"),
    ("busybox:" + "t" * 129, "invalid", "invalid reference format"),
    ("busybox:-tag", "invalid", "invalid reference format"),
    ("a" * 64, "invalid", "cannot specify 64-byte hexadecimal strings"),
    ("gsoci.azurecr.io/", "invalid", "invalid reference format"),
    ("docker.io//x", "invalid", "invalid reference format"),
    ("bad_host.io/x", "invalid", "registry 'bad_host.io'"),
    (" busybox", "invalid", "surrounding whitespace"),
    ("x" * 256, "invalid", "more than 255 characters"),
]


@pytest.mark.parametrize(
    ("written", "reason", "fragment"), INVALID, ids=[f"{v[0][:24]!r}({len(v[0])})" for v in INVALID]
)
def test_invalid_references_raise_a_typed_error(written, reason, fragment):
    with pytest.raises(InvalidReference) as caught:
        parse(written)
    assert caught.value.reason == reason
    assert fragment in str(caught.value)
    assert caught.value.exit_code == 1


def test_join_tag_keeps_ports_tags_and_digests():
    assert join_tag("kserve/art-explainer", "v0.20.0") == "kserve/art-explainer:v0.20.0"
    assert join_tag("registry:5000/app", "v1") == "registry:5000/app:v1"
    assert join_tag("kserve/agent:v1", "v2") == "kserve/agent:v1"
    assert join_tag("kserve/agent@" + SHA, "v2") == "kserve/agent@" + SHA
    assert join_tag("kserve/agent", "") == "kserve/agent"
    assert join_tag("", "2.6.2") == ""


def test_prefixes_match_at_a_name_boundary():
    assert matches_prefix("gsoci.azurecr.io/giantswarm/x", "gsoci.azurecr.io/")
    assert matches_prefix("gsoci.azurecr.io/giantswarm/x", "gsoci.azurecr.io")
    assert matches_prefix("gsoci.azurecr.io/giantswarm/x:v1", "gsoci.azurecr.io/giantswarm/x")
    assert not matches_prefix("gsoci.azurecr.io.evil.com/x", "gsoci.azurecr.io")
    assert not matches_prefix("gsoci.azurecr.io.evil.com/x", "gsoci.azurecr.io/")
    assert not matches_prefix("docker.io/giantswarm/x", "gsoci.azurecr.io/")


# Strategies that follow the grammar, so most examples are valid references.
_alnum = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6)
_separator = st.sampled_from([".", "_", "__", "-", "--"])
_component = st.builds(
    lambda first, rest: first + "".join(s + a for s, a in rest),
    _alnum,
    st.lists(st.tuples(_separator, _alnum), max_size=2),
)
_path = st.lists(_component, min_size=1, max_size=3).map("/".join)
_domain_label = st.from_regex(r"\A[a-zA-Z0-9]([a-zA-Z0-9-]{0,6}[a-zA-Z0-9])?\Z")
_host = st.one_of(
    st.lists(_domain_label, min_size=2, max_size=3).map(".".join),
    st.just("localhost"),
    st.just("[::1]"),
    st.just("docker.io"),
    st.just("index.docker.io"),
)
_registry = st.one_of(st.none(), _host, st.tuples(_host, st.integers(1, 65535)).map(lambda hp: f"{hp[0]}:{hp[1]}"))
_tag = st.one_of(st.none(), st.from_regex(r"\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}\Z"))
_digest = st.one_of(
    st.none(),
    st.sampled_from([("sha256", 64), ("sha512", 128)]).flatmap(
        lambda a: st.text(alphabet="0123456789abcdef", min_size=a[1], max_size=a[1]).map(lambda h: f"{a[0]}:{h}")
    ),
)


@st.composite
def written_references(draw: st.DrawFn) -> str:
    registry, path, tag, digest = draw(_registry), draw(_path), draw(_tag), draw(_digest)
    text = f"{registry}/{path}" if registry else path
    if tag:
        text += f":{tag}"
    if digest:
        text += f"@{digest}"
    return text


@given(written_references())
def test_formatting_a_parsed_reference_and_parsing_it_again_is_stable(written):
    try:
        reference = parse(written)
    except InvalidReference as exc:  # e.g. an upper-case first component followed by a bad path
        assert exc.reason == "invalid"
        return
    again = parse(reference.normalized)
    assert again == reference
    assert again.normalized == reference.normalized
    assert parse(again.normalized) == again


@given(st.text(max_size=80))
def test_any_text_either_parses_or_raises_the_typed_error(text):
    try:
        reference = parse(text)
    except InvalidReference as exc:
        assert exc.reason in {"empty", "templated", "invalid"}
    else:
        assert isinstance(reference, ImageReference)
        assert parse(reference.normalized) == reference
