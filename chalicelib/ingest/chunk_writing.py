"""A document's new chunks written: their vectors (the old ones reused where the embedded text is unchanged,
its own or a renamed file's), their quote vectors, and the swap that never leaves the document missing from
search."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from chalicelib.config.ingest import IngestConfig
from chalicelib.enrichment.heuristic import ChunkContext
from chalicelib.ids import sha256
from chalicelib.ingest.chunk_records import Prepared, as_tags, embedding_text, stored_chunk
from chalicelib.ingest.config import IndexReport, Progress
from chalicelib.models.records import Enrichment, StoredChunk
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.quotes import encode_vectors, quote_space, scoring_texts


@dataclass
class ChunkWriter:
    chunks: ChunkStore
    index: VectorIndex
    embedder: Embedder
    config: IngestConfig
    progress: Progress

    def write(
        self,
        source_id: str,
        item: Prepared,
        contexts: list[ChunkContext],
        enrichments: list[Enrichment],
        report: IndexReport,
        total: int,
        done_before: int,
    ) -> None:
        """One document's new chunks embedded (unchanged ones reuse their vectors) and stored in place of its
        old ones; its record says it is indexed."""
        tags = as_tags(item.doc.metadata.get("tags"))
        embed_text, code_embed_text = self.config.embed_text, self.config.code_embed_text
        new_chunks = [
            stored_chunk(
                source_id, item, d, ctx, e, tags, embedding_text(item, d, ctx, e, embed_text, code_embed_text)
            )
            for d, ctx, e in zip(item.drafts, contexts, enrichments, strict=True)
        ]

        old = self.chunks.document_chunks(item.record.document_id)
        before = old + (self.chunks.document_chunks(item.twin) if item.twin else [])
        self._vectors(item, new_chunks, before, report, total, done_before)
        if self.config.quote_vectors:
            self._embed_quotes(new_chunks, before)
        self._replace(new_chunks, old)
        record = item.record
        record.status, record.error = "indexed", None
        record.lang, record.chunk_count, record.updated_at = item.lang, len(new_chunks), time.time()
        self.chunks.put_document(record)
        report.chunks_written += len(new_chunks)
        if item.is_update:
            report.updated += 1
        else:
            report.added += 1

    def _vectors(
        self,
        item: Prepared,
        new_chunks: list[StoredChunk],
        old: list[StoredChunk],
        report: IndexReport,
        total: int,
        done_before: int,
    ) -> None:
        """Each new chunk's vector: the old one when its embedded text is unchanged, else embedded now."""
        old_vectors = self.index.get_vectors([c.chunk_id for c in old])
        reusable = {
            sha256(c.embedding_text): old_vectors[c.chunk_id] for c in old if c.chunk_id in old_vectors
        }
        todo = [c for c in new_chunks if sha256(c.embedding_text) not in reusable]
        for c in new_chunks:
            if c.vector is None and sha256(c.embedding_text) in reusable:
                c.vector = reusable[sha256(c.embedding_text)].tolist()
                report.chunks_reused += 1
        for start in range(0, len(todo), 16):
            batch = todo[start : start + 16]
            vectors = self.embedder.embed_documents([c.embedding_text for c in batch])
            for c, v in zip(batch, vectors, strict=True):
                c.vector = v.tolist()
            report.chunks_embedded += len(batch)
            self.progress("embed", done_before + start + len(batch), total, item.key)

    def _replace(self, new_chunks: list[StoredChunk], old: list[StoredChunk]) -> None:
        """New version first, then retire the old one: the document is never missing from search."""
        keep = {c.chunk_id for c in new_chunks}
        fresh = [cid for cid in keep if cid not in {c.chunk_id for c in old}]
        try:
            self.chunks.put_chunks(new_chunks)
            self.index.upsert_chunks(new_chunks, self.embedder.space)
        except Exception:
            # half-way: take the new version's chunks back out, the previous version stays as it was
            with contextlib.suppress(Exception):
                self.index.delete_chunks(fresh)
                self.chunks.delete_chunks(fresh)
            raise
        stale = [c.chunk_id for c in old if c.chunk_id not in keep]
        if stale:
            self.index.delete_chunks(stale)
            self.chunks.delete_chunks(stale)

    def _embed_quotes(self, new_chunks: list[StoredChunk], old: list[StoredChunk]) -> None:
        """Vectors for what an answer may quote from each chunk; an unchanged chunk keeps the ones it had."""
        space = quote_space(self.embedder.space.model_id)
        previous = {_quote_key(c): c.quote_vectors for c in old if c.quote_vectors and c.quote_space == space}
        todo: list[tuple[StoredChunk, list[str]]] = []
        for c in new_chunks:
            if _quote_key(c) in previous:
                c.quote_vectors, c.quote_space = previous[_quote_key(c)], space
            else:
                todo.append((c, scoring_texts(c.section_title, c.kind, c.content)))
        texts = [t for _, chunk_texts in todo for t in chunk_texts]
        vectors = self.embedder.embed_documents(texts) if texts else None
        at = 0
        for c, chunk_texts in todo:
            if chunk_texts and vectors is not None:
                c.quote_vectors = encode_vectors(vectors[at : at + len(chunk_texts)])
                c.quote_space = space
            at += len(chunk_texts)


class Twins:
    """A source's indexed documents by content hash, read once per run when a new document first asks: the
    same bytes under another key are a renamed (or copied) file, whose vectors need not be computed again."""

    def __init__(self, chunks: ChunkStore, source_id: str, *, looked_for: bool = True) -> None:
        """``looked_for=False``: no twins (the manifest is the source's whole size; one S3 event reads only
        its own record, so that its cost does not grow with its source)."""
        self.chunks, self.source_id, self.looked_for = chunks, source_id, looked_for
        self._by_hash: dict[str, str] | None = None

    def find(self, prepared: list[Prepared]) -> None:
        """Each new document's twin (``Prepared.twin``)."""
        for item in prepared:
            item.twin = self.of(item)

    def of(self, item: Prepared) -> str | None:
        """The document id of ``item``'s twin, or None (an update reuses its own vectors)."""
        if not self.looked_for or item.is_update or not item.record.content_hash:
            return None
        if self._by_hash is None:
            self._by_hash = {
                r.content_hash: r.document_id
                for r in self.chunks.list_documents(self.source_id)
                if r.status == "indexed" and r.content_hash and r.chunk_count
            }
        twin = self._by_hash.get(item.record.content_hash)
        return twin if twin != item.record.document_id else None


def _quote_key(chunk: StoredChunk) -> str:
    return sha256(f"{chunk.kind}\n{chunk.section_title}\n{chunk.content}".encode())
