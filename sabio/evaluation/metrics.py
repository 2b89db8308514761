"""Ranking metrics over BEIR shapes: ``qrels {qid: {doc: rel}}`` and ``runs {qid: [doc, ...]}`` (best first)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def recall_at(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], k: int) -> float:
    """Share of a query's relevant documents found in its top k, averaged over queries."""
    scores = []
    for qid, relevant in qrels.items():
        wanted = {d for d, rel in relevant.items() if rel > 0}
        if wanted:
            scores.append(len(wanted & set(runs.get(qid, [])[:k])) / len(wanted))
    return sum(scores) / len(scores) if scores else 0.0


def mrr_at(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], k: int = 10) -> float:
    total = 0.0
    for qid, relevant in qrels.items():
        for rank, doc in enumerate(runs.get(qid, [])[:k], start=1):
            if relevant.get(doc, 0) > 0:
                total += 1.0 / rank
                break
    return total / len(qrels) if qrels else 0.0


def ndcg_at(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], k: int = 10) -> float:
    scores = []
    for qid, relevant in qrels.items():
        gains = [relevant.get(doc, 0) for doc in runs.get(qid, [])[:k]]
        dcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gains))
        ideal = sorted(relevant.values(), reverse=True)[:k]
        idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
        scores.append(dcg / idcg if idcg else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def summary(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """The standard table row, x100: Recall@1/5/10/20, MRR@10, nDCG@10, failure rate@20 (1 - Recall@20)."""
    row = {f"recall@{k}": recall_at(runs, qrels, k) for k in (1, 5, 10, 20)}
    row["mrr@10"] = mrr_at(runs, qrels, 10)
    row["ndcg@10"] = ndcg_at(runs, qrels, 10)
    row["failure@20"] = 1.0 - row["recall@20"]
    return {name: round(100 * value, 1) for name, value in row.items()}


def overlap_at(
    runs: Mapping[str, Sequence[str]], baseline: Mapping[str, Sequence[str]], k: int = 10
) -> float:
    """Share (x100) of the baseline's top k that a variant's top k also holds, averaged over queries (how
    different a variant's results are, whether or not they are relevant)."""
    shares = []
    for qid, base in baseline.items():
        top = set(base[:k])
        if top:
            shares.append(len(top & set(runs.get(qid, [])[:k])) / len(top))
    return round(100 * sum(shares) / len(shares), 1) if shares else 0.0
