"""What the stores keep and search: chunks with their enrichment, the document manifest, search filters
and hits, and the embedding space a vector belongs to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

DocStatus = Literal[
    "indexed", "failed", "skipped", "deleted"
]  # deleted: a tombstone keeping the S3 sequencer


class Enrichment(BaseModel):
    """What an enricher (heuristic or LLM) says about a chunk; embedded with it and stored as JSON."""

    summary: str = ""
    keywords: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    # where the chunk sits, in words its lines do not hold: a code chunk's enclosing doc comments and its
    # file's purpose, or an LLM's situating sentence; embedded and keyword-indexed with the chunk
    context: str = ""
    product: str = "general"
    content_type: str = "overview"
    source: Literal["heuristic", "llm"] = "heuristic"
    model: str | None = None
    fallback_reason: str | None = None  # why the LLM's enrichment was not used
    notes: list[str] = Field(default_factory=list)  # corrections made to the LLM's reply


class Located(BaseModel):
    """Where a chunk (or a quote) sits in its file, in the file's own units: lines of text and code, pages of
    a PDF, slides of a deck, a sheet's rows. Only the units of the file's format are set."""

    line_start: int | None = Field(None, description="first line of the chunk in its file (1-based)")
    line_end: int | None = Field(None, description="last line of the chunk in its file (inclusive)")
    page_start: int | None = Field(None, description="PDF: first page (1-based)")
    page_end: int | None = Field(None, description="PDF: last page (inclusive)")
    slide_start: int | None = Field(None, description="slide deck: first slide (1-based)")
    slide_end: int | None = Field(None, description="slide deck: last slide (inclusive)")
    sheet: str | None = Field(None, description="spreadsheet: the sheet's name")
    row_start: int | None = Field(None, description="spreadsheet: first row, as the sheet numbers it")
    row_end: int | None = Field(None, description="spreadsheet: last row (inclusive)")

    def where(self) -> str:
        """Where it is, in words a reader uses: "p. 2-3", "slide 4", "sheet Precios, rows 2-40", "L10-24"."""

        def span(a: int | None, b: int | None) -> str:
            return f"{a}" if b in (None, a) else f"{a}-{b}"

        if self.page_start is not None:
            return f"p. {span(self.page_start, self.page_end)}"
        if self.slide_start is not None:
            return f"slide {span(self.slide_start, self.slide_end)}"
        if self.sheet is not None:
            return f"sheet {self.sheet}, rows {span(self.row_start, self.row_end)}"
        if self.line_start is not None:
            return f"L{span(self.line_start, self.line_end)}"
        return ""


LOCATION_FIELDS = tuple(Located.model_fields)


def location_of(located: Located) -> dict[str, Any]:
    return {name: getattr(located, name) for name in LOCATION_FIELDS}


class ChunkText(Located):
    """A chunk as its document holds it: which document of which source, its place, headings and text; what
    the store keeps and a reader inspecting it sees alike."""

    chunk_id: str
    document_id: str
    source_id: str
    key: str
    ord: int
    title: str
    section_title: str
    heading_path: list[str]
    content: str


class StoredChunk(ChunkText):
    embedding_text: str
    enrichment: Enrichment
    lang: str
    product: str
    content_type: str
    category: str = ""
    tags: list[str] = Field(default_factory=list)
    # who may read it (chalicelib.access.principals): its document's readers; empty: only callers that read all
    readers: list[str] = Field(default_factory=list)
    url: str | None = None
    anchors: list[str] = Field(default_factory=list)
    kind: Literal["doc", "code"] = "doc"
    critical: bool = (
        False  # marked at ingestion: front matter `critical: true`, tag `critical`, object metadata
    )
    content_hash: str
    vector: list[float] | None = Field(default=None, exclude=True, repr=False)
    # the quotable units' vectors (chalicelib.quotes), embedded at index time so answers embed nothing more
    quote_vectors: str | None = Field(default=None, repr=False)
    hard_cut: bool = False  # the chunker had to cut inside a word to keep the token budget
    quote_space: str | None = None
    # the quote vectors as numbers, when the store that read the chunk decoded them already (for this very
    # ``quote_vectors`` text: a chunk given other quote vectors decodes those)
    _decoded: tuple[str, Any] | None = PrivateAttr(default=None)

    def with_decoded_quotes(self, values: Any) -> StoredChunk:
        """``values``: ``quote_vectors`` decoded (a flat, read-only float32 array)."""
        self._decoded = (self.quote_vectors or "", values)
        return self

    def decoded_quotes(self) -> Any | None:
        found = self._decoded
        return found[1] if found is not None and found[0] is self.quote_vectors else None


class DocumentRecord(BaseModel):
    """One manifest row: what happened to one object key of one source."""

    document_id: str
    source_id: str
    key: str
    content_hash: str = ""
    status: DocStatus = "indexed"
    error: str | None = None
    title: str = ""
    lang: str = ""
    chunk_count: int = 0
    updated_at: float = 0.0
    etag: str | None = None  # S3: what was last indexed, and the event that said so
    version_id: str | None = None
    sequencer: str | None = None
    # gone from its source in a run that would have deleted too much of it (the mass-delete guard): still
    # searchable, and listed by /stats, until an operator confirms (``sabio index --confirm-deletions``)
    delete_held_at: float | None = None
    # who may read it (its chunks carry the same), and what the file itself declared (front matter, an Office
    # property; None: nothing), so a change beside it (S3 metadata, .sabio-read) is applied without reading it
    readers: list[str] | None = None
    declared_readers: list[str] | None = None


@dataclass(frozen=True)
class SearchFilters:
    """Metadata pre-filters; every field narrows, ``None`` means no constraint."""

    source_ids: tuple[str, ...] | None = None
    langs: tuple[str, ...] | None = None
    products: tuple[str, ...] | None = None
    content_types: tuple[str, ...] | None = None
    categories: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None  # a chunk matches if it has any of these
    source_ref: str | None = None  # object-key prefix
    kinds: tuple[str, ...] | None = None  # "doc" / "code"
    critical: bool | None = None
    # an API key's reach, ANDed with everything above: any of these prefixes / any of these tags
    allowed_refs: tuple[str, ...] | None = None
    allowed_tags: tuple[str, ...] | None = None
    # the caller's principals (chalicelib.access.principals): a chunk matches if its readers hold any of them
    allowed_readers: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    score: float
    content_type: str | None = None  # when the index knows it: lets retrieval weigh hubs before fusion


@dataclass(frozen=True)
class EmbeddingSpace:
    """Which model produced a vector: vectors from different spaces are never compared."""

    model_id: str
    dim: int


class QueryRecord(BaseModel):
    """One question as the query log keeps it (never an API key: ``key`` is the key's configured name)."""

    query_id: str
    created_at: float
    expires_at: int  # epoch seconds: DynamoDB's TTL, SQLite's retention
    endpoint: Literal["retrieve", "answer", "context", "mcp"]
    key: str  # the asking key's name; "" when the server runs without keys
    unrestricted: bool = True  # the asking key could read every source
    text: str | None  # None when SABIO_LOG_QUERY_TEXT=0; a follow-up's question as searched (standalone)
    asked_as: str | None = None  # a follow-up as the user typed it, when its thread rewrote it into ``text``
    conversation_id: str | None = None
    text_hash: str
    lang: str  # the question's language (detected), "" when unclear
    mode: str
    filters: dict[str, object] = Field(default_factory=dict)
    chunk_ids: list[str] = Field(default_factory=list)  # returned, best first
    scores: list[float] = Field(default_factory=list)
    chunk_langs: list[str] = Field(default_factory=list)
    cited: list[str] = Field(default_factory=list)  # chunks an answer quoted
    answered: bool | None = None  # would the documents answer it (the extractive evidence test)
    evidence: float | None = None
    product: str | None = None
    latency_ms: float = 0.0
    vector: str | None = Field(default=None, repr=False)  # the question's vector (quotes.encode_vectors)
    space: str | None = None


class FeedbackRecord(BaseModel):
    query_id: str
    created_at: float
    expires_at: int
    key: str
    helpful: bool
    chunk_ids: list[str]
    comment: str | None = None


class FailedDocument(BaseModel):
    """A document that could not be indexed, and why (the rest of its run was indexed)."""

    source_id: str
    key: str
    error: str
    updated_at: float = 0.0


class HeldDeletion(BaseModel):
    source_id: str
    key: str
    held_at: float = Field(description="when the guard held it (seconds since the epoch)")
    confirm: str = Field(
        "sabio index PATH --confirm-deletions",
        description="the command that deletes it: the one that indexed its source, again with "
        "--confirm-deletions",
    )


class Stats(BaseModel):
    documents: dict[str, int] = Field(description="documents by status (indexed, failed, ...)")
    chunks: int
    by_source: dict[str, int]
    by_lang: dict[str, int]
    by_product: dict[str, int]
    by_content_type: dict[str, int]
    by_category: dict[str, int]
    embedding: dict[str, Any] | None = None
    failures: list[FailedDocument] = Field(
        default_factory=list, description="the most recent documents that failed to index, with the reason"
    )
    translator: str = Field(
        "none",
        description="what puts a question into the documents' language when they are in another one: "
        "apertium, amazon (Amazon Translate), llm, or none (such questions are searched by meaning only, "
        "and answered less often: SABIO_TRANSLATOR)",
    )
    held_deletions: list[HeldDeletion] = Field(
        default_factory=list,
        description="documents gone from their source whose deletion the mass-delete guard holds (still "
        "searchable) until an operator confirms (each one's confirm: the command that indexed its source, "
        "again with --confirm-deletions)",
    )
