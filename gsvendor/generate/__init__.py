"""Generated chart files, as Giant Swarm's pre-commit pipeline makes them: README.md (helm-docs
v1.14.2) and values.schema.json (helm-values-schema-json v2.5.0, schemalint v2.6.1 normalize).

In memory and offline: takes a chart's files as bytes, returns new bytes; never writes to disk.
"""
