"""The tarball source kind: a GitHub-archive-shaped .tar.gz read in memory, every member checked first."""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import tarfile
import zlib

from gsvendor.errors import SourceError
from gsvendor.upstream.source import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, UpstreamSnapshot, Wanted, _one_line, tag_version


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
