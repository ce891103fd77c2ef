"""Inferring declared overlays from a hand-vendored chart tree and its upstream tag: pure functions
(text and value operations, per-chart inference, themed layout); I/O is gsvendor.workflows.adopt's."""
