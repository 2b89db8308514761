"""The embedded store: manifest, chunks, FTS5 BM25 and a numpy vector matrix in one SQLite file. This class
is the facade ChunkStore and VectorIndex callers see; the work is in its parts: the file and what they
share (sqlite_file.py), the rows (sqlite_rows.py), the vectors (sqlite_vectors.py), the words
(sqlite_words.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.records import DocumentRecord, EmbeddingSpace, Hit, SearchFilters, Stats, StoredChunk
from chalicelib.stores.sqlite.file import SCHEMA_VERSION, StoreFile
from chalicelib.stores.sqlite.rows import Rows
from chalicelib.stores.sqlite.vectors import ANN_MIN_ROWS, Vectors, parallel_product
from chalicelib.stores.sqlite.words import Words

__all__ = ["SCHEMA_VERSION", "SQLiteStore", "parallel_product"]


class SQLiteStore:
    """Implements ChunkStore and VectorIndex over one file; safe to share between threads."""

    def __init__(
        self, path: str | Path, languages: Sequence[str] = DEFAULT_LANGUAGES, ann_min_rows: int = ANN_MIN_ROWS
    ) -> None:
        self.file = StoreFile(path)
        self.rows = Rows(self.file)
        self.vectors = Vectors(self.file, ann_min_rows)
        self.words = Words(self.file, languages)
        self.path = self.file.path
        self.store_id = self.file.store_id
        self.languages = self.words.languages

    def close(self) -> None:
        self.file.close()

    # ------------------------------------------------------------ manifest and chunks (ChunkStore)
    def get_document(self, source_id: str, key: str) -> DocumentRecord | None:
        return self.rows.get_document(source_id, key)

    def list_documents(self, source_id: str | None = None) -> list[DocumentRecord]:
        return self.rows.list_documents(source_id)

    def put_document(self, record: DocumentRecord) -> None:
        self.rows.put_document(record)

    def delete_document(self, document_id: str) -> None:
        self.rows.delete_document(document_id)

    def put_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        self.rows.put_chunks(chunks)

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        return self.rows.get_chunks(chunk_ids)

    def document_chunks(self, document_id: str) -> list[StoredChunk]:
        return self.rows.document_chunks(document_id)

    def all_chunk_ids(self, source_id: str | None = None) -> dict[str, str]:
        return self.rows.all_chunk_ids(source_id)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        self.rows.delete_chunks(chunk_ids)

    def cached_enrichment(self, cache_key: str) -> str | None:
        return self.rows.cached_enrichment(cache_key)

    def cache_enrichment(self, cache_key: str, data: str) -> None:
        self.rows.cache_enrichment(cache_key, data)

    def count_deletion(self, source_id: str, window: str) -> int:
        return self.rows.count_deletion(source_id, window)

    def stats(self) -> Stats:
        return self.rows.stats()

    # ------------------------------------------------------------ search (VectorIndex)
    def space(self) -> EmbeddingSpace | None:
        return self.file.space()

    def upsert_chunks(self, chunks: Sequence[StoredChunk], space: EmbeddingSpace) -> None:
        self.vectors.upsert_chunks(chunks, space)

    def delete_vectors(self, chunk_ids: Sequence[str]) -> None:
        self.vectors.delete_vectors(chunk_ids)

    def set_readers(self, chunk_ids: Sequence[str], readers: Sequence[str]) -> None:
        self.vectors.set_readers(chunk_ids, readers)

    def chunk_ids(self, filters: SearchFilters) -> set[str]:
        return self.vectors.chunk_ids(filters)

    def get_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self.vectors.get_vectors(chunk_ids)

    def dense_search(
        self, vector: np.ndarray, space: EmbeddingSpace, filters: SearchFilters, k: int, hubness: float = 0.0
    ) -> list[Hit]:
        return self.vectors.dense_search(vector, space, filters, k, hubness)

    def keyword_search(self, query: str, filters: SearchFilters, k: int) -> list[Hit]:
        return self.words.keyword_search(query, filters, k)

    def warm_ann(self, timeout_s: float | None = None) -> bool:
        return self.vectors.warm_ann(timeout_s)

    def warm(self) -> None:
        """Load the vectors, build the BM25 postings and the rows' hubness now, rather than beside the first
        questions, and save what was built beside the store (a run of ``sabio index`` ends with it, so the
        next process to open the store reads them instead of building them)."""
        generation, rids, matrix = self.file.load_matrix()
        with self.words.loading:
            self.words.build_view(generation, rids, matrix)
        self.file.segments.persist(wait=True)
        if len(rids) < self.vectors.ann_min_rows:  # past it the HNSW graph ranks, by cosine
            with self.vectors.hub_loading:
                if not self.vectors.hubness_current(generation):
                    self.vectors.sync_hubness(generation, rids, matrix)
