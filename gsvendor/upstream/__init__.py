"""Upstream sources (folder, tarball, http, git) behind :func:`gsvendor.upstream.fetch.fetch_upstream`:
an in-memory snapshot of the wanted paths, read safely; nothing written outside the download cache."""
