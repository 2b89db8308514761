"""`sabio verify`: reconcile the manifest, the chunk store and the vector index; `--repair` fixes them."""

from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.access.principals import PUBLIC
from chalicelib.models.records import DocumentRecord, SearchFilters, StoredChunk
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex


@dataclass
class VerifyReport:
    documents: int = 0
    chunks: int = 0
    vectors: int = 0
    missing_vectors: list[str] = field(default_factory=list)  # chunk stored, no vector: unsearchable
    orphan_vectors: list[str] = field(default_factory=list)  # vector without a stored chunk: a dead hit
    orphan_chunks: list[str] = field(default_factory=list)  # chunk of no indexed document
    wrong_counts: list[str] = field(default_factory=list)  # manifest chunk_count != chunks stored
    # chunk whose readers (stored, or in the index) are not its document's: read by the wrong people
    wrong_readers: list[str] = field(default_factory=list)
    repaired: bool = False

    @property
    def ok(self) -> bool:
        return not (
            self.missing_vectors
            or self.orphan_vectors
            or self.orphan_chunks
            or self.wrong_counts
            or self.wrong_readers
        )


def verify(
    chunks: ChunkStore,
    index: VectorIndex,
    embedder: Embedder,
    *,
    source_id: str | None = None,
    repair: bool = False,
) -> VerifyReport:
    report = VerifyReport()
    documents = {d.document_id: d for d in chunks.list_documents(source_id) if d.status != "deleted"}
    stored = chunks.all_chunk_ids(source_id)  # chunk id -> document id
    indexed = index.chunk_ids(SearchFilters(source_ids=(source_id,) if source_id else None))
    report.documents, report.chunks, report.vectors = len(documents), len(stored), len(indexed)

    report.orphan_chunks = sorted(cid for cid, doc in stored.items() if doc not in documents)
    live = {cid for cid in stored if cid not in set(report.orphan_chunks)}
    report.missing_vectors = sorted(live - indexed)
    report.orphan_vectors = sorted(indexed - live)
    per_doc: dict[str, int] = {}
    for cid in live:
        per_doc[stored[cid]] = per_doc.get(stored[cid], 0) + 1
    report.wrong_counts = sorted(
        d for d, rec in documents.items() if rec.status == "indexed" and rec.chunk_count != per_doc.get(d, 0)
    )
    report.wrong_readers = wrong_readers(chunks, index, documents, source_id)
    if repair and not report.ok:
        _repair(chunks, index, embedder, report, documents, per_doc)
        report.repaired = True
    return report


def wrong_readers(
    chunks: ChunkStore, index: VectorIndex, documents: dict[str, DocumentRecord], source_id: str | None
) -> list[str]:
    """Chunks whose readers disagree with their document's: as stored, or as the index filters them (each
    document's readers must admit its chunks, and ``public`` must admit no chunk of a document that is not)."""
    wrong: set[str] = set()
    expected: dict[tuple[str, ...], set[str]] = {}
    for d in documents.values():
        if d.status != "indexed" or d.readers is None:
            continue
        readers = tuple(sorted(d.readers))
        for c in chunks.document_chunks(d.document_id):
            if tuple(sorted(c.readers)) != readers:
                wrong.add(c.chunk_id)
            expected.setdefault(readers, set()).add(c.chunk_id)
    sources = (source_id,) if source_id else None
    for readers, ids in expected.items():
        if readers:
            wrong |= ids - index.chunk_ids(SearchFilters(source_ids=sources, allowed_readers=readers))
    public = index.chunk_ids(SearchFilters(source_ids=sources, allowed_readers=(PUBLIC,)))
    for readers, ids in expected.items():
        if PUBLIC not in readers:
            wrong |= ids & public
    return sorted(wrong)


def _repair_readers(chunks: ChunkStore, index: VectorIndex, report: VerifyReport) -> None:
    """Each wrong chunk given its document's readers, in the index first (nothing embedded)."""
    by_document: dict[str, list[StoredChunk]] = {}
    for c in chunks.get_chunks(report.wrong_readers):
        by_document.setdefault(c.document_id, []).append(c)
    records = {d.document_id: d for d in chunks.list_documents()}
    for document_id, wrong in by_document.items():
        readers = list((records[document_id].readers or []) if document_id in records else [])
        index.set_readers([c.chunk_id for c in wrong], readers)
        chunks.put_chunks([c.model_copy(update={"readers": readers}) for c in wrong])


def _repair(
    chunks: ChunkStore,
    index: VectorIndex,
    embedder: Embedder,
    report: VerifyReport,
    documents: dict[str, DocumentRecord],
    per_doc: dict[str, int],
) -> None:
    if report.orphan_chunks:
        index.delete_chunks(report.orphan_chunks)
        chunks.delete_chunks(report.orphan_chunks)
    if report.orphan_vectors:
        index.delete_chunks(report.orphan_vectors)
    missing = chunks.get_chunks(report.missing_vectors)
    for start in range(0, len(missing), 16):
        batch = missing[start : start + 16]
        vectors = embedder.embed_documents([c.embedding_text for c in batch])
        for c, v in zip(batch, vectors, strict=True):
            c.vector = v.tolist()
        index.upsert_chunks(batch, embedder.space)
    for doc in report.wrong_counts:
        chunks.put_document(documents[doc].model_copy(update={"chunk_count": per_doc.get(doc, 0)}))
    if report.wrong_readers:
        _repair_readers(chunks, index, report)
