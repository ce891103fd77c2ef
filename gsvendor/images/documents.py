"""helm's output as YAML documents: split at the ``---`` markers and searched for image references
(:func:`scan_manifests`)."""

from __future__ import annotations

import re

from gsvendor.images.find import Found, Skipped, configmap_references, manifest_references
from gsvendor.yamlio import invalid_yaml, load_all_safe

CONTENT = re.compile(r"^[ \t]*[^#\s]", re.M)  # a line that is neither blank nor a comment
CRD_KIND = re.compile(r"^kind:[ \t]*[\"']?CustomResourceDefinition[\"']?[ \t]*$", re.M)
_SOURCE = re.compile(r"^# Source: (.+)$", re.M)
_CONFIGMAP = re.compile(r"^kind:[ \t]*[\"']?ConfigMap[\"']?[ \t]*$", re.M)
_MENTIONS_IMAGE = re.compile(r"image", re.I)


def source_of(text: str) -> str | None:
    """helm's ``# Source:`` template path of a document, if it has one."""
    match = _SOURCE.search(text)
    return match.group(1).strip() if match else None


def split_documents(stream: str) -> list[str]:
    """Split a YAML stream at its ``---`` document markers (``---`` at a line start, then the line end,
    a blank or a comment). str.split, not a regex: helm output runs to megabytes of CRDs."""
    chunks: list[str] = []
    for piece in ("\n" + stream).split("\n---"):
        if chunks and piece and piece[0] not in "\r\n \t#":  # "----" or "---x" is content, not a marker
            chunks[-1] += "\n---" + piece
        else:
            chunks.append(piece)
    return chunks


def scan_manifests(manifests: str, chunks: list[str] | None = None) -> tuple[list[Found], list[Skipped], int, int]:
    """``(found, skipped, documents, crds)`` of helm output (``chunks``: ``manifests`` already split). CRDs
    (by a top-level ``kind:`` line: megabytes of schemas that run nothing) are counted, not parsed, as are
    documents not mentioning ``image`` other than ConfigMaps (non-JSON keys: skipped). Raises nothing."""
    from ruamel.yaml.error import YAMLError

    found: list[Found] = []
    skipped: list[Skipped] = []
    documents = crds = 0
    for chunk in split_documents(manifests) if chunks is None else chunks:
        if not CONTENT.search(chunk):  # empty, or only helm's "# Source:" comment
            continue
        documents += 1
        if CRD_KIND.search(chunk):
            crds += 1
            continue
        if not _MENTIONS_IMAGE.search(chunk) and not _CONFIGMAP.search(chunk):
            continue
        source = source_of(chunk)
        try:
            parsed = [d for d in load_all_safe(chunk) if isinstance(d, dict)]
        except YAMLError as exc:
            skipped.append(Skipped(source or "?", "(document)", invalid_yaml(exc, f"rendered {source or 'document'}")))
            continue
        for document in parsed:
            found.extend(manifest_references(document, source))
            if document.get("kind") == "ConfigMap":
                more, skip = configmap_references(document)
                found.extend(more)
                skipped.extend(skip)
    return found, skipped, documents, crds
