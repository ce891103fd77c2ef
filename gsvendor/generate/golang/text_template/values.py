"""Go text/template values: truth, printing (fmt's %v) and the missing-key marker, as Go 1.22 has them."""

from __future__ import annotations

from typing import Any

from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.golang.text_template.parse import NO_VALUE


def is_true(value: Any) -> bool:
    """Go template truth: false, 0, nil, empty string/slice/map are false; structs are true."""
    if value is None or value is NO_VALUE:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | tuple | dict | bytes):
        return len(value) > 0
    return True


def go_print(value: Any) -> str:
    """``fmt.Sprint`` of one value (the way an action prints its result)."""
    if value is NO_VALUE:
        return "<no value>"
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return gojson.format_float_g(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_print(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{go_print(k)}:{go_print(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, bytes):
        return "[" + " ".join(str(b) for b in value) + "]"
    to_string = getattr(value, "__go_string__", None)
    if callable(to_string):
        return str(to_string())
    return "{" + " ".join(go_print(v) for v in vars(value).values()) + "}"


def go_type(value: Any) -> str:
    """The Go type helm-docs' templates see for ``value`` (``reflect.TypeOf(v).String()``, as fmt's
    ``%!(EXTRA …)`` and template errors name it); a Python object is named by its class."""
    if value is None or value is NO_VALUE:
        return "<nil>"
    for kind, name in _GO_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


_GO_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "bool"),
    (int, "int"),
    (float, "float64"),
    (str, "string"),
    (bytes, "[]uint8"),
    ((list, tuple), "[]interface {}"),
    (dict, "map[string]interface {}"),
)
PLAIN = (bool, int, float, str, bytes, list, tuple)  # values without fields or methods in Go


class _Missing:
    pass


_MISSING = _Missing()
