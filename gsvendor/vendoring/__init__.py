"""The output of sync: planning it in memory (upstream + overlays + generated files), the lock file,
comparing trees, and writing with hand-edit detection, staging and an atomic swap. Imports no workflow or CLI."""
