"""The tarball source kind: a GitHub-archive-shaped .tar.gz read in memory, every member checked first."""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import sys
import tarfile
import zlib
from typing import Any

from gsvendor.errors import SourceError
from gsvendor.files import holding_files
from gsvendor.upstream import source

# what tarfile may raise on a broken archive or member
_BROKEN = (tarfile.TarError, EOFError, zlib.error, OSError, KeyError, RecursionError, MemoryError)


# CPython's tarfile before 3.11.10 / 3.12.6 searches pax headers in time quadratic in their runs of digits
# (CVE-2024-6232): there, the squares of the pax headers' sizes together are bounded (at most ~2 s).
_PAX_QUADRATIC = sys.version_info < (3, 11, 10) or (3, 12) <= sys.version_info < (3, 12, 6)
_PAX_SQUARES_BUDGET = 2**30
_HEADERS_BUDGET = 16 * 1024 * 1024  # the extended headers together: 10,000 long names of 63 KiB took 1.9 GB


class _HeaderRefused(Exception):
    """An extended header :class:`_BoundedTarInfo` refuses; the message follows the archive's name."""


class _BoundedTarInfo(tarfile.TarInfo):
    """Refuses, from the header alone, an extended header past :data:`MAX_HEADER_BYTES` or the pax budget."""

    def _proc_member(self, archive: Any) -> Any:
        pax = self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
        if pax or self.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK):
            what = "a pax header" if pax else "a long member name"
            archive._gsvendor_headers = getattr(archive, "_gsvendor_headers", 0) + self.size  # kept in memory
            if self.size > source.MAX_HEADER_BYTES or archive._gsvendor_headers > _HEADERS_BUDGET:
                limits = f"{source.MAX_HEADER_BYTES // 1024} KiB, {_HEADERS_BUDGET >> 20} MiB in all"
                raise _HeaderRefused(f"refusing {what} of {self.size} bytes (limits {limits})")
            if pax and _PAX_QUADRATIC:
                archive._gsvendor_pax_squares = getattr(archive, "_gsvendor_pax_squares", 0) + self.size**2
                if archive._gsvendor_pax_squares > _PAX_SQUARES_BUDGET:
                    raise _HeaderRefused(
                        "refusing pax headers this Python's tarfile would take too long to read "
                        "(CVE-2024-6232; Python 3.11.10 or 3.12.6 reads them)"
                    )
        return super()._proc_member(archive)

    def _proc_sparse(self, *_: Any) -> Any:  # the pax forms too: tarfile holds a sparse map in memory, unbounded
        raise _HeaderRefused("refusing a sparse member (GitHub's archives hold none)")

    _proc_gnusparse_00 = _proc_gnusparse_01 = _proc_gnusparse_10 = _proc_sparse

    @classmethod
    def fromtarfile(cls, archive: Any) -> Any:
        """The next header; an archive ending after a member without tar's end-of-archive blocks is refused
        (tarfile ends the listing there silently: a tar cut at a member boundary would lose its last files)."""
        try:
            return super().fromtarfile(archive)
        except (tarfile.EmptyHeaderError, tarfile.TruncatedHeaderError):
            if archive.offset == 0:
                raise
            raise _HeaderRefused("truncated: it ends without tar's end-of-archive blocks") from None


def _normal(name: str) -> str:
    """A member's path without empty and ``.`` parts (``./a//b`` → ``a/b``)."""
    return "/".join(p for p in name.split("/") if p not in ("", "."))


def read_tarball(data: bytes, tag: str, wanted: source.Wanted, *, kind: str, location: str) -> source.UpstreamSnapshot:
    """Read the ``wanted`` files of a GitHub-archive-shaped ``.tar.gz`` held in ``data``. Raises
    :class:`SourceError` for any member with an absolute path, ``..``, a device or FIFO or a link
    leaving the archive, and unless the one top folder is ``<repo>-<tag without v>``."""
    budget = source.FileBudget(location)
    members: list[tarfile.TarInfo] = []
    early: dict[tarfile.TarInfo, bytes] = {}  # the content of each wanted regular file
    try:
        # the mode the first bytes announce (never "r:*", which tries every decompressor)
        magic = ((b"\x1f\x8b", "r:gz"), (b"BZh", "r:bz2"), (b"\xfd7zXZ\x00", "r:xz"), (b"", "r:"))
        mode = next(m for head, m in magic if data.startswith(head))
        if mode == "r:" and data[257:262] != b"ustar":
            raise SourceError(f"{location}: not a readable tar.gz archive (no gzip, bzip2, xz or tar header)")
        archive = tarfile.open(fileobj=io.BytesIO(data), mode=mode, tarinfo=_BoundedTarInfo)
        expanded = 0
        for member in archive:  # one header at a time: limits apply before the next member is inflated
            members.append(member)
            expanded += abs(member.size)  # a pax header may say a negative size
            if len(members) > source.MAX_MEMBERS or expanded > source.MAX_ARCHIVE_EXPANDED:
                raise SourceError(
                    f"{location}: refusing an archive of more than {source.MAX_MEMBERS} members or "
                    f"{source.MAX_ARCHIVE_EXPANDED // 1024**3} GiB"
                )
            if member.isreg() and wanted.matches(_normal(member.name).partition("/")[2]):
                budget.charge(member.name, member.size)  # read as the stream passes: after, it inflated twice
                early[member] = archive.extractfile(member).read()  # type: ignore[union-attr]
    except _HeaderRefused as exc:
        raise SourceError(f"{location}: {exc}") from None
    except _BROKEN as exc:
        raise SourceError(f"{location}: not a readable tar.gz archive ({source.one_line(exc)})") from None
    by_path: dict[str, tarfile.TarInfo] = {}
    links: dict[tarfile.TarInfo, str] = {}  # a link → the archive path it names
    for member in members:
        if member.name.startswith("/") or re.match(r"^[A-Za-z]:", member.name):
            raise SourceError(f"{location}: refusing member with an absolute path: {member.name}")
        if ".." in (path := _normal(member.name)).split("/"):
            raise SourceError(f"{location}: refusing member with '..' in its path: {member.name}")
        if not path:
            continue
        source.check_path(path, location)
        if member.isdev():  # character, block device or FIFO
            raise SourceError(f"{location}: refusing device or FIFO member: {member.name}")
        if member.issym() or member.islnk():  # a hard link's target is archive-relative, a symlink's its folder's
            base = posixpath.dirname(path) if member.issym() else ""
            links[member] = posixpath.normpath(posixpath.join(base, member.linkname))
            if not links[member].startswith(path.split("/", 1)[0] + "/"):
                raise SourceError(
                    f"{location}: refusing link leading outside the archive: {member.name} -> {member.linkname}"
                )
        if path in by_path and by_path[path].isdir() != member.isdir():  # the last would hide the other
            raise SourceError(f"{location}: refusing {source.one_line(member.name)}: listed as a folder and as a file")
        by_path[path] = member
    tops = sorted({path.split("/", 1)[0] for path in by_path})
    if len(tops) != 1:
        raise SourceError(
            f"{location}: expected one top folder (GitHub archive layout), found {', '.join(tops[:3]) or 'nothing'}"
        )
    top, version = tops[0], source.tag_version(tag)
    if not top.endswith(f"-{version}"):
        raise SourceError(
            f"{location}: archive holds {top}/, not upstream tag {tag} (expected a folder ending in -{version})"
        )
    inside = {path[len(top) + 1 :]: member for path, member in by_path.items()}
    chosen = [(rel, member) for rel, member in inside.items() if not member.isdir() and wanted.matches(rel)]
    if (odd := holding_files((rel for rel, _ in chosen), inside)) is not None:
        raise SourceError(f"{location}: refusing {source.one_line(odd)}: a file, yet other members are inside it")
    files: dict[str, bytes] = {}
    for rel, target in chosen:  # a link gives a wanted file read already: no seek back, no chain, no loop
        if target not in early:
            target = by_path.get(links[target])  # type: ignore[assignment]
            if target not in early:
                raise SourceError(
                    f"{location}: refusing {source.one_line(f'{top}/{rel}')}: a link, not to a wanted file"
                )
            budget.charge(f"{top}/{rel}", len(early[target]))
        files[rel] = early[target]
    comment = archive.pax_headers.get("comment", "")  # GitHub's archives name their commit there
    commit = comment if re.fullmatch(r"[0-9a-f]{40}", comment) else None
    folders = frozenset(rel.split("/", 1)[0] for rel, m in inside.items() if rel and ("/" in rel or m.isdir()))
    return source.UpstreamSnapshot(tag, kind, location, files, hashlib.sha256(data).hexdigest(), commit, folders)
