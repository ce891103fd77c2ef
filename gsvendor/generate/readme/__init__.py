"""helm-docs v1.14.2: chart data from Chart.yaml and values.yaml comments, and the README templates (pure
functions over bytes: never reads or writes files)."""
