"""``# @schema`` annotations, one test each, with the exact expected values.schema.json text.

The expectations follow helm-values-schema-json v2.5.0 (docs/README.md "Annotations from
comments", pkg/comment.go) followed by ``schemalint normalize``.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from gsvendor.generate.schema.model import SchemaError
from gsvendor.generate.schema.output import generate_schema


def schema_text(values: str, config: str = "values: [values.yaml]\n") -> str:
    _, data = generate_schema(
        {".schema.yaml": config.encode(), "values.yaml": dedent(values).encode()}, normalize="schemalint"
    )
    return data.decode()


def wrap(properties: str, draft_url: str = "https://json-schema.org/draft/2020-12/schema") -> str:
    """The whole document around the ``properties`` body (given at 8 spaces of indentation)."""
    body = dedent(properties).strip("\n")
    body = "\n".join(("        " + line) if line else line for line in body.splitlines())
    return f'{{\n    "$schema": "{draft_url}",\n    "type": "object",\n    "properties": {{\n{body}\n    }}\n}}\n'


CASES: dict[str, tuple[str, str]] = {
    "type list": (
        "replicaCount: # @schema type:[integer, null]\n",
        """
        "replicaCount": {
            "type": [
                "integer",
                "null"
            ]
        }
        """,
    ),
    "type single": (
        'port: "8080" # @schema type: integer\n',
        """
        "port": {
            "type": "integer"
        }
        """,
    ),
    "enum": (
        "service: ClusterIP # @schema enum:[ClusterIP, LoadBalancer, null]\n",
        """
        "service": {
            "type": "string",
            "enum": [
                "ClusterIP",
                "LoadBalancer",
                null
            ]
        }
        """,
    ),
    "enum comma list": (
        'mode: a # @schema enum: a, "b c", null\n',
        """
        "mode": {
            "type": "string",
            "enum": [
                "a",
                "b c",
                null
            ]
        }
        """,
    ),
    "itemEnum": (
        "port: [80, 443] # @schema itemEnum:[80, 8080, 443, 8443]\n",
        """
        "port": {
            "type": "array",
            "items": {
                "type": "integer",
                "enum": [
                    80,
                    8080,
                    443,
                    8443
                ]
            }
        }
        """,
    ),
    "const drops type": (
        "nameOverride: foo # @schema const: foo\n",
        """
        "nameOverride": {
            "const": "foo"
        }
        """,
    ),
    "strings": (
        "nameOverride: myapp # @schema maxLength:10;minLength:3;pattern:^[a-z]+$\n",
        """
        "nameOverride": {
            "type": "string",
            "maxLength": 10,
            "minLength": 3,
            "pattern": "^[a-z]+$"
        }
        """,
    ),
    "numbers": (
        "replicas: 4 # @schema multipleOf:2; minimum:0.5; maximum:10\n",
        """
        "replicas": {
            "type": "integer",
            "maximum": 10,
            "minimum": 0.5,
            "multipleOf": 2
        }
        """,
    ),
    "item": (
        "imagePullSecrets: [] # @schema item: object\n",
        """
        "imagePullSecrets": {
            "type": "array",
            "items": {
                "type": "object"
            }
        }
        """,
    ),
    "itemProperties": (
        "env: [] # @schema item: object; itemProperties: {name: {type: string}}\n",
        """
        "env": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string"
                    }
                }
            }
        }
        """,
    ),
    "itemRef": (
        "containers: [] # @schema itemRef: https://example.com/container.json\n",
        """
        "containers": {
            "type": "array",
            "items": {
                "$ref": "https://example.com/container.json"
            }
        }
        """,
    ),
    "arrays": (
        "dummyList: # @schema maxItems:5; minItems:2; uniqueItems\n  - a\n  - b\n",
        """
        "dummyList": {
            "type": "array",
            "items": {
                "type": "string"
            },
            "maxItems": 5,
            "minItems": 2,
            "uniqueItems": true
        }
        """,
    ),
    "objects": (
        "nodeSelector: # @schema maxProperties:10; minProperties: 1\n  kubernetes.io/hostname: my-node\n",
        """
        "nodeSelector": {
            "type": "object",
            "properties": {
                "kubernetes.io/hostname": {
                    "type": "string"
                }
            },
            "maxProperties": 10,
            "minProperties": 1
        }
        """,
    ),
    "required": (
        "image:\n  repository: nginx # @schema required:true\n  tag: latest # @schema required\n  pullPolicy: Always\n",
        """
        "image": {
            "type": "object",
            "required": [
                "repository",
                "tag"
            ],
            "properties": {
                "pullPolicy": {
                    "type": "string"
                },
                "repository": {
                    "type": "string"
                },
                "tag": {
                    "type": "string"
                }
            }
        }
        """,
    ),
    "patternProperties": (
        'image: # @schema patternProperties: {"^[a-z]$": {type: string}}\n  repository: nginx\n',
        """
        "image": {
            "type": "object",
            "patternProperties": {
                "^[a-z]$": {
                    "type": "string"
                }
            },
            "properties": {
                "repository": {
                    "type": "string"
                }
            }
        }
        """,
    ),
    "additionalProperties false": (
        "image: # @schema additionalProperties: false\n  repository: nginx\n",
        """
        "image": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "repository": {
                    "type": "string"
                }
            }
        }
        """,
    ),
    "additionalProperties schema": (
        "labels: {} # @schema additionalProperties: {type: string}\n",
        """
        "labels": {
            "type": "object",
            "additionalProperties": {
                "type": "string"
            }
        }
        """,
    ),
    "additionalProperties without value": (
        "labels: {} # @schema additionalProperties\n",
        """
        "labels": {
            "type": "object",
            "additionalProperties": true
        }
        """,
    ),
    "unevaluatedProperties": (
        "secrets: # @schema unevaluatedProperties: false\n  foo: bar\n",
        """
        "secrets": {
            "type": "object",
            "properties": {
                "foo": {
                    "type": "string"
                }
            },
            "unevaluatedProperties": false
        }
        """,
    ),
    "mergeProperties": (
        "services: # @schema mergeProperties\n  web:\n    image: a\n  api:\n    image: b\n    ports: [8080]\n",
        """
        "services": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "image": {
                        "type": "string"
                    },
                    "ports": {
                        "type": "array",
                        "items": {
                            "type": "integer"
                        }
                    }
                }
            }
        }
        """,
    ),
    "skipProperties": (
        "config: # @schema skipProperties\n  a: 1\n",
        """
        "config": {
            "type": "object"
        }
        """,
    ),
    "hidden": (
        "resources:\n  # @schema hidden\n  limits:\n    memory: 4Gi\n  requests:\n    cpu: 100m\n"
        "secret: x # @schema hidden: true\n",
        """
        "resources": {
            "type": "object",
            "properties": {
                "requests": {
                    "type": "object",
                    "properties": {
                        "cpu": {
                            "type": "string"
                        }
                    }
                }
            }
        }
        """,
    ),
    "$id": (
        "image: # @schema $id: https://example.com/image.json\n  tag: latest\n",
        """
        "image": {
            "$id": "https://example.com/image.json",
            "type": "object",
            "properties": {
                "tag": {
                    "type": "string"
                }
            }
        }
        """,
    ),
    "$ref": (
        "subchart: # @schema $ref: https://example.com/schema.json\n  enabled: true\n",
        """
        "subchart": {
            "$ref": "https://example.com/schema.json",
            "type": "object",
            "properties": {
                "enabled": {
                    "type": "boolean"
                }
            }
        }
        """,
    ),
    "title and description": (
        "fullnameOverride: bar # @schema title: My title ; description: My description\n",
        """
        "fullnameOverride": {
            "type": "string",
            "title": "My title",
            "description": "My description"
        }
        """,
    ),
    "examples": (
        'tag: "" # @schema examples: [v1.2.3, v1.2.3-beta1]\n',
        """
        "tag": {
            "type": "string",
            "examples": [
                "v1.2.3",
                "v1.2.3-beta1"
            ]
        }
        """,
    ),
    "default": (
        "tolerations: [] # @schema default: [{key: foo, operator: Equal, effect: NoSchedule}]\n",
        """
        "tolerations": {
            "type": "array",
            "default": [
                {
                    "effect": "NoSchedule",
                    "key": "foo",
                    "operator": "Equal"
                }
            ]
        }
        """,
    ),
    "readOnly and deprecated": (
        "repository: nginx # @schema readOnly; deprecated: true\n",
        """
        "repository": {
            "type": "string",
            "deprecated": true,
            "readOnly": true
        }
        """,
    ),
    "allOf": (
        "digest: sha256:1234 # @schema allOf: [{type: string}, {minLength: 14}]\n",
        """
        "digest": {
            "allOf": [
                {
                    "type": "string"
                },
                {
                    "minLength": 14
                }
            ]
        }
        """,
    ),
    "anyOf": (
        "nodes: 3 # @schema anyOf: [{type: number, multipleOf: 3}, {type: number, multipleOf: 5}]\n",
        """
        "nodes": {
            "anyOf": [
                {
                    "type": "number",
                    "multipleOf": 3
                },
                {
                    "type": "number",
                    "multipleOf": 5
                }
            ]
        }
        """,
    ),
    "oneOf": (
        "version: # @schema oneOf: [{type: string}, {type: number}]\n",
        """
        "version": {
            "oneOf": [
                {
                    "type": "string"
                },
                {
                    "type": "number"
                }
            ]
        }
        """,
    ),
    "not": (
        "tag: latest # @schema not: {type: object}\n",
        """
        "tag": {
            "not": {
                "type": "object"
            }
        }
        """,
    ),
    "above, on and below the key": (
        dedent(
            """\
            # On the same line
            fullnameOverride: "myapp" # @schema maxLength:10;pattern:^[a-z]+$

            # On the line above
            # @schema maxLength:10;pattern:^[a-z]+$
            nameOverride: "myapp"

            # On the line below
            resources:
              limits: {}
              requests: {}
            # @schema additionalProperties:false
            """
        ),
        """
        "fullnameOverride": {
            "type": "string",
            "maxLength": 10,
            "pattern": "^[a-z]+$"
        },
        "nameOverride": {
            "type": "string",
            "maxLength": 10,
            "pattern": "^[a-z]+$"
        },
        "resources": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "limits": {
                    "type": "object"
                },
                "requests": {
                    "type": "object"
                }
            }
        }
        """,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_annotation(name: str) -> None:
    values, properties = CASES[name]
    assert schema_text(values) == wrap(properties)


def test_ref_in_draft_7_is_wrapped_in_all_of() -> None:
    values = "subchart: # @schema $ref: https://example.com/schema.json\n  enabled: true\n"
    expected = wrap(
        """
        "subchart": {
            "allOf": [
                {
                    "type": "object",
                    "properties": {
                        "enabled": {
                            "type": "boolean"
                        }
                    }
                },
                {
                    "$ref": "https://example.com/schema.json"
                }
            ]
        }
        """,
        "http://json-schema.org/draft-07/schema#",
    )
    assert schema_text(values, "draft: 7\n") == expected


def test_required_at_the_top_level() -> None:
    assert schema_text("name: x # @schema required\nother: 1\n") == (
        '{\n    "$schema": "https://json-schema.org/draft/2020-12/schema",\n    "type": "object",\n'
        '    "required": [\n        "name"\n    ],\n    "properties": {\n'
        '        "name": {\n            "type": "string"\n        },\n'
        '        "other": {\n            "type": "integer"\n        }\n    }\n}\n'
    )


def test_helm_docs_description_with_schema_annotation_above_it() -> None:
    values = "# @schema maxLength:10\n# -- My name\nname: x\n"
    assert schema_text(values, "useHelmDocs: true\n") == wrap(
        """
        "name": {
            "type": "string",
            "description": "My name",
            "maxLength": 10
        }
        """
    )


@pytest.mark.parametrize(
    ("values", "config", "message"),
    [
        (
            "a: 1 # @schema bogus: 1\n",
            "",
            'values.yaml: parse schema: /a: parse @schema comments: unknown annotation "bogus"',
        ),
        ("a: x # @schema maxLength: -1\n", "", 'maxLength: invalid integer "-1": negative values not allowed'),
        ("a: 1 # @schema minimum: abc\n", "", 'minimum: invalid number "abc": invalid syntax'),
        ("a: [] # @schema uniqueItems: maybe\n", "", 'uniqueItems: invalid boolean "maybe", must be "true" or "false"'),
        ("a: 1 # @schema multipleOf: 0\n", "", "multipleOf: must be greater than zero"),
        ("a: 1 # @schema type: int\n", "", '/properties/a/type: invalid type "int", must be one of: array, boolean'),
        ("# -- doc\n# @schema maxLength: 1\na: x\n", "useHelmDocs: true\n", "'# @schema' comments are not supported"),
        ("a: 1 # @schema allOf: {type: x\n", "", "allOf: parse object"),
        # a NaN where an unsigned integer belongs: the plugin's yaml.v3 error, not a Python crash
        (
            'a: {} # @schema patternProperties: {"^a": {maxLength: .nan}}\n',
            "",
            "patternProperties: parse object '{\"^a\": {maxLength: .nan}}': line 1: cannot unmarshal !!float `.nan` "
            "into uint64",
        ),
    ],
)
def test_annotation_errors_name_the_key_and_rule(values: str, config: str, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schema_text(values, config or "values: [values.yaml]\n")
    assert message in str(caught.value)
