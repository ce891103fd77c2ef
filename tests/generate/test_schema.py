"""values.schema.json generation: configuration keys, type inference and schemalint normalization.

Each expected text is what helm-values-schema-json v2.5.0 (README "Configuration file",
pkg/schema.go, pkg/parser.go) followed by ``schemalint normalize`` write for the input.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from gsvendor.generate.schema.model import SchemaError
from gsvendor.generate.schema.output import generate_schema

DEFAULT_CONFIG = "values: [values.yaml]\n"


def schema_text(values: str, config: str = DEFAULT_CONFIG, files: dict[str, str] | None = None) -> str:
    chart = {".schema.yaml": dedent(config).encode(), "values.yaml": dedent(values).encode()}
    chart.update({name: dedent(text).encode() for name, text in (files or {}).items()})
    _, data = generate_schema(chart, normalize="schemalint")
    return data.decode()


def expect(text: str) -> str:
    return dedent(text).lstrip("\n")


# --- type inference ----------------------------------------------------------------------------


def test_scalar_and_collection_types() -> None:
    values = """\
        nullValue: null
        empty:
        flag: true
        count: 3
        hex: 0x1F
        ratio: 0.5
        exponent: 1e3
        name: nginx
        quoted: "3"
        date: 2024-01-02
        obj:
          a: 1
        emptyObj: {}
        list: [1, 2]
        emptyList: []
        """
    assert schema_text(values) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "count": {
                    "type": "integer"
                },
                "date": {
                    "type": "string"
                },
                "empty": {
                    "type": "null"
                },
                "emptyList": {
                    "type": "array"
                },
                "emptyObj": {
                    "type": "object"
                },
                "exponent": {
                    "type": "number"
                },
                "flag": {
                    "type": "boolean"
                },
                "hex": {
                    "type": "integer"
                },
                "list": {
                    "type": "array",
                    "items": {
                        "type": "integer"
                    }
                },
                "name": {
                    "type": "string"
                },
                "nullValue": {
                    "type": "null"
                },
                "obj": {
                    "type": "object",
                    "properties": {
                        "a": {
                            "type": "integer"
                        }
                    }
                },
                "quoted": {
                    "type": "string"
                },
                "ratio": {
                    "type": "number"
                }
            }
        }
        """
    )


def test_array_items_merge_every_item_and_the_last_type_wins() -> None:
    values = """\
        mixed: [1, "a"]
        objects:
          - a: 1
          - b: x
        nested:
          - [1]
        """
    assert schema_text(values) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "mixed": {
                    "type": "array",
                    "items": {
                        "type": "string"
                    }
                },
                "nested": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "integer"
                        }
                    }
                },
                "objects": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "a": {
                                "type": "integer"
                            },
                            "b": {
                                "type": "string"
                            }
                        }
                    }
                }
            }
        }
        """
    )


def test_an_alias_gets_no_type() -> None:
    values = """\
        base: &base
          x: 1
        copy: *base
        """
    assert schema_text(values) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "base": {
                    "type": "object",
                    "properties": {
                        "x": {
                            "type": "integer"
                        }
                    }
                },
                "copy": {}
            }
        }
        """
    )


# --- configuration keys ------------------------------------------------------------------------


def test_values_files_merge_in_order_and_later_files_win() -> None:
    config = "values:\n  - values.yaml\n  - second.yaml\n"
    assert schema_text("a: 1\nb: x\n", config, {"second.yaml": "a: s\nc: true\n"}) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {
                    "type": "string"
                },
                "b": {
                    "type": "string"
                },
                "c": {
                    "type": "boolean"
                }
            }
        }
        """
    )


def test_an_empty_values_file_adds_nothing() -> None:
    config = "values: [values.yaml, empty.yaml]\n"
    assert schema_text("a: 1\n", config, {"empty.yaml": ""}) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {
                    "type": "integer"
                }
            }
        }
        """
    )


@pytest.mark.parametrize(
    ("draft", "url"),
    [
        (4, "http://json-schema.org/draft-04/schema#"),
        (6, "http://json-schema.org/draft-06/schema#"),
        (7, "http://json-schema.org/draft-07/schema#"),
        (2019, "https://json-schema.org/draft/2019-09/schema"),
        (2020, "https://json-schema.org/draft/2020-12/schema"),
    ],
)
def test_draft(draft: int, url: str) -> None:
    assert schema_text("a: 1\n", f"draft: {draft}\n") == expect(
        f"""
        {{
            "$schema": "{url}",
            "type": "object",
            "properties": {{
                "a": {{
                    "type": "integer"
                }}
            }}
        }}
        """
    )


def test_indent() -> None:
    """``indent`` is helm-values-schema-json's; schemalint normalize always writes 4 spaces."""
    chart = {".schema.yaml": b"indent: 2\nvalues: [values.yaml]\n", "values.yaml": b"a:\n  b: 1\n"}
    assert generate_schema(chart)[1].decode() == expect(
        """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "type": "object",
          "properties": {
            "a": {
              "type": "object",
              "properties": {
                "b": {
                  "type": "integer"
                }
              }
            }
          }
        }
        """
    )
    assert schema_text("a:\n  b: 1\n", "indent: 2\n") == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {
                    "type": "object",
                    "properties": {
                        "b": {
                            "type": "integer"
                        }
                    }
                }
            }
        }
        """
    )


def test_output() -> None:
    files = {".schema.yaml": b"output: schema/values.schema.json\n", "values.yaml": b"a: 1\n"}
    path, _ = generate_schema(files)
    assert path == "schema/values.schema.json"


def test_no_additional_properties_closes_every_object_and_adds_global() -> None:
    assert schema_text("a:\n  b: 1\n", "noAdditionalProperties: true\n") == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "b": {
                            "type": "integer"
                        }
                    }
                },
                "global": {
                    "type": [
                        "object",
                        "null"
                    ],
                    "description": "Global values shared between all subcharts",
                    "$comment": "Added automatically by 'helm schema' to allow this chart to be used as a Helm dependency, as the `additionalProperties` setting would otherwise collide with Helm's special 'global' values key."
                }
            }
        }
        """  # noqa: E501
    )


def test_no_default_global() -> None:
    assert schema_text("a: 1\n", "noAdditionalProperties: true\nnoDefaultGlobal: true\n") == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a": {
                    "type": "integer"
                }
            }
        }
        """
    )


def test_global_from_the_values_is_kept_as_inferred() -> None:
    config = "schemaRoot:\n  additionalProperties: false\n"
    assert schema_text("global:\n  x: 1\n", config) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "global": {
                    "type": "object",
                    "properties": {
                        "x": {
                            "type": "integer"
                        }
                    }
                }
            }
        }
        """
    )


def test_schema_root() -> None:
    config = """\
        schemaRoot:
          id: https://example.com/schema
          title: Helm Values Schema
          description: Schema for Helm values
          additionalProperties: true
          ref: base.json
        """
    assert schema_text("a: 1\n", config) == expect(
        """
        {
            "$id": "https://example.com/schema",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": "base.json",
            "type": "object",
            "title": "Helm Values Schema",
            "description": "Schema for Helm values",
            "additionalProperties": true,
            "properties": {
                "a": {
                    "type": "integer"
                }
            }
        }
        """
    )


def test_use_helm_docs_reads_dash_comments() -> None:
    values = """\
        # -- The image
        # to run
        image: nginx
        # other.key -- not about this key
        tag: latest
        # -- ignored without useHelmDocs
        plain: x
        """
    out = schema_text(values, "useHelmDocs: true\n")
    assert out == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "image": {
                    "type": "string",
                    "description": "The image to run"
                },
                "plain": {
                    "type": "string",
                    "description": "ignored without useHelmDocs"
                },
                "tag": {
                    "type": "string"
                }
            }
        }
        """
    )
    assert '"description"' not in schema_text(values)


def test_k8s_schema_alias() -> None:
    values = (
        "resources: {} # @schema $ref: $k8s/_definitions.json#/definitions/io.k8s.api.core.v1.ResourceRequirements\n"
    )
    assert schema_text(values, "k8sSchemaVersion: v1.33.1\n") == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "resources": {
                    "$ref": "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/v1.33.1/_definitions.json#/definitions/io.k8s.api.core.v1.ResourceRequirements",
                    "type": "object"
                }
            }
        }
        """
    )
    custom = schema_text(
        "memory: 1Gi # @schema $ref: $k8s/quantity.json\n",
        "k8sSchemaURL: https://schemas.example.com/{{ .K8sSchemaVersion }}\nk8sSchemaVersion: v1.30.0\n",
    )
    assert '"$ref": "https://schemas.example.com/v1.30.0/quantity.json",' in custom


IMAGE_SCHEMA = '{"type": "object", "properties": {"tag": {"type": "string", "minLength": 1}}}'


def test_bundle_puts_referenced_files_in_defs_with_their_id() -> None:
    values = "image: # @schema $ref: schemas/image.json\n  tag: v1\n"
    assert schema_text(values, "bundle: true\n", {"schemas/image.json": IMAGE_SCHEMA}) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {
                "image.json": {
                    "$id": "schemas/image.json",
                    "type": "object",
                    "properties": {
                        "tag": {
                            "type": "string",
                            "minLength": 1
                        }
                    }
                }
            },
            "type": "object",
            "properties": {
                "image": {
                    "$ref": "schemas/image.json",
                    "type": "object",
                    "properties": {
                        "tag": {
                            "type": "string"
                        }
                    }
                }
            }
        }
        """
    )


def test_bundle_without_id_points_refs_into_defs() -> None:
    values = "image: # @schema $ref: ./schemas/image.json\n  tag: v1\n"
    config = "bundle: true\nbundleWithoutID: true\nbundleRoot: schemas\n"
    out = schema_text(values, config, {"schemas/image.json": IMAGE_SCHEMA})
    assert '"$ref": "#/$defs/image.json",' in out
    assert '"$id"' not in out


def test_bundle_root_limits_file_references() -> None:
    values = "image: # @schema $ref: schemas/image.json\n  tag: v1\n"
    with pytest.raises(SchemaError) as caught:
        schema_text(values, "bundle: true\nbundleRoot: other\n", {"schemas/image.json": IMAGE_SCHEMA})
    assert "/properties/image/$ref" in str(caught.value)
    assert "outside bundleRoot" in str(caught.value)


K8S_DEFINITIONS = """\
    {"definitions": {
      "io.k8s.api.core.v1.ResourceRequirements": {
        "description": "Compute resources.",
        "type": "object",
        "properties": {"limits": {"type": "object", "additionalProperties": {
          "$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"}}}
      },
      "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
      "io.k8s.api.core.v1.Unused": {"type": "string"}
    }}
    """
K8S_VALUES = (
    "resources: {} # @schema $ref: $k8s/_definitions.json#/definitions/io.k8s.api.core.v1.ResourceRequirements\n"
)
K8S_COPY = "k8s/raw.githubusercontent.com/yannh/kubernetes-json-schema/master/v1.33.1/_definitions.json"


def test_bundling_a_kubernetes_ref_reads_the_local_copy() -> None:
    config = "bundle: true\nbundleWithoutID: true\nk8sSchemaVersion: v1.33.1\nlocalRefs: k8s\n"
    assert schema_text(K8S_VALUES, config, {K8S_COPY: K8S_DEFINITIONS}) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {
                "_definitions.json": {
                    "definitions": {
                        "io.k8s.api.core.v1.ResourceRequirements": {
                            "type": "object",
                            "description": "Compute resources.",
                            "properties": {
                                "limits": {
                                    "type": "object",
                                    "additionalProperties": {
                                        "$ref": "#/$defs/_definitions.json/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"
                                    }
                                }
                            }
                        },
                        "io.k8s.apimachinery.pkg.api.resource.Quantity": {
                            "type": "string"
                        }
                    }
                }
            },
            "type": "object",
            "properties": {
                "resources": {
                    "$ref": "#/$defs/_definitions.json/definitions/io.k8s.api.core.v1.ResourceRequirements",
                    "type": "object"
                }
            }
        }
        """  # noqa: E501
    )


def test_a_remote_ref_without_a_local_copy_fails_clearly() -> None:
    with pytest.raises(SchemaError) as caught:
        schema_text(K8S_VALUES, "bundle: true\nk8sSchemaVersion: v1.33.1\nlocalRefs: k8s\n")
    message = str(caught.value)
    assert "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/v1.33.1/_definitions.json" in message
    assert "needs the network" in message
    assert K8S_COPY in message
    with pytest.raises(SchemaError, match="set localRefs"):
        schema_text(K8S_VALUES, "bundle: true\nk8sSchemaVersion: v1.33.1\n")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("draft: 5\n", "invalid draft version. Please use one of: 4, 6, 7, 2019, 2020"),
        ("indent: 3\n", "indentation must be an even number"),
        ("indent: 0\n", "indentation must be a positive number"),
        ("values: []\n", "values flag is required"),
        ("values: [missing.yaml]\n", 'read --values="missing.yaml"'),
        ("draft: x\n", ".schema.yaml: draft: line 1: cannot unmarshal !!str `x` into int"),
        ("values: [\n", ".schema.yaml: invalid YAML: line 2"),
        ("output: ../x.json\n", ".schema.yaml: output: ../x.json must be inside the chart"),
    ],
)
def test_configuration_errors(config: str, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schema_text("a: 1\n", config)
    assert message in str(caught.value)


def test_missing_k8s_schema_version() -> None:
    with pytest.raises(SchemaError, match="must set k8sSchemaVersion"):
        schema_text("a: {} # @schema $ref: $k8s/x.json\n")


# --- schemalint normalization ------------------------------------------------------------------


def test_keys_sorted_by_importance_everywhere_even_property_names() -> None:
    values = "zeta: 1\ntype: a\ndescription: b\nalpha: 2\n"
    assert schema_text(values) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "type": {
                    "type": "string"
                },
                "description": {
                    "type": "string"
                },
                "alpha": {
                    "type": "integer"
                },
                "zeta": {
                    "type": "integer"
                }
            }
        }
        """
    )


def test_numbers_are_float64_and_html_characters_stay_unescaped() -> None:
    values = """\
        ratio: 1.0 # @schema default: 1.0; maximum: 1e21; minimum: 0.000001
        html: x # @schema default: "<b>&</b>"
        """
    assert schema_text(values) == expect(
        """
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "html": {
                    "type": "string",
                    "default": "<b>&</b>"
                },
                "ratio": {
                    "type": "number",
                    "default": 1,
                    "maximum": 1e+21,
                    "minimum": 0.000001
                }
            }
        }
        """
    )


def test_generated_text_is_whitespace_clean() -> None:
    from gsvendor.files import normalize_whitespace

    out = schema_text("a:\n  b: [1]\n").encode()
    assert normalize_whitespace(out) == out
