"""What every stage of a retrieve reads (the stores, the embedder, the configuration) and the searches and
list adjustments they share."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chalicelib.config.retrieval import RetrievalConfig
from chalicelib.enrichment.vocabulary import HUB_TYPES
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import Hit
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.question.intent import Intent
from chalicelib.retrieve.fusion import min_max
from chalicelib.retrieve.index_search import Lists, Words, search
from chalicelib.retrieve.results import Plan, Timer


def discount_hubs(hits: list[Hit], shift: float, factor: float) -> list[Hit]:
    """Hub chunks' scores moved by ``shift`` and scaled by ``factor``; the list re-sorted, best first."""
    if not any(h.content_type in HUB_TYPES for h in hits):
        return hits
    moved = [
        Hit(h.chunk_id, (h.score + shift) * factor, h.content_type) if h.content_type in HUB_TYPES else h
        for h in hits
    ]
    return sorted(moved, key=lambda h: -h.score)


def discounted_merge(same: list[Hit], other: list[Hit], weight: float) -> list[Hit]:
    """One dense list from the query's namespace and the others: scores min-max scaled together (one cosine
    scale), the other namespaces' then multiplied by ``weight``; best first. With no same-language hit the
    order is plain cosine order, so a question over a store in another language loses nothing."""
    if not other:
        return same
    hits = (*same, *other)
    scaled = min_max([(h.chunk_id, h.score) for h in hits])
    merged = [
        Hit(cid, s if n < len(same) else weight * s, hits[n].content_type)
        for n, (cid, s) in enumerate(scaled)
    ]
    return sorted(merged, key=lambda h: -h.score)


@dataclass(frozen=True)
class Stage:
    """The stores, the embedder and the configuration a stage of a retrieve reads."""

    chunks: ChunkStore
    index: VectorIndex
    embedder: Embedder
    config: RetrievalConfig

    def search(
        self, text: str, vector: np.ndarray, plan: Plan, timer: Timer, k: int, words: Words | None = None
    ) -> Lists:
        return search(
            self.index, self.embedder.space, text, vector, plan, timer, k, words, self.config.hubness_weight
        )

    def hubs_down(self, hits: list[Hit], words: bool = False) -> list[Hit]:
        """Hubs (changelogs) weighed down before fusion: dense scores shifted, BM25 scores scaled."""
        if words:
            return discount_hubs(hits, 0.0, self.config.hub_bm25_weight)[: self.config.candidates]
        return discount_hubs(hits, -self.config.hub_penalty, 1.0)[: self.config.candidates]

    def weigh_hubs(self, request: RetrieveRequest, intent: Intent | None) -> bool:
        asked = (intent is not None and intent.name == "history") or any(
            t in HUB_TYPES for t in request.filters.content_type or ()
        )
        return not asked and (self.config.hub_penalty != 0.0 or self.config.hub_bm25_weight != 1.0)

    def fetch(self, request: RetrieveRequest, intent: Intent | None) -> int:
        """Candidates per list: hubs may fill the first ones, so twice as many when hubs are weighed."""
        return self.config.candidates * (2 if self.weigh_hubs(request, intent) else 1)
