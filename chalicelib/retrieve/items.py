"""A stored chunk as an item of a retrieve response."""

from __future__ import annotations

from chalicelib.models.api import Item
from chalicelib.models.records import StoredChunk

# what an item shows of its chunk as the store keeps it: its place, ids, titles, text and metadata
_COPIED = tuple(name for name in Item.model_fields if name in StoredChunk.model_fields)


def to_item(c: StoredChunk, score: float, scores: dict[str, float | None]) -> Item:
    return Item(
        **{name: getattr(c, name) for name in _COPIED},
        score=round(score, 6),
        summary=c.enrichment.summary,
        keywords=c.enrichment.keywords,
        enrichment_source=c.enrichment.source,
        scores={k: round(v, 6) for k, v in scores.items() if v is not None},
    )
