"""Retrieve (specific): mode -> namespaces -> query vector -> dense + BM25 (+ intent subqueries) -> fusion
-> boosts -> near-duplicate suppression -> items with summary, topics, critical points and follow-ups."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import TYPE_CHECKING

import numpy as np

from chalicelib import languages
from chalicelib.enrichment.vocabulary import HUB_TYPES
from chalicelib.errors import InvalidInput
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.llms.client import ChatLLM
from chalicelib.models.api import HydeInfo, RerankInfo, RetrieveRequest, RetrieveResponse, RewriteInfo
from chalicelib.models.records import Hit, StoredChunk
from chalicelib.pipelines import exact as exact_tokens
from chalicelib.pipelines import overview, rewrite
from chalicelib.pipelines.exact import Exact
from chalicelib.pipelines.filters import keyword_filters, scoped_filters
from chalicelib.pipelines.fusion import fuse, min_max, suppress_near_duplicates
from chalicelib.pipelines.hyde import query_vector
from chalicelib.pipelines.items import to_item
from chalicelib.pipelines.query import Query, Translation, understand
from chalicelib.pipelines.query_understanding import Intent, mentioned_product, names_a_heading
from chalicelib.pipelines.rerank import RerankConfig, rerank
from chalicelib.pipelines.search import Lists, search, words_beside
from chalicelib.pipelines.types import Plan, Retrieved, Timer, require_served
from chalicelib.protocols import ChunkStore, Embedder, Reranker, Translator, VectorIndex
from chalicelib.quotes import stored_vectors
from chalicelib.text import fold, words

if TYPE_CHECKING:
    from chalicelib.auth import KeyPolicy

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
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
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
    # dense scores are CSLS: cosine minus this much of the chunk's mean cosine to its nearest chunks, so that
    # chunks close to everything stop coming first for every question (docs/evaluation.md); 0: cosine
    hubness_weight: float = 0.15
    # lang=auto and a translator: the question is also put into each other language that holds documents and
    # searched there as that language's own question (dense and BM25), these lists at this weight; 0: off
    translated_weight: float = 1.0
    # the same, times this, when the question's own language has documents too but does not answer well:
    # another language's best chunk is about as close to the question as its own language's best (within
    # ``alongside_margin`` of cosine). A company folder writes most facts in one language only (the company
    # set's cross-language questions). Not when that chunk is a translation of one of the own language's
    # best (the two chunks' cosine >= ``parallel_cosine`` and ahead of the next by ``parallel_lead``): the fact
    # is written in both languages. XQuAD mixed's pairs: cosine 0.88 and lead 0.056 at their 5th percentile;
    # the company set's cross-language questions: 0.84 and 0.008 at their median
    alongside_weight: float = 1.0
    alongside_margin: float = 0.05
    # the same bilingual store, when another language's best chunk is within ``meaning_lead`` of cosine of
    # the question language's best (or ahead): that language's own dense list for the question's vector joins
    # the fusion as a list of its own (its top ``meaning_top``, at ``meaning_weight``) beside the
    # translation's lists. A machine translation loses words ("portátil" -> "portable", "ONG" -> "stops
    # ONG"); the multilingual vector keeps them. Company set: cross-language hit@1 43.8 -> 56.2, hit@5 87.5
    # -> 91.7 (docs/evaluation.md)
    meaning_weight: float = 1.0
    meaning_top: int = 10
    meaning_lead: float = -0.02
    parallel_cosine: float = 0.88
    parallel_lead: float = 0.04
    # the same, sentence by sentence: another language's best sentence for the question has a translation
    # among the question language's best chunks at this cosine (examples/: "Where is my data stored?" and
    # "¿Dónde se guardan mis datos?" 0.95; the company set's one-language facts at most 0.87; 1.0: off)
    parallel_sentence: float = 0.93
    # near-duplicate pages ("Planta de Monterrey", "Planta de Valencia"): the chunks of the one whose title
    # holds the name asked about are multiplied by this
    title_name_boost: float = 1.1
    # the second stage (SABIO_RERANKER): its top N, time budget and blend with the first stage's order
    rerank: RerankConfig = field(default_factory=RerankConfig)
    # LLM query rewriting (SABIO_RETRIEVAL_REWRITE): a short question expanded, a multi-part one split; each
    # rewrite's dense and BM25 lists fused beside the question's at this weight, within the budget
    rewrite: bool = False
    rewrite_budget_s: float = 2.0
    rewrite_weight: float = 0.7
    llm_json_mode: bool = True  # SABIO_LLM_JSON_MODE, for the rewriting's request


@dataclass(frozen=True)
class Candidates:
    """What a specific search found before fusion: the lists to fuse, and every score for the response."""

    plan: Plan
    query: Query  # with the translations it was searched by
    rankings: list[list[tuple[str, float]]]
    weights: list[float]
    dense: dict[str, float]
    bm25: dict[str, float]


class Retriever:
    """Specific retrieval: plan -> query vector -> candidates -> fusion -> priors -> selection -> response."""

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

    def reconfigured(self, **config: object) -> Retriever:
        """The same retriever (stores, embedder, products, LLM, feedback, translator) with ``config`` changed
        (RetrievalConfig fields): a variant to measure against the default."""
        return Retriever(
            self.chunks,
            self.index,
            self.embedder,
            replace(self.config, **config),  # type: ignore[arg-type]
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
        second_stage = self._reranks(request)
        timer = Timer()
        t = time.perf_counter()
        query = understand(request, self.config.languages, self.config.intents)
        plan = self.plan(request, access, query)
        intent = query.intent
        timer.stage("plan", t)
        fetch = self._fetch(request, intent)
        words = words_beside(self.index, request.query, plan, fetch)  # BM25 while the query is embedded
        vector, hyde_info = self._embed(request, timer)
        found = self._candidates(request, vector, plan, query, timer, words)
        found, rewrite_info = self._rewritten(found, timer, fetch)
        t = time.perf_counter()
        fused = fuse(found.rankings, self.config.fusion, self.config.rrf_k, found.weights)
        keep = max(request.top_k, self.config.rerank.candidates) if second_stage else request.top_k
        plan, chosen, score, dropped, exact = self._rank(
            request, vector, found.plan, found.query, fused, keep
        )
        timer.stage("fuse", t)
        scores = {"dense": found.dense, "bm25": found.bm25}
        rerank_info = None
        if second_stage:
            plan, chosen, scores["rerank"], rerank_info = self._second_stage(
                request, plan, query, chosen, exact, timer
            )
        elif self.reranker is not None:  # configured, and the request asked for the first stage's order
            plan = plan.applying("rerank", "off (the request said rerank: false)")
        chosen = chosen[: request.top_k]
        items = [
            to_item(c, score[c.chunk_id], {k: v.get(c.chunk_id) for k, v in scores.items()}) for c in chosen
        ]
        response = RetrieveResponse(
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
        broadened = found.plan.words_anywhere or (found.plan.namespaces is None and query.lang is not None)
        return Retrieved(
            response, chosen, vector, found.query, found.plan.filters, exact.unmentioned, broadened
        )

    def _rewritten(
        self, found: Candidates, timer: Timer, fetch: int
    ) -> tuple[Candidates, RewriteInfo | None]:
        """The LLM's rewrites of a short or multi-part question searched beside it: their lists join the
        fusion. Off unless configured; a failure searches the question alone and says why."""
        if not self.config.rewrite:
            return found, None
        t = time.perf_counter()
        info = rewrite.rewrites(
            found.query, self.llm, self.config.rewrite_budget_s, self.config.llm_json_mode
        )
        if info is None or not info.used:
            return found, info
        if info.kind == "multi-part":  # each part is retrieved on its own (``_joined``)
            timer.stage("rewrite", t)
            return replace(found, plan=found.plan.applying("rewrites", " | ".join(info.queries))), info
        rankings, weights = list(found.rankings), list(found.weights)
        dense, bm25 = dict(found.dense), dict(found.bm25)
        for text in info.queries:  # each searched as the question was: its language, others by meaning
            vector = self.embedder.embed_query(text)
            lists = self._search(text, vector, found.plan, timer, fetch)
            other = self._other_languages(vector, found.plan, fetch)
            merged = discounted_merge(lists.dense, other, self.config.other_language_weight)
            merged = merged[: self.config.candidates]
            rankings += [[(h.chunk_id, h.score) for h in merged], [(h.chunk_id, h.score) for h in lists.bm25]]
            weights += [self.config.rewrite_weight, self.config.rewrite_weight]
            for h in (*lists.dense, *other):
                dense.setdefault(h.chunk_id, h.score)
            for h in lists.bm25:
                bm25.setdefault(h.chunk_id, h.score)
        timer.stage("rewrite", t)
        plan = found.plan.applying("rewrites", " | ".join(info.queries))
        return replace(found, plan=plan, rankings=rankings, weights=weights, dense=dense, bm25=bm25), info

    def _reranks(self, request: RetrieveRequest) -> bool:
        """Whether this request runs the second stage: ``rerank`` null follows the server (on when a
        reranker is configured); true without one is the caller's mistake, said before any work."""
        if request.rerank and self.reranker is None:
            raise InvalidInput(
                "rerank: true, but this server has no reranker (SABIO_RERANKER=none); "
                "send rerank: null or false, or configure one",
                field="rerank",
            )
        return self.reranker is not None and request.rerank is not False

    def _second_stage(
        self,
        request: RetrieveRequest,
        plan: Plan,
        query: Query,
        chosen: list[StoredChunk],
        exact: Exact,
        timer: Timer,
    ) -> tuple[Plan, list[StoredChunk], dict[str, float], RerankInfo]:
        """The first stage's top candidates reordered by the reranker, those holding a rare identifier of the
        question kept first; on any failure the first-stage order, with a note."""
        assert self.reranker is not None
        t = time.perf_counter()
        pinned = frozenset(cid for ids in exact.rare.values() for cid in ids)
        done = rerank(self.reranker, request.query or "", chosen, self.config.rerank, pinned)
        timer.stage("rerank", t)
        by_id = {c.chunk_id: c for c in chosen}
        info = done.info
        if info.used:
            plan = plan.applying("rerank", f"{info.model} ({info.candidates} candidates, {info.ms:.0f} ms)")
        else:
            say = languages.or_fallback(query.lang or query.guess)
            plan = plan.applying("rerank", f"{info.model}: not used ({info.reason})")
            plan = plan.noted(say.note("rerank_failed", model=info.model, reason=info.reason))
        return plan, [by_id[cid] for cid in done.order], done.scores, info

    def plan(self, request: RetrieveRequest, access: KeyPolicy | None, query: Query) -> Plan:
        """Mode, the question's language and the namespaces to search, under the caller's filters."""
        require_served(request.lang, self.config.languages)
        mode, reason, query_lang = query.mode, query.mode_reason, query.lang
        notes: tuple[str, ...] = ()
        namespaces: tuple[str, ...] | None
        if request.lang == "all":
            namespaces = None
        elif request.lang != "auto":
            namespaces = (request.lang,)
        else:
            namespaces = (query_lang,) if query_lang else None
            if query_lang is None and request.query:
                notes = (languages.or_fallback(query.guess).note("unclear_language"),)
        return Plan(
            mode,
            reason,
            namespaces,
            query_lang,
            scoped_filters(request, access, namespaces, None),
            notes,
            (("mode", mode),),
            cross_lingual=request.lang == "auto",
            code_anywhere=request.lang in ("auto", "all"),
            identifiers_anywhere=request.lang in ("auto", "all") and bool(query.identifiers),
        )

    def _embed(self, request: RetrieveRequest, timer: Timer) -> tuple[np.ndarray, HydeInfo | None]:
        t = time.perf_counter()
        use_hyde = self.config.hyde if request.hyde is None else request.hyde
        vector, hyde_info = query_vector(
            request.query or "", self.embedder, self.llm, enabled=use_hyde, budget_s=self.config.hyde_budget_s
        )
        timer.stage("embed", t)
        if hyde_info is not None and hyde_info.ms is not None:
            timer.timings["hyde"] = hyde_info.ms
        return vector, hyde_info

    def _fetch(self, request: RetrieveRequest, intent: Intent | None) -> int:
        """Candidates per list: hubs may fill the first ones, so twice as many when hubs are weighed."""
        return self.config.candidates * (2 if self._weigh_hubs(request, intent) else 1)

    def _candidates(
        self,
        request: RetrieveRequest,
        vector: np.ndarray,
        plan: Plan,
        query: Query,
        timer: Timer,
        words: Future[tuple[list[Hit], float]] | None = None,
    ) -> Candidates:
        """The question's namespace (broadened when it is almost empty), other languages by meaning, hubs
        weighed, and an intent's subquery: the ranked lists to fuse. ``words``: this plan's BM25 list, when
        it was started beside the embedding."""
        intent = query.intent
        weigh_hubs = self._weigh_hubs(request, intent)
        fetch = self._fetch(request, intent)
        lists = self._search(query.text, vector, plan, timer, fetch, words)
        if lists.prose < self.config.min_namespace and self._may_broaden(plan):
            plan = self._broadened(plan, lists.prose)
            lists = self._search(query.text, vector, plan, timer, fetch)
        t = time.perf_counter()
        dense, bm25 = lists.dense, lists.bm25
        other = self._other_languages(vector, plan, fetch)
        if weigh_hubs:
            dense, other, bm25 = (
                self._hubs_down(dense),
                self._hubs_down(other),
                self._hubs_down(bm25, words=True),
            )
        close = (
            bool(other)
            and other[0].score >= (dense[0].score if dense else 0.0) - self.config.alongside_margin
            and not self._parallel(other[0], dense[:5])
            and not self._twin_sentence(vector, other[0], dense[:5])
        )
        plan, translated = self._translated(
            query, vector, plan, len(other) if close else 0, timer, fetch, weigh_hubs
        )
        # beside the question's own language, another language's documents are found by their own words and
        # meaning: the translation's lists stand for them (at a discount: an answer in the question's language
        # comes first); the question's vector across languages is not merged into its own language's list,
        # only fused as a list of its own when that language is about as close (``meaning_lead``)
        alongside = plan.namespaces is not None and bool(translated)
        merged = discounted_merge(dense, [] if alongside else other, self.config.other_language_weight)
        merged = merged[: self.config.candidates]
        rankings = [[(h.chunk_id, h.score) for h in merged], [(h.chunk_id, h.score) for h in bm25]]
        # words matched across languages are weaker evidence than words of the question's own language
        weights = [1.0, self.config.cross_language_bm25_weight if plan.words_anywhere else 1.0]
        if intent is not None:
            plan = plan.applying("intent", intent.name)
            sub = intent.subqueries.get(plan.query_lang or "", "")
            if sub:
                # the subquery's words are its language's ("preços planos tarifas"): they match documents in
                # that language only, even when the search was broadened to every language
                own = replace(keyword_filters(plan), langs=(plan.query_lang,)) if plan.query_lang else None
                hits = self._of_intent(
                    self.index.keyword_search(sub, own or keyword_filters(plan), 20), intent
                )
                rankings.append([(h.chunk_id, h.score) for h in hits])
                weights.append(1.0)
        if alongside and self._meaning_counts(dense, other):
            rankings.append([(h.chunk_id, h.score) for h in other[: self.config.meaning_top]])
            weights.append(self.config.meaning_weight)
        timer.stage("fuse", t)
        weight = self.config.translated_weight * (self.config.alongside_weight if alongside else 1.0)
        for _, found in translated:
            rankings += [
                [(h.chunk_id, h.score) for h in found.dense],
                [(h.chunk_id, h.score) for h in found.bm25],
            ]
            weights += [weight, weight]
        scores = {h.chunk_id: h.score for h in (*dense, *other)}
        matched = {h.chunk_id: h.score for h in bm25}
        for _, found in translated:  # a chunk found only by the translation shows that score
            scores.update({h.chunk_id: h.score for h in found.dense if h.chunk_id not in scores})
            matched.update({h.chunk_id: h.score for h in found.bm25 if h.chunk_id not in matched})
        for translation, _ in translated:
            query = query.translated(translation)
        return Candidates(plan, query, rankings, weights, scores, matched)

    def _twin_sentence(self, vector: np.ndarray, hit: Hit, own: list[Hit]) -> bool:
        """Another language's ``hit`` holds a translation of its best sentence for the question among the
        question language's ``own`` best chunks (their stored sentence vectors within ``parallel_sentence``):
        the fact is written in both languages, though the two pages were cut into chunks differently (one FAQ
        chunk in English, a chunk per section in Spanish) and ``_parallel`` cannot pair them."""
        space, limit = self.embedder.space, self.config.parallel_sentence
        if limit >= 1.0:
            return False
        chunks = {c.chunk_id: c for c in self.chunks.get_chunks([hit.chunk_id, *(h.chunk_id for h in own)])}
        stored = {cid: stored_vectors(c, space) for cid, c in chunks.items()}
        vectors = {cid: v for cid, v in stored.items() if v is not None}
        theirs = vectors.pop(hit.chunk_id, None)
        if theirs is None or not len(theirs) or not vectors:
            return False
        best = theirs[int(np.argmax(theirs @ np.asarray(vector, dtype=np.float32)))]
        return any(len(v) and float((v @ best).max()) >= limit for v in vectors.values())

    def _holds(self, vector: np.ndarray, plan: Plan, lang: str) -> bool:
        """Whether anything written in ``lang`` (documents, or code commented in it) is there for the caller
        under the request's filters."""
        filters = replace(plan.filters, langs=(lang,))
        return bool(self.index.dense_search(vector, self.embedder.space, filters, 1))

    def _meaning_counts(self, dense: list[Hit], other: list[Hit]) -> bool:
        """Beside the translation, another language's chunks found by the question's own vector count too:
        when that language's best is about as close as the question language's best (``meaning_lead``)."""
        if not self.config.meaning_weight or not other:
            return False
        return other[0].score >= (dense[0].score if dense else 0.0) + self.config.meaning_lead

    def _parallel(self, hit: Hit, own: list[Hit]) -> bool:
        """Another language's ``hit`` says what one of the question language's ``own`` best chunks says: that
        chunk is close to it (``parallel_cosine``) and closer by ``parallel_lead`` than the others are (tables
        and lists resemble each other in any language without being translations)."""
        if len(own) < 2 or self.config.parallel_cosine >= 1.0:
            return False
        vectors = self.index.get_vectors([hit.chunk_id, *(h.chunk_id for h in own)])
        found = vectors.get(hit.chunk_id)
        if found is None:
            return False
        alike = sorted(
            (float(np.dot(found, v)) for k, v in vectors.items() if k != hit.chunk_id), reverse=True
        )
        if not alike:
            return False
        runner_up = alike[1] if len(alike) > 1 else 0.0
        return alike[0] >= self.config.parallel_cosine and alike[0] - runner_up >= self.config.parallel_lead

    def _translated(
        self,
        query: Query,
        asked: np.ndarray,
        plan: Plan,
        others_found: int,
        timer: Timer,
        fetch: int,
        weigh_hubs: bool,
    ) -> tuple[Plan, list[tuple[Translation, Lists]]]:
        """lang=auto: the answer may be written in another language. Its documents are searched again with
        the question put into their language (dense and BM25 as for a question asked in it) when the
        question's own namespace was (almost) empty and something is written in theirs (an English question
        over code commented in English is not put into Spanish), or (``alongside_weight``) when other
        languages hold enough to fill a list: a few code-heavy chunks read as English do not make a Spanish
        manual bilingual. A failed translation is noted; that language is then searched by the question's own
        vector and words only. The question's names go along translated as well ("Reino Unido" -> "united
        kingdom"): the translator keeps a name inside a sentence as written, for product names' sake."""
        source = plan.query_lang
        if (
            self.translator is None
            or not self.config.translated_weight
            or not plan.cross_lingual
            or not source
        ):
            return plan, []
        alongside = plan.namespaces is not None
        if alongside and (not self.config.alongside_weight or others_found < self.config.min_namespace):
            return plan, []
        found: list[tuple[Translation, Lists]] = []
        keep = [*self.known_products()]
        for target in (lang for lang in self.config.languages if lang != source):
            if not alongside and not self._holds(asked, plan, target):
                continue  # nothing is written in that language: its translation would find nothing new
            t = time.perf_counter()
            text = self.translator.translate(query.text, source, target, keep)
            # names of several words go along translated ("Reino Unido"); one word is often a product's name
            # that translates into a common word ("Faro" -> "Lighthouse")
            aliases = tuple(
                (n, a) for n in query.names if len(n.split()) > 1 and (a := self._alias(n, source, target))
            )
            if text is not None and aliases:
                text = f"{text} ({', '.join(a for _, a in aliases)})"
            timer.stage("translate", t)
            if text is None:
                if (source, target) in self.translator.pairs():
                    say = languages.or_fallback(source)
                    plan = plan.noted(say.note("translation_failed", lang=say.name_of(target)))
                continue
            plan = plan.applying(f"translation_{target}", text)
            t = time.perf_counter()
            vector = self.embedder.embed_query(text)
            timer.stage("embed", t)
            there = replace(
                plan,
                namespaces=(target,),
                query_lang=target,
                filters=replace(plan.filters, langs=(target,)),
                words_anywhere=False,
            )
            lists = self._search(text, vector, there, timer, fetch)
            if weigh_hubs:
                lists = Lists(
                    self._hubs_down(lists.dense), self._hubs_down(lists.bm25, words=True), lists.prose
                )
            found.append((Translation(target, text, vector, aliases), lists))
        return plan, found

    def _hubs_down(self, hits: list[Hit], words: bool = False) -> list[Hit]:
        """Hubs (changelogs) weighed down before fusion: dense scores shifted, BM25 scores scaled."""
        if words:
            return discount_hubs(hits, 0.0, self.config.hub_bm25_weight)[: self.config.candidates]
        return discount_hubs(hits, -self.config.hub_penalty, 1.0)[: self.config.candidates]

    def _search(
        self,
        text: str,
        vector: np.ndarray,
        plan: Plan,
        timer: Timer,
        k: int,
        words: Future[tuple[list[Hit], float]] | None = None,
    ) -> Lists:
        return search(
            self.index, self.embedder.space, text, vector, plan, timer, k, words, self.config.hubness_weight
        )

    def _rank(
        self,
        request: RetrieveRequest,
        vector: np.ndarray,
        plan: Plan,
        query: Query,
        fused: list[tuple[str, float]],
        keep: int,
    ) -> tuple[Plan, list[StoredChunk], dict[str, float], int, Exact]:
        """The fused candidates read in full, the soft priors applied (sentence evidence, heading, product,
        intent, mode, a target), near-duplicates dropped: the ``keep`` chosen chunks, best first."""
        size = max(request.top_k * 4, self.config.pool)
        pool = self.chunks.get_chunks([cid for cid, _ in fused[:size]])
        exact = self._exact(request, query, plan, pool)
        score = dict(fused)
        if self.config.sentence_weight:
            score = self._sentence_evidence(vector, pool, score, plan)
        plan, score = self._boosted(score, pool, request, plan, query)
        plan, pool, score = self._target(vector, request, plan, query.intent, pool, score)
        plan, score = self._feedback(vector, plan, pool, score)
        plan, pool, score = self._rare_first(exact, plan, pool, score)
        kept, dropped = self.select(pool, score, keep)
        if keep > request.top_k and len(kept) < keep:  # the second stage reads on down the fused list
            pool, kept = self._read_on(pool, kept, fused[size:], keep)
        by_id = {c.chunk_id: c for c in pool}
        return plan, [by_id[cid] for cid in kept], score, len(dropped), exact

    def _read_on(
        self, pool: list[StoredChunk], kept: list[str], rest: list[tuple[str, float]], keep: int
    ) -> tuple[list[StoredChunk], list[str]]:
        """``kept`` extended to ``keep`` chunks from ``rest`` (fused order), near-duplicates skipped."""
        have = set(kept)
        more = [
            c
            for c in self.chunks.get_chunks([cid for cid, _ in rest[: keep - len(kept) + 5]])
            if c.chunk_id not in have
        ]
        by_id = {c.chunk_id: c for c in (*pool, *more)}
        ranked = [(cid, by_id[cid].content) for cid in kept] + [(c.chunk_id, c.content) for c in more]
        extended, _ = suppress_near_duplicates(ranked, self.config.duplicate_threshold, keep, len(kept))
        return [*pool, *more], extended

    def _exact(self, request: RetrieveRequest, query: Query, plan: Plan, pool: list[StoredChunk]) -> Exact:
        """The question's names and identifiers looked up as written, in every language the caller may
        read unless it asked for one (a name in another language's words is looked up translated)."""
        if not query.names and not query.identifiers:
            return Exact({}, ())
        filters = replace(plan.filters, langs=None) if request.lang == "auto" else plan.filters
        filters = replace(filters, kinds=None)
        # a search broadened because the question's language has (almost) no documents reads names across
        # languages: a name missing as written may be written otherwise there
        return exact_tokens.find(
            query,
            self.index,
            self.chunks,
            filters,
            pool,
            lambda n: self._variants(n, query),
            judge_names=not plan.lacks_language,
        )

    def _variants(self, name: str, query: Query) -> list[str]:
        """``name`` in the other languages this server translates into (Spain -> España)."""
        if not query.lang:
            return []
        others = (lang for lang in self.config.languages if lang != query.lang)
        return [a for target in others if (a := self._alias(name, query.lang, target))]

    def _alias(self, name: str, source: str, target: str) -> str | None:
        """A name put into another language ("Reino Unido" -> "United Kingdom"); None when the translator
        leaves it as it is ("Nespresso")."""
        if self.translator is None:
            return None
        text = self.translator.translate(name, source, target, names=False)
        if not text or fold(text) == fold(name):
            return None
        return text

    def _rare_first(
        self, exact: Exact, plan: Plan, pool: list[StoredChunk], score: dict[str, float]
    ) -> tuple[Plan, list[StoredChunk], dict[str, float]]:
        """The few chunks that hold a rare name or identifier of the question come first (those holding
        more of them before the rest), in the order the other evidence gave them: an SKU's row, an error
        code's line."""
        if not exact.rare:
            return plan, pool, score
        held: dict[str, int] = {}
        for chunk_ids in exact.rare.values():
            for cid in chunk_ids:
                held[cid] = held.get(cid, 0) + 1
        have = {c.chunk_id for c in pool}
        pool = pool + self.chunks.get_chunks([cid for cid in held if cid not in have])
        top = max(score.values(), default=0.0)
        score = dict(score)
        for cid, n in held.items():  # before the rest; among themselves in the order they had
            score[cid] = top * (1 + n) + score.get(cid, 0.0)
        return plan.applying("exact", ", ".join(exact.rare)), pool, score

    def _feedback(
        self, vector: np.ndarray, plan: Plan, pool: list[StoredChunk], score: dict[str, float]
    ) -> tuple[Plan, dict[str, float]]:
        """Feedback on similar questions, as a bounded factor on the candidates' scores (never a new one)."""
        factors = self.prior(vector) if self.prior is not None else {}
        moved = {c.chunk_id: score[c.chunk_id] * factors[c.chunk_id] for c in pool if c.chunk_id in factors}
        if not moved:
            return plan, score
        return plan.applying("feedback", str(len(moved))), {**score, **moved}

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
    ) -> dict[str, float]:
        """Each candidate's best sentence (stored quote vectors; no embedding here), scaled over the pool and
        added to its score."""
        space = self.embedder.space
        q = np.asarray(vector, dtype=np.float32)
        # the language prior holds here too: another language's sentence counts at the same discount
        langs = plan.namespaces if plan.cross_lingual else None
        other = {c.chunk_id for c in pool if langs and c.lang not in langs and c.kind == "doc"}
        best: list[tuple[str, float]] = []
        for c in pool:
            stored = stored_vectors(c, space)
            if stored is not None and len(stored):
                best.append((c.chunk_id, float((stored @ q).max())))
        if len(best) < 2:
            return score
        added = dict(score)
        for cid, scaled in min_max(best):
            weight = self.config.sentence_weight * (
                self.config.other_language_weight if cid in other else 1.0
            )
            added[cid] = added.get(cid, 0.0) + weight * scaled
        return added

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
        return self.index.dense_search(vector, self.embedder.space, filters, k, self.config.hubness_weight)

    @staticmethod
    def _may_broaden(plan: Plan) -> bool:
        return plan.namespaces is not None and plan.filters.langs is not None and plan.cross_lingual

    def _broadened(self, plan: Plan, found: int) -> Plan:
        """(Almost) nothing in the question's language: the documents are in another one (a few code-heavy
        chunks detected as English do not make a Spanish manual English). Every language is searched; a note
        says so when the question's language has nothing at all (a small bilingual folder with a few pages
        in it is searched the same way, and there is nothing to tell: ``applied`` records it)."""
        assert plan.namespaces is not None
        own = plan.namespaces[0]
        say = languages.or_fallback(own)
        plan = plan.applying("all_languages", f"{found} in {own}")
        return replace(
            plan.noted(say.note("no_language", lang=say.name_of(own))) if found == 0 else plan,
            namespaces=None,
            filters=replace(plan.filters, langs=None),
            words_anywhere=self.config.cross_language_bm25,
            lacks_language=found == 0,
        )

    def _boosted(
        self,
        score: dict[str, float],
        pool: list[StoredChunk],
        request: RetrieveRequest,
        plan: Plan,
        query: Query,
    ) -> tuple[Plan, dict[str, float]]:
        """Soft priors on the pool's scores: an exact heading, the product named, the intent's content types,
        the mode (code first, or after the prose)."""
        # the configured vocabulary plus the candidates' own products: no store-wide scan on the query path
        product = mentioned_product(
            query.folded, sorted({*self.known_products(), *(c.product for c in pool)})
        )
        product = None if request.filters.product else product
        if product:
            plan = plan.applying("product_boost", product)
        top = max((score[c.chunk_id] for c in pool), default=0.0)
        boosted = dict(score)
        for c in pool:
            if c.kind == "doc" and names_a_heading(query.heading_key, c.section_title, c.content):
                # someone typing a section's exact name wants that section: it goes above every chunk that
                # is not called that, and several sections of that name keep their own order
                boosted[c.chunk_id] += top
                plan = plan.applying("heading_match", c.section_title)
            boosted[c.chunk_id] *= _prior(c, product, query.intent, plan.mode)
        titled = self._titled(query, pool)
        if titled:
            plan = plan.applying("title_names", ", ".join(query.names))
            for chunk_id in titled:
                boosted[chunk_id] *= self.config.title_name_boost
        return plan, boosted

    def _titled(self, query: Query, pool: list[StoredChunk]) -> set[str]:
        """The candidates of a page whose title tells it apart from a sibling page in the pool by a name the
        question asks about ("Planta de Monterrey" beside "Planta de Valencia")."""
        if not query.names or self.config.title_name_boost == 1.0:
            return set()
        titles = {c.title: frozenset(words(fold(c.title))) for c in pool}
        asked = {
            t
            for t, own in titles.items()
            if any(query.apart(own, other) for o, other in titles.items() if o != t)
        }
        return {c.chunk_id for c in pool if c.title in asked}

    def _target(
        self,
        vector: np.ndarray,
        request: RetrieveRequest,
        plan: Plan,
        intent: Intent | None,
        pool: list[StoredChunk],
        score: dict[str, float],
    ) -> tuple[Plan, list[StoredChunk], dict[str, float]]:
        """A question about one product with a clear intent ("¿cuánto cuesta Marea?") has a target: that
        product's chunks of the intent's type. The best one leads, in whatever language it was written."""
        product = dict(plan.applied).get("product_boost")
        if not product or intent is None or not intent.boost_types or request.filters.content_type:
            return plan, pool, score
        if plan.mode == "codigo":  # a question about code wants the code first, not the product's guide
            return plan, pool, score
        filters = replace(
            plan.filters,
            products=(product,),
            content_types=intent.boost_types,
            langs=None if request.lang == "auto" else plan.filters.langs,
        )
        hits = self.index.dense_search(vector, self.embedder.space, filters, 1, self.config.hubness_weight)
        if not hits:
            return plan, pool, score
        target = hits[0].chunk_id
        if target not in {c.chunk_id for c in pool}:
            pool = pool + self.chunks.get_chunks([target])
        score = {**score, target: max(score.values(), default=0.0) * 1.01 + 1e-6}
        plan = plan.applying("target", f"{product}/{intent.name}")
        lang = next((c.lang for c in pool if c.chunk_id == target), None)
        if plan.namespaces and lang not in plan.namespaces:
            say = languages.or_fallback(plan.query_lang)
            plan = plan.noted(
                say.note("only_in", what=f"{product} {intent.name}", lang=say.name_of(lang or ""))
            )
        return plan, pool, score

    def select(
        self, pool: list[StoredChunk], score: dict[str, float], top_k: int
    ) -> tuple[list[str], list[str]]:
        by_id = {c.chunk_id: c for c in pool}
        ranked = sorted((cid for cid in score if cid in by_id), key=lambda cid: -score[cid])
        return suppress_near_duplicates(
            [(cid, by_id[cid].content) for cid in ranked], self.config.duplicate_threshold, top_k
        )


def _prior(c: StoredChunk, product: str | None, intent: Intent | None, mode: str) -> float:
    """The factor on one chunk's score: the product asked about, the intent's types, code in the mode."""
    factor = PRODUCT_BOOST if product and c.product == product else 1.0
    if intent is not None and (
        c.content_type in intent.boost_types or (intent.boost_critical and c.critical)
    ):
        factor *= INTENT_BOOST
    if c.kind == "code":
        factor *= CODE_MODE_BOOST if mode == "codigo" else DOC_MODE_CODE_WEIGHT
    return factor
