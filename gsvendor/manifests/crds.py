"""The CustomResourceDefinitions of the project's charts: rendered, in ``crds/`` and in ``files/`` (``.Files.Get``).
The first of a ``metadata.name`` wins, rendered first (what helm installs). CRDs are megabytes: one is parsed
(with :mod:`gsvendor.fastyaml` first) only when an object needs it."""

from __future__ import annotations

import contextlib
import re
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
    if not strict:  # block YAML only, a node per line at most, nesting bounded by Python's recursion
        with contextlib.suppress(NotSimple, RecursionError):
            return fastyaml.load_lazy(text)
    from ruamel.yaml import YAML

    check_text(text, label)  # before libyaml, which recurses in C
    return YAML(typ="safe").load(text)


@dataclass
class CRD:
    """One CustomResourceDefinition (``name``: ``plural.group``) from ``source``, ``text`` parsed on demand."""

    name: str
    group: str
    kind: str
    source: str
    text: str = field(repr=False)
    _data: Mapping[str, Any] | None = field(default=None, repr=False)
    strict: bool = False  # parse with ruamel only (the fast loader met YAML it does not handle)

    @classmethod
    def from_text(cls, text: str, source: str) -> CRD:
        """A CRD from ``text``, name, group and kind read without a parse in the usual layout; raises CRDError."""
        name, group, kind = (m.group(1) if (m := rx.search(text)) else None for rx in (_NAME, _GROUP, _KIND))
        if name and group and kind:
            return cls(name=name, group=group, kind=kind, source=source, text=text)
        crd = cls(name="", group="", kind="", source=source, text=text)

        def identify() -> list[str]:
            data = crd.data()
            spec = data.get("spec") or {}
            found = ((data.get("metadata") or {}).get("name"), spec.get("group"), (spec.get("names") or {}).get("kind"))
            return [str(value or "") for value in found]

        crd.name, crd.group, crd.kind = crd.strictly(identify)
        if not (crd.group and crd.kind):
            raise CRDError(f"{source}: a CustomResourceDefinition without spec.group or spec.names.kind")
        crd.name = crd.name or f"{crd.kind.lower()}.{crd.group}"
        return crd

    def data(self) -> Mapping[str, Any]:
        """The parsed CRD (once). Raises :class:`CRDError` when it is not a YAML mapping."""
        from ruamel.yaml.error import YAMLError

        if self._data is None:
            try:
                data = load_yaml(self.text, self.strict)
            except YAMLError as exc:
                raise CRDError(f"{self.source}: not YAML: {' '.join(str(exc).split())}") from None
            if not isinstance(data, Mapping):
                raise CRDError(f"{self.source}: not a YAML mapping")
            self._data = data
        return self._data

    def strictly(self, read: Callable[[], T]) -> T:
        """``read()``, again with the CRD parsed by ruamel when the fast loader met YAML it does not handle (a flow
        mapping ``{kind: …}`` met while reading)."""
        try:
            return read()
        except NotSimple:
            self.strict, self._data = True, None
            return read()

    def versions(self) -> dict[str, Mapping[str, Any]]:
        """``spec.versions`` by name. Raises :class:`CRDError`."""
        versions = (self.data().get("spec") or {}).get("versions") or []
        return {str(v.get("name")): v for v in versions if isinstance(v, Mapping)}


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
            if (match := _NAME.search(text)) and match.group(1) in self.by_name:
                continue
            try:
                crd = CRD.from_text(text, source)
                self.by_name.setdefault(crd.name, crd)
            except CRDError as exc:
                self.notes.append(str(exc))

    def find(self, group: str, kind: str) -> CRD | None:
        """The CRD defining ``kind`` in ``group``, if any."""
        return next((crd for crd in self.by_name.values() if crd.group == group and crd.kind == kind), None)
