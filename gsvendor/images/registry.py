"""check-images ``--resolve``'s registry client: does each image reference exist, and at which digest.

The calls (OCI distribution specification v1.1): ``HEAD /v2/<name>/manifests/<reference>``, then
``GET`` when ``Docker-Content-Digest`` is missing (the digest is the body's sha256) or after a 404
(the body has the error code); ``GET /v2/<name>/tags/list?n=1`` after ``MANIFEST_UNKNOWN``, which
the CNCF registry answers for a missing repository too. ``Www-Authenticate`` challenges are answered
once: ``Basic`` with the host's credentials, ``Bearer`` with a token from the challenge's realm (the
Docker token specification: ACR, ghcr.io)."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import ssl
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gsvendor.errors import causes
from gsvendor.images.credentials import Credentials, default_docker_config
from gsvendor.images.reference import DEFAULT_REGISTRY, ImageReference, parse
from gsvendor.upstream.http import TooLarge, TooSlow, read_bounded
from gsvendor.upstream.source import one_line

if TYPE_CHECKING:
    from collections.abc import Mapping as Headers

    import httpx

# Outcomes of one lookup (auth-failed: 401/403 after the credentials were tried; unreachable: refused,
# DNS, timeouts; registry-error: 5xx after the retries, TLS, answers outside the spec).
RESOLVED, TAG_MISSING, DIGEST_MISSING = "resolved", "tag-missing", "digest-missing"
REPOSITORY_MISSING, AUTH_FAILED = "repository-missing", "auth-failed"
UNREACHABLE, REGISTRY_ERROR = "unreachable", "registry-error"
OUTCOMES = (RESOLVED, TAG_MISSING, DIGEST_MISSING, REPOSITORY_MISSING, AUTH_FAILED, UNREACHABLE, REGISTRY_ERROR)
MISSING = frozenset({TAG_MISSING, DIGEST_MISSING, REPOSITORY_MISSING})

# Outcomes of a mirror comparison (``not-compared``: the mirror itself did not resolve).
EQUAL, DIFFERENT, UPSTREAM_MISSING, NOT_COMPARED = "equal", "different", "upstream-missing", "not-compared"
UPSTREAM_FAILED = tuple(f"upstream-{outcome}" for outcome in (AUTH_FAILED, UNREACHABLE, REGISTRY_ERROR))
COMPARISONS = (EQUAL, DIFFERENT, UPSTREAM_MISSING, *UPSTREAM_FAILED, NOT_COMPARED)

DEFAULT_JOBS = 8
MAX_ANSWER_BYTES = 4 * 1024 * 1024
MAX_BACKOFF = 4.0  # a Retry-After above this is not waited for in full

# what a registry may answer a manifest request with (image-spec and Docker's schema 2 media types)
_MANIFEST_TYPE = re.compile(r"^application/(vnd\.[\w.+-]+\+json|vnd\.docker\.[\w.+-]+|json)$")
# What the kubelet accepts; with the index types a multi-arch tag resolves to its index digest, as a pull does.
MANIFEST_MEDIA_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
_DIGEST_RE = re.compile(r"^(sha256:[0-9a-f]{64}|sha384:[0-9a-f]{96}|sha512:[0-9a-f]{128})$")
_DOCKER_HUB_API = "registry-1.docker.io"  # Docker Hub's API host


@dataclass(frozen=True)
class ResolveOptions:
    """How to ask the registries: ``jobs`` parallel lookups; ``insecure`` hosts (``host[:port]``) over
    plain HTTP; ``timeout`` seconds per request (connect and read); ``retries`` after the first attempt on
    5xx, 429 and timeouts, after ``backoff`` seconds doubling each time (0.25, 0.5, 1.0)."""

    jobs: int = DEFAULT_JOBS
    insecure: frozenset[str] = frozenset()
    credentials: Credentials = field(default_factory=Credentials)
    compare_upstream: bool = False
    mirrors: tuple[Mirror, ...] = ()
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 0.25


@dataclass(frozen=True, order=True)
class Target:
    """One manifest to ask for: ``reference`` is a tag or a digest (``sha256:…``)."""

    registry: str
    repository: str
    reference: str

    @property
    def is_digest(self) -> bool:
        """Whether ``reference`` is a digest."""
        return ":" in self.reference

    def __str__(self) -> str:
        return f"{self.registry}/{self.repository}{'@' if self.is_digest else ':'}{self.reference}"


def target_of(reference: ImageReference, by_tag: bool = False) -> Target:
    """The manifest the kubelet pulls for ``reference``: its digest when pinned, else its tag (``latest``
    when none). ``by_tag``: the tag even when a digest is pinned (what upstream's tag points at)."""
    pinned = reference.digest if not (by_tag and reference.tag) else None
    return Target(reference.registry, reference.repository, pinned or reference.tag or "latest")


@dataclass(frozen=True)
class Resolution:
    """The registry's answer for one :class:`Target`: ``outcome`` one of :data:`OUTCOMES`; ``digest`` and
    ``media_type`` when resolved; ``detail``: why, for people; ``status``: the last HTTP status;
    ``attempts``: requests of the main lookup, retries included; ``seconds``: wall time."""

    target: Target
    outcome: str
    digest: str | None = None
    media_type: str | None = None
    detail: str = ""
    status: int | None = None
    attempts: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the manifest exists."""
        return self.outcome == RESOLVED


class _Unreachable(Exception):
    """No usable HTTP answer: ``args`` (outcome ``unreachable`` or ``registry-error``, detail, attempts)."""


@dataclass(frozen=True)
class _Answer:
    """A registry's answer with its body read within bounds."""

    status_code: int
    headers: Headers[str, str]
    reason: str
    content: bytes


def _error_codes(response: _Answer) -> list[tuple[str, str]]:
    """``(code, message)`` of the spec's error body ``{"errors": [{"code", "message", "detail"}]}``."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return []
    errors = body.get("errors") if isinstance(body, dict) else None
    errors = errors if isinstance(errors, list) else []
    return [(str(e.get("code", "")), str(e.get("message", ""))) for e in errors if isinstance(e, dict)]


def _describe(response: _Answer) -> str:
    codes = _error_codes(response)
    text = "; ".join(f"{code}: {message}" if message else code for code, message in codes)
    return f"HTTP {response.status_code}" + (f" ({text})" if text else f" {response.reason}" if response.reason else "")


def _media_type(response: _Answer) -> str | None:
    return response.headers.get("Content-Type", "").split(";")[0].strip() or None


_CONNECTION_CAUSES = (
    (ConnectionRefusedError, "connection refused"),
    (socket.gaierror, "DNS: host name does not resolve"),
    (ConnectionResetError, "connection reset"),
)


def _connection_detail(exc: BaseException) -> str:
    """A short cause of a connection error: refused, DNS, reset, or its message."""
    known = (text for item in causes(exc) for kind, text in _CONNECTION_CAUSES if isinstance(item, kind))
    return next(known, one_line(exc))


# key="value" pairs of a Www-Authenticate challenge (RFC 9110 "auth-param", quoted form)
_CHALLENGE_PARAM = re.compile(r'([A-Za-z]+)="([^"]*)"')


class Resolver:
    """Resolves :class:`Target` s in parallel (``options.jobs`` threads), each at most once.
    ``requests``: requests sent to the ``/v2/`` APIs, retries and authentication re-sends included."""

    def __init__(self, options: ResolveOptions) -> None:
        self.options = options
        self.requests = 0
        self._cache: dict[Target, Resolution] = {}
        self._clients: dict[int, tuple[httpx.Client, set[Any]]] = {}
        self._tokens: dict[tuple[str, str], str] = {}  # (host, repository) → bearer token: scoped to one repository
        self._basic_needed: set[str] = set()  # hosts that answered a Basic challenge: credentials sent up front
        self._lock = threading.Lock()

    @property
    def lookups(self) -> int:
        """How many distinct targets were asked."""
        return len(self._cache)

    def _scheme(self, host: str) -> str:
        return "http" if host.lower() in self.options.insecure else "https"

    def _url(self, target: Target, path: str) -> str:
        api_host = _DOCKER_HUB_API if target.registry == DEFAULT_REGISTRY else target.registry
        return f"{self._scheme(target.registry)}://{api_host}/v2/{target.repository}/{path}"

    def _client(self) -> tuple[httpx.Client, set[Any]]:
        """The calling thread's client and sockets: a watchdog cutting an answer cuts only that thread's."""
        import httpx

        with self._lock:
            if (made := self._clients.get(threading.get_ident())) is None:
                client = httpx.Client(timeout=self.options.timeout, follow_redirects=True)
                made = self._clients[threading.get_ident()] = (client, set())
            return made

    def _send(self, method: str, url: str, headers: dict[str, str], params: dict[str, str] | None = None) -> _Answer:
        """One request read whole: :data:`MAX_ANSWER_BYTES`, headers in ``timeout``, all in ``3 × timeout`` s."""
        client, sockets = self._client()
        try:
            response, body = read_bounded(
                client,
                method,
                url,
                deadline=time.monotonic() + 3 * self.options.timeout,
                late=f"answer not complete after {3 * self.options.timeout:g} s",
                headers_within=self.options.timeout,
                most=MAX_ANSWER_BYTES,
                sockets=sockets,
                headers=headers,
                params=params,
            )
        except TooLarge as exc:
            raise _Unreachable(REGISTRY_ERROR, str(exc), 1) from None
        return _Answer(response.status_code, response.headers, response.reason_phrase or "", body)

    def _token(self, host: str, challenge: str) -> str | None:
        """The realm's token for a ``Bearer realm=…,service=…,scope=…`` challenge; ``None`` when refused."""
        params = dict(_CHALLENGE_PARAM.findall(challenge))
        realm = params.pop("realm", "")
        if not realm:
            return None
        if not realm.startswith(("http://", "https://")):
            realm = f"{self._scheme(host)}://{realm}"
        headers = {"Accept": "application/json"}
        if basic := self.options.credentials.for_host(host):
            headers["Authorization"] = f"Basic {basic}"
        wanted = {key: params[key] for key in ("service", "scope") if key in params}
        answer = self._send("GET", realm, headers, wanted)  # a token-service request: not counted
        try:
            body = json.loads(answer.content) if answer.status_code == 200 else None
        except ValueError:
            return None
        token = (body.get("token") or body.get("access_token")) if isinstance(body, dict) else None
        return token if isinstance(token, str) and token else None

    def _request(self, method: str, url: str, target: Target) -> tuple[_Answer, bool]:
        """One request, a ``Www-Authenticate`` challenge answered once: (answer, credentials were sent)."""
        host, basic = target.registry, self.options.credentials.for_host(target.registry)
        headers = {"Accept": ", ".join(MANIFEST_MEDIA_TYPES)}
        if token := self._tokens.get((host, target.repository)):  # from an earlier challenge
            headers["Authorization"] = f"Bearer {token}"
        elif host in self._basic_needed and basic:
            headers["Authorization"] = f"Basic {basic}"
        self._count()
        response = self._send(method, url, headers)
        if response.status_code not in (401, 403):
            return response, "Authorization" in headers and basic is not None
        scheme, _, challenge = response.headers.get("Www-Authenticate", "").partition(" ")
        if scheme.lower() == "basic":
            if not basic or headers.get("Authorization") == f"Basic {basic}":
                return response, basic is not None
            self._basic_needed.add(host)
            headers["Authorization"] = f"Basic {basic}"
        elif scheme.lower() == "bearer" and (token := self._token(host, challenge)):  # a new one after an expired one
            with self._lock:
                self._tokens[(host, target.repository)] = token
            headers["Authorization"] = f"Bearer {token}"
        else:
            return response, basic is not None
        self._count()
        return self._send(method, url, headers), basic is not None

    def _call(self, method: str, url: str, target: Target) -> tuple[_Answer, bool, int]:
        """:meth:`_request` retried on a 5xx, 429 or timeout: (last answer, credentials sent, attempts)."""
        import httpx

        attempts = 0
        while True:
            attempts += 1
            last = attempts > self.options.retries
            try:
                response, sent = self._request(method, url, target)
            except (httpx.TimeoutException, TooSlow):
                detail = f"timed out ({attempts} attempts, {self.options.timeout:g} s each)"
                if last:
                    raise _Unreachable(UNREACHABLE, detail, attempts) from None
                self._sleep(attempts, None)
                continue
            except httpx.RemoteProtocolError as exc:  # it answered, outside HTTP: headers past h11's 64 kB, garbage
                raise _Unreachable(REGISTRY_ERROR, f"broken HTTP answer: {one_line(exc)}", attempts) from None
            except httpx.TransportError as exc:
                if any(isinstance(cause, ssl.SSLError) for cause in causes(exc)):
                    insecure = self._scheme(target.registry) == "http"
                    hint = "" if insecure else f"; plain HTTP only with --insecure-registry {target.registry}"
                    raise _Unreachable(REGISTRY_ERROR, f"TLS: {one_line(exc)}{hint}", attempts) from None
                raise _Unreachable(UNREACHABLE, _connection_detail(exc), attempts) from None
            except (httpx.HTTPError, httpx.InvalidURL) as exc:  # redirect loops, undecodable bodies
                raise _Unreachable(REGISTRY_ERROR, one_line(exc), attempts) from None
            if (response.status_code >= 500 or response.status_code == 429) and not last:
                self._sleep(attempts, response.headers.get("Retry-After"))
                continue
            return response, sent, attempts

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        delay = self.options.backoff * 2 ** (attempt - 1)
        seconds = (retry_after or "").strip()
        if seconds.isascii() and seconds.isdigit():  # not "²": isdigit takes it, float refuses it
            delay = max(delay, float(seconds))
        time.sleep(min(delay, MAX_BACKOFF))

    def _resolve(self, target: Target) -> Resolution:
        """Ask for ``target``'s manifest; see the module docstring for the calls and outcomes."""
        start = time.perf_counter()
        manifest_url = self._url(target, f"manifests/{target.reference}")
        attempts = 0

        def done(outcome: str, detail: str = "", response: _Answer | None = None, **kw: Any) -> Resolution:
            status = response.status_code if response is not None else None
            seconds = time.perf_counter() - start
            return Resolution(target, outcome, detail=detail, status=status, attempts=attempts, seconds=seconds, **kw)

        try:
            response, sent, attempts = self._call("HEAD", manifest_url, target)
            media_type = _media_type(response)
            digest = target.reference if target.is_digest else response.headers.get("Docker-Content-Digest", "").strip()
            if response.status_code == 200 and _MANIFEST_TYPE.match(media_type or "") and _DIGEST_RE.match(digest):
                return done(RESOLVED, response=response, digest=digest, media_type=media_type)
            # without the header GET and hash (image-spec "Content Descriptors"); after a refusal the body says why
            if response.status_code != 429 and response.status_code < 500:
                response, sent, more = self._call("GET", manifest_url, target)
                attempts += more
            if response.status_code == 200:
                media_type = _media_type(response)
                if not _MANIFEST_TYPE.match(media_type or ""):  # a web page or a portal answering 200
                    detail = f"answered 200 with {media_type or 'no content type'}, not a manifest"
                    return done(REGISTRY_ERROR, detail, response)
                if not target.is_digest:
                    digest = "sha256:" + hashlib.sha256(response.content).hexdigest()
                return done(RESOLVED, response=response, digest=digest, media_type=media_type)
            if response.status_code in (401, 403):
                host, source = target.registry, self.options.credentials.source or default_docker_config()
                if not self.options.credentials.for_host(host):
                    why = f"no credentials for {host} in {source} (or --registry-config)"
                elif sent:
                    why = f"the credentials for {host} from {source} were refused"
                else:
                    why = "the registry asked for no credentials it accepts (no usable challenge)"
                return done(AUTH_FAILED, f"{_describe(response)}; {why}", response)
            if response.status_code == 404:
                detail, tags = _describe(response), None
                if "NAME_UNKNOWN" not in dict(_error_codes(response)):
                    # distribution answers MANIFEST_UNKNOWN for a missing repository too: the tags list tells
                    with suppress(_Unreachable):
                        tags, _, _ = self._call("GET", self._url(target, "tags/list?n=1"), target)
                    if tags is None or tags.status_code != 404 or "NAME_UNKNOWN" not in dict(_error_codes(tags)):
                        return done(DIGEST_MISSING if target.is_digest else TAG_MISSING, detail, response)
                    detail += f"; tags/list: {_describe(tags)}"
                return done(REPOSITORY_MISSING, detail, response)
            again = f" after {attempts} attempts" if attempts > 1 else ""
            return done(REGISTRY_ERROR, _describe(response) + again, response)
        except _Unreachable as exc:
            outcome, detail, more = exc.args
            attempts += more
            return done(outcome, detail)
        except Exception as exc:  # an answer outside the spec: one outcome, not a crash
            return done(REGISTRY_ERROR, f"{type(exc).__name__}: {one_line(exc)}")

    def _count(self) -> None:
        with self._lock:
            self.requests += 1

    def resolve(self, targets: Iterable[Target]) -> dict[Target, Resolution]:
        """Resolve every target not asked before; return the answers for all of ``targets``."""
        wanted = list(dict.fromkeys(targets))
        new = [t for t in wanted if t not in self._cache]
        with ThreadPoolExecutor(max(1, min(self.options.jobs, len(new))), thread_name_prefix="resolve") as pool:
            self._cache.update(zip(new, pool.map(self._resolve, new), strict=True))
        return {t: self._cache[t] for t in wanted}

    def close(self) -> None:
        """Close the HTTP clients' connections."""
        for client, _ in self._clients.values():
            client.close()


@dataclass(frozen=True)
class Mirror:
    """One ``images.mirrors`` entry: names starting with ``mirror`` copy ``upstream`` + the rest of the name."""

    mirror: str
    upstream: str

    def upstream_of(self, reference: ImageReference) -> ImageReference:
        """The upstream reference of ``reference`` (same tag and digest). Raises :class:`InvalidReference`."""
        return parse(self.upstream + reference.normalized[len(self.mirror) :])
