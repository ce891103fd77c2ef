"""Inferring declared overlays from a hand-vendored chart tree and the upstream tag it came from.

Pure functions: textdiff (anchored insert/replace operations from a line diff), values (value
operations on Chart.yaml/values.yaml), infer (every file of a chart: edits, Giant Swarm-only
files, deletions, what cannot be expressed), layout (operations grouped into themed overlay files
and written as YAML). The I/O, and detecting which upstream tag a tree matches best, is
gsvendor.workflows.adopt's.
"""
