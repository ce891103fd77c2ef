"""Collecting the CustomResourceDefinitions of the project's charts.

Three places hold them: the rendered templates (every chart × variant that rendered), a chart's
``crds/`` folder (helm installs it verbatim) and a chart's ``files/`` (upstream loads some CRDs with
``.Files.Get``, e.g. the Gateway API Inference Extension CRDs of kserve-llmisvc-resources). A CRD
is known by its ``metadata.name``; the first place found wins (rendered before ``crds/`` before
``files/``), since the rendered form is what helm installs.

CRDs are megabytes; one is parsed only when an object of its group and kind needs it
(:meth:`CRD.data`), with :mod:`gsvendor.fastyaml` first.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gsvendor import fastyaml
from gsvendor.fastyaml import NotSimple
from gsvendor.images.documents import CRD_KIND, split_documents
from gsvendor.yamlio import UPSTREAM, YamlLimitError, check_text

_NAME = re.compile(r"^metadata:[ \t]*\n(?:(?:[ \t]+.*|[ \t]*)\n)*?  name:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_GROUP = re.compile(r"^  group:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_KIND = re.compile(r"^  names:[ \t]*\n(?:    .*\n)*?    kind:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_LOCK = threading.Lock()


class CRDError(ValueError):
    """A CRD document that cannot be read (not YAML, or no group/kind)."""


def load_yaml(text: str, strict: bool = False) -> Any:
    """One YAML document: the controller-gen subset lazily (:func:`fastyaml.load_lazy`: values parsed
    when read, so :class:`~gsvendor.fastyaml.NotSimple` may surface then), anything else
    (or ``strict``) with ruamel (libyaml). Raises ruamel's ``YAMLError`` for text that is not YAML,
    :class:`gsvendor.yamlio.YamlLimitError` for text over :data:`gsvendor.yamlio.UPSTREAM`'s limits."""

    label = "a CustomResourceDefinition"
    if len(text) > UPSTREAM.max_bytes:
        raise YamlLimitError(f"{label}: larger than {UPSTREAM.max_bytes // 1024 // 1024} MiB")
    if not strict:
        try:  # block YAML only, a node per line at most, nesting bounded by Python's recursion
            return fastyaml.load_lazy(text)
        except (fastyaml.NotSimple, RecursionError):
            pass
    from ruamel.yaml import YAML

    check_text(text, label)  # before libyaml, which recurses in C
    return YAML(typ="safe").load(text)


def _mapping(text: str, where: str, strict: bool = False) -> Mapping[str, Any]:
    """``text`` read by :func:`load_yaml`. Raises :class:`CRDError` naming ``where`` when it is not
    YAML or not a mapping."""
    from ruamel.yaml.error import YAMLError

    try:
        data = load_yaml(text, strict)
    except YAMLError as exc:
        raise CRDError(f"{where}: not YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, Mapping):
        raise CRDError(f"{where}: not a YAML mapping")
    return data


@dataclass
class CRD:
    """One CustomResourceDefinition: ``name`` (``plural.group``), ``group``, ``kind``, ``source`` (the
    file it came from, ``helm/kserve-llmisvc-crd/templates/….yaml``), its ``text``; the parsed
    document on demand (:meth:`data`)."""

    name: str
    group: str
    kind: str
    source: str
    text: str = field(repr=False)
    _data: Mapping[str, Any] | None = field(default=None, repr=False)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)
    strict: bool = False  # parse with ruamel only (the fast loader met YAML it does not handle)

    @classmethod
    def from_text(cls, text: str, source: str) -> CRD:
        """A CRD from its YAML ``text``: name, group and kind read from the text without parsing it (a
        full parse when the layout is unusual). Raises :class:`CRDError`."""
        name, group, kind = (m.group(1) if (m := rx.search(text)) else None for rx in (_NAME, _GROUP, _KIND))
        if name and group and kind:
            return cls(name=name, group=group, kind=kind, source=source, text=text)

        crd = cls(name="", group="", kind="", source=source, text=text)
        try:
            crd._identify()
        except NotSimple:  # a flow mapping ({kind: …}) met while reading: parse it whole
            crd = cls(name="", group="", kind="", source=source, text=text, strict=True)
            crd._identify()
        if not (crd.group and crd.kind):
            raise CRDError(f"{source}: a CustomResourceDefinition without spec.group or spec.names.kind")
        crd.name = crd.name or f"{crd.kind.lower()}.{crd.group}"
        return crd

    def _identify(self) -> None:
        data = self.data()
        spec = data.get("spec") or {}
        self.name = str((data.get("metadata") or {}).get("name") or "")
        self.group = str(spec.get("group") or "")
        self.kind = str((spec.get("names") or {}).get("kind") or "")

    def data(self) -> Mapping[str, Any]:
        """The parsed CRD (once; thread-safe). Raises :class:`CRDError` when it is not a YAML mapping."""
        with _LOCK:
            if self._data is None:
                self._data = _mapping(self.text, self.source, self.strict)
            return self._data

    def use_strict(self) -> None:
        """Parse again with ruamel only (after the fast loader met YAML it does not handle)."""
        with _LOCK:
            self.strict, self._data = True, None
            self.cache.clear()

    def versions(self) -> dict[str, Mapping[str, Any]]:
        """The CRD's versions by name (``spec.versions``), each parsed only when asked for (a
        version of a large CRD is half of it). Raises :class:`CRDError`."""
        with _LOCK:
            if "versions" in self.cache:
                return self.cache["versions"]
            items = self._version_texts()
        if items is None:
            versions = (self.data().get("spec") or {}).get("versions") or []
            found = {str(v.get("name")): v for v in versions if isinstance(v, Mapping)}
        else:
            found = {name: _LazyVersion(self, name, text) for name, text in items.items()}
        self.cache["versions"] = found
        return found

    def _version_texts(self) -> dict[str, str] | None:
        """``spec.versions`` items as text by name, when the layout is the usual one (``versions:``
        under ``spec:``, a key per line); ``None`` otherwise or when already parsed."""
        if self._data is not None or self.strict:
            return None
        if "texts" in self.cache:
            return self.cache["texts"]
        found = None
        start = re.search(r"^spec:[ \t]*\n(?:(?:  .*|[ \t]*)\n)*?  versions:[ \t]*\n", self.text, re.M)
        if start:
            end = re.compile(r"^ {0,2}\S", re.M).search(self.text, start.end())
            block = self.text[start.end() : end.start() if end else len(self.text)]
            first = re.match(r"( +)- ", block)
            if first:
                indent = first.group(1)
                pieces = re.split(rf"(?m)^{indent}- ", block)
                if not pieces[0].strip():
                    found = {}
                    for piece in pieces[1:]:
                        text = f"{indent}  {piece}"
                        name = re.search(rf"(?m)^{indent}  name:[ \t]*[\"']?([^\s\"'#]+)", text)
                        if not name or name.group(1) in found:
                            found = None
                            break
                        found[name.group(1)] = text
        self.cache["texts"] = found
        return found


class _LazyVersion(Mapping):  # type: ignore[type-arg]
    """One ``spec.versions`` item of a CRD, parsed on first access."""

    def __init__(self, crd: CRD, name: str, text: str) -> None:
        self.crd, self.name, self.text = crd, name, text
        self.data: Mapping[str, Any] | None = None

    def _load(self) -> Mapping[str, Any]:
        if self.data is None:
            self.data = _mapping(self.text, f"{self.crd.source}: version {self.name}")
        return self.data

    def __getitem__(self, key: Any) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def chart_file_crds(chart_dir: Path, label: str) -> Iterator[tuple[str, str]]:
    """``(source label, document)`` of every CRD in a chart's ``crds/`` and ``files/`` YAML files."""
    for folder in ("crds", "files"):
        root = chart_dir / folder
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for chunk in split_documents(text) if CRD_KIND.search(text) else ():
                if CRD_KIND.search(chunk):
                    yield f"{label}/{path.relative_to(chart_dir).as_posix()}", chunk


@dataclass
class CRDSet:
    """The CRDs found, by name, and an index by ``(group, kind)``; ``notes``: documents skipped."""

    by_name: dict[str, CRD] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, text: str, source: str) -> None:
        """Add the CRD in ``text`` unless one of its name is known already (first wins)."""
        match = _NAME.search(text)
        if match and match.group(1) in self.by_name:
            return
        try:
            crd = CRD.from_text(text, source)
        except CRDError as exc:
            self.notes.append(str(exc))
            return
        self.by_name.setdefault(crd.name, crd)

    def add_all(self, documents: Iterable[tuple[str, str]]) -> None:
        """Add every ``(source, text)``."""
        for source, text in documents:
            self.add(text, source)

    def find(self, group: str, kind: str) -> CRD | None:
        """The CRD defining ``kind`` in ``group``, if any."""
        for crd in self.by_name.values():
            if crd.group == group and crd.kind == kind:
                return crd
        return None
