"""The ranked lists a question's search gathers before fusion: its own namespace (broadened when almost
empty), other languages by meaning and by translation, hubs weighed down, an intent's subquery, and the
LLM's rewrites of the question."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from chalicelib.llms.client import ChatLLM
from chalicelib.models.api import RetrieveRequest, RewriteInfo
from chalicelib.models.records import Hit
from chalicelib.question import rewrite
from chalicelib.question.intent import Intent
from chalicelib.question.query import Query, Translation
from chalicelib.retrieve.cross_language import CrossLanguage
from chalicelib.retrieve.fusion import strongest
from chalicelib.retrieve.index_search import Lists, Words, search
from chalicelib.retrieve.plan import keyword_filters
from chalicelib.retrieve.results import Plan, Timer
from chalicelib.retrieve.stage_context import Stage, discounted_merge

Ranking = list[tuple[str, float]]


@dataclass(frozen=True)
class Candidates:
    """What a specific search found before fusion: the lists to fuse, and every score for the response."""

    plan: Plan
    query: Query  # with the translations it was searched by
    rankings: list[list[tuple[str, float]]]
    weights: list[float]
    dense: dict[str, float]
    bm25: dict[str, float]


@dataclass(frozen=True)
class Own:
    """The question's own lists: its namespace by meaning and by words, and the other namespaces by meaning."""

    dense: list[Hit]
    other: list[Hit]
    bm25: list[Hit]


@dataclass(frozen=True)
class Gatherer(Stage):
    """The lists to fuse for one question, and every score they hold (for the response)."""

    cross: CrossLanguage | None = None
    llm: ChatLLM | None = None

    def gather(
        self,
        request: RetrieveRequest,
        vector: np.ndarray,
        plan: Plan,
        query: Query,
        timer: Timer,
        words: Words | None = None,
    ) -> Candidates:
        """The question's namespace (broadened when it is almost empty), other languages by meaning and by
        translation, hubs weighed, and an intent's subquery: the ranked lists to fuse. ``words``: this plan's
        BM25 list, when it was started beside the embedding."""
        assert self.cross is not None
        intent = query.intent
        weigh_hubs = self.weigh_hubs(request, intent)
        fetch = self.fetch(request, intent)
        # search.py itself, not Stage.search: the question goes down once, broadened or not (query_walk.py)
        space, hubness = self.embedder.space, self.config.hubness_weight
        lists = search(self.index, space, query.text, vector, plan, timer, fetch, words, hubness)
        if lists.prose < self.config.min_namespace and self.cross.may_broaden(plan):
            plan = self.cross.broadened(plan, lists.prose)
            lists = search(self.index, space, query.text, vector, plan, timer, fetch, None, hubness)
        t = time.perf_counter()
        own = Own(lists.dense, self.cross.other_languages(vector, plan, fetch), lists.bm25)
        if weigh_hubs:
            own = Own(
                self.hubs_down(own.dense), self.hubs_down(own.other), self.hubs_down(own.bm25, words=True)
            )
        close = self.cross.close(vector, own.dense, own.other)
        plan, translated = self.cross.translated(
            query, vector, plan, len(own.other) if close else 0, timer, fetch, weigh_hubs
        )
        found = self._fused(plan, query, own, translated)
        timer.stage("fuse", t)
        return found

    def _fused(
        self, plan: Plan, query: Query, own: Own, translated: list[tuple[Translation, Lists]]
    ) -> Candidates:
        """The question's own lists and its translations' as lists to fuse, with their weights."""
        # beside the question's own language, another language's documents are found by their own words and
        # meaning: the translation's lists stand for them (at a discount: an answer in the question's language
        # comes first); the question's vector across languages is not merged into its own language's list,
        # only fused as a list of its own when that language is about as close (``meaning_lead``)
        alongside = plan.namespaces is not None and bool(translated)
        plan, rankings, weights = self._own_lists(
            plan, query.intent, own.dense, own.other, own.bm25, alongside
        )
        weight = self.config.translated_weight * (self.config.alongside_weight if alongside else 1.0)
        if translated and plan.namespaces is None and not plan.lacks_language:
            rankings[:2] = _one_vote_each(rankings[0], rankings[1], translated)
        else:
            for _, found in translated:
                rankings += [_ranking(found.dense), _ranking(found.bm25)]
                weights += [weight, weight]
        return _candidates(plan, query, rankings, weights, [*own.dense, *own.other], own.bm25, translated)

    def _own_lists(
        self,
        plan: Plan,
        intent: Intent | None,
        dense: list[Hit],
        other: list[Hit],
        bm25: list[Hit],
        alongside: bool,
    ) -> tuple[Plan, list[Ranking], list[float]]:
        """The question's own lists: meaning (other languages merged in at a discount, unless a translation
        stands for them), words, an intent's subquery, and other languages' meaning when about as close."""
        assert self.cross is not None
        merged = discounted_merge(dense, [] if alongside else other, self.config.other_language_weight)
        merged = merged[: self.config.candidates]
        rankings = [_ranking(merged), _ranking(bm25)]
        # words matched across languages are weaker evidence than words of the question's own language
        weights = [1.0, self.config.cross_language_bm25_weight if plan.words_anywhere else 1.0]
        if intent is not None:
            plan = plan.applying("intent", intent.name)
            sub = intent.subqueries.get(plan.query_lang or "", "")
            if sub:
                # the subquery's words are its language's ("preços planos tarifas"): they match documents in
                # that language only, even when the search was broadened to every language
                own = replace(keyword_filters(plan), langs=(plan.query_lang,)) if plan.query_lang else None
                hits = self.of_intent(
                    self.index.keyword_search(sub, own or keyword_filters(plan), 20), intent
                )
                rankings.append(_ranking(hits))
                weights.append(1.0)
        if alongside and self.cross.meaning_counts(dense, other):
            rankings.append(_ranking(other[: self.config.meaning_top]))
            weights.append(self.config.meaning_weight)
        return plan, rankings, weights

    def of_intent(self, hits: list[Hit], intent: Intent) -> list[Hit]:
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

    def rewritten(self, found: Candidates, timer: Timer, fetch: int) -> tuple[Candidates, RewriteInfo | None]:
        """The LLM's rewrites of a short or multi-part question searched beside it: their lists join the
        fusion. Off unless configured; a failure searches the question alone and says why."""
        if not self.config.rewrite or self.cross is None:
            return found, None
        t = time.perf_counter()
        info = rewrite.rewrites(found.query, self.llm, self.config.rewrite_budget_s)
        if info is None or not info.used:
            return found, info
        if info.kind == "multi-part":  # each part is retrieved on its own (``_joined``)
            timer.stage("rewrite", t)
            return replace(found, plan=found.plan.applying("rewrites", " | ".join(info.queries))), info
        rankings, weights = list(found.rankings), list(found.weights)
        dense, bm25 = dict(found.dense), dict(found.bm25)
        for text in info.queries:  # each searched as the question was: its language, others by meaning
            vector = self.embedder.embed_query(text)
            lists = self.search(text, vector, found.plan, timer, fetch)
            other = self.cross.other_languages(vector, found.plan, fetch)
            merged = discounted_merge(lists.dense, other, self.config.other_language_weight)
            merged = merged[: self.config.candidates]
            rankings += [_ranking(merged), _ranking(lists.bm25)]
            weights += [self.config.rewrite_weight, self.config.rewrite_weight]
            for h in (*lists.dense, *other):
                dense.setdefault(h.chunk_id, h.score)
            for h in lists.bm25:
                bm25.setdefault(h.chunk_id, h.score)
        timer.stage("rewrite", t)
        plan = found.plan.applying("rewrites", " | ".join(info.queries))
        return replace(found, plan=plan, rankings=rankings, weights=weights, dense=dense, bm25=bm25), info


def _ranking(hits: list[Hit]) -> Ranking:
    """Hits as a list to fuse: ids and scores, best first."""
    return [(h.chunk_id, h.score) for h in hits]


def _one_vote_each(
    dense: Ranking, bm25: Ranking, translated: list[tuple[Translation, Lists]]
) -> tuple[Ranking, Ranking]:
    """A question language with a few documents, searched across every language beside a translation: a
    chunk in another language that both find gets one vote of meaning and one of words, its better, as the
    question language's own chunks do (two of each put a price list ahead of the Spanish page that answers
    "¿A qué hora abre el taller los sábados?" best by meaning and by words)."""
    return (
        strongest(dense, *(_ranking(f.dense) for _, f in translated)),
        strongest(bm25, *(_ranking(f.bm25) for _, f in translated)),
    )


def _candidates(
    plan: Plan,
    query: Query,
    rankings: list[Ranking],
    weights: list[float],
    dense: list[Hit],
    bm25: list[Hit],
    translated: list[tuple[Translation, Lists]],
) -> Candidates:
    """The lists with every score they hold (a chunk found only by a translation shows that score), and the
    question with the translations it was searched by."""
    scores = {h.chunk_id: h.score for h in dense}
    matched = {h.chunk_id: h.score for h in bm25}
    for _, found in translated:
        scores.update({h.chunk_id: h.score for h in found.dense if h.chunk_id not in scores})
        matched.update({h.chunk_id: h.score for h in found.bm25 if h.chunk_id not in matched})
    for translation, _ in translated:
        query = query.translated(translation)
    return Candidates(plan, query, rankings, weights, scores, matched)
