"""The http source kind: a tarball URL streamed with httpx, with retries; URLs made safe to print."""

from __future__ import annotations

import contextlib
import io
import time
from typing import Any

from gsvendor.errors import SourceError, causes
from gsvendor.upstream.cache import _cached
from gsvendor.upstream.source import MAX_ARCHIVE_BYTES, FetchOptions, _one_line, limit, public_url


def download(url: str, tag: str, options: FetchOptions, *, expected_sha256: str | None = None) -> bytes:
    """Download ``url`` (the tarball of ``tag``) with httpx, from the cache when it holds it.

    Retries 5xx answers, timeouts and transport errors ``options.retries`` times with
    exponential backoff; 4xx answers and a host name that does not resolve (``EAI_NONAME``, not the
    temporary ``EAI_AGAIN``) fail at once (404 is reported as an unknown tag or URL).
    Raises :class:`SourceError`.
    """
    cached = _cached(options.cache_dir, tag, url, expected_sha256)
    if cached is not None:
        return cached
    import httpx

    shown = public_url(url)
    last = ""
    deadline = time.monotonic() + options.max_time
    tries = 0
    unreachable = False  # the last attempt could not connect at all (no network, no DNS)
    for attempt in range(options.retries + 1):
        if attempt:
            pause = options.backoff * 2 ** (attempt - 1)
            if time.monotonic() + pause >= deadline:
                break
            time.sleep(pause)
        tries += 1
        try:
            data = _stream(url, options, deadline)
        except _TooSlow as exc:
            last = str(exc)
            continue
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status == 404:
                raise SourceError(f"{shown}: HTTP 404 Not Found (unknown tag {tag}, or a wrong URL)") from None
            if status < 500:
                raise SourceError(f"{shown}: HTTP {status} {exc.response.reason_phrase}") from None
            last, unreachable = f"HTTP {status} {exc.response.reason_phrase}", False
            continue
        except httpx.TimeoutException:
            last, unreachable = f"timed out after {options.timeout:g} s (--timeout)", False
            continue
        except httpx.TransportError as exc:
            last, unreachable = f"{type(exc).__name__}: {_one_line(exc)}", isinstance(exc, httpx.ConnectError)
            if _unknown_host(exc):
                break  # the resolver's final answer: asking again gets the same one
            continue
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # redirect loops, malformed URLs: no retry helps
            raise SourceError(f"{shown}: {type(exc).__name__}: {_one_line(exc)}") from None
        return data
    hint = ""
    if unreachable:
        hint = " (no network here? read a local copy of the archive with --source FILE, or from GSVENDOR_UPSTREAM_DIR)"
    raise SourceError(f"{shown}: download failed after {tries} attempt{'s' * (tries > 1)}: {last}{hint}")


class _TooSlow(Exception):
    """A transfer below the minimum rate, or past the total time (retried while time is left)."""


class _Transfer:
    """The bounds of one request, as its bytes and its connection's events arrive.

    A thread looks at the clock every :data:`_WATCH_EVERY` seconds and cuts the connection
    (``shutdown`` of its sockets, which wakes a blocked read; they come from httpcore's ``trace``
    request extension, :meth:`trace`) when the whole fetch passes ``deadline``, or when the
    response headers have not all arrived ``options.timeout`` seconds after the connection was
    opened or the request sent: a server sending one header byte every few seconds never trips a
    read timeout. ``reason`` says why it cut. :meth:`received` counts each chunk of the body
    against the archive size limit and the minimum rate (averaged over ``options.timeout`` seconds).
    """

    def __init__(self, url: str, options: FetchOptions, deadline: float) -> None:
        import threading

        self.url, self.options, self.deadline = url, options, deadline
        self.most = limit("GSVENDOR_MAX_ARCHIVE_MIB", MAX_ARCHIVE_BYTES)
        self.total = self.window_bytes = 0
        self.window_start = time.monotonic()
        self.headers_by: float | None = None
        self.reason: str | None = None
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gsvendor-fetch-watchdog", daemon=True)
        self._thread.start()

    def received(self, size: int) -> None:
        """Count ``size`` bytes of the body. Raises :class:`SourceError` past the archive size limit,
        :class:`_TooSlow` below the minimum rate."""
        self.total += size
        self.window_bytes += size
        if self.total > self.most:
            raise SourceError(
                f"{public_url(self.url)}: download larger than {self.most // 1024 // 1024} MiB, more than an "
                "upstream archive can be (GSVENDOR_MAX_ARCHIVE_MIB raises it)"
            )
        now = time.monotonic()
        elapsed = now - self.window_start
        if elapsed >= self.options.timeout:
            if (rate := self.window_bytes / elapsed) < self.options.min_rate:
                raise _TooSlow(f"{rate:.0f} bytes/s, below --min-rate {self.options.min_rate:g}")
            self.window_start, self.window_bytes = now, 0

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace callback: note each connection's socket and the headers' phase."""
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with self._lock:
                    self._sockets.append(sock)
        if name in ("connection.connect_tcp.started", "http11.send_request_headers.started"):
            self.headers_by = time.monotonic() + self.options.timeout
        elif name == "http11.receive_response_headers.complete":
            self.headers_by = None

    def _watch(self) -> None:
        import socket

        while self.reason is None and not self._stopped.wait(_WATCH_EVERY):
            now = time.monotonic()
            if now > self.deadline:
                self.reason = f"took longer than {self.options.max_time:g} s (--max-time)"
            elif self.headers_by is not None and now > self.headers_by:
                self.reason = f"no complete response headers within {self.options.timeout:g} s (--timeout)"
        if self.reason is not None:
            with self._lock:
                for sock in self._sockets:
                    with contextlib.suppress(OSError):  # already closed
                        sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """End the watching thread (waits for it: no thread outlives the fetch)."""
        self._stopped.set()
        self._thread.join()


_WATCH_EVERY = 0.1  # seconds between the watchdog's looks at the clock


def _stream(url: str, options: FetchOptions, deadline: float) -> bytes:
    """The body of ``url``, bounded by a :class:`_Transfer`, with a progress bar on stderr when asked.
    Raises httpx's errors, :class:`_TooSlow`, :class:`SourceError`."""
    import httpx
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    buffer = io.BytesIO()
    transfer = _Transfer(url, options, deadline)
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not options.progress,
    )
    timeout = httpx.Timeout(min(options.timeout, max(0.1, deadline - time.monotonic())))
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True) as client,
            client.stream("GET", url, extensions={"trace": transfer.trace}) as response,
            progress,
        ):
            response.raise_for_status()
            total = int(response.headers.get("content-length") or 0) or None
            if total and total > transfer.most:
                transfer.received(total)
            task = progress.add_task(f"download {public_url(url).rsplit('/', 1)[-1]}", total=total)
            for chunk in response.iter_bytes():
                transfer.received(len(chunk))
                buffer.write(chunk)
                progress.update(task, advance=len(chunk))
    except (httpx.TransportError, httpx.StreamError):
        if transfer.reason is not None:
            raise _TooSlow(transfer.reason) from None
        raise
    finally:
        transfer.stop()
    if transfer.reason is not None:  # cut as the last bytes arrived: the fetch still took too long
        raise _TooSlow(transfer.reason)
    return buffer.getvalue()


def _unknown_host(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by the resolver answering that the host name does not exist
    (``socket.gaierror`` ``EAI_NONAME``, getaddrinfo(3)), found along its causes."""
    import socket

    return any(isinstance(item, socket.gaierror) and item.errno == socket.EAI_NONAME for item in causes(exc))
