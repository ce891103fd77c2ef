"""Inferring declared overlays from a hand-vendored chart tree and the upstream tag it came from: pure
functions (text and value operations, per-chart inference, themed layout); the I/O and tag detection
are gsvendor.workflows.adopt's."""
