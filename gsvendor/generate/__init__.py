"""Generated chart files as Giant Swarm's pre-commit pipeline makes them, in memory and offline (bytes in, bytes
out): README.md (helm-docs v1.14.2), values.schema.json (helm-values-schema-json v2.5.0, schemalint v2.6.1)."""
