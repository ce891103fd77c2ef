"""Upstream sources: read the files gsvendor needs from an upstream tag.

A source is one of (see :func:`classify_source`):

* ``folder`` — a local checkout holding ``charts/``;
* ``tarball`` — a local ``.tar.gz`` in GitHub archive layout (one top folder ``<repo>-<tag without v>/``);
* ``http`` — an ``http(s)://`` tarball URL, streamed with httpx, cached per tag and sha256;
* ``git`` — a git URL (``file://``, ``https://….git``, ``ssh://``, ``git@host:path``), fetched as a
  shallow, blob-filtered, sparse clone of only the wanted paths.

Only wanted paths are read (``charts/<chart>/**`` and ``go.mod`` for sync). Archive members with
absolute paths, ``..``, links leading outside the archive, or device files are refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import posixpath
import re
import tarfile
import tempfile
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor.errors import SourceError

SOURCE_KINDS = ("folder", "tarball", "http", "git")

# An upstream charts/ tree is a few MiB; these bound what a hostile archive can make us hold.
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024

_GIT_URL = re.compile(r"^(file://|ssh://|git://|git@[^:]+:|https?://.+\.git/?$)")


@dataclass(frozen=True)
class Wanted:
    """The upstream paths to read: folders (``charts/kserve-crd``) and single files (``go.mod``).

    Paths are POSIX and relative to the upstream root.
    """

    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def matches(self, path: str) -> bool:
        """Whether the upstream-relative ``path`` is one of the wanted files or below a wanted folder."""
        return path in self.files or any(path.startswith(f.rstrip("/") + "/") for f in self.folders)

    def sparse_patterns(self) -> list[str]:
        """Non-cone sparse-checkout patterns (gitignore syntax) selecting exactly these paths."""
        return [f"/{f.rstrip('/')}/" for f in self.folders] + [f"/{f}" for f in self.files]


@dataclass(frozen=True)
class UpstreamSnapshot:
    """The wanted files of one upstream tag, in memory.

    ``files`` maps upstream-relative POSIX path → bytes. ``sha256`` is the archive's (tarball and
    http sources), ``commit`` the upstream commit when known (git, a tarball's pax comment, a
    folder that is a git checkout).
    """

    tag: str
    kind: str
    location: str
    files: dict[str, bytes]
    sha256: str | None = None
    commit: str | None = None
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class FetchOptions:
    """How to reach remote sources.

    ``timeout`` in seconds per HTTP request phase; ``retries`` extra attempts after the first on
    5xx answers, timeouts and transport errors, with exponential backoff starting at ``backoff``
    seconds; ``cache_dir`` holds downloaded archives (``<tag>/<sha256>.tar.gz``); ``progress``
    draws a progress bar on stderr.
    """

    cache_dir: Path | None = None
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 0.5
    progress: bool = False


def classify_source(source: str) -> str:
    """Return the kind of ``source``: ``git``, ``http``, ``folder`` or ``tarball``.

    Raises :class:`SourceError` when a local path does not exist or is neither folder nor file.
    """
    if _GIT_URL.match(source):
        return "git"
    if source.startswith(("http://", "https://")):
        return "http"
    if not source.strip():
        raise SourceError("--source is empty: give a folder, a .tar.gz, an http(s) URL or a git URL")
    path = Path(source)
    try:
        if path.is_dir():
            return "folder"
        if path.is_file():
            return "tarball"
        exists = path.exists()
    except OSError as exc:
        raise SourceError(f"{source}: cannot read: {exc.strerror or exc}") from None
    if exists:
        raise SourceError(f"{source}: neither a folder nor a regular file")
    raise SourceError(f"{source}: no such file or folder (give a folder, a .tar.gz, an http(s) URL or a git URL)")


def tag_version(tag: str) -> str:
    """``v0.20.0`` → ``0.20.0``: how GitHub names an archive's top folder (``<repo>-<version>``)."""
    return tag[1:] if tag[:1] in ("v", "V") and tag[1:2].isdigit() else tag


def fetch_upstream(
    tag: str,
    source: str,
    wanted: Wanted,
    options: FetchOptions,
    *,
    expected_sha256: str | None = None,
) -> UpstreamSnapshot:
    """Read the ``wanted`` files of upstream ``tag`` from ``source`` (path or URL).

    ``expected_sha256`` (from a lock file) makes a tarball or download that hashes differently an
    error. Raises :class:`SourceError` for every unreadable, unsafe or mismatching source.
    """
    kind = classify_source(source)
    if kind == "folder":
        snapshot = read_folder(Path(source), tag, wanted, location=source)
    elif kind == "tarball":
        data = _read_local(Path(source))
        snapshot = read_tarball(data, tag, wanted, kind="tarball", location=source)
    elif kind == "http":
        data = download(source, tag, options, expected_sha256=expected_sha256)
        snapshot = read_tarball(data, tag, wanted, kind="http", location=public_url(source))
        # cached only once it proved to be a readable archive of the tag (no poisoned cache)
        _store(options.cache_dir, tag, source, data, snapshot.sha256 or "")
    else:
        snapshot = read_git(source, tag, wanted)
    if expected_sha256 and snapshot.sha256 and snapshot.sha256 != expected_sha256:
        raise SourceError(
            f"{snapshot.location}: archive sha256 {snapshot.sha256} differs from the lock's {expected_sha256}"
        )
    return snapshot


def _read_local(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _safe_member_path(name: str, archive: str) -> str:
    """Normalise a tar member name; refuse absolute paths and ``..`` components."""
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise SourceError(f"{archive}: refusing member with an absolute path: {name}")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise SourceError(f"{archive}: refusing member with '..' in its path: {name}")
    return "/".join(parts)


def read_tarball(data: bytes, tag: str, wanted: Wanted, *, kind: str, location: str) -> UpstreamSnapshot:
    """Read the ``wanted`` files of a GitHub-archive-shaped ``.tar.gz`` held in ``data``.

    Every member is checked first (no absolute paths, no ``..``, no device or FIFO files, links
    only to places inside the archive); the archive must have exactly one top folder, named
    ``<repo>-<tag without v>`` as GitHub names it. Raises :class:`SourceError`.
    """
    sha256 = hashlib.sha256(data).hexdigest()
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
        members = archive.getmembers()
    except (tarfile.TarError, EOFError, zlib.error, OSError, RecursionError) as exc:
        raise SourceError(f"{location}: not a readable tar.gz archive ({_one_line(exc)})") from None
    tops: set[str] = set()
    by_path: dict[str, tarfile.TarInfo] = {}
    for member in members:
        path = _safe_member_path(member.name, location)
        if not path:
            continue
        if member.ischr() or member.isblk() or member.isfifo() or member.isdev():
            raise SourceError(f"{location}: refusing device or FIFO member: {member.name}")
        if member.issym() or member.islnk():
            if member.issym():
                target = posixpath.normpath(posixpath.join(posixpath.dirname(path), member.linkname))
            else:
                target = posixpath.normpath(member.linkname)
            top = path.split("/", 1)[0]
            if member.linkname.startswith("/") or not target.startswith(f"{top}/"):
                raise SourceError(
                    f"{location}: refusing link leading outside the archive: {member.name} -> {member.linkname}"
                )
        tops.add(path.split("/", 1)[0])
        by_path[path] = member
    if len(tops) != 1:
        found = ", ".join(sorted(tops)[:3]) or "nothing"
        raise SourceError(f"{location}: expected one top folder (GitHub archive layout), found {found}")
    top = tops.pop()
    version = tag_version(tag)
    if not top.endswith(f"-{version}"):
        raise SourceError(
            f"{location}: archive holds {top}/, not upstream tag {tag} (expected a folder ending in -{version})"
        )
    files: dict[str, bytes] = {}
    total = 0
    for path, member in by_path.items():
        rel = path[len(top) + 1 :]
        if not rel or member.isdir() or not wanted.matches(rel):
            continue
        try:
            handle = archive.extractfile(member)
            if handle is None:
                continue
            content = handle.read(MAX_MEMBER_BYTES + 1)
        except (tarfile.TarError, EOFError, zlib.error, OSError, KeyError, RecursionError) as exc:
            raise SourceError(f"{location}: corrupt member {member.name} ({_one_line(exc)})") from None
        total += len(content)
        if len(content) > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
            raise SourceError(
                f"{location}: refusing oversized member {member.name} (limits: 64 MiB a file, 512 MiB in all)"
            )
        files[rel] = content
    commit = archive.pax_headers.get("comment") if archive.pax_headers else None
    if commit is not None and not re.fullmatch(r"[0-9a-f]{40}", commit):
        commit = None
    return UpstreamSnapshot(tag=tag, kind=kind, location=location, files=files, sha256=sha256, commit=commit)


def read_folder(folder: Path, tag: str, wanted: Wanted, *, location: str) -> UpstreamSnapshot:
    """Read the ``wanted`` files from a local upstream checkout.

    Links leading outside the folder are refused. When the folder is a git checkout and ``tag``
    names a commit other than HEAD, that is an error (the folder is at another version).
    """
    try:
        folder = folder.resolve()
        if not (folder / "charts").is_dir():
            raise SourceError(f"{location}: no charts/ folder (not an upstream checkout)")
        files = _read_folder_files(folder, wanted, location)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (pathlib)
        raise SourceError(f"{location}: cannot read: {_one_line(exc)}") from None
    commit = _folder_commit(folder, tag, location)
    return UpstreamSnapshot(tag=tag, kind="folder", location=location, files=files, commit=commit)


def _read_folder_files(folder: Path, wanted: Wanted, location: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    roots = [folder / f for f in wanted.folders] + [folder / f for f in wanted.files]
    for root in roots:
        candidates: Iterable[Path] = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in candidates:
            if path.is_dir():
                continue
            real = path.resolve()
            if folder not in real.parents:
                raise SourceError(f"{location}: refusing link leading outside the folder: {path}")
            if not path.exists():
                raise SourceError(f"{location}: dangling link: {path}")
            if not path.is_file():
                raise SourceError(f"{location}: refusing device or special file: {path}")
            rel = path.relative_to(folder).as_posix()
            if wanted.matches(rel):
                files[rel] = real.read_bytes()
    return files


def _folder_commit(folder: Path, tag: str, location: str) -> str | None:
    if not (folder / ".git").exists():
        return None
    import git

    try:
        repo = git.Repo(folder)
        head = repo.head.commit.hexsha
    except (git.GitError, ValueError):
        return None
    try:
        tagged = repo.commit(f"refs/tags/{tag}").hexsha
    except Exception:  # gitpython raises several unrelated types for an unknown ref
        return head
    if tagged != head:
        raise SourceError(f"{location}: the checkout is at {head[:12]}, but {tag} is {tagged[:12]}")
    return head


def _cache_paths(cache_dir: Path, tag: str) -> tuple[Path, Path]:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)
    folder = cache_dir / (name if name.strip(".") else "_")  # never "." or ".."
    return folder, folder / "urls.json"


def _cached(cache_dir: Path | None, tag: str, url: str, expected_sha256: str | None) -> bytes | None:
    """Return cached archive bytes for ``url`` at ``tag`` when present and intact."""
    if cache_dir is None:
        return None
    folder, index = _cache_paths(cache_dir, tag)
    sha = expected_sha256
    if sha is None:
        try:
            urls = json.loads(index.read_text())
        except (OSError, ValueError):
            return None
        sha = urls.get(url) if isinstance(urls, dict) else None
    if not sha:
        return None
    try:
        data = (folder / f"{sha}.tar.gz").read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha else None


def _store(cache_dir: Path | None, tag: str, url: str, data: bytes, sha: str) -> None:
    if cache_dir is None:
        return
    folder, index = _cache_paths(cache_dir, tag)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(folder / f"{sha}.tar.gz", data)
        try:
            urls = json.loads(index.read_text())
        except (OSError, ValueError):
            urls = {}
        if not isinstance(urls, dict):
            urls = {}
        urls[url] = sha
        _atomic_write(index, json.dumps(urls, indent=2, sort_keys=True).encode())
    except OSError:
        pass  # a cache that cannot be written only costs a later download


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


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


def read_git(url: str, tag: str, wanted: Wanted) -> UpstreamSnapshot:
    """Read the ``wanted`` files of ``tag`` from a git repository at ``url`` with gitpython.

    The clone is shallow (depth 1), blob-filtered and sparse, so only the wanted paths are
    fetched. Raises :class:`SourceError` when the URL or tag cannot be reached.
    """
    import git

    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    with tempfile.TemporaryDirectory(prefix="gsvendor-git-") as tmp:
        try:
            repo = git.Repo.clone_from(
                url,
                tmp,
                env=env,
                multi_options=["--depth=1", f"--branch={tag}", "--filter=blob:none", "--no-checkout", "--sparse"],
            )
            repo.git.sparse_checkout("set", "--no-cone", *wanted.sparse_patterns(), env=env)
            repo.git.checkout("HEAD", env=env)
            commit = repo.head.commit.hexsha
        except git.GitCommandError as exc:
            stderr = " ".join((exc.stderr or "").split())
            stderr = re.sub(r"^stderr: ", "", stderr).strip("' ")
            if re.search(r"Remote branch .* not found|not found in upstream", stderr):
                raise SourceError(f"{url}: unknown tag {tag}") from None
            raise SourceError(f"{url}: git clone failed: {stderr or exc}") from None
        root = Path(tmp)
        files: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".git/") or rel == ".git" or not wanted.matches(rel):
                continue
            if path.is_symlink():
                real = path.resolve()
                if root.resolve() not in real.parents:
                    raise SourceError(f"{url}: refusing link leading outside the repository: {rel}")
            if path.is_file():
                files[rel] = path.read_bytes()
    return UpstreamSnapshot(tag=tag, kind="git", location=url, files=files, commit=commit)
