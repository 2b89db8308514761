"""What a chunk's keywords are matched against besides its title, headings and text: its enrichment, and for
code the words inside its compound identifiers (``MakeRoomForWrite``: make room for write), so that a question
in plain words reaches code that spells them as one name. The same for every backend."""

from __future__ import annotations

from chalicelib.extraction.code_context import split_identifiers
from chalicelib.models.records import StoredChunk


def enrichment_words(chunk: StoredChunk) -> str:
    e = chunk.enrichment
    parts = [e.summary, *e.keywords, *e.questions, e.context]
    if chunk.kind == "code":
        parts.append(split_identifiers(" ".join([*chunk.heading_path, chunk.content])))
    return " ".join(p for p in parts if p)
