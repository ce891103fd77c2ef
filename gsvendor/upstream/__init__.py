"""Upstream sources: one module per source kind (folder, tarball, http, git) behind one entry
point, gsvendor.upstream.fetch.fetch_upstream; safe extraction; the download cache.

Returns an in-memory snapshot of the wanted paths; never writes outside the cache.
"""
