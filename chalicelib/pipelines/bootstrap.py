"""Bootstrap retrieve: a map of a whole domain (source doc 002) from several subqueries, ranked for coverage."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from chalicelib.llms.client import LLMError
from chalicelib.models import RetrieveRequest, RetrieveResponse, StoredChunk
from chalicelib.pipelines import overview
from chalicelib.pipelines.fusion import reciprocal_rank_fusion, suppress_near_duplicates
from chalicelib.pipelines.query_understanding import decide_mode
from chalicelib.pipelines.retrieve import Plan, Retrieved, Timer, scoped_filters, to_item

if TYPE_CHECKING:
    from chalicelib.pipelines.retrieve import Retriever

SUBQUERIES: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (
        ("overview", "visión general: qué es, para qué sirve y qué productos o partes tiene"),
        ("documentation", "documentación principal: guías, primeros pasos y referencia"),
        ("backlog", "trabajo pendiente, backlog, roadmap y próximos pasos"),
        ("rules", "reglas, normas y políticas que hay que cumplir"),
        ("critical", "puntos críticos: riesgos, advertencias, plazos e incidentes"),
    ),
    "en": (
        ("overview", "overview: what it is, what it is for and which products or parts it has"),
        ("documentation", "main documentation: guides, getting started and reference"),
        ("backlog", "pending work, backlog, roadmap and next steps"),
        ("rules", "rules, standards and policies to follow"),
        ("critical", "critical points: risks, warnings, deadlines and incidents"),
    ),
}
DEFAULT_BOOTSTRAP_K = 10
SUMMARY_PROMPT = (
    "You write the opening map of a knowledge domain for an AI agent. From the numbered sources, write 3-5 "
    "sentences: what the domain covers, its main parts, and what needs attention. Use only the sources. "
    "Write in {language}. Return only the text."
)


class Bootstrapper:
    def __init__(self, retriever: Retriever) -> None:
        self.r = retriever

    def run(self, request: RetrieveRequest) -> Retrieved:
        timer = Timer()
        mode, reason = decide_mode(request)
        kinds = None  # a mode orders results, it never hides them (the caller filters what it wants out)
        langs = (request.lang,) if request.lang in ("es", "en") else self.r.config.languages
        top_k = request.top_k if "top_k" in request.model_fields_set else DEFAULT_BOOTSTRAP_K

        t = time.perf_counter()
        rankings: list[list[str]] = []
        for lang in langs:
            plan = Plan(mode, reason, (lang,), lang, scoped_filters(request, (lang,), kinds))
            for _, text in SUBQUERIES.get(lang, SUBQUERIES["en"]):
                dense, bm25, _ = self.r.search(text, self._vector(text), plan, timer, k=25)
                rankings += [[h.chunk_id for h in dense], [h.chunk_id for h in bm25]]
        if request.query:  # a focus for the map
            plan = Plan(mode, reason, None, None, scoped_filters(request, None, kinds))
            dense, bm25, _ = self.r.search(
                request.query, self.r.embedder.embed_query(request.query), plan, timer
            )
            rankings += [[h.chunk_id for h in dense]] * 2 + [[h.chunk_id for h in bm25]]
        fused = reciprocal_rank_fusion(rankings, self.r.config.rrf_k)
        pool = self.r.chunks.get_chunks([cid for cid, _ in fused[: top_k * 6]])
        timer.stage("subqueries", t)

        t = time.perf_counter()
        chosen, dropped = panoramic(pool, dict(fused), top_k, self.r.config.duplicate_threshold)
        marked = self._marked_critical(request, kinds)
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
            applied={"mode": mode, "subqueries": str(len(rankings) // 2)},
            duplicates_suppressed=dropped,
            timings_ms=timer.total(),
        )
        return Retrieved(response, chosen, None)

    def _vector(self, text: str) -> np.ndarray:
        return _cached_vector(self.r.embedder, text)  # type: ignore[arg-type]

    def _marked_critical(self, request: RetrieveRequest, kinds: tuple[str, ...] | None) -> list[StoredChunk]:
        """Every chunk marked critical in the scope: a pre-filtered search, not a post-filter."""
        filters = replace(scoped_filters(request, None, kinds), critical=True)
        return self.r.chunks.get_chunks(sorted(self.r.index.chunk_ids(filters)))

    def _summary(self, chosen: list[StoredChunk], langs: tuple[str, ...]) -> str:
        composed = overview.summary(chosen, per_document=True, limit=5)
        if self.r.llm is None or not chosen:
            return composed
        from chalicelib.pipelines.generate import build_context

        language = "Spanish" if langs[0] == "es" else "English"
        try:
            reply = self.r.llm.complete(
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
