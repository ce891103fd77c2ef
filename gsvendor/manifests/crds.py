"""The CustomResourceDefinitions of the project's charts: rendered, in ``crds/`` and in ``files/`` (loaded with
``.Files.Get``). The first of a ``metadata.name`` wins, rendered first (what helm installs). CRDs are
megabytes: one is parsed (with :mod:`gsvendor.fastyaml` first) only when an object needs it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gsvendor import fastyaml
from gsvendor.fastyaml import NotSimple
from gsvendor.images.documents import CRD_KIND, split_documents
from gsvendor.yamlio import UPSTREAM, YamlLimitError, check_text

_NAME = re.compile(r"^metadata:[ \t]*\n(?:(?:[ \t]+.*|[ \t]*)\n)*?  name:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_GROUP = re.compile(r"^  group:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_KIND = re.compile(r"^  names:[ \t]*\n(?:    .*\n)*?    kind:[ \t]*[\"']?([^\s\"'#]+)", re.M)
_LOCK = threading.Lock()
T = TypeVar("T")


class CRDError(ValueError):
    """A CRD document that cannot be read (not YAML, or no group/kind)."""


def load_yaml(text: str, strict: bool = False) -> Any:
    """One YAML document: the controller-gen subset lazily (:func:`fastyaml.load_lazy`, which may raise
    :class:`~gsvendor.fastyaml.NotSimple` when read), else (or ``strict``) with ruamel. Raises ruamel's
    ``YAMLError``, or :class:`gsvendor.yamlio.YamlLimitError` over :data:`gsvendor.yamlio.UPSTREAM`'s limits."""
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
    """``text`` read by :func:`load_yaml`. Raises :class:`CRDError` naming ``where`` unless a YAML mapping."""
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
    """One CustomResourceDefinition (``name``: ``plural.group``) from ``source`` (a chart's file); its ``text``
    parsed on demand (:meth:`data`)."""

    name: str
    group: str
    kind: str
    source: str
    text: str = field(repr=False)
    _data: Mapping[str, Any] | None = field(default=None, repr=False)
    _versions: dict[str, Mapping[str, Any]] | None = field(default=None, repr=False)
    strict: bool = False  # parse with ruamel only (the fast loader met YAML it does not handle)

    @classmethod
    def from_text(cls, text: str, source: str) -> CRD:
        """A CRD from its YAML ``text``, its name, group and kind found without a parse where the layout is the
        usual one. Raises :class:`CRDError`."""
        name, group, kind = (m.group(1) if (m := rx.search(text)) else None for rx in (_NAME, _GROUP, _KIND))
        if name and group and kind:
            return cls(name=name, group=group, kind=kind, source=source, text=text)

        crd = cls(name="", group="", kind="", source=source, text=text)
        crd.strictly(crd._identify)
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

    def strictly(self, read: Callable[[], T]) -> T:
        """``read()``, again with the CRD parsed by ruamel when the fast loader met YAML it does not handle (a flow
        mapping ``{kind: …}`` met while reading)."""
        try:
            return read()
        except NotSimple:
            with _LOCK:
                self.strict, self._data, self._versions = True, None, None
            return read()

    def versions(self) -> dict[str, Mapping[str, Any]]:
        """``spec.versions`` by name, each parsed only when read (one is half a large CRD). Raises :class:`CRDError`."""
        with _LOCK:
            if self._versions is not None:
                return self._versions
            items = None if self._data is not None or self.strict else _version_texts(self.text)
        if items is None:
            versions = (self.data().get("spec") or {}).get("versions") or []
            found = {str(v.get("name")): v for v in versions if isinstance(v, Mapping)}
        else:
            found = {name: _LazyVersion(self, name, text) for name, text in items.items()}
        self._versions = found
        return found


def _version_texts(text: str) -> dict[str, str] | None:
    """The ``spec.versions`` items of a CRD's ``text`` by name, in the usual layout (``versions:`` under ``spec:``,
    a key per line); else ``None``."""
    start = re.search(r"^spec:[ \t]*\n(?:(?:  .*|[ \t]*)\n)*?  versions:[ \t]*\n", text, re.M)
    if not start:
        return None
    end = re.compile(r"^ {0,2}\S", re.M).search(text, start.end())
    block = text[start.end() : end.start() if end else len(text)]
    first = re.match(r"( +)- ", block)
    if not first:
        return None
    indent, found = first.group(1), {}
    for piece in re.split(rf"(?m)^{indent}- ", block)[1:]:  # the first piece: the "" before the first item
        item = f"{indent}  {piece}"
        name = re.search(rf"(?m)^{indent}  name:[ \t]*[\"']?([^\s\"'#]+)", item)
        if not name or name.group(1) in found:
            return None
        found[name.group(1)] = item
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
    for path in sorted(path for folder in ("crds", "files") for path in (chart_dir / folder).rglob("*")):
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
    """The CRDs found, by name; ``notes``: documents skipped."""

    by_name: dict[str, CRD] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add_all(self, documents: Iterable[tuple[str, str]]) -> None:
        """Add the CRD of every ``(source, text)`` unless one of its name is known already (first wins)."""
        for source, text in documents:
            match = _NAME.search(text)
            if match and match.group(1) in self.by_name:
                continue
            try:
                crd = CRD.from_text(text, source)
            except CRDError as exc:
                self.notes.append(str(exc))
                continue
            self.by_name.setdefault(crd.name, crd)

    def find(self, group: str, kind: str) -> CRD | None:
        """The CRD defining ``kind`` in ``group``, if any."""
        for crd in self.by_name.values():
            if crd.group == group and crd.kind == kind:
                return crd
        return None
