"""What was retrieved, as the numbered, enriched context block a prompt reads (/context, LLM answers, maps)."""

from __future__ import annotations

from chalicelib.enrichment.embedding_text import context_block
from chalicelib.models.records import StoredChunk


def build_context(chunks: list[StoredChunk]) -> str:
    return "\n\n".join(
        context_block(n, c.title, c.category, c.product, c.url, c.enrichment, c.content)
        for n, c in enumerate(chunks, start=1)
    )
