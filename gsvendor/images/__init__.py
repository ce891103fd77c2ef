"""Image references in charts: the reference grammar, finding references in rendered manifests,
ConfigMap JSON and values.yaml, rendering with helm, and the registry lookups of --resolve.

Never imports a workflow or the CLI; printing lives in gsvendor.report.
"""
