"""context_plus_summary: what was retrieved, as the numbered, enriched context block a prompt reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.enrichment.embedding_text import context_block
from chalicelib.models.api import ContextResponse, RetrieveRequest
from chalicelib.models.records import StoredChunk
from chalicelib.pipelines.types import Retrieval

if TYPE_CHECKING:
    from chalicelib.auth import KeyPolicy


def build_context(chunks: list[StoredChunk]) -> str:
    return "\n\n".join(
        context_block(n, c.title, c.category, c.product, c.url, c.enrichment, c.content)
        for n, c in enumerate(chunks, start=1)
    )


def context(retrieval: Retrieval, request: RetrieveRequest, access: KeyPolicy | None) -> ContextResponse:
    """The retrieve response plus the enriched context block for a prompt."""
    retrieved = retrieval.run(request, access)
    return ContextResponse(**retrieved.response.model_dump(), context=build_context(retrieved.chunks))
