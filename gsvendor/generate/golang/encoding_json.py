"""JSON text exactly as Go's ``encoding/json`` writes it.

helm-docs (default values in the README table), helm-values-schema-json (the schema) and
schemalint (its normalized form) are Go programs; their output bytes depend on Go's encoder:
how floats are spelled (``1e+21``, ``1e-7``, ``100``), which characters are escaped
(``\\u003c`` unless HTML escaping is off, always ``\\u2028``), and how ``MarshalIndent``
lays out empty containers (``{}``, ``[]``). This module reproduces that (Go 1.22+ rules,
where ``\\b`` and ``\\f`` get short escapes).

Values are plain Python data: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` and
``dict`` with string keys. A ``dict`` stands for a Go map (keys sorted when encoded) unless
``sort_keys=False`` is given, which keeps insertion order (an ordered map, as schemalint uses).
"""

from __future__ import annotations

import codecs
import json
import math
import re
from decimal import Decimal
from typing import Any

_HEX = "0123456789abcdef"
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


class GoStruct(dict):
    """A Go struct's fields by name, in declaration order: encoded in that order, never sorted."""


class GoJSONError(ValueError):
    """A value Go's encoder refuses (NaN, infinities, non-string map keys)."""


def _digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of ``abs(value)`` and the decimal exponent of the first digit."""
    _, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    text = "".join(str(d) for d in digits).rstrip("0") or "0"
    assert isinstance(exponent, int)
    return text, len(digits) + exponent - 1


def _fixed(digits: str, exp: int) -> str:
    """Positional notation of ``0.digits × 10^(exp+1)`` (strconv's ``'f'`` with precision -1)."""
    point = exp + 1
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def _exponent(digits: str, exp: int, min_exp_digits: int = 2) -> str:
    """``d.ddde±XX`` (strconv's ``'e'`` with precision -1)."""
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if exp < 0 else "+"
    return f"{mantissa}e{sign}{abs(exp):0{min_exp_digits}d}"


def format_float(value: float) -> str:
    """A float64 as encoding/json writes it: ``'f'`` form, ``'e'`` form below 1e-6 or from 1e21.

    Raises :class:`GoJSONError` for NaN and infinities (unsupported by encoding/json).
    """
    if math.isnan(value) or math.isinf(value):
        raise GoJSONError(f"json: unsupported value: {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, exp = _digits(value)
    magnitude = abs(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        text = _exponent(digits, exp)
        # encoding/json shortens a two-digit negative exponent: 1e-07 → 1e-7.
        if text[-4:-1] == "e-0":
            text = text[:-2] + text[-1]
        return sign + text
    return sign + _fixed(digits, exp)


def format_float_g(value: float) -> str:
    """A float64 as Go's ``fmt`` ``%v`` prints it (strconv ``'g'``, shortest; exponent from 1e+06 / below 1e-04)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, exp = _digits(value)
    # strconv: with the shortest precision, %e is chosen for exponents below -4 or from 6 on.
    if exp < -4 or exp >= 6:
        return sign + _exponent(digits, exp)
    return sign + _fixed(digits, exp)


# what quote() writes other than as itself: controls, quote, backslash, U+2028/9, surrogates (and <>&)
_ESCAPED = re.compile('[\\x00-\\x1f"\\\\\u2028\u2029\ud800-\udfff]')
_ESCAPED_HTML = re.compile('[\\x00-\\x1f"\\\\<>&\u2028\u2029\ud800-\udfff]')


def quote(text: str, escape_html: bool = True) -> str:
    """A JSON string literal as Go writes it (``\\u003c`` etc. only when ``escape_html``)."""
    if not (_ESCAPED_HTML if escape_html else _ESCAPED).search(text):  # the common case, in C
        return '"' + text + '"'
    return _quote_chars(text, escape_html)


def _quote_chars(text: str, escape_html: bool) -> str:
    """:func:`quote` a character at a time (the reference its fast path must agree with)."""
    out = ['"']
    for char in text:
        if char in _SHORT:
            out.append(_SHORT[char])
        elif char < " " or (escape_html and char in "<>&"):
            code = ord(char)
            out.append("\\u00" + _HEX[code >> 4] + _HEX[code & 0xF])
        elif char in "\u2028\u2029":
            out.append("\\u202" + ("8" if char == "\u2028" else "9"))
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append("\\ufffd")  # Go writes invalid UTF-8 as the replacement character
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _items(value: dict[str, Any], sort_keys: bool) -> list[tuple[str, Any]]:
    for key in value:
        if not isinstance(key, str):
            raise GoJSONError(f"json: unsupported type: map with {type(key).__name__} keys")
    items = list(value.items())
    return sorted(items, key=lambda kv: kv[0].encode("utf-8")) if sort_keys and type(value) is not GoStruct else items


def _scalar(value: Any, escape_html: bool) -> str | None:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return quote(value, escape_html)
    return None


def dumps(value: Any, *, escape_html: bool = True, sort_keys: bool = True) -> str:
    """Compact JSON, as ``json.Marshal`` (or an ``Encoder`` without its trailing newline) writes it."""
    scalar = _scalar(value, escape_html)
    if scalar is not None:
        return scalar
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                quote(k, escape_html) + ":" + dumps(v, escape_html=escape_html, sort_keys=sort_keys)
                for k, v in _items(value, sort_keys)
            )
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(v, escape_html=escape_html, sort_keys=sort_keys) for v in value) + "]"
    raise GoJSONError(f"json: unsupported type: {type(value).__name__}")


def dumps_indent(
    value: Any, indent: str, *, prefix: str = "", escape_html: bool = True, sort_keys: bool = True, level: int = 0
) -> str:
    """Indented JSON as ``json.MarshalIndent`` / ``json.Indent`` lay it out (no trailing newline).

    Objects and arrays with members put each on its own line; empty ones stay ``{}`` / ``[]``.
    """
    scalar = _scalar(value, escape_html)
    if scalar is not None:
        return scalar
    inner = "\n" + prefix + indent * (level + 1)
    outer = "\n" + prefix + indent * level
    if isinstance(value, dict):
        items = _items(value, sort_keys)
        if not items:
            return "{}"
        parts = [
            quote(k, escape_html)
            + ": "
            + dumps_indent(v, indent, prefix=prefix, escape_html=escape_html, sort_keys=sort_keys, level=level + 1)
            for k, v in items
        ]
        return "{" + inner + ("," + inner).join(parts) + outer + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        parts = [
            dumps_indent(v, indent, prefix=prefix, escape_html=escape_html, sort_keys=sort_keys, level=level + 1)
            for v in value
        ]
        return "[" + inner + ("," + inner).join(parts) + outer + "]"
    raise GoJSONError(f"json: unsupported type: {type(value).__name__}")


def _per_byte_replacement(error: UnicodeError) -> tuple[str, int]:
    # Go's decoder replaces each byte of an invalid UTF-8 sequence by U+FFFD, one at a time
    assert isinstance(error, UnicodeDecodeError)
    return "\ufffd", error.start + 1


codecs.register_error("gsvendor-go-utf8", _per_byte_replacement)


def _go_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # strconv.ParseFloat: out of range
        raise GoJSONError(f"json: cannot unmarshal number {text} into Go value of type float64")
    return value


def _refuse_constant(name: str) -> Any:
    raise GoJSONError(f"invalid JSON: invalid character {name[0]!r} looking for beginning of value")


def loads(data: bytes) -> Any:
    """JSON text read as ``json.Unmarshal`` into ``interface{}`` reads it: every number a float64
    (``-0`` stays negative zero, ``1e400`` is an error), invalid UTF-8 and lone ``\\u`` surrogates
    read as U+FFFD (a surrogate is kept here and written as U+FFFD by :func:`quote`), duplicate
    keys: the last wins. A byte-order mark, trailing data after the value, empty input, ``NaN``
    and the like are errors. Raises :class:`GoJSONError` with a one-line reason.
    """
    text = data.decode("utf-8", errors="gsvendor-go-utf8")
    try:
        value = json.loads(text, parse_float=_go_float, parse_int=_go_float, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise GoJSONError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise GoJSONError("invalid JSON: nested too deeply") from None
    return _no_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate (from a ``\\uD800``-style escape) as U+FFFD, as Go reads it."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    return value
