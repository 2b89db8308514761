"""Feedback as a ranking prior, bounded and safe: a chunk that helped in answers to similar questions gets a
small lift, one marked unhelpful a small drop.

What keeps it safe: only questions whose vector is close to the new one count; a key counts once per chunk
(its strongest vote); a chunk's votes in one direction count only when more than one key gave them (one key
cannot move anything by itself, and a server without keys is one key); votes fade with a half-life; the
factor stays within ``1 ± cap``; it only re-orders what retrieval found, never adds a result.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from chalicelib.models.records import EmbeddingSpace, FeedbackRecord, QueryRecord
from chalicelib.protocols import QueryLog
from chalicelib.quotes import decode_vectors

DAY_S = 86_400


@dataclass(frozen=True)
class PriorConfig:
    cap: float = 0.1  # the factor stays within [1 - cap, 1 + cap]
    per_key: float = 0.04  # what one key's full-strength vote moves the factor
    min_keys: int = 2  # distinct keys needed before a chunk's votes in one direction count
    # a past question counts when its cosine to the new one is at least this: paraphrase level for
    # multilingual-e5 (0.93-0.97); different questions about one product reach 0.92
    similarity: float = 0.95
    half_life_days: float = 30.0
    window_days: float = 30.0  # feedback older than this is not read
    refresh_s: float = 60.0  # a warm process rereads the log at most this often (or after new feedback)


@dataclass(frozen=True)
class Vote:
    key: str
    helpful: bool
    chunk_ids: tuple[str, ...]
    age_days: float


class FeedbackPrior:
    def __init__(
        self,
        log: QueryLog,
        space: EmbeddingSpace,
        config: PriorConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.log = log
        self.space = space
        self.config = config or PriorConfig()
        self.clock = clock
        self._lock = threading.Lock()
        self._loaded_at: float | None = None
        self._matrix = np.zeros((0, space.dim), dtype=np.float32)
        self._votes: list[Vote] = []

    def invalidate(self) -> None:
        with self._lock:
            self._loaded_at = None

    def factors(self, vector: np.ndarray) -> dict[str, float]:
        """Chunk id -> factor on its score for a question with this vector (chunks without votes: absent)."""
        matrix, votes = self._load()
        if not votes:
            return {}
        sims = matrix @ np.asarray(vector, dtype=np.float32)
        close = [(votes[i], float(sims[i])) for i in np.flatnonzero(sims >= self.config.similarity)]
        return prior_factors(close, self.config)

    def _load(self) -> tuple[np.ndarray, list[Vote]]:
        with self._lock:
            now = self.clock()
            if self._loaded_at is None or now - self._loaded_at > self.config.refresh_s:
                since = now - self.config.window_days * DAY_S
                self._matrix, self._votes = _votes(
                    self.log.queries(since), self.log.feedback(since), self.space, now
                )
                self._loaded_at = now
            return self._matrix, self._votes


def _votes(
    queries: list[QueryRecord], feedback: list[FeedbackRecord], space: EmbeddingSpace, now: float
) -> tuple[np.ndarray, list[Vote]]:
    """One row per feedback whose question has a vector of this embedding space."""
    asked = {q.query_id: q for q in queries if q.vector and q.space == space.model_id}
    rows, votes = [], []
    for f in feedback:
        q = asked.get(f.query_id)
        if q is None or not f.chunk_ids or q.vector is None:
            continue
        rows.append(decode_vectors(q.vector, space.dim)[0])
        votes.append(Vote(f.key, f.helpful, tuple(f.chunk_ids), max(0.0, (now - f.created_at) / DAY_S)))
    matrix = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, space.dim), dtype=np.float32)
    return matrix, votes


def prior_factors(close: list[tuple[Vote, float]], config: PriorConfig) -> dict[str, float]:
    """The factor per chunk from the votes of similar questions (each with its cosine to the new one)."""
    # chunk -> direction -> key -> that key's strongest vote (one key counts once per chunk and direction)
    strength: dict[str, dict[bool, dict[str, float]]] = defaultdict(lambda: {True: {}, False: {}})
    for vote, sim in close:
        weight = sim * 0.5 ** (vote.age_days / config.half_life_days)
        for chunk in vote.chunk_ids:
            keys = strength[chunk][vote.helpful]
            keys[vote.key] = max(keys.get(vote.key, 0.0), weight)
    factors = {}
    for chunk, by_direction in strength.items():
        net = sum(
            (1 if helpful else -1) * sum(keys.values())
            for helpful, keys in by_direction.items()
            if len(keys) >= config.min_keys
        )
        if net:
            factors[chunk] = 1.0 + max(-config.cap, min(config.cap, config.per_key * net))
    return factors
