"""Generated files remembered by their inputs: the chart's files, the outside files it reads (``$ref``
bundling), the ``generate:`` settings and the generating code, hashed into a stamp's name
(:func:`gsvendor.stamps.stamp_path`). A hit needs the outside files and outputs to keep their recorded
sha256 and every output path to be one generation writes. Errors are never remembered."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsvendor.config import GenerateSettings
from gsvendor.files import sha256
from gsvendor.generate.chart import generate_chart
from gsvendor.stamps import code_version, read_stamp, stamp_path, write_stamp

if TYPE_CHECKING:
    from gsvendor.generate.schema.config import Reader

SALT = "generated-v1"  # the stamp name's salt; a new entry format takes a new salt
# entries kept (~50 KB each, so ~25 MB): a project's charts at its lock's tag and at an upgrade's, many times over
KEEP = 512


class GenerateCache:
    """:func:`~gsvendor.generate.chart.generate_chart` behind ``generated/`` in the stamps folder ``stamps``
    (``None``: no cache); ``hits``/``misses`` count the calls. The folder keeps the :data:`KEEP` entries
    used last (a hit touches its entry)."""

    def __init__(self, stamps: Path | None) -> None:
        self.folder = stamps / "generated" if stamps is not None else None
        self.hits = self.misses = 0
        self._evicted = False

    def generate(
        self,
        files: dict[str, bytes],
        *,
        chart_dir: str,
        outside: Reader | None,
        project_root: str | None,
        settings: GenerateSettings,
    ) -> dict[str, bytes]:
        """``generate_chart(files, …)``: from the stamp of these inputs, else generated and stamped. Raises
        what :func:`~gsvendor.generate.chart.generate_chart` raises."""
        stamp = None
        read: Reader = outside or (lambda path: None)
        if self.folder is not None:
            inputs = [[path, _digest(files[path])] for path in sorted(files)]
            where = {"chartDir": chart_dir, "projectRoot": project_root, "settings": dataclasses.asdict(settings)}
            stamp = stamp_path(self.folder, SALT, json.dumps({"code": code_version(), **where, "files": inputs}))
            outputs = self._read(stamp, read, files)
            if outputs is not None:
                self.hits += 1
                with contextlib.suppress(OSError):
                    os.utime(stamp)  # used last: kept longest
                return {**files, **outputs}

        self.misses += 1
        reads: dict[str, str | None] = {}

        def recording(path: str) -> bytes | None:
            data = read(path)
            reads[path] = _digest(data)
            return data

        out = generate_chart(
            files, chart_dir=chart_dir, outside=recording, project_root=project_root, settings=settings
        )
        if stamp is not None:
            made = {path: data for path, data in out.items() if data is not files.get(path)}
            texts = {path: data.decode("utf-8") for path, data in made.items()}  # generated text: always UTF-8
            write_stamp(stamp, {"outputs": texts, "sha256": {p: _digest(d) for p, d in made.items()}, "reads": reads})
            self._evict()
        return out

    def _read(self, stamp: Path, read: Reader, files: dict[str, bytes]) -> dict[str, bytes] | None:
        held: Any = read_stamp(stamp)
        try:  # an entry of another shape (damaged, or edited by hand) is a miss
            outputs, sums, reads = (held["data"][name] for name in ("outputs", "sha256", "reads"))
            found = {path: text.encode("utf-8") for path, text in outputs.items()}
            if outputs.keys() != sums.keys() or any(sums[p] != _digest(found[p]) for p in found):
                return None
            if not all(_generated_path(path, files) for path in found):  # an entry edited to write elsewhere
                return None
            recorded = dict(reads.items())
        except (TypeError, KeyError, AttributeError, UnicodeEncodeError):
            return None
        if any(_digest(read(path)) != digest for path, digest in recorded.items()):
            return None  # a file outside the chart changed: generate again
        return found

    def _evict(self) -> None:
        """Remove the entries used longest ago beyond :data:`KEEP`, once per instance."""
        if self._evicted or self.folder is None:
            return
        self._evicted = True
        try:
            entries = [(entry.stat().st_mtime_ns, entry.path) for entry in os.scandir(self.folder) if entry.is_file()]
        except OSError:
            return
        for _, path in sorted(entries)[: max(0, len(entries) - KEEP)]:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else sha256(data)


def _generated_path(path: str, files: dict[str, bytes]) -> bool:
    """Whether ``path`` stays in the chart and, where it names one of ``files``, is a README.md or JSON."""
    inside = bool(path) and posixpath.normpath(path) == path and not path.startswith(("/", "../")) and path != ".."
    name = path.rpartition("/")[2]
    return inside and (path not in files or name == "README.md" or name.endswith(".json"))
