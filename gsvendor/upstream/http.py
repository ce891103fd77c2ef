"""The http source kind: a tarball URL streamed with httpx, with retries; URLs made safe to print."""

from __future__ import annotations

import contextlib
import io
import time
from typing import Any

from gsvendor.errors import SourceError
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
    hint = " (no network here? read a local copy of the archive with --source FILE)" if unreachable else ""
    raise SourceError(f"{shown}: download failed after {tries} attempt{'s' * (tries > 1)}: {last}{hint}")


class _TooSlow(Exception):
    """A transfer below the minimum rate, or past the total time (retried while time is left)."""


class _Meter:
    """Enforces the whole fetch's deadline, the minimum rate (averaged over ``options.timeout``
    seconds) and the archive size limit on each chunk received."""

    def __init__(self, url: str, options: FetchOptions, deadline: float) -> None:
        self.url = url
        self.options = options
        self.deadline = deadline
        self.most = limit("GSVENDOR_MAX_ARCHIVE_MIB", MAX_ARCHIVE_BYTES)
        self.window_start = time.monotonic()
        self.window_bytes = 0
        self.total = 0

    def __call__(self, size: int) -> None:
        now = time.monotonic()
        self.total += size
        self.window_bytes += size
        if self.total > self.most:
            raise SourceError(
                f"{public_url(self.url)}: download larger than {self.most // 1024 // 1024} MiB, more than an "
                "upstream archive can be (GSVENDOR_MAX_ARCHIVE_MIB raises it)"
            )
        if now > self.deadline:
            raise _TooSlow(f"took longer than {self.options.max_time:g} s (--max-time)")
        elapsed = now - self.window_start
        if elapsed >= self.options.timeout:
            if self.window_bytes / elapsed < self.options.min_rate:
                rate = self.window_bytes / elapsed
                raise _TooSlow(f"{rate:.0f} bytes/s, below --min-rate {self.options.min_rate:g}")
            self.window_start, self.window_bytes = now, 0


class _Watchdog:
    """Cuts a request's connection (``shutdown`` of its socket, which wakes a blocked read) when the
    whole fetch passes its deadline, or when the response headers have not all arrived
    ``options.timeout`` seconds after the connection was opened or the request sent: a server
    sending one header byte every few seconds never trips a read timeout.

    The sockets come from httpcore's ``trace`` request extension (:meth:`trace`); a thread checks
    the clocks every :data:`_WATCH_EVERY` seconds until :meth:`stop`. ``reason`` says why it cut.
    """

    def __init__(self, options: FetchOptions, deadline: float) -> None:
        import threading

        self.options, self.deadline = options, deadline
        self.headers_by: float | None = None
        self.reason: str | None = None
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gsvendor-fetch-watchdog", daemon=True)
        self._thread.start()

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
        while not self._stopped.wait(_WATCH_EVERY):
            now = time.monotonic()
            if now > self.deadline:
                self._cut(f"took longer than {self.options.max_time:g} s (--max-time)")
            elif self.headers_by is not None and now > self.headers_by:
                self._cut(f"no complete response headers within {self.options.timeout:g} s (--timeout)")
            if self.reason is not None:
                return

    def _cut(self, reason: str) -> None:
        import socket

        self.reason = reason
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):  # already closed
                    sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """End the watching thread (waits for it: no thread outlives the fetch)."""
        self._stopped.set()
        self._thread.join()


_WATCH_EVERY = 0.1  # seconds between the watchdog's looks at the clock


def _stream(url: str, options: FetchOptions, deadline: float | None = None) -> bytes:
    import httpx

    meter = _Meter(url, options, deadline if deadline is not None else time.monotonic() + options.max_time)
    remaining = max(0.1, meter.deadline - time.monotonic())
    buffer = io.BytesIO()
    timeout = httpx.Timeout(min(options.timeout, remaining))
    watchdog = _Watchdog(options, meter.deadline)
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True) as client:
            with client.stream("GET", url, extensions={"trace": watchdog.trace}) as response:
                response.raise_for_status()
                _receive(response, url, options, meter, buffer)
    except (httpx.TransportError, httpx.StreamError):
        if watchdog.reason is not None:
            raise _TooSlow(watchdog.reason) from None
        raise
    finally:
        watchdog.stop()
    if watchdog.reason is not None:  # cut as the last bytes arrived: the fetch still took too long
        raise _TooSlow(watchdog.reason)
    return buffer.getvalue()


def _receive(response: Any, url: str, options: FetchOptions, meter: _Meter, buffer: io.BytesIO) -> None:
    """Read ``response``'s body into ``buffer``, each chunk metered, with a progress bar when asked."""
    total = int(response.headers.get("content-length") or 0) or None
    if total and total > meter.most:
        meter(total)
    if options.progress:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as progress:
            task = progress.add_task(f"download {public_url(url).rsplit('/', 1)[-1]}", total=total)
            for chunk in response.iter_bytes():
                meter(len(chunk))
                buffer.write(chunk)
                progress.update(task, advance=len(chunk))
    else:
        for chunk in response.iter_bytes():
            meter(len(chunk))
            buffer.write(chunk)


def _unknown_host(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by the resolver answering that the host name does not exist
    (``socket.gaierror`` ``EAI_NONAME``, getaddrinfo(3)), found along its cause chain."""
    import socket

    seen: BaseException | None = exc
    for _ in range(8):  # httpx -> httpcore -> the socket error
        if seen is None:
            return False
        if isinstance(seen, socket.gaierror):
            return seen.errno == socket.EAI_NONAME
        seen = seen.__cause__ or seen.__context__
    return False
