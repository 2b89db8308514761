"""Ingest: files -> extract -> chunk -> language -> enrich -> embed -> chunk store + vector index."""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from chalicelib.chunking import ChunkingConfig, chunk_document
from chalicelib.enrichment.embedding_text import for_code, for_embedding
from chalicelib.enrichment.heuristic import ChunkContext, CorpusStats, HeuristicEnricher
from chalicelib.enrichment.llm import LLMEnricher
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.errors import EmbeddingModelMismatch, ExtractionError, NotIndexed
from chalicelib.extraction.dispatch import BINARY, extract
from chalicelib.extraction.html import safe_url
from chalicelib.ids import document_id, sha256
from chalicelib.language import detect
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.extraction import ChunkDraft, ExtractedDocument
from chalicelib.models.records import DocumentRecord, Enrichment, StoredChunk
from chalicelib.pipelines.folder import list_folder
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.quotes import encode_vectors, quote_space, scoring_texts

log = logging.getLogger("sabio.ingest")

Progress = Callable[[str, int, int, str], None]


def _quiet(stage: str, done: int, total: int, detail: str) -> None:
    return None


@dataclass
class IndexReport:
    source_id: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # indexed, with something the user should know
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_deleted: int = 0
    enriched: dict[str, int] = field(default_factory=dict)  # heuristic / llm / fallback
    llm_requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed


@dataclass
class _Counts:
    done: int = 0
    total: int = 0


def _add_time(report: IndexReport, stage: str, since: float) -> None:
    report.timings[stage] = report.timings.get(stage, 0.0) + time.perf_counter() - since


@dataclass
class _Prepared:
    key: str
    record: DocumentRecord
    doc: ExtractedDocument
    drafts: list[ChunkDraft]
    lang: str
    is_update: bool


@dataclass
class IngestConfig:
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    max_file_bytes: int = 5_000_000
    max_document_bytes: int = 30_000_000  # PDF and Office files
    max_pdf_pages: int = 1000
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    # what the dense vector sees (enrichment.embedding_text.for_embedding); the enrichment always feeds BM25
    embed_text: str = "raw"
    # what a code chunk's vector sees (enrichment.embedding_text.for_code): measured on the code-question set
    code_embed_text: str = "path"
    # embed each chunk's quotable sentences too (chalicelib.quotes): answers then embed only the question
    quote_vectors: bool = True
    # documents read, enriched and written together: what a run holds in memory at once
    batch_documents: int = 32


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
        self.progress = progress or _quiet

    # ------------------------------------------------------------------ entry points
    def index_folder(self, root: str | Path, source_id: str, *, delete_missing: bool = True) -> IndexReport:
        root = Path(root)
        if not root.is_dir():
            raise ExtractionError(f"not a folder: {root}")
        listing = list_folder(root)
        objects = [(k, functools.partial((root / k).read_bytes)) for k in listing.keys]
        report = self.index_objects(
            source_id, objects, delete_missing=delete_missing, keep_under=listing.unreadable
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
    ) -> IndexReport:
        """Index (key, loader) pairs of one source; with ``delete_missing`` the rest of the source goes,
        except what lies under a ``keep_under`` prefix (a folder that could not be read this time).

        ``metadata`` (per key, e.g. S3 object metadata) fills what the file's own front matter leaves out.
        """
        started = time.perf_counter()
        report = IndexReport(source_id)
        objects = list(objects)  # (key, loader): the bytes are read one batch at a time
        size = max(1, self.config.batch_documents)
        counts = _Counts()
        for first in range(0, len(objects), size):
            # a batch of documents goes all the way to the store before the next is read: memory holds one
            # batch, however large the folder or bucket
            t0 = time.perf_counter()
            batch = objects[first : first + size]
            prepared = self._prepare_all(source_id, batch, report, metadata or {}, first, len(objects))
            _add_time(report, "extract_chunk_s", t0)
            contexts, enrichments = self._enrich_all(source_id, prepared, report)
            self._write_all(source_id, prepared, contexts, enrichments, report, counts)
        if delete_missing:
            self._delete_missing(source_id, {key for key, _ in objects}, keep_under, report)
        report.seconds = time.perf_counter() - started
        return report

    def _prepare_all(
        self,
        source_id: str,
        objects: list[tuple[str, Callable[[], bytes]]],
        report: IndexReport,
        metadata: dict[str, dict[str, str]],
        offset: int,
        total: int,
    ) -> list[_Prepared]:
        """Read and cut one batch; ``offset`` and ``total`` place it in the run (the progress bar)."""
        prepared: list[_Prepared] = []
        for i, (key, load) in enumerate(objects, start=offset + 1):
            self.progress("read", i, total, key)
            item = self._prepare(source_id, key, load, report, metadata.get(key, {}))
            if item is not None:
                prepared.append(item)
        return prepared

    def _enrich_all(
        self, source_id: str, prepared: list[_Prepared], report: IndexReport
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
        contexts = [[self._context(item, d) for d in item.drafts] for item in prepared]
        enrichments = self._enrich(contexts, heuristic, report)
        _add_time(report, "enrich_s", t0)
        return contexts, enrichments

    def _write_all(
        self,
        source_id: str,
        prepared: list[_Prepared],
        contexts: list[list[ChunkContext]],
        enrichments: list[list[Enrichment]],
        report: IndexReport,
        counts: _Counts,
    ) -> None:
        """Embed and store a batch; ``counts`` carries the run's chunk counts for the progress bar."""
        counts.total += sum(len(p.drafts) for p in prepared)
        total = counts.total
        for item, ctxs, enriched in zip(prepared, contexts, enrichments, strict=True):
            done = counts.done
            try:
                self._write(source_id, item, ctxs, enriched, report, total, done)
            except EmbeddingModelMismatch:
                raise
            except Exception as exc:  # one document's failure never stops the run
                report.failed.append((item.key, f"indexing failed: {exc!r}"))
                self._record_failure(item.record, str(exc))
                log.exception("indexing %s/%s failed", source_id, item.key)
            counts.done += len(item.drafts)
            self.progress("embed", counts.done, total, item.key)

    def _delete_missing(
        self, source_id: str, seen: set[str], keep_under: list[str] | None, report: IndexReport
    ) -> None:
        for record in self.chunks.list_documents(source_id):
            if record.key not in seen and record.status != "deleted" and not _under(record.key, keep_under):
                report.chunks_deleted += record.chunk_count
                self.delete(source_id, record.key)
                report.deleted += 1

    def delete(self, source_id: str, key: str) -> bool:
        record = self.chunks.get_document(source_id, key)
        if record is None:
            return False
        ids = [c.chunk_id for c in self.chunks.document_chunks(record.document_id)]
        self.index.delete_chunks(ids)
        self.chunks.delete_document(record.document_id)
        return True

    # ------------------------------------------------------------------ steps
    def _prepare(
        self,
        source_id: str,
        key: str,
        load: Callable[[], bytes],
        report: IndexReport,
        extra: dict[str, str] | None = None,
    ) -> _Prepared | None:
        existing = self.chunks.get_document(source_id, key)
        record = (
            existing.model_copy()
            if existing
            else DocumentRecord(document_id=document_id(source_id, key), source_id=source_id, key=key)
        )
        read = self._read(key, load, record, existing, report)
        if read is None:
            return None
        doc, drafts, content_hash = read
        record.content_hash = content_hash
        for name, value in (extra or {}).items():
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
        lang = str(doc.metadata.get("lang") or "") or _language(doc, self.config.languages)
        if doc.metadata.get("product"):
            self.vocabulary.learn_product(str(doc.metadata["product"]))
        return _Prepared(key, record, doc, drafts, lang, existing is not None and existing.chunk_count > 0)

    def _read(
        self,
        key: str,
        load: Callable[[], bytes],
        record: DocumentRecord,
        existing: DocumentRecord | None,
        report: IndexReport,
    ) -> tuple[ExtractedDocument, list[ChunkDraft], str] | None:
        """The object extracted and cut; None when it is unchanged, or failed (recorded, with the reason)."""
        try:
            data = load()
            content_hash = sha256(data)
            if (
                existing
                and existing.status == "indexed"
                and existing.content_hash == content_hash
                and not self._lacks_quote_vectors(existing)
            ):
                report.unchanged += 1
                return None
            doc = extract(
                key,
                data,
                max_bytes=self.config.max_file_bytes,
                max_document_bytes=self.config.max_document_bytes,
                max_pdf_pages=self.config.max_pdf_pages,
            )
            drafts = chunk_document(doc, self.config.chunking)
            if not drafts:
                raise ExtractionError("no chunks after chunking")
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
            missing = doc.metadata.get("pages_without_text")
            if missing:
                pages = ", ".join(str(p) for p in missing)
                report.notes.append(
                    (
                        key,
                        f"pages {pages} have no text layer and were not read: needs OCR (install Tesseract)",
                    )
                )
            return doc, drafts, content_hash
        report.failed.append((key, reason))
        self._record_failure(record, reason)
        return None

    def _lacks_quote_vectors(self, record: DocumentRecord) -> bool:
        """Indexed before quote vectors existed, or with another model or version of the quotable units:
        worth one more pass (chunk vectors are reused)."""
        if not self.config.quote_vectors:
            return False
        space = quote_space(self.embedder.space.model_id)
        return any(
            c.quote_space != space and scoring_texts(c.section_title, c.kind, c.content)
            for c in self.chunks.document_chunks(record.document_id)
        )

    def _record_failure(self, record: DocumentRecord, reason: str) -> None:
        """Keep whatever was indexed before (still searchable) and say why the new content failed."""
        record.status = "failed"
        record.error = reason
        record.updated_at = time.time()
        self.chunks.put_document(record)

    def _write(
        self,
        source_id: str,
        item: _Prepared,
        contexts: list[ChunkContext],
        enrichments: list[Enrichment],
        report: IndexReport,
        total: int,
        done_before: int,
    ) -> None:
        tags = _as_tags(item.doc.metadata.get("tags"))
        new_chunks = [
            self._chunk(source_id, item, d, ctx, e, tags)
            for d, ctx, e in zip(item.drafts, contexts, enrichments, strict=True)
        ]

        old = self.chunks.document_chunks(item.record.document_id)
        self._vectors(item, new_chunks, old, report, total, done_before)
        if self.config.quote_vectors:
            self._embed_quotes(new_chunks, old)
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
        item: _Prepared,
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

    def _context(self, item: _Prepared, draft: ChunkDraft) -> ChunkContext:
        meta = item.doc.metadata
        code = item.doc.format == "code"
        return ChunkContext(
            text=_chunk_text(item.doc, draft),
            # code is titled by its path; its heuristic enrichment speaks of the file by name ("What is x.py?")
            title=PurePosixPath(item.key).name if code else item.doc.title,
            section=draft.heading_path[-1] if draft.heading_path else item.doc.title,
            lang=_chunk_lang(_dedent(draft.text) if code else draft.text, item.lang, self.config.languages),
            key=item.key,
            category=str(meta.get("category") or _category_from_key(item.key)),
            product=_opt_str(meta.get("product")),
            content_type=_opt_str(meta.get("content_type")) or ("reference" if code else None),
        )

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
        for e in results:
            key = "fallback" if e.fallback_reason else ("llm" if e.source == "llm" else "heuristic")
            report.enriched[key] = report.enriched.get(key, 0) + 1
        out: list[list[Enrichment]] = []
        for group in contexts:
            out.append(results[: len(group)])
            results = results[len(group) :]
        return out

    def _embedding_text(
        self, item: _Prepared, draft: ChunkDraft, ctx: ChunkContext, enrichment: Enrichment
    ) -> str:
        if item.doc.format == "code":
            return for_code(
                self.config.code_embed_text,
                item.key,
                ctx.category,
                list(draft.heading_path),
                enrichment,
                ctx.text,
            )
        return for_embedding(
            self.config.embed_text,
            item.doc.title,
            ctx.category,
            list(draft.heading_path),
            enrichment,
            ctx.text,
        )

    def _chunk(
        self,
        source_id: str,
        item: _Prepared,
        draft: ChunkDraft,
        ctx: ChunkContext,
        enrichment: Enrichment,
        tags: list[str],
    ) -> StoredChunk:
        meta = item.doc.metadata
        lang, section, category = ctx.lang, ctx.section, ctx.category
        doc_id = item.record.document_id
        critical = _truthy(meta.get("critical")) or "critical" in {t.lower() for t in tags}
        return StoredChunk(
            chunk_id=f"{doc_id}:{draft.ord:04d}:{sha256(draft.text)[:10]}",
            document_id=doc_id,
            source_id=source_id,
            key=item.key,
            ord=draft.ord,
            title=item.doc.title,
            section_title=section,
            heading_path=list(draft.heading_path),
            content=ctx.text,
            embedding_text=self._embedding_text(item, draft, ctx, enrichment),
            enrichment=enrichment,
            lang=lang,
            product=enrichment.product,
            content_type=enrichment.content_type,
            category=category,
            tags=tags,
            url=_url(meta, draft),
            **_location(item.doc, draft),
            anchors=list(draft.anchors),
            kind="code" if item.doc.format == "code" else "doc",
            critical=critical,
            hard_cut=draft.hard_cut,
            content_hash=sha256(ctx.text),
        )


def _language(doc: ExtractedDocument, supported: tuple[str, ...]) -> str:
    """The text's language; a PDF's or Office file's own language tag only when the text does not tell (the
    tag is usually the authoring tool's locale, not the document's: LibreOffice writes en-US by default)."""
    found = detect(_dedent(doc.text) if doc.format == "code" else doc.text, supported)
    declared = str(doc.metadata.get("declared_lang") or "")
    if declared in supported and found.confidence < 0.5:
        return declared
    return found.namespace(supported)


def _dedent(text: str) -> str:
    """Code without its indentation: language detection reads indented lines as Markdown code blocks and
    drops them, and a code file's comments and docstrings are indented."""
    return "\n".join(line.strip() for line in text.split("\n"))


def _location(doc: ExtractedDocument, draft: ChunkDraft) -> dict[str, Any]:
    """The draft's range in the document's own unit: lines, pages, slides, or a sheet's rows."""
    start, end = draft.line_start, draft.line_end
    if doc.unit == "page":
        return {"page_start": start, "page_end": end}
    if doc.unit == "slide":
        return {"slide_start": start, "slide_end": end}
    if doc.unit == "row":
        return {
            "sheet": draft.heading_path[0] if draft.heading_path else None,
            "row_start": start,
            "row_end": end,
        }
    if doc.unit == "none":
        return {}
    return {"line_start": start, "line_end": end}


def _chunk_text(doc: ExtractedDocument, draft: ChunkDraft) -> str:
    """A code chunk is exactly its lines of the file, so a cited line range always holds the cited text."""
    if doc.format == "code" and doc.source is not None:
        lines = doc.source.split("\n")
        return "\n".join(lines[draft.line_start - 1 : draft.line_end])
    return draft.text


def _under(key: str, folders: list[str] | None) -> bool:
    return any(folder == "" or key.startswith(folder + "/") for folder in folders or ())


def _quote_key(chunk: StoredChunk) -> str:
    return sha256(f"{chunk.kind}\n{chunk.section_title}\n{chunk.content}".encode())


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "yes", "1", "si", "sí")


def _chunk_lang(text: str, doc_lang: str, languages: tuple[str, ...]) -> str:
    """A chunk keeps its document's language unless it clearly is in another one (mixed documents)."""
    from chalicelib.enrichment.heuristic import prose

    body = prose(text)
    if len(body.split()) < 8:
        return doc_lang
    found = detect(body, languages)
    if found.confidence >= 0.8 and found.lang and found.namespace(languages) != doc_lang:
        return found.namespace(languages)
    return doc_lang


def _category_from_key(key: str) -> str:
    parts = key.split("/")
    return parts[0].replace("-", " ").replace("_", " ").title() if len(parts) > 1 else ""


def _as_tags(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    return [str(t) for t in value]


def _opt_str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _url(meta: dict[str, Any], draft: ChunkDraft) -> str | None:
    url = safe_url(meta.get("url"))  # front matter and S3 metadata too: a javascript: link is never kept
    if not url:
        return None
    return f"{url}#{draft.anchors[0]}" if draft.anchors else str(url)
