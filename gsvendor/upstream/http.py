"""The http source kind: a tarball URL streamed with httpx, with retries; URLs made safe to print."""

from __future__ import annotations

import io
import re
import time

from gsvendor.errors import SourceError
from gsvendor.upstream.cache import _cached
from gsvendor.upstream.source import FetchOptions, _one_line


def download(url: str, tag: str, options: FetchOptions, *, expected_sha256: str | None = None) -> bytes:
    """Download ``url`` (the tarball of ``tag``) with httpx, from the cache when it holds it.

    Retries 5xx answers, timeouts and transport errors ``options.retries`` times with
    exponential backoff; 4xx answers fail at once (404 is reported as an unknown tag or URL).
    Raises :class:`SourceError`.
    """
    cached = _cached(options.cache_dir, tag, url, expected_sha256)
    if cached is not None:
        return cached
    import httpx

    shown = public_url(url)
    last = ""
    for attempt in range(options.retries + 1):
        if attempt:
            time.sleep(options.backoff * 2 ** (attempt - 1))
        try:
            data = _stream(url, options)
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status == 404:
                raise SourceError(f"{shown}: HTTP 404 Not Found (unknown tag {tag}, or a wrong URL)") from None
            if status < 500:
                raise SourceError(f"{shown}: HTTP {status} {exc.response.reason_phrase}") from None
            last = f"HTTP {status} {exc.response.reason_phrase}"
            continue
        except httpx.TimeoutException:
            last = f"timed out after {options.timeout:g} s"
            continue
        except httpx.TransportError as exc:
            last = f"{type(exc).__name__}: {_one_line(exc)}"
            continue
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # redirect loops, malformed URLs: no retry helps
            raise SourceError(f"{shown}: {type(exc).__name__}: {_one_line(exc)}") from None
        return data
    tries = options.retries + 1
    raise SourceError(f"{shown}: download failed after {tries} attempt{'s' * (tries > 1)}: {last}")


_SECRET_QUERY = re.compile(r"(token|sig|signature|secret|password|passwd|key|auth|credential)", re.IGNORECASE)


def public_url(url: str) -> str:
    """``url`` safe to print or record: no user info, and secret-looking query values redacted."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port else "")
        query = urlencode(
            [
                (k, "REDACTED" if _SECRET_QUERY.search(k) else v)
                for k, v in parse_qsl(parts.query, keep_blank_values=True)
            ]
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:  # not a valid URL: at least drop what looks like user info
        return re.sub(r"//[^/@]*@", "//", url)


def _stream(url: str, options: FetchOptions) -> bytes:
    import httpx

    buffer = io.BytesIO()
    with httpx.Client(timeout=options.timeout, follow_redirects=True) as client:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            total = int(response.headers.get("content-length") or 0) or None
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
                    task = progress.add_task(f"download {url.rsplit('/', 1)[-1]}", total=total)
                    for chunk in response.iter_bytes():
                        buffer.write(chunk)
                        progress.update(task, advance=len(chunk))
            else:
                for chunk in response.iter_bytes():
                    buffer.write(chunk)
    return buffer.getvalue()
