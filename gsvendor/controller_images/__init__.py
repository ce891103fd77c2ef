"""Build inputs of the controller images: the Dockerfiles, the carried patch series, and where the
upstream version is pinned. Pure parsing and judging; fetching upstream is the workflows' job."""
