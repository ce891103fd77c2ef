"""The JSON Schema of ``gsvendor.yaml`` (:data:`CONFIG_SCHEMA`) and the pieces other schemas share
(:data:`CRD_CONDITION_SCHEMA`, the ``crd:`` condition of overlay operations and check variants);
:mod:`gsvendor.config` validates the file against it and reads the result."""

from __future__ import annotations

from typing import Any

_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]*$"}
# a relative path inside the project (an overlay's copy: the chart): not absolute, no "..", not the folder itself
OUTSIDE = r"(^/)|(^|/)\.\.(/|$)|^(\./?)+$"
RELPATH = {"type": "string", "minLength": 1, "not": {"pattern": OUTSIDE}}

# A condition on a field of a vendored CRD (gsvendor.overlays.crdfield): an overlay operation's ``crd``
# and a check variant's ``expectFailureWhile``.
CRD_CONDITION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "field"],
    "properties": {
        "kind": {"type": "string", "minLength": 1},
        "field": {"type": "string", "minLength": 1, "pattern": r"^[^.\s]+(\.[^.\s]+)*$"},
        "present": {"type": "boolean"},
    },
}

_RENDER = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "release": _NAME,
        "namespace": _NAME,
        "values": {"type": "object"},
        "valuesFiles": {"type": "array", "items": RELPATH},
        "fileName": {"type": "string", "pattern": r"^[^/]*\{(kind|name)\}[^/]*$"},
    },
}
# A path glob (charts vendored as source) or a {kind, name} glob pair (rendered manifests).
_SELECTORS = {
    "type": "array",
    "minItems": 1,
    "items": {
        "oneOf": [
            {"type": "string", "minLength": 1},
            {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "properties": {"kind": {"type": "string"}, "name": {"type": "string"}},
            },
        ]
    },
}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["upstream", "charts"],
    "properties": {
        "upstream": {
            "type": "object",
            "additionalProperties": False,
            "required": ["repository"],
            "properties": {
                "repository": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"},
                "archiveUrl": {"type": "string", "pattern": r"^https?://"},
                "gitUrl": {"type": "string", "minLength": 1},
                # the tags sync accepts (a Python regular expression, searched); default DEFAULT_TAG_PATTERN
                "tagPattern": {"type": "string", "minLength": 1},
            },
        },
        # check-images (gsvendor.checkimages): allowed registry prefixes, and per chart (by chart name)
        # the values files the switches-on variant needs and extra variants, optionally expected to fail.
        "images": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "allow": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                # check-images --compare-upstream (gsvendor.resolve): a mirror name prefix and its upstream prefix
                "mirrors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["mirror", "upstream"],
                        "properties": {
                            "mirror": {"type": "string", "minLength": 1},
                            "upstream": {"type": "string", "minLength": 1},
                        },
                    },
                },
                "charts": {
                    "type": "object",
                    "propertyNames": _NAME,
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "switchValues": {"type": "array", "items": RELPATH},
                            "variants": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "required": ["name"],
                                    "properties": {
                                        "name": _NAME,
                                        "values": {"type": "array", "items": RELPATH},
                                        "set": {"type": "object", "propertyNames": {"minLength": 1}},
                                        "expectFailure": {"type": "string", "minLength": 1},
                                        "expectFailureWhile": CRD_CONDITION_SCHEMA,
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
        # check-manifests: the label policy (gsvendor.manifests.check.label_policy)
        "manifests": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "labels": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "required": {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "fail": {"type": "boolean"},
                    },
                },
            },
        },
        "output": RELPATH,
        "overlays": RELPATH,
        "lock": RELPATH,
        # every Dockerfile building from upstream (default DEFAULT_DOCKERFILES)
        "dockerfiles": {"type": "array", "minItems": 1, "items": RELPATH},
        # the Dockerfile whose ARG KSERVE_VERSION pins upstream (default DEFAULT_PIN_DOCKERFILE)
        "pinDockerfile": RELPATH,
        # the patch series that Dockerfile applies (default DEFAULT_PATCHES)
        "patches": RELPATH,
        "charts": {
            "type": "array",
            "minItems": 1,
            "items": {
                "oneOf": [
                    _NAME,
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name"],
                        "properties": {
                            "name": _NAME,
                            "path": RELPATH,
                            "dest": RELPATH,
                            "render": _RENDER,
                            "include": _SELECTORS,
                            "exclude": _SELECTORS,
                        },
                    },
                ]
            },
        },
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["from", "to"],
                "properties": {"from": RELPATH, "to": RELPATH},
            },
        },
        # gsvendor generate: the options Giant Swarm's pipeline runs helm-docs and the schema tools with
        "generate": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "readme": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "sortValuesOrder": {"enum": ["alphabetical", "file"]},
                        # helm-docs --template-files: file names in each chart folder, read in order
                        "templateFiles": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"type": "string", "minLength": 1},
                        },
                        "badgeStyle": {"type": "string", "minLength": 1},
                        "skipVersionFooter": {"type": "boolean"},
                        "ignoreNonDescriptions": {"type": "boolean"},
                        # pre-commit: helm-docs' bytes after end-of-file-fixer and trailing-whitespace
                        "whitespace": {"enum": ["pre-commit", "helm-docs"]},
                        # refused by name (GenerateSettings.REFUSED): not emulated
                        "documentDependencyValues": {"type": "boolean"},
                    },
                },
                "schema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"normalize": {"enum": ["none", "schemalint"]}},
                },
            },
        },
    },
}
