"""check-manifests: rendered custom resources validated against the CustomResourceDefinitions of the project's
charts with Kubernetes' structural-schema semantics: crds.py collects, schema.py validates, check.py judges."""
