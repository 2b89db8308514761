"""What a document's drafts become when stored: each chunk's context for the enrichers, what its vector sees,
and the stored chunk with its location, language, tags and link."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from chalicelib.chunking import chunk_document
from chalicelib.config.ingest import IngestConfig
from chalicelib.enrichment.embedding_text import for_code, for_embedding
from chalicelib.enrichment.heuristic import ChunkContext
from chalicelib.errors import ExtractionError
from chalicelib.extraction.code_context import comments
from chalicelib.extraction.dispatch import extract
from chalicelib.extraction.html import safe_url
from chalicelib.ids import sha256
from chalicelib.language_id import detect
from chalicelib.models.extraction import ChunkDraft, ExtractedDocument
from chalicelib.models.records import DocumentRecord, Enrichment, StoredChunk

MIN_PROSE_WORDS = 8  # fewer words than this do not tell a language


@dataclass
class Prepared:
    """A document read and cut, before enrichment."""

    key: str
    record: DocumentRecord
    doc: ExtractedDocument
    drafts: list[ChunkDraft]
    lang: str
    is_update: bool
    readers: tuple[str, ...] = ()  # who may read it (chalicelib.access.principals)
    # an indexed document of the source with the same bytes under another key (a renamed or copied file):
    # its chunks' vectors are reused where the embedded text is the same
    twin: str | None = None


def context(item: Prepared, draft: ChunkDraft, languages: tuple[str, ...]) -> ChunkContext:
    """What the enrichers read of a draft: its text, titles, language, category, product, type."""
    meta = item.doc.metadata
    code = item.doc.format == "code"
    programming = _programming_language(item.doc)
    return ChunkContext(
        text=_chunk_text(item.doc, draft),
        # code is titled by its path; its heuristic enrichment speaks of the file by name ("What is x.py?")
        title=PurePosixPath(item.key).name if code else item.doc.title,
        section=draft.heading_path[-1] if draft.heading_path else item.doc.title,
        lang=_chunk_lang(comments(draft.text, programming) if code else draft.text, item.lang, languages),
        key=item.key,
        category=str(meta.get("category") or _category_from_key(item.key)),
        product=_opt_str(meta.get("product")),
        content_type=_opt_str(meta.get("content_type")) or ("reference" if code else None),
        situation=" ".join(draft.context),
        code_language=programming,
    )


def embedding_text(
    item: Prepared,
    draft: ChunkDraft,
    ctx: ChunkContext,
    enrichment: Enrichment,
    embed_text: str,
    code_embed_text: str,
) -> str:
    """What the chunk's dense vector sees (enrichment.embedding_text)."""
    if item.doc.format == "code":
        return for_code(
            code_embed_text,
            item.key,
            ctx.category,
            list(draft.heading_path),
            enrichment,
            ctx.text,
        )
    return for_embedding(
        embed_text,
        item.doc.title,
        ctx.category,
        list(draft.heading_path),
        enrichment,
        ctx.text,
    )


def stored_chunk(
    source_id: str,
    item: Prepared,
    draft: ChunkDraft,
    ctx: ChunkContext,
    enrichment: Enrichment,
    tags: list[str],
    embedded: str,
) -> StoredChunk:
    """The chunk as stored (``embedded``: what its vector sees)."""
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
        embedding_text=embedded,
        enrichment=enrichment,
        lang=lang,
        product=enrichment.product,
        content_type=enrichment.content_type,
        category=category,
        tags=tags,
        readers=list(item.readers),
        url=_url(meta, draft),
        **_location(item.doc, draft),
        anchors=list(draft.anchors),
        kind="code" if item.doc.format == "code" else "doc",
        critical=critical,
        hard_cut=draft.hard_cut,
        content_hash=sha256(ctx.text),
    )


def cut(key: str, data: bytes, config: IngestConfig) -> tuple[ExtractedDocument, list[ChunkDraft]]:
    """A file's bytes extracted and cut into chunk drafts (none: an ExtractionError)."""
    doc = extract(
        key,
        data,
        max_bytes=config.max_file_bytes,
        max_document_bytes=config.max_document_bytes,
        max_pdf_pages=config.max_pdf_pages,
    )
    drafts = chunk_document(doc, config.chunking)
    if not drafts:
        raise ExtractionError("no chunks after chunking")
    return doc, drafts


def language(doc: ExtractedDocument, supported: tuple[str, ...]) -> str:
    """The text's language; a PDF's or Office file's own language tag only when the text does not tell (the
    tag is usually the authoring tool's locale, not the document's: LibreOffice writes en-US by default).
    Code is in the language of its comments when they say enough, else read whole."""
    said = comments(doc.source or doc.text, _programming_language(doc)) if doc.format == "code" else ""
    if len(said.split()) >= MIN_PROSE_WORDS:
        found = detect(said, supported)
    else:
        found = detect(_dedent(doc.text) if doc.format == "code" else _words_of(doc.text), supported)
    declared = str(doc.metadata.get("declared_lang") or "")
    if declared in supported and found.confidence < 0.5:
        return declared
    return found.namespace(supported)


def _programming_language(doc: ExtractedDocument) -> str:
    """A code document's programming language (extraction.code); empty for any other document."""
    return str(doc.metadata.get("language") or "") if doc.format == "code" else ""


def _words_of(text: str) -> str:
    """A document's text as its chunks' language is read, without Markdown markup: a spreadsheet's table rules
    and pipes read as no language ("| Empaste | 60 | 30 |" was English at 0.09; its words are Spanish at 0.84)."""
    from chalicelib.enrichment.heuristic import prose

    body = prose(text)
    return body if len(body.split()) >= MIN_PROSE_WORDS else text


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


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "yes", "1", "si", "sí")


def _chunk_lang(text: str, doc_lang: str, languages: tuple[str, ...]) -> str:
    """A chunk keeps its document's language unless it clearly is in another one (mixed documents; code
    whose comments are: ``text`` is then only what they say, since identifiers and string literals read as
    any language)."""
    from chalicelib.enrichment.heuristic import prose

    body = prose(text)
    if len(body.split()) < MIN_PROSE_WORDS:
        return doc_lang
    found = detect(body, languages)
    if found.confidence >= 0.8 and found.lang and found.namespace(languages) != doc_lang:
        return found.namespace(languages)
    return doc_lang


def _category_from_key(key: str) -> str:
    parts = key.split("/")
    return parts[0].replace("-", " ").replace("_", " ").title() if len(parts) > 1 else ""


def as_tags(value: Any) -> list[str]:
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
