"""Go text/template's builtin functions and the sprig functions helm-docs v1.14.2 templates use."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any

from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang import yaml_v3 as goyaml
from gsvendor.generate.golang.text_template.parse import NO_VALUE, TRIM_SPACE, TemplateError
from gsvendor.generate.golang.text_template.values import go_print, go_type, is_true


def _basic_kind(value: Any) -> str | None:
    """text/template's basicKind: bool, int, float or string; ``None`` for anything else (nil too)."""
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "string")):
        if isinstance(value, kind):
            return name
    return None


def _valid(value: Any) -> bool:
    return value is not None and value is not NO_VALUE


def _eq(first: Any, *others: Any) -> bool:
    """Go's ``eq``: values of different basic kinds (1 and "1", 1 and 1.0) are an error, not unequal;
    lists and maps cannot be compared."""
    if not others:
        raise TemplateError("missing argument for comparison")
    kind = _basic_kind(first)
    for other in others:
        if kind != _basic_kind(other):
            if _valid(first) and _valid(other):
                raise ValueError("incompatible types for comparison")
            continue
        if kind is None and _valid(first) and _valid(other) and isinstance(other, list | tuple | dict):
            raise ValueError(f"non-comparable type {go_print(other)}: {go_type(other)}")
        if first == other or (kind is None and not _valid(first) and not _valid(other)):
            return True
    return False


def _lt(first: Any, second: Any) -> bool:
    """Go's ``lt``: both of one basic kind other than bool."""
    kinds = (_basic_kind(first), _basic_kind(second))
    if None in kinds:
        raise ValueError("invalid type for comparison")
    if kinds[0] != kinds[1]:
        raise ValueError("incompatible types for comparison")
    if kinds[0] == "bool":
        raise ValueError("invalid type for comparison")
    return first < second


def _index(item: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(item, dict):
            item = item.get(key, NO_VALUE)
        elif isinstance(item, list | tuple | str):
            if not isinstance(key, int) or not 0 <= key < len(item):
                raise TemplateError(f"index out of range: {key}")
            item = item[key]
        else:
            raise TemplateError(f"can't index item of type {type(item).__name__}")
    return item


def _len(value: Any) -> int:
    """Go's ``len``: a string's length in UTF-8 bytes (``len "héllo"`` is 6), a list's or map's items."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, list | tuple | dict):
        return len(value)
    raise ValueError(f"len of type {go_type(value)}")


def _printf(fmt: str, *args: Any) -> str:
    out = []
    used = 0  # arguments the verbs took
    exact = True  # every verb emulated: fmt's %!(EXTRA …) for unused arguments is then known
    i = 0
    while i < len(fmt):
        char = fmt[i]
        if char != "%":
            out.append(char)
            i += 1
            continue
        match = re.match(r"%([-+# 0]*)(\d*)(?:\.(\d+))?([vsdqfgtxXc%])?", fmt[i:])
        flags, width, precision, verb = match.groups() if match else ("", "", None, None)
        if _too_large(width) or _too_large(precision or "") or (verb is None and i + match.end() == len(fmt)):
            out.append("%!(NOVERB)")  # the format ends before the verb, or parsenum skipped to its end
            break
        if match is None or verb is None:
            out.append(char)
            exact = False
            i += 1
            continue
        i += match.end()
        if verb == "%":
            out.append("%")
            continue
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        value = args[used]
        used += 1
        if verb in "vs":
            text = go_print(value)
        elif verb == "d":
            text = str(int(value))
        elif verb == "c":  # a code point outside Unicode, or a surrogate, prints as U+FFFD
            text = chr(value) if 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd"
        elif verb == "q":
            text = gojson.quote(str(value), escape_html=False)
        elif verb == "t":
            text = go_print(bool(value))
        elif verb in "xX":
            text = format(value, verb) if isinstance(value, int) else str(value).encode().hex()
            text = text.upper() if verb == "X" else text
        else:
            text = f"%{'.' + precision if precision else ''}{verb}" % value
        if width:
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width), "0" if "0" in flags else " ")
        out.append(text)
    if exact and used < len(args):
        extra = ("<nil>" if a is None else f"{go_type(a)}={go_print(a)}" for a in args[used:])
        out.append(f"%!(EXTRA {', '.join(extra)})")
    return "".join(out)


def _too_large(digits: str) -> bool:
    """Whether fmt's parsenum gives up on a width or precision of ``digits``: it stops when the
    number read so far is past 1e6 and another digit follows (so up to 10,000,009 is read)."""
    head = digits[:-1].lstrip("0")
    return len(head) > 7 or (head != "" and int(head) > 1_000_000)


def _empty(value: Any) -> bool:
    return not is_true(value)


def _default(default: Any, *given: Any) -> Any:
    if not given or _empty(given[0]):
        return default
    return given[0]


def _repeat(count: int, text: str) -> str:
    if count < 0:  # Go's strings.Repeat panics, text/template reports the panic as the call's error
        raise ValueError("strings: negative Repeat count")
    return _require_str(text) * count


def _indent(spaces: int, text: str) -> str:
    pad = _repeat(spaces, " ")
    return pad + str(text).replace("\n", "\n" + pad)


def _to_json(value: Any) -> str:
    try:
        return gojson.dumps(_go_value(value, lower=False))
    except gojson.GoJSONError:
        return ""


def _to_pretty_json(value: Any) -> str:
    try:
        return gojson.dumps_indent(_go_value(value, lower=False), "  ")
    except gojson.GoJSONError:
        return ""


def _from_json(text: str) -> Any:
    try:
        return json.loads(text, parse_int=float)
    except ValueError:
        return None  # Sprig's fromJson swallows the error and returns nil


def _go_value(value: Any, lower: bool) -> Any:
    """``value`` with helm-docs' structs (the rows of ``.Values``, maintainers …: dataclasses) as
    :class:`~gsvendor.generate.golang.encoding_json.GoStruct`, named as the encoders name Go's fields:
    yaml.v3 lower-cases them (``key``, ``notationtype``), encoding/json keeps them (``Key``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return gojson.GoStruct(
            (f.name.lower() if lower else f.name, _go_value(getattr(value, f.name), lower))
            for f in dataclasses.fields(value)
        )
    if isinstance(value, list | tuple):
        return [_go_value(item, lower) for item in value]
    if isinstance(value, dict) and type(value) is dict:
        return {key: _go_value(item, lower) for key, item in value.items()}
    return value


def _to_yaml(value: Any) -> str:

    try:
        return goyaml.dump(_go_value(value, lower=True)).removesuffix("\n")
    except (TypeError, ValueError):
        return ""  # helm-docs' toYaml swallows marshalling errors


def _from_yaml(text: str) -> Any:

    try:
        value = goyaml.loads(text)
    except goyaml.YAMLError as exc:
        return {"Error": str(exc)}
    return value if isinstance(value, dict) else {}


def _title(text: str) -> str:
    return re.sub(r"(^|[^\w'])(\w)", lambda m: m.group(1) + m.group(2).upper(), text)


def _trunc(length: int, text: str) -> str:
    if length < 0:
        return text[length:] if -length < len(text) else text
    return text[:length]


def _substr(start: int, end: int, text: Any) -> str:
    """Sprig's substring on the UTF-8 bytes: a negative start cuts from 0, a negative or too large end
    runs to the end; bounds Go cannot slice are its runtime error (text/template reports the panic)."""
    data = _require_str(text).encode()
    low, high = (0, end) if start < 0 else (start, len(data) if end < 0 or end > len(data) else end)
    if not 0 <= high <= len(data):
        length = f" with length {len(data)}" if high > 0 else ""
        raise ValueError(f"runtime error: slice bounds out of range [:{high}]{length}")
    if low > high:
        raise ValueError(f"runtime error: slice bounds out of range [{low}:{high}]")
    return data[low:high].decode("utf-8", "replace")


def _require_str(value: Any) -> str:
    return value if isinstance(value, str) else go_print(value)


BUILTINS: dict[str, Callable[..., Any]] = {
    # text/template builtins
    "and": lambda *a: a[-1],
    "or": lambda *a: a[-1],
    "not": lambda value: not is_true(value),
    "len": _len,
    "index": _index,
    "print": lambda *a: "".join(
        (" " if i and not isinstance(a[i - 1], str) and not isinstance(v, str) else "") + go_print(v)
        for i, v in enumerate(a)
    ),
    "println": lambda *a: " ".join(go_print(v) for v in a) + "\n",
    "printf": _printf,
    "eq": _eq,
    "ne": lambda a, b: not _eq(a, b),
    "lt": _lt,
    "le": lambda a, b: _lt(a, b) or _eq(a, b),
    "gt": lambda a, b: not (_lt(a, b) or _eq(a, b)),
    "ge": lambda a, b: not _lt(a, b),
    "html": lambda *a: (
        "".join(go_print(v) for v in a)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    ),
    "urlquery": lambda *a: __import__("urllib.parse").parse.quote_plus("".join(go_print(v) for v in a)),
    # Sprig (the functions helm-docs' own templates and common README templates use)
    "default": _default,
    "empty": _empty,
    "coalesce": lambda *a: next((v for v in a if is_true(v)), None),
    "ternary": lambda yes, no, cond: yes if cond else no,
    "replace": lambda old, new, text: _require_str(text).replace(old, new),
    "trim": lambda text: _require_str(text).strip(TRIM_SPACE + "\v\f"),
    "trimAll": lambda cutset, text: _require_str(text).strip(cutset),
    "trimPrefix": lambda prefix, text: _require_str(text).removeprefix(prefix),
    "trimSuffix": lambda suffix, text: _require_str(text).removesuffix(suffix),
    "hasPrefix": lambda prefix, text: _require_str(text).startswith(prefix),
    "hasSuffix": lambda suffix, text: _require_str(text).endswith(suffix),
    "contains": lambda sub, text: sub in _require_str(text),
    "upper": lambda text: _require_str(text).upper(),
    "lower": lambda text: _require_str(text).lower(),
    "title": lambda text: _title(_require_str(text)),
    "repeat": _repeat,
    "trunc": _trunc,
    "substr": _substr,
    "indent": _indent,
    "nindent": lambda spaces, text: "\n" + _indent(spaces, text),
    "quote": lambda *a: " ".join(gojson.quote(go_print(v), escape_html=False) for v in a if v is not None),
    "squote": lambda *a: " ".join("'" + go_print(v) + "'" for v in a if v is not None),
    "toString": go_print,
    "toJson": _to_json,
    "toPrettyJson": _to_pretty_json,
    "toRawJson": lambda value: gojson.dumps(_go_value(value, lower=False), escape_html=False),
    "fromJson": _from_json,
    "toYaml": _to_yaml,
    "fromYaml": _from_yaml,
    "join": lambda sep, items: sep.join(go_print(v) for v in items),
    "split": lambda sep, text: {f"_{i}": part for i, part in enumerate(_require_str(text).split(sep))},
    "splitList": lambda sep, text: _require_str(text).split(sep),
    "list": lambda *a: list(a),
    "dict": lambda *a: {go_print(a[i]): (a[i + 1] if i + 1 < len(a) else "") for i in range(0, len(a), 2)},
    "kindIs": lambda kind, value: _kind(value) == kind,
    "kindOf": lambda value: _kind(value),
    "first": lambda items: items[0] if items else None,
    "last": lambda items: items[-1] if items else None,
    "uniq": lambda items: list(dict.fromkeys(items)),
    "sortAlpha": lambda items: sorted(go_print(v) for v in items),
    "add": lambda *a: sum(a),
    "sub": lambda a, b: a - b,
    "mul": lambda *a: __import__("math").prod(a),
    "add1": lambda a: a + 1,
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "slice"
    if isinstance(value, dict):
        return "map"
    if value is None:
        return "invalid"
    return "struct"
