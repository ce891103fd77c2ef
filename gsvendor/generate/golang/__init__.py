"""Go-compatible behaviour the emulated Go tools depend on: text/template (with sprig functions),
yaml.v3 and encoding/json. Each module names the Go package and version it matches.

A compatibility layer only: no gsvendor domain logic lives here, and it imports nothing else of gsvendor.
"""
