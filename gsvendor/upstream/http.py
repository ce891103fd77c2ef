"""The http source kind (a tarball URL streamed with httpx, with retries), and :func:`read_bounded`,
the one fetch with one deadline that the registry lookups of check-images ``--resolve`` use too."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gsvendor.errors import SourceError, causes
from gsvendor.upstream.source import MAX_ARCHIVE_BYTES, FetchOptions, limit, one_line, public_url

if TYPE_CHECKING:
    import httpx


class TooSlow(Exception):
    """A fetch cut at its deadline, with response headers late, or below a minimum rate (the message says which)."""


class TooLarge(Exception):
    """An answer announcing or sending more than ``most`` bytes."""

    def __init__(self, most: int) -> None:
        super().__init__(f"answer larger than {most // 1024 // 1024} MiB")
        self.most = most


_WATCH_EVERY = 0.1  # seconds between the watchdog's looks at the clock
_PIECE = 1 << 20  # most bytes one inflate step makes: 298 bytes of gzip, gzip, gzip were 4 GiB in one step
_DECODINGS = {"gzip": 31, "x-gzip": 31, "deflate": 15}  # Content-Encoding → zlib wbits (RFC 9110 8.4.1)


class _Watch:
    """A watchdog thread shutting the ``sockets`` down (waking a blocked read) past ``deadline`` or when the
    headers take over ``headers_within`` s (a server dripping header bytes never trips a read timeout)."""

    def __init__(self, deadline: float, late: str, headers_within: float, sockets: set[Any]) -> None:
        self.deadline, self.late, self.headers_within, self.sockets = deadline, late, headers_within, sockets
        self.headers_by: float | None = None
        self.reason: str | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gsvendor-fetch-watchdog", daemon=True)
        self._thread.start()

    def add(self, stream: Any) -> None:
        """Note the socket of httpcore's network ``stream`` (``None`` is ignored)."""
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            self.sockets.add(sock)

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace callback: note each new connection's socket and the headers' phase."""
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.add(info.get("return_value"))
        if name in ("connection.connect_tcp.started", "http11.send_request_headers.started"):
            self.headers_by = time.monotonic() + self.headers_within
        elif name == "http11.receive_response_headers.complete":
            self.headers_by = None

    def _watch(self) -> None:
        while self.reason is None and not self._stopped.wait(_WATCH_EVERY):
            now = time.monotonic()
            if now > self.deadline:
                self.reason = self.late
            elif self.headers_by is not None and now > self.headers_by:
                self.reason = f"timed out after {self.headers_within:g} s (--timeout) with no complete response headers"
        if self.reason is not None:
            for sock in list(self.sockets):
                with contextlib.suppress(OSError):  # already closed
                    sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """End the watching thread (waits for it: no thread outlives the fetch)."""
        self._stopped.set()
        self._thread.join()


def read_bounded(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    deadline: float,
    late: str,
    headers_within: float,
    most: int,
    sockets: set[Any] | None = None,
    started: Callable[[httpx.Response], None] = lambda _response: None,
    received: Callable[[int], None] = lambda _size: None,
    **request: Any,
) -> tuple[httpx.Response, bytes]:
    """Send one request (httpx's ``stream`` arguments); return the response and its body, read whole within
    ``deadline`` (``time.monotonic()``, message ``late``), headers within ``headers_within`` seconds, at most
    ``most`` bytes; ``sockets``: the client's connections so far. ``started(response)`` runs once the headers
    are in, ``received(n)`` per chunk. Raises :class:`TooSlow`, :class:`TooLarge`, httpx's and the callbacks' errors."""
    import httpx

    watch = _Watch(deadline, late, headers_within, set() if sockets is None else sockets)
    body = bytearray()
    try:
        with client.stream(method, url, extensions={"trace": watch.trace}, **request) as response:
            watch.add(response.extensions.get("network_stream"))
            started(response)
            if int(response.headers.get("content-length") or 0) > most:
                raise TooLarge(most)
            for chunk in _decoded(response):
                body += chunk
                if len(body) > most:
                    raise TooLarge(most)
                received(len(chunk))
    except (httpx.TransportError, httpx.StreamError):
        if watch.reason is not None:
            raise TooSlow(watch.reason) from None
        raise
    finally:
        watch.stop()
    if watch.reason is not None:  # cut as the last bytes arrived: the fetch still took too long
        raise TooSlow(watch.reason)
    return response, bytes(body)


def _decoded(response: httpx.Response) -> Iterator[bytes]:
    """The body, one gzip or deflate coding undone :data:`_PIECE` bytes at a time (httpx inflates a read at once)."""
    import httpx

    listed = response.headers.get_list("content-encoding", split_commas=True)
    codings = [c for raw in listed if (c := raw.strip().lower()) not in ("", "identity")]
    if not codings:
        yield from response.iter_raw()
        return
    if len(codings) > 1 or codings[0] not in _DECODINGS:
        shown = one_line(", ".join(codings))[:80]
        raise httpx.DecodingError(
            f"Content-Encoding {shown!r}: only one gzip or deflate is read", request=response.request
        )
    inflate, started = zlib.decompressobj(_DECODINGS[codings[0]]), False
    try:
        for pending in response.iter_raw():
            while pending:
                try:
                    piece = inflate.decompress(pending, _PIECE)
                except zlib.error:
                    if started or codings[0] != "deflate":
                        raise
                    inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate without its zlib header
                    piece = inflate.decompress(pending, _PIECE)
                started, pending = True, inflate.unconsumed_tail
                if piece:
                    yield piece
        if rest := inflate.flush():
            yield rest
    except zlib.error as exc:
        raise httpx.DecodingError(f"{codings[0]}: {exc}", request=response.request) from None


def download(url: str, tag: str, options: FetchOptions) -> bytes:
    """Download ``url`` (the tarball of ``tag``), retrying 5xx answers, timeouts, slow transfers and transport
    errors (not 4xx nor an unknown host) with exponential backoff (``options``). Raises :class:`SourceError`."""
    import httpx

    shown, deadline = public_url(url), time.monotonic() + options.max_time
    last, tries, unreachable = "", 0, False  # unreachable: the last attempt could not connect (no network, no DNS)
    for attempt in range(options.retries + 1):
        if attempt:
            pause = options.backoff * 2 ** (attempt - 1)
            if time.monotonic() + pause >= deadline:
                break
            time.sleep(pause)
        tries += 1
        try:
            return _stream(url, options, deadline)
        except TooSlow as exc:
            last = str(exc)
        except TooLarge as exc:
            raise SourceError(
                f"{shown}: download larger than {exc.most // 1024 // 1024} MiB, more than an "
                "upstream archive can be (GSVENDOR_MAX_ARCHIVE_MIB raises it)"
            ) from None
        except httpx.HTTPStatusError as exc:
            status, reason = exc.response.status_code, exc.response.reason_phrase
            if status == 404:
                raise SourceError(f"{shown}: HTTP 404 Not Found (unknown tag {tag}, or a wrong URL)") from None
            if status < 500:
                raise SourceError(f"{shown}: HTTP {status} {reason}") from None
            last, unreachable = f"HTTP {status} {reason}", False
        except httpx.TimeoutException:
            last, unreachable = f"timed out after {options.timeout:g} s (--timeout)", False
        except httpx.TransportError as exc:
            last, unreachable = f"{type(exc).__name__}: {one_line(exc, url)}", isinstance(exc, httpx.ConnectError)
            if any(isinstance(c, socket.gaierror) and c.errno == socket.EAI_NONAME for c in causes(exc)):
                break  # the resolver answered the host does not exist: asking again gets the same answer
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # redirect loops, malformed URLs: no retry helps
            raise SourceError(f"{shown}: {type(exc).__name__}: {one_line(exc, url)}") from None
    hint = f" (no network here? give a local copy with --source FILE, or {_upstream_dir_hint(url, tag)})"
    raise SourceError(f"{shown}: download failed after {tries} attempt{'s' * (tries > 1)}: {last}{hint * unreachable}")


def _upstream_dir_hint(url: str, tag: str) -> str:
    """Where :func:`~gsvendor.upstream.source.local_archive` looked for ``tag``'s archive, or how to have it look."""
    parts = urlsplit(url).path.split("/")  # GitHub's /<owner>/<repo>/archive/refs/tags/<tag>.tar.gz
    name = f"{parts[2] if len(parts) > 3 and parts[3] == 'archive' else '<repo>'}-{tag}.tar.gz"
    folder = os.environ.get("GSVENDOR_UPSTREAM_DIR", "").strip()
    if not folder:
        return f"put {name} in a folder named by $GSVENDOR_UPSTREAM_DIR"
    return f"put {name} in $GSVENDOR_UPSTREAM_DIR, {os.path.abspath(folder)}: it is not there"


def _stream(url: str, options: FetchOptions, deadline: float) -> bytes:
    """The body of ``url`` by :func:`read_bounded`, at ``options.min_rate`` or faster, with a progress bar."""
    import httpx
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    columns = ("[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn())
    progress = Progress(*columns, console=Console(stderr=True), transient=True, disable=not options.progress)
    window = [time.monotonic(), 0]  # start and bytes of the window the rate is measured over
    task = progress.add_task(f"download {public_url(url).rsplit('/', 1)[-1]}")

    def started(response: httpx.Response) -> None:
        response.raise_for_status()
        progress.update(task, total=int(response.headers.get("content-length") or 0) or None)

    def received(size: int) -> None:
        progress.update(task, advance=size)
        window[1] += size
        now = time.monotonic()
        if (elapsed := now - window[0]) >= options.timeout:
            if (rate := window[1] / elapsed) < options.min_rate:
                raise TooSlow(f"{rate:.0f} bytes/s, below --min-rate {options.min_rate:g}")
            window[:] = [now, 0]

    timeout = httpx.Timeout(min(options.timeout, max(0.1, deadline - time.monotonic())))
    with httpx.Client(timeout=timeout, follow_redirects=True) as client, progress:
        _, body = read_bounded(
            client,
            "GET",
            url,
            deadline=deadline,
            late=f"took longer than {options.max_time:g} s (--max-time)",
            headers_within=options.timeout,
            most=limit("GSVENDOR_MAX_ARCHIVE_MIB", MAX_ARCHIVE_BYTES),
            started=started,
            received=received,
        )
    return body
