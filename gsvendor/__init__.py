"""gsvendor: vendor upstream KServe Helm charts with declared Giant Swarm overlays, and check them."""

__version__ = "0.1.0"
