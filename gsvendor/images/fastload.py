"""YAML for check-images, parsed by libyaml and built into plain data with less Python per node.

ruamel's safe loader on libyaml (``YAML(typ="safe")``) spends most of its time in Python, not in
libyaml: its versioned resolver works the YAML version out again for every scalar (two caught
``AttributeError`` s each time, as a libyaml loader has no scanner of its own), and its constructor
runs a generator, two memo dictionaries and a tag look-up per node. Here:

* :class:`_OnceResolver` is that resolver with the version worked out once per loader. Under libyaml
  its inputs (the loader's ``version``, else YAML 1.2 — libyaml's loader has no ``_scanner``,
  ``typ`` or ``_serializer``) cannot change while a stream is read, so every tag it resolves is
  the tag ruamel resolves.
* :func:`build` turns the composed nodes into dicts, lists and scalars directly for the common
  case: block or flow mappings with scalar keys, sequences, ``str`` scalars as they are and
  ``null``/``bool``/``int``/``float`` through ruamel's own constructor methods. For anything else —
  an alias or anchor used twice, a merge key (``<<``) or value key (``=``), a duplicate key, an
  explicit or unusual tag (``!!binary``, ``!!timestamp``, ``!x``), a complex key, nesting deeper
  than Python's recursion allows — it gives up (:class:`_Unusual`) and ruamel's constructor builds
  the same node, which is what ``YAML(typ="safe").load_all`` would have done with it.

So :func:`load_all` and :func:`load_single` return what ``YAML(typ="safe").load_all`` and
``.load`` return, and raise the same errors in the same order (composition errors come from the
same libyaml calls; construction errors from ruamel's constructor, as the fast path steps aside
for everything that can fail). ``tests/cli/test_speed_paths.py`` compares both on every rendered
document of the project's charts and on generated YAML. Without ruamel.yaml.clib (no libyaml) both
functions use ruamel's own loader unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver

from gsvendor.yamlio import UPSTREAM, check_text, libyaml_loader_class

T = TypeVar("T")

_BASE = "tag:yaml.org,2002:"
_STR, _MAP, _SEQ = f"{_BASE}str", f"{_BASE}map", f"{_BASE}seq"
_SPECIAL_KEYS = frozenset({f"{_BASE}merge", f"{_BASE}value"})  # flatten_mapping rewrites these
_SIMPLE_SCALARS = frozenset({f"{_BASE}null", f"{_BASE}bool", f"{_BASE}int", f"{_BASE}float"})


class _Unusual(Exception):
    """A node :func:`build` leaves to ruamel's constructor."""


class _OnceResolver(VersionedResolver):
    """ruamel's :class:`~ruamel.yaml.resolver.VersionedResolver`, its processing version computed once.

    Only used with libyaml's parser (:func:`_loader`), where the version cannot change mid-stream.
    """

    @property
    def processing_version(self) -> Any:
        """The YAML version the implicit resolvers follow (ruamel's answer, cached per loader)."""
        try:
            return self._gsvendor_version
        except AttributeError:
            self._gsvendor_version: Any = VersionedResolver.processing_version.fget(self)  # type: ignore[attr-defined]
            return self._gsvendor_version


@functools.cache
def _libyaml() -> bool:
    """Whether ruamel parses with libyaml here (``YAML(typ="safe")`` chose its C parser)."""
    from ruamel.yaml.main import CParser

    return CParser is not None and YAML(typ="safe").Parser is CParser


def _loader(text: str) -> tuple[Any, Any]:
    """``(constructor, parser)`` for ``text``: the loader ``YAML(typ="safe")`` with :class:`_OnceResolver`
    makes, one fresh per call (a loader is not thread-safe), its class made once
    (:func:`gsvendor.yamlio.libyaml_loader_class`)."""
    loader = libyaml_loader_class(_OnceResolver)(text)
    return loader, loader


def build(node: Any, constructor: Any) -> Any:
    """Plain data of the composed ``node``, as ``constructor.construct_document(node)`` gives it.

    ``constructor``: the ruamel safe constructor of the loader that composed ``node`` (its
    ``null``/``bool``/``int``/``float`` methods build those scalars). Raises :class:`_Unusual` for
    a node this shortcut does not handle (see the module), and ``RecursionError`` for deep nesting;
    it never changes the nodes, so ruamel's constructor can build them afterwards.
    """
    seen: set[int] = set()
    methods = constructor.yaml_constructors

    def value(current: Any) -> Any:
        tag = current.ctag
        if tag.handle is not None:
            raise _Unusual
        suffix = tag.suffix
        kind = type(current)
        if kind is ScalarNode:
            if suffix == _STR:
                return current.value
            if suffix in _SIMPLE_SCALARS:
                return methods[suffix](constructor, current)
            raise _Unusual
        if id(current) in seen:  # an alias: ruamel shares (or recurses into) the object
            raise _Unusual
        seen.add(id(current))
        if kind is MappingNode and suffix == _MAP:
            out: dict[Any, Any] = {}
            for key_node, value_node in current.value:
                if type(key_node) is not ScalarNode or key_node.ctag.suffix in _SPECIAL_KEYS:
                    raise _Unusual
                key = value(key_node)
                if key in out:  # ruamel raises DuplicateKeyError with its message
                    raise _Unusual
                out[key] = value(value_node)
            return out
        if kind is SequenceNode and suffix == _SEQ:
            return [value(item) for item in current.value]
        raise _Unusual

    return value(node)


def _document(node: Any, constructor: Any) -> Any:
    try:
        return build(node, constructor)
    except (_Unusual, RecursionError):
        return constructor.construct_document(node)


def load_all(text: str, label: str = "rendered manifests") -> list[Any]:
    """Every document of ``text``, as ``list(YAML(typ="safe").load_all(text))`` gives them.

    Raises ruamel's ``YAMLError`` (and its subclasses) as that call does, and
    :class:`gsvendor.yamlio.YamlLimitError` naming ``label`` for text over
    :data:`gsvendor.yamlio.UPSTREAM`'s limits (checked before libyaml composes it).
    """
    check_text(text, label, UPSTREAM)
    if not _libyaml():
        return list(YAML(typ="safe").load_all(text))
    constructor, parser = _loader(text)
    try:
        documents = []
        while constructor.check_data():
            documents.append(_document(constructor.composer.get_node(), constructor))
        return documents
    finally:
        parser.dispose()


def load_single(text: str, inspect: Callable[[Any], T], label: str = "YAML text") -> tuple[Any, T]:
    """``(YAML(typ="safe").load(text), inspect(YAML(typ="safe").compose(text)))`` from one parse.

    ``inspect`` reads the composed root node (``None`` for an empty document) before anything is
    constructed (ruamel's constructor rewrites merge keys in the nodes). Raises ruamel's
    ``YAMLError`` as ``load`` does, what ``inspect`` raises, and
    :class:`gsvendor.yamlio.YamlLimitError` naming ``label`` (:func:`load_all`).
    """
    check_text(text, label, UPSTREAM)
    if not _libyaml():
        yaml = YAML(typ="safe")
        data = yaml.load(text)
        return data, inspect(yaml.compose(text))
    constructor, parser = _loader(text)
    try:
        node = constructor.composer.get_single_node()
        seen = inspect(node)
        return (None if node is None else _document(node, constructor)), seen
    finally:
        parser.dispose()
