"""The HTTP API's contract (v1): requests, responses and error bodies, as OpenAPI shows them."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from chalicelib.languages import registered
from chalicelib.models.records import ChunkText, Enrichment, Located, StoredChunk, location_of

# what a request may name; a registered language the server does not use is refused by the retrieval
LANG_CHOICES = ("auto", *registered(), "all")

_StrList = list[str] | str | None
# control characters that are not whitespace, between two characters that are not whitespace either
_CONTROL_BETWEEN = re.compile(r"(?<=\S)[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]+(?=\S)")


def _as_list(v: Any) -> Any:
    """One string or a list of them (a list's items are checked as strings after this)."""
    if isinstance(v, str):
        return [v]
    if v is not None and not isinstance(v, list):
        raise ValueError("should be a string or a list of strings")
    return v


# Requests are strict (a JSON ``true`` is not the integer 1, nor ``"5"`` the integer 5) and immutable: what
# the caller asked for is read, never rewritten (the caller's access travels beside it, as an argument).
_REQUEST = ConfigDict(extra="forbid", strict=True, frozen=True)


class Scope(BaseModel):
    model_config = _REQUEST
    source_id: list[str] | None = None
    source_ref: str | None = None
    tags: list[str] | None = None

    _lists = field_validator("source_id", "tags", mode="before")(_as_list)


class Filters(BaseModel):
    model_config = _REQUEST
    product: list[str] | None = None
    content_type: list[str] | None = None
    category: list[str] | None = None
    tags: list[str] | None = None

    _lists = field_validator("product", "content_type", "category", "tags", mode="before")(_as_list)


class RetrieveRequest(BaseModel):
    model_config = _REQUEST
    query: str | None = Field(default=None, max_length=2000)
    intent: Literal["specific", "bootstrap"] = "specific"
    mode: Literal["documental", "codigo", "auto"] = "auto"
    scope: Scope = Field(default_factory=Scope)
    filters: Filters = Field(default_factory=Filters)
    lang: str = Field(
        default="auto",
        description="auto: the question's language first, the others by meaning; all: every language alike; "
        "or one language (the server's SABIO_LANGUAGES)",
        json_schema_extra={"enum": list(LANG_CHOICES)},
    )
    top_k: int = Field(default=5, ge=1, le=50)
    hyde: bool | None = None  # None: the server's default (SABIO_RETRIEVAL_HYDE)
    rerank: bool | None = Field(
        default=None,
        description="null: the server's default (rerank when a reranker is configured: SABIO_RERANKER); true: "
        "rerank (400 when the server has no reranker); false: the first stage's order",
    )
    stream: bool = Field(
        default=False,
        description="POST /answer only: the answer as server-sent events (sources, delta, answer, end), as "
        "Accept: text/event-stream asks too",
    )

    @field_validator("lang")
    @classmethod
    def _known_lang(cls, v: str) -> str:
        if v not in LANG_CHOICES:
            raise ValueError(f"lang must be one of {', '.join(LANG_CHOICES)}")
        return v

    @field_validator("query")
    @classmethod
    def _strip(cls, v: str | None) -> str | None:
        if v is None:
            return None
        # a control character (NUL, an escape) between two words parts them as a space would ("hola\0mundo"
        # is two words); every unprintable character left (a soft hyphen inside a word, controls beside a
        # space) goes
        v = _CONTROL_BETWEEN.sub(" ", v)
        v = "".join(ch for ch in v if ch.isprintable() or ch.isspace()).strip()
        if v and not any(ch.isalnum() for ch in v):
            raise ValueError("a question needs at least one letter or digit")
        return v


class Item(Located):
    """One retrieved chunk, with where it comes from and what the enrichment says about it."""

    chunk_id: str
    document_id: str
    source_id: str
    title: str
    section_title: str
    heading_path: list[str]
    content: str
    score: float = Field(description="fused rank score (higher is better; comparable within one response)")
    url: str | None = None
    lang: str
    product: str
    content_type: str
    category: str = ""
    kind: Literal["doc", "code"] = "doc"
    critical: bool = False
    summary: str = ""
    keywords: list[str] = Field(default_factory=list)
    enrichment_source: str = "heuristic"
    scores: dict[str, float] = Field(default_factory=dict, description="per-retriever scores: dense, bm25")


class HydeInfo(BaseModel):
    """Whether query-time HyDE was used for this request, and if not, why."""

    used: bool
    reason: str | None = None
    passage: str | None = None
    ms: float | None = None
    usage: dict[str, int] = Field(default_factory=dict)


class RewriteInfo(BaseModel):
    """Whether the question was rewritten by the LLM (expanded when short, split when it asks several
    things) and the rewrites searched beside it, and if not, why."""

    used: bool
    kind: Literal["short", "multi-part"]
    queries: list[str] = Field(default_factory=list)
    reason: str | None = None
    ms: float | None = None
    usage: dict[str, int] = Field(default_factory=dict)


class RerankInfo(BaseModel):
    """Whether the second stage reordered this request's candidates, with what, and if not, why."""

    used: bool
    model: str | None = None
    candidates: int = 0
    ms: float | None = None
    reason: str | None = None
    usage: dict[str, int] = Field(
        default_factory=dict, description="tokens (llm) or billed queries (bedrock)"
    )


class FollowUp(BaseModel):
    """Where to go next: a suggested question, a document or a section."""

    kind: Literal["question", "document", "section"]
    text: str
    document_id: str | None = None


class CriticalPoint(BaseModel):
    """Something that must stay visible: marked at ingestion, or inferred from the text (and why)."""

    text: str
    chunk_id: str
    document_id: str
    title: str
    origin: Literal["marked", "inferred"]
    reason: str


class RetrieveResponse(BaseModel):
    mode: Literal["documental", "codigo"] = Field(description="the mode applied (auto is resolved)")
    mode_reason: str = ""
    intent: Literal["specific", "bootstrap"]
    query: str | None
    lang: str
    namespaces: list[str] | None = Field(description="languages searched; null means all")
    summary: str
    topics: list[str]
    critical_points: list[CriticalPoint]
    items: list[Item]
    follow_up_refs: list[FollowUp]
    scope: Scope
    applied: dict[str, str] = Field(default_factory=dict, description="filters and boosts the server applied")
    duplicates_suppressed: int = 0
    notes: list[str] = Field(default_factory=list)
    hyde: HydeInfo | None = None
    rewrite: RewriteInfo | None = None
    rerank: RerankInfo | None = None
    timings_ms: dict[str, float]
    query_id: str | None = Field(
        None, description="this question in the query log: POST /feedback with it (null when the log is off)"
    )


class ContextResponse(RetrieveResponse):
    """Retrieve plus the context block an LLM prompt can take as is (context_plus_summary)."""

    context: str


class Citation(Located):
    n: int
    chunk_id: str
    document_id: str
    title: str
    section_title: str
    url: str | None = None
    quote: str = Field(description="a span that occurs verbatim in the cited chunk")

    @classmethod
    def of(cls, n: int, chunk: StoredChunk, quote: str) -> Citation:
        """Citation ``[n]`` of ``chunk``, quoting a span that occurs verbatim in it: the quote's own lines when
        the chunk is lines of its file, else the chunk's pages, slides or rows."""
        where = location_of(chunk)
        at = chunk.content.find(quote)
        if chunk.line_start is not None and at >= 0:
            first = chunk.line_start + chunk.content.count("\n", 0, at)
            where.update(line_start=first, line_end=first + quote.count("\n"))
        return cls(
            n=n,
            chunk_id=chunk.chunk_id,
            document_id=chunk.document_id,
            title=chunk.title,
            section_title=chunk.section_title,
            url=chunk.url,
            quote=quote,
            **where,
        )


class AnswerResponse(BaseModel):
    mode: Literal["documental", "codigo"]
    mode_reason: str = ""
    intent: Literal["specific", "bootstrap"]
    query: str
    answer: str
    answered_by: Literal["llm", "llm-fallback", "extractive"]
    answered: bool = Field(
        True, description="false when the documents hold no answer (the answer says so and cites nothing)"
    )
    evidence: float | None = Field(
        None, description="extractive: how strongly the best sentence answers (abstains below the threshold)"
    )
    model: str | None = None
    extractive: bool
    verified: bool = Field(
        True, description="false when citations were dropped (not in context, quote not found)"
    )
    citation_issues: list[str] = Field(default_factory=list)
    attempts: list[str] = Field(
        default_factory=list, description="why earlier links of the fallback chain failed"
    )
    lang: str
    namespaces: list[str] | None = Field(description="languages searched; null means all")
    summary: str
    topics: list[str]
    critical_points: list[CriticalPoint]
    citations: list[Citation]
    items: list[Item]
    follow_up_refs: list[FollowUp]
    scope: Scope
    applied: dict[str, str] = Field(default_factory=dict)
    duplicates_suppressed: int = 0
    notes: list[str] = Field(default_factory=list)
    hyde: HydeInfo | None = None
    rewrite: RewriteInfo | None = None
    rerank: RerankInfo | None = None
    timings_ms: dict[str, float]
    usage: dict[str, int] = Field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    query_id: str | None = Field(
        None, description="this question in the query log: POST /feedback with it (null when the log is off)"
    )


def answer_from(response: RetrieveResponse, query: str, **fields: Any) -> AnswerResponse:
    """An answer carries its retrieve response's context fields; ``fields`` add (or, like ``notes``,
    extend) what the answerer decided."""
    carried = (
        "mode",
        "mode_reason",
        "applied",
        "intent",
        "lang",
        "namespaces",
        "summary",
        "topics",
        "critical_points",
        "items",
        "follow_up_refs",
        "scope",
        "duplicates_suppressed",
        "notes",
        "hyde",
        "rewrite",
        "rerank",
    )
    fields.setdefault("usage", side_usage(response, {"prompt_tokens": 0, "completion_tokens": 0}))
    return AnswerResponse(query=query, **{**{name: getattr(response, name) for name in carried}, **fields})


def side_usage(response: RetrieveResponse, usage: dict[str, int]) -> dict[str, int]:
    """``usage`` plus what HyDE, the rewriting and the reranker spent for this request (tokens, billed rerank queries)."""
    out = dict(usage)
    for part in (response.hyde, response.rewrite, response.rerank):
        for k, v in (part.usage if part is not None else {}).items():
            out[k] = out.get(k, 0) + v
    return out


class ErrorBody(BaseModel):
    code: str
    message: str
    field: str | None = None


class ChunkView(ChunkText):
    """One chunk as a reader inspects it: its text, where it comes from, and what the enrichment says."""

    url: str | None = None
    lang: str
    kind: Literal["doc", "code"]
    product: str
    content_type: str
    category: str = ""
    tags: list[str] = Field(default_factory=list)
    critical: bool = False
    enrichment: Enrichment

    @classmethod
    def of(cls, chunk: StoredChunk) -> ChunkView:
        return cls.model_validate(chunk.model_dump(include=set(cls.model_fields)))


class FeedbackRequest(BaseModel):
    model_config = _REQUEST
    query_id: str = Field(
        min_length=1, max_length=64, description="from a /retrieve, /answer or /context response"
    )
    helpful: bool
    chunk_ids: list[str] | None = Field(
        default=None, max_length=50, description="the results this is about (default: the answer's citations)"
    )
    comment: str | None = Field(default=None, max_length=2000)


class FeedbackResponse(BaseModel):
    query_id: str
    recorded: bool
    chunk_ids: list[str] = Field(description="the results the feedback counts for")
