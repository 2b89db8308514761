"""The seams: every storage and model dependency is one of these small protocols."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from chalicelib.models.conversation import Conversation
from chalicelib.models.records import (
    DocumentRecord,
    EmbeddingSpace,
    FeedbackRecord,
    Hit,
    QueryRecord,
    SearchFilters,
    Stats,
    StoredChunk,
)


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit-length vectors; queries and passages may be prefixed differently (e5)."""

    @property
    def space(self) -> EmbeddingSpace: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class Translator(Protocol):
    """Puts a question into another language (``source`` and ``target`` are ISO 639-1 codes), the words in
    ``keep`` (names) as written, and (``names``) capitalised words inside a sentence too. None when the
    pair is not available or the translation failed: the caller searches without it and says so."""

    def translate(
        self, text: str, source: str, target: str, keep: Collection[str] = (), *, names: bool = True
    ) -> str | None: ...

    def pairs(self) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class Reranking:
    """A reranker's reading of the passages: one relevance score per passage, in the order they were given
    (higher is more relevant), and what it cost (tokens, billed queries)."""

    scores: list[float]
    usage: dict[str, int] = field(default_factory=dict)


class Reranker(Protocol):
    """Reads the question and each passage together (a cross-encoder, Bedrock Rerank, a ``/rerank``
    endpoint, an LLM) and scores how well the passage answers. Raises ``RerankError`` when it cannot:
    the caller keeps the first-stage order and says why."""

    @property
    def name(self) -> str: ...  # the model, as ``applied`` and the metrics name it

    def rerank(self, question: str, passages: Sequence[str], timeout_s: float) -> Reranking: ...


class ChunkStore(Protocol):
    """Document manifest + chunk text with enrichment JSON (SQLite here, DynamoDB in AWS)."""

    def get_document(self, source_id: str, key: str) -> DocumentRecord | None: ...

    def list_documents(self, source_id: str | None = None) -> list[DocumentRecord]: ...

    def put_document(self, record: DocumentRecord) -> None: ...

    def delete_document(self, document_id: str) -> None: ...

    def put_chunks(self, chunks: Sequence[StoredChunk]) -> None: ...

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None: ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]: ...

    def document_chunks(self, document_id: str) -> list[StoredChunk]: ...

    def all_chunk_ids(self, source_id: str | None = None) -> dict[str, str]: ...

    def stats(self) -> Stats: ...


@runtime_checkable
class EnrichmentCache(Protocol):
    """LLM enrichments remembered by the hash of what was asked (the chunk stores keep one beside the chunks)."""

    def cached_enrichment(self, cache_key: str) -> str | None: ...

    def cache_enrichment(self, cache_key: str, data: str) -> None: ...


@runtime_checkable
class DeletionLedger(Protocol):
    """Deletions counted per source and time window, one count every indexer shares (the guard of S3 events)."""

    def count_deletion(self, source_id: str, window: str) -> int:
        """Count one more deletion of ``source_id`` in ``window``; the count so far, this one included."""
        ...


class VectorIndex(Protocol):
    """k-NN + BM25 over chunks with metadata pre-filters and language namespaces."""

    def upsert_chunks(self, chunks: Sequence[StoredChunk], space: EmbeddingSpace) -> None: ...

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None: ...

    def get_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def set_readers(self, chunk_ids: Sequence[str], readers: Sequence[str]) -> None:
        """Who may read these chunks, changed in place: nothing re-embedded, every search sees it at once."""
        ...

    def chunk_ids(self, filters: SearchFilters) -> set[str]: ...

    def dense_search(
        self, vector: np.ndarray, space: EmbeddingSpace, filters: SearchFilters, k: int, hubness: float = 0.0
    ) -> list[Hit]:
        """``hubness`` > 0 asks for CSLS scores (cosine minus that much of a row's mean cosine to its nearest
        rows) from an index that keeps them; one that does not ranks by cosine."""
        ...

    def keyword_search(self, query: str, filters: SearchFilters, k: int) -> list[Hit]: ...


class QueryLog(Protocol):
    """The questions asked and the feedback given on them (SQLite here, DynamoDB with a TTL in AWS).
    Records past their ``expires_at`` are gone for every reader, whenever the backend sweeps them."""

    def log_query(self, record: QueryRecord) -> None: ...

    def get_query(self, query_id: str) -> QueryRecord | None: ...

    def add_feedback(self, record: FeedbackRecord) -> None: ...

    def queries(self, since: float) -> list[QueryRecord]: ...

    def feedback(self, since: float) -> list[FeedbackRecord]: ...


class ConversationStore(Protocol):
    """Conversations beside the query log (SQLite here, DynamoDB with its TTL in AWS). A conversation is
    read back until the store deletes it (``expires_at``), even past ``active_until``: the caller decides
    what an expired one means."""

    def get_conversation(self, conversation_id: str) -> Conversation | None: ...

    def put_conversation(self, conversation: Conversation) -> None: ...
