"""Soft priors on the fused candidates, read in full: each one's best sentence, an exact heading, the
product named, the intent's content types, the mode, a target chunk, feedback on similar questions, and the
rare names and identifiers of the question first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from chalicelib import languages
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import StoredChunk
from chalicelib.question.intent import Intent, mentioned_product, names_a_heading
from chalicelib.question.query import Query
from chalicelib.quotes import stored_vectors
from chalicelib.retrieve import exact_names as exact_tokens
from chalicelib.retrieve.cross_language import CrossLanguage
from chalicelib.retrieve.exact_names import Exact
from chalicelib.retrieve.fusion import min_max
from chalicelib.retrieve.results import Plan
from chalicelib.retrieve.stage_context import Stage
from chalicelib.text import fold, words

PRODUCT_BOOST = 1.25
INTENT_BOOST = 1.15
# mode=codigo (asked for, or read from the query) ranks code first; it never hides documents, and documental
# never hides code: only what the caller filters out is excluded
CODE_MODE_BOOST = 1.25
DOC_MODE_CODE_WEIGHT = 0.5  # documental: code still comes back, after the prose that answers (0.75 gained a
# point on the code sets but put a client script above the pricing page for "How long is the free trial?")


@dataclass(frozen=True)
class Priors(Stage):
    """The priors of one question on its candidates' scores."""

    cross: CrossLanguage | None = None
    known_products: Callable[[], list[str]] = field(default=lambda: [])
    prior: Callable[[np.ndarray], dict[str, float]] | None = None  # feedback (feedback_prior.py)

    def apply(
        self,
        request: RetrieveRequest,
        vector: np.ndarray,
        plan: Plan,
        query: Query,
        pool: list[StoredChunk],
        fused: dict[str, float],
    ) -> tuple[Plan, list[StoredChunk], dict[str, float], Exact]:
        """Every prior in turn, over the fused scores of ``pool``: (plan, pool with any chunk a prior brought
        in, scores, the question's names and identifiers as found)."""
        exact = self.exact(request, query, plan, pool)
        score = dict(fused)
        if self.config.sentence_weight:
            score = self.sentence_evidence(vector, pool, score, plan)
        plan, score = self.boosted(score, pool, request, plan, query)
        plan, pool, score = self.target(vector, request, plan, query.intent, pool, score)
        plan, score = self.feedback(vector, plan, pool, score)
        plan, pool, score = self.rare_first(exact, plan, pool, score)
        return plan, pool, score, exact

    def exact(self, request: RetrieveRequest, query: Query, plan: Plan, pool: list[StoredChunk]) -> Exact:
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
            # a partial, not a lambda here: the question goes from exact.py to cross_language.py directly
            partial(self.cross.variants, query=query) if self.cross is not None else (lambda n: []),
            judge_names=not plan.lacks_language,
        )

    def sentence_evidence(
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

    def boosted(
        self,
        score: dict[str, float],
        pool: list[StoredChunk],
        request: RetrieveRequest,
        plan: Plan,
        query: Query,
    ) -> tuple[Plan, dict[str, float]]:
        """Soft priors on the pool's scores: an exact heading, the product named, the intent's content types,
        the mode (code first, or after the prose)."""
        # the configured vocabulary plus the candidates' own products: no store-wide scan on the query path. A
        # caller who may not read everything is matched against its candidates' only: the vocabulary holds
        # products learned from every document, and naming one back would say that it exists
        everything = plan.filters.allowed_readers is None
        known = self.known_products() if everything else []
        product = mentioned_product(query.folded, sorted({*known, *(c.product for c in pool)}))
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
        titled = self.titled(query, pool)
        if titled:
            plan = plan.applying("title_names", ", ".join(query.names))
            for chunk_id in titled:
                boosted[chunk_id] *= self.config.title_name_boost
        return plan, boosted

    def titled(self, query: Query, pool: list[StoredChunk]) -> set[str]:
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

    def target(
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

    def feedback(
        self, vector: np.ndarray, plan: Plan, pool: list[StoredChunk], score: dict[str, float]
    ) -> tuple[Plan, dict[str, float]]:
        """Feedback on similar questions, as a bounded factor on the candidates' scores (never a new one)."""
        factors = self.prior(vector) if self.prior is not None else {}
        moved = {c.chunk_id: score[c.chunk_id] * factors[c.chunk_id] for c in pool if c.chunk_id in factors}
        if not moved:
            return plan, score
        return plan.applying("feedback", str(len(moved))), {**score, **moved}

    def rare_first(
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
