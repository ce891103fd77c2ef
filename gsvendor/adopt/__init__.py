"""Inferring declared overlays from a hand-vendored chart tree and the upstream tag it came from.

Pure functions: textdiff (text operations from a line diff), values (value operations), infer (every
file of a chart), layout (operations grouped into themed overlay files). The I/O and tag detection are
gsvendor.workflows.adopt's.
"""
