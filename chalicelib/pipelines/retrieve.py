"""Retrieve (specific): namespaces -> query vector -> dense + BM25 -> fusion -> dedupe -> items."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.errors import InvalidInput
from chalicelib.language import detect
from chalicelib.llms.client import ChatLLM
from chalicelib.models import (
    FollowUp,
    Item,
    RetrieveRequest,
    RetrieveResponse,
    SearchFilters,
    StoredChunk,
)
from chalicelib.pipelines.fusion import reciprocal_rank_fusion, suppress_near_duplicates
from chalicelib.pipelines.hyde import query_vector
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.text import fold

PRODUCT_BOOST = 1.25


@dataclass
class RetrievalConfig:
    languages: tuple[str, ...] = ("es", "en")
    candidates: int = 50
    rrf_k: int = 60
    duplicate_threshold: float = 0.6
    hyde: bool = False
    hyde_budget_s: float = 2.0


class Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def stage(self, name: str, started: float) -> None:
        self.timings[name] = round((time.perf_counter() - started) * 1000, 2)

    def total(self) -> dict[str, float]:
        return {**self.timings, "total": round((time.perf_counter() - self._start) * 1000, 2)}


@dataclass
class Retrieved:
    """What answer needs beyond the response: the chunks themselves and the query vector."""

    response: RetrieveResponse
    chunks: list[StoredChunk]
    query_vector: object


class Retriever:
    def __init__(
        self,
        chunks: ChunkStore,
        index: VectorIndex,
        embedder: Embedder,
        config: RetrievalConfig | None = None,
        known_products: Callable[[], list[str]] | None = None,
        llm: ChatLLM | None = None,
    ) -> None:
        self.llm = llm
        self.chunks = chunks
        self.index = index
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.known_products = known_products or (lambda: [])

    def retrieve(self, request: RetrieveRequest) -> RetrieveResponse:
        return self.run(request).response

    def run(self, request: RetrieveRequest) -> Retrieved:
        if request.intent == "bootstrap":
            raise InvalidInput("intent 'bootstrap' is not available yet; use 'specific'", field="intent")
        if not request.query:
            raise InvalidInput("query is required for intent 'specific'", field="query")
        query = request.query
        timer = Timer()
        notes: list[str] = []

        t = time.perf_counter()
        namespaces = self._namespaces(request)
        timer.stage("language", t)
        filters = _filters(request, namespaces)

        t = time.perf_counter()
        use_hyde = self.config.hyde if request.hyde is None else request.hyde
        vector, hyde_info = query_vector(
            query, self.embedder, self.llm, enabled=use_hyde, budget_s=self.config.hyde_budget_s
        )
        timer.stage("embed", t)
        if hyde_info is not None and hyde_info.ms is not None:
            timer.timings["hyde"] = hyde_info.ms

        dense, bm25 = self._search(query, vector, filters, timer)
        if not dense and not bm25 and namespaces is not None and request.lang == "auto":
            notes.append(f"nothing in namespace {namespaces[0]!r}; searched all languages")
            namespaces = None
            filters = _filters(request, None)
            dense, bm25 = self._search(query, vector, filters, timer)

        t = time.perf_counter()
        fused = reciprocal_rank_fusion(
            [[h.chunk_id for h in dense], [h.chunk_id for h in bm25]], self.config.rrf_k
        )
        pool = self.chunks.get_chunks([cid for cid, _ in fused[: max(request.top_k * 4, 20)]])
        by_id = {c.chunk_id: c for c in pool}
        product = self._mentioned_product(query)
        score = dict(fused)
        if product and not request.filters.product:
            notes.append(f"query names product {product!r}: its chunks are boosted")
            for c in pool:
                if c.product == product:
                    score[c.chunk_id] *= PRODUCT_BOOST
        ranked = sorted((cid for cid in score if cid in by_id), key=lambda cid: -score[cid])
        kept, dropped = suppress_near_duplicates(
            [(cid, by_id[cid].content) for cid in ranked], self.config.duplicate_threshold, request.top_k
        )
        timer.stage("fuse", t)

        dense_score = {h.chunk_id: h.score for h in dense}
        bm25_score = {h.chunk_id: h.score for h in bm25}
        items = [
            _item(by_id[cid], score[cid], {"dense": dense_score.get(cid), "bm25": bm25_score.get(cid)})
            for cid in kept
        ]
        chunks = [by_id[cid] for cid in kept]
        response = RetrieveResponse(
            mode=request.mode,
            intent=request.intent,
            query=query,
            lang=request.lang,
            namespaces=list(namespaces) if namespaces else None,
            summary=_summary(chunks),
            topics=_topics(chunks),
            critical_points=[],
            items=items,
            follow_up_refs=_follow_ups(chunks),
            scope=request.scope,
            duplicates_suppressed=len(dropped),
            notes=notes,
            hyde=hyde_info,
            timings_ms=timer.total(),
        )
        return Retrieved(response, chunks, vector)

    def _search(self, query: str, vector: object, filters: SearchFilters, timer: Timer) -> tuple[list, list]:
        t = time.perf_counter()
        dense = self.index.dense_search(vector, self.embedder.space, filters, self.config.candidates)  # type: ignore[arg-type]
        timer.stage("dense", t)
        t = time.perf_counter()
        bm25 = self.index.keyword_search(query, filters, self.config.candidates)
        timer.stage("bm25", t)
        return dense, bm25

    def _namespaces(self, request: RetrieveRequest) -> tuple[str, ...] | None:
        if request.lang == "all":
            return None
        if request.lang != "auto":
            return (request.lang,)
        found = detect(request.query or "", self.config.languages)
        if found.confidence >= 0.6 and found.lang in self.config.languages:
            return (found.lang,)
        return None  # not sure which language: search them all

    def _mentioned_product(self, query: str) -> str | None:
        folded = fold(query)
        hits = [
            p
            for p in self.known_products()
            if p != "general"
            and re.search(r"\b" + re.escape(p.replace("-", " ")) + r"\b", folded.replace("-", " "))
        ]
        return hits[0] if len(hits) == 1 else None


def _filters(request: RetrieveRequest, namespaces: tuple[str, ...] | None) -> SearchFilters:
    scope, f = request.scope, request.filters
    tags: tuple[str, ...] | None = None
    if scope.tags is not None and f.tags is not None:
        tags = tuple(set(scope.tags) & set(f.tags))
    elif scope.tags is not None or f.tags is not None:
        tags = tuple(scope.tags or f.tags or ())

    def tup(v: list[str] | None) -> tuple[str, ...] | None:
        return tuple(v) if v is not None else None

    return SearchFilters(
        source_ids=tup(scope.source_id),
        langs=namespaces,
        products=tup(f.product),
        content_types=tup(f.content_type),
        categories=tup(f.category),
        tags=tags,
        source_ref=scope.source_ref,
    )


def _item(c: StoredChunk, score: float, scores: dict[str, float | None]) -> Item:
    return Item(
        chunk_id=c.chunk_id,
        document_id=c.document_id,
        source_id=c.source_id,
        title=c.title,
        section_title=c.section_title,
        heading_path=c.heading_path,
        content=c.content,
        score=round(score, 6),
        url=c.url,
        lang=c.lang,
        product=c.product,
        content_type=c.content_type,
        category=c.category,
        line_start=c.line_start,
        line_end=c.line_end,
        summary=c.enrichment.summary,
        keywords=c.enrichment.keywords,
        enrichment_source=c.enrichment.source,
        scores={k: round(v, 6) for k, v in scores.items() if v is not None},
    )


def _summary(chunks: list[StoredChunk]) -> str:
    seen: list[str] = []
    for c in chunks[:3]:
        s = c.enrichment.summary.strip()
        if s and s not in seen:
            seen.append(s)
        if len(seen) == 2:
            break
    return " ".join(seen)


def _topics(chunks: list[StoredChunk]) -> list[str]:
    counts: Counter[str] = Counter()
    for rank, c in enumerate(chunks):
        for kw in c.enrichment.keywords:
            counts[kw] += 1.0 / (1 + rank)  # type: ignore[assignment]
    return [kw for kw, _ in counts.most_common(8)]


def _follow_ups(chunks: list[StoredChunk]) -> list[FollowUp]:
    refs: list[FollowUp] = []
    for c in chunks[1:]:
        if c.enrichment.questions:
            refs.append(FollowUp(kind="question", text=c.enrichment.questions[0], document_id=c.document_id))
    docs = list(dict.fromkeys((c.document_id, c.title) for c in chunks))
    refs += [FollowUp(kind="document", text=title, document_id=doc) for doc, title in docs[:3]]
    return refs[:8]
