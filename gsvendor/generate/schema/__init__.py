"""helm-values-schema-json v2.5.0: values.yaml (and # @schema annotations) to values.schema.json, with its
.schema.yaml configuration, $ref bundling and output order; files are read through a reader the caller passes."""
