"""helm's output as YAML documents: split at the ``---`` markers (without copying megabytes of
CRDs where it can) and searched for image references (:func:`scan_manifests`)."""

from __future__ import annotations

import re

from gsvendor.images.find import Found, Skipped, configmap_references, manifest_references
from gsvendor.yamlio import load_all_safe as load_all

CONTENT = re.compile(r"^[ \t]*[^#\s]", re.M)  # a line that is neither blank nor a comment
CRD_KIND = re.compile(r"^kind:[ \t]*[\"']?CustomResourceDefinition[\"']?[ \t]*$", re.M)
_SOURCE = re.compile(r"^# Source: (.+)$", re.M)
_CONTENT, _CRD = CONTENT, CRD_KIND  # the names the scan's equivalence test reads
_CONFIGMAP = re.compile(r"^kind:[ \t]*[\"']?ConfigMap[\"']?[ \t]*$", re.M)
_MENTIONS_IMAGE = re.compile(r"image", re.I)


def source_of(text: str, start: int = 0, end: int | None = None) -> str | None:
    """helm's ``# Source:`` template path of a document (``text[start:end]``), if it has one."""
    match = _SOURCE.search(text, start, len(text) if end is None else end)
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


def document_spans(stream: str) -> list[tuple[str, int, int]]:
    """:func:`split_documents` without copying the text: ``(lead, start, end)`` per document, whose
    text is ``lead + stream[start:end]`` (``lead`` is the ``"\n"`` that split_documents puts in front
    of the first piece, ``""`` for the others and for an empty first piece). Raises nothing."""
    separators = []  # where the "---" of each marker starts; split_documents' str.split finds the same ones
    position = 0
    if stream.startswith("---"):  # a marker at the very start of "\n" + stream
        separators.append(0)
        position = 3
    while (found := stream.find("\n---", position)) >= 0:
        separators.append(found + 1)
        position = found + 4
    size = len(stream)
    # the first piece: empty before a marker that opens the stream, else up to the first marker
    first = ("", 0, 0) if separators[:1] == [0] else ("\n", 0, separators[0] - 1 if separators else size)
    spans = [first]
    for index, marker in enumerate(separators):
        start = marker + 3
        end = separators[index + 1] - 1 if index + 1 < len(separators) else size
        if start < end and stream[start] not in "\r\n \t#":  # content: the previous document goes on
            lead, first, _ = spans[-1]
            # "" + "\n---" + piece is "\n" + stream[0:end]; any other document runs on up to the marker
            spans[-1] = ("\n" if marker == 0 else lead, first, end)
        else:
            spans.append(("", start, end))
    return spans


def scan_manifests(manifests: str, chunks: list[str] | None = None) -> tuple[list[Found], list[Skipped], int, int]:
    """Split helm output into documents and find their references.

    Returns ``(found, skipped, documents, crds)``. CustomResourceDefinitions are recognised on
    their top-level ``kind:`` line and not parsed: they are schemas that run nothing, and they are
    megabytes (parsing them would cost seconds per render). Other documents that do not mention
    ``image`` anywhere (case-insensitively, so ``*_IMAGE`` and ``…Image`` count) cannot hold a
    reference and are not parsed either, except ConfigMaps: their keys that are not JSON are
    listed as skipped whatever they hold. ``chunks``: ``manifests`` already split; without them
    the patterns search the stream between each document's bounds (:func:`document_spans`) and
    only the documents parsed (with :func:`gsvendor.yamlio.load_all_safe`) are copied. Raises nothing.
    """
    from ruamel.yaml.error import YAMLError

    found: list[Found] = []
    skipped: list[Skipped] = []
    documents = crds = 0
    if chunks is not None:
        spans = [("", chunk, 0, len(chunk)) for chunk in chunks]
    else:
        spans = [_searched(manifests, *span) for span in document_spans(manifests)]
    for lead, text, start, end in spans:
        if not CONTENT.search(text, start, end):  # empty, or only helm's "# Source:" comment
            continue
        documents += 1
        if CRD_KIND.search(text, start, end):
            crds += 1
            continue
        if not _MENTIONS_IMAGE.search(text, start, end) and not _CONFIGMAP.search(text, start, end):
            continue
        source = source_of(text, start, end)
        chunk = lead + (text if start == 0 and end == len(text) else text[start:end])
        try:
            parsed = [d for d in load_all(chunk) if isinstance(d, dict)]
        except YAMLError as exc:
            skipped.append(Skipped(source or "?", "(document)", f"not YAML: {' '.join(str(exc).split())}"))
            continue
        for document in parsed:
            found.extend(manifest_references(document, source))
            if document.get("kind") == "ConfigMap":
                more, skip = configmap_references(document)
                found.extend(more)
                skipped.extend(skip)
    return found, skipped, documents, crds


def _searched(stream: str, lead: str, start: int, end: int) -> tuple[str, str, int, int]:
    """A document of :func:`document_spans` as ``(lead, text, start, end)``: its text is ``lead +
    text[start:end]``; ``text`` is the stream itself when the document opens it or starts at a line
    break (``^`` then matches where it matches in the document's own text), else a copy."""
    if start == 0 or start == end or stream[start] in "\r\n":
        return lead, stream, start, end
    text = lead + stream[start:end]
    return "", text, 0, len(text)
