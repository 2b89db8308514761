"""Hubness: how close a vector sits to its nearest neighbours in the store.

A few chunks (a changelog entry, a list of quotes, a generic intro) lie close to everything; in a small
multilingual model's space they come near the top for every question, above all for questions in another
language. CSLS (Conneau et al. 2018) corrects for it: a chunk's score is its cosine to the question minus
how close it sits to its own k nearest neighbours. Each row's neighbours are kept (rid and cosine) so that a
change to the store costs the rows it touches, not a new all-pairs product: rows added are compared with
every row, rows whose neighbour was deleted are recomputed, the rest only meet the rows added.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

K = 10  # neighbours per row; 5 and 20 rank the same (docs/evaluation.md)
BLOCK = 1024  # rows per product against the rows added
SCORES_PER_BLOCK = 4_000_000  # cosines per block when rows meet the whole matrix (16 MB, one per core)


@dataclass(frozen=True)
class Neighbours:
    """Each row's K nearest other rows: ``ids`` (rid, -1 for none) and ``sims`` (cosine, -inf for none),
    best first, for the rows ``rids`` (sorted)."""

    rids: np.ndarray
    ids: np.ndarray
    sims: np.ndarray

    @staticmethod
    def empty(k: int = K) -> Neighbours:
        return Neighbours(np.zeros(0, np.int64), np.zeros((0, k), np.int64), np.zeros((0, k), np.float32))

    def hubness(self) -> np.ndarray:
        """Per row: the mean cosine to its neighbours (0 for a row alone in the store)."""
        if not len(self.rids):
            return np.zeros(0, np.float32)
        finite = np.isfinite(self.sims)
        counts = finite.sum(axis=1)
        total = np.where(finite, self.sims, 0.0).sum(axis=1)
        return np.where(counts > 0, total / np.maximum(counts, 1), 0.0).astype(np.float32)

    def matching(self, saved: np.ndarray | None, rids: np.ndarray, checks: np.ndarray) -> Neighbours:
        """Only the rows the store holds as they were when these were computed (``saved``: their chunk-id
        checks then; ``checks``: those of the store's rows ``rids`` now): a restored copy of the store hands
        row ids out again, to other texts. A row dropped here is also no longer anyone's neighbour."""
        if saved is None:  # written before checks were kept
            return self
        at = np.searchsorted(rids, self.rids)
        inside = at < len(rids)
        here = np.zeros(len(self.rids), dtype=bool)
        here[inside] = rids[at[inside]] == self.rids[inside]
        other = here.copy()
        other[here] = checks[at[here]] != saved[here]
        if not other.any():
            return self
        ids = np.where(np.isin(self.ids, self.rids[other]), np.iinfo(np.int64).max, self.ids)  # no row's id
        return Neighbours(self.rids[~other], ids[~other], self.sims[~other])

    def save(self, path: Path, owner: str, checks: np.ndarray) -> None:
        """Written beside the store ``owner``, with each row's chunk-id check, atomically (a reader never sees
        half a file)."""
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            os.chmod(tmp, 0o644)  # as the store beside it, not mkstemp's 0600
            with os.fdopen(fd, "wb") as f:
                np.savez(
                    f, rids=self.rids, ids=self.ids, sims=self.sims, owner=np.array(owner), checks=checks
                )
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @staticmethod
    def load(path: Path, owner: str) -> tuple[Neighbours, np.ndarray | None] | None:
        """What ``owner`` saved, with its rows' chunk-id checks (None in a file written before they were
        kept), or None when there is nothing usable (absent, unreadable, another K, or written by another
        store that once lived at this path: its rids name other rows)."""
        try:
            with np.load(path) as data:
                if str(data["owner"]) != owner:
                    return None
                found = Neighbours(data["rids"], data["ids"], data["sims"])
                checks = data["checks"] if "checks" in data.files else None
        except (OSError, ValueError, KeyError):
            return None
        if found.ids.shape[1:] != (K,) or (checks is not None and len(checks) != len(found.rids)):
            return None
        return found, checks


@dataclass(frozen=True)
class Pending:
    """What bringing ``known`` up to the rows ``rids`` (sorted) involves: which rows need their neighbours
    from scratch (``fresh``: new, or a neighbour deleted), each row's place in ``known``, and whether it was
    there (1) or not (0)."""

    known: Neighbours
    rids: np.ndarray
    fresh: np.ndarray
    at: np.ndarray
    seen: np.ndarray

    @property
    def pairs(self) -> int:
        """Row pairs the sync compares: what decides whether it runs inline or in the background."""
        fresh = int(self.fresh.sum())
        return fresh * len(self.rids) + (len(self.rids) - fresh) * fresh


def pending(known: Neighbours, rids: np.ndarray) -> Pending:
    """The plan of a ``sync`` of ``known`` to ``rids``; worked out once, for the choice and for the sync."""
    at = np.searchsorted(known.rids, rids)
    inside = at < len(known.rids)
    seen = np.zeros(len(rids), np.int8)
    seen[inside] = known.rids[at[inside]] == rids[inside]
    fresh = seen == 0
    if len(known.rids):
        alive = np.isin(known.ids, rids) | (known.ids < 0)
        lost = np.asarray(~alive.all(axis=1))  # a neighbour was deleted: its list is no longer the K nearest
        fresh |= (seen == 1) & lost[np.where(seen == 1, at, 0)]
    return Pending(known, rids, fresh, np.where(seen == 1, at, 0), seen)


def sync(
    known: Neighbours, rids: np.ndarray, matrix: np.ndarray, k: int = K, plan: Pending | None = None
) -> Neighbours:
    """``known`` brought up to the rows ``rids`` (sorted) with vectors ``matrix`` (unit length). ``plan``:
    ``pending(known, rids)``, when the caller has it already."""
    plan = plan if plan is not None else pending(known, rids)
    fresh, at, valid = plan.fresh, plan.at, plan.seen
    ids = np.full((len(rids), k), -1, np.int64)
    sims = np.full((len(rids), k), -np.inf, np.float32)
    kept = np.flatnonzero(~fresh)
    ids[kept], sims[kept] = known.ids[at[kept]], known.sims[at[kept]]
    new = np.flatnonzero(valid == 0)  # rows the last sync did not see: every row meets them
    if len(new) and len(kept):
        for start in range(0, len(kept), BLOCK):
            rows = kept[start : start + BLOCK]
            ids[rows], sims[rows] = _merged(ids[rows], sims[rows], rids[new], matrix[rows] @ matrix[new].T, k)
    todo = np.flatnonzero(fresh)  # new rows, and rows that lost a neighbour: compared with every row
    block = max(16, SCORES_PER_BLOCK // max(len(rids), 1))

    def compare(rows: np.ndarray) -> None:
        scores = matrix[rows] @ matrix.T
        scores[np.arange(len(rows)), rows] = -np.inf  # a row is not its own neighbour
        cols, sims[rows] = _top(scores, k)
        ids[rows] = np.where(cols >= 0, rids[np.maximum(cols, 0)], -1)

    blocks = [todo[start : start + block] for start in range(0, len(todo), block)]
    if len(blocks) > 1:  # numpy releases the GIL: one block per core, BLAS held to one thread meanwhile
        with _one_blas_thread(), ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(compare, blocks))
    elif blocks:
        compare(blocks[0])
    return Neighbours(rids.copy(), ids, sims)


def _one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """BLAS at one thread while the blocks run on every core: a store warmed before the embedding model loads
    (which sets this for good) had two BLAS threads under each block, and the build at 100k took twice as
    long (154 s of load in bench/scale.py against 71 s)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; without it BLAS keeps its threads
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _top(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's best ``k`` columns (-1 where there are fewer) and their scores, best first. Lighter than
    an argpartition of the whole block: a partition of the values (no int64 index per cell), then only the
    cells at or above each row's k-th value are located."""
    rows, n = scores.shape
    at = np.full((rows, k), -1, np.int64)
    best = np.full((rows, k), -np.inf, np.float32)
    if n == 0:
        return at, best
    kth = np.partition(scores, n - k, axis=1)[:, n - k] if n > k else np.full(rows, -np.inf, np.float32)
    r, c = np.nonzero((scores >= kth[:, None]) & np.isfinite(scores))
    values = scores[r, c]
    order = np.lexsort((c, -values, r))  # by row, best first (ties: the earlier column)
    r, c, values = r[order], c[order], values[order]
    place = np.arange(len(r)) - np.searchsorted(r, r)  # rank within its row
    keep = place < k
    at[r[keep], place[keep]] = c[keep]
    best[r[keep], place[keep]] = values[keep]
    return at, best


def _merged(
    ids: np.ndarray, sims: np.ndarray, candidates: np.ndarray, scores: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's best ``k`` of its current list and ``scores`` against the rows ``candidates``."""
    all_ids = np.concatenate([ids, np.broadcast_to(candidates, scores.shape)], axis=1)
    all_sims = np.concatenate([sims, scores.astype(np.float32)], axis=1)
    if all_sims.shape[1] > k:
        part = np.argpartition(-all_sims, k - 1, axis=1)[:, :k]
        all_ids = np.take_along_axis(all_ids, part, axis=1)
        all_sims = np.take_along_axis(all_sims, part, axis=1)
    order = np.argsort(-all_sims, axis=1, kind="stable")
    out_ids = np.take_along_axis(all_ids, order, axis=1)
    out_sims = np.take_along_axis(all_sims, order, axis=1)
    out_ids[~np.isfinite(out_sims)] = -1
    if out_sims.shape[1] < k:  # fewer rows than k in the store
        pad = k - out_sims.shape[1]
        out_ids = np.pad(out_ids, ((0, 0), (0, pad)), constant_values=-1)
        out_sims = np.pad(out_sims, ((0, 0), (0, pad)), constant_values=-np.inf)
    return out_ids, out_sims
