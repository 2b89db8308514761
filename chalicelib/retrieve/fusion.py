"""Pure ranking helpers: reciprocal rank fusion and near-duplicate suppression."""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.text import jaccard, shingles


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Cormack et al. 2009: score(d) = sum over rankings of 1 / (k + rank); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def score_fusion(
    rankings: Sequence[Sequence[tuple[str, float]]], weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Normalised-score fusion: each list's scores scaled to [0, 1], then a weighted sum; an item missing
    from a list gets 0 there. Unlike RRF it keeps how far apart scores are. A list of MIN_SCORED or more is
    min-max scaled (its last item is "unrelated"); a shorter one (a small store, a rare word) is scaled by
    its best score: its last item is not unrelated, only as far below the first as its score says."""
    total: dict[str, float] = {}
    for n, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[n]
        for item, norm in scaled(ranking):
            total[item] = total.get(item, 0.0) + weight * norm
    return sorted(total.items(), key=lambda kv: -kv[1])


def strongest(*rankings: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Several lists that are one vote (one kind of evidence found two ways): each scaled as ``score_fusion``
    scales it, every item at its best scaled score, best first."""
    best: dict[str, float] = {}
    for ranking in rankings:
        for item, norm in scaled(ranking):
            best[item] = max(best.get(item, 0.0), norm)
    return sorted(best.items(), key=lambda kv: -kv[1])


def scaled(ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """A list's scores in [0, 1]: min-max from MIN_SCORED items on, else by its best score."""
    return min_max(ranking) if len(ranking) >= MIN_SCORED else by_top(ranking)


def min_max(ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Scores scaled to [0, 1] within the list (all 1 when they are equal)."""
    if not ranking:
        return []
    low = min(s for _, s in ranking)
    high = max(s for _, s in ranking)
    return [(item, (s - low) / (high - low) if high > low else 1.0) for item, s in ranking]


def by_top(ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Scores as a share of the list's best; a score at or under 0 counts 0 (a BM25 hit scoring 0 matched
    nothing that tells documents apart: a word in every document of a one-document namespace)."""
    high = max((s for _, s in ranking), default=0.0)
    return [(item, max(0.0, s / high) if high > 0 else 0.0) for item, s in ranking]


# below this many candidates a list's minimum does not mean "unrelated" (docs/evaluation.md: switching such
# fusions to RRF let one sentence's cosine outweigh every list in small stores)
MIN_SCORED = 10


def fuse(
    rankings: Sequence[Sequence[tuple[str, float]]],
    method: str = "score",
    rrf_k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """``score`` (normalised-score fusion) or ``rrf`` (reciprocal rank fusion, unweighted) of (id, score)
    lists."""
    if method == "rrf":
        return reciprocal_rank_fusion([[item for item, _ in ranking] for ranking in rankings], rrf_k)
    return score_fusion(rankings, weights)


def suppress_near_duplicates(
    ranked: Sequence[tuple[str, str]], threshold: float, limit: int, distinct: int = 0
) -> tuple[list[str], list[str]]:
    """Keep the best of each group of near-identical texts (5-gram Jaccard >= threshold).

    ``ranked`` is (id, text) best first; its first ``distinct`` are already known to differ (kept by an
    earlier pass); returns (kept ids up to ``limit``, suppressed ids).
    """
    kept: list[tuple[str, frozenset[int]]] = []
    dropped: list[str] = []
    for n, (item_id, text) in enumerate(ranked):
        sh = shingles(text)
        if n < distinct:
            kept.append((item_id, sh))
            continue
        # two sets this far apart in size cannot reach the threshold (|A & B| / |A | B| <= min / max)
        if any(
            min(len(sh), len(other)) >= threshold * max(len(sh), len(other))
            and jaccard(sh, other) >= threshold
            for _, other in kept
        ):
            dropped.append(item_id)
            continue
        kept.append((item_id, sh))
        if len(kept) >= limit:
            break
    return [i for i, _ in kept], dropped
