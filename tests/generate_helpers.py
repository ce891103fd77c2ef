"""Helpers of the generate tests: the upstream tarballs are read in place from ../shared/upstream."""

from __future__ import annotations

import functools
import tarfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"
TAGS = ("v0.19.0", "v0.20.0-rc1", "v0.20.0")
CHARTS = ("kserve-crd", "kserve-llmisvc-crd", "kserve-resources", "kserve-llmisvc-resources", "kserve-runtime-configs")


def tarball(tag: str) -> Path:
    """The GitHub-archive-shaped upstream tarball of ``tag``."""
    return UPSTREAM / f"kserve-{tag}.tar.gz"


@functools.cache
def _members(tag: str) -> dict[str, bytes]:
    path = tarball(tag)
    if not path.is_file():
        pytest.fail(f"upstream test data missing: {path}")
    with tarfile.open(path) as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}  # type: ignore[union-attr]


def upstream_chart(tag: str, chart: str) -> dict[str, bytes]:
    """The files of ``charts/<chart>`` at ``tag``, chart-relative path → bytes (read from the tarball)."""
    prefix = f"kserve-{tag.removeprefix('v')}/charts/{chart}/"
    files = {name[len(prefix) :]: data for name, data in _members(tag).items() if name.startswith(prefix)}
    assert files, f"{chart} not in {tag}"
    return files


def key_path(path: Any) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def validate_values(schema: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """Validate ``values`` against a generated values ``schema`` with jsonschema; one message per violation.

    Each message reads ``key.path[0]: rule: message`` (``(root)`` for the top level), e.g.
    ``kserve.controller.replicas: type: 'two' is not of type 'integer'``, sorted by key path.
    The draft comes from the schema's ``$schema`` (2020-12 when absent). A schema that is not
    valid JSON Schema, or a ``$ref`` that cannot be resolved offline, is reported as one message.
    """
    import jsonschema
    from jsonschema import exceptions as js_exceptions

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator_class.check_schema(schema)
        validator = validator_class(schema)
        errors = list(validator.iter_errors(values))
    except js_exceptions.SchemaError as exc:
        return [f"(schema): {exc.message}"]
    except Exception as exc:  # unresolvable $ref and the like
        return [f"(schema): cannot validate: {exc}"]
    messages = []
    for error in sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], str(e.validator))):
        messages.append(f"{key_path(error.absolute_path)}: {error.validator}: {error.message}")
    return messages
