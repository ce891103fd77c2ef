"""What every upstream source kind (:func:`classify_source`) shares: the wanted paths, the snapshot,
size limits and path checks, URLs safe to print, tags."""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from gsvendor.errors import SourceError, redact, shorten

# An upstream charts/ tree is a few MiB in a ~0.5 MiB archive; these bound what a hostile source
# can make us hold or spend. Each can be raised with the environment variable named beside it.
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024  # GSVENDOR_MAX_ARCHIVE_MIB: a .tar.gz read or downloaded
MAX_MEMBER_BYTES = 32 * 1024 * 1024  # GSVENDOR_MAX_MEMBER_MIB: one wanted file
MAX_TOTAL_BYTES = 256 * 1024 * 1024  # GSVENDOR_MAX_TOTAL_MIB: all wanted files together
MAX_ARCHIVE_EXPANDED = 4 * 1024 * 1024 * 1024  # every member's size together (what reading the archive inflates)
MAX_MEMBERS = 200_000  # members in an archive
MAX_WANTED_FILES = 10_000  # files the configured charts take: 100,000 empty ones took 73 s and 450 MB
MAX_DEPTH = 64  # path components of a member or file
MAX_HEADER_BYTES = 64 * 1024  # a GNU long name or link, or a pax header: refused before tarfile reads it


def limit(name: str, default: int) -> int:
    """A size limit in bytes: ``default``, or the MiB in environment variable ``name`` when set (at most 1 TiB)."""
    value = os.environ.get(name, "").strip()
    # isascii: isdigit takes "²", which int refuses
    return min(int(value[:8]), 1 << 20) << 20 if value.isascii() and value.isdigit() and int(value[:8]) > 0 else default


class FileBudget:
    """The per-file and total byte limits on wanted files of any source (``GSVENDOR_MAX_MEMBER_MIB``,
    ``GSVENDOR_MAX_TOTAL_MIB``) and :data:`MAX_WANTED_FILES`; :class:`SourceError` ("refusing …") past one."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.most_member = limit("GSVENDOR_MAX_MEMBER_MIB", MAX_MEMBER_BYTES)
        self.most_total = limit("GSVENDOR_MAX_TOTAL_MIB", MAX_TOTAL_BYTES)
        self.total = self.files = 0

    def charge(self, name: str, size: int) -> None:
        """Count the file ``name`` and its ``size`` bytes against the limits."""
        self.total += size
        self.files += 1
        if self.files > MAX_WANTED_FILES:
            raise SourceError(f"{self.location}: refusing more than {MAX_WANTED_FILES} files to vendor")
        if size > self.most_member or self.total > self.most_total:
            raise SourceError(
                f"{self.location}: refusing oversized member {one_line(name)} (limits: "
                f"{self.most_member // 1024 // 1024} MiB a file, {self.most_total // 1024 // 1024} MiB in all; "
                "GSVENDOR_MAX_MEMBER_MIB, GSVENDOR_MAX_TOTAL_MIB raise them)"
            )

    def read(self, path: Path, name: str) -> bytes:
        """The bytes of ``path`` (shown as ``name``), charged before and after reading; a file that grows while it
        is read is refused (reading up to the limit reserved it all in memory: 3000 MiB failed under ulimit -v)."""
        before, size = self.total, path.stat().st_size
        self.charge(name, size)
        self.total, self.files = before, self.files - 1
        with path.open("rb") as handle:
            content = handle.read(size + 1)
        if len(content) > size:
            raise SourceError(f"{self.location}: {one_line(name)} grew while it was read")
        self.charge(name, len(content))
        return content


def read_tree(root: Path, wanted: Wanted, location: str, what: str) -> dict[str, bytes]:
    """The ``wanted`` files below ``root`` (the ``what``: a checkout or a clone) by upstream-relative path,
    under the archives' limits; :class:`SourceError` for links leaving ``root``, dangling or special files."""
    files: dict[str, bytes] = {}
    budget = FileBudget(location)
    seen = 0
    try:
        root = root.resolve()
        for start in (root / f for f in (*wanted.folders, *wanted.files)):
            for path in [start] if start.is_file() else sorted(start.rglob("*")):
                seen += 1
                if seen > MAX_MEMBERS:
                    raise SourceError(f"{location}: refusing a {what} of more than {MAX_MEMBERS} files")
                if path.is_dir():
                    continue
                rel = path.relative_to(root).as_posix()
                real = path.resolve()
                if root not in real.parents:
                    raise SourceError(f"{location}: refusing link leading outside the {what}: {rel}")
                if not path.exists():
                    raise SourceError(f"{location}: dangling link: {rel}")
                if not path.is_file():
                    raise SourceError(f"{location}: refusing device or special file: {rel}")
                check_path(rel, location)
                if wanted.matches(rel):
                    files[rel] = budget.read(real, rel)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (pathlib)
        raise SourceError(f"{location}: cannot read: {one_line(exc)}") from None
    return files


def check_path(path: str, location: str) -> None:
    """Raise :class:`SourceError` for a source path deeper than :data:`MAX_DEPTH`, holding control characters or a
    ``.git`` part, as git refuses in trees (the name shortened; the CLI's writer escapes its control characters)."""
    if path.count("/") >= MAX_DEPTH:
        raise SourceError(f"{location}: refusing a path more than {MAX_DEPTH} folders deep: {shorten(path, 120)}")
    # format characters too: U+202E reverses what follows, U+200B hides, U+2028 breaks a reviewer's line
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or unicodedata.category(c) in ("Cf", "Zl", "Zp") for c in path):
        raise SourceError(f"{location}: refusing a name with control characters: {shorten(path, 200)}")
    if ".git" in path.lower().split("/"):  # a vendored .git/config runs its hooks and fsmonitor on `git status`
        raise SourceError(f"{location}: refusing a .git folder or file: {shorten(path, 200)}")


@dataclass(frozen=True)
class Wanted:
    """The upstream paths to read, POSIX and upstream-relative: folders (``charts/kserve-crd``) and files."""

    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def matches(self, path: str) -> bool:
        """Whether the upstream-relative ``path`` is one of the wanted files or below a wanted folder."""
        return path in self.files or any(path.startswith(f.rstrip("/") + "/") for f in self.folders)


@dataclass(frozen=True)
class UpstreamSnapshot:
    """The wanted files of one upstream tag (upstream-relative POSIX path → bytes); the archive's
    ``sha256``, upstream's ``commit`` and the whole source's top-level ``folders`` when known."""

    tag: str
    kind: str
    location: str
    files: dict[str, bytes]
    sha256: str | None = None
    commit: str | None = None
    folders: frozenset[str] | None = None


@dataclass(frozen=True)
class FetchOptions:
    """How to reach remote sources. ``timeout``: seconds per HTTP phase (connection, all response
    headers, each body read) and the window ``min_rate`` (bytes/s) is measured over; ``retries`` after
    the first attempt, backing off from ``backoff`` seconds; ``max_time``: seconds for the whole fetch;
    ``cache_dir``: downloaded archives (``<tag>/<sha256>.tar.gz``); ``progress``: a bar on stderr."""

    cache_dir: Path | None = None
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 0.5
    progress: bool = False
    max_time: float = 300.0
    min_rate: float = 1024.0


def classify_source(source: str) -> str:
    """The kind of ``source``: ``git``, ``http``, ``folder`` or ``tarball``; :class:`SourceError` when a
    local path does not exist or is neither folder nor file."""
    if re.match(r"^(file://|ssh://|git://|git@[^:]+:|https?://.+\.git/?$)", source):
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


def go_directives(text: str) -> tuple[str | None, str | None]:
    """The ``go`` and ``toolchain`` directives of go.mod ``text``, as written (``//`` comments ignored)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if match := re.match(r"^(go|toolchain)\s+(\S+)$", line.split("//", 1)[0].strip()):
            found[match.group(1)] = match.group(2)
    return found.get("go"), found.get("toolchain")


def _version_key(tag: str) -> tuple[tuple[int, ...], int, str]:
    """Sort key of a tag such as ``v0.20.0-rc1``: its numbers, a release after its pre-releases."""
    core, _, pre = tag_version(tag).partition("-")
    return tuple(int(n) for n in re.findall(r"\d+", core)), 0 if pre else 1, pre


def nearby_tags(tag: str, tags: list[str]) -> list[str]:
    """Up to two of ``tags`` each side of where ``tag`` would sort in version order."""
    ordered = sorted(set(tags), key=_version_key)
    at = sum(1 for t in ordered if _version_key(t) < _version_key(tag))
    return ordered[max(0, at - 2) : at + 2]


def local_archive(repository: str, tag: str) -> str | None:
    """``$GSVENDOR_UPSTREAM_DIR/<repo>-<tag>.tar.gz`` (``repository``: ``owner/repo``) when that archive
    is there, else ``None``: where an offline machine keeps GitHub's archives, read before any download."""
    folder = os.environ.get("GSVENDOR_UPSTREAM_DIR", "").strip()
    path = Path(folder) / f"{repository.rsplit('/', 1)[-1]}-{tag}.tar.gz"
    return str(path) if folder and path.is_file() else None


def direction(old: str, new: str) -> str:
    """``upgrade``, ``downgrade`` or ``same``: going from tag ``old`` to ``new`` in version order (a
    release after its release candidates, ``v`` prefixes ignored)."""
    before, after = _version_key(old), _version_key(new)
    return "same" if before == after else "upgrade" if after > before else "downgrade"


def missing_tag(location: str, tag: str, tags: list[str], head: str | None, missing: str = "no tag") -> SourceError:
    """The error for a source without ``tag`` (worded ``missing``): the tag, the tags near it, HEAD when known."""
    near = nearby_tags(tag, tags)
    holds = f"tags near it: {', '.join(near)}" if near else "no tags"
    at = f"; its HEAD is {head[:12]}" if head else ""
    return SourceError(f"{location}: {missing} {tag} ({holds}{at}); fetch the tag or give another source")


def tag_version(tag: str) -> str:
    """``v0.20.0`` → ``0.20.0``: how GitHub names an archive's top folder (``<repo>-<version>``)."""
    return tag[1:] if tag[:1] in ("v", "V") and tag[1:2].isdigit() else tag


def read_archive(path: Path, most: int | None = None, flags: int = 0) -> bytes:
    """The bytes of the regular file ``path`` (refused without blocking else), at most ``most`` (default
    :data:`MAX_ARCHIVE_BYTES`); ``flags`` add to :func:`os.open`'s. Raises :class:`SourceError`."""
    most = limit("GSVENDOR_MAX_ARCHIVE_MIB", MAX_ARCHIVE_BYTES) if most is None else most
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | flags), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SourceError(f"{path}: not a regular file")
            if info.st_size > most:
                raise SourceError(
                    f"{path}: {info.st_size // 1024 // 1024} MiB is larger than an upstream archive can be "
                    f"({most // 1024 // 1024} MiB; GSVENDOR_MAX_ARCHIVE_MIB raises it)"
                )
            return handle.read(min(most, info.st_size) + 1)  # read(n) reserves n bytes at once
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None


def one_line(exc: object, url: str = "") -> str:
    """``exc``'s message on one line, without credentials (nor a piece of ``url``'s user info, which a
    parser may quote as a host or port), at most 300 characters (else its type's name)."""
    text = " ".join(str(exc).split())
    for piece in sorted(re.split(r"[:@/?#]", (split_userinfo(url) or ("", "", ""))[1]), key=len, reverse=True):
        text = text.replace(piece, "REDACTED") if len(piece) > 2 else text
    return shorten(redact(text), 300) or type(exc).__name__


def split_userinfo(url: str) -> tuple[str, str, str] | None:
    """``(scheme://, userinfo, rest)`` of ``url`` (``userinfo`` ``""`` when none); ``None`` without ``scheme://``.
    When the authority holds an ``@``, or a ``:`` followed by no port, the user info ends at the last ``@``: a
    password may hold ``/``, ``#`` or ``?`` (``user:s3/cr3t@host/…``, ``user:p@ss/w0rd@host``, ``u:s#x@host``)."""
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*://)(.*)$", url, re.S)
    if not match:
        return None
    scheme, rest = match.groups()
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    port = authority.rsplit("]", 1)[-1]  # after an IPv6 literal's bracket
    userinfo = "@" in authority or (":" in port and not port.rsplit(":", 1)[1].isdigit())
    at = rest.rfind("@") if userinfo else -1
    return (scheme, rest[:at], rest[at + 1 :]) if at >= 0 else (scheme, "", rest)


def public_url(url: str) -> str:
    """``url`` safe to print or record: no user info (:func:`split_userinfo`), every query value
    ``REDACTED`` by rule, not by name (``?pat=``, ``?sas=`` and ``?x=`` alike)."""
    if (parts_of := split_userinfo(url)) is not None:
        url = parts_of[0] + parts_of[2]
    try:
        parts = urlsplit(url)
        query = urlencode([(k, "REDACTED") for k, _v in parse_qsl(parts.query, keep_blank_values=True)])
        return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
    except ValueError:  # not a valid URL: redacted as text
        return redact(url)
