"""Retrieve (specific): mode -> namespaces -> query vector -> dense + BM25 (+ intent subqueries) -> fusion
-> boosts -> near-duplicate suppression -> items with summary, topics, critical points and follow-ups."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from chalicelib.enrichment.vocabulary import HUB_TYPES
from chalicelib.errors import InvalidInput
from chalicelib.language import detect
from chalicelib.llms.client import ChatLLM
from chalicelib.models import Hit, Item, RetrieveRequest, RetrieveResponse, SearchFilters, StoredChunk
from chalicelib.pipelines import overview
from chalicelib.pipelines.fusion import fuse, min_max, suppress_near_duplicates
from chalicelib.pipelines.hyde import query_vector
from chalicelib.pipelines.query_understanding import (
    Intent,
    decide_mode,
    detect_intent,
    mentioned_product,
    names_a_heading,
)
from chalicelib.protocols import ChunkStore, Embedder, VectorIndex
from chalicelib.quotes import decode_vectors

PRODUCT_BOOST = 1.25
INTENT_BOOST = 1.15
# mode=codigo (asked for, or read from the query) ranks code first; it never hides documents, and documental
# never hides code: only what the caller filters out is excluded
CODE_MODE_BOOST = 1.25
DOC_MODE_CODE_WEIGHT = 0.5  # documental: code still comes back, after the prose that answers


def discount_hubs(hits: list[Hit], shift: float, factor: float) -> list[Hit]:
    """Hub chunks' scores moved by ``shift`` and scaled by ``factor``; the list re-sorted, best first."""
    if not any(h.content_type in HUB_TYPES for h in hits):
        return hits
    moved = [
        Hit(h.chunk_id, (h.score + shift) * factor, h.content_type) if h.content_type in HUB_TYPES else h
        for h in hits
    ]
    return sorted(moved, key=lambda h: -h.score)


def merge_by_score(first: list[Hit], more: list[Hit], k: int) -> list[Hit]:
    """Two hit lists of one retriever (one score scale) as one, best first, each chunk once."""
    best: dict[str, Hit] = {}
    for h in (*first, *more):
        if h.chunk_id not in best or h.score > best[h.chunk_id].score:
            best[h.chunk_id] = h
    return sorted(best.values(), key=lambda h: -h.score)[:k]


def discounted_merge(same: list[Hit], other: list[Hit], weight: float) -> list[Hit]:
    """One dense list from the query's namespace and the others: scores min-max scaled together (one cosine
    scale), the other namespaces' then multiplied by ``weight``; best first. With no same-language hit the
    order is plain cosine order, so a question over a store in another language loses nothing."""
    if not other:
        return same
    hits = (*same, *other)
    scaled = min_max([(h.chunk_id, h.score) for h in hits])
    merged = [
        Hit(cid, s if n < len(same) else weight * s, hits[n].content_type)
        for n, (cid, s) in enumerate(scaled)
    ]
    return sorted(merged, key=lambda h: -h.score)


@dataclass
class RetrievalConfig:
    languages: tuple[str, ...] = ("es", "en")
    candidates: int = 50
    rrf_k: int = 60
    fusion: str = "score"  # "score": normalised-score fusion; "rrf": reciprocal rank fusion
    duplicate_threshold: float = 0.6
    hyde: bool = False
    hyde_budget_s: float = 2.0
    intents: bool = True  # intent subqueries and boosts (pricing, rules, ...)
    # hubs (changelogs): cosine points taken off their dense scores and a factor on their BM25 scores, before
    # fusion, unless the question asks about changes or the caller filters on their type (docs/evaluation.md)
    hub_penalty: float = 0.03
    hub_bm25_weight: float = 0.5
    pool: int = 20  # fused candidates read in full (boosts, sentence evidence, duplicates) before the top k
    # weight of a chunk's best sentence (its stored quote vectors, max cosine to the question, min-max scaled
    # over the pool) added to the fused score: one sentence that answers beats a chunk that is merely about it
    sentence_weight: float = 0.5
    cross_language_bm25: bool = True  # see Plan.words_anywhere
    cross_language_bm25_weight: float = 0.8  # that list's weight in score fusion
    # lang=auto: a question-language namespace with fewer dense hits than this (under the request's filters)
    # is (almost) empty: every language is searched instead
    min_namespace: int = 10
    # lang=auto: another language's dense and sentence scores (min-max scaled with the question language's)
    # are multiplied by this; 1.0 since no measured set moved and Spanish-only answers reach English questions
    other_language_weight: float = 1.0


class Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def stage(self, name: str, started: float) -> None:
        self.timings[name] = round(self.timings.get(name, 0) + (time.perf_counter() - started) * 1000, 2)

    def total(self) -> dict[str, float]:
        return {**self.timings, "total": round((time.perf_counter() - self._start) * 1000, 2)}


@dataclass
class Retrieved:
    """What answer needs beyond the response: the chunks themselves and the query vector."""

    response: RetrieveResponse
    chunks: list[StoredChunk]
    query_vector: object


@dataclass
class Plan:
    """How one specific request is searched; ``notes`` and ``applied`` are echoed in the response."""

    mode: Literal["documental", "codigo"]
    mode_reason: str
    namespaces: tuple[str, ...] | None
    query_lang: str | None
    filters: SearchFilters
    notes: list[str] = field(default_factory=list)
    applied: dict[str, str] = field(default_factory=dict)
    cross_lingual: bool = False  # lang=auto: other languages are searched by meaning too
    # lang=auto or all: code (in no human language) is searched in every namespace
    code_anywhere: bool = False
    # the question's language has no documents at all (the search was broadened): other languages' words
    # may match its words (product names, API terms, numbers), so BM25 is not kept to the question's language
    words_anywhere: bool = False


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
        self.chunks = chunks
        self.index = index
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.known_products = known_products or (lambda: [])
        self.llm = llm

    def retrieve(self, request: RetrieveRequest) -> RetrieveResponse:
        return self.run(request).response

    def run(self, request: RetrieveRequest) -> Retrieved:
        if request.intent == "bootstrap":
            from chalicelib.pipelines.bootstrap import Bootstrapper

            return Bootstrapper(self).run(request)
        if not request.query:
            raise InvalidInput("query is required for intent 'specific'", field="query")
        query = request.query
        timer = Timer()
        t = time.perf_counter()
        plan = self.plan(request)
        timer.stage("plan", t)

        t = time.perf_counter()
        use_hyde = self.config.hyde if request.hyde is None else request.hyde
        vector, hyde_info = query_vector(
            query, self.embedder, self.llm, enabled=use_hyde, budget_s=self.config.hyde_budget_s
        )
        timer.stage("embed", t)
        if hyde_info is not None and hyde_info.ms is not None:
            timer.timings["hyde"] = hyde_info.ms

        intent = detect_intent(query) if self.config.intents else None
        weigh_hubs = self._weigh_hubs(request, intent)
        # hubs may fill the first candidates: fetch twice as many, weigh them, keep the usual number
        fetch = self.config.candidates * (2 if weigh_hubs else 1)
        dense, bm25, prose = self.search(query, vector, plan, timer, fetch)
        if prose < self.config.min_namespace:
            dense, bm25 = self._broaden(query, vector, plan, timer, fetch) or (dense, bm25)

        t = time.perf_counter()
        other = self._other_languages(vector, plan, fetch)
        if weigh_hubs:
            k = self.config.candidates
            dense, other = (discount_hubs(h, -self.config.hub_penalty, 1.0)[:k] for h in (dense, other))
            bm25 = discount_hubs(bm25, 0.0, self.config.hub_bm25_weight)[:k]
        merged = discounted_merge(dense, other, self.config.other_language_weight)[: self.config.candidates]
        rankings = [[(h.chunk_id, h.score) for h in merged], [(h.chunk_id, h.score) for h in bm25]]
        if intent is not None:
            plan.applied["intent"] = intent.name
            sub = intent.subqueries.get(plan.query_lang or "", "")
            if sub:
                hits = self._of_intent(self.index.keyword_search(sub, keyword_filters(plan), 20), intent)
                rankings.append([(h.chunk_id, h.score) for h in hits])
        # words matched across languages are weaker evidence than words of the question's own language
        weights = [1.0, self.config.cross_language_bm25_weight if plan.words_anywhere else 1.0]
        fused = fuse(rankings, self.config.fusion, self.config.rrf_k, weights + [1.0] * (len(rankings) - 2))
        pool = self.chunks.get_chunks([cid for cid, _ in fused[: max(request.top_k * 4, self.config.pool)]])
        score = dict(fused)
        if self.config.sentence_weight:
            self._sentence_evidence(vector, pool, score, plan)
        score = self._boosted(score, pool, request, plan, intent)
        pool = self._target(vector, request, plan, intent, pool, score)
        kept, dropped = self.select(pool, score, request.top_k)
        timer.stage("fuse", t)

        scores = {
            "dense": {h.chunk_id: h.score for h in (*dense, *other)},
            "bm25": {h.chunk_id: h.score for h in bm25},
        }
        by_id = {c.chunk_id: c for c in pool}
        chosen = [by_id[cid] for cid in kept]
        critical = overview.marked_points(chosen) + overview.inferred_points(chosen, limit=3)
        response = RetrieveResponse(
            mode=plan.mode,
            mode_reason=plan.mode_reason,
            intent="specific",
            query=query,
            lang=request.lang,
            namespaces=list(plan.namespaces) if plan.namespaces else None,
            summary=overview.summary(chosen),
            topics=overview.topics(chosen),
            critical_points=critical,
            items=[
                to_item(c, score[c.chunk_id], {k: v.get(c.chunk_id) for k, v in scores.items()})
                for c in chosen
            ],
            follow_up_refs=overview.follow_ups(chosen),
            scope=request.scope,
            applied=plan.applied,
            duplicates_suppressed=len(dropped),
            notes=plan.notes,
            hyde=hyde_info,
            timings_ms=timer.total(),
        )
        return Retrieved(response, chosen, vector)

    # ------------------------------------------------------------------ building blocks (bootstrap uses them)
    def plan(self, request: RetrieveRequest) -> Plan:
        mode, reason = decide_mode(request)
        query_lang = None
        if request.query:
            found = detect(request.query, self.config.languages)
            if found.confidence >= 0.6 and found.lang in self.config.languages:
                query_lang = found.lang
        notes: list[str] = []
        namespaces: tuple[str, ...] | None
        if request.lang == "all":
            namespaces = None
        elif request.lang != "auto":
            namespaces = (request.lang,)
        else:
            namespaces = (query_lang,) if query_lang else None
            if query_lang is None and request.query:
                notes.append("query language unclear: searched all languages")
        return Plan(
            mode,
            reason,
            namespaces,
            query_lang,
            scoped_filters(request, namespaces, None),
            notes,
            {"mode": mode},
            cross_lingual=request.lang == "auto",
            code_anywhere=request.lang in ("auto", "all"),
        )

    def search(
        self, text: str, vector: np.ndarray, plan: Plan, timer: Timer, k: int | None = None
    ) -> tuple[list[Hit], list[Hit], int]:
        """Dense and BM25 hits, and how many dense hits are prose in the question's namespace (code tagged
        with a language by its comments does not make a namespace: 10 click functions read as Spanish kept
        Spanish questions away from click's English docs)."""
        k = k or self.config.candidates
        words = keyword_filters(plan)
        # code is written in no human language: unless the caller chose one, it is searched in every namespace
        code = replace(plan.filters, langs=None, kinds=("code",))
        t = time.perf_counter()
        if _splits(plan, plan.filters):
            prose = self.index.dense_search(
                vector, self.embedder.space, replace(plan.filters, kinds=("doc",)), k
            )
            dense = merge_by_score(prose, self.index.dense_search(vector, self.embedder.space, code, k), k)
        else:
            dense = prose = self.index.dense_search(vector, self.embedder.space, plan.filters, k)
        timer.stage("dense", t)
        t = time.perf_counter()
        if _splits(plan, words):
            in_words = self.index.keyword_search(text, replace(words, kinds=("doc",)), k)
            bm25 = merge_by_score(in_words, self.index.keyword_search(text, code, k), k)
        else:
            bm25 = self.index.keyword_search(text, words, k)
        timer.stage("bm25", t)
        return dense, bm25, len(prose)

    def _of_intent(self, hits: list[Hit], intent: Intent) -> list[Hit]:
        """An intent's subquery exists to bring in the chunks the intent is after (pricing tables, rules):
        its words ("precios planes tarifas") match any chunk that mentions them, so only chunks of the
        intent's types (or critical ones, for rules) join the fusion. A corpus without them is left alone:
        "What party rules in Melbourne?" over encyclopedia paragraphs ranks like any other question."""
        if not hits or not (intent.boost_types or intent.boost_critical):
            return hits
        wanted = {
            c.chunk_id
            for c in self.chunks.get_chunks([h.chunk_id for h in hits])
            if c.content_type in intent.boost_types or (intent.boost_critical and c.critical)
        }
        return [h for h in hits if h.chunk_id in wanted]

    def _sentence_evidence(
        self, vector: np.ndarray, pool: list[StoredChunk], score: dict[str, float], plan: Plan
    ) -> None:
        """Each candidate's best sentence (stored quote vectors; no embedding here), scaled over the pool."""
        space = self.embedder.space
        q = np.asarray(vector, dtype=np.float32)
        # the language prior holds here too: another language's sentence counts at the same discount
        langs = plan.namespaces if plan.cross_lingual else None
        other = {c.chunk_id for c in pool if langs and c.lang not in langs and c.kind == "doc"}
        best: list[tuple[str, float]] = []
        for c in pool:
            if c.quote_vectors and c.quote_space == space.model_id:
                sims = decode_vectors(c.quote_vectors, space.dim) @ q
                if len(sims):
                    best.append((c.chunk_id, float(sims.max())))
        if len(best) < 2:
            return
        for cid, scaled in min_max(best):
            weight = self.config.sentence_weight * (
                self.config.other_language_weight if cid in other else 1.0
            )
            score[cid] = score.get(cid, 0.0) + weight * scaled

    def _weigh_hubs(self, request: RetrieveRequest, intent: Intent | None) -> bool:
        asked = (intent is not None and intent.name == "history") or any(
            t in HUB_TYPES for t in request.filters.content_type or ()
        )
        return not asked and (self.config.hub_penalty != 0.0 or self.config.hub_bm25_weight != 1.0)

    def _other_languages(self, vector: np.ndarray, plan: Plan, k: int) -> list[Hit]:
        """lang=auto: the answer may exist only in another language. Meaning crosses languages, words do not:
        the other namespaces are searched densely and join the dense list at a discount."""
        langs = plan.filters.langs
        if not plan.cross_lingual or langs is None:
            return []
        others = tuple(lang for lang in self.config.languages if lang not in langs)
        if not others:
            return []
        filters = replace(plan.filters, langs=others)
        return self.index.dense_search(vector, self.embedder.space, filters, k)

    def _broaden(
        self, query: str, vector: np.ndarray, plan: Plan, timer: Timer, k: int
    ) -> tuple[list[Hit], list[Hit]] | None:
        """(Almost) nothing in the question's language: the documents are in another one (a few code-heavy
        chunks detected as English do not make a Spanish manual English). Search all, saying so."""
        if plan.namespaces is not None and plan.filters.langs is not None and plan.cross_lingual:
            plan.notes.append(f"(almost) nothing in namespace {plan.namespaces[0]!r}; searched all languages")
            plan.namespaces = None
            plan.filters = replace(plan.filters, langs=None)
            plan.words_anywhere = self.config.cross_language_bm25
            dense, bm25, _ = self.search(query, vector, plan, timer, k)
            return dense, bm25
        return None

    def _boosted(
        self,
        score: dict[str, float],
        pool: list[StoredChunk],
        request: RetrieveRequest,
        plan: Plan,
        intent: Intent | None,
    ) -> dict[str, float]:
        # the configured vocabulary plus the candidates' own products: no store-wide scan on the query path
        product = mentioned_product(
            request.query or "", sorted({*self.known_products(), *(c.product for c in pool)})
        )
        if product and not request.filters.product:
            plan.applied["product_boost"] = product
        top = max((score[c.chunk_id] for c in pool), default=0.0)
        for c in pool:
            if c.kind == "doc" and names_a_heading(request.query or "", c.section_title, c.content):
                # someone typing a section's exact name wants that section: it goes above every chunk that
                # is not called that, and several sections of that name keep their own order
                score[c.chunk_id] += top
                plan.applied["heading_match"] = c.section_title
            if product and c.product == product and not request.filters.product:
                score[c.chunk_id] *= PRODUCT_BOOST
            if intent is not None and (
                c.content_type in intent.boost_types or (intent.boost_critical and c.critical)
            ):
                score[c.chunk_id] *= INTENT_BOOST
            if c.kind == "code":
                score[c.chunk_id] *= CODE_MODE_BOOST if plan.mode == "codigo" else DOC_MODE_CODE_WEIGHT
        return score

    def _target(
        self,
        vector: np.ndarray,
        request: RetrieveRequest,
        plan: Plan,
        intent: Intent | None,
        pool: list[StoredChunk],
        score: dict[str, float],
    ) -> list[StoredChunk]:
        """A question about one product with a clear intent ("¿cuánto cuesta Marea?") has a target: that
        product's chunks of the intent's type. The best one leads, in whatever language it was written."""
        product = plan.applied.get("product_boost")
        if not product or intent is None or not intent.boost_types or request.filters.content_type:
            return pool
        if plan.mode == "codigo":  # a question about code wants the code first, not the product's guide
            return pool
        filters = replace(
            plan.filters,
            products=(product,),
            content_types=intent.boost_types,
            langs=None if request.lang == "auto" else plan.filters.langs,
        )
        hits = self.index.dense_search(vector, self.embedder.space, filters, 1)
        if not hits:
            return pool
        target = hits[0].chunk_id
        if target not in {c.chunk_id for c in pool}:
            pool = pool + self.chunks.get_chunks([target])
        score[target] = max(score.values(), default=0.0) * 1.01 + 1e-6
        plan.applied["target"] = f"{product}/{intent.name}"
        lang = next((c.lang for c in pool if c.chunk_id == target), None)
        if plan.namespaces and lang not in plan.namespaces:
            plan.notes.append(f"the {product} {intent.name} content is only in {lang!r}")
        return pool

    def select(
        self, pool: list[StoredChunk], score: dict[str, float], top_k: int
    ) -> tuple[list[str], list[str]]:
        by_id = {c.chunk_id: c for c in pool}
        ranked = sorted((cid for cid in score if cid in by_id), key=lambda cid: -score[cid])
        return suppress_near_duplicates(
            [(cid, by_id[cid].content) for cid in ranked], self.config.duplicate_threshold, top_k
        )


def _splits(plan: Plan, filters: SearchFilters) -> bool:
    """Searched as prose of the namespace plus code of any language (code_anywhere, a namespace set, and
    no kind asked for)."""
    return plan.code_anywhere and filters.langs is not None and filters.kinds is None


def keyword_filters(plan: Plan) -> SearchFilters:
    """BM25's filters: words only match words of the same language, so when every namespace is searched
    (lang=all, or a search broadened after finding nothing) prose is matched in the query's language only; a
    cross-language BM25 list would add noise. (Code is matched in every namespace: see ``search``.)"""
    if plan.namespaces is None and plan.query_lang and not plan.words_anywhere:
        return replace(plan.filters, langs=(plan.query_lang,))
    return plan.filters


def scoped_filters(
    request: RetrieveRequest, namespaces: tuple[str, ...] | None, kinds: tuple[str, ...] | None
) -> SearchFilters:
    """Scope and filters of a request as store pre-filters (scope narrows every search, never post-filters)."""
    scope, f = request.scope, request.filters
    tags: tuple[str, ...] | None = None
    if scope.tags is not None and f.tags is not None:
        tags = tuple(set(scope.tags) & set(f.tags))
    elif scope.tags is not None or f.tags is not None:
        tags = tuple(scope.tags or f.tags or ())

    def tup(v: list[str] | None) -> tuple[str, ...] | None:
        return tuple(v) if v is not None else None

    source_ids = tup(scope.source_id)
    access = request._access  # the API key's reach: narrows whatever the request asked for
    if access is not None and access.source_ids is not None:
        allowed = access.source_ids
        source_ids = allowed if source_ids is None else tuple(s for s in source_ids if s in allowed)
    return SearchFilters(
        source_ids=source_ids,
        langs=namespaces,
        products=tup(f.product),
        content_types=tup(f.content_type),
        categories=tup(f.category),
        tags=tags,
        source_ref=scope.source_ref,
        kinds=kinds,
        allowed_refs=access.source_refs if access is not None else None,
        allowed_tags=access.tags if access is not None else None,
    )


def to_item(c: StoredChunk, score: float, scores: dict[str, float | None]) -> Item:
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
        kind=c.kind,
        critical=c.critical,
        line_start=c.line_start,
        line_end=c.line_end,
        summary=c.enrichment.summary,
        keywords=c.enrichment.keywords,
        enrichment_source=c.enrichment.source,
        scores={k: round(v, 6) for k, v in scores.items() if v is not None},
    )
