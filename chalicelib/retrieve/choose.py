"""The chosen chunks: the fused candidates read in full, the priors applied (priors.py), near-duplicates
dropped, and, for the second stage, read on down the fused list."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import StoredChunk
from chalicelib.question.query import Query
from chalicelib.retrieve.exact_names import Exact
from chalicelib.retrieve.fusion import suppress_near_duplicates
from chalicelib.retrieve.priors import Priors
from chalicelib.retrieve.results import Plan
from chalicelib.retrieve.stage_context import Stage


@dataclass(frozen=True)
class Selector(Stage):
    priors: Priors | None = None

    def rank(
        self,
        request: RetrieveRequest,
        vector: np.ndarray,
        plan: Plan,
        query: Query,
        fused: list[tuple[str, float]],
        keep: int,
    ) -> tuple[Plan, list[StoredChunk], dict[str, float], int, Exact]:
        """The fused candidates read in full, the soft priors applied (priors.py), near-duplicates dropped:
        the ``keep`` chosen chunks, best first."""
        size = max(request.top_k * 4, self.config.pool)
        pool = self.chunks.get_chunks([cid for cid, _ in fused[:size]])
        plan, pool, score, exact = self._priors().apply(request, vector, plan, query, pool, dict(fused))
        kept, dropped = self.select(pool, score, keep)
        if keep > request.top_k and len(kept) < keep:  # the second stage reads on down the fused list
            pool, kept = self._read_on(pool, kept, fused[size:], keep)
        by_id = {c.chunk_id: c for c in pool}
        return plan, [by_id[cid] for cid in kept], score, len(dropped), exact

    def _read_on(
        self, pool: list[StoredChunk], kept: list[str], rest: list[tuple[str, float]], keep: int
    ) -> tuple[list[StoredChunk], list[str]]:
        """``kept`` extended to ``keep`` chunks from ``rest`` (fused order), near-duplicates skipped."""
        have = set(kept)
        more = [
            c
            for c in self.chunks.get_chunks([cid for cid, _ in rest[: keep - len(kept) + 5]])
            if c.chunk_id not in have
        ]
        by_id = {c.chunk_id: c for c in (*pool, *more)}
        ranked = [(cid, by_id[cid].content) for cid in kept] + [(c.chunk_id, c.content) for c in more]
        extended, _ = suppress_near_duplicates(ranked, self.config.duplicate_threshold, keep, len(kept))
        return [*pool, *more], extended

    def select(
        self, pool: list[StoredChunk], score: dict[str, float], top_k: int
    ) -> tuple[list[str], list[str]]:
        by_id = {c.chunk_id: c for c in pool}
        ranked = sorted((cid for cid in score if cid in by_id), key=lambda cid: -score[cid])
        return suppress_near_duplicates(
            [(cid, by_id[cid].content) for cid in ranked], self.config.duplicate_threshold, top_k
        )

    def _priors(self) -> Priors:
        assert self.priors is not None
        return self.priors
