"""Container image references, parsed by the grammar of ``github.com/distribution/reference`` (the
parser Docker, containerd and the kubelet use; the patterns below carry the names of its ``regexp.go``).

Normalization follows ``ParseNormalizedNamed``: the first path component is a registry host only
if it contains ``.`` or ``:``, is ``localhost``, or has an upper-case letter; otherwise the
registry is ``docker.io``, and a single-component name on ``docker.io`` gets ``library/``.
``index.docker.io`` is the legacy name of ``docker.io``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gsvendor.errors import GsvendorError

DEFAULT_REGISTRY = "docker.io"
LEGACY_DEFAULT_REGISTRY = "index.docker.io"
OFFICIAL_PREFIX = "library/"
NAME_TOTAL_LENGTH_MAX = 255

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = rf"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_REMOTE_NAME = rf"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = rf"{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*"
_IPV6 = r"\[(?:[a-fA-F0-9:]+)\]"
_DOMAIN = rf"(?:{_DOMAIN_NAME}|{_IPV6})(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"

# re.ASCII: Go's RE2 \w is [0-9A-Za-z_], Python's would also match non-ASCII letters.
DOMAIN_RE = re.compile(rf"^{_DOMAIN}$", re.ASCII)  # a registry host[:port]
_REMAINDER_RE = re.compile(rf"^({_REMOTE_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$", re.ASCII)
_IDENTIFIER_RE = re.compile(r"^[a-f0-9]{64}$")
# go-digest: the algorithms a digest may name, with the length of their hex encoding.
_DIGEST_HEX_LENGTH = {"sha256": 64, "sha384": 96, "sha512": 128}


class InvalidReference(GsvendorError):
    """The text is not an image reference: ``reason`` is ``"empty"`` (or blank), ``"templated"`` (holds
    ``{{``) or ``"invalid"`` (breaks the grammar; the message says how)."""

    exit_code = 1

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ImageReference:
    """A parsed, normalized image reference: ``registry`` host[:port] (``docker.io`` when none was
    written), ``repository`` (``library/busybox`` for ``busybox``), ``tag`` and ``digest`` as written."""

    registry: str
    repository: str
    tag: str | None = None
    digest: str | None = None

    @property
    def name(self) -> str:
        """``registry/repository``, without tag or digest."""
        return f"{self.registry}/{self.repository}"

    @property
    def normalized(self) -> str:
        """The fully qualified form: ``docker.io/library/busybox:1.36@sha256:…`` (no implicit ``latest``)."""
        tag = f":{self.tag}" if self.tag is not None else ""
        return self.name + tag + (f"@{self.digest}" if self.digest is not None else "")


def parse(text: str) -> ImageReference:
    """Parse ``text`` (``gsoci.azurecr.io/giantswarm/x:v1@sha256:…``) into an :class:`ImageReference`. Raises
    :class:`InvalidReference`; an invalid one's message names the rule it breaks (distribution's wording)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidReference("empty", "empty image reference")
    if "{{" in text:
        raise InvalidReference("templated", f"{text!r} is a template, not a reference")

    def invalid(why: str) -> InvalidReference:
        return InvalidReference("invalid", f"{text!r}: {why}")

    if text != text.strip():
        raise invalid("invalid reference format (surrounding whitespace)")
    if _IDENTIFIER_RE.match(text):
        raise invalid("invalid repository name, cannot specify 64-byte hexadecimal strings")
    index = text.find("/")  # splitDockerDomain (the module docstring)
    first = text[:index]
    if index == -1 or (not any(c in first for c in ".:") and first != "localhost" and first.lower() == first):
        registry, remainder = DEFAULT_REGISTRY, text
    else:
        registry, remainder = first, text[index + 1 :]
    registry = DEFAULT_REGISTRY if registry == LEGACY_DEFAULT_REGISTRY else registry
    if registry == DEFAULT_REGISTRY and "/" not in remainder:
        remainder = OFFICIAL_PREFIX + remainder
    remote = remainder.split("@", 1)[0].split(":", 1)[0]
    if remote.lower() != remote:
        raise invalid(f"repository name ({remote}) must be lowercase")
    if not DOMAIN_RE.match(registry):
        raise invalid(f"invalid reference format (registry {registry!r})")
    if not (match := _REMAINDER_RE.match(remainder)):
        raise invalid("invalid reference format")
    repository, tag, digest = match.groups()
    if len(registry) + 1 + len(repository) > NAME_TOTAL_LENGTH_MAX:
        raise invalid(f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters")
    if digest is not None:
        algorithm, _, hexpart = digest.partition(":")
        if (expected := _DIGEST_HEX_LENGTH.get(algorithm)) is None:
            raise invalid(f"unsupported digest algorithm {algorithm!r}")
        if len(hexpart) != expected:
            raise invalid(f"invalid {algorithm} digest (needs {expected} hex digits, has {len(hexpart)})")
    return ImageReference(registry=registry, repository=repository, tag=tag, digest=digest)


def join_tag(image: str, tag: str) -> str:
    """``image`` with ``:tag`` appended when it has neither tag nor digest (a registry port is not a
    tag) and neither it nor ``tag`` is empty: charts split references (``image`` + ``tag``)."""
    as_is = not tag or not image.strip() or "@" in image or ":" in image.rsplit("/", 1)[-1]
    return image if as_is else f"{image}:{tag}"
