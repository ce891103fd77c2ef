"""The JSON Schema of ``gsvendor.yaml`` (:data:`CONFIG_SCHEMA`) and the pieces other schemas share
(:data:`CRD_CONDITION_SCHEMA`: the ``crd:`` condition of overlay operations and check variants)."""

from __future__ import annotations

from typing import Any


def _object(properties: dict[str, Any], *required: str, **more: Any) -> dict[str, Any]:
    """A schema of a mapping holding only keys of ``properties``, each of ``required`` among them."""
    listed = {"required": list(required)} if required else {}
    return {"type": "object", "additionalProperties": False, **listed, **more, "properties": properties}


def _array(items: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", **more, "items": items}


_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]*$"}
_TEXT = {"type": "string", "minLength": 1}
_BOOL = {"type": "boolean"}
# a relative path inside the project (an overlay's copy: the chart): not absolute, no "..", not the folder itself
OUTSIDE = r"(^/)|(^|/)\.\.(/|$)|^(\./?)+$"
RELPATH = {"type": "string", "minLength": 1, "not": {"pattern": OUTSIDE}}

# A condition on a field of a vendored CRD (gsvendor.overlays.crdfield): an overlay operation's ``crd``
# and a check variant's ``expectFailureWhile``.
CRD_CONDITION_SCHEMA: dict[str, Any] = _object(
    {"kind": _TEXT, "field": {**_TEXT, "pattern": r"^[^.\s]+(\.[^.\s]+)*$"}, "present": _BOOL}, "kind", "field"
)

_RENDER = _object(
    {
        "release": _NAME,
        "namespace": _NAME,
        "values": {"type": "object"},
        "valuesFiles": _array(RELPATH),
        "fileName": {"type": "string", "pattern": r"^[^/]*\{(kind|name)\}[^/]*$"},
    }
)
# A path glob (charts vendored as source) or a {kind, name} glob pair (rendered manifests).
_SELECTORS = _array(
    {"oneOf": [_TEXT, _object({"kind": {"type": "string"}, "name": {"type": "string"}}, minProperties=1)]}, minItems=1
)
_VARIANT = _object(
    {
        "name": _NAME,
        "values": _array(RELPATH),
        "set": {"type": "object", "propertyNames": {"minLength": 1}},
        "expectFailure": _TEXT,
        "expectFailureWhile": CRD_CONDITION_SCHEMA,
    },
    "name",
)
# a chart's entry: its name alone, or these keys
_CHART = _object(
    {"name": _NAME, "path": RELPATH, "dest": RELPATH, "render": _RENDER, "include": _SELECTORS, "exclude": _SELECTORS},
    "name",
)
# check-images, per chart: the values files that switch images on and extra variants
_IMAGES_CHART = _object({"switchValues": _array(RELPATH), "variants": _array(_VARIANT)})
_README = _object(
    {
        "sortValuesOrder": {"enum": ["alphabetical", "file"]},
        # helm-docs --template-files: file names in each chart folder, read in order
        "templateFiles": _array(_TEXT, minItems=1),
        "badgeStyle": _TEXT,
        "skipVersionFooter": _BOOL,
        "ignoreNonDescriptions": _BOOL,
        # pre-commit: helm-docs' bytes after end-of-file-fixer and trailing-whitespace
        "whitespace": {"enum": ["pre-commit", "helm-docs"]},
        # refused by name (config._generate_settings): not emulated
        "documentDependencyValues": _BOOL,
    }
)

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_object(
        {
            "upstream": _object(
                {
                    "repository": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"},
                    "archiveUrl": {"type": "string", "pattern": r"^https?://"},
                    "gitUrl": _TEXT,
                    # the tags sync accepts (a Python regular expression, searched); default DEFAULT_TAG_PATTERN
                    "tagPattern": _TEXT,
                },
                "repository",
            ),
            # check-images: allowed registry prefixes, mirrors, per-chart settings
            "images": _object(
                {
                    "allow": _array(_TEXT, minItems=1),
                    # check-images --compare-upstream (gsvendor.resolve): a mirror name prefix and its upstream prefix
                    "mirrors": _array(_object({"mirror": _TEXT, "upstream": _TEXT}, "mirror", "upstream")),
                    "charts": {"type": "object", "propertyNames": _NAME, "additionalProperties": _IMAGES_CHART},
                }
            ),
            # check-manifests: the label policy (gsvendor.manifests.check.label_policy)
            "manifests": _object({"labels": _object({"required": _array(_TEXT), "fail": _BOOL})}),
            "output": RELPATH,
            "overlays": RELPATH,
            "lock": RELPATH,
            # every Dockerfile building from upstream (default DEFAULT_DOCKERFILES)
            "dockerfiles": _array(RELPATH, minItems=1),
            # the Dockerfile whose ARG KSERVE_VERSION pins upstream (default DEFAULT_PIN_DOCKERFILE)
            "pinDockerfile": RELPATH,
            # the patch series that Dockerfile applies (default DEFAULT_PATCHES)
            "patches": RELPATH,
            "charts": _array({"oneOf": [_NAME, _CHART]}, minItems=1),
            "files": _array(_object({"from": RELPATH, "to": RELPATH}, "from", "to")),
            # gsvendor generate: the options Giant Swarm's pipeline runs helm-docs and the schema tools with
            "generate": _object(
                {"readme": _README, "schema": _object({"normalize": {"enum": ["none", "schemalint"]}})}
            ),
        },
        "upstream",
        "charts",
    ),
}
