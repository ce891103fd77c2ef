"""check-manifests: rendered custom resources validated against the CustomResourceDefinitions of the
project's charts, with Kubernetes' structural-schema semantics (pruning, int-or-string, embedded resources).

crds.py (collecting CRDs) · schema.py (openAPIV3Schema → JSON Schema, jsonschema validation)
· check.py (objects per chart × variant, label policy, results) · fastyaml.py (large CRD documents).
"""
