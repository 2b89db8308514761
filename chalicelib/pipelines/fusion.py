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
    """Normalised-score fusion: each list's scores min-max scaled to [0, 1] (a one-item list scores 1), then a
    weighted sum; an item missing from a list gets 0 there. Unlike RRF it keeps how far apart scores are."""
    total: dict[str, float] = {}
    for n, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[n]
        for item, norm in min_max(ranking):
            total[item] = total.get(item, 0.0) + weight * norm
    return sorted(total.items(), key=lambda kv: -kv[1])


def min_max(ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Scores scaled to [0, 1] within the list (all 1 when they are equal)."""
    if not ranking:
        return []
    low = min(s for _, s in ranking)
    high = max(s for _, s in ranking)
    return [(item, (s - low) / (high - low) if high > low else 1.0) for item, s in ranking]


MIN_SCORED = 10  # below this many candidates a list's min-max scale is noise: fall back to ranks


def fuse(
    rankings: Sequence[Sequence[tuple[str, float]]],
    method: str = "score",
    rrf_k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """``score`` (normalised-score fusion) or ``rrf`` (reciprocal rank fusion) of (id, score) lists. Score
    fusion needs lists long enough for their minimum to mean "unrelated": with a handful of candidates (a
    small namespace, a rare word) the last one would count as zero, so ranks decide instead."""
    if method == "rrf" or any(0 < len(ranking) < MIN_SCORED for ranking in rankings):
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
