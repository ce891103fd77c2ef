"""helm-docs v1.14.2's chart data: Chart.yaml metadata, value rows and sections."""

from __future__ import annotations

import base64
import dataclasses
import functools
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gsvendor.errors import GsvendorError, shorten
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.schema.model import YAML11_BOOLS, deref, is_null

HELM_DOCS_VERSION = "1.14.2"
TEMPLATE_FILE = "README.md.gotmpl"
VALUES_FILE = "values.yaml"


class ReadmeError(GsvendorError):
    """The README cannot be generated: invalid Chart.yaml or values.yaml, or a template error (exit 2)."""

    code = "readme"


@dataclass
class Maintainer:
    """``ChartMetaMaintainer``."""

    Email: str = ""
    Name: str = ""
    Url: str = ""


@dataclass
class Dependency:
    """``ChartRequirementsItem``."""

    Name: str = ""
    Version: str = ""
    Repository: str = ""
    Alias: str = ""


@dataclass
class Description:
    """``ChartValueDescription``: what a ``# --`` or ``# key -- …`` comment says."""

    Description: str = ""
    Default: str = ""
    Section: str = ""
    ValueType: str = ""
    NotationType: str = ""


@dataclass
class ValueRow:
    """One row of the values table (``valueRow``)."""

    Key: str
    Type: str
    NotationType: str = ""
    AutoDefault: str = ""
    Default: str = ""
    AutoDescription: str = ""
    Description: str = ""
    Section: str = ""
    Column: int = 0
    LineNumber: int = 0
    Dependency: str = ""
    IsGlobal: bool = False


@dataclass
class Section:
    """A named group of rows (``@section``)."""

    SectionName: str
    SectionItems: list[ValueRow] = field(default_factory=list)


@dataclass
class Sections:
    """``sections``: the rows without a section (``Other Values``) and the named sections."""

    DefaultSection: Section
    Sections: list[Section] = field(default_factory=list)


def go_join(base: str, name: str) -> str:
    """Go's ``filepath.Join(base, name)`` on a POSIX system: joined with ``/`` and cleaned."""
    joined = "/".join(part for part in (base, name) if part)
    return re.sub("^//", "/", posixpath.normpath(joined)) if joined else ""  # normpath keeps a leading "//"


# a gobwas/glob token: an escape, ``**``, a wildcard or brace character, a literal or a class: `[` `!`? then a
# range `lo-hi` (when the second character is `-`) or a list with `\` escapes, then `]` (reported when missing)
_GLOB_TOKEN = re.compile(r"\\.|\*\*|[*?{},]|\[!?+(?:.-.|(?:\\.|[^]\\])*)\]?|.", re.DOTALL)
_GLOB_LIST = re.compile(r"((?:\\.|[^]\\])*)(\]?)", re.DOTALL)
_MAX_BRACES = 200  # nested {…} levels gsvendor reads


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A gobwas/glob pattern with ``/`` as separator (helm-docs' ``.Files.Glob``) as a predicate on a path;
    :class:`ReadmeError` for a class gobwas refuses or braces nested past :data:`_MAX_BRACES`. An
    automaton run state set by state set (linear time): backtracking took minutes on ``*a*a*a*ab``."""
    # states: ("char", test, next) takes one character; ("star", test, next) any run of them;
    # ("split", [starts]) one of the brace's alternatives; ("match",). Built back to front.
    states: list[tuple[Any, ...]] = [("match",)]
    # the open braces, each the tokens of its alternatives so far (a brace: the list of its alternatives)
    stack: list[list[list[Any]]] = [[[]]]
    for token in _GLOB_TOKEN.findall(pattern):
        if token == "{":
            if len(stack) > _MAX_BRACES:
                raise ReadmeError(f"glob {shorten(pattern)!r}: braces nested deeper than {_MAX_BRACES}")
            stack.append([[]])
        elif token == "," and len(stack) > 1:
            stack[-1].append([])
        elif token == "}" and len(stack) > 1:
            alternatives = stack.pop()
            stack[-1][-1].append(alternatives)
        else:
            stack[-1][-1].append(token)
    while len(stack) > 1:  # gobwas closes open braces at the end
        alternatives = stack.pop()
        stack[-1][-1].append(alternatives)

    def build(tokens: list[Any], following: int) -> int:
        for token in reversed(tokens):
            if isinstance(token, list):  # a brace: each alternative leads to what follows it
                states.append(("split", [build(alternative, following) for alternative in token]))
            elif token == "\\":  # a last lone backslash escapes nothing and is dropped
                continue
            elif token in ("**", "*"):
                wide = token == "**" or (states[following][0] == "star" and states[following][3])
                if states[following][0] == "star":  # stars in a row: one star, "**" if any is
                    following = states[following][2]
                states.append(("star", (lambda c: True) if wide else (lambda c: c != "/"), following, wide))
            else:
                states.append(("char", _glob_char(pattern, token), following))
            following = len(states) - 1
        return following

    start = build(stack[0][0], 0)

    @functools.cache
    def closure(state: int) -> frozenset[int]:
        """The states ``state`` stands for before a character is read (states only point back: no cycle)."""
        kind = states[state]
        if kind[0] == "split":
            return frozenset().union(*map(closure, kind[1]))
        return closure(kind[2]) | {state} if kind[0] == "star" else frozenset((state,))

    def matches(path: str) -> bool:
        current = closure(start)
        for char in path:
            following: set[int] = set()
            for state in current:
                kind = states[state]
                if kind[0] != "match" and kind[1](char):
                    following |= closure(state if kind[0] == "star" else kind[2])
            if not following:
                return False
            current = following  # type: ignore[assignment]
        return 0 in current

    return matches


def _glob_char(pattern: str, token: str) -> Callable[[str], bool]:
    """The test of one character of a gobwas/glob token: ``?``, an escape, a literal or a ``[…]`` class;
    :class:`ReadmeError` for a class gobwas refuses (``[a``, ``[]``, ``[!]``, ``[z-a]``, ``[a-c-d]``)."""
    if token == "?":
        return lambda c: c != "/"
    if not token.startswith("["):
        literal = token.removeprefix("\\")
        return lambda c: c == literal
    negate = token.startswith("[!")
    body = token[1 + negate :]
    if len(body) >= 3 and body[1] == "-":  # a range: both ends taken as they are, with no escapes
        if len(body) != 4 or body[3] != "]":
            raise ReadmeError(f"glob {pattern!r}: expected ] after the range {body[:3]!r}")
        if body[0] > body[2]:
            raise ReadmeError(f"glob {pattern!r}: range {body[:3]!r} ends below its start")
        chars = re.escape(body[0]) + "-" + re.escape(body[2])
    else:
        listed, closed = _GLOB_LIST.fullmatch(body).groups()  # type: ignore[union-attr]
        if not closed:
            raise ReadmeError(f"glob {pattern!r}: unterminated [")
        listed = re.sub(r"\\(.)", r"\1", listed, flags=re.DOTALL)
        if not listed:
            raise ReadmeError(f"glob {pattern!r}: empty [] class")
        chars = "".join(map(re.escape, listed))
    return re.compile("[" + ("^" if negate else "") + chars + "]", re.DOTALL).fullmatch  # type: ignore[return-value]


class Files:
    """The chart's files as helm-docs v1.14.2's templates see them (``.Files.Get "path"`` …): ``walked``
    by the path helm-docs walks them as (``helm/c/Chart.yaml`` for the chart folder ``base`` ``helm/c``).
    ``Get``, ``GetBytes`` and ``Glob`` join chart-relative names to ``base``; ``Lines`` takes walked paths."""

    def __init__(self, walked: dict[str, bytes], base: str = ".") -> None:
        self._base = base
        self._files = walked

    def GetBytes(self, name: str) -> bytes:
        """The bytes of ``name`` (relative to the chart), empty when absent."""
        return self._files.get(go_join(self._base, name), b"")

    def Get(self, name: str) -> str:
        """The text of ``name``, empty when absent."""
        return self.GetBytes(name).decode("utf-8", "replace")

    def Glob(self, pattern: str) -> Files:
        """The files whose walked path matches ``pattern`` joined to the chart folder (none if invalid)."""
        try:
            matches = glob_matcher(go_join(self._base, pattern))
        except ReadmeError:
            return Files({}, self._base)
        return Files({p: d for p, d in self._files.items() if matches(p)}, self._base)

    def Lines(self, path: str) -> list[str]:
        """The lines of the file walked as ``path`` (e.g. ``helm/c/values.yaml``)."""
        data = self._files.get(path)
        return [] if data is None else data.decode("utf-8", "replace").split("\n")

    def AsMap(self) -> dict[str, bytes]:
        """Walked path → bytes."""
        return dict(self._files)

    def AsConfig(self) -> str:
        """The files as a ConfigMap ``data`` block: base name → text, as YAML."""
        return self._as_data(lambda data: data.decode("utf-8", "replace"))

    def AsSecrets(self) -> str:
        """The files as a Secret ``data`` block: base name → base64, as YAML."""
        return self._as_data(lambda data: base64.b64encode(data).decode())

    def _as_data(self, encode: Callable[[bytes], str]) -> str:
        if not self._files:
            return ""
        return goyaml.dump({p.rsplit("/", 1)[-1]: encode(d) for p, d in self._files.items()}).removesuffix("\n")


@dataclass
class ChartData:
    """``chartTemplateData``: chart metadata, requirements and the values rows."""

    ApiVersion: str = ""
    AppVersion: str = ""
    KubeVersion: str = ""
    Name: str = ""
    Deprecated: bool = False
    Description: str = ""
    Version: str = ""
    Home: str = ""
    Type: str = ""
    Sources: list[str] = field(default_factory=list)
    Engine: str = ""
    Maintainers: list[Maintainer] = field(default_factory=list)
    Dependencies: list[Dependency] = field(default_factory=list)
    ChartDirectory: str = ""
    ChartValues: Any = None
    ChartValuesDescriptions: dict[str, Description] = field(default_factory=dict)
    HelmDocsVersion: str = HELM_DOCS_VERSION
    Values: list[ValueRow] = field(default_factory=list)
    Sections: Sections = field(default_factory=lambda: Sections(Section("Other Values")))
    Files: Files = field(default_factory=lambda: Files({}))
    SkipVersionFooter: bool = False


def _text(node: goyaml.Node | None, where: str) -> str:
    """A scalar decoded into a Go ``string`` field: its source text; null is empty."""
    if node is None:
        return ""
    node = deref(node)
    if node.kind != goyaml.SCALAR:
        raise ReadmeError(f"{where}: expected a string, found a {node.kind}")
    return "" if is_null(node) else node.value


def _items(node: goyaml.Node | None, where: str, kind: str = goyaml.SEQUENCE) -> list[goyaml.Node]:
    """The content of the mapping or sequence ``node`` (aliases followed); none for no node or null."""
    if node is None or (node.kind == goyaml.SCALAR and node.short_tag() == goyaml.NULL_TAG):
        return []
    node = deref(node)
    if node.kind != kind:
        raise ReadmeError(f"{where}: expected a {'list' if kind == goyaml.SEQUENCE else kind}, found a {node.kind}")
    return list(node.content)


def _fields(node: goyaml.Node | None, where: str) -> dict[str, goyaml.Node]:
    out: dict[str, goyaml.Node] = {}
    content = _items(node, where, goyaml.MAPPING)
    for key, value in zip(content[::2], content[1::2], strict=False):
        if key.value in out:
            raise ReadmeError(f"{where}: line {key.line}: mapping key {key.value!r} already defined")
        out[key.value] = value
    return out


def _parse_yaml(data: bytes, label: str) -> goyaml.Node | None:
    try:
        return goyaml.parse(data)
    except goyaml.YAMLError as exc:
        raise ReadmeError(f"{label}: invalid YAML: {exc}") from None


def _struct(cls: type[Any], node: goyaml.Node | None, where: str, names: tuple[str, ...] = ()) -> Any:
    """A ``cls`` with its string fields (or ``names``) read from ``node``: ``ApiVersion`` from ``apiVersion``."""
    entry = _fields(node, where)
    sep = ": " if where == "Chart.yaml" else "."
    keys = {n: n[0].lower() + n[1:] for n in names or [f.name for f in dataclasses.fields(cls)]}
    return cls(**{n: _text(entry.get(key), f"{where}{sep}{key}") for n, key in keys.items()})


_CHART_KEYS = ("ApiVersion", "AppVersion", "KubeVersion", "Name", "Description", "Version", "Home", "Type", "Engine")


def _root(data: bytes, label: str) -> goyaml.Node | None:
    document = _parse_yaml(data, label)
    return document.content[0] if document is not None and document.content else None


def chart_metadata(chart_yaml: bytes, requirements_yaml: bytes | None = None) -> ChartData:
    """Chart.yaml (and requirements.yaml for ``apiVersion: v1``) as helm-docs reads them. Raises
    :class:`ReadmeError` for invalid YAML or a field of the wrong shape."""
    root = _root(chart_yaml, "Chart.yaml")
    meta = _fields(root, "Chart.yaml")
    data = _struct(ChartData, root, "Chart.yaml", _CHART_KEYS)
    if (deprecated := meta.get("deprecated")) is not None:
        if deprecated.kind not in (goyaml.SCALAR, goyaml.ALIAS):
            raise ReadmeError(f"Chart.yaml: deprecated: cannot unmarshal !!{deprecated.kind[:3]} into bool")
        value = goyaml.scalar_value(deprecated)
        value = YAML11_BOOLS.get(value, value) if isinstance(value, str) else value
        if value is not None and not isinstance(value, bool):
            raise ReadmeError(f"Chart.yaml: deprecated: cannot unmarshal {deprecated.value!r} into bool")
        data.Deprecated = bool(value)
    data.Sources = [_text(n, "Chart.yaml: sources") for n in _items(meta.get("sources"), "Chart.yaml: sources")]
    maintainers = _items(meta.get("maintainers"), "Chart.yaml: maintainers")
    data.Maintainers = [_struct(Maintainer, item, "Chart.yaml: maintainers") for item in maintainers]
    deps_node = meta.get("dependencies")
    if data.ApiVersion == "v1":
        if requirements_yaml is None:
            return data
        deps_node = _fields(_root(requirements_yaml, "requirements.yaml"), "requirements.yaml").get("dependencies")
    data.Dependencies = [_struct(Dependency, item, "dependencies") for item in _items(deps_node, "dependencies")]
    data.Dependencies.sort(key=lambda d: f"{d.Repository}/{d.Name}".encode())
    return data
