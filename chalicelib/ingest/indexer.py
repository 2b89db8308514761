"""Ingest: files -> extract -> chunk -> language -> enrich -> embed -> chunk store + vector index. The chunk
records are made in chunk_records.py and written in chunk_writing.py; this module reads, cuts and enriches
a run's documents, batch by batch, and deletes what is gone."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from chalicelib.access import principals
from chalicelib.config.ingest import IngestConfig
from chalicelib.enrichment.heuristic import ChunkContext, CorpusStats, HeuristicEnricher
from chalicelib.enrichment.llm import LLMEnricher
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.errors import EmbeddingModelMismatch, ExtractionError, NotIndexed
from chalicelib.extraction.code import language_for
from chalicelib.extraction.dispatch import BINARY
from chalicelib.ids import document_id, sha256
from chalicelib.ingest import deletion_guard, document_readers
from chalicelib.ingest.chunk_records import Prepared, context, cut, language
from chalicelib.ingest.chunk_writing import ChunkWriter, Twins
from chalicelib.ingest.config import Counts, IndexReport, Progress, add_time, quiet
from chalicelib.ingest.folder_walk import folder, list_folder
from chalicelib.models.extraction import ChunkDraft, ExtractedDocument
from chalicelib.models.records import DocumentRecord, Enrichment
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.quotes import quote_space, scoring_texts

__all__ = ["IndexReport", "IngestConfig", "Ingestor", "Progress"]

log = logging.getLogger("sabio.ingest")


class Ingestor:
    def __init__(
        self,
        chunks: ChunkStore,
        index: VectorIndex,
        embedder: Embedder,
        vocabulary: Vocabulary,
        config: IngestConfig | None = None,
        progress: Progress | None = None,
        llm_enricher: LLMEnricher | None = None,
    ) -> None:
        self.llm_enricher = llm_enricher
        self.chunks = chunks
        self.index = index
        self.embedder = embedder
        self.vocabulary = vocabulary
        self.config = config or IngestConfig()
        self.progress = progress or quiet
        self.writer = ChunkWriter(chunks, index, embedder, self.config, self.progress)
        self._stored_products_learned = False

    # ------------------------------------------------------------------ entry points

    def index_folder(
        self,
        root: str | Path,
        source_id: str,
        *,
        delete_missing: bool = True,
        confirm_deletions: bool = False,
    ) -> IndexReport:
        root = folder(root)
        listing = list_folder(root)
        objects = [(k, functools.partial((root / k).read_bytes)) for k in listing.keys]
        report = self.index_objects(
            source_id,
            objects,
            metadata=principals.folder_readers(root, listing.keys),
            delete_missing=delete_missing,
            keep_under=listing.unreadable,
            confirm_deletions=confirm_deletions,
        )
        report.skipped[:0] = listing.skipped
        return report

    def index_objects(
        self,
        source_id: str,
        objects: Iterable[tuple[str, Callable[[], bytes]]],
        *,
        delete_missing: bool = False,
        metadata: dict[str, dict[str, str]] | None = None,
        keep_under: list[str] | None = None,
        confirm_deletions: bool = False,
        one_event: bool = False,
    ) -> IndexReport:
        """Index (key, loader) pairs of one source; with ``delete_missing`` the rest of the source goes,
        except what lies under a ``keep_under`` prefix (a folder that could not be read this time), and
        unless that is too much of the source at once (``held``; ``confirm_deletions`` applies it).
        ``metadata`` (per key, e.g. S3 object metadata) fills what the file's own front matter leaves out;
        a new key with the bytes of one indexed before (a renamed file) reuses its vectors (``Twins``), and
        the products the store already holds name a chunk's product as they did when it was first indexed.
        ``one_event`` (one S3 event) reads nothing of the store but its own document's record."""
        started = time.perf_counter()
        report = IndexReport(source_id)
        objects = list(objects)  # (key, loader): the bytes are read one batch at a time
        size = max(1, self.config.batch_documents)
        counts, renamed = Counts(), Twins(self.chunks, source_id, looked_for=not one_event)
        for first in range(0, len(objects), size):
            # a batch of documents goes all the way to the store before the next is read: memory holds one
            # batch, however large the folder or bucket
            t0 = time.perf_counter()
            batch = objects[first : first + size]
            prepared = self._prepare_all(source_id, batch, report, metadata or {}, first, len(objects))
            renamed.find(prepared)
            if prepared and not one_event:
                self._learn_stored_products()
            add_time(report, "extract_chunk_s", t0)
            contexts, enrichments = self._enrich_all(source_id, prepared, report)
            self._write_all(source_id, prepared, contexts, enrichments, report, counts)
        if delete_missing:
            seen = {key for key, _ in objects}
            self._delete_missing(source_id, seen, keep_under, report, confirm_deletions)
        report.seconds = time.perf_counter() - started
        return report

    def _learn_stored_products(self) -> None:
        """Once per ingestor, before the first document it enriches: a product that a document's front
        matter named is known when another document is read alone (a code file changed since, with its
        product's pages unchanged, keeps the product a run over the whole folder gave it)."""
        if not self._stored_products_learned:
            self._stored_products_learned = True
            for product in self.chunks.stats().by_product:
                self.vocabulary.learn_product(product)

    def _prepare_all(
        self,
        source_id: str,
        objects: list[tuple[str, Callable[[], bytes]]],
        report: IndexReport,
        metadata: dict[str, dict[str, str]],
        offset: int,
        total: int,
    ) -> list[Prepared]:
        """Read and cut one batch; ``offset`` and ``total`` place it in the run (the progress bar)."""
        prepared: list[Prepared] = []
        for i, (key, load) in enumerate(objects, start=offset + 1):
            self.progress("read", i, total, key)
            item = self._prepare(source_id, key, load, report, metadata.get(key, {}))
            if item is not None:
                prepared.append(item)
        return prepared

    def _enrich_all(
        self, source_id: str, prepared: list[Prepared], report: IndexReport
    ) -> tuple[list[list[ChunkContext]], list[list[Enrichment]]]:
        """Every chunk's context and enrichment. Heuristic keywords weigh terms against the language at large
        and their own document, never the rest of the source: a chunk's enrichment does not depend on what
        was indexed before it, and one S3 event reads nothing but its own document's record."""
        t0 = time.perf_counter()
        documents: dict[str, CorpusStats] = {}
        for item in prepared:
            stats = documents[item.key] = CorpusStats()
            for draft in item.drafts:
                stats.add(draft.text, item.lang)
        heuristic = HeuristicEnricher(self.vocabulary, documents)
        contexts = [[context(item, d, self.config.languages) for d in item.drafts] for item in prepared]
        enrichments = self._enrich(contexts, heuristic, report)
        add_time(report, "enrich_s", t0)
        return contexts, enrichments

    def _write_all(
        self,
        source_id: str,
        prepared: list[Prepared],
        contexts: list[list[ChunkContext]],
        enrichments: list[list[Enrichment]],
        report: IndexReport,
        counts: Counts,
    ) -> None:
        """Embed and store a batch; ``counts`` carries the run's chunk counts for the progress bar."""
        counts.total += sum(len(p.drafts) for p in prepared)
        total = counts.total
        for item, ctxs, enriched in zip(prepared, contexts, enrichments, strict=True):
            done = counts.done
            try:
                self.writer.write(source_id, item, ctxs, enriched, report, total, done)
            except EmbeddingModelMismatch:
                raise
            except Exception as exc:  # one document's failure never stops the run
                report.failed.append((item.key, f"indexing failed: {exc!r}"))
                _record_failure(self.chunks, item.record, str(exc))
                log.exception("indexing %s/%s failed", source_id, item.key)
            counts.done += len(item.drafts)
            self.progress("embed", counts.done, total, item.key)

    def _delete_missing(
        self,
        source_id: str,
        seen: set[str],
        keep_under: list[str] | None,
        report: IndexReport,
        confirmed: bool,
    ) -> None:
        gone = deletion_guard.to_delete(
            self.chunks, source_id, seen, keep_under, self.config, confirmed, report
        )
        deletion_guard.apply(gone, functools.partial(self.delete, source_id), report)

    def delete(self, source_id: str, key: str) -> bool:
        record = self.chunks.get_document(source_id, key)
        if record is None:
            return False
        ids = [c.chunk_id for c in self.chunks.document_chunks(record.document_id)]
        self.index.delete_chunks(ids)
        self.chunks.delete_document(record.document_id)
        return True

    def refresh_readers(self, record: DocumentRecord, beside: Mapping[str, str], report: IndexReport) -> bool:
        """An unchanged document given the readers its metadata, folder or source now name (in place)."""
        defaults = self._source_default(record.source_id)
        return document_readers.refresh(self.chunks, self.index, record, beside, defaults, report)

    def _source_default(self, source_id: str) -> tuple[str, ...]:
        """Who reads a document of ``source_id`` that names no readers (SABIO_SOURCE_READERS, else
        SABIO_DEFAULT_READERS)."""
        config = self.config
        return principals.Defaults.of(config.default_readers, config.source_readers).for_source(source_id)

    # ------------------------------------------------------------------ steps

    def _prepare(
        self,
        source_id: str,
        key: str,
        load: Callable[[], bytes],
        report: IndexReport,
        extra: dict[str, str] | None = None,
    ) -> Prepared | None:
        existing = self.chunks.get_document(source_id, key)
        record = (
            existing.model_copy()
            if existing
            else DocumentRecord(document_id=document_id(source_id, key), source_id=source_id, key=key)
        )
        beside = extra or {}
        read = self._read(key, load, record, existing, report, beside)
        if read is None:
            return None
        doc, drafts, content_hash = read
        record.content_hash = content_hash
        inside = principals.declared(doc.metadata)
        readers = principals.resolve(beside, inside, self._source_default(source_id))
        record.readers, record.declared_readers = list(readers), None if inside is None else list(inside)
        report.readers_for_no_one += not readers
        for name, value in beside.items():
            # S3 object metadata fills what front matter left out, and overrides what a PDF or Office file
            # says of itself (an authoring tool's defaults, rarely edited)
            if doc.format in BINARY:
                doc.metadata[name] = value
            else:
                doc.metadata.setdefault(name, value)
        title = (extra or {}).get("title")
        if doc.format in BINARY and title:
            doc.title = title
        record.title = doc.title
        lang = str(doc.metadata.get("lang") or "") or language(doc, self.config.languages)
        if doc.metadata.get("product"):
            self.vocabulary.learn_product(str(doc.metadata["product"]))
        is_update = existing is not None and existing.chunk_count > 0
        return Prepared(key, record, doc, drafts, lang, is_update, readers)

    def _read(
        self,
        key: str,
        load: Callable[[], bytes],
        record: DocumentRecord,
        existing: DocumentRecord | None,
        report: IndexReport,
        beside: Mapping[str, str],
    ) -> tuple[ExtractedDocument, list[ChunkDraft], str] | None:
        """The object extracted and cut; None when it is unchanged (its readers brought up to date), or
        failed (recorded, with the reason)."""
        try:
            data = load()
            content_hash = document_hash(key, data)
            if (
                existing
                and existing.status == "indexed"
                and existing.content_hash == content_hash
                and not _lacks_quote_vectors(self.chunks, self.config, self.embedder, existing)
            ):
                report.unchanged += 1
                self.refresh_readers(existing, beside, report)
                return None
            doc, drafts = cut(key, data, self.config)
        except NotIndexed as exc:  # binary, empty, too large, generated: named, not failed
            report.skipped.append((key, exc.message))
            return None
        except ExtractionError as exc:
            reason = exc.message
        except OSError as exc:  # unreadable file (permissions, vanished): what was indexed before stays
            reason = f"cannot read: {exc.strerror or exc}"
        except Exception as exc:  # a parser bug must not stop the run or lose other documents
            reason = f"unexpected error while reading: {exc!r}"
        else:
            _note_unread_pages(key, doc, report)
            return doc, drafts, content_hash
        report.failed.append((key, reason))
        _record_failure(self.chunks, record, reason)
        return None

    def _enrich(
        self, contexts: list[list[ChunkContext]], heuristic: HeuristicEnricher, report: IndexReport
    ) -> list[list[Enrichment]]:
        """Enrichment for every chunk of the run: the LLM when configured (concurrent, cached), else heuristic."""
        flat = [ctx for group in contexts for ctx in group]
        if self.llm_enricher is None:
            results = [heuristic.enrich(ctx) for ctx in flat]
        else:
            llm = self.llm_enricher
            before = llm.llm.usage.as_dict()
            results = llm.enrich_many(
                [(ctx, sha256(ctx.text)) for ctx in flat],
                heuristic,
                progress=lambda done: self.progress("enrich", done, len(flat), ""),
            )
            after = llm.llm.usage.as_dict()
            report.llm_requests += after["requests"] - before["requests"]
            report.tokens_in += after["prompt_tokens"] - before["prompt_tokens"]
            report.tokens_out += after["completion_tokens"] - before["completion_tokens"]
        return _counted_by_document(contexts, results, report)


def _counted_by_document(
    contexts: list[list[ChunkContext]], results: list[Enrichment], report: IndexReport
) -> list[list[Enrichment]]:
    """The run's enrichments counted by where they came from, and grouped again by document."""
    for e in results:
        key = "fallback" if e.fallback_reason else ("llm" if e.source == "llm" else "heuristic")
        report.enriched[key] = report.enriched.get(key, 0) + 1
    out: list[list[Enrichment]] = []
    for group in contexts:
        out.append(results[: len(group)])
        results = results[len(group) :]
    return out


def _note_unread_pages(key: str, doc: ExtractedDocument, report: IndexReport) -> None:
    missing = doc.metadata.get("pages_without_text")
    if missing:
        pages = ", ".join(str(p) for p in missing)
        report.notes.append(
            (key, f"pages {pages} have no text layer and were not read: needs OCR (install Tesseract)")
        )


# how code is cut, situated and given its language: a new value reads every code file again, once
CODE_CUT = b"\x00code-context-4"
# how a sheet is read (its caption rows apart from its header): a new value reads every sheet again, once
SHEET_CUT = b"\x00sheet-caption-1"
SHEETS = (".xlsx", ".csv")


def document_hash(key: str, data: bytes) -> str:
    """The file's content hash; a code file's and a sheet's also name how they are cut, so that a store
    indexed before reads its code files and sheets again on the next run (and nothing else)."""
    if language_for(key):
        return sha256(data + CODE_CUT)
    return sha256(data + SHEET_CUT) if key.lower().endswith(SHEETS) else sha256(data)


def _lacks_quote_vectors(
    chunks: ChunkStore, config: IngestConfig, embedder: Embedder, record: DocumentRecord
) -> bool:
    """Indexed before quote vectors existed, or with another model or version of the quotable units: worth
    one more pass (chunk vectors are reused)."""
    if not config.quote_vectors:
        return False
    space = quote_space(embedder.space.model_id)
    return any(
        c.quote_space != space and scoring_texts(c.section_title, c.kind, c.content)
        for c in chunks.document_chunks(record.document_id)
    )


def _record_failure(chunks: ChunkStore, record: DocumentRecord, reason: str) -> None:
    """Keep whatever was indexed before (still searchable) and say why the new content failed."""
    record.status = "failed"
    record.error = reason
    record.updated_at = time.time()
    chunks.put_document(record)
