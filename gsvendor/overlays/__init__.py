"""The overlay engine: loading overlay files and applying their operations (with the line-preserving
YAML editor) to a chart's files, in memory; never reads upstream or writes the output."""
