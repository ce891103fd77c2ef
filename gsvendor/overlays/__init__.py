"""The overlay engine: loading overlay files, applying their operations to a chart's files, and
the line-preserving YAML editor the YAML operations use.

Works on bytes in memory; never reads upstream or writes the output.
"""
