"""The lock file (``gsvendor.lock.yaml``), as vendir's ``vendir.lock.yml``: the tag, the source (kind, location,
archive sha256, upstream commit) and per file the sha256 of the upstream bytes and of the result, written
byte-identical on re-sync. ``verify`` rebuilds from it; ``sync`` tells a hand edit from its own output by it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from gsvendor.errors import ConfigError, LockError, shorten
from gsvendor.files import sha256
from gsvendor.stamps import read_stamp, stamp_path, write_stamp
from gsvendor.vendoring.plan import Build
from gsvendor.yamlio import USER_FILE, invalid_yaml, load_plain, read_text

API_VERSION = "gsvendor.giantswarm.io/v1alpha1"
KIND = "Lock"
HEADER = "# Written by `gsvendor sync`; do not edit. `gsvendor verify` rebuilds from it.\n"


@dataclass(frozen=True)
class Lock:
    """A parsed lock file (a local ``location`` relative to the project root); ``charts``, ``files``: path → sha256
    sync wrote; ``go_mod``: upstream go.mod's ``go`` and ``toolchain`` (``None``: no go.mod, or an older lock)."""

    tag: str
    kind: str
    location: str
    sha256: str | None
    commit: str | None
    charts: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    go_mod: tuple[str | None, str | None] | None = None

    def results(self) -> dict[str, str]:
        """Project-relative path → sha256 of every file the lock says sync wrote."""
        return {**self.charts, **self.files}

    def source_for(self, root: Path) -> str:
        """The source as ``fetch_upstream`` takes it: a URL, or a local path resolved against ``root`` (a
        local git repository as a ``file://`` URL)."""
        local = self.local_source(root)
        if local is None or (os.path.isabs(self.location) and self.kind != "git"):
            return self.location
        return local.resolve().as_uri() if self.kind == "git" else str(local.resolve())

    def local_source(self, root: Path) -> Path | None:
        """The local file or folder the source names (``None`` for a remote source)."""
        # a git location is a URL when it has a scheme:// or is user@host:path
        url = "://" in self.location or re.match(r"^[^/]+@[^/:]+:", self.location)
        return root / self.location if self.kind in ("folder", "tarball") or (self.kind == "git" and not url) else None


def source_location(kind: str, location: str, root: Path) -> str:
    """How a source is recorded: local paths and ``file://`` git repositories relative to the project root,
    URLs without credentials (:func:`gsvendor.upstream.source.public_url`, ``git.public_git_url``)."""
    if kind == "git" and location.startswith("file://"):
        from urllib.parse import unquote, urlparse

        location = unquote(urlparse(location).path)
    elif kind not in ("folder", "tarball"):
        from gsvendor.upstream.git import public_git_url
        from gsvendor.upstream.source import public_url

        return public_url(location) if kind == "http" else public_git_url(location)
    # abspath, not resolve: a ../shared link stays ../shared, so the lock survives a copied project
    return Path(os.path.relpath(os.path.abspath(location), os.path.abspath(root))).as_posix()


def document(build: Build, location: str) -> dict[str, Any]:
    """The lock's data for ``build`` whose source is recorded as ``location``: what :func:`render` writes."""
    snapshot = build.snapshot
    charts: dict[str, Any] = {}
    for chart in build.charts:
        files = {
            path: ({"upstream": sha256(chart.upstream[path])} if path in chart.upstream else {})
            | {"result": sha256(chart.files[path])}
            for path in sorted(chart.files)
        }
        charts[chart.spec.name] = {"dest": chart.spec.dest, "overlays": chart.overlays, "files": files}
    document = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "tag": snapshot.tag,
        "source": {"kind": snapshot.kind, "location": location, "sha256": snapshot.sha256, "commit": snapshot.commit},
        "charts": charts,
    }
    go_mod = snapshot.files.get("go.mod")
    if go_mod is not None:
        from gsvendor.upstream.source import go_directives

        go, toolchain = go_directives(go_mod.decode("utf-8", "replace"))
        document["goMod"] = {"go": go, "toolchain": toolchain}
    if build.copies:
        document["files"] = {
            copy.spec.dest: {"source": copy.spec.source, "upstream": sha256(copy.data), "result": sha256(copy.data)}
            for copy in sorted(build.copies, key=lambda c: c.spec.dest)
        }
    return document


def render(data: dict[str, Any]) -> bytes:
    """The lock file's bytes for ``data`` (:func:`document`'s), block style in insertion order, by libyaml's emitter
    (ruamel.yaml.clib: ~6x the pure Python one, which also writes NEL raw inside quotes, read as a line break)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=False)
    yaml.default_flow_style, yaml.width, yaml.allow_unicode = False, 4096, True
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = StringIO()
    out.write(HEADER)
    yaml.dump(data, out)
    return out.getvalue().encode()


def read(path: Path, stamps: Path | None = None) -> Lock:
    """Parse the lock file at ``path`` (bounded as :data:`gsvendor.yamlio.USER_FILE`; a text stamped in ``stamps``
    before is not parsed again). Raises :class:`LockError` when absent or malformed."""
    from ruamel.yaml.error import YAMLError

    if not path.is_file():
        missing = "no lock file; run `gsvendor sync TAG` first"
        raise LockError(f"{path.name}: {'not a regular file' if os.path.lexists(path) else missing}")
    try:
        text = read_text(path, path.name)
        stamp = stamp_path(stamps, KIND, text)
        if (data := (read_stamp(stamp) or {}).get("data")) is None:  # a stamp holds a mapping, if anything
            data = load_plain(text, path.name, USER_FILE)
            write_stamp(stamp, data)
        return parse(data, path.name)
    except ConfigError as exc:
        raise LockError(*exc.problems, file=exc.file) from None
    except YAMLError as exc:
        raise LockError(invalid_yaml(exc, path.name), file=path.name) from None
    except (KeyError, TypeError, AttributeError, ValueError, UnicodeDecodeError, OSError, RecursionError) as exc:
        detail = shorten(" ".join(str(exc)[:1000].split()))
        raise LockError(f"{path.name}: malformed lock file ({type(exc).__name__}: {detail})", file=path.name) from None


def parse(data: Any, label: str) -> Lock:
    """The :class:`Lock` that a lock file's ``data`` (:func:`document`'s shape) records. Raises :class:`LockError`
    naming ``label``, and ``KeyError``, ``TypeError`` or ``AttributeError`` for data of another shape."""
    if not isinstance(data, dict) or not isinstance(data.get("tag"), str) or data.get("kind") != KIND:
        raise LockError(f"{label}: not a gsvendor lock file (kind: {KIND} and a tag expected)")
    source = data["source"]
    if not isinstance(source, dict) or not all(isinstance(source.get(k), str) for k in ("kind", "location")):
        raise LockError(f"{label}: source: kind and location must be strings")

    def locked(files: Any, folder: str = "") -> dict[str, str]:
        return {f"{folder}{p}": str(f["result"]) for p, f in (files or {}).items()}

    charts: dict[str, str] = {}
    for chart in (data.get("charts") or {}).values():
        charts.update(locked(chart.get("files"), f"{chart['dest']}/"))
    recorded = data.get("goMod")
    go_mod = (recorded.get("go"), recorded.get("toolchain")) if isinstance(recorded, dict) else recorded
    if go_mod is not None and (not isinstance(go_mod, tuple) or any(not isinstance(v, str | None) for v in go_mod)):
        raise LockError(f"{label}: goMod: expected {{go: …, toolchain: …}}, got {recorded!r}"[:300])
    sha = source.get("sha256")
    if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        raise LockError(f"{label}: source.sha256: {sha!r} is not a sha256 hex digest")
    files = locked(data.get("files"))
    return Lock(data["tag"], source["kind"], source["location"], sha, source.get("commit"), charts, files, go_mod)
