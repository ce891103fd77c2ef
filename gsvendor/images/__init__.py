"""Image references in charts: the reference grammar, finding references in rendered manifests, ConfigMap
JSON and values.yaml, rendering with helm, and --resolve's registry lookups. Never imports a workflow or the CLI."""
