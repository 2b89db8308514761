"""Retrieve (specific): understand the question -> plan (mode, namespaces, filters) -> query vector -> the
lists to fuse (gather.py, cross_language.py) -> fusion -> priors (priors.py) -> near-duplicate suppression
(-> the second stage, rerank.py) -> items with summary, topics, critical points and follow-ups."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from itertools import zip_longest
from typing import TYPE_CHECKING

import numpy as np

from chalicelib import tracing
from chalicelib.config.retrieval import RetrievalConfig
from chalicelib.enrichment import overview
from chalicelib.errors import InvalidInput
from chalicelib.llms.client import ChatLLM
from chalicelib.models.api import HydeInfo, RerankInfo, RetrieveRequest, RetrieveResponse, RewriteInfo
from chalicelib.models.records import StoredChunk
from chalicelib.protocols import ChunkStore, Embedder, Reranker, Translator, VectorIndex
from chalicelib.question.hyde import query_vector
from chalicelib.question.query import Query, understand
from chalicelib.retrieve import rerank as second
from chalicelib.retrieve.choose import Selector
from chalicelib.retrieve.cross_language import CrossLanguage
from chalicelib.retrieve.fusion import fuse
from chalicelib.retrieve.index_search import words_beside
from chalicelib.retrieve.items import to_item
from chalicelib.retrieve.plan import plan_for
from chalicelib.retrieve.priors import Priors
from chalicelib.retrieve.ranked_lists import Gatherer
from chalicelib.retrieve.results import Plan, Retrieved, Timer

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy

__all__ = ["RetrievalConfig", "Retriever"]


class Retriever:
    """Specific retrieval: each stage a module of its own, this class the order they run in."""

    def __init__(
        self,
        chunks: ChunkStore,
        index: VectorIndex,
        embedder: Embedder,
        config: RetrievalConfig | None = None,
        known_products: Callable[[], list[str]] | None = None,
        llm: ChatLLM | None = None,
        prior: Callable[[np.ndarray], dict[str, float]] | None = None,
        translator: Translator | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.chunks = chunks
        self.index = index
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.known_products = known_products or (lambda: [])
        self.llm = llm
        self.prior = prior  # feedback: a bounded factor per chunk for a question vector (feedback_prior.py)
        self.translator = translator
        self.reranker = reranker
        stage = (chunks, index, embedder, self.config)
        self.cross = CrossLanguage(*stage, translator=translator, known_products=self.known_products)
        self.gatherer = Gatherer(*stage, cross=self.cross, llm=llm)
        priors = Priors(*stage, cross=self.cross, known_products=self.known_products, prior=prior)
        self.selector = Selector(*stage, priors=priors)

    def reconfigured(self, **config: object) -> Retriever:
        """The same retriever (stores, embedder, products, LLM, feedback, translator) with ``config`` changed
        (RetrievalConfig fields): a variant to measure against the default."""
        return Retriever(
            self.chunks,
            self.index,
            self.embedder,
            self.config.changed(**config),
            self.known_products,
            self.llm,
            self.prior,
            self.translator,
            self.reranker,
        )

    def retrieve(self, request: RetrieveRequest, access: KeyPolicy | None) -> RetrieveResponse:
        return self.run(request, access).response

    def run(self, request: RetrieveRequest, access: KeyPolicy | None) -> Retrieved:
        retrieved = self._run(request, access)
        info = retrieved.response.rewrite
        if info is None or not info.used or info.kind != "multi-part":
            return retrieved
        return self._joined(request, access, retrieved, info)

    def _joined(
        self, request: RetrieveRequest, access: KeyPolicy | None, whole: Retrieved, info: RewriteInfo
    ) -> Retrieved:
        """A question that asks several things: each part retrieved as a question of its own, the results
        taken in turn (the first of each part, then the second...), then the whole question's."""
        t = time.perf_counter()
        alone = self.reconfigured(rewrite=False)
        parts = [alone.run(request.model_copy(update={"query": q}), access) for q in info.queries]
        by_id = {c.chunk_id: c for r in (whole, *parts) for c in r.chunks}
        items = {i.chunk_id: i for r in (*parts, whole) for i in r.response.items}
        turns = [[c.chunk_id for c in r.chunks] for r in (*parts, whole)]
        order = list(dict.fromkeys(cid for row in zip_longest(*turns) for cid in row if cid is not None))
        chosen = [by_id[cid] for cid in order[: request.top_k]]
        timings = {**whole.response.timings_ms, "parts": round((time.perf_counter() - t) * 1000, 2)}
        timings["total"] = round(timings.get("total", 0.0) + timings["parts"], 2)
        response = whole.response.model_copy(
            update={
                "items": [items[c.chunk_id] for c in chosen],
                "summary": overview.summary(chosen),
                "topics": overview.topics(chosen),
                "critical_points": overview.marked_points(chosen) + overview.inferred_points(chosen, limit=3),
                "follow_up_refs": overview.follow_ups(chosen),
                "timings_ms": timings,
            }
        )
        return replace(whole, response=response, chunks=chosen)

    def _run(self, request: RetrieveRequest, access: KeyPolicy | None) -> Retrieved:
        if not request.query:
            raise InvalidInput("query is required for intent 'specific'", field="query")
        reranks = second.wanted(self.reranker, request)
        timer = Timer()
        query, plan = self._planned(request, access, timer)
        fetch = self.gatherer.fetch(request, query.intent)
        words = words_beside(self.index, request.query, plan, fetch)  # BM25 while the query is embedded
        vector, hyde_info = self._embedded(request, timer)
        found = self.gatherer.gather(request, vector, plan, query, timer, words)
        found, rewrite_info = self.gatherer.rewritten(found, timer, fetch)
        t = time.perf_counter()
        keep = max(request.top_k, self.config.rerank.candidates) if reranks else request.top_k
        with tracing.span("fuse", tracing.CHAIN, {"sabio.lists": len(found.rankings)}) as span:
            fused = fuse(found.rankings, self.config.fusion, self.config.rrf_k, found.weights)
            plan, chosen, score, dropped, exact = self.selector.rank(
                request, vector, found.plan, found.query, fused, keep
            )
            ranked = [(c.chunk_id, score[c.chunk_id]) for c in chosen]
            span.documents("retrieval.documents", ranked, [c.content for c in chosen])
        timer.stage("fuse", t)
        scores = {"dense": found.dense, "bm25": found.bm25}
        rerank_info = None
        if reranks and self.reranker is not None:
            plan, chosen, scores["rerank"], rerank_info = second.second_stage(
                self.reranker, self.config.rerank, request, plan, query, chosen, exact, timer
            )
        elif self.reranker is not None:  # configured, and the request asked for the first stage's order
            plan = plan.applying("rerank", "off (the request said rerank: false)")
        chosen = chosen[: request.top_k]
        items = [
            to_item(c, score[c.chunk_id], {k: v.get(c.chunk_id) for k, v in scores.items()}) for c in chosen
        ]
        response = _response(
            request, plan, chosen, items, dropped, hyde_info, rewrite_info, rerank_info, timer
        )
        broadened = found.plan.words_anywhere or (found.plan.namespaces is None and query.lang is not None)
        return Retrieved(
            response, chosen, vector, found.query, found.plan.filters, exact.unmentioned, broadened
        )

    def _planned(
        self, request: RetrieveRequest, access: KeyPolicy | None, timer: Timer
    ) -> tuple[Query, Plan]:
        """The question read once, and the plan it is searched by (mode, namespaces, what the caller may read)."""
        t = time.perf_counter()
        with tracing.span("plan") as span:
            query = understand(request, self.config.languages, self.config.intents)
            plan = plan_for(request, access, query, self.config.languages)
            span.update(
                {
                    "sabio.query.lang": query.lang,
                    "sabio.mode": plan.mode,
                    "sabio.namespaces": list(plan.namespaces) if plan.namespaces else ["*"],
                    "sabio.intent": query.intent.name if query.intent is not None else None,
                }
            )
        timer.stage("plan", t)
        return query, plan

    def _embedded(self, request: RetrieveRequest, timer: Timer) -> tuple[np.ndarray, HydeInfo | None]:
        """The question's vector (HyDE's passage's, when on and in time)."""
        t = time.perf_counter()
        text = request.query or ""
        use_hyde = self.config.hyde if request.hyde is None else request.hyde
        model = {"embedding.model_name": self.embedder.space.model_id}
        with tracing.span("embed", tracing.EMBEDDING, model) as span:
            span.text("embedding.embeddings.0.embedding.text", text)
            vector, hyde_info = query_vector(
                text, self.embedder, self.llm, enabled=use_hyde, budget_s=self.config.hyde_budget_s
            )
            span.set("sabio.hyde", hyde_info is not None and hyde_info.used)
        timer.stage("embed", t)
        if hyde_info is not None and hyde_info.ms is not None:
            timer.timings["hyde"] = hyde_info.ms
        return vector, hyde_info


def _response(
    request: RetrieveRequest,
    plan: Plan,
    chosen: list[StoredChunk],
    items: list,
    dropped: int,
    hyde_info: HydeInfo | None,
    rewrite_info: RewriteInfo | None,
    rerank_info: RerankInfo | None,
    timer: Timer,
) -> RetrieveResponse:
    return RetrieveResponse(
        mode=plan.mode,
        mode_reason=plan.mode_reason,
        intent="specific",
        query=request.query,
        lang=request.lang,
        namespaces=list(plan.namespaces) if plan.namespaces else None,
        summary=overview.summary(chosen),
        topics=overview.topics(chosen),
        critical_points=overview.marked_points(chosen) + overview.inferred_points(chosen, limit=3),
        items=items,
        follow_up_refs=overview.follow_ups(chosen),
        scope=request.scope,
        applied=dict(plan.applied),
        duplicates_suppressed=dropped,
        notes=list(plan.notes),
        hyde=hyde_info,
        rewrite=rewrite_info,
        rerank=rerank_info,
        timings_ms=timer.total(),
    )
