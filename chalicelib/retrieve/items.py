"""A stored chunk as an item of a retrieve response."""

from __future__ import annotations

from chalicelib.models.api import Item
from chalicelib.models.records import StoredChunk, location_of


def to_item(c: StoredChunk, score: float, scores: dict[str, float | None]) -> Item:
    return Item(
        chunk_id=c.chunk_id,
        document_id=c.document_id,
        source_id=c.source_id,
        title=c.title,
        section_title=c.section_title,
        heading_path=c.heading_path,
        content=c.content,
        score=round(score, 6),
        url=c.url,
        lang=c.lang,
        product=c.product,
        content_type=c.content_type,
        category=c.category,
        kind=c.kind,
        critical=c.critical,
        **location_of(c),
        summary=c.enrichment.summary,
        keywords=c.enrichment.keywords,
        enrichment_source=c.enrichment.source,
        scores={k: round(v, 6) for k, v in scores.items() if v is not None},
    )
