"""One search of the index under a plan: a dense and a BM25 list, code searched in every namespace."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from chalicelib.models.records import EmbeddingSpace, Hit
from chalicelib.pipelines.filters import keyword_filters, splits
from chalicelib.pipelines.types import Plan, Timer
from chalicelib.protocols import VectorIndex


@dataclass(frozen=True)
class Lists:
    """A search's two ranked lists, and how many dense hits are prose in the question's namespace (code
    tagged with a language by its comments does not make a namespace: 10 click functions read as Spanish
    kept Spanish questions away from click's English docs)."""

    dense: list[Hit]
    bm25: list[Hit]
    prose: int


def search(
    index: VectorIndex, space: EmbeddingSpace, text: str, vector: np.ndarray, plan: Plan, timer: Timer, k: int
) -> Lists:
    """Dense and BM25 hits of ``text`` under ``plan``: unless the caller chose a language, code (written in
    no human language) is searched in every namespace beside the namespace's prose."""
    words = keyword_filters(plan)
    code = replace(plan.filters, langs=None, kinds=("code",))
    t = time.perf_counter()
    if splits(plan, plan.filters):
        prose = index.dense_search(vector, space, replace(plan.filters, kinds=("doc",)), k)
        dense = merge_by_score(prose, index.dense_search(vector, space, code, k), k)
    else:
        dense = prose = index.dense_search(vector, space, plan.filters, k)
    timer.stage("dense", t)
    t = time.perf_counter()
    if splits(plan, words):
        in_words = index.keyword_search(text, replace(words, kinds=("doc",)), k)
        bm25 = merge_by_score(in_words, index.keyword_search(text, code, k), k)
    else:
        bm25 = index.keyword_search(text, words, k)
    timer.stage("bm25", t)
    return Lists(dense, bm25, len(prose))


def merge_by_score(first: list[Hit], more: list[Hit], k: int) -> list[Hit]:
    """Two hit lists of one retriever (one score scale) as one, best first, each chunk once."""
    best: dict[str, Hit] = {}
    for h in (*first, *more):
        if h.chunk_id not in best or h.score > best[h.chunk_id].score:
            best[h.chunk_id] = h
    return sorted(best.values(), key=lambda h: -h.score)[:k]
