"""Bootstrap retrieve: a map of a whole domain (source doc 002) from several subqueries, ranked for coverage."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from chalicelib import languages
from chalicelib.enrichment import overview
from chalicelib.enrichment.embedding_text import build_context
from chalicelib.errors import InvalidInput
from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.models.api import RetrieveRequest, RetrieveResponse
from chalicelib.models.records import SearchFilters, StoredChunk
from chalicelib.question.intent import decide_mode
from chalicelib.retrieve.fusion import reciprocal_rank_fusion, suppress_near_duplicates
from chalicelib.retrieve.index_search import search
from chalicelib.retrieve.items import to_item
from chalicelib.retrieve.plan import scoped_filters
from chalicelib.retrieve.results import Plan, Retrieved, Timer, require_served
from chalicelib.retrieve.stage_context import Stage

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy

DEFAULT_BOOTSTRAP_K = 10
SUMMARY_PROMPT = (
    "You write the opening map of a knowledge domain for an AI agent. From the numbered sources, write 3-5 "
    "sentences: what the domain covers, its main parts, and what needs attention. Use only the sources. "
    "Write in {language}. Return only the text."
)


@dataclass(frozen=True)
class Bootstrapper(Stage):
    """A map of a domain: fixed subqueries per language (plus the caller's focus), fused, picked for coverage.
    It reads what every stage of a retrieve reads; its searches rank by plain cosine (``index_search.search``,
    not ``Stage.search``, which subtracts the hubness correction)."""

    llm: ChatLLM | None = None

    def run(self, request: RetrieveRequest, access: KeyPolicy | None) -> Retrieved:
        for asked in ("rerank", "hyde"):  # a map is not one question's ranking: refused, not ignored
            if getattr(request, asked):
                raise InvalidInput(
                    f"{asked} applies to specific questions, not to a bootstrap map", field=asked
                )
        timer = Timer()
        mode, reason = decide_mode(request, self.config.languages)
        require_served(request.lang, self.config.languages)
        langs = (request.lang,) if request.lang not in ("auto", "all") else self.config.languages
        top_k = request.top_k if "top_k" in request.model_fields_set else DEFAULT_BOOTSTRAP_K
        t = time.perf_counter()
        fused, subqueries = self._fused(
            request, access, Plan(mode, reason, None, None, SearchFilters()), langs, timer
        )
        pool = self.chunks.get_chunks([cid for cid, _ in fused[: top_k * 6]])
        timer.stage("subqueries", t)
        t = time.perf_counter()
        chosen, dropped = panoramic(pool, dict(fused), top_k, self.config.duplicate_threshold)
        marked = self._marked_critical(request, access)
        timer.stage("rank", t)
        t = time.perf_counter()
        summary = self._summary(chosen, langs)
        timer.stage("summary", t)
        critical = overview.marked_points(marked)
        seen = {p.chunk_id for p in critical}
        critical += [p for p in overview.inferred_points(chosen) if p.chunk_id not in seen]
        response = RetrieveResponse(
            mode=mode,
            mode_reason=reason,
            intent="bootstrap",
            query=request.query,
            lang=request.lang,
            namespaces=list(langs),
            summary=summary,
            topics=overview.topics(chosen, limit=10, with_sections=True),
            critical_points=critical,
            items=[to_item(c, dict(fused).get(c.chunk_id, 0.0), {}) for c in chosen],
            follow_up_refs=overview.follow_ups(chosen, skip_first=False, limit=12),
            scope=request.scope,
            applied={"mode": mode, "subqueries": str(subqueries)},
            duplicates_suppressed=dropped,
            timings_ms=timer.total(),
        )
        return Retrieved(response, chosen, None)

    def _fused(
        self,
        request: RetrieveRequest,
        access: KeyPolicy | None,
        base: Plan,
        langs: tuple[str, ...],
        timer: Timer,
    ) -> tuple[list[tuple[str, float]], int]:
        """Each language's subqueries (and the caller's focus, counted thrice) as one RRF ranking; a mode orders
        results, it never hides them (the caller filters what it wants out)."""
        rankings: list[list[str]] = []
        space = self.embedder.space
        for lang in langs:
            plan = replace(
                base,
                namespaces=(lang,),
                query_lang=lang,
                filters=scoped_filters(request, access, (lang,), None),
            )
            for _, text in languages.or_fallback(lang).map_subqueries:
                lists = search(self.index, space, text, self._vector(text), plan, timer, 25)
                rankings += [[h.chunk_id for h in lists.dense], [h.chunk_id for h in lists.bm25]]
        subqueries = len(rankings) // 2 + (1 if request.query else 0)
        if request.query:  # a focus for the map
            plan = replace(base, filters=scoped_filters(request, access, None, None))
            vector = self.embedder.embed_query(request.query)
            lists = search(self.index, space, request.query, vector, plan, timer, self.config.candidates)
            rankings += [[h.chunk_id for h in lists.dense]] * 2 + [[h.chunk_id for h in lists.bm25]]
        return reciprocal_rank_fusion(rankings, self.config.rrf_k), subqueries

    def _vector(self, text: str) -> np.ndarray:
        return _cached_vector(self.embedder, text)  # type: ignore[arg-type]

    def _marked_critical(self, request: RetrieveRequest, access: KeyPolicy | None) -> list[StoredChunk]:
        """Every chunk marked critical in the scope: a pre-filtered search, not a post-filter."""
        filters = replace(scoped_filters(request, access, None, None), critical=True)
        return self.chunks.get_chunks(sorted(self.index.chunk_ids(filters)))

    def _summary(self, chosen: list[StoredChunk], langs: tuple[str, ...]) -> str:
        composed = overview.summary(chosen, per_document=True, limit=5)
        if self.llm is None or not chosen:
            return composed
        language = languages.or_fallback(langs[0]).name
        try:
            reply = self.llm.complete(
                [
                    {"role": "system", "content": SUMMARY_PROMPT.format(language=language)},
                    {"role": "user", "content": build_context(chosen[:8])},
                ],
                temperature=0.2,
                max_tokens=300,
                deadline=time.monotonic() + 15,
                retries=1,
            )
        except LLMError:
            return composed
        return " ".join(reply.text.split()) or composed


@lru_cache(maxsize=64)
def _cached_vector(embedder: object, text: str) -> np.ndarray:
    """Subquery vectors are constant per embedder: computed once per process."""
    return embedder.embed_query(text)  # type: ignore[attr-defined]


def panoramic(
    pool: list[StoredChunk], fused: dict[str, float], k: int, threshold: float
) -> tuple[list[StoredChunk], int]:
    """Greedy selection for coverage: each further chunk of an already covered document counts for less."""
    by_id = {c.chunk_id: c for c in pool}
    ranked = sorted(by_id, key=lambda cid: -fused.get(cid, 0.0))
    kept_ids, dropped = suppress_near_duplicates(
        [(cid, by_id[cid].content) for cid in ranked], threshold, len(ranked)
    )
    per_doc: Counter[str] = Counter()
    chosen: list[StoredChunk] = []
    candidates = [by_id[cid] for cid in kept_ids]
    while candidates and len(chosen) < k:
        best = max(candidates, key=lambda c: fused.get(c.chunk_id, 0.0) * (0.35 ** per_doc[c.document_id]))
        candidates.remove(best)
        chosen.append(best)
        per_doc[best.document_id] += 1
    return chosen, len(dropped)
